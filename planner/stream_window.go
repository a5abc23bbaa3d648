package planner

import "github.com/weirdb/weir/types"

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
	n.Out = append(append(append(types.Schema(nil), h.Out[:nIn]...), b.Out[nIn:]...), h.Out[nIn:]...)
	ws := len(b.Out)
	n.StreamKey = append(append([]int(nil), b.StreamKey...), ws)
	n.AppendOnly = b.AppendOnly
	n.Dist = b.Dist
	n.Watermarks = hopWatermarks(b.Watermarks, h.TimeCol, ws)
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
