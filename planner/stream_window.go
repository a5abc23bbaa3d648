package planner

import (
	"slices"

	"github.com/weirdb/weir/types"
)

// hopWindow converts a HopWindow into a StreamHopWindow. The operator
// appends window_start and window_end after all of its input's columns,
// hidden ones included; when the input has hidden columns a projection
// moves the window columns right after the logical ones, keeping the
// converter's layout invariant (see plan). The stream key is the input's
// plus window_start: a row of the input appears once per window.
// TUMBLE needs no node of its own: it binds as a projection.
func (sp *streamPlanner) hopWindow(h *HopWindow) StreamNode {
	in := sp.plan(h.Input)
	b := in.Base()
	nIn := len(h.Input.Schema())
	n := &StreamHopWindow{Input: in, TimeCol: h.TimeCol, Slide: h.Slide, Size: h.Size, Offset: h.Offset}
	n.Out = append(append(append(types.Schema(nil), h.Input.Schema()...), b.Out[nIn:]...), hopBounds(h)...)
	ws := len(b.Out)
	n.StreamKey = append(append([]int(nil), b.StreamKey...), ws)
	n.AppendOnly = b.AppendOnly
	n.Dist = b.Dist
	n.Watermarks = hopWatermarks(b.Watermarks, h.TimeCol, ws)
	if h.Emit != nil {
		// Pruned: the operator emits the columns a projection of the
		// whole layout would keep (h's, then the input's stream key
		// columns it leaves out, hidden) instead of copying all of them.
		exprs := make([]Expr, len(h.Emit))
		for i, e := range h.Emit {
			if e >= nIn {
				e += ws - nIn
			}
			exprs[i] = &ColRef{Idx: e, T: n.Out[e].T, Name: n.Out[e].Name}
		}
		p := newProject(n, exprs, h.Out)
		n.Emit = make([]int, len(p.Exprs))
		for i, e := range p.Exprs {
			n.Emit[i] = e.(*ColRef).Idx
		}
		n.Out, n.StreamKey, n.Dist, n.Watermarks = p.Out, p.StreamKey, p.Dist, p.Watermarks
		return n
	}
	if ws == nIn {
		return n
	}
	exprs := columnsOf(n.Out, nIn)
	for i := 0; i < 2; i++ {
		c := n.Out[ws+i]
		exprs = append(exprs, &ColRef{Idx: ws + i, T: c.T, Name: c.Name})
	}
	return newProject(n, exprs, h.Out)
}

// hopBounds returns h's window_start and window_end columns.
func hopBounds(h *HopWindow) types.Schema {
	nIn := len(h.Input.Schema())
	if h.Emit == nil {
		return h.Out[nIn:]
	}
	var start, end *types.Column
	for i, e := range h.Emit {
		switch e {
		case nIn:
			start = &h.Out[i]
		case nIn + 1:
			end = &h.Out[i]
		}
	}
	if end == nil {
		// Not emitted: only its place in the layout matters.
		c := *start
		c.Name = "window_end"
		end = &c
	}
	return types.Schema{*start, *end}
}

// expand converts an Expand into a StreamExpand, which appends the set
// number after all of its input's columns, hidden ones included; a
// projection then moves it right after the logical ones (see hopWindow).
// The stream key is the input's plus the set number: a row of the input
// appears once per set.
func (sp *streamPlanner) expand(e *Expand) StreamNode {
	in := sp.plan(e.Input)
	b := in.Base()
	nIn := len(e.Input.Schema())
	n := &StreamExpand{Input: in, Keys: e.Keys, Sets: e.Sets}
	n.Out = append(append(append(types.Schema(nil), e.Out[:nIn]...), b.Out[nIn:]...), e.Out[nIn:]...)
	gs := len(b.Out)
	n.StreamKey = append(append([]int(nil), b.StreamKey...), gs)
	n.AppendOnly = b.AppendOnly
	n.Dist = b.Dist
	for _, k := range b.Dist.Keys {
		if slices.Contains(e.Keys, k) {
			n.Dist = Distribution{Kind: DistAny}
		}
	}
	for _, w := range b.Watermarks {
		if !slices.Contains(e.Keys, w) {
			n.Watermarks = append(n.Watermarks, w)
		}
	}
	if gs == nIn {
		return n
	}
	exprs := columnsOf(n.Out, nIn)
	c := n.Out[gs]
	exprs = append(exprs, &ColRef{Idx: gs, T: c.T, Name: c.Name})
	return newProject(n, exprs, e.Out)
}

// projectSet converts a ProjectSet into a StreamProjectSet, whose call
// and ordinal columns come after all of its input's columns; a
// projection then moves them right after the logical ones. The stream
// key is the input's plus the ordinal. A timestamptz series depends on
// the session's time zone, so it is refused, as now() is.
func (sp *streamPlanner) projectSet(p *ProjectSet) StreamNode {
	for _, c := range p.Calls {
		for _, a := range c.Args {
			if a.Type().ID == types.Timestamptz {
				fail(unsupported("function %s() over timestamp with time zone is not supported in materialized views", c.Fn).
					WithHint("A materialized view is maintained incrementally; its rows must not depend on the session's time zone."))
			}
		}
	}
	in := sp.plan(p.Input)
	b := in.Base()
	nIn := len(p.Input.Schema())
	n := &StreamProjectSet{Input: in, Calls: p.Calls, Outer: p.Outer}
	n.Out = append(append(append(types.Schema(nil), p.Out[:nIn]...), b.Out[nIn:]...), p.Out[nIn:]...)
	w := len(b.Out)
	n.StreamKey = append(append([]int(nil), b.StreamKey...), len(n.Out)-1)
	n.AppendOnly = b.AppendOnly
	n.Dist = b.Dist
	n.Watermarks = append([]int(nil), b.Watermarks...)
	n.State = projectSetState(sp.alloc(), b.Out)
	if w == nIn {
		return n
	}
	exprs := columnsOf(n.Out, nIn)
	for i := w; i < len(n.Out); i++ {
		c := n.Out[i]
		exprs = append(exprs, &ColRef{Idx: i, T: c.T, Name: c.Name})
	}
	return newProject(n, exprs, p.Out)
}

// projectSetState describes the state table of a StreamProjectSet over
// input columns in (StreamProjectSet.State).
func projectSetState(id uint32, in types.Schema) StateTableDesc {
	cols := types.Schema{
		{Name: "_actor", T: types.TInt8},
		{Name: "_seq", T: types.TInt8},
		{Name: "_op", T: types.TInt8},
		{Name: "_ordinal", T: types.TInt8},
	}
	cols = append(cols, in...)
	return StateTableDesc{ID: id, Name: "project_set", Cols: cols, KeyCols: []int{0, 1}, OrderDesc: []bool{false, false}}
}
