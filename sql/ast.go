package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/types"
)

// Stmt is one parsed statement: either one of weir's own statement types
// below or a *Query for the statements the TiDB parser handles.
type Stmt interface{ stmt() }

// Query is a statement parsed by the TiDB parser after the dialect bridge:
// SELECT (incl. WITH, set operations, VALUES), INSERT, UPDATE, DELETE.
type Query struct {
	// Text is the original statement text.
	Text string
	// Rewritten is the bridged text that was given to the TiDB parser.
	Rewritten string
	// Node is the TiDB AST (*ast.SelectStmt, *ast.SetOprStmt,
	// *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt).
	Node ast.StmtNode
	// Params maps TiDB's ParamMarkerExpr.Order (0-based, in text order) to
	// the Postgres parameter number: `$2 ... $1` is Params = [2, 1].
	Params []int
	// TVFs holds the table functions that stood in FROM, keyed by the
	// placeholder table name that replaced them in Rewritten.
	TVFs map[string]*TVF
	// Returning holds the RETURNING list of an INSERT/UPDATE/DELETE (nil
	// when absent); TiDB's grammar has no RETURNING, so the bridge cuts it
	// off and parses it as a select list.
	Returning []*ast.SelectField
	// Aliases holds column alias lists of derived tables and VALUES in FROM
	// (`(...) AS t(a, b)`), keyed by the table alias.
	Aliases map[string][]string
	// OnConflict is INSERT's ON CONFLICT clause (nil when absent);
	// TiDB's grammar has none, so the bridge cuts it off like RETURNING.
	OnConflict *OnConflict
	// InsertAlias is the alias of INSERT INTO t AS alias ("" when none),
	// which TiDB's grammar lacks: the bridge cuts it out.
	InsertAlias string
	// Overriding is INSERT's OVERRIDING SYSTEM | USER VALUE ("system",
	// "user", or "" when absent), which TiDB's grammar lacks.
	Overriding string
	// Map maps byte offsets in Rewritten (ast node OriginTextPosition)
	// back to character positions in Text; ReturningMap does the same for
	// the nodes of Returning, which were parsed from a text of their own,
	// and ConflictMap for the nodes of OnConflict.
	Map, ReturningMap, ConflictMap *SourceMap
	// Catalogs are the database names the bridge took off the names
	// that carried one (PostgreSQL's db.schema.f(), db.schema.t,
	// db.schema.t.col; TiDB's grammar has one qualifier fewer): the
	// binder refuses any but the current database's (0A000).
	Catalogs []CatalogRef
	// Collated is set when the bridge dropped a COLLATE clause it found
	// no operand for (it rewrites the others into pg_collate calls,
	// doc.go #12). The binder then skips its checks of conflicting
	// collations, which the clause might have settled.
	Collated bool
	// FieldRefs holds the character positions (as Map gives them) of
	// the names x of the field selections (x).f the bridge wrote x.f
	// (doc.go #42): when x is no range variable, the binder reads them
	// as a field of the column x, as PostgreSQL does.
	FieldRefs map[int]bool
	// FieldStars maps the names x of the selections (x).* the bridge
	// wrote x.* to x's character position: when x is no range variable,
	// the binder reads x as a column, whose type is not composite
	// (42809) as PostgreSQL says.
	FieldStars map[string]int
	// LockClauses maps the character position (as Map gives them) of
	// the FOR of each locking clause to its words as written ("FOR NO
	// KEY UPDATE"), for the binder's messages: the bridge writes FOR NO
	// KEY UPDATE as FOR UPDATE and FOR KEY SHARE as FOR SHARE.
	LockClauses map[int]string
}

