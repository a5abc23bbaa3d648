package stream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// pollScript is a scripted input that can be polled: every every-th
// poll hands out its next message, the others report nothing ready, so
// a test chooses how many output chunks pass between two input
// messages. pos counts the messages handed out. Past the script's end
// it hands out barriers of the following epochs, half as often.
type pollScript struct {
	msgs  []types.Message
	pos   int
	every int
	polls int
}

func (s *pollScript) Next(context.Context) (types.Message, error) {
	s.more()
	s.pos++
	return s.msgs[s.pos-1], nil
}

func (s *pollScript) poll(context.Context) (types.Message, bool, error) {
	s.polls++
	if s.polls%s.every != 0 || s.pos >= len(s.msgs) && s.polls%(2*s.every) != 0 {
		return nil, false, nil
	}
	s.more()
	s.pos++
	return s.msgs[s.pos-1], true, nil
}

// more appends the next epoch's barrier when the script is exhausted.
func (s *pollScript) more() {
	if s.pos < len(s.msgs) {
		return
	}
	last := s.msgs[len(s.msgs)-1].(types.Barrier).Epoch.Curr
	s.msgs = append(s.msgs, types.Barrier{Epoch: types.Epoch{Prev: last, Curr: last + 1}})
}

func (s *pollScript) Close() {}

// psTestNode is a ProjectSet over (id, n) running generate_series(1, n)
// zipped with generate_series(1, 3), with a state table.
func psTestNode() *planner.StreamProjectSet {
	in := &planner.StreamValues{}
	in.Out = types.Schema{{Name: "id", T: types.TInt8}, {Name: "n", T: types.TInt8}}
	n := &planner.StreamProjectSet{Input: in, Calls: []planner.TableFunc{
		{Fn: "generate_series", Args: []planner.Expr{cint(1), rtCol(1, types.TInt8)}, Out: types.Schema{{Name: "g", T: types.TInt8}}},
		{Fn: "generate_series", Args: []planner.Expr{cint(1), cint(3)}, Out: types.Schema{{Name: "h", T: types.TInt8}}},
	}}
	n.Out = append(append(types.Schema(nil), in.Out...), types.Column{Name: "g", T: types.TInt8},
		types.Column{Name: "h", T: types.TInt8}, types.Column{Name: "ordinality", T: types.TInt8})
	n.State = planner.StateTableDesc{ID: 900}
	return n
}

