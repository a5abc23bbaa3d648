package stream

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// pushInput is an input the test fills as it goes.
type pushInput struct{ q []types.Message }

func (p *pushInput) Next(context.Context) (types.Message, error) {
	if len(p.q) == 0 {
		return nil, nil
	}
	m := p.q[0]
	p.q = p.q[1:]
	return m, nil
}

func (p *pushInput) Close() {}

// stepBarrier pushes the chunk (if any) and a barrier into in, pulls op
// until the barrier comes out, commits the write set and returns the
// chunks op emitted.
func (e *opEnv) stepBarrier(t testing.TB, op Operator, in *pushInput, c *types.Chunk, kind types.BarrierKind) []*types.Chunk {
	t.Helper()
	if c != nil && c.Len() > 0 {
		in.q = append(in.q, c)
	}
	in.q = append(in.q, types.Barrier{Epoch: types.Epoch{Prev: e.epoch, Curr: e.epoch + 1}, Kind: kind})
	e.epoch++
	var out []*types.Chunk
	for {
		m, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *types.Chunk:
			out = append(out, m)
		case types.Barrier:
			if err := e.actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			e.actx.WriteSet = e.db.NewBatch()
			return out
		case nil:
			t.Fatal("input ended before the barrier came out")
		}
	}
}

// rowText renders r (types ts) in the pretty form without the op.
func rowText(ts []types.T, r types.Row) string {
	c := types.NewChunk(ts, 1)
	c.AppendRow(types.OpInsert, r)
	s := c.String()
	s = s[strings.IndexByte(s, '\n')+1:]
	return strings.Join(strings.Fields(s)[1:], " ")
}

// mview is a changelog applied to a map, keyed by the text of the stream
// key columns; it fails the test on an inconsistent change (a retraction
// of a row that is not there, an insert over an existing key).
type mview struct {
	ts   []types.T
	key  []int
	rows map[string]string
}

func newMview(ts []types.T, key []int) *mview {
	return &mview{ts: ts, key: key, rows: map[string]string{}}
}

func (m *mview) apply(t testing.TB, chunks []*types.Chunk) {
	t.Helper()
	for _, c := range chunks {
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r := c.Row(i)
			kr := make(types.Row, len(m.key))
			kts := make([]types.T, len(m.key))
			for j, k := range m.key {
				kr[j], kts[j] = r[k], m.ts[k]
			}
			k, v := rowText(kts, kr), rowText(m.ts, r)
			if c.Op(i).IsInsert() {
				if old, ok := m.rows[k]; ok {
					t.Fatalf("insert of %q over existing row %q", v, old)
				}
				m.rows[k] = v
			} else {
				if old := m.rows[k]; old != v {
					t.Fatalf("retraction of %q, but the row is %q", v, old)
				}
				delete(m.rows, k)
			}
		}
	}
}

