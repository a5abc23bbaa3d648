package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/types"
)

// Kind is the kind of a catalog relation.
type Kind uint8

// Relation kinds, with the pg_class.relkind letter each maps to.
const (
	KindTable    Kind = iota // 'r'
	KindView                 // 'v'
	KindMView                // 'm'
	KindSource               // 'r' in pg_class (RisingWave shows sources apart)
	KindSink                 // not in pg_class
	KindSystem               // pg_catalog / information_schema virtual table
	KindSequence             // 'S': CREATE SEQUENCE (With holds "as" and "start")
	// KindIndex is a secondary index ('i'): a streaming job keeping, from
	// the changelog of the one relation in Deps, its rows' index columns
	// (the first IndexKeys of Cols), INCLUDE columns and primary key,
	// stored keyed by the index columns and then that key (PK).
	KindIndex
)

// IndexKeys returns the number of leading columns of an index (Kind
// KindIndex) that are its key columns as CREATE INDEX listed them; 0 for
// other relations.
func (r *Relation) IndexKeys() int {
	if r.Kind != KindIndex {
		return 0
	}
	n := 0
	fmt.Sscan(r.With[IndexKeysOption], &n)
	return n
}

// IndexKeysOption is the With entry of an index holding the number of
// its key columns (IndexKeys).
const IndexKeysOption = "index_keys"

// IndexPositionsOption is the With entry, never stored, in which the
// engine hands the planner the positions in the indexed relation's Cols
// of an index's columns, comma separated (IndexPositions): an index names
// its columns as the relation called them when it was created, which
// ALTER TABLE ... RENAME COLUMN changes.
const IndexPositionsOption = "index_positions"

// IndexPositions returns the positions IndexPositionsOption holds, and
// whether it is set.
func IndexPositions(r *Relation) ([]int, bool) {
	v, ok := r.With[IndexPositionsOption]
	if !ok {
		return nil, false
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n := -1
		fmt.Sscan(f, &n)
		out = append(out, n)
	}
	return out, true
}

// IndexDescOption is the With entry of an index listing, comma
// separated, the positions of its key columns declared DESC. The index
// is stored ascending whatever the order: a btree is read either way, so
// the order shows only in its definition.
const IndexDescOption = "index_desc"

// IndexNullsOption is the With entry of an index listing, comma
// separated, the positions of its key columns whose NULLS placement is
// not their direction's default: NULLS FIRST on an ascending key, NULLS
// LAST on a descending one. Like the direction, it shows only in the
// index's definition.
const IndexNullsOption = "index_nulls"

// IndexKeyOrder returns the ordering that follows key column k (0-based)
// of index r in its definition, as pg_get_indexdef prints it: " DESC",
// " NULLS FIRST", " DESC NULLS LAST" or "".
func (r *Relation) IndexKeyOrder(k int) string {
	has := func(opt string) bool {
		v := r.With[opt]
		return v != "" && slices.Contains(strings.Split(v, ","), strconv.Itoa(k))
	}
	desc, nulls := has(IndexDescOption), has(IndexNullsOption)
	switch {
	case desc && nulls:
		return " DESC NULLS LAST"
	case desc:
		return " DESC"
	case nulls:
		return " NULLS FIRST"
	}
	return ""
}

// IndexUniqueOption is the With entry ("true") of a unique index
// (CREATE UNIQUE INDEX, or a UNIQUE constraint's index when
// IndexConstraintOption is set too).
const IndexUniqueOption = "index_unique"

// IndexConstraintOption is the With entry ("true") of the index of a
// UNIQUE constraint (pg_constraint contype 'u'), as opposed to one
// CREATE UNIQUE INDEX made.
const IndexConstraintOption = "index_constraint"

// IndexNullsNotDistinctOption is the With entry ("true") of a unique
// index created NULLS NOT DISTINCT: keys holding NULLs conflict too.
const IndexNullsNotDistinctOption = "index_nulls_not_distinct"

// IndexExprsOption is the With entry of an index with key expressions:
// a JSON array holding, for each key column, the expression as CREATE
// INDEX wrote it, or "" for a key that is a column. The expressions
// name the table's columns as they were called then (the index pins
// them through DepCols when they are renamed).
const IndexExprsOption = "index_exprs"

// IndexPredicateOption is the With entry of a partial index holding its
// WHERE predicate as written: only the rows it holds for are indexed
// (and, for a unique index, kept unique).
const IndexPredicateOption = "index_predicate"