// OnConflict is `ON CONFLICT [(cols) | ON CONSTRAINT name] DO NOTHING |
// DO UPDATE SET ... [WHERE ...]`.
type OnConflict struct {
	// Columns is the inference target's column list (nil when none or
	// ON CONSTRAINT); Constraint the constraint's name.
	Columns   []string
	ColumnPos []int // character positions of Columns (their list's, as PostgreSQL reports them)
	// Exprs are the target's expressions as written (ON CONFLICT
	// ((lower(a)))), ExprPos where each starts.
	// IndexWhere is the index predicate after the target as written
	// ("" for none), IndexWherePos where it starts: together they infer
	// expression and partial unique indexes.
	Exprs         []string
	ExprPos       []int
	IndexWhere    string
	IndexWherePos int
	Constraint    string
	// Pos is the character position of ON CONFLICT, for errors.
	Pos int
	// Update is set for DO UPDATE: Set is its assignment list and Where
	// its condition (nil when none), both parsed as an UPDATE's.
	Update bool
	Set    []*ast.Assignment
	Where  ast.ExprNode
}

// TVF is a table function call in FROM, such as generate_series(1, 10) or
// TUMBLE(t, ts, INTERVAL '1' MINUTE).
type TVF struct {
	Name string         // lower-case function name
	Args []ast.ExprNode // arguments, parsed by the TiDB parser after bridging
	// ArgText holds each argument's bridged text (for TUMBLE/HOP, whose
	// first argument is a relation name).
	ArgText []string
	Alias   string   // table alias ("" when none)
	Columns []string // column alias list ("" when none)
	// Ordinality marks WITH ORDINALITY: a last column, bigint, numbers
	// the function's rows from 1.
	Ordinality bool
	// Lateral marks a function written LATERAL, which changes nothing
	// (a function in FROM reads the items to its left anyway) but how a
	// view's definition prints it.
	Lateral bool
	// Map maps the positions of Args, parsed from a text of their own,
	// back to the statement's.
	Map *SourceMap
}

// TypeName is a Postgres type as written in DDL or a cast.
type TypeName struct {
	T    types.T
	Text string // as written, for error messages
	// User is set, and T is types.TUnknown, when the name is no
	// built-in type: it may name a user type (an enum or a domain),
	// which the engine looks up in its catalog. Err is then the error
	// for a name that names none (42704, positioned).
	User *ObjectName
	Err  error
	// UserArray is set with User when the name is an array of it
	// (mood[]): arrays of user types are refused (0A000) when User
	// names one.
	UserArray bool
	// Domain is the OID of the domain the engine found the name to be
	// (T is then its base type), 0 otherwise.
	Domain uint32
	// DomainArray is set with Domain when the name is an array of the
	// domain (posint[]); T is then the base type's array.
	DomainArray bool
}

// LikeClause is LIKE source [INCLUDING | EXCLUDING option ...] in
// CREATE TABLE's column list: it stands for source's columns (names,
// types, NOT NULL, collations), with their defaults when Defaults is
// set (INCLUDING DEFAULTS).
type LikeClause struct {
	Table    ObjectName
	Defaults bool
	// Constraints (INCLUDING CONSTRAINTS) copies the CHECK constraints,
	// Generated (INCLUDING GENERATED) the generation expressions.
	Constraints, Generated bool
	Pos                    int // character position of the table's name, for errors
}

// ColumnDef is a column of CREATE TABLE / CREATE SOURCE; or, when Like
// is set, a LIKE clause, which the engine replaces by the columns it
// names before anything else reads the list.
type ColumnDef struct {
	Like       *LikeClause
	Name       string
	Type       TypeName
	NotNull    bool
	Null       bool // explicit NULL
	PrimaryKey bool
	// Default is the DEFAULT expression's bridged text ("" when none) and
	// DefaultExpr its TiDB AST.
	Default     string
	DefaultExpr ast.ExprNode
	// DefaultWritten is the DEFAULT expression as written, which starts
	// at character DefaultPos (1-based) of the statement ("" and 0 when
	// the parser did not keep it).
	DefaultWritten string
	DefaultPos     int
	// Serial is set for serial, bigserial and smallserial (Type is then
	// integer, bigint or smallint); Identity is "always" or "default"
	// for GENERATED ALWAYS | BY DEFAULT AS IDENTITY ("" otherwise).
	Serial   bool
	Identity string
	// CollateErr is the error of the column's COLLATE clause (nil when
	// the clause is fine or absent), which PostgreSQL raises once it
	// found the table (ALTER TABLE ... ADD COLUMN) or found that there
	// is none yet (CREATE TABLE [IF NOT EXISTS]).
	CollateErr error
	// Collation is the column's COLLATE name when it is not the type's
	// default ("C", "POSIX", ...; "" without COLLATE or for "default").
	Collation string
	// Generated is the expression of GENERATED ALWAYS AS (expr) STORED
	// as written ("" when none), which starts at character GeneratedPos
	// (1-based) of the statement; GeneratedAt is where the clause starts.
	Generated    string
	GeneratedPos int
	GeneratedAt  int
}

