package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/weirdb/weir/types"
)

// This file converts a Window into StreamOverWindow nodes: window
// functions over a changelog (RisingWave's OverWindow), in the general
// mode or, in a view created with EMIT ON WINDOW CLOSE, in the EOWC mode
// (RisingWave's EowcOverWindow).

// windowOnlyFns are the window functions that are not aggregates.
var windowOnlyFns = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true,
	"ntile": true, "lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true,
}

// eowcRunningAggs are the aggregates an EOWC over window keeps as one
// running value over a frame starting UNBOUNDED PRECEDING: those whose
// state is a fixed row of values on append-only input
// (functions.AccumulatorStateTypes), so the state stays bounded.
var eowcRunningAggs = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "every": true, "variance": true, "var_samp": true,
	"var_pop": true, "stddev": true, "stddev_samp": true, "stddev_pop": true,
	"corr": true, "covar_pop": true, "covar_samp": true, "regr_avgx": true, "regr_avgy": true,
	"regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true,
	"regr_sxx": true, "regr_sxy": true, "regr_syy": true,
}

// window converts w into one StreamOverWindow per distinct window
// (PARTITION BY and ORDER BY), stacked: calls over the same window share
// a node, and each node appends its calls' columns to its input's. A
// projection then restores the Window's layout (its input's columns,
// then one column per call, in order) when the stacking moved them or
// the input has hidden columns.
func (sp *streamPlanner) window(w *Window) StreamNode {
	return sp.windowOver(w, sp.plan(w.Input))
}

// windowOver is window over the already converted input in.
func (sp *streamPlanner) windowOver(w *Window, in StreamNode) StreamNode {
	nIn := len(w.Input.Schema())
	groups := windowGroups(w.Calls)
	if sp.emitOnClose {
		// A node whose calls look ahead emits no watermark, which an EOWC
		// node stacked on it would need: such nodes go last.
		sort.SliceStable(groups, func(a, b int) bool {
			return !anyLooksAhead(w.Calls, groups[a]) && anyLooksAhead(w.Calls, groups[b])
		})
	}
	at := make([]int, len(w.Calls))
	for _, g := range groups {
		calls := make([]WindowCall, len(g))
		for j, ci := range g {
			calls[j] = w.Calls[ci]
		}
		n := sp.overWindow(in, calls)
		first := len(n.Out) - len(g)
		for j, ci := range g {
			at[ci] = first + j
		}
		in = n
	}
	b := in.Base()
	inPlace := len(b.Out) == nIn+len(w.Calls)
	for ci := range w.Calls {
		inPlace = inPlace && at[ci] == nIn+ci
	}
	if inPlace {
		return in
	}
	exprs := columnsOf(b.Out, nIn)
	for ci, c := range w.Calls {
		exprs = append(exprs, &ColRef{Idx: at[ci], T: c.T, Name: FormatWindowCall(c)})
	}
	return newProject(in, exprs, w.Out)
}