// IndexExprs returns, for each key column of index r, its expression
// (IndexExprsOption), "" for a column; nil when r has no expression.
func (r *Relation) IndexExprs() []string {
	v := r.With[IndexExprsOption]
	if v == "" {
		return nil
	}
	var out []string
	if json.Unmarshal([]byte(v), &out) != nil {
		return nil
	}
	return out
}

// IndexPredicate returns the WHERE predicate of partial index r as
// written, "" for other relations.
func (r *Relation) IndexPredicate() string {
	if r.Kind != KindIndex {
		return ""
	}
	return r.With[IndexPredicateOption]
}

// PlainIndex reports whether index r has neither key expressions nor a
// predicate: its keys are columns and it holds every row.
func (r *Relation) PlainIndex() bool {
	return r.With[IndexExprsOption] == "" && r.With[IndexPredicateOption] == ""
}

// UniqueStoreOption is the With entry of a unique index holding the id
// of its key store: a keyspace of the index's key values, each mapped to
// the primary key of the row holding it, that DML keeps in step with the
// table (the index job itself lags pending changes) and checks for
// duplicates. Drop deletes it with the index.
const UniqueStoreOption = "unique_store"

// UniqueStore returns the id of r's key store (UniqueStoreOption), or 0
// when r is no unique index.
func (r *Relation) UniqueStore() uint32 {
	if r.Kind != KindIndex || r.With[IndexUniqueOption] != "true" {
		return 0
	}
	var n uint32
	fmt.Sscan(r.With[UniqueStoreOption], &n)
	return n
}

// SearchSchemaOption is the With entry of a view created by a CREATE
// SCHEMA element: the schema its definition finds unqualified relation
// names in before public, as PostgreSQL's search path has the new schema
// first while the elements run.
const SearchSchemaOption = "search_schema"

// SeqOwnedByOption is the With entry of a sequence (KindSequence) that
// OWNED BY gave to a column: "<table id>/<column index>". The sequence
// is dropped with the table or the column, and pg_depend records the
// link (deptype 'a'), as PostgreSQL's serial columns have it.
const SeqOwnedByOption = "owned_by"

