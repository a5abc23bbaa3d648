package planner

import (
	"slices"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// StreamSessionWindow labels each input row with the start of its
// session, as SessionWindow does in batch plans: the rows equal on Keys
// fall into sessions, maximal runs of them whose TimeCol values are at
// most Gap microseconds apart, and the output is the input's columns
// (hidden ones included) followed by session_start. An event can open a
// session, extend one, or join two into one; a delete can split one.
// When a session's start changes, every row already emitted with the old
// start is retracted and inserted again with the new one, so the output
// is a changelog even over an append-only input. A row whose time is
// NULL passes with a NULL start and is kept nowhere.
//
// Events holds every row with a time: key (Keys..., time, the input's
// stream key, or every input column when it has none), value (the
// input's columns, the number of such rows). Sessions holds one row per
// session: key (Keys..., start), value (Keys..., start, the session's
// last time). Both are partitioned by Keys, as the input is. The stream
// key is the input's. With a watermark on TimeCol the node has one on
// session_start (the least start of the open sessions, or the time's
// watermark if less), and the sessions the time's watermark closed leave
// its state; other watermarks are dropped.
//
// With EOWC (EMIT ON WINDOW CLOSE) nothing is emitted while a session is
// open. A watermark W on TimeCol closes the sessions whose last time
// plus Gap is below W (no row at or after W can reach them): at the
// barrier their rows are emitted once, as inserts, followed by
// session_end (the last time plus Gap, final now), and their state is
// deleted; then W is emitted on the session_end column, which no later
// row's session_end is below. The output is append-only. Rows whose time
// is NULL are dropped, as they belong to no session that could close.
type StreamSessionWindow struct {
	StreamBase
	Input    StreamNode
	Keys     []int
	TimeCol  int
	Gap      int64
	Events   StateTableDesc
	Sessions StateTableDesc
	EOWC     bool
}

// Base implements StreamNode.
func (n *StreamSessionWindow) Base() *StreamBase { return &n.StreamBase }

// StreamInputs implements StreamNode.
func (n *StreamSessionWindow) StreamInputs() []StreamNode { return []StreamNode{n.Input} }

// EventKey returns the columns of the input that follow the keys and the
// time in an Events key: the input's stream key, or all of its columns.
func (n *StreamSessionWindow) EventKey() []int {
	b := n.Input.Base()
	if len(b.StreamKey) > 0 {
		return b.StreamKey
	}
	return seq(0, len(b.Out))
}

// sessionWindow converts a SessionWindow into a StreamSessionWindow
// behind an exchange on its keys; like hopWindow, a projection moves
// session_start right after the logical columns when the input has
// hidden ones.
func (sp *streamPlanner) sessionWindow(s *SessionWindow) StreamNode {
	n := sp.sessionNode(s)
	nIn := len(s.Input.Schema())
	ws := len(n.Input.Base().Out)
	if ws == nIn {
		return n
	}
	exprs := columnsOf(n.Out, nIn)
	c := n.Out[ws]
	exprs = append(exprs, &ColRef{Idx: ws, T: c.T, Name: c.Name})
	return newProject(n, exprs, s.Out)
}

// sessionNode returns the StreamSessionWindow of s, with its state
// tables, whose output is all of its input's columns, then
// session_start.
func (sp *streamPlanner) sessionNode(s *SessionWindow) *StreamSessionWindow {
	in := exchange(sp.plan(s.Input), hashDist(s.Keys), false)
	b := in.Base()
	nIn := len(s.Input.Schema())
	n := &StreamSessionWindow{Input: in, Keys: s.Keys, TimeCol: s.TimeCol, Gap: s.Gap}
	n.Out = append(append(append(types.Schema(nil), s.Out[:nIn]...), b.Out[nIn:]...), s.Out[nIn:]...)
	n.StreamKey = append([]int(nil), b.StreamKey...)
	n.Dist = b.Dist
	if slices.Contains(b.Watermarks, s.TimeCol) {
		n.Watermarks = []int{len(b.Out)}
	}

	var keyCols types.Schema
	for _, k := range s.Keys {
		c := b.Out[k]
		c.Hidden = false
		keyCols = append(keyCols, c)
	}
	nk := len(keyCols)
	tc := b.Out[s.TimeCol]
	tc.Hidden = false
	ev := StateTableDesc{ID: sp.alloc(), Name: "session_events", Cols: append(append(types.Schema(nil), keyCols...), tc)}
	for _, c := range n.EventKey() {
		col := b.Out[c]
		col.Hidden = false
		ev.Cols = append(ev.Cols, col)
	}
	ev.KeyCols = seq(0, len(ev.Cols))
	ev.OrderDesc = make([]bool, len(ev.Cols))
	ev.DistKeyCols = seq(0, nk)
	for _, c := range b.Out {
		c.Hidden = false
		ev.Cols = append(ev.Cols, c)
	}
	ev.Cols = append(ev.Cols, types.Column{Name: "_count", T: types.TInt8, NotNull: true})
	n.Events = ev

	ss := StateTableDesc{ID: sp.alloc(), Name: "session_windows", Cols: append(append(types.Schema(nil), keyCols...),
		types.Column{Name: "session_start", T: tc.T}, types.Column{Name: "session_last", T: tc.T})}
	ss.KeyCols = seq(0, nk+1)
	ss.OrderDesc = make([]bool, nk+1)
	ss.DistKeyCols = seq(0, nk)
	n.Sessions = ss
	return n
}

// sessionAggEOWC converts the aggregation a over the session window s in
// EMIT ON WINDOW CLOSE mode. The window emits each session's rows once,
// when a watermark closes it, with its final session_end and a watermark
// on that column; the aggregation groups by the keys, session_start and
// session_end, and closes each group on that watermark. A projection
// then drops session_end, which the plan above computes from the
// aggregation's max(time), as without EOWC.
func (sp *streamPlanner) sessionAggEOWC(a *Agg, s *SessionWindow) StreamNode {
	n := sp.sessionNode(s)
	b := n.Input.Base()
	if !slices.Contains(b.Watermarks, s.TimeCol) {
		fail(unsupported("EMIT ON WINDOW CLOSE over a SESSION window needs a watermark on its time column").
			WithHint("Read a table or source created with WATERMARK FOR the column SESSION groups by."))
	}
	nIn := len(s.Input.Schema())
	ws := len(b.Out)
	n.EOWC = true
	n.AppendOnly = true
	n.Out = append(n.Out, types.Column{Name: "session_end", T: n.Out[ws].T})
	n.Watermarks = []int{ws + 1}
	// The group keys are columns of s (the keys, then session_start at
	// nIn); in n, session_start is after the input's hidden columns.
	var keys []int
	for _, g := range a.GroupBy {
		c, ok := g.(*ColRef)
		if !ok {
			failf(pgerr.InternalError, "session aggregation groups by an expression")
		}
		k := c.Idx
		if k == nIn {
			k = ws
		}
		keys = append(keys, k)
	}
	keys = append(keys, ws+1)
	h := sp.hashAgg(n, keys, a.Aggs, a.Out[len(a.GroupBy):])
	var exprs []Expr
	for i := range h.Out {
		if i != len(a.GroupBy) {
			exprs = append(exprs, &ColRef{Idx: i, T: h.Out[i].T, Name: h.Out[i].Name})
		}
	}
	return newProject(h, exprs, a.Out)
}
