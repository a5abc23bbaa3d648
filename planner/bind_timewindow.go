package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// This file binds the time window functions of FROM, after RisingWave's:
//
//	TUMBLE(t, time_col, size [, offset])
//	HOP(t, time_col, slide, size [, offset])
//
// t is a table, source, view, materialized view or CTE name, or a
// parenthesised subquery; time_col one of its columns, of type timestamp,
// timestamptz or date. The result has all of t's columns, then
// window_start and window_end. Windows are aligned to 1970-01-01 00:00:00
// (UTC for timestamptz) plus offset: a time t falls into the window
// starting at offset + k*size (k an integer, floor division, so times
// before 1970 work alike) with start <= t < start + size.
//
// TUMBLE binds as a projection computing window_start with the scalar
// function tumble_start and window_end as window_start + size; a row whose
// time is NULL keeps its place with NULL windows. HOP binds as a HopWindow
// node, emitting each row once per window holding it (size/slide windows);
// a row whose time is NULL is dropped.
//
// Sizes are constant intervals without months or years (a month has no
// fixed length); a day counts as 24 hours, also for timestamptz, so the
// planner hands the executor plain microseconds. Bad arguments are 22023.

// MaxHopWindows is the most windows HOP puts one row in (size/slide):
// every row becomes that many rows, so a slide of a microsecond over a
// day (86,400,000,000 rows for one input row) is refused at planning,
// not found out as the job runs out of memory.
const MaxHopWindows = 100_000

// windowFunc binds TUMBLE or HOP in FROM (see the file comment).
func (b *binder) windowFunc(f *sql.TVF, alias string, outer *scope, lvl *level) (Plan, *scope) {
	fname := strings.ToUpper(f.Name)
	hop := f.Name == "hop"
	nargs := 3
	usage := "TUMBLE(relation, time_column, size [, offset])"
	if hop {
		nargs = 4
		usage = "HOP(relation, time_column, slide, size [, offset])"
	}
	if len(f.Args) < nargs || len(f.Args) > nargs+1 {
		fail(pgerr.New(pgerr.UndefinedFunction, "%s takes %d or %d arguments, not %d", fname, nargs, nargs+1, len(f.Args)).
			WithHint("Write %s.", usage))
	}

	in, isc, name := b.windowInput(fname, f.Args[0], outer, lvl)
	tableName := alias
	if tableName == "" {
		tableName = name
	}

	// The time column is one of the input's columns: bound against the
	// input alone, so other FROM items and outer queries are not visible.
	own := &scope{cols: isc.cols, tables: isc.tables, lvl: lvl}
	tc := b.expr(&exprCtx{s: own, clause: "arguments of " + fname}, f.Args[1])
	cr, ok := tc.(*ColRef)
	if !ok {
		fail(pgerr.New(pgerr.InvalidParameterValue, "the time column of %s must be a column of its relation", fname).
			WithHint("Write %s.", usage))
	}
	wt := types.TTimestamp
	switch cr.T.ID {
	case types.Timestamp:
	case types.Timestamptz:
		wt = types.TTimestamptz
	case types.Date:
	default:
		fail(typeErrorf("the time column of %s must be of type timestamp, timestamp with time zone or date, not %s", fname, cr.T))
	}

	// The intervals are constants: bound without any columns in scope.
	consts := &exprCtx{s: &scope{lvl: lvl}, clause: "arguments of " + fname}
	interval := func(i int, what string) int64 {
		return b.windowInterval(consts, f.Args[i], fname, what)
	}
	var slide, size, offset int64
	if hop {
		slide, size = interval(2, "slide"), interval(3, "size")
	} else {
		size = interval(2, "size")
	}
	if len(f.Args) > nargs {
		offset = interval(nargs, "offset")
	}
	if size <= 0 {
		failf(pgerr.InvalidParameterValue, "window size of %s must be greater than zero", fname)
	}
	if hop {
		if slide <= 0 {
			failf(pgerr.InvalidParameterValue, "window slide of HOP must be greater than zero")
		}
		if size%slide != 0 {
			fail(pgerr.New(pgerr.InvalidParameterValue, "window size of HOP (%s) must be a multiple of its slide (%s)",
				types.FormatInterval(micros(size)), types.FormatInterval(micros(slide))).
				WithHint("Each row belongs to size/slide windows, so that number must be a whole number."))
		}
		if n := size / slide; n > MaxHopWindows {
			fail(pgerr.New(pgerr.InvalidParameterValue, "HOP would put each row in %d windows, more than %d", n, MaxHopWindows).
				WithHint("Each row becomes size/slide rows; use a larger slide or a smaller size."))
		}
	}

	// The output scope: the input's columns under the new range variable,
	// then the window columns.
	sc := &scope{parent: outer, lvl: lvl, tables: []string{tableName}}
	anyPK := false
	for _, c := range isc.cols {
		anyPK = anyPK || c.pk
		sc.cols = append(sc.cols, colInfo{table: tableName, name: c.name, t: c.t, notNull: c.notNull, hidden: c.hidden, pk: c.pk})
	}
	// Under HOP a row of t appears once per window, so t's key identifies
	// an output row only together with window_start.
	notNull := hop || isc.cols[cr.Idx].notNull
	sc.cols = append(sc.cols,
		colInfo{table: tableName, name: "window_start", t: wt, notNull: notNull, pk: hop && anyPK},
		colInfo{table: tableName, name: "window_end", t: wt, notNull: notNull})
	b.renameWindowColumns(sc, f.Columns, tableName)

	var out types.Schema
	for _, c := range sc.cols {
		out = append(out, types.Column{Name: c.name, T: c.t, NotNull: c.notNull, Hidden: c.hidden})
	}
	if hop {
		return &HopWindow{Input: in, TimeCol: cr.Idx, Slide: slide, Size: size, Offset: offset, Out: out}, sc
	}
	pr := &Project{Input: in, Out: out}
	for i, c := range isc.cols {
		pr.Exprs = append(pr.Exprs, &ColRef{Idx: i, T: c.t, Name: c.table + "." + c.name})
	}
	var t Expr = cr
	if cr.T.ID == types.Date {
		t = &Cast{Arg: cr, T: types.TTimestamp}
	}
	args := []Expr{t, intervalConst(size)}
	if offset != 0 {
		args = append(args, intervalConst(offset))
	}
	start := &Call{Fn: "tumble_start", Args: args, T: wt}
	end := &Call{Fn: "+", Args: []Expr{start, intervalConst(size)}, T: wt}
	pr.Exprs = append(pr.Exprs, start, end)
	return pr, sc
}

