package planner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Catalog is what the binder needs to resolve names. engine implements it
// over sql/catalog.
type Catalog interface {
	// Relation finds a user relation by schema ("" = search path: public)
	// and name, both already case-folded.
	Relation(schema, name string) (*catalog.Relation, bool)
	// SystemTable returns the columns of a virtual system table such as
	// pg_catalog.pg_class or information_schema.tables ("" schema searches
	// pg_catalog, then information_schema).
	SystemTable(schema, name string) (schemaName string, cols types.Schema, ok bool)
}

// TypeCatalog is implemented by a Catalog that knows user types (enums
// and domains): UserType finds one by schema ("" = search path) and
// name.
type TypeCatalog interface {
	UserType(schema, name string) (*catalog.UserType, bool)
}

// NameCatalog is implemented by a Catalog that knows the schemas and
// roles by name and OID, as regnamespace and regrole read and print
// them.
type NameCatalog interface {
	NamespaceOID(name string) (uint32, bool)
	NamespaceName(oid uint32) (string, bool)
	RoleOID(name string) (uint32, bool)
	RoleName(oid uint32) (string, bool)
}

// SchemaFirstCatalog is implemented by a Catalog that can search a
// schema before public for unqualified relation names: SchemaFirst
// returns it so, for binding the stored definition of a view a CREATE
// SCHEMA element created (catalog.SearchSchemaOption).
type SchemaFirstCatalog interface {
	SchemaFirst(schema string) Catalog
}

// SearchPathCatalog is implemented by a Catalog that can look up
// unqualified relation names through a search path other than the
// session's: SearchPath returns it so, for binding the stored definition
// of a view under the path it was created with
// (catalog.Relation.SearchPath, "" meaning public alone).
type SearchPathCatalog interface {
	SearchPath(stored string) Catalog
}

// PermanentCatalog is implemented by a Catalog in which temporary
// relations can hide permanent ones of the same name: Permanent returns
// the catalog without that, in which a permanent view's stored
// definition is bound (its names meant permanent relations when it was
// created).
type PermanentCatalog interface {
	Permanent() Catalog
}

// OwnedSequenceCatalog is implemented by a Catalog that knows the
// sequences serial and identity columns own (not relations of their
// own): OwnedSequence finds the table and column (an index into its
// Cols) owning the sequence name.
type OwnedSequenceCatalog interface {
	OwnedSequence(schema, name string) (*catalog.Relation, int, bool)
}

// SystemOIDCatalog is implemented by a Catalog that knows the pg_class
// OIDs of its system tables: SystemRelationOID gives the OID of system
// table schema.name ('pg_catalog.pg_stat_activity'::regclass).
type SystemOIDCatalog interface {
	SystemRelationOID(schema, name string) (uint32, bool)
}

// IndexCatalog is implemented by a Catalog that knows the indexes on a
// relation (catalog.KindIndex relations with catalog.IndexPositions
// set), which ON CONFLICT infers its arbiters from.
type IndexCatalog interface {
	Indexes(relID uint32) []*catalog.Relation
}

// Bound is a bound statement.
type Bound struct {
	Plan Plan
	// Params are the inferred types of $1..$n.
	Params []types.T
	// Tag is the command tag verb: "SELECT", "INSERT", "UPDATE", "DELETE".
	Tag string
	// Deps are the IDs of the user relations the statement reads (views
	// expanded), for CREATE VIEW's dependency tracking.
	Deps []uint32
	// Funcs are the user functions the binder inlined, as they were
	// bound, in the order first called: those the statement's text calls
	// (FuncDeps), and those the views it reads and the functions' bodies
	// call.
	Funcs []*catalog.Function
	// FuncDeps are the OIDs of the functions the statement's own text
	// calls, what a view made of it depends on.
	FuncDeps []uint32
	// Access lists every relation and system table the statement reads
	// or writes, through views too, with the privileges it needs on each
	// (see access.go), in the order they were bound.
	Access []Access
	// Late is the error of a value that does not fit its column's
	// modifier (22001 value too long, 22003 numeric field overflow),
	// returned as Bind's error unless the context was made by
	// WithLateErrors.
	Late error
}