// SeqOwner returns the table id and column index of the column that
// owns sequence r (SeqOwnedByOption), and false when none does.
func (r *Relation) SeqOwner() (tableID uint32, col int, ok bool) {
	v := r.With[SeqOwnedByOption]
	if r.Kind != KindSequence || v == "" {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(v, "%d/%d", &tableID, &col); err != nil {
		return 0, 0, false
	}
	return tableID, col, true
}

// Column is one column of a relation.
type Column struct {
	Name    string
	T       types.T
	NotNull bool
	// Collation is the column's COLLATE when it is not its type's
	// default ("" then). weir orders text by its bytes whatever it is:
	// only the collations that do so are accepted.
	Collation string
	// Default is the DEFAULT expression's SQL text ("" when none), bound
	// again whenever an INSERT needs it.
	Default string
	// Domain is the OID of the column's domain (a UserType of Kind 'd')
	// when its type is one, 0 otherwise; T is then the domain's base type.
	Domain uint32
	// DomainArray is set with Domain when the column is of the domain's
	// array type (posint[]): T is the base type's array and the domain's
	// constraints hold for each element.
	DomainArray bool
	// Hidden marks the generated row id of a table without a primary key;
	// hidden columns are left out of SELECT * and \d.
	Hidden bool
	// Identity is "always" or "default" for a GENERATED ... AS IDENTITY
	// column ("" otherwise); its values come from the sequence Seq.
	Identity string
	// Seq names the sequence the column owns (serial and identity
	// columns; "" for none). A serial column's Default calls nextval on
	// it. The sequence's position is kept in storage under the table's
	// id and the column's name (engine/sequence.go), or SeqKey when set.
	Seq string
	// SeqKey is the name the sequence's position is stored under when it
	// is not Name: the column's name when the sequence was made, kept
	// across ALTER TABLE ... RENAME COLUMN.
	SeqKey string
	// SeqStart is the first value of the sequence Seq when it is not 1
	// (ALTER COLUMN ... ADD GENERATED ... AS IDENTITY (START WITH n));
	// 0 otherwise. SeqFirst reads it.
	SeqStart int64
	// SeqACL is the ACL of the sequence Seq (GRANT ... ON SEQUENCE); the
	// sequence belongs to the table's owner, as PostgreSQL's owned
	// sequence does.
	SeqACL RelACL
	// Added marks a column that ALTER TABLE ... ADD COLUMN added: rows
	// written before it lack it and are read with Missing in its place.
	Added bool
	// Missing is the value an added column has in the rows written
	// before it was added (PostgreSQL's attmissingval): its DEFAULT as
	// evaluated by ADD COLUMN, nil for NULL.
	Missing *types.Datum
	// Dropped marks a column that ALTER TABLE ... DROP COLUMN removed
	// (PostgreSQL's attisdropped). It stays in Cols, Hidden, so that the
	// positions of the others and the encoding of the stored rows do not
	// change; its Name is PostgreSQL's "........pg.dropped.N........",
	// which no query names, and new rows hold NULL in it.
	Dropped bool
	// Generated is the expression of a GENERATED ALWAYS AS (...) STORED
	// column as written ("" for an ordinary column): every INSERT and
	// UPDATE computes the column from the row's other columns, and no
	// statement may give it a value (PostgreSQL's attgenerated 's').
	Generated string
}

// SeqFirst returns the first value of the column's sequence Seq.
func (c Column) SeqFirst() int64 {
	if c.SeqStart > 0 {
		return c.SeqStart
	}
	return 1
}

// DroppedName is the name PostgreSQL gives the dropped column of attnum
// n, which keeps it out of every name lookup.
func DroppedName(n int) string { return fmt.Sprintf("........pg.dropped.%d........", n) }

// DefaultSQL returns the expression that fills the column when a row
// does not give it a value ("" when none): its DEFAULT, or for an
// identity column the next value of its sequence.
func (c Column) DefaultSQL() string {
	if c.Identity != "" && c.Seq != "" {
		return "nextval('" + strings.ReplaceAll(`"`+strings.ReplaceAll(c.Seq, `"`, `""`)+`"`, "'", "''") + "')"
	}
	return c.Default
}

// Relation is a table, view, materialized view, source or sink.
type Relation struct {
	ID     uint32 // unique, never reused; also the state table id of its data
	OID    uint32 // pg_class.oid as psql sees it (ID + FirstUserOID)
	Schema string // namespace, "public" for user objects
	Name   string
	Kind   Kind
	Cols   []Column
	// PK holds the indexes into Cols of the primary key (the hidden row id
	// for a table without one).
	PK []int
	// SQL is the definition: the query text for a view or MV, the full
	// CREATE statement for the others (SHOW CREATE prints it).
	SQL string
	// Unlogged marks a table created UNLOGGED (or set so by ALTER
	// TABLE ... SET UNLOGGED): pg_class.relpersistence 'u', and its
	// definition says UNLOGGED. weir keeps it as durable as any other
	// table; only what it is called changes.
	Unlogged bool
	// Deparsed marks a view's or materialized view's SQL written by the
	// deparser for a rename (planner.ViewDefinition) rather than by the
	// user: the aliases in it that the deparser made up (t_1) are no
	// user's, and follow the next rename.
	Deparsed bool
	// Deps are the IDs of the relations this one reads from.
	Deps []uint32
	// Funcs are the user functions a view's, materialized view's or
	// sink's definition inlined, through the views it reads and the
	// functions' bodies too, as they were when it was created. A
	// materialized view's definition is bound again (after a restart, a
	// rebuild) with these bodies, so it keeps computing what it was
	// built with when CREATE OR REPLACE FUNCTION changes one.
	Funcs []*Function
	// FuncDeps are the OIDs of the functions the definition's own text
	// calls: DROP FUNCTION finds the relation by them.
	FuncDeps []uint32
	// With holds the WITH (...) options, lower-cased keys.
	With map[string]string
	// SearchPath is, for a view, materialized view or sink, the search
	// path its definition was created under (a search_path value: the
	// schemas that existed then, $user resolved); its stored SQL finds
	// unqualified relation names through it whenever it is bound again,
	// whatever the binding session's search_path. "" means public alone,
	// as every definition stored before search paths were kept.
	SearchPath string
	// StateTables are the ids of a materialized view's state tables (its
	// own data is the table ID), in the order the stream planner
	// allocated them, so that planning the view again after a restart
	// gives every operator its state back. Dropping the relation drops
	// them with it.
	StateTables []uint32
	// Owner is the OID of the role that owns the relation (its creator);
	// the owner holds every privilege on it until it revokes some of its
	// own (ACL). Zero means the bootstrap superuser.
	Owner uint32
	// ACL is the relation's ACL, its owner's privileges and those
	// granted to other roles.
	ACL RelACL
	// StateLayout describes, per entry of StateTables, the layout its
	// operator reads and writes (operator, columns and key), as planned
	// when the relation was created. A later plan of the relation must
	// give every state table the same layout, or the job refuses to start
	// rather than misread its state. Empty for relations recorded before
	// layouts were (format version 1) until the upgrade fills it in.
	StateLayout []string
	// Comment is COMMENT ON's text for the relation ("" when none), and
	// ColComments COMMENT ON COLUMN's by column name.
	Comment     string
	ColComments map[string]string
	// DepCols pins, for a relation whose definition reads a table
	// altered since (ADD, RENAME COLUMN), the table's columns as the
	// definition was bound against: DepCols[table][i] is the name its
	// column i had, and columns beyond the list did not exist. Binding
	// the stored definition again (a restart, a view expanded into a
	// query) sees the table so, and means what it meant (PostgreSQL binds
	// views by column number). A table without an entry is seen as it is.
	DepCols map[uint32][]string
	// Rebuild lists, for a table, the indexes ALTER COLUMN ... TYPE
	// dropped and has not yet built again. It is written with their
	// drop, kept through the commit of the rewritten rows, and cleared
	// once every one is back in the catalog; a table that still has it
	// when the database opens gets them built then, so that a crash at
	// any point of the ALTER leaves the table with its indexes.
	Rebuild []IndexRebuild
	// Building marks a table CREATE TABLE AS (or SELECT INTO) made and
	// is filling: it is cleared in the catalog once the rows are
	// committed, and a table that still has it when the database opens
	// is dropped with the temporary relations (Catalog.DropTemp), so a
	// crash during the statement leaves no table, as in PostgreSQL.
	Building bool
	// Unpopulated marks a materialized view created WITH NO DATA (or
	// emptied by REFRESH MATERIALIZED VIEW ... WITH NO DATA), and an
	// index on one: it has no job and no rows, and reading it is an
	// error (pg_class.relispopulated false), until REFRESH MATERIALIZED
	// VIEW fills it and starts its job.
	Unpopulated bool
	// Temp marks a temporary relation (pg_class.relpersistence 't'):
	// one in a session's temporary schema (TempSchemaPrefix). Create
	// sets it from the schema. The session that made it drops it when
	// it ends, and Open's caller drops any left by a crash (DropTemp).
	Temp bool
	// Checks are the table's CHECK constraints in the order they were
	// made: every row written must not make one false (NULL passes).
	Checks []Check
	// ForeignKeys are the table's FOREIGN KEY constraints (this table
	// referencing another), in the order they were made.
	ForeignKeys []ForeignKey
}

// Referential actions of a foreign key (pg_constraint.confupdtype and
// confdeltype).
const (
	FKNoAction   = 'a'
	FKRestrict   = 'r'
	FKCascade    = 'c'
	FKSetNull    = 'n'
	FKSetDefault = 'd'
)

// Match types of a foreign key (pg_constraint.confmatchtype).
const (
	FKMatchSimple = 's'
	FKMatchFull   = 'f'
)

// ForeignKey is a FOREIGN KEY constraint of a table (pg_constraint
// contype 'f'): the values of Cols in each row must be those of RefCols
// in a row of table RefID, unless Match lets NULLs through.
type ForeignKey struct {
	// Name is the constraint's name, unique among the table's
	// constraints: as given, or PostgreSQL's <table>_<columns>_fkey.
	Name string
	// Cols are the referencing columns (indexes into the table's Cols),
	// RefCols the referenced ones (indexes into RefID's Cols), pairwise.
	Cols    []int
	RefID   uint32
	RefCols []int
	// Match is FKMatchSimple or FKMatchFull; OnUpdate and OnDelete are
	// FKNoAction, FKRestrict, FKCascade, FKSetNull or FKSetDefault.
	Match              byte
	OnUpdate, OnDelete byte
	// DeleteSetCols are the columns ON DELETE SET NULL / SET DEFAULT
	// sets (confdelsetcols; nil for all of Cols).
	DeleteSetCols []int
	// NotValid marks a constraint added NOT VALID: the stored rows were
	// not checked.
	NotValid bool
	// Deferrable marks a DEFERRABLE constraint (condeferrable), whose
	// NO ACTION check a transaction block may put off to its COMMIT;
	// Deferred marks one INITIALLY DEFERRED (condeferred), put off
	// unless SET CONSTRAINTS says otherwise.
	Deferrable, Deferred bool
}

// Check is a CHECK constraint of a table (pg_constraint contype 'c').
type Check struct {
	// Name is the constraint's name, unique among the table's
	// constraints: as given, or PostgreSQL's <table>_<column>_check
	// (<table>_check when the expression reads no column or several).
	Name string
	// Expr is the boolean expression as written, bound again over the
	// table's row (its columns by name) whenever a statement writes.
	Expr string
	// NoInherit records NO INHERIT, which weir (without inheritance)
	// only shows. NotValid marks a constraint added NOT VALID whose
	// stored rows were not checked (yet: VALIDATE CONSTRAINT); new rows
	// are checked all the same.
	NoInherit, NotValid bool
}

// IndexRebuild is an index to build again on its table (Relation.Rebuild):
// its CREATE INDEX statement, naming the table's columns, and what that
// statement cannot say.
type IndexRebuild struct {
	SQL              string `json:"sql"`
	Unique           bool   `json:"unique,omitempty"`
	Constraint       bool   `json:"constraint,omitempty"`
	NullsNotDistinct bool   `json:"nulls_not_distinct,omitempty"`
}

// FirstUserOID is the first OID given to user objects, as in Postgres
// (FirstNormalObjectId = 16384).
const FirstUserOID = 16384

// MissingRow returns the values the rows of table r written before its
// added columns lack for them (Column.Missing), in Cols order, and
// whether r has added columns at all.
func (r *Relation) MissingRow() (types.Row, bool) {
	added := false
	row := make(types.Row, len(r.Cols))
	for i, c := range r.Cols {
		row[i] = types.NullDatum
		if c.Added {
			added = true
			if c.Missing != nil {
				row[i] = *c.Missing
			}
		}
	}
	return row, added
}

// VisibleSchema returns the visible (not hidden) columns as a types.Schema.
func (r *Relation) VisibleSchema() types.Schema {
	s := make(types.Schema, 0, len(r.Cols))
	for _, c := range r.Cols {
		if !c.Hidden {
			s = append(s, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull})
		}
	}
	return s
}