// CheckDef is a CHECK constraint of CREATE TABLE or ALTER TABLE, a
// column's or the table's: its name ("" when none was given) and its
// expression as written, which starts at character Pos (1-based) of the
// statement.
type CheckDef struct {
	Name string
	Expr string
	Pos  int
	// NoInherit is NO INHERIT (which changes nothing in weir, which has
	// no inheritance, but is shown); NotValid is ALTER TABLE's NOT
	// VALID: the stored rows are not checked.
	NoInherit, NotValid bool
}

// CreateTable is CREATE TABLE [IF NOT EXISTS] name (cols, PRIMARY KEY (...))
// [APPEND ONLY] [INCLUDE ...] [WITH (...)] [FORMAT ... ENCODE ...]; a
// WATERMARK FOR col AS expr element may stand in the column list.
type CreateTable struct {
	Name        ObjectName
	IfNotExists bool
	Columns     []ColumnDef
	PrimaryKey  []string // from a table constraint or column PRIMARY KEY
	AppendOnly  bool
	With        map[string]string
	Format      string
	Encode      string
	// AsQuery is set for CREATE TABLE ... AS query; NoData for its
	// WITH NO DATA, which creates the table empty.
	AsQuery *Query
	NoData  bool
	// AsColumns are the names CREATE TABLE name (a, b) AS gives the
	// query's first columns.
	AsColumns []string
	// Include lists INCLUDE clauses (tables and sources with a connector).
	Include []IncludeClause
	// Watermark is the WATERMARK FOR clause (nil when absent).
	Watermark *WatermarkDef
	// Uniques are the UNIQUE constraints, column and table ones, in the
	// order written.
	Uniques []UniqueDef
	// Temp is set for CREATE [LOCAL | GLOBAL] TEMP[ORARY] TABLE, and
	// Unlogged for CREATE UNLOGGED TABLE.
	Temp     bool
	Unlogged bool
	// OnCommit is a temporary table's ON COMMIT action, lower case:
	// "preserve rows", "delete rows" or "drop"; "" when not given.
	OnCommit string
	// NamePos is the character position of Name, for errors about the
	// schema the table goes to (PostgreSQL places them there, 3F000
	// "no schema has been selected to create in" among them).
	NamePos int
	// Checks are the CHECK constraints, column and table ones, in the
	// order written.
	Checks []CheckDef
	// ForeignKeys are the FOREIGN KEY constraints, column and table
	// ones, in the order written.
	ForeignKeys []ForeignKeyDef
}

// UniqueDef is a UNIQUE constraint: its name ("" when none was given)
// and columns.
type UniqueDef struct {
	Name             string
	Cols             []string
	Pos              int // character position of the constraint, for errors
	NullsNotDistinct bool
}

// IncludeClause is `INCLUDE partition | offset | timestamp | key [AS name]`
// after the column list of a source or a table with a connector: an extra
// column holding a Kafka record attribute.
type IncludeClause struct {
	What  string // "partition", "offset", "timestamp" or "key", lower case
	Alias string // "" when there is no AS
}

// WatermarkDef is `WATERMARK FOR col AS expr` in a column list.
type WatermarkDef struct {
	Column string
	// Expr is the bridged text of the expression and ExprNode its TiDB
	// AST (for example `ts - INTERVAL '5' SECOND`).
	Expr     string
	ExprNode ast.ExprNode
}