// The sql front end's entry points, as variables so that tests can bind
// bridged text before the front end is complete.
var (
	parseStmt = sql.Parse
	// parseDefinition parses a view's stored query, which the grammar's
	// later restrictions do not apply to.
	parseDefinition = sql.ParseDefinition
	// parseStored parses text the bridge wrote (a stored watermark
	// expression), which the dialect gate would refuse as user text.
	parseStored = sql.ParseStored
	parseExpr   = sql.ParseExpr
	// parseUserExpr parses expressions kept as the user wrote them.
	parseUserExpr = sql.ParseUserExpr
	parseType     = sql.ParseType
)

// Bind binds a parsed query against cat. paramHints are the client's
// parameter types (may be shorter than the number of parameters, or
// TUnknown entries: infer; when longer, the query takes that many). Errors carry SQLSTATEs: 42P01 unknown table,
// 42703 unknown column, 42702 ambiguous column, 42883 unknown function or
// operator, 42804 type mismatch, 42803 grouping error, 42601 syntax,
// 42P10 invalid ORDER BY / GROUP BY reference, 0A000 unsupported feature.
//
// The returned plan has the rewrite rules of rules.go applied.
func Bind(q *sql.Query, cat Catalog, paramHints []types.T) (bd *Bound, err error) {
	return BindContext(context.Background(), q, cat, paramHints)
}

type noParamsKey struct{}

// WithoutParams returns ctx marking a statement that takes no
// parameters, as a simple Query's: BindContext under it fails at the
// first $n it binds with PostgreSQL's 42P02 "there is no parameter $n",
// before errors the rest of the statement would give (f($1) with no
// function f), as PostgreSQL's parse analysis does.
func WithoutParams(ctx context.Context) context.Context {
	return context.WithValue(ctx, noParamsKey{}, true)
}

// lateErrorsKey marks a context made by WithLateErrors.
type lateErrorsKey struct{}

// WithLateErrors returns ctx marked for BindContext to return a bound
// statement whose only error is a late one (a value too long for its
// column's modifier) with that error in Bound.Late rather than as its
// error. Such errors come after every other error binding finds, as
// PostgreSQL's come from the planner's constant folding, after parse
// analysis: a caller binding a statement in parts (a bulk INSERT's
// pieces) needs to tell them apart to keep that order across the parts.
func WithLateErrors(ctx context.Context) context.Context {
	return context.WithValue(ctx, lateErrorsKey{}, true)
}

// deferAuthKey marks a context made by WithDeferredAuthorization.
type deferAuthKey struct{}

// WithDeferredAuthorization returns ctx under which binding checks no
// privileges: neither an Authorizer catalog's accesses nor EXECUTE on
// the functions it inlines. PREPARE binds so, as PostgreSQL's PREPARE
// only analyses the statement: the role running it is checked at each
// run (Bound.Access), and one lacking a privilege may still prepare it.
func WithDeferredAuthorization(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferAuthKey{}, true)
}

// deferredAuthorization reports whether ctx was made by
// WithDeferredAuthorization.
func deferredAuthorization(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	d, _ := ctx.Value(deferAuthKey{}).(bool)
	return d
}

// deferExecKey marks a context made by WithDeferredExecute.
type deferExecKey struct{}

// WithDeferredExecute returns ctx under which binding checks no EXECUTE
// on the user functions it inlines, though it checks relations: CREATE
// VIEW binds so, as PostgreSQL checks a view's calls for the role
// reading it (Bound.Access), not for the role creating it.
func WithDeferredExecute(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferExecKey{}, true)
}

// deferredExecute reports whether ctx was made by WithDeferredExecute.
func deferredExecute(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	d, _ := ctx.Value(deferExecKey{}).(bool)
	return d
}

