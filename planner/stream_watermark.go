package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file derives the watermarks of stream plans (DESIGN.md §2): which
// output columns of each node carry watermarks, starting from the
// WATERMARK FOR clause of the tables and sources the plan reads, and the
// EMIT ON WINDOW CLOSE mode of aggregations that depends on them.
//
// A watermark W on column c of a stream says that no later row has c < W.
// It survives operators that keep c's values (Filter, exchanges, Project
// of the plain column), and turns into a watermark on f(c) for every
// expression f that never decreases as c grows (date_bin, date_trunc,
// c ± constant, widening casts): no later row has f(c) < f(W). An
// aggregation passes one on a group key; an inner join on a join key once
// both sides have one; a union on a column where every input has one.

// The WITH options in which a table or source keeps its WATERMARK FOR
// clause (the catalog has no field for it), and the view option of
// EMIT ON WINDOW CLOSE.
const (
	// WithWatermarkColumn names the watermark column.
	WithWatermarkColumn = "watermark.column"
	// WithWatermarkExpr is the watermark expression as bridged SQL text
	// over the relation's columns (sql.WatermarkDef.Expr).
	WithWatermarkExpr = "watermark.expr"
	// WithWatermarkIdleTimeout is how long, in milliseconds, a source
	// partition may deliver no row before it stops holding the
	// watermark back (DefaultWatermarkIdleTimeoutMs when absent; 0: a
	// partition is never idle, and the watermark waits for all of them;
	// at most MaxWatermarkIdleTimeoutMs).
	WithWatermarkIdleTimeout = "watermark.idle_timeout_ms"
	// WithEmitOnWindowClose marks a materialized view created with EMIT
	// ON WINDOW CLOSE ("true").
	WithEmitOnWindowClose = "emit_on_window_close"
	// WithFullJoinMarks, "false", plans the relation's full joins as
	// builds before format version 3 did, without the columns that keep
	// the NULL-padded rows of its two sides apart: a relation created by
	// such a build keeps the state layout it was created with.
	WithFullJoinMarks = "full_join_marks"
	// WithViewWatermarks lists, in a materialized view's WITH options,
	// the view's columns on which its job emits watermarks (indexes into
	// Rel.Cols, comma-separated): the Watermarks of the view's
	// StreamMaterialize, recorded when the view is created
	// (ViewWatermarkColumns). The jobs that read the view receive those
	// watermarks (the engine relays them with the view's changes), so a
	// scan of the view carries a watermark on each of them.
	WithViewWatermarks = "watermark.view_columns"
)

// DefaultWatermarkIdleTimeoutMs is the idle timeout of source partitions
// when the relation does not set watermark.idle_timeout_ms.
const DefaultWatermarkIdleTimeoutMs = 5000

// MaxWatermarkIdleTimeoutMs is the largest idle timeout accepted: the
// largest timeout Postgres accepts for its own settings (statement_timeout
// and the like), about 24.8 days. A larger one would be as good as never
// (0) and, near 2^63, overflows when turned into a duration.
const MaxWatermarkIdleTimeoutMs = math.MaxInt32

// SourceWatermark is the watermark a table or source declares with
// WATERMARK FOR col AS expr: after a row r is read, no row whose Col is
// below Expr(r) is accepted any more. Col indexes Rel.Cols and Expr is
// evaluated over a whole row in Rel.Cols order; its type is Col's.
type SourceWatermark struct {
	Col  int
	T    types.T
	Expr Expr
	// IdleTimeoutMs: a source partition without rows for this long no
	// longer holds the watermark back; 0: partitions are never idle.
	IdleTimeoutMs int64
}

// watermarkTypes are the types a watermark column may have: those whose
// values are int64s in Datum.I, so a watermark is stored as one integer.
var watermarkTypes = map[types.TypeID]bool{
	types.Int2: true, types.Int4: true, types.Int8: true,
	types.Date: true, types.Timestamp: true, types.Timestamptz: true,
}

// WatermarkTypeOK reports whether a column of type t may carry a
// watermark.
func WatermarkTypeOK(t types.T) bool { return watermarkTypes[t.ID] }

