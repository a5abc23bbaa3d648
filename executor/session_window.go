package executor

import (
	"bytes"
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// SessionWindow labels each input row with the start of its session
// (planner.SessionWindow): the row's columns, then session_start. Its
// input is sorted by the partition keys and the time (NULL times last),
// so a session is a run of rows of equal keys, each at most Gap after
// the one before; the first row's time starts it. Rows come out in that
// order. The sort (a Sort operator below this one) is what holds the
// input, within work_mem and then spilled, as any sort does.
type SessionWindow struct {
	endState
	in   Operator
	keys []int
	col  int
	gap  int64
	kts  []types.T
	ts   []types.T

	// prev is the encoded partition key of the last row with a time,
	// last that time and start its session's start (valid when started).
	prev, kbuf  []byte
	last, start int64
	started     bool
}

var _ Operator = (*SessionWindow)(nil)

// sessionSortKeys returns the sort that SessionWindow p needs of its
// input: by the partition keys, then by the time, NULL times last.
func sessionSortKeys(p *planner.SessionWindow) []planner.SortKey {
	in := p.Input.Schema()
	var keys []planner.SortKey
	for _, k := range p.Keys {
		keys = append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: k, T: in[k].T, Name: in[k].Name}})
	}
	t := in[p.TimeCol]
	return append(keys, planner.SortKey{Expr: &planner.ColRef{Idx: p.TimeCol, T: t.T, Name: t.Name}})
}

// NewSessionWindow returns a SessionWindow for p over in, which must be
// sorted by sessionSortKeys(p).
func NewSessionWindow(in Operator, p *planner.SessionWindow) *SessionWindow {
	s := &SessionWindow{in: in, keys: p.Keys, col: p.TimeCol, gap: p.Gap, ts: p.Out.Types()}
	for _, k := range p.Keys {
		s.kts = append(s.kts, p.Input.Schema()[k].T)
	}
	return s
}

// Next implements Operator.
func (s *SessionWindow) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	return s.finish(s.next(ctx))
}

func (s *SessionWindow) next(ctx context.Context) (*types.Chunk, error) {
	c, err := nextVisible(ctx, s.in)
	if err != nil || c == nil {
		return nil, err
	}
	out := types.NewChunk(s.ts, c.Len())
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		row := c.Row(i)
		d := row[s.col]
		if d.Null {
			out.AppendRow(types.OpInsert, append(row, types.NullDatum))
			continue
		}
		s.kbuf = s.kbuf[:0]
		for j, k := range s.keys {
			s.kbuf = types.AppendKey(s.kbuf, row[k], s.kts[j], false)
		}
		if !s.started || !bytes.Equal(s.kbuf, s.prev) || d.I-s.last > s.gap {
			s.start = d.I
			s.prev = append(s.prev[:0], s.kbuf...)
			s.started = true
		}
		s.last = d.I
		out.AppendRow(types.OpInsert, append(row, types.DInt(s.start)))
	}
	return out, nil
}

// Close implements Operator.
func (s *SessionWindow) Close() {
	s.done = true
	s.in.Close()
}