// BindContext is Bind under ctx: when ctx ends (statement_timeout, a
// CancelRequest, the client gone) binding stops with ctx's cause.
func BindContext(ctx context.Context, q *sql.Query, cat Catalog, paramHints []types.T) (bd *Bound, err error) {
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: ctx, access: &[]Access{}, late: &lateError{}}
	b.noParams, _ = ctx.Value(noParamsKey{}).(bool)
	// Declared types beyond the highest $n the text uses are parameters
	// too (PREPARE q (int, text) AS SELECT $1 takes two), as in Postgres.
	// A number past maxParams is no parameter (its marker is 42P02 when
	// bound) and must not size the list: $2147483648 would take
	// gigabytes.
	n := len(paramHints)
	for _, p := range q.Params {
		if p > n && p <= maxParams {
			n = p
		}
	}
	b.params = make([]types.T, n)
	for i := range b.params {
		b.params[i] = types.TUnknown
		if i < len(paramHints) && paramHints[i].ID != types.Unknown {
			b.params[i] = paramHints[i]
		}
	}
	defer func() {
		// Positions count from the query's text; a statement that
		// embeds the query (EXPLAIN, CREATE VIEW ... AS, CREATE TABLE
		// ... AS) reports them from its own start, as PostgreSQL does.
		if off := q.Map.Offset(); off > 0 {
			err = shiftedPosition(err, off)
			if bd != nil && bd.Late != nil {
				bd.Late = shiftedPosition(bd.Late, off)
			}
		}
	}()
	defer func() {
		// The binder reports errors by panicking with a *pgerr.Error
		// internally (deep recursion makes explicit returns noisy); the
		// panic never crosses the package boundary.
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			bd, err = nil, pe
		}
	}()
	bd = &Bound{}
	b.checkCatalogs()
	switch node := q.Node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		r := b.bindQuery(node.(ast.ResultSetNode), nil, &level{}, nil)
		bd.Plan = r.plan
		bd.Tag = "SELECT"
	case *ast.InsertStmt:
		bd.Plan = b.bindInsert(node)
		bd.Tag = "INSERT"
	case *ast.UpdateStmt:
		bd.Plan = b.bindUpdate(node)
		bd.Tag = "UPDATE"
	case *ast.DeleteStmt:
		bd.Plan = b.bindDelete(node)
		bd.Tag = "DELETE"
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported here", StatementName(q.Node))
	}
	used := make([]bool, len(b.params))
	for _, p := range q.Params {
		if p >= 1 && p <= len(used) {
			used[p-1] = true
		}
	}
	for i, t := range b.params {
		if t.ID == types.Unknown {
			// A parameter the text never mentions (SELECT $2 leaves $1)
			// has no type to infer, as in Postgres's
			// check_variable_parameters; one it mentions defaults to text.
			if !used[i] {
				return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
			}
			b.params[i] = types.TText
		}
	}
	bd.Params = b.params
	checkRecords(bd.Plan, false)
	fixParams(bd.Plan, b.params)
	if !q.Collated {
		markIndeterminate(bd.Plan, b.epos)
	}
	bd.Plan = Rewrite(bd.Plan)
	for id := range b.deps {
		bd.Deps = append(bd.Deps, id)
	}
	sort.Slice(bd.Deps, func(i, j int) bool { return bd.Deps[i] < bd.Deps[j] })
	bd.Access = *b.access
	if b.fnUses != nil {
		for _, oid := range b.fnUses.order {
			bd.Funcs = append(bd.Funcs, b.fnUses.funcs[oid])
			bd.Access = append(bd.Access, Access{Func: b.fnUses.funcs[oid]})
			if b.fnUses.direct[oid] {
				bd.FuncDeps = append(bd.FuncDeps, oid)
			}
		}
	}
	if b.late.err != nil {
		if keep, _ := ctx.Value(lateErrorsKey{}).(bool); !keep {
			return nil, b.late.err
		}
		bd.Late = b.late.err
	}
	if a, ok := cat.(Authorizer); ok && !deferredAuthorization(ctx) {
		acc := bd.Access
		if deferredExecute(ctx) {
			acc = slices.DeleteFunc(slices.Clone(acc), func(a Access) bool { return a.Func != nil })
		}
		if err := a.Authorize(acc); err != nil {
			return nil, err
		}
	}
	if err := rowLockError(bd.Access); err != nil {
		return nil, err
	}
	return bd, nil
}