// RelWatermark binds the watermark that rel declares in its WITH options
// (WithWatermarkColumn, WithWatermarkExpr), or returns nil when it has
// none. Errors: 42703 for an unknown column, 0A000 for a column type that
// cannot carry a watermark, 42804 for an expression of another type,
// 22023 for a bad idle timeout, and the binder's errors for the
// expression.
func RelWatermark(rel *catalog.Relation) (*SourceWatermark, error) {
	name, ok := rel.With[WithWatermarkColumn]
	if !ok {
		return nil, nil
	}
	col := -1
	for i, c := range rel.Cols {
		if c.Name == name && !c.Hidden {
			col = i
		}
	}
	if col < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in WATERMARK FOR does not exist", name)
	}
	t := rel.Cols[col].T
	if !WatermarkTypeOK(t) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a watermark cannot be defined on column \"%s\" of type %s", name, t).
			WithHint("Use a smallint, integer, bigint, date, timestamp or timestamptz column.")
	}
	w := &SourceWatermark{Col: col, T: t, IdleTimeoutMs: DefaultWatermarkIdleTimeoutMs}
	if v, ok := rel.With[WithWatermarkIdleTimeout]; ok {
		ms, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || ms < 0 || ms > MaxWatermarkIdleTimeoutMs {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", WithWatermarkIdleTimeout, v).
				WithHint("A number of milliseconds from 0 (partitions are never idle) to %d is expected.", MaxWatermarkIdleTimeoutMs)
		}
		w.IdleTimeoutMs = ms
	}
	text := rel.With[WithWatermarkExpr]
	if strings.TrimSpace(text) == "" {
		text = quoteIdent(name)
	}
	stmt, err := parseStored("SELECT " + text + " FROM " + quoteIdent(rel.Name))
	if err != nil {
		return nil, err
	}
	q, ok := stmt.(*sql.Query)
	if !ok {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid watermark expression: %s", text)
	}
	bd, err := Bind(q, oneRelCatalog{rel}, nil)
	if err != nil {
		if pgerr.CodeOf(err) == pgerr.UndefinedTable {
			// Only the relation itself is in the catalog it is bound
			// against: another relation is read by a subquery.
			return nil, pgerr.New(pgerr.FeatureNotSupported, "subqueries and parameters are not allowed in a watermark expression")
		}
		return nil, err
	}
	p, ok := bd.Plan.(*Project)
	var s *Scan
	if ok {
		s, ok = p.Input.(*Scan)
	}
	if !ok || len(p.Exprs) != 1 || len(bd.Params) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a watermark expression must be a scalar expression over the row: %s", text)
	}
	bad := ""
	WalkExpr(p.Exprs[0], func(x Expr) {
		switch n := x.(type) {
		case *Subquery, *Param, *OuterRef:
			bad = "subqueries and parameters"
		case *Call:
			if timeDependent[n.Fn] {
				bad = n.Fn + "()"
			}
			for _, o := range Overloads(n.Fn) {
				if o.Volatile {
					bad = n.Fn + "()"
				}
			}
		}
	})
	if bad != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s are not allowed in a watermark expression", bad)
	}
	e := mapExpr(p.Exprs[0], func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			return &ColRef{Idx: s.Cols[c.Idx], T: c.T, Name: c.Name}
		}
		return x
	})
	et := e.Type()
	switch {
	case et == t:
	case et.Family() == types.FamInt && isIntType(et) && isIntType(t):
		e = &Cast{Arg: e, T: t}
	default:
		return nil, pgerr.New(pgerr.DatatypeMismatch, "the watermark expression is of type %s, but column \"%s\" is of type %s", et, name, t).
			WithHint("The watermark expression must have the type of its column.")
	}
	w.Expr = e
	return w, nil
}