// CreateSource is CREATE SOURCE [IF NOT EXISTS] name (cols [, WATERMARK
// FOR ...]) [INCLUDE ...] WITH (options) FORMAT f ENCODE e [(options)].
// A source stores nothing: views and sinks read it (RisingWave's
// non-shared source).
type CreateSource struct {
	Name        ObjectName
	IfNotExists bool
	Columns     []ColumnDef
	Include     []IncludeClause
	Watermark   *WatermarkDef
	// With holds the WITH options and the ENCODE options, lower-cased
	// keys (connector, topic, properties.bootstrap.server, ...).
	With   map[string]string
	Format string // "plain", "upsert", ... lower case ("" when absent)
	Encode string // "json", "csv", ... lower case
}

// CreateSink is CREATE SINK [IF NOT EXISTS] name FROM relation | AS query
// WITH (options) [FORMAT f ENCODE e [(options)]].
type CreateSink struct {
	Name        ObjectName
	IfNotExists bool
	// From is the relation sunk (FROM name); Query is set instead for AS
	// query, with QueryText its text as written.
	From      ObjectName
	Query     *Query
	QueryText string
	With      map[string]string
	Format    string // "plain", "upsert" or "debezium", lower case ("" when absent)
	Encode    string
}

// ObjectName is an optionally schema-qualified name, folded to lower case
// unless quoted.
type ObjectName struct {
	Schema string // "" when unqualified
	Name   string
}

// String returns schema.name or name.
func (n ObjectName) String() string {
	if n.Schema == "" {
		return n.Name
	}
	return n.Schema + "." + n.Name
}

// CreateView is CREATE [OR REPLACE] [MATERIALIZED] VIEW [IF NOT EXISTS]
// name [(cols)] AS query.
type CreateView struct {
	Name              ObjectName
	OrReplace         bool
	Materialized      bool
	IfNotExists       bool
	Columns           []string
	Query             *Query
	QueryText         string // the query text as written
	EmitOnWindowClose bool
	With              map[string]string
	// Temp is set for CREATE [OR REPLACE] TEMP[ORARY] VIEW.
	Temp bool
	// NoData is a materialized view's WITH NO DATA: the view is created
	// unpopulated, without a job, until REFRESH MATERIALIZED VIEW.
	NoData bool
}

// CreateIndex is CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON rel
// [USING method] (col [ASC|DESC], ...) [INCLUDE (col, ...)]. Name is ""
// when none was given (the engine generates PostgreSQL's).
type CreateIndex struct {
	Name        string
	Rel         ObjectName
	Unique      bool
	IfNotExists bool
	Using       string // "" when no USING clause was given
	Cols        []IndexColumn
	Include     []string
	With        map[string]string
	// Constraint marks the index of a UNIQUE constraint (CREATE TABLE,
	// ALTER TABLE ... ADD), named <table>_<cols>_key when unnamed.
	Constraint bool
	// NullsNotDistinct is NULLS NOT DISTINCT: rows whose keys hold NULLs
	// conflict like equal values.
	NullsNotDistinct bool
	// Where is a partial index's predicate as written ("" for none),
	// WherePos the character position it starts at.
	Where    string
	WherePos int
}

// IndexColumn is one key column of CREATE INDEX with its ordering: a
// column (Name), or an expression (Expr, its text as written without
// the parentheses around it, starting at character ExprPos).
type IndexColumn struct {
	Name       string
	Expr       string
	ExprPos    int
	Desc       bool
	NullsFirst bool // NULLS FIRST given
	NullsLast  bool // NULLS LAST given
}

// Drop is DROP TABLE|VIEW|MATERIALIZED VIEW|SOURCE|SINK|INDEX|SCHEMA
// [IF EXISTS] names [CASCADE|RESTRICT].
type Drop struct {
	Kind     string // "table", "view", "materialized view", "source", "sink", "index", "schema"
	Names    []ObjectName
	IfExists bool
	Cascade  bool
}

// Show is SHOW name | SHOW ALL | SHOW TABLES | SHOW MATERIALIZED VIEWS |
// SHOW CREATE TABLE x | ... Kind is the lower-cased words after SHOW
// ("tables", "create table", "variable"), Name the variable or object.
type Show struct {
	Kind string
	Name string
	Obj  ObjectName
}