// PKIndexOIDBase offsets the OID of a table's primary key index (which
// is not a relation of its own: pg_class shows it as <table>_pkey) from
// the table's OID; 2*PKIndexOIDBase offsets its pg_constraint row's.
const PKIndexOIDBase = 1 << 24

// HasPrimaryKey reports whether r is a table with a declared primary key
// (not the hidden _row_id key of a table declared without one), whose
// index pg_class shows as <table>_pkey.
func (r *Relation) HasPrimaryKey() bool {
	return r.Kind == KindTable && len(r.PK) > 0 && !r.Cols[r.PK[0]].Hidden
}

// OwnedSeqOIDBase is where the OIDs of the sequences that serial and
// identity columns own start (they are not relations of their own, but
// pg_class lists them): OwnedSeqOID. Above the OIDs of relations and
// their keys, and below FirstUserRoleOID while relation ids stay under
// 393216 (2^30-2^28 over 2^11 columns each).
const OwnedSeqOIDBase = 1 << 28

// OwnedSeqOID is the OID pg_class gives the sequence owned by column col
// (an index into r.Cols) of table r.
func OwnedSeqOID(r *Relation, col int) uint32 {
	return OwnedSeqOIDBase + r.ID<<11 + uint32(col)
}

// OwnedSequence finds the table column owning the sequence named name in
// schema among rels; ok is false when no column owns one of that name.
func OwnedSequence(rels []*Relation, schema, name string) (*Relation, int, bool) {
	for _, r := range rels {
		if r.Kind != KindTable || r.Schema != schema {
			continue
		}
		for i, c := range r.Cols {
			if c.Seq == name && !c.Dropped {
				return r, i, true
			}
		}
	}
	return nil, 0, false
}

// OwnedSequenceByOID finds the table column owning the sequence whose
// OID is oid (OwnedSeqOID).
func OwnedSequenceByOID(rels []*Relation, oid uint32) (*Relation, int, bool) {
	if oid < OwnedSeqOIDBase {
		return nil, 0, false
	}
	for _, r := range rels {
		if r.Kind != KindTable || r.ID != (oid-OwnedSeqOIDBase)>>11 {
			continue
		}
		if i := int((oid - OwnedSeqOIDBase) & 2047); i < len(r.Cols) && r.Cols[i].Seq != "" && !r.Cols[i].Dropped {
			return r, i, true
		}
	}
	return nil, 0, false
}