// shiftedPosition returns err with its position, if it has one, moved
// by off characters (a copy: the error may be shared).
func shiftedPosition(err error, off int) error {
	pe, ok := err.(*pgerr.Error)
	if !ok || pe == nil || pe.Position <= 0 {
		return err
	}
	cp := *pe
	cp.Position += off
	return &cp
}

// lateError holds the first late error of a statement's binding: a
// literal too long for its column's modifier, which PostgreSQL finds
// when it plans the statement, after analysing all of it.
type lateError struct {
	err *pgerr.Error
}

// binder holds the state of binding one statement.
type binder struct {
	// enumArrays holds the enum_range results bound so far, by the enum
	// type whose array PostgreSQL gives them (they are text[] here):
	// pg_typeof names that array type.
	enumArrays map[Expr]types.T
	q          *sql.Query
	cat        Catalog
	// late holds the statement's first late error (lateError); nil in
	// a binder whose late errors fail at once.
	late *lateError
	// noParams is set for a statement that can have no parameters (a
	// simple Query's, WithoutParams): $n is 42P02 where it is bound.
	noParams bool
	// rowNames are the field names of the whole-row references bound so
	// far (fieldNames).
	rowNames map[Expr][]string
	// rowUnknown holds the row constructors with a field whose type was
	// still unknown when it was bound (PostgreSQL cannot expand those).
	rowUnknown map[Expr]bool
	// dmlTarget is the range variable of UPDATE's or DELETE's target
	// while their FROM or USING list is bound ("" otherwise).
	dmlTarget string
	params    []types.T // $n's type at index n-1; Unknown while open
	// fn is the user function whose body is being bound (its $n are
	// its parameters), fnDepth how many bodies enclose it, and fnUses
	// the statement's record of the functions it inlined
	// (bind_userfunc.go).
	fn      *catalog.Function
	fnDepth int
	fnUses  *funcUses
	deps    map[uint32]bool
	// access collects the statement's accesses (access.go), shared with
	// the binders of the views it reads.
	access *[]Access
	// view is the view whose definition is being bound (nil for the
	// statement's own text): its owner's privileges cover what it reads.
	view *catalog.Relation
	// lockTargets collects the items of the FROM clause being bound, for
	// its SELECT's locking clause; fromTargets keeps those of every
	// SELECT bound, by its FROM clause, for a locking clause over a
	// subquery of it (lock.go).
	lockTargets *[]lockTarget
	fromTargets map[*ast.TableRefsClause][]lockTarget
	// viewLocks holds, by the index of a view's read in the accesses,
	// what locking the view locks of the tables it reads (lock.go).
	viewLocks map[int][]int
	// targetRef is the table name of an UPDATE ... FROM's or DELETE ...
	// USING's target while their join is bound: the join reads it again
	// as its first item, which needs no SELECT of its own.
	targetRef *ast.TableName
	// ctes is the chain of WITH clauses in scope, innermost first.
	ctes *cteScope
	// workTables counts the RecursiveUnion nodes bound so far, to give
	// each its own working table id.
	workTables int
	// viewDepth guards against views that (through a catalog bug) refer
	// to themselves.
	viewDepth int
	// inReturning is set while the RETURNING list is bound: its nodes
	// were parsed from a text of their own (Query.ReturningMap).
	inReturning bool
	// inConflict is set while ON CONFLICT DO UPDATE's SET and WHERE are
	// bound (their nodes map through Query.ConflictMap).
	inConflict bool
	// tvfMap is set while a function in FROM's arguments are bound (their
	// nodes map through its sql.TVF.Map).
	tvfMap *sql.SourceMap
	// epos holds the source position of bound expressions (see notePos).
	epos map[Expr]int
	// ctx is the statement's context, polled every ctxPollInterval
	// expressions (see enter).
	ctx context.Context
	// depth is the nesting depth of the expression being bound, steps
	// counts the expressions bound so far (see enter).
	depth, steps int
	// queries is how many queries the one being bound is nested in: a
	// subquery, a CTE's query where it is read, a view's (see
	// enterQuery).
	queries int
	// procTimeOK is set while the right side of an inner or left join
	// is bound: the one place FOR SYSTEM_TIME AS OF PROCTIME() may stand.
	procTimeOK bool
	// aliases is set when a definition is bound to be deparsed
	// (viewdef.go): views read stay Scans of the view instead of being
	// expanded, and each Scan's range variable is recorded here.
	aliases map[*Scan]string
	// written records, when deparsing, the forms the query wrote that
	// bind to other nodes: "simple" for CASE x WHEN ..., "notdistinct"
	// for IS NOT DISTINCT FROM's CASE.
	written map[Expr]string
	// subAliases records, when deparsing, the alias of each subquery
	// in FROM, by its plan.
	subAliases map[Plan]string
	// usingJoins records, when deparsing, the columns of each JOIN ...
	// USING, by the projection that merges them.
	usingJoins map[Plan][]string
	// laterals records, when deparsing, the subqueries in FROM written
	// LATERAL.
	laterals map[Plan]bool
	// withs records, when deparsing, each SELECT's WITH clause bound on
	// its own, by the SELECT's plan, and cteRefs each reference to a
	// CTE (its name and range variable), by the plan it binds to.
	withs   map[Plan][]boundCTE
	cteRefs map[Plan][2]string
	// notes holds, when deparsing, the other forms the query wrote
	// that the plan does not keep (vdNotes).
	notes *vdNotes
}