// windowGroups groups the calls by window, in order of first appearance:
// calls with the same PARTITION BY and ORDER BY (same expressions, same
// directions) are one group.
func windowGroups(calls []WindowCall) [][]int {
	var keys []string
	var groups [][]int
	for i, c := range calls {
		var parts []string
		for _, e := range c.PartitionBy {
			parts = append(parts, exprKey(e))
		}
		parts = append(parts, "|")
		for _, k := range c.OrderBy {
			parts = append(parts, fmt.Sprintf("%s %v %v", exprKey(k.Expr), k.Desc, k.NullsFirst))
		}
		key := strings.Join(parts, ",")
		g := -1
		for j, k := range keys {
			if k == key {
				g = j
			}
		}
		if g < 0 {
			keys = append(keys, key)
			groups = append(groups, nil)
			g = len(groups) - 1
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// overWindow builds exchange → StreamOverWindow computing calls (which
// share one window) over in: the partition keys, ORDER BY keys and
// arguments that are not constants are made columns of in first, and
// the input is partitioned by the partition keys.
func (sp *streamPlanner) overWindow(in StreamNode, calls []WindowCall) *StreamOverWindow {
	first := calls[0]
	np, no := len(first.PartitionBy), len(first.OrderBy)
	exprs := append([]Expr(nil), first.PartitionBy...)
	for _, k := range first.OrderBy {
		exprs = append(exprs, k.Expr)
	}
	// argAt[i][j] is the index in exprs of argument j of call i, or -1
	// for a constant, which stays an expression of the call.
	argAt := make([][]int, len(calls))
	for i, c := range calls {
		for _, a := range c.Args {
			if isConstExpr(a) {
				argAt[i] = append(argAt[i], -1)
				continue
			}
			argAt[i] = append(argAt[i], len(exprs))
			exprs = append(exprs, a)
		}
	}
	in, cols := withColumns(in, exprs)
	pcols := dedupInts(cols[:np])
	ocols := cols[np : np+no]
	in = exchange(in, hashDist(pcols), false)
	b := in.Base()
	ref := func(c int) *ColRef { return &ColRef{Idx: c, T: b.Out[c].T, Name: b.Out[c].Name} }

	n := &StreamOverWindow{Input: in, PartitionBy: pcols, EOWC: sp.emitOnClose}
	var pexprs []Expr
	for _, c := range pcols {
		pexprs = append(pexprs, ref(c))
	}
	for i, k := range first.OrderBy {
		n.OrderBy = append(n.OrderBy, SortKey{Expr: ref(ocols[i]), Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	for i, c := range calls {
		nc := WindowCall{Fn: c.Fn, T: c.T, Frame: c.Frame, PartitionBy: pexprs, OrderBy: n.OrderBy}
		for j, a := range c.Args {
			if argAt[i][j] >= 0 {
				a = ref(cols[argAt[i][j]])
			}
			nc.Args = append(nc.Args, a)
		}
		n.Calls = append(n.Calls, nc)
	}
	n.Out = append(types.Schema(nil), b.Out...)
	for _, c := range calls {
		n.Out = append(n.Out, types.Column{Name: c.Fn, T: c.T})
	}
	n.StreamKey = dedupInts(append(append([]int(nil), pcols...), b.StreamKey...))
	n.Dist = keyedDist(b.Dist, pcols)

	// Rows: keyed by partition keys, ORDER BY keys, then the input's
	// stream key, so a partition's rows are read in window order (ties
	// by stream key).
	rows := StateTableDesc{ID: sp.alloc(), Name: "over_window", Cols: append(types.Schema(nil), n.Out...)}
	if n.EOWC {
		rows.Name = "over_buffer"
		rows.Cols = append(types.Schema(nil), b.Out...)
	}
	for _, c := range pcols {
		rows.KeyCols = append(rows.KeyCols, c)
		rows.OrderDesc = append(rows.OrderDesc, false)
	}
	for i, c := range ocols {
		if indexOf(rows.KeyCols, c) < 0 {
			rows.KeyCols = append(rows.KeyCols, c)
			rows.OrderDesc = append(rows.OrderDesc, first.OrderBy[i].Desc)
		}
	}
	for _, c := range b.StreamKey {
		if indexOf(rows.KeyCols, c) < 0 {
			rows.KeyCols = append(rows.KeyCols, c)
			rows.OrderDesc = append(rows.OrderDesc, false)
		}
	}
	rows.DistKeyCols = append([]int(nil), pcols...)
	n.Rows = rows

	if !n.EOWC {
		n.Watermarks = keptWatermarks(b.Watermarks, pcols)
		return n
	}
	sp.checkOverEOWC(n, b)
	sp.eowcNodes++
	n.AppendOnly = true
	if !anyLooksAhead(n.Calls, nil) {
		n.Watermarks = []int{ocols[0]}
	}
	parts := StateTableDesc{ID: sp.alloc(), Name: "over_partition"}
	for _, c := range pcols {
		col := b.Out[c]
		col.Hidden = false
		parts.Cols = append(parts.Cols, col)
	}
	parts.KeyCols = seq(0, len(pcols))
	parts.OrderDesc = make([]bool, len(pcols))
	parts.DistKeyCols = seq(0, len(pcols))
	parts.Cols = append(parts.Cols,
		types.Column{Name: "_emitted", T: types.TInt8, NotNull: true},
		types.Column{Name: "_rank", T: types.TInt8, NotNull: true},
		types.Column{Name: "_dense_rank", T: types.TInt8, NotNull: true})
	if slices.ContainsFunc(n.Calls, KeepsByDistance) {
		parts.Cols = append(parts.Cols, types.Column{Name: "_kept", T: types.TInt8, NotNull: true})
	}
	for i, c := range n.Calls {
		if keepsRunningState(c) {
			parts.Cols = append(parts.Cols, types.Column{Name: FormatWindowCall(calls[i]), T: types.TBytea})
		}
	}
	n.Partitions = parts
	return n
}

// rankingFn reports whether fn numbers rows (its value depends on the
// rows before it only through counters).
func rankingFn(fn string) bool { return fn == "row_number" || fn == "rank" || fn == "dense_rank" }

// keepsRunningState reports whether an EOWC over window keeps c's value
// as a running state in its Partitions table: an aggregate, first_value,
// last_value or nth_value over a frame starting UNBOUNDED PRECEDING.
func keepsRunningState(c WindowCall) bool {
	return runningFrame(c) && !rankingFn(c.Fn) && c.Fn != "lag" && c.Fn != "lead" &&
		c.Fn != "ntile" && c.Fn != "percent_rank" && c.Fn != "cume_dist"
}

// KeepsByDistance reports whether an EOWC over window computing c keeps
// emitted rows for later rows by ORDER BY distance rather than by count:
// a RANGE frame starting n PRECEDING or at the current row's peers
// reaches back to the rows whose values lie within n (or equal), and one
// from UNBOUNDED PRECEDING to n PRECEDING folds in each row once a later
// row's value is n past it. The over window's Partitions table then
// counts the emitted rows its buffer still holds (_kept).
func KeepsByDistance(c WindowCall) bool {
	f := c.Frame
	if f == nil || f.Mode != "range" || !ReadsFrame(c.Fn) {
		return false
	}
	switch f.Start.Kind {
	case "preceding", "current_row":
		return true
	case "unbounded_preceding":
		return f.End.Kind == "preceding"
	}
	return false
}

// runningFrame reports whether c's frame starts at the partition's first
// row (UNBOUNDED PRECEDING, explicitly or by the default frame), so that
// an EOWC over window keeps its value as one running state.
func runningFrame(c WindowCall) bool {
	return c.Frame == nil || c.Frame.Start.Kind == "unbounded_preceding"
}

// checkOverEOWC fails an EMIT ON WINDOW CLOSE over window that could not
// emit each row once, when final, with a bounded state: its input must
// be append-only, its first ORDER BY key an ascending column with a
// watermark, and its calls and frames must not depend on rows that never
// become final (the end of an unbounded partition) nor exclude rows from
// the frame, which the EOWC frame code does not do.
func (sp *streamPlanner) checkOverEOWC(n *StreamOverWindow, in *StreamBase) {
	if !in.AppendOnly {
		fail(unsupported("EMIT ON WINDOW CLOSE needs an append-only input for window functions").
			WithHint("Read a source, an APPEND ONLY table or an EMIT ON WINDOW CLOSE view: a row emitted once cannot follow later changes of the rows before it."))
	}
	if len(n.OrderBy) == 0 || indexOf(in.Watermarks, n.OrderBy[0].Expr.(*ColRef).Idx) < 0 || n.OrderBy[0].Desc || n.OrderBy[0].NullsFirst {
		fail(unsupported("EMIT ON WINDOW CLOSE needs window functions ordered by a column with a watermark").
			WithHint("Make the first ORDER BY key of the window (ascending) the watermark column of a table or source created with WATERMARK FOR, or a window start computed from it."))
	}
	for _, c := range n.Calls {
		name := c.Fn + "()"
		switch c.Fn {
		case "ntile", "percent_rank", "cume_dist":
			fail(unsupported("window function %s is not supported with EMIT ON WINDOW CLOSE", name).
				WithHint("It depends on the number of rows in the partition, which an unbounded stream never completes."))
		case "lag", "lead", "nth_value":
			if len(c.Args) > 1 && !isConstExpr(c.Args[1]) {
				fail(unsupported("the offset of %s must be a constant with EMIT ON WINDOW CLOSE", name).
					WithHint("The rows a row waits for, or keeps for later rows, are fixed when the view is created."))
			}
		}
		if runningFrame(c) && !windowOnlyFns[c.Fn] && !eowcRunningAggs[c.Fn] {
			fail(unsupported("aggregate %s over a frame starting UNBOUNDED PRECEDING is not supported with EMIT ON WINDOW CLOSE", name).
				WithHint("Use count, sum, avg, min, max, bool_and, bool_or or a statistics aggregate, or a frame starting n PRECEDING."))
		}
		if n := eowcRowReach(c); n > maxEOWCRowReach {
			fail(unsupported("%s reaches %d rows away, more than the %d an EMIT ON WINDOW CLOSE window keeps per partition", name, n, maxEOWCRowReach).
				WithHint("Each partition keeps the rows a later row reaches back to, and a row waits for those it reaches ahead to; use a smaller offset, or a RANGE frame with an interval."))
		}
		f := c.Frame
		switch {
		case f == nil:
		case f.Exclude != "" && ReadsFrame(c.Fn):
			fail(unsupported("frame exclusion is not supported with EMIT ON WINDOW CLOSE").
				WithHint("Leave out the EXCLUDE clause, or EMIT ON WINDOW CLOSE: a materialized view that follows every change computes it."))
		case f.Mode == "groups":
			fail(unsupported("GROUPS frames are not supported with EMIT ON WINDOW CLOSE").WithHint("Use a ROWS or RANGE frame."))
		case f.End.Kind == "unbounded_following":
			fail(unsupported("frames ending UNBOUNDED FOLLOWING are not supported with EMIT ON WINDOW CLOSE").
				WithHint("The end of an unbounded partition never comes, so such a frame never closes; use n FOLLOWING, or INTERVAL 'x' FOLLOWING in a RANGE frame."))
		}
	}
}

// maxEOWCRowReach is the largest number of rows an EMIT ON WINDOW CLOSE
// window function may reach back or ahead (lag/lead offsets, ROWS frame
// bounds): the rows a partition keeps, or a row waits for.
const maxEOWCRowReach = 100_000

// eowcRowReach returns how many rows call c reaches away from the
// current one by constant offsets (0 for none, or for offsets that are
// not integer constants, which the caller checks otherwise).
func eowcRowReach(c WindowCall) int64 {
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	var n int64
	switch c.Fn {
	case "lag", "lead":
		if len(c.Args) > 1 {
			if v, null, ok := constIntValue(c.Args[1]); ok && !null {
				n = abs(v)
			}
		}
	}
	if f := c.Frame; f != nil && f.Mode == "rows" {
		for _, b := range []FrameBound{f.Start, f.End} {
			if b.Kind == "preceding" || b.Kind == "following" {
				if v, null, ok := constIntValue(b.Offset); ok && !null {
					n = max(n, abs(v))
				}
			}
		}
	}
	return n
}

// anyLooksAhead reports whether one of calls (those at idx, all when idx
// is nil) may need a number of rows after the current one: LEAD, LAG
// with a negative offset, a ROWS frame bound n FOLLOWING with n > 0.
// Offsets that are not plain constants count as looking ahead. Such a
// node cannot tell how far behind the watermark its later rows may be,
// so it emits no watermark. A RANGE frame ending n FOLLOWING looks ahead
// by distance only: its node emits the watermark delayed by n.
func anyLooksAhead(calls []WindowCall, idx []int) bool {
	if idx == nil {
		idx = seq(0, len(calls))
	}
	for _, i := range idx {
		if looksAhead(calls[i]) {
			return true
		}
	}
	return false
}

func looksAhead(c WindowCall) bool {
	switch c.Fn {
	case "lag", "lead":
		off, ok := int64(1), true
		if len(c.Args) > 1 {
			var null bool
			off, null, ok = constIntValue(c.Args[1])
			if ok && null {
				return false
			}
		}
		if !ok {
			return true
		}
		if c.Fn == "lag" {
			off = -off
		}
		return off > 0
	}
	if f := c.Frame; f != nil && f.Mode != "range" {
		for _, b := range []FrameBound{f.Start, f.End} {
			switch b.Kind {
			case "unbounded_following":
				return true
			case "following":
				if v, null, ok := constIntValue(b.Offset); !ok || !null && v > 0 {
					return true
				}
			}
		}
	}
	return false
}

// constIntValue returns the value of an integer constant (under casts);
// ok is false for any other expression.
func constIntValue(e Expr) (v int64, null, ok bool) {
	for {
		c, isCast := e.(*Cast)
		if !isCast {
			break
		}
		e = c.Arg
	}
	c, isConst := e.(*Const)
	if !isConst || c.T.Family() != types.FamInt {
		return 0, false, false
	}
	return c.V.I, c.V.Null, true
}
