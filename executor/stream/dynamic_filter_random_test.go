package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/weirdb/weir/types"
)

// TestDynamicFilterRandom feeds each kind of temporal filter random
// inserts, deletes and updates (times near the moving bound, some NULL)
// with barriers whose times move forward by random steps, and restarts
// the operator at random barriers. Its output, applied as a changelog
// (which must stay consistent), must equal after every barrier the input
// rows that pass at that barrier's time, but right after a restart,
// when the view still shows the recovered checkpoint; and the state
// must hold exactly the rows whose condition can still change.
func TestDynamicFilterRandom(t *testing.T) {
	// Two fixed seeds, and a fresh one each run (logged, to replay it).
	for _, seed := range []uint64{1, 2, rand.Uint64()} {
		for _, op := range []string{">", ">=", "<", "<="} {
			t.Run(fmt.Sprintf("%s/seed=%d", op, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(len(op))+uint64(op[0])))
				for round := range 20 {
					runRandomDF(t, rng, op, round)
				}
			})
		}
	}
}

func runRandomDF(t *testing.T, rng *rand.Rand, op string, round int) {
	const offsetMs = -3000
	e := newOpEnv(t)
	n := dfNode(op, offsetMs)
	in := &pushInput{}
	newOp := func() *DynamicFilter {
		f, err := NewDynamicFilter(e.actx, in, n)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := newOp()
	table := map[int64]types.Datum{} // id → ts of the input rows
	out := newMview(dfInTs, []int{0})
	nowMs := int64(100_000)
	step := func(c *types.Chunk, kind types.BarrierKind) {
		ms := nowMs
		curr := max(uint64(ms)<<types.EpochSeqBits, e.epoch+1)
		if c != nil && c.Len() > 0 {
			in.q = append(in.q, c)
		}
		in.q = append(in.q, types.Barrier{Epoch: types.Epoch{Prev: e.epoch, Curr: curr}, Kind: kind})
		e.epoch = curr
		for {
			m, err := f.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if ch, ok := m.(*types.Chunk); ok {
				out.apply(t, []*types.Chunk{ch})
				continue
			}
			if _, ok := m.(types.Barrier); !ok {
				t.Fatalf("got %T, want the barrier", m)
			}
			if err := e.actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			e.actx.WriteSet = e.db.NewBatch()
			return
		}
	}
	bound := func() int64 { return (nowMs + offsetMs) * 1000 }
	passes := func(ts int64) bool {
		switch op {
		case ">":
			return ts > bound()
		case ">=":
			return ts >= bound()
		case "<":
			return ts < bound()
		}
		return ts <= bound()
	}
	check := func(what string) {
		var want []string
		waiting := 0
		for id, ts := range table {
			if ts.Null {
				continue
			}
			if passes(ts.I) {
				want = append(want, rowText(dfInTs, types.Row{types.DInt(id), ts}))
			}
			if passes(ts.I) == f.retracts {
				waiting++
			}
		}
		slices.Sort(want)
		if got := out.sorted(); !slices.Equal(got, want) {
			t.Fatalf("round %d, %s at %d ms: output\n%v\nwant\n%v", round, what, nowMs, got, want)
		}
		if got := stateRows(t, e, 100); got != waiting {
			t.Fatalf("round %d, %s at %d ms: %d state rows, want %d", round, what, nowMs, got, waiting)
		}
	}
	step(nil, types.BarrierInitial)
	for epoch := range 40 {
		c := types.NewChunk(dfInTs, 64)
		for range rng.IntN(12) {
			id := int64(rng.IntN(30))
			ts := types.DInt((nowMs + int64(rng.IntN(8000)) - 6000) * 1000)
			if rng.IntN(10) == 0 {
				ts = types.NullDatum
			}
			old, exists := table[id]
			switch {
			case !exists:
				c.AppendRow(types.OpInsert, types.Row{types.DInt(id), ts})
				table[id] = ts
			case rng.IntN(3) == 0:
				c.AppendRow(types.OpDelete, types.Row{types.DInt(id), old})
				delete(table, id)
			default:
				c.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(id), old})
				c.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(id), ts})
				table[id] = ts
			}
		}
		nowMs += int64(rng.IntN(1500))
		if rng.IntN(8) == 0 {
			// A restart: the chunk's epoch is lost with the crash, and
			// the input replays nothing of it (a table's changes are
			// committed with the epoch), so the model forgets it too.
			for _, r := range rowsOf(c) {
				undo(table, r)
			}
			e.reset()
			in.q = nil
			f = newOp()
			step(nil, types.BarrierInitial)
			continue
		}
		step(c, types.BarrierCheckpoint)
		check(fmt.Sprintf("epoch %d", epoch))
	}
}

// rowsOf returns c's rows with their ops, last first (for undoing).
func rowsOf(c *types.Chunk) []struct {
	op  types.Op
	row types.Row
} {
	var out []struct {
		op  types.Op
		row types.Row
	}
	for i := c.Len() - 1; i >= 0; i-- {
		out = append(out, struct {
			op  types.Op
			row types.Row
		}{c.Op(i), c.Row(i)})
	}
	return out
}

// undo reverts one change r from the model table.
func undo(table map[int64]types.Datum, r struct {
	op  types.Op
	row types.Row
}) {
	id := r.row[0].I
	if r.op.IsInsert() {
		delete(table, id)
	} else {
		table[id] = r.row[1]
	}
}