func (m *mview) sorted() []string {
	var out []string
	for _, v := range m.rows {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// refAgg computes n's output over rows (in arrival order) with the batch
// accumulators.
func refAgg(t testing.TB, n *planner.StreamHashAgg, rows []types.Row) []string {
	t.Helper()
	type grp struct {
		key  types.Row
		accs []functions.Accumulator
	}
	groups := map[string]*grp{}
	var order []string
	inTs := n.Input.Base().Out.Types()
	keyTs := make([]types.T, len(n.GroupBy))
	for i, g := range n.GroupBy {
		keyTs[i] = inTs[g]
	}
	mks := make([]func() functions.Accumulator, len(n.Aggs))
	for i, c := range n.Aggs {
		spec := functions.AggSpec{Fn: c.Fn, T: c.T, Distinct: c.Distinct}
		for _, a := range c.Args {
			spec.ArgTypes = append(spec.ArgTypes, a.Type())
		}
		orderBy := c.OrderBy
		if c.Fn == "string_agg" {
			// Without a stream key, ties on the ORDER BY keys come in
			// value order.
			orderBy = append(orderBy[:len(orderBy):len(orderBy)], planner.SortKey{Expr: c.Args[0]})
		}
		for _, k := range orderBy {
			spec.OrderBy = append(spec.OrderBy, functions.OrderSpec{T: k.Expr.Type(), Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		mk, err := functions.NewAccumulatorFunc(spec)
		if err != nil {
			t.Fatal(err)
		}
		mks[i] = mk
	}
	newGroup := func(key types.Row) *grp {
		g := &grp{key: key}
		for _, mk := range mks {
			g.accs = append(g.accs, mk())
		}
		return g
	}
	if len(n.GroupBy) == 0 {
		groups[""] = newGroup(nil)
		order = append(order, "")
	}
	for _, r := range rows {
		key := make(types.Row, len(n.GroupBy))
		for i, g := range n.GroupBy {
			key[i] = r[g]
		}
		ks := rowText(keyTs, key)
		if len(n.GroupBy) == 0 {
			ks = ""
		}
		g := groups[ks]
		if g == nil {
			g = newGroup(key)
			groups[ks] = g
			order = append(order, ks)
		}
		c := types.NewChunk(inTs, 1)
		c.AppendRow(types.OpInsert, r)
		for i, call := range n.Aggs {
			if call.Filter != nil {
				ev, _ := executor.Compile(call.Filter)
				v, err := ev.Eval(&executor.EvalCtx{}, c)
				if err != nil {
					t.Fatal(err)
				}
				if !isTrue(v, 0) {
					continue
				}
			}
			var args []types.Datum
			exprs := append(append([]planner.Expr(nil), call.Args...), sortExprs(call.OrderBy)...)
			if call.Fn == "string_agg" {
				exprs = append(exprs, call.Args[0])
			}
			for _, a := range exprs {
				ev, _ := executor.Compile(a)
				v, err := ev.Eval(&executor.EvalCtx{}, c)
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, detach(v.Get(0)))
			}
			if err := g.accs[i].Add(args); err != nil {
				t.Fatal(err)
			}
		}
	}
	var out []string
	outTs := n.Out.Types()
	for _, ks := range order {
		g := groups[ks]
		r := append(types.Row(nil), g.key...)
		for _, a := range g.accs {
			r = append(r, a.Result())
		}
		out = append(out, rowText(outTs, r))
	}
	sort.Strings(out)
	return out
}

func sortExprs(keys []planner.SortKey) []planner.Expr {
	var out []planner.Expr
	for _, k := range keys {
		out = append(out, k.Expr)
	}
	return out
}

// randAggRow returns a random input row of aggInTs.
func randAggRow(rng *rand.Rand) types.Row {
	r := types.Row{types.DInt(rng.Int64N(5)), types.DInt(rng.Int64N(12) - 3), types.DString(string(rune('a' + rng.IntN(4)))), types.DBool(rng.IntN(2) == 0)}
	if rng.IntN(8) == 0 {
		r[1] = types.NullDatum
	}
	if rng.IntN(8) == 0 {
		r[3] = types.NullDatum
	}
	return r
}

// TestHashAggRandom drives random inserts, deletes and updates (moving
// rows between groups) through HashAgg, restarting it from storage now and
// then, and after every barrier compares the materialized output with a
// batch recomputation over the current input.
func TestHashAggRandom(t *testing.T) {
	filtered := countStar
	filtered.Filter = aggB
	calls := []planner.AggCall{countStar, countV, sumV, minV, maxV, avgV, countDV, strAggS, boolAnd, boolOr, filtered}
	// DISTINCT aggregates over the same column with different FILTERs,
	// sharing one table of values as the planner gives them.
	countDVB, sumDVNotB := countDV, sumDV
	countDVB.Filter = aggB
	sumDVNotB.Filter = &planner.Not{Arg: aggB}
	shared := []planner.AggCall{countStar, countDV, countDVB, sumDVNotB, filtered}
	// Calls that keep their whole state in the Result row, over two
	// integer keys (found through pairIndex), flushed early after every
	// chunk under the small budget.
	plain := []planner.AggCall{countStar, countV, sumV, avgV, boolAnd, boolOr, filtered}
	for _, tc := range []struct {
		name    string
		groupBy []int
		calls   []planner.AggCall
	}{{"grouped", []int{0}, calls}, {"global", nil, calls}, {"two keys", []int{0, 2}, calls}, {"two integer keys", []int{0, 1}, calls}, {"two integer keys, plain calls, small cache", []int{0, 1}, plain}, {"shared distinct", []int{0}, shared}, {"shared distinct, small cache", []int{0}, shared}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.groupBy)+len(tc.calls))))
			e := newOpEnv(t)
			// A budget of a few rows: the tables of values evict and
			// spill, and read back from Pebble what they gave up.
			small := strings.HasSuffix(tc.name, "small cache")
			if small {
				e.actx.Cache = storage.NewCache(4 << 10)
			}
			n := aggNode(tc.groupBy, tc.calls...)
			if strings.HasPrefix(tc.name, "shared distinct") {
				for i := range n.Extra {
					n.Extra[i].ID = n.Extra[0].ID
				}
				if len(n.Extra) != 3 {
					t.Fatalf("%d DISTINCT tables, want 3", len(n.Extra))
				}
			}
			mv := newMview(n.Out.Types(), seqCols(len(tc.groupBy)))
			var live []types.Row
			in := &pushInput{}
			build := func() Operator {
				op, err := NewHashAgg(e.actx, in, n)
				if err != nil {
					t.Fatal(err)
				}
				return op
			}
			op := build()
			mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
			for epoch := 0; epoch < 60; epoch++ {
				c := types.NewChunk(aggInTs, 64)
				for k := rng.IntN(40); k > 0; k-- {
					switch p := rng.IntN(10); {
					case p < 5 || len(live) == 0:
						r := randAggRow(rng)
						live = append(live, r)
						c.AppendRow(types.OpInsert, r)
					case p < 7:
						i := rng.IntN(len(live))
						c.AppendRow(types.OpDelete, live[i])
						live = append(live[:i], live[i+1:]...)
					default:
						i := rng.IntN(len(live))
						r := randAggRow(rng)
						if rng.IntN(2) == 0 {
							r[0] = live[i][0]
						}
						c.AppendRow(types.OpUpdateDelete, live[i])
						c.AppendRow(types.OpUpdateInsert, r)
						live[i] = r
					}
				}
				mv.apply(t, e.stepBarrier(t, op, in, c, types.BarrierCheckpoint))
				if rng.IntN(6) == 0 {
					op.Close()
					e.reset()
					if small {
						e.actx.Cache = storage.NewCache(4 << 10)
					}
					op = build()
					mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
				}
				if len(tc.groupBy) == 0 && epoch == 0 {
					continue
				}
				want := refAgg(t, n, live)
				if got := mv.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("epoch %d:\nmaterialized:\n%s\nrecomputed:\n%s", epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			op.Close()
		})
	}
}