// Describe is DESCRIBE name (also DESC name).
type Describe struct{ Name ObjectName }

// Set is SET [SESSION|LOCAL] name {TO|=} value[, ...] | DEFAULT, and SET
// TIME ZONE value. Value holds the values as text, joined with ", ".
type Set struct {
	Name    string
	Value   string
	Default bool
	Local   bool
	// Args is the number of values given (0 when not counted: SET
	// TIME ZONE, SET NAMES, SET SCHEMA).
	Args int
}

// SetConstraints is SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED |
// IMMEDIATE }: when the checks of the named deferrable constraints (no
// names: all) run in the open transaction block.
type SetConstraints struct {
	// Names are the constraints named (nil for ALL).
	Names    []ObjectName
	Deferred bool
}

func (*SetConstraints) stmt() {}

// AlterSystem is ALTER SYSTEM SET name {TO|=} value, ALTER SYSTEM SET
// name TO DEFAULT and ALTER SYSTEM RESET name (Value empty), and ALTER
// SYSTEM RESET ALL (All).
type AlterSystem struct {
	Name  string
	Value string
	All   bool
	// Args is the number of values given.
	Args int
}

// AlterJob is ALTER MATERIALIZED VIEW | SINK name RESUME: it restarts
// the streaming job of a view or sink that is FAILED (out of restart
// attempts). Kind is "materialized view" or "sink"; Action is "resume".
type AlterJob struct {
	Kind   string
	Name   ObjectName
	Action string
}

// Reset is RESET name | RESET ALL.
type Reset struct{ Name string }

// TxnKind is BEGIN/START TRANSACTION, COMMIT/END, ROLLBACK/ABORT,
// SAVEPOINT, RELEASE [SAVEPOINT] or ROLLBACK TO [SAVEPOINT].
type TxnKind uint8

// Transaction statement kinds.
const (
	TxnBegin TxnKind = iota
	TxnCommit
	TxnRollback
	TxnSavepoint
	TxnRelease
	TxnRollbackTo
)

// Txn is a transaction control statement. Name is the savepoint's name
// (SAVEPOINT, RELEASE, ROLLBACK TO).
type Txn struct {
	Kind TxnKind
	Name string
}

// Copy is COPY table [(cols)] FROM STDIN | TO STDOUT [WITH] (options), or
// COPY (query) TO STDOUT.
type Copy struct {
	Table   ObjectName
	Columns []string
	Query   *Query // COPY (query) TO STDOUT
	From    bool   // FROM STDIN (else TO STDOUT)
	// Options, lower-cased: format ("text" | "csv" | "binary"), delimiter,
	// null, header, quote, escape.
	Options map[string]string
}

// ExplainJob is EXPLAIN MATERIALIZED VIEW name or EXPLAIN SINK name: the
// dataflow of the running job, with its operators' live counts. Kind is
// "materialized view" or "sink".
type ExplainJob struct {
	Kind string
	Name ObjectName
}

// Explain is EXPLAIN [ANALYZE] [VERBOSE] stmt, or EXPLAIN (option
// [value], ...) stmt. Timing defaults to Analyze and Summary to Analyze,
// as in PostgreSQL; COSTS, BUFFERS, SETTINGS, WAL and FORMAT are
// accepted and change nothing.
type Explain struct {
	Stmt    Stmt
	Analyze bool
	Verbose bool
	// Timing (EXPLAIN ANALYZE) prints each node's actual time as well as
	// its rows.
	Timing bool
	// Summary prints "Planning Time" (and, analyzing, "Execution Time").
	Summary bool
}

// Flush is FLUSH: wait for the next committed checkpoint.
type Flush struct{}

// Refresh is REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO]
// DATA]. weir keeps a populated materialized view up to date itself, so
// refreshing one waits, as FLUSH, until the view holds everything written
// before it; refreshing an unpopulated one (created WITH NO DATA) fills
// it and starts its job. NoData (WITH NO DATA) stops the job and leaves
// the view unpopulated.
type Refresh struct {
	Name         ObjectName
	Concurrently bool
	NoData       bool
}

