package planner

import (
	"context"
	"math"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Plan is a node of a logical/batch query plan. Plans are plain data: the
// executor builds operators from them, and EXPLAIN prints them. Every node
// produces the rows described by Schema(); expressions inside a node refer
// to its input's columns by index (ColRef).
type Plan interface {
	// Schema returns the node's output columns.
	Schema() types.Schema
	// Inputs returns the child plans (nil for leaves).
	Inputs() []Plan
}

// Scan reads a user relation (table or materialized view) at the
// statement's snapshot. Cols are indexes into Rel.Cols, in output order.
type Scan struct {
	Rel  *catalog.Relation
	Cols []int
	Out  types.Schema
	// ProcTime marks `rel FOR SYSTEM_TIME AS OF PROCTIME()`, the right
	// side of a process-time temporal join: a batch query reads the
	// relation as any scan does (its current rows); a stream plan turns
	// the join into a StreamLookupJoin, which looks each left row up in
	// the relation's committed rows when the row arrives.
	ProcTime bool
	// Sample is the scan's TABLESAMPLE clause; nil reads every row.
	Sample *TableSample
}

// TableSample is `TABLESAMPLE method (percent) [REPEATABLE (seed)]` on
// a table or materialized view. weir has no pages: both methods keep a
// row when a hash of its primary key and the seed falls below
// percent/100, so SYSTEM samples rows as BERNOULLI does (PostgreSQL's
// SYSTEM keeps or drops whole pages).
type TableSample struct {
	Method  string // "bernoulli" or "system"
	Percent Expr   // real
	// Seed is the REPEATABLE argument (double precision); nil draws a
	// seed for each execution of the statement.
	Seed Expr
}

// SampleArgs checks the values of a TABLESAMPLE clause's arguments as
// PostgreSQL's tablesample_init and bernoulli_beginsamplescan do (NULL
// percent 2202H, NULL seed 2202G, a percentage outside 0..100 2202H)
// and returns functions.SampleLimit and functions.SampleSeed of them
// (seed 0 when hasSeed is false).
func SampleArgs(pct, seed types.Datum, hasSeed bool) (limit, s uint64, err error) {
	if pct.Null {
		return 0, 0, pgerr.New(pgerr.InvalidTablesampleArgument, "TABLESAMPLE parameter cannot be null")
	}
	if hasSeed {
		if seed.Null {
			return 0, 0, pgerr.New(pgerr.InvalidTablesampleRepeat, "TABLESAMPLE REPEATABLE parameter cannot be null")
		}
		s = functions.SampleSeed(seed.F)
	}
	p := float32(pct.F)
	if p < 0 || p > 100 || math.IsNaN(float64(p)) {
		return 0, 0, pgerr.New(pgerr.InvalidTablesampleArgument, "sample percentage must be between 0 and 100")
	}
	return functions.SampleLimit(p), s, nil
}

// SystemScan reads a virtual system table (pg_catalog.*,
// information_schema.*, weir's own), generated at execution time from the
// catalog.
type SystemScan struct {
	Schema_ string // "pg_catalog", "information_schema", ...
	Name    string
	Out     types.Schema
	// Seq is set when the scan reads a sequence as a relation (SELECT *
	// FROM seq): the sequence, or the table whose column owns it.
	// Schema_ is then SequenceRow and Name the sequence's relation id
	// (table id/column index for a column's), SeqName its name, and the
	// one row is last_value, log_cnt, is_called.
	Seq     *catalog.Relation
	SeqName string
}

// SequenceRow is the SystemScan schema of a sequence read as a relation.
const SequenceRow = "\x00sequence"

// Values produces literal rows (VALUES lists, SELECT without FROM as one
// empty row with Rows = [][]Expr{{}}).
type Values struct {
	Rows [][]Expr
	Out  types.Schema
	// More, when set, opens a source of further rows, which follow Rows:
	// a bulk INSERT's later rows, bound a piece at a time as the
	// statement runs (engine/bulkinsert.go). Each run opens its own.
	More func() RowSource
}

// RowSource yields rows of a Values beyond its Rows, a batch at a time.
type RowSource interface {
	// Next returns the next batch of rows, or nil after the last.
	Next(ctx context.Context) ([][]Expr, error)
}

// Filter keeps the rows for which Cond is true.
type Filter struct {
	Input Plan
	Cond  Expr
}

// Project computes one output column per expression.
type Project struct {
	Input Plan
	Exprs []Expr
	Out   types.Schema
}

// AggCall is one aggregate: Fn over Args ("count" with no Args is
// count(*)), optionally DISTINCT, with a FILTER condition (nil for none) and
// an ORDER BY for order-sensitive aggregates (string_agg).
type AggCall struct {
	Fn       string
	Args     []Expr
	Distinct bool
	Filter   Expr
	OrderBy  []SortKey
	T        types.T
}

// Agg groups by GroupBy and computes Aggs. Output columns are the group
// keys in order, then one column per aggregate. With no GroupBy it yields
// exactly one row, even over empty input (Postgres semantics).
type Agg struct {
	Input   Plan
	GroupBy []Expr
	Aggs    []AggCall
	Out     types.Schema
	// EmptySets are the numbers of the empty grouping sets when the Agg
	// groups an Expand's rows (the set number its last group key): like
	// a global aggregate, each such set has its one group, its other keys
	// NULL, even over no input.
	EmptySets []int64
}

// Expand emits each input row once per grouping set (GROUP BY GROUPING
// SETS, ROLLUP, CUBE; RisingWave's Expand): copy s is the row with the
// Keys columns that Sets[s] leaves out set to NULL, followed by s, the
// set's number (bigint). An Agg above it groups by the Keys columns and
// the number, so groups of different sets stay apart even where their
// keys are equal.
type Expand struct {
	Input Plan
	Keys  []int   // input columns the sets are made of
	Sets  [][]int // per set, the positions in Keys it groups by
	Out   types.Schema
}

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds. Semi and Anti output only the left columns.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
)