func isIntType(t types.T) bool {
	return t.ID == types.Int2 || t.ID == types.Int4 || t.ID == types.Int8
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// oneRelCatalog binds an expression over one relation.
type oneRelCatalog struct{ rel *catalog.Relation }

func (c oneRelCatalog) Relation(schema, name string) (*catalog.Relation, bool) {
	if name == c.rel.Name {
		return c.rel, true
	}
	return nil, false
}

func (c oneRelCatalog) SystemTable(schema, name string) (string, types.Schema, bool) {
	return "", nil, false
}

// relWatermarkCol returns the index in rel.Cols of its watermark column,
// or -1.
func relWatermarkCol(rel *catalog.Relation) int {
	name, ok := rel.With[WithWatermarkColumn]
	if !ok {
		return -1
	}
	for i, c := range rel.Cols {
		if c.Name == name && !c.Hidden {
			return i
		}
	}
	return -1
}

// scanWatermarks returns the output columns of a scan reading rel's
// columns cols that carry rel's watermark: a table's or source's
// WATERMARK FOR column, or a materialized view's watermark columns
// (WithViewWatermarks).
func scanWatermarks(rel *catalog.Relation, cols []int) []int {
	wcs := viewWatermarkCols(rel)
	if wc := relWatermarkCol(rel); wc >= 0 {
		wcs = append(wcs, wc)
	}
	if len(wcs) == 0 {
		return nil
	}
	var out []int
	for j, c := range cols {
		if indexOf(wcs, c) >= 0 {
			out = append(out, j)
		}
	}
	return out
}

// ViewWatermarkColumns is the value of WithViewWatermarks for the view
// whose plan is m ("" when no column of the view carries a watermark).
func ViewWatermarkColumns(m *StreamMaterialize) string {
	parts := make([]string, len(m.Watermarks))
	for i, c := range m.Watermarks {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// viewWatermarkCols returns the columns of materialized view rel that
// carry a watermark (WithViewWatermarks), leaving out any entry that
// does not name a column of a type a watermark can have.
func viewWatermarkCols(rel *catalog.Relation) []int {
	if rel.Kind != catalog.KindMView {
		return nil
	}
	v := rel.With[WithViewWatermarks]
	if v == "" {
		return nil
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 0 || c >= len(rel.Cols) || !WatermarkTypeOK(rel.Cols[c].T) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// sourceWatermark binds the watermark of a source read by a job.
func sourceWatermark(rel *catalog.Relation) *SourceWatermark {
	w, err := RelWatermark(rel)
	if err != nil {
		fail(pgerr.As(err))
	}
	return w
}

// projectWatermarks returns the output columns of a projection of exprs
// that carry a watermark: those monotone in an input watermark column.
func projectWatermarks(in []int, exprs []Expr) []int {
	if len(in) == 0 {
		return nil
	}
	var out []int
	for j, e := range exprs {
		if _, ok := WatermarkSource(e, in); ok {
			out = append(out, j)
		}
	}
	return out
}

// WatermarkSource reports whether e never decreases as one input column
// grows, all else in e being constant, and that column is one of wms (the
// input's watermark columns): then a watermark W on the column gives the
// watermark e(W) on e's output column. It returns the column.
func WatermarkSource(e Expr, wms []int) (int, bool) {
	c, ok := monotoneIn(e)
	if !ok || indexOf(wms, c) < 0 {
		return 0, false
	}
	return c, true
}

// monotoneIn returns the single input column that e is a non-decreasing
// function of.
func monotoneIn(e Expr) (int, bool) {
	switch n := e.(type) {
	case *ColRef:
		return n.Idx, true
	case *Cast:
		from, to := n.Arg.Type(), n.T
		ok := from == to ||
			isIntType(from) && isIntType(to) && intWidth(from) <= intWidth(to) ||
			from.ID == types.Timestamp && to.ID == types.Date ||
			from.ID == types.Date && to.ID == types.Timestamp
		if !ok {
			return 0, false
		}
		return monotoneIn(n.Arg)
	case *Call:
		switch {
		case n.Fn == "+" && len(n.Args) == 2:
			if isConstExpr(n.Args[1]) {
				return monotoneArith(n.Args[0], n.Args[1])
			}
			if isConstExpr(n.Args[0]) {
				return monotoneArith(n.Args[1], n.Args[0])
			}
		case n.Fn == "-" && len(n.Args) == 2 && isConstExpr(n.Args[1]):
			return monotoneArith(n.Args[0], n.Args[1])
		case n.Fn == "date_bin" && len(n.Args) == 3 && isConstExpr(n.Args[0]) && isConstExpr(n.Args[2]):
			return monotoneIn(n.Args[1])
		case n.Fn == "date_trunc" && len(n.Args) == 2 && isConstExpr(n.Args[0]) && n.Args[1].Type().ID != types.Interval:
			return monotoneIn(n.Args[1])
		case n.Fn == "tumble_start" && len(n.Args) >= 2:
			// TUMBLE's window_start (its window_end adds the size).
			for _, a := range n.Args[1:] {
				if !isConstExpr(a) {
					return 0, false
				}
			}
			return monotoneIn(n.Args[0])
		}
	}
	return 0, false
}

// monotoneArith handles x ± k: monotone in x for the orderable types a
// watermark can have (integers, dates, timestamps; k an integer or an
// interval).
func monotoneArith(x, k Expr) (int, bool) {
	if !WatermarkTypeOK(x.Type()) {
		return 0, false
	}
	if kt := k.Type(); !isIntType(kt) && kt.ID != types.Interval {
		return 0, false
	}
	return monotoneIn(x)
}

func intWidth(t types.T) int {
	switch t.ID {
	case types.Int2:
		return 2
	case types.Int4:
		return 4
	}
	return 8
}

// isConstExpr reports whether e reads nothing of the row and is the same
// every time it is evaluated.
func isConstExpr(e Expr) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch n := x.(type) {
		case *ColRef, *OuterRef, *Param, *Subquery:
			ok = false
		case *Call:
			if timeDependent[n.Fn] {
				ok = false
			}
			for _, o := range Overloads(n.Fn) {
				ok = ok && !o.Volatile
			}
		}
	})
	return ok
}

// mappedWatermarks returns the output columns j of a node whose column j
// is input column cols[j], among those carrying a watermark.
func mappedWatermarks(in []int, cols []int) []int {
	var out []int
	for j, c := range cols {
		if indexOf(in, c) >= 0 {
			out = append(out, j)
		}
	}
	return out
}

// keyWatermarks returns the group key positions whose input column
// carries a watermark (an aggregation's or TopN's output keeps them).
func keyWatermarks(in []int, keys []int) []int {
	return mappedWatermarks(in, keys)
}

// keptWatermarks returns the columns of cols that carry a watermark in
// in, for a node whose output keeps its input's columns in place and
// forwards watermarks on cols only (TopN on its group keys).
func keptWatermarks(in []int, cols []int) []int {
	var out []int
	for _, c := range cols {
		if indexOf(in, c) >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// hopWatermarks returns the output columns of a StreamHopWindow that
// carry a watermark: the input's, in place, and window_start and
// window_end (at ws, ws+1) when the time column has one.
func hopWatermarks(in []int, timeCol, ws int) []int {
	out := append([]int(nil), in...)
	if indexOf(in, timeCol) >= 0 {
		out = append(out, ws, ws+1)
	}
	return out
}

// unionWatermarks returns the columns that carry a watermark in every
// input.
func unionWatermarks(inputs []StreamNode) []int {
	var out []int
	if len(inputs) == 0 {
		return nil
	}
	for _, c := range inputs[0].Base().Watermarks {
		all := true
		for _, in := range inputs[1:] {
			all = all && indexOf(in.Base().Watermarks, c) >= 0
		}
		if all {
			out = append(out, c)
		}
	}
	return out
}

// eowc switches an aggregation into EMIT ON WINDOW CLOSE mode: it needs a
// group key carrying a watermark, emits each group once, when the
// watermark passes it, and so never retracts.
func (sp *streamPlanner) eowc(n *StreamHashAgg) {
	if len(n.Watermarks) == 0 {
		fail(unsupported("EMIT ON WINDOW CLOSE needs a GROUP BY column with a watermark").
			WithHint("Group by the watermark column of a table or source created with WATERMARK FOR (or a view column derived from one), or by a window start computed from it (date_bin, date_trunc, TUMBLE)."))
	}
	n.EOWC = true
	n.AppendOnly = true
	sp.eowcNodes++
}

// eowcOrdered reports whether a window call over in can run in EMIT ON
// WINDOW CLOSE mode as far as its input goes: in is append-only and the
// call's first ORDER BY key is ascending (NULLs last) and never
// decreases as a watermark column of in grows.
func eowcOrdered(in StreamNode, c WindowCall) bool {
	b := in.Base()
	if !b.AppendOnly || len(c.OrderBy) == 0 || c.OrderBy[0].Desc || c.OrderBy[0].NullsFirst {
		return false
	}
	_, ok := WatermarkSource(c.OrderBy[0].Expr, b.Watermarks)
	return ok
}

// checkEOWC fails a plan in EMIT ON WINDOW CLOSE mode that has nothing to
// emit by window (no aggregation or over window in that mode), or whose
// root could still retract a row: such a view reads as append-only
// (relAppendOnly), so a PLAIN sink may read it.
func (sp *streamPlanner) checkEOWC(root StreamNode) {
	if !sp.emitOnClose {
		return
	}
	if sp.eowcNodes == 0 {
		fail(unsupported("EMIT ON WINDOW CLOSE needs an aggregation grouped by a column with a watermark, or window functions ordered by one").
			WithHint("Read a table or source created with WATERMARK FOR its time column, and GROUP BY window_start of TUMBLE or HOP over it (or the column itself), or order window functions by that column."))
	}
	if !root.Base().AppendOnly {
		fail(unsupported("EMIT ON WINDOW CLOSE needs a query whose rows are never retracted").
			WithHint("Operators above the windowed aggregation or window functions (a join with a table, a LIMIT) may retract rows; move them into another view."))
	}
}

// emitOnWindowClose reports whether the view rel asks for EMIT ON WINDOW
// CLOSE.
func emitOnWindowClose(rel *catalog.Relation) bool {
	return rel != nil && strings.EqualFold(rel.With[WithEmitOnWindowClose], "true")
}