// TestProjectSetBarrierMidExpansion: over a pollable input, barriers
// pass a row's expansion midway (not after all of its rows), and after
// a crash at any of those barriers a new operator resumes the committed
// expansions from its state table, with only the input after the
// barrier replayed (a crash is tried after each of the first 30): the committed output plus the new operator's is
// every row exactly once, retractions included, and the state table is
// empty once nothing is left to expand.
func TestProjectSetBarrierMidExpansion(t *testing.T) {
	const big = 3*types.ChunkCap + 5
	ts := []types.T{types.TInt8, types.TInt8}
	script := fmt.Sprintf(`
barrier 1 add
+ 1 %d
+ 2 2
barrier 2
barrier 3
- 1 %d
+ 3 %d
barrier 4
barrier 5
barrier 6
- 2 2
barrier 7
barrier 8
barrier 9
barrier 10
barrier 11
barrier 12
barrier 13
barrier 14
barrier 15
barrier 16
barrier 17
barrier 18
barrier 19
barrier 20
barrier 21
barrier 22
barrier 23
barrier 24
barrier 25
barrier 26
barrier 27
barrier 28
barrier 29
barrier 30
`, big, big, big)
	outTs := psTestNode().Out.Types()
	want := map[string]bool{}
	for g := int64(1); g <= big; g++ {
		h := types.NullDatum
		if g <= 3 {
			h = types.DInt(g)
		}
		want[rowText(outTs, types.Row{types.DInt(3), types.DInt(big), types.DInt(g), h, types.DInt(g)})] = true
	}
	for _, c := range []struct{ every, hold int }{{1, 0}, {3, 1}, {2, 2}} {
		every, hold := c.every, c.hold
		for crashAt := 0; crashAt <= 30; crashAt++ {
			t.Run(fmt.Sprintf("every%d/hold%d/crash%d", every, hold, crashAt), func(t *testing.T) {
				e := newOpEnv(t)
				e.actx.Parallelism = 1
				msgs := parseScript(t, ts, script)
				out := newMview(outTs, []int{0, 4})
				in := &pollScript{msgs: msgs, every: every}
				p, err := NewProjectSet(e.actx, in, psTestNode())
				if err != nil {
					t.Fatal(err)
				}
				tickingHold(p, hold)
				var pending []*types.Chunk
				barriers, midway := 0, 0
				for done := false; !done; {
					m, err := p.Next(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					if c, ok := m.(*types.Chunk); ok {
						pending = append(pending, c)
						continue
					}
					b, ok := m.(types.Barrier)
					if !ok {
						continue
					}
					barriers++
					if len(p.queue) > 0 {
						midway++
					}
					done = barriers >= 30 && len(p.queue) == 0
					// The barrier's epoch commits with the output before
					// it; a crash loses the output after it.
					if err := e.actx.WriteSet.Commit(); err != nil {
						t.Fatal(err)
					}
					e.actx.WriteSet = e.db.NewBatch()
					out.apply(t, pending)
					pending = nil
					if int(b.Epoch.Curr) == crashAt {
						// Recover: a new operator, the input replayed
						// from the message after the barrier, led by a
						// recovery barrier.
						e.reset()
						e.actx.Parallelism = 1
						rest := append([]types.Message{types.Barrier{Epoch: types.Epoch{Prev: b.Epoch.Curr, Curr: b.Epoch.Curr}, Kind: types.BarrierInitial}}, in.msgs[in.pos:]...)
						in = &pollScript{msgs: rest, every: every}
						if p, err = NewProjectSet(e.actx, in, psTestNode()); err != nil {
							t.Fatal(err)
						}
						tickingHold(p, hold)
						if m, err := p.Next(context.Background()); err != nil {
							t.Fatal(err)
						} else if _, ok := m.(types.Barrier); !ok {
							t.Fatalf("recovery: got %T first, want the barrier", m)
						}
						if err := e.actx.WriteSet.Commit(); err != nil {
							t.Fatal(err)
						}
						e.actx.WriteSet = e.db.NewBatch()
					}
				}
				if midway == 0 {
					t.Fatalf("no barrier passed an expansion midway")
				}
				got := out.sorted()
				if len(got) != len(want) {
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
				for _, r := range got {
					if !want[r] {
						t.Fatalf("unexpected row %s", r)
					}
				}
				if n := stateRows(t, e, 900); n != 0 {
					t.Fatalf("%d state rows left, want 0", n)
				}
			})
		}
	}
}

// tickingHold gives p a clock that moves one nanosecond each time it is
// read (once when a barrier is held, then once before each output chunk)
// and a hold of n nanoseconds: a barrier held mid-expansion passes after
// about n more chunks.
func tickingHold(p *ProjectSet, n int) {
	var tick int64
	p.now = func() time.Time { tick++; return time.Unix(0, tick) }
	p.hold = func() time.Duration { return time.Duration(n) }
}

// TestProjectSetHoldsBarrierForSmallExpansions: a barrier polled behind
// an expansion waits for it while the hold lasts, so the rows of a
// statement are in its epoch (read-your-writes); once the hold has
// passed it goes first.
func TestProjectSetHoldsBarrierForSmallExpansions(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt8}
	for _, tc := range []struct {
		n, before int
		// step is how far the clock moves each time it is read.
		step, hold time.Duration
	}{
		{3, 3, time.Second, time.Minute},
		{5 * types.ChunkCap, 5 * types.ChunkCap, time.Second, time.Minute},
		{200 * types.ChunkCap, 200 * types.ChunkCap, 0, time.Minute},
		// The clock is read when the barrier is held, then before each
		// chunk: the tenth read finds the 10 s passed, after 9 chunks.
		{200 * types.ChunkCap, 9 * types.ChunkCap, time.Second, 10 * time.Second},
	} {
		e := newOpEnv(t)
		e.actx.Parallelism = 1
		var clock time.Time
		e.actx.Now = func() time.Time { clock = clock.Add(tc.step); return clock }
		e.actx.ExpansionHold = func() time.Duration { return tc.hold }
		msgs := parseScript(t, ts, fmt.Sprintf("barrier 1 add\n+ 1 %d\nbarrier 2\nbarrier 3\n", tc.n))
		p, err := NewProjectSet(e.actx, &pollScript{msgs: msgs, every: 1}, psTestNode())
		if err != nil {
			t.Fatal(err)
		}
		rows, barriers := 0, 0
		for barriers < 2 {
			m, err := p.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *types.Chunk:
				rows += m.Len()
			case types.Barrier:
				barriers++
			}
		}
		if rows != tc.before {
			t.Fatalf("%d rows to expand, clock step %v, hold %v: %d before the barrier, want %d", tc.n, tc.step, tc.hold, rows, tc.before)
		}
	}
}