// Join joins Left and Right. Output columns are Left's then Right's (Left's
// only for Semi/Anti). LeftKeys[i] = RightKeys[i] are the equi-join keys
// (each evaluated against its own side; NULL never matches); Cond is the
// residual condition over the concatenated row (nil for none). A cross
// join is an InnerJoin with no keys and no Cond.
type Join struct {
	Kind      JoinKind
	Left      Plan
	Right     Plan
	LeftKeys  []Expr
	RightKeys []Expr
	Cond      Expr
	Out       types.Schema
	// Lateral marks a LATERAL right side: Right is re-evaluated per left
	// row, its OuterRefs of depth 1 reading that row (Kind is InnerJoin or
	// LeftJoin, and there are no keys).
	Lateral bool
	// NullAware marks the anti join of `x NOT IN (subquery)` (Kind
	// AntiJoin, one key: x = the subquery's column), which the stream
	// planner alone builds: a left row is kept when the right side is
	// empty, and otherwise only when its key is not NULL, no right key is
	// NULL and no right row matches.
	NullAware bool
}

// SortKey is one ORDER BY item. NullsFirst is explicit: the binder fills in
// Postgres's default (NULLS LAST for ASC, NULLS FIRST for DESC).
type SortKey struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

// Sort orders its input by Keys (a stable sort).
type Sort struct {
	Input Plan
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Limit rows. Either may be nil
// (no limit / no offset); both are int8 expressions without column refs.
// Ties, when set (FETCH FIRST ... WITH TIES), are the ORDER BY keys of
// the sorted input: the rows after the last one passed that tie with it
// on them pass too.
type Limit struct {
	Input  Plan
	Limit  Expr
	Offset Expr
	Ties   []SortKey
}

// Distinct removes duplicate rows (all columns), or with On set, keeps the
// first row of each group of equal On values (DISTINCT ON; the input is
// sorted by the binder).
type Distinct struct {
	Input Plan
	On    []Expr
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

// Set operation kinds.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two inputs with the same column types. Out carries the
// left input's names with the unified types.
type SetOp struct {
	Kind  SetOpKind
	All   bool
	Left  Plan
	Right Plan
	Out   types.Schema
}

// RecursiveUnion evaluates a WITH RECURSIVE common table expression
// (Postgres docs §7.8.2): it emits NonRecursive's rows, then repeatedly
// evaluates Recursive, whose WorkTableScan with the same WorkTable id
// reads the rows the previous round emitted, until a round emits none.
// Without All, rows already emitted (NULLs equal) are dropped, across
// rounds. Out has NonRecursive's types and the CTE's column names;
// Recursive's columns are already cast to those types.
type RecursiveUnion struct {
	Name         string // the CTE's name, for EXPLAIN
	NonRecursive Plan
	Recursive    Plan
	All          bool
	WorkTable    int // id shared with the WorkTableScan in Recursive
	Out          types.Schema
}

// WorkTableScan reads the working table of the RecursiveUnion with the
// same WorkTable id: the rows its previous round emitted.
type WorkTableScan struct {
	Name      string // the CTE's name, for EXPLAIN
	WorkTable int
	Out       types.Schema
}

// FrameBound is one end of a window frame.
type FrameBound struct {
	// Kind is "unbounded_preceding", "preceding", "current_row",
	// "following" or "unbounded_following".
	Kind   string
	Offset Expr // for "preceding" / "following"
}

// Frame is a window frame clause. Mode is "rows", "range" or "groups".
type Frame struct {
	Mode  string
	Start FrameBound
	End   FrameBound
	// Exclude is the frame exclusion (docs §4.2.8): "" (EXCLUDE NO
	// OTHERS), "current_row", "group" (the current row and its peers) or
	// "ties" (its peers but not itself). It leaves out rows of the frame
	// for the functions that read it (ReadsFrame).
	Exclude string
	// Between records that the clause was written with BETWEEN ... AND
	// (a frame written with its start alone ends at the current row), for
	// printing it as written.
	Between bool
}

// WindowCall is one window function: a ranking function (row_number,
// rank, dense_rank, lag, lead, first_value, last_value, ntile...) or an
// aggregate OVER a window. Frame nil means the SQL default (RANGE
// UNBOUNDED PRECEDING to CURRENT ROW with ORDER BY, the whole partition
// without).
type WindowCall struct {
	Fn          string
	Args        []Expr
	PartitionBy []Expr
	OrderBy     []SortKey
	Frame       *Frame
	T           types.T
}

// ReadsFrame reports whether the window function fn reads its frame (an
// aggregate or a value function), as opposed to ranking and offset
// functions.
func ReadsFrame(fn string) bool {
	o := functions.WindowFunction(fn)
	return o == nil || o.ReadsFrame
}

// Window computes window functions. Output columns are the input's, then
// one per call. Row order of the output is unspecified.
type Window struct {
	Input Plan
	Calls []WindowCall
	Out   types.Schema
}

// TableFunc is a set-returning function in FROM, such as
// generate_series(1, 10) or unnest. Args have no column refs.
type TableFunc struct {
	Fn   string
	Args []Expr
	Out  types.Schema
	// Ordinality (WITH ORDINALITY) appends a last column, bigint, that
	// numbers the function's rows from 1.
	Ordinality bool
}

// ProjectSet runs the set-returning functions of a select list
// (PostgreSQL 10+): per input row its Calls (their Args over the input
// row) run in lockstep, giving as many rows as the longest, the columns
// of the calls that ended NULL; a row whose calls give no rows yields
// none. Output: the input's columns, one column per call, then the
// row's ordinal among those of its input row (bigint, from 1), which
// keeps a stream key unique.
type ProjectSet struct {
	Input Plan
	Calls []TableFunc
	Out   types.Schema
	// Outer keeps a row whose calls give no rows, once, the calls'
	// columns NULL and its ordinal 1: LEFT JOIN LATERAL f(t.x) ON true.
	// Only materialized views plan it (lateralFunction).
	Outer bool
}

// Insert writes its input rows into Rel. Input yields full rows in Rel.Cols
// order (the binder fills in defaults and hidden row ids are assigned by
// the executor). Returning, when set, is evaluated over each inserted row
// (in Rel.Cols order) and becomes the output; otherwise the output is
// empty and the tag counts rows.
type Insert struct {
	Rel       *catalog.Relation
	Input     Plan
	Returning []Expr
	Out       types.Schema
	// OnConflict is what to do with a row whose primary key exists (nil:
	// fail with 23505).
	OnConflict *OnConflict
	// Given lists the columns the statement gives values for
	// (PostgreSQL's insertedCols): its column list, or the leading
	// columns its rows fill. A constraint violation's detail shows these
	// to a role that may not read the table.
	Given []int
	// Rules are the table's generated columns and CHECK constraints,
	// applied to every row inserted or updated.
	Rules RowRules
}

// OnConflict is INSERT's ON CONFLICT action on the table's primary key.
// Set and Where are evaluated over the existing row followed by the row
// proposed for insertion (EXCLUDED), both in Rel.Cols order.
type OnConflict struct {
	// Update is DO UPDATE; otherwise DO NOTHING.
	Update bool
	// PK is set when the primary key is an arbiter, and Arbiters lists
	// the unique indexes that are: a proposed row conflicts when a row
	// holds its key in one of them (PostgreSQL's arbiter indexes).
	PK       bool
	Arbiters []uint32
	// Set[i] computes column i's new value (nil keeps it).
	Set []Expr
	// Where (nil: none) must hold for the existing row to be updated.
	Where Expr
}

// Update rewrites the rows Input yields. Input yields the old rows in
// Rel.Cols order, for UPDATE ... FROM followed by the columns of the other
// tables joined; Set[i] computes the new value of column i from the input
// row (nil keeps it). Returning is evaluated over the new row.
type Update struct {
	Rel       *catalog.Relation
	Input     Plan
	Set       []Expr
	Returning []Expr
	Out       types.Schema
	// Rules are the table's generated columns and CHECK constraints,
	// applied to every new row.
	Rules RowRules
}

// Delete removes the rows Input yields (old rows in Rel.Cols order).
// Returning is evaluated over the deleted row.
type Delete struct {
	Rel       *catalog.Relation
	Input     Plan
	Returning []Expr
	Out       types.Schema
}

// Schema and Inputs implementations.
func (p *Scan) Schema() types.Schema           { return p.Out }
func (p *SystemScan) Schema() types.Schema     { return p.Out }
func (p *Values) Schema() types.Schema         { return p.Out }
func (p *Filter) Schema() types.Schema         { return p.Input.Schema() }
func (p *Project) Schema() types.Schema        { return p.Out }
func (p *Agg) Schema() types.Schema            { return p.Out }
func (p *Expand) Schema() types.Schema         { return p.Out }
func (p *ProjectSet) Schema() types.Schema     { return p.Out }
func (p *Join) Schema() types.Schema           { return p.Out }
func (p *Sort) Schema() types.Schema           { return p.Input.Schema() }
func (p *Limit) Schema() types.Schema          { return p.Input.Schema() }
func (p *Distinct) Schema() types.Schema       { return p.Input.Schema() }
func (p *SetOp) Schema() types.Schema          { return p.Out }
func (p *Window) Schema() types.Schema         { return p.Out }
func (p *RecursiveUnion) Schema() types.Schema { return p.Out }
func (p *WorkTableScan) Schema() types.Schema  { return p.Out }
func (p *TableFunc) Schema() types.Schema      { return p.Out }
func (p *Insert) Schema() types.Schema         { return p.Out }
func (p *Update) Schema() types.Schema         { return p.Out }
func (p *Delete) Schema() types.Schema         { return p.Out }

func (p *Scan) Inputs() []Plan           { return nil }
func (p *SystemScan) Inputs() []Plan     { return nil }
func (p *Values) Inputs() []Plan         { return nil }
func (p *Filter) Inputs() []Plan         { return []Plan{p.Input} }
func (p *Project) Inputs() []Plan        { return []Plan{p.Input} }
func (p *Agg) Inputs() []Plan            { return []Plan{p.Input} }
func (p *Expand) Inputs() []Plan         { return []Plan{p.Input} }
func (p *ProjectSet) Inputs() []Plan     { return []Plan{p.Input} }
func (p *Join) Inputs() []Plan           { return []Plan{p.Left, p.Right} }
func (p *Sort) Inputs() []Plan           { return []Plan{p.Input} }
func (p *Limit) Inputs() []Plan          { return []Plan{p.Input} }
func (p *Distinct) Inputs() []Plan       { return []Plan{p.Input} }
func (p *SetOp) Inputs() []Plan          { return []Plan{p.Left, p.Right} }
func (p *Window) Inputs() []Plan         { return []Plan{p.Input} }
func (p *RecursiveUnion) Inputs() []Plan { return []Plan{p.NonRecursive, p.Recursive} }
func (p *WorkTableScan) Inputs() []Plan  { return nil }
func (p *TableFunc) Inputs() []Plan      { return nil }
func (p *Insert) Inputs() []Plan         { return []Plan{p.Input} }
func (p *Update) Inputs() []Plan         { return []Plan{p.Input} }
func (p *Delete) Inputs() []Plan         { return []Plan{p.Input} }