// windowInput binds the first argument of TUMBLE or HOP: a relation name
// (with an optional schema) or a subquery. It returns the plan, its scope
// and the name the output is known by when it has no alias.
func (b *binder) windowInput(fname string, arg ast.ExprNode, outer *scope, lvl *level) (Plan, *scope, string) {
	switch a := arg.(type) {
	case *ast.ColumnNameExpr:
		cn := a.Name
		if cn.Schema.O != "" {
			failf(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", cn.Schema.O, cn.Table.O, cn.Name.O)
		}
		tn := &ast.TableName{Schema: cn.Table, Name: cn.Name}
		p, sc := b.tableRef(tn, "", outer, lvl)
		return p, sc, cn.Name.O
	case *ast.SubqueryExpr:
		r := b.bindQuery(a.Query, outer, lvl, nil)
		name := strings.ToLower(fname)
		p, sc := b.derived(r.plan, name, nil, outer, lvl)
		return p, sc, name
	}
	fail(pgerr.New(pgerr.InvalidParameterValue, "the first argument of %s must be a relation name or a subquery", fname))
	return nil, nil, ""
}

// windowInterval binds a size, slide or offset argument and returns it in
// microseconds: a constant interval without months, a day counting as
// 24 hours.
func (b *binder) windowInterval(c *exprCtx, n ast.ExprNode, fname, what string) int64 {
	e := b.coerce(b.expr(c, n), types.TInterval, ctxImplicit, fmt.Sprintf("window %s of %s", what, fname))
	iv, null, ok := constInterval(e)
	switch {
	case !ok:
		failf(pgerr.InvalidParameterValue, "window %s of %s must be a constant interval", what, fname)
	case null:
		failf(pgerr.InvalidParameterValue, "window %s of %s must not be NULL", what, fname)
	case iv.Months != 0:
		failf(pgerr.InvalidParameterValue, "window %s of %s must not contain months or years", what, fname)
	}
	const day = 86400_000_000
	d := int64(iv.Days)
	if d > 100_000_000 || d < -100_000_000 {
		// More days than any timestamp spans; the product would overflow.
		failf(pgerr.InvalidParameterValue, "window %s of %s is out of range", what, fname)
	}
	v := d*day + iv.Micros
	if (iv.Micros > 0 && v < d*day) || (iv.Micros < 0 && v > d*day) {
		failf(pgerr.InvalidParameterValue, "window %s of %s is out of range", what, fname)
	}
	return v
}

// constInterval evaluates a constant interval expression: a literal, a
// cast of a string literal, or the negation of either. ok is false for
// anything else.
func constInterval(e Expr) (iv types.IntervalVal, null, ok bool) {
	switch x := e.(type) {
	case *Const:
		if x.V.Null {
			return iv, true, true
		}
		if x.T.ID == types.Interval {
			return x.V.Iv, false, true
		}
	case *Cast:
		if k, isConst := x.Arg.(*Const); isConst && x.T.ID == types.Interval {
			if k.V.Null {
				return iv, true, true
			}
			if k.T.ID == types.Unknown || k.T.Family() == types.FamString {
				v, err := types.ParseInterval(k.V.S)
				if err != nil {
					fail(pgerr.As(err))
				}
				return v, false, true
			}
		}
		return constInterval(x.Arg)
	case *Call:
		if x.Fn == "neg" && len(x.Args) == 1 {
			v, null, ok := constInterval(x.Args[0])
			return types.IntervalVal{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}, null, ok
		}
	}
	return iv, false, false
}

// renameWindowColumns applies a column alias list (`AS w(a, b, ...)`) to
// the visible columns of sc in order.
func (b *binder) renameWindowColumns(sc *scope, names []string, table string) {
	visible := 0
	for _, c := range sc.cols {
		if !c.hidden {
			visible++
		}
	}
	if len(names) > visible {
		failf(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", table, visible, len(names))
	}
	j := 0
	for i := range sc.cols {
		if sc.cols[i].hidden || j >= len(names) {
			continue
		}
		if names[j] != "" {
			sc.cols[i].name = names[j]
		}
		j++
	}
}

// micros returns an interval of us microseconds.
func micros(us int64) types.IntervalVal { return types.IntervalVal{Micros: us} }

// intervalConst returns an interval constant of us microseconds (no days:
// adding it to a timestamptz moves it by exactly that long, whatever the
// time zone).
func intervalConst(us int64) *Const {
	return &Const{V: types.DInterval(micros(us)), T: types.TInterval}
}
