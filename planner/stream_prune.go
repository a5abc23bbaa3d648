package planner

import (
	"slices"
	"strconv"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Column pruning of stream plans. The binder leaves every column of a
// relation in the plan until the select list or an aggregation drops
// it, so a HOP window copies whole rows into each of its windows and a
// join keeps whole rows in its state. pruneColumns rewrites the plan
// before conversion so that below each aggregation and projection (the
// nodes whose output does not pass their input's columns through) only
// the columns some node above reads are carried: a scan reads only
// those, a projection computes only those, a filter, a HOP window, an
// over window and a join narrow their inputs to what they and their
// parents read, and a HOP window or a join over any other node gets a
// projection of its input. A HOP window also emits only the columns its
// parents read, and window_start (HopWindow.Emit); under an over window,
// which stores its input's rows, it keeps its time column and both
// window columns, as before it pruned its output (keepHopLayout). The
// plan's output schema does not change.
//
// Nodes whose expressions hold subqueries (their correlated references
// point into the row they were bound against) and lateral joins are left
// as they are, with all their input's columns.
//
// A relation whose WithPlanFormat is below 5 is planned without pruning,
// as builds before format version 5 did: its join, top-N and over-window
// state tables keep the layout they were created with.

// WithPlanFormat, when set, is the data format version (decimal) whose
// planner the relation's stream plan follows: a relation created before
// a change of the planner that changes state layouts keeps its layout.
// Unset: the current one. Version 5 brought column pruning
// (stream_prune.go) and the shared tables of DISTINCT aggregates over the
// same arguments (hashAgg); version 6 shared subplans (stream_share.go);
// version 8 the grow-only max without a table of values (stream_grow.go).
const WithPlanFormat = "plan_format"

// planFormat returns the format version whose planner plans rel (nil:
// none), 0 for the current one.
func planFormat(rel *catalog.Relation) int {
	if rel == nil || rel.With[WithPlanFormat] == "" {
		return 0
	}
	n, err := strconv.Atoi(rel.With[WithPlanFormat])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// before5 reports whether rel is planned as before format version 5.
func before5(rel *catalog.Relation) bool {
	v := planFormat(rel)
	return v != 0 && v < 5
}

// prunePlan returns p pruned by pruneColumns unless rel (the view or
// sink planned; nil for none) is planned as before format version 5.
func prunePlan(p Plan, rel *catalog.Relation) Plan {
	if before5(rel) {
		return p
	}
	return pruneColumns(p)
}

// pruneColumns returns p with the unused columns below its aggregations
// and projections removed (see the comment above). p's own output keeps
// every column.
func pruneColumns(p Plan) Plan {
	switch n := p.(type) {
	case *Agg:
		c := *n
		if planHasSubquery(n) {
			c.Input = pruneColumns(n.Input)
			return &c
		}
		used := make([]bool, len(n.Input.Schema()))
		markCols(used, planExprs(n)...)
		var m []int
		c.Input, m = narrow(n.Input, used)
		c.GroupBy = remapAll(n.GroupBy, m)
		c.Aggs = append([]AggCall(nil), n.Aggs...)
		for i := range c.Aggs {
			a := &c.Aggs[i]
			a.Args = remapAll(a.Args, m)
			a.Filter = remapCols(a.Filter, m)
			a.OrderBy = append([]SortKey(nil), a.OrderBy...)
			for j := range a.OrderBy {
				a.OrderBy[j].Expr = remapCols(a.OrderBy[j].Expr, m)
			}
		}
		return &c
	case *Project:
		c := *n
		if planHasSubquery(n) {
			c.Input = pruneColumns(n.Input)
			return &c
		}
		used := make([]bool, len(n.Input.Schema()))
		markCols(used, n.Exprs...)
		var m []int
		c.Input, m = narrow(n.Input, used)
		c.Exprs = remapAll(n.Exprs, m)
		return &c
	case *Filter:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *Join:
		c := *n
		c.Left, c.Right = pruneColumns(n.Left), pruneColumns(n.Right)
		return &c
	case *Sort:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *Limit:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *Distinct:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *SetOp:
		c := *n
		c.Left, c.Right = pruneColumns(n.Left), pruneColumns(n.Right)
		return &c
	case *Window:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *HopWindow:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *SessionWindow:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *Expand:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	case *ProjectSet:
		c := *n
		c.Input = pruneColumns(n.Input)
		return &c
	}
	return p
}

// narrow returns a plan computing at least the columns of p that used
// marks (in p's order) and the position of each of p's columns in it
// (-1 for a column dropped). Columns used does not mark may remain.
func narrow(p Plan, used []bool) (Plan, []int) {
	if planHasSubquery(p) {
		return pruneColumns(p), identity(len(used))
	}
	switch n := p.(type) {
	case *Scan:
		if len(used) > 0 && !slices.Contains(used, true) {
			// Keep one column: a scan reads at least one.
			used = append([]bool{true}, used[1:]...)
		}
		keep := &Scan{Rel: n.Rel, ProcTime: n.ProcTime, Sample: n.Sample}
		m := make([]int, len(n.Cols))
		for i, c := range n.Cols {
			m[i] = -1
			if used[i] {
				m[i] = len(keep.Cols)
				keep.Cols = append(keep.Cols, c)
				keep.Out = append(keep.Out, n.Out[i])
			}
		}
		return keep, m
	case *Project:
		out := &Project{}
		m := make([]int, len(n.Exprs))
		for i, e := range n.Exprs {
			m[i] = -1
			if used[i] {
				m[i] = len(out.Exprs)
				out.Exprs = append(out.Exprs, e)
				out.Out = append(out.Out, n.Out[i])
			}
		}
		out.Input = n.Input
		return pruneColumns(out), m
	case *Filter:
		need := append([]bool(nil), used...)
		markCols(need, n.Cond)
		in, m := narrow(n.Input, need)
		return &Filter{Input: in, Cond: remapCols(n.Cond, m)}, m
	case *HopWindow:
		if n.Emit != nil {
			break
		}
		return narrowHop(n, used)
	case *SessionWindow:
		// It keeps every input row in its state: the fewer columns, the
		// smaller the state.
		nIn := len(n.Input.Schema())
		need := append([]bool(nil), used[:nIn]...)
		need[n.TimeCol] = true
		for _, k := range n.Keys {
			need[k] = true
		}
		in, mIn := exactly(n.Input, need)
		w := len(in.Schema())
		sw := &SessionWindow{Input: in, TimeCol: mIn[n.TimeCol], Gap: n.Gap}
		for _, k := range n.Keys {
			sw.Keys = append(sw.Keys, mIn[k])
		}
		sw.Out = append(append(types.Schema(nil), in.Schema()...), n.Out[nIn:]...)
		return sw, append(mIn, w)
	case *Window:
		nIn := len(n.Input.Schema())
		need := append([]bool(nil), used[:nIn]...)
		markCols(need, planExprs(n)...)
		keepHopLayout(n.Input, need)
		in, mIn := narrow(n.Input, need)
		w := &Window{Input: in, Calls: append([]WindowCall(nil), n.Calls...)}
		for i := range w.Calls {
			c := &w.Calls[i]
			c.Args = remapAll(c.Args, mIn)
			c.PartitionBy = remapAll(c.PartitionBy, mIn)
			c.OrderBy = append([]SortKey(nil), c.OrderBy...)
			for j := range c.OrderBy {
				c.OrderBy[j].Expr = remapCols(c.OrderBy[j].Expr, mIn)
			}
		}
		nw := len(in.Schema())
		w.Out = append(append(types.Schema(nil), in.Schema()...), n.Out[nIn:]...)
		m := mIn
		for i := range n.Out[nIn:] {
			m = append(m, nw+i)
		}
		return w, m
	case *Join:
		return narrowJoin(n, used)
	}
	return pruneColumns(p), identity(len(used))
}

// narrowHop narrows a HOP window: its input to the columns used above
// and its time column, and its output (Emit) to the columns used above
// and window_start, which the stream plan keys rows by (a row of the
// input is in several windows); the time column and window_end are left
// out when nobody above reads them, so that each window gets a copy of
// fewer columns.
func narrowHop(n *HopWindow, used []bool) (Plan, []int) {
	nIn := len(n.Input.Schema())
	need := append([]bool(nil), used[:nIn]...)
	need[n.TimeCol] = true
	in, mIn := exactly(n.Input, need)
	w := len(in.Schema())
	h := &HopWindow{Input: in, TimeCol: mIn[n.TimeCol], Slide: n.Slide, Size: n.Size, Offset: n.Offset}
	m := make([]int, nIn+2)
	emit := func(i, at int) {
		m[i] = len(h.Emit)
		h.Emit = append(h.Emit, at)
		h.Out = append(h.Out, n.Out[i])
	}
	for i := range nIn {
		m[i] = -1
		if used[i] {
			emit(i, mIn[i])
		}
	}
	emit(nIn, w)
	m[nIn+1] = -1
	if used[nIn+1] {
		emit(nIn+1, w+1)
	}
	if len(h.Emit) == w+2 {
		// Every column: the plain layout.
		h.Emit = nil
	}
	return h, m
}

// keepHopLayout marks, in need, the time column and both window columns
// of a HOP window that p is (through filters), so that narrowHop leaves
// its output as it was before it pruned outputs: an over window keeps
// its input's rows in its state, whose layout must not change under a
// relation planned before.
func keepHopLayout(p Plan, need []bool) {
	for {
		switch n := p.(type) {
		case *Filter:
			p = n.Input
			continue
		case *HopWindow:
			nIn := len(n.Input.Schema())
			need[n.TimeCol], need[nIn], need[nIn+1] = true, true, true
		}
		return
	}
}

// narrowJoin narrows both sides of a join to the columns used above it
// and those its keys and condition read.
func narrowJoin(j *Join, used []bool) (Plan, []int) {
	nl, nr := len(j.Left.Schema()), len(j.Right.Schema())
	both := j.Kind != SemiJoin && j.Kind != AntiJoin
	if j.Lateral || (both && len(j.Out) != nl+nr) || (!both && len(j.Out) != nl) {
		return pruneColumns(j), identity(len(used))
	}
	needL := append([]bool(nil), used[:nl]...)
	needR := make([]bool, nr)
	if both {
		copy(needR, used[nl:])
	}
	markCols(needL, j.LeftKeys...)
	markCols(needR, j.RightKeys...)
	all := make([]bool, nl+nr)
	markCols(all, j.Cond)
	for i, u := range all {
		if u && i < nl {
			needL[i] = true
		} else if u {
			needR[i-nl] = true
		}
	}
	left, mL := exactly(j.Left, needL)
	right, mR := exactly(j.Right, needR)
	wl := len(left.Schema())
	m := append([]int(nil), mL...)
	for _, x := range mR {
		if x >= 0 {
			x += wl
		}
		m = append(m, x)
	}
	out := &Join{Kind: j.Kind, Left: left, Right: right,
		LeftKeys: remapAll(j.LeftKeys, mL), RightKeys: remapAll(j.RightKeys, mR), Cond: remapCols(j.Cond, m)}
	n := nl
	if both {
		n += nr
	}
	out.Out = make(types.Schema, 0, n)
	for i, x := range m[:n] {
		if x >= 0 {
			out.Out = append(out.Out, j.Out[i])
		}
	}
	if !both {
		m = m[:nl]
	}
	return out, m
}

// exactly is narrow followed by a projection of the columns used when
// narrow left others: the input of a node that copies or stores its
// input's rows.
func exactly(p Plan, used []bool) (Plan, []int) {
	q, m := narrow(p, used)
	extra := false
	for i, x := range m {
		extra = extra || x >= 0 && !used[i]
	}
	if !extra {
		return q, m
	}
	s := q.Schema()
	pr := &Project{Input: q}
	out := make([]int, len(m))
	for i, x := range m {
		out[i] = -1
		if x >= 0 && used[i] {
			out[i] = len(pr.Exprs)
			pr.Exprs = append(pr.Exprs, &ColRef{Idx: x, T: s[x].T, Name: s[x].Name})
			pr.Out = append(pr.Out, s[x])
		}
	}
	return pr, out
}

// markCols sets used[i] for every column i the expressions read.
func markCols(used []bool, es ...Expr) {
	for _, e := range es {
		WalkExpr(e, func(x Expr) {
			if c, ok := x.(*ColRef); ok && c.Idx < len(used) {
				used[c.Idx] = true
			}
		})
	}
}

// remapCols returns e reading column m[i] where it read column i.
func remapCols(e Expr, m []int) Expr {
	if e == nil {
		return nil
	}
	return mapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			if c.Idx >= len(m) || m[c.Idx] < 0 {
				panic("planner: column pruning dropped a column still read")
			}
			return &ColRef{Idx: m[c.Idx], T: c.T, Name: c.Name}
		}
		return x
	})
}

func remapAll(es []Expr, m []int) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = remapCols(e, m)
	}
	return out
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// planHasSubquery reports whether an expression of p holds a subquery.
func planHasSubquery(p Plan) bool {
	for _, e := range planExprs(p) {
		if hasSubquery(e) {
			return true
		}
	}
	if j, ok := p.(*Join); ok {
		return j.Lateral
	}
	return false
}

// before8 reports whether rel is planned as before format version 8:
// without StreamHashAgg.GrowOnly.
func before8(rel *catalog.Relation) bool {
	v := planFormat(rel)
	return v != 0 && v < 8
}