type cteDef struct {
	cte *ast.CommonTableExpression
	// idx is the CTE's position in its WITH clause.
	idx int
	// ctes is the WITH chain visible to the CTE's own query.
	ctes *cteScope
	// recursive is set for the CTEs of a WITH RECURSIVE, which see
	// themselves.
	recursive bool
	// state tells which part of a recursive CTE is being bound (a
	// reference to the CTE then means recursion), refs counts the
	// references from its recursive term, and work is the working table
	// those references read.
	state cteState
	refs  int
	work  WorkTableScan
}

// cteState is the binding state of a recursive CTE.
type cteState uint8

const (
	cteIdle         cteState = iota
	cteWhole                 // bound whole: not of the recursive form
	cteNonRecursive          // its non-recursive term
	cteRecursive             // its recursive term
)

// fail aborts binding with err (recovered in Bind).
func fail(err *pgerr.Error) { panic(err) }

func failf(code pgerr.Code, format string, args ...any) {
	panic(pgerr.New(code, format, args...))
}

// DatabaseCatalog is implemented by a Catalog that knows the session's
// database, the one a qualified name may name (sql.Query.Catalogs).
type DatabaseCatalog interface {
	Database() string
}

// checkCatalogs refuses the database names the query's qualified names
// carry when they are not the current database's, as PostgreSQL does:
// the relations' first (PostgreSQL meets them analysing FROM), then the
// others in the order written.
func (b *binder) checkCatalogs() {
	dc, ok := unpinned(b.cat).(DatabaseCatalog)
	if !ok || b.q == nil || len(b.q.Catalogs) == 0 {
		return
	}
	refs := slices.Clone(b.q.Catalogs)
	slices.SortStableFunc(refs, func(x, y sql.CatalogRef) int {
		switch {
		case x.Relation == y.Relation:
			return 0
		case x.Relation:
			return -1
		}
		return 1
	})
	for _, r := range refs {
		if r.Database == dc.Database() {
			continue
		}
		name := r.Name
		if r.Relation {
			name = `"` + name + `"`
		}
		fail(pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s", name).WithPosition(r.Pos))
	}
}

// catalogPrefix is "db." when the function call node was written
// db.schema.f(...) (sql.Query.Catalogs), for its errors to name it so.
func (b *binder) catalogPrefix(node ast.Node) string {
	if b.q == nil || len(b.q.Catalogs) == 0 {
		return ""
	}
	if f, ok := node.(*ast.FuncCallExpr); !ok || f.Schema.O == "" {
		return ""
	}
	pos := b.pos(node)
	for _, r := range b.q.Catalogs {
		if !r.Relation && r.Pos == pos {
			return r.Database + "."
		}
	}
	return ""
}

// pos returns the 1-based character position of an AST node in the
// original text, when it can be mapped (0 otherwise). TiDB records the
// byte offset of an expression's first token in the bridged text; the
// query's source map takes it back to the Postgres text.
func (b *binder) pos(n ast.Node) int {
	if n == nil || b.q == nil {
		return 0
	}
	off := n.OriginTextPosition()
	if off <= 0 {
		return 0
	}
	m := b.curMap()
	if m == nil {
		// A query built without the bridge (tests): offsets index Text.
		if b.q.Rewritten != "" && b.q.Rewritten != b.q.Text || off > len(b.q.Text) {
			return 0
		}
		return len([]rune(b.q.Text[:off])) + 1
	}
	return m.Pos(off)
}

// curMap is the source map of the nodes being bound.
func (b *binder) curMap() *sql.SourceMap {
	switch {
	case b.tvfMap != nil:
		return b.tvfMap
	case b.inReturning:
		return b.q.ReturningMap
	case b.inConflict:
		return b.q.ConflictMap
	}
	return b.q.Map
}

// opPos is the position of an operator expression's operator, where
// Postgres reports operator errors (`operator does not exist`): for
// `a + b`, and `a || b` (a concat call), it is the token just before b.
// Other nodes are positioned at their start.
func (b *binder) opPos(n ast.Node) int {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "concat" && len(f.Args) == 2 && b.q != nil {
		// a || b: the operator is the token before b.
		if p := b.curMap().PosBefore(f.Args[1].OriginTextPosition()); p > 0 {
			return p
		}
	}
	bin, ok := n.(*ast.BinaryOperationExpr)
	if !ok || b.q == nil {
		return b.pos(n)
	}
	m := b.curMap()
	if p := m.PosBefore(bin.R.OriginTextPosition()); p > 0 {
		return p
	}
	return b.pos(n)
}

// level is one query level: the statement itself or a subquery used as an
// expression. Derived tables in FROM belong to the level of the query they
// stand in. OuterRef.Depth counts levels.
type level struct {
	parent     *level
	correlated bool
	// outerPos and outerTable are the position and range variable of
	// the first correlated reference, for a LATERAL reference's error.
	outerPos   int
	outerTable string
}

func (l *level) depthTo(target *level) int {
	d := 0
	for x := l; x != nil && x != target; x = x.parent {
		d++
	}
	return d
}

// colInfo is one column visible in a FROM scope.
type colInfo struct {
	table   string // range variable ("" for USING-merged columns)
	name    string
	t       types.T
	notNull bool
	// hidden columns (generated row ids) are not part of any *.
	hidden bool
	// scalarRow marks the one column of a function in FROM that returns
	// a scalar (generate_series, unnest): a whole-row reference to its
	// range variable is that value, not a record, as in PostgreSQL.
	scalarRow bool
	// merged columns were folded into a USING/NATURAL column: they are
	// reachable only qualified, and only `t.*` lists them.
	merged bool
	// fields, for a column of a subquery in FROM that is a row
	// constructor, are the offsets from this column to the hidden
	// columns holding the row's fields (derived), and fieldNames their
	// names; unknownField is set when PostgreSQL cannot expand them.
	fields       []int
	fieldNames   []string
	unknownField bool
	// pk marks the columns of a table's (declared) primary key: grouping
	// by all of them makes the table's other columns functionally
	// dependent on the group, so they may be selected ungrouped.
	pk bool
	// domain is the OID of a table column's domain (0 for none), which
	// pg_typeof names; domainArray is set when the column is an array
	// of the domain.
	domain      uint32
	domainArray bool
}

// scope is the set of columns a query level's expressions can name, in
// the order of the input row they are evaluated against.
type scope struct {
	cols   []colInfo
	tables []string // range variables in FROM order
	parent *scope   // the enclosing query's scope (for correlation)
	lvl    *level
	// invisible is a range variable of the scope that this part of the
	// query may not reference (42P10): UPDATE's or DELETE's target, seen
	// from a LATERAL item of its FROM or USING list.
	invisible string
	// grouped is set once the query is known to aggregate: columns of this
	// scope seen from a subquery must then be group keys, and map to the
	// aggregation's output.
	grouped *aggState
}

func (s *scope) hasTable(name string) bool {
	for _, t := range s.tables {
		if t == name {
			return true
		}
	}
	return false
}

// resolveColumn finds a column by (optional) table and name, searching
// enclosing queries for correlated references.
func (b *binder) resolveColumn(s *scope, cn *ast.ColumnName, node ast.Node) Expr {
	tbl, name := cn.Table.O, cn.Name.O
	display := name
	if tbl != "" {
		display = tbl + "." + name
	}
	for cur := s; cur != nil; cur = cur.parent {
		idx := -1
		if tbl != "" {
			if !cur.hasTable(tbl) {
				continue
			}
			if tbl == cur.invisible {
				fail(pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table \"%s\"", tbl).
					WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", tbl).
					WithPosition(b.pos(node)))
			}
			for i, c := range cur.cols {
				if c.table == tbl && c.name == name {
					idx = i
					break
				}
			}
			if idx < 0 {
				fail(pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", tbl, name).WithPosition(b.pos(node)))
			}
		} else {
			for i, c := range cur.cols {
				if c.name == name && !c.merged && (cur.invisible == "" || c.table != cur.invisible) {
					if idx >= 0 {
						fail(pgerr.New(pgerr.AmbiguousColumn, "column reference \"%s\" is ambiguous", name).WithPosition(b.pos(node)))
					}
					idx = i
				}
			}
			if idx < 0 {
				continue
			}
		}
		c := cur.cols[idx]
		qual := c.name
		if c.table != "" {
			qual = c.table + "." + c.name
		}
		if cur == s {
			return &ColRef{Idx: idx, T: c.t, Name: qual}
		}
		// A correlated reference: every level between here and the
		// column's own is re-evaluated per outer row.
		for l := s.lvl; l != nil && l != cur.lvl; l = l.parent {
			if !l.correlated {
				l.outerPos, l.outerTable = b.pos(node), c.table
			}
			l.correlated = true
		}
		depth := s.lvl.depthTo(cur.lvl)
		if cur.grouped != nil {
			k := cur.grouped.keyIndexOfCol(idx)
			if k < 0 {
				fail(pgerr.New(pgerr.GroupingError, "subquery uses ungrouped column \"%s\" from outer query", qual).WithPosition(b.pos(node)))
			}
			idx = k
		}
		return &OuterRef{Depth: depth, Idx: idx, T: c.t, Name: qual}
	}
	if tbl != "" {
		if b.q != nil && b.q.FieldRefs[b.pos(node)] {
			// (x).f where x is no range variable: a field of the
			// column x (sql doc.go #42).
			x := b.resolveColumn(s, &ast.ColumnName{Name: cn.Table}, node)
			if e, ok := b.subqueryField(s, x, name); ok {
				return e
			}
			return b.fieldOf(x, node, name)
		}
		fail(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", tbl).WithPosition(b.pos(node)))
	}
	for cur := s; cur != nil; cur = cur.parent {
		if cur.hasTable(name) {
			// PostgreSQL reads a range variable's name where no column
			// has it as the whole row: a record of its columns.
			if cur != s || name == cur.invisible {
				fail(pgerr.New(pgerr.FeatureNotSupported, "whole-row reference to \"%s\" is not supported here", name).WithPosition(b.pos(node)))
			}
			var fields []Expr
			var names []string
			scalar := false
			for i, c := range cur.cols {
				if c.table == name && !c.hidden {
					fields = append(fields, &ColRef{Idx: i, T: c.t, Name: c.table + "." + c.name})
					names = append(names, c.name)
					scalar = c.scalarRow
				}
			}
			if scalar && len(fields) == 1 {
				return fields[0]
			}
			row := b.rowValue(fields)
			b.fieldNames(row, names)
			return row
		}
	}
	fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", display).WithPosition(b.pos(node)))
	return nil
}

// fixParams gives every Param node its final type.
func fixParams(p Plan, params []types.T) {
	WalkPlanExprs(p, func(e Expr) {
		if pe, ok := e.(*Param); ok && pe.N >= 1 && pe.N <= len(params) {
			pe.T = params[pe.N-1]
		}
	})
}

// WalkPlanExprs calls fn on every expression (and sub-expression) of p and
// its inputs, including the plans of subqueries.
func WalkPlanExprs(p Plan, fn func(Expr)) {
	if p == nil {
		return
	}
	for _, e := range planExprs(p) {
		WalkExpr(e, func(x Expr) {
			fn(x)
			if sq, ok := x.(*Subquery); ok {
				WalkPlanExprs(sq.Plan, fn)
			}
		})
	}
	for _, in := range p.Inputs() {
		WalkPlanExprs(in, fn)
	}
}

// planExprs lists the expressions held directly by p.
func planExprs(p Plan) []Expr {
	var out []Expr
	add := func(es ...Expr) {
		for _, e := range es {
			if e != nil {
				out = append(out, e)
			}
		}
	}
	switch n := p.(type) {
	case *Values:
		for _, r := range n.Rows {
			add(r...)
		}
	case *Filter:
		add(n.Cond)
	case *Project:
		add(n.Exprs...)
	case *ProjectSet:
		for _, c := range n.Calls {
			add(c.Args...)
		}
	case *Agg:
		add(n.GroupBy...)
		for _, a := range n.Aggs {
			add(a.Args...)
			add(a.Filter)
			for _, k := range a.OrderBy {
				add(k.Expr)
			}
		}
	case *Join:
		add(n.LeftKeys...)
		add(n.RightKeys...)
		add(n.Cond)
	case *Sort:
		for _, k := range n.Keys {
			add(k.Expr)
		}
	case *Limit:
		add(n.Limit, n.Offset)
	case *Distinct:
		add(n.On...)
	case *Window:
		for _, c := range n.Calls {
			add(c.Args...)
			add(c.PartitionBy...)
			for _, k := range c.OrderBy {
				add(k.Expr)
			}
			if c.Frame != nil {
				add(c.Frame.Start.Offset, c.Frame.End.Offset)
			}
		}
	case *TableFunc:
		add(n.Args...)
	case *Insert:
		add(n.Returning...)
		add(n.Rules.exprs()...)
	case *Update:
		add(n.Set...)
		add(n.Returning...)
		add(n.Rules.exprs()...)
	case *Delete:
		add(n.Returning...)
	}
	return out
}

// WalkExpr calls fn on e and each of its sub-expressions, parents first.
// Subquery plans are not entered.
func WalkExpr(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	for _, c := range exprChildren(e) {
		WalkExpr(c, fn)
	}
}

func exprChildren(e Expr) []Expr {
	switch n := e.(type) {
	case *Call:
		return n.Args
	case *Cast:
		return []Expr{n.Arg}
	case *And:
		return n.Args
	case *Or:
		return n.Args
	case *Not:
		return []Expr{n.Arg}
	case *IsNull:
		return []Expr{n.Arg}
	case *IsBool:
		return []Expr{n.Arg}
	case *Case:
		var out []Expr
		for _, w := range n.Whens {
			out = append(out, w.Cond, w.Then)
		}
		if n.Else != nil {
			out = append(out, n.Else)
		}
		return out
	case *Coalesce:
		return n.Args
	case *InList:
		return append([]Expr{n.Arg}, n.List...)
	case *Subquery:
		if n.Arg != nil {
			return []Expr{n.Arg}
		}
		return n.Row
	case *Let:
		return append(append([]Expr{}, n.Vals...), n.Body)
	}
	return nil
}

// typeErrorf is a 42804 error.
func typeErrorf(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.DatatypeMismatch, format, args...)
}

var _ = fmt.Sprintf

// StatementName names the statement whose parse node is v for an error
// message, in SQL's words: *ast.ExecuteStmt is EXECUTE, *sql.CreateTable
// CREATE TABLE.
func StatementName(v any) string {
	name := fmt.Sprintf("%T", v)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, "Stmt")
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}