// Backup is BACKUP TO 'directory' [WITH (...)]: write a consistent copy
// of the whole database, at one committed epoch, into a new directory on
// the server's machine.
type Backup struct {
	Dir  string
	With map[string]string
}

// Truncate is TRUNCATE [TABLE] name[, ...].
type Truncate struct {
	Names []ObjectName
	// Cascade is CASCADE: the tables referencing them through foreign
	// keys are truncated too.
	Cascade bool
}

// CreateSchema is CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]
// [schema_element ...].
type CreateSchema struct {
	Name        string
	IfNotExists bool
	// Owner is the role named by AUTHORIZATION ("" without it, the
	// creating role then), or "current_user", "current_role" or
	// "session_user" for those keywords (OwnerSpecial set).
	Owner        string
	OwnerSpecial bool
	// NameFromRole is set for CREATE SCHEMA AUTHORIZATION role, the
	// schema taking the role's name.
	NameFromRole bool
	// Elements are the schema elements, in the order they run.
	Elements []SchemaElement
}

// SchemaElement is one CREATE TABLE, VIEW, INDEX or SEQUENCE or GRANT
// of a CREATE SCHEMA: its statement, with the relation it creates (or,
// for an index, the table) put in the new schema, its text, and the
// character position (1-based) where that starts in CREATE SCHEMA's.
type SchemaElement struct {
	Stmt Stmt
	Text string
	Pos  int
}

// Discard is DISCARD ALL|PLANS|... (accepted, as pgx and poolers send it).
type Discard struct{ What string }

// Lock is LOCK [TABLE] name [, ...] [IN mode MODE] [NOWAIT]; Mode is
// the lock mode in lower case ("access exclusive" when none is given).
type Lock struct {
	Names  []ObjectName
	Mode   string
	NoWait bool
}

func (*Query) stmt()        {}
func (*CreateTable) stmt()  {}
func (*CreateView) stmt()   {}
func (*CreateIndex) stmt()  {}
func (*CreateSource) stmt() {}
func (*CreateSink) stmt()   {}
func (*Drop) stmt()         {}
func (*Show) stmt()         {}
func (*Describe) stmt()     {}
func (*Set) stmt()          {}
func (*AlterSystem) stmt()  {}
func (*AlterJob) stmt()     {}
func (*Reset) stmt()        {}
func (*Txn) stmt()          {}
func (*Prepare) stmt()      {}
func (*Execute) stmt()      {}
func (*Deallocate) stmt()   {}
func (*Copy) stmt()         {}
func (*Explain) stmt()      {}
func (*ExplainJob) stmt()   {}
func (*Flush) stmt()        {}
func (*Refresh) stmt()      {}
func (*Backup) stmt()       {}
func (*Truncate) stmt()     {}
func (*CreateSchema) stmt() {}
func (*Discard) stmt()      {}
func (*Lock) stmt()         {}

// Prepare is PREPARE name [(type, ...)] AS statement. Types are the
// parameter types' texts as written, TypesAt their character offsets in
// the statement's text; Body is the statement's text, which starts BodyAt
// characters into the PREPARE statement's text.
type Prepare struct {
	Name    string
	Types   []string
	TypesAt []int
	Body    string
	BodyAt  int
}

// Execute is EXECUTE name [(arg, ...)]. Args are the argument
// expressions' texts; ArgsAt their character offsets in the statement's
// text.
type Execute struct {
	Name   string
	Args   []string
	ArgsAt []int
}

// Deallocate is DEALLOCATE [PREPARE] name | ALL (All set, Name empty).
type Deallocate struct {
	Name string
	All  bool
}

// CatalogRef is a database name a qualified name carried (Query.Catalogs).
type CatalogRef struct {
	// Database is the name's first part, the database.
	Database string
	// Name is the whole name as PostgreSQL's error prints it
	// (other.public.t).
	Name string
	// Relation is set for a relation's name, whose error quotes Name.
	Relation bool
	// Pos is the name's character position, as Map gives them.
	Pos int
}
