package stream

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// boundStream generates the input of TestIntervalJoinStateBounded, one
// epoch at a time, as a joinReader: orders (id, oid, ts) on the left,
// one per millisecond of event time, and payments (id, oid, ts) on the
// right, each for one order and up to maxDelayMs after it, sent once the
// clock has passed that. Both sides come a little out of order and carry
// watermarks that keep the promise: the clock less lagOMs for orders
// (jittered by at most 3 ms) and less lagPMs for payments (at most
// maxDelayMs + 3 ms behind the clock).
type boundStream struct {
	rng        *rand.Rand
	steps      int // orders to generate
	stepsEpoch int
	chunkRows  int
	step       int
	epoch      uint64
	orderTs    []int64 // event time (ms) of every order, by id
	delays     []int64
	q          []sidedMsg
	// want[w] counts the payments of window w (ms / windowMs) that match
	// their order: a delay within the join's interval.
	want map[int64]int64
	sent int // events sent
}

type sidedMsg struct {
	side int
	msg  types.Message
}

const (
	boundWindowMs   = 1000
	boundIntervalMs = 30 // p.ts BETWEEN o.ts AND o.ts + 30 ms
	boundMaxDelayMs = 45
	boundLagOMs     = 5
	boundLagPMs     = boundMaxDelayMs + 5
)

var boundTs = []types.T{types.TInt8, types.TInt8, types.TTimestamp}

func (g *boundStream) next(ctx context.Context) (int, types.Message, error) {
	if len(g.q) == 0 {
		g.fill()
	}
	m := g.q[0]
	g.q = g.q[1:]
	return m.side, m.msg, nil
}

func (g *boundStream) close() {}

// fill queues the next epoch: alternating chunks of orders and
// payments, each pair followed by both sides' watermarks, then the
// barrier.
func (g *boundStream) fill() {
	if g.epoch == 0 {
		g.epoch = 1
		g.q = append(g.q, sidedMsg{0, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}, Kind: types.BarrierInitial}})
		return
	}
	for done := 0; done < g.stepsEpoch && g.step < g.steps+boundMaxDelayMs; done += g.chunkRows {
		orders, pays := types.NewChunk(boundTs, g.chunkRows), types.NewChunk(boundTs, g.chunkRows)
		for range g.chunkRows {
			clock := int64(g.step)
			if g.step < g.steps {
				ts := clock - g.rng.Int64N(4)
				g.orderTs = append(g.orderTs, ts)
				g.delays = append(g.delays, g.rng.Int64N(boundMaxDelayMs+1))
				orders.AppendRow(types.OpInsert, types.Row{types.DInt(clock), types.DInt(clock), types.DInt(ts * 1000)})
			}
			if o := g.step - boundMaxDelayMs; o >= 0 && o < g.steps {
				ts := g.orderTs[o] + g.delays[o]
				pays.AppendRow(types.OpInsert, types.Row{types.DInt(int64(o)), types.DInt(int64(o)), types.DInt(ts * 1000)})
				if g.delays[o] <= boundIntervalMs {
					g.want[ts/boundWindowMs]++
				}
			}
			g.step++
		}
		g.sent += orders.Len() + pays.Len()
		clock := int64(g.step - 1)
		g.q = append(g.q, sidedMsg{0, orders}, sidedMsg{1, pays},
			sidedMsg{0, types.Watermark{Col: 2, T: types.TTimestamp, Val: types.DInt((clock - boundLagOMs) * 1000)}},
			sidedMsg{1, types.Watermark{Col: 2, T: types.TTimestamp, Val: types.DInt((clock - boundLagPMs) * 1000)}})
	}
	g.q = append(g.q, sidedMsg{0, types.Barrier{Epoch: types.Epoch{Prev: g.epoch, Curr: g.epoch + 1}}})
	g.epoch++
}

// TestIntervalJoinStateBounded streams over a million events (orders
// and their payments) with advancing event time through an interval
// join, payments within 30 ms after their order, and an EMIT ON WINDOW
// CLOSE count of the joined rows per second of payment time after it.
// After every barrier the rows in every state table (both sides, their
// index tables and the aggregation's) stay below a bound computed from
// the interval, the watermark lags and the rows of one epoch, while the
// closed windows keep coming out, each once with its exact count.
func TestIntervalJoinStateBounded(t *testing.T) {
	const (
		steps      = 1 << 19 // orders; as many payments: 1,048,576 events
		chunkRows  = 1024
		stepsEpoch = 4 * chunkRows
		// After the barrier's cleaning a side keeps the rows its bound
		// at the last watermarks has not passed: the orders within lagP
		// + interval ms of the clock (one per ms, 3 ms of jitter), and
		// the payments within lagO ms of it, which belong to orders
		// within lagO + maxDelay ms of it. The aggregation keeps the
		// windows that the join's output watermark (the clock less lagP)
		// has not closed.
		maxOrders   = boundLagPMs + boundIntervalMs + 4
		maxPayments = boundLagOMs + boundMaxDelayMs + 4
		maxWindows  = boundLagPMs/boundWindowMs + 2
	)
	e := newOpEnv(t)
	e.actx.Eval = &executor.EvalCtx{Context: functions.Context{Location: time.UTC}}
	side := func() planner.StreamNode {
		out := types.Schema{col("id", types.TInt8), col("oid", types.TInt8), col("ts", types.TTimestamp)}
		return &planner.StreamValues{StreamBase: planner.StreamBase{Out: out, StreamKey: []int{0}, AppendOnly: true, Watermarks: []int{2}}}
	}
	ts := func(i int) *planner.ColRef { return rtCol(i, types.TTimestamp) }
	iv := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: boundIntervalMs * 1000}), T: types.TInterval}
	// o JOIN p ON o.oid = p.oid AND p.ts BETWEEN o.ts AND o.ts + 30 ms.
	jn := &planner.StreamHashJoin{Kind: planner.InnerJoin, Left: side(), Right: side(), LeftKeys: []int{1}, RightKeys: []int{1},
		Cond: &planner.And{Args: []planner.Expr{
			call(">=", types.TBool, ts(5), ts(2)),
			call("<=", types.TBool, ts(5), call("+", types.TTimestamp, ts(2), iv)),
		}},
		Bounds: []planner.JoinBound{
			{Side: 1, Col: 2, OtherCol: 2, Expr: ts(2), Name: "p.ts"},
			{Side: 0, Col: 2, OtherCol: 2, Expr: call("-", types.TTimestamp, ts(2), iv), Name: "o.ts"},
		},
	}
	for s, in := range []planner.StreamNode{jn.Left, jn.Right} {
		d := joinStateDesc(uint32(1001+s), "join", in, []int{1}, false)
		idx := planner.StateTableDesc{ID: uint32(1003 + s), Cols: types.Schema{col("ts", types.TTimestamp), col("oid", types.TInt8), col("id", types.TInt8)},
			KeyCols: []int{0, 1, 2}, OrderDesc: make([]bool, 3)}
		c := &planner.JoinClean{Col: 2, IndexCols: []int{2, 1, 0}, Index: idx}
		if s == 0 {
			jn.LeftState, jn.LeftClean = d, c
		} else {
			jn.RightState, jn.RightClean = d, c
		}
	}
	jn.Out = append(append(types.Schema(nil), jn.Left.Base().Out...), jn.Right.Base().Out...)
	jn.StreamKey, jn.AppendOnly, jn.Watermarks = []int{0, 3}, true, []int{2, 5}
	gen := &boundStream{rng: rand.New(rand.NewPCG(3, 4)), steps: steps, stepsEpoch: stepsEpoch, chunkRows: chunkRows, want: map[int64]int64{}}
	j := newScriptedJoin(t, e.actx, jn, &sidedScript{})
	j.in = gen

	// date_bin('1 second', p.ts, epoch) AS w, then count(*) GROUP BY w
	// EMIT ON WINDOW CLOSE.
	second := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: boundWindowMs * 1000}), T: types.TInterval}
	origin := &planner.Const{V: types.DInt(0), T: types.TTimestamp}
	proj := &planner.StreamProject{Input: jn, Exprs: []planner.Expr{call("date_bin", types.TTimestamp, second, ts(5), origin), rtCol(0, types.TInt8)}}
	proj.Out = types.Schema{col("w", types.TTimestamp), col("oid", types.TInt8)}
	proj.AppendOnly, proj.Watermarks = true, []int{0}
	p, err := NewProject(e.actx, j, proj)
	if err != nil {
		t.Fatal(err)
	}
	agg := &planner.StreamHashAgg{Input: proj, GroupBy: []int{0}, EOWC: true, Aggs: []planner.AggCall{{Fn: "count", T: types.TInt8}},
		Result: planner.StateTableDesc{ID: 2001}}
	agg.Out = types.Schema{col("w", types.TTimestamp), col("n", types.TInt8)}
	agg.AppendOnly, agg.Watermarks = true, []int{0}
	op, err := NewHashAgg(e.actx, p, agg)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()

	var closed, joined int64
	last := int64(-1)
	maxState := map[uint32]int{}
	for epochs := 0; gen.step < steps+boundMaxDelayMs || epochs == 0; epochs++ {
		for {
			m, err := op.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := m.(*types.Chunk); ok {
				for i := 0; i < c.Len(); i++ {
					r := c.Row(i)
					w := r[0].I / (boundWindowMs * 1000)
					if c.Op(i) != types.OpInsert || w <= last {
						t.Fatalf("window %d emitted as %s after window %d", w, c.Op(i), last)
					}
					if r[1].I != gen.want[w] {
						t.Fatalf("window %d counts %d joined rows, want %d", w, r[1].I, gen.want[w])
					}
					last = w
					closed++
					joined += r[1].I
				}
				continue
			}
			if _, ok := m.(types.Barrier); ok {
				break
			}
		}
		if err := e.actx.WriteSet.Commit(); err != nil {
			t.Fatal(err)
		}
		e.actx.WriteSet = e.db.NewBatch()
		for _, id := range []uint32{1001, 1002, 1003, 1004, 2001} {
			n := stateRows(t, e, id)
			maxState[id] = max(maxState[id], n)
			if bound := map[uint32]int{1001: maxOrders, 1003: maxOrders, 1002: maxPayments, 1004: maxPayments, 2001: maxWindows}[id]; n > bound {
				t.Fatalf("after %d events: %d rows in state table %d, bound %d", gen.sent, n, id, bound)
			}
		}
	}
	if gen.sent < 1_000_000 {
		t.Fatalf("only %d events", gen.sent)
	}
	// Every window but the last few (still open at the end) came out.
	if lastW := int64(steps+boundMaxDelayMs) / boundWindowMs; closed < lastW-2 {
		t.Fatalf("%d windows closed of %d", closed, lastW)
	}
	t.Logf("%d events, %d windows closed holding %d joined rows; state rows at most: orders %d (index %d) of %d, payments %d (index %d) of %d, windows %d of %d",
		gen.sent, closed, joined, maxState[1001], maxState[1003], maxOrders, maxState[1002], maxState[1004], maxPayments, maxState[2001], maxWindows)
}
