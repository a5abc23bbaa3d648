package stream

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// refTopN computes n's output over the live rows (id, g, v) with a
// simple reference: sort each group by v (NULLs as the sort key says),
// then id, and rank as Postgres would.
func refTopN(n *planner.StreamTopN, live map[int64]types.Row) []string {
	groups := map[int64][]types.Row{}
	for _, r := range live {
		var g int64
		if len(n.GroupBy) > 0 {
			g = r[1].I
		}
		groups[g] = append(groups[g], r)
	}
	k := n.Order[0]
	less := func(a, b types.Row) int {
		x, y := a[2], b[2]
		switch {
		case x.Null && y.Null:
		case x.Null != y.Null:
			if x.Null == k.NullsFirst {
				return -1
			}
			return 1
		case x.I != y.I:
			if (x.I < y.I) != k.Desc {
				return -1
			}
			return 1
		}
		return 0
	}
	var out []string
	lo, hi := n.Offset, n.Offset+n.Limit
	for _, rows := range groups {
		sort.Slice(rows, func(i, j int) bool {
			if c := less(rows[i], rows[j]); c != 0 {
				return c < 0
			}
			return rows[i][0].I < rows[j][0].I
		})
		var rank, dense int64
		for i, r := range rows {
			pos := int64(i + 1)
			if i == 0 || less(rows[i-1], r) != 0 {
				rank = pos
				dense++
			}
			rk := pos
			switch {
			case n.RankFn == "rank":
				rk = rank
			case n.RankFn == "dense_rank":
				rk = dense
			case n.WithTies:
				// FETCH WITH TIES: the rows up to hi, then those tied
				// with row hi.
				if pos > hi && less(rows[hi-1], r) == 0 {
					rk = hi
				}
			}
			if rk <= lo || rk > hi {
				continue
			}
			o := append(types.Row(nil), r...)
			if n.RankCol >= 0 {
				o = append(o, types.DInt(rk))
			}
			out = append(out, rowText(n.Out.Types(), o))
		}
	}
	sort.Strings(out)
	return out
}

// TestTopNRandom drives random inserts, deletes and updates through
// TopN in every mode, restarting it from storage now and then, and after
// every barrier compares the materialized output with the reference. The
// append-only cases insert only, over an input the plan says never
// retracts, so that TopN drops the rows past each group's window. Each
// case runs again under a memory budget of a few rows, so that the
// state's rows (held encoded) are evicted and spilled and read back
// from storage.
func TestTopNRandom(t *testing.T) {
	appendOnly := func(n *planner.StreamTopN) *planner.StreamTopN {
		n.Input.Base().AppendOnly = true
		return n
	}
	cases := []struct {
		name string
		n    *planner.StreamTopN
	}{
		{"limit offset", topNode(nil, false, 3, 2, "", false)},
		{"with ties", topNode(nil, true, 3, 0, "", true)},
		{"group row_number", topNode([]int{1}, true, 2, 0, "row_number", false)},
		{"group rank", topNode([]int{1}, false, 3, 0, "rank", false)},
		{"group dense_rank offset", topNode([]int{1}, true, 2, 1, "dense_rank", false)},
		{"append-only limit offset", appendOnly(topNode(nil, false, 3, 2, "", false))},
		{"append-only with ties", appendOnly(topNode(nil, true, 3, 0, "", true))},
		{"append-only group row_number", appendOnly(topNode([]int{1}, true, 2, 0, "row_number", false))},
		{"append-only group rank", appendOnly(topNode([]int{1}, false, 3, 0, "rank", false))},
		{"append-only group dense_rank offset", appendOnly(topNode([]int{1}, true, 2, 1, "dense_rank", false))},
	}
	for ci, tc := range cases {
		for _, small := range []bool{false, true} {
			name := tc.name
			if small {
				name += ", small cache"
			}
			t.Run(name, func(t *testing.T) {
				testTopNRandom(t, tc.n, small, uint64(ci))
			})
		}
	}
}

// testTopNRandom is one case of TestTopNRandom.
func testTopNRandom(t *testing.T, n *planner.StreamTopN, small bool, seed uint64) {
	rng := rand.New(rand.NewPCG(11, seed))
	e := newOpEnv(t)
	if small {
		e.actx.Cache = storage.NewCache(2 << 10)
	}
	mv := newMview(n.Out.Types(), []int{0})
	live := map[int64]types.Row{}
	var ids []int64
	nextID := int64(1)
	in := &pushInput{}
	build := func() Operator {
		op, err := NewTopN(e.actx, in, n)
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	randRow := func(id int64) types.Row {
		r := types.Row{types.DInt(id), types.DInt(rng.Int64N(3)), types.DInt(rng.Int64N(8))}
		if rng.IntN(10) == 0 {
			r[2] = types.NullDatum
		}
		return r
	}
	op := build()
	mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
	for epoch := 0; epoch < 80; epoch++ {
		c := types.NewChunk(topInTs, 64)
		for k := rng.IntN(12); k > 0; k-- {
			switch p := rng.IntN(10); {
			case p < 5 || len(ids) == 0 || n.Input.Base().AppendOnly:
				r := randRow(nextID)
				nextID++
				live[r[0].I] = r
				ids = append(ids, r[0].I)
				c.AppendRow(types.OpInsert, r)
			case p < 7:
				i := rng.IntN(len(ids))
				c.AppendRow(types.OpDelete, live[ids[i]])
				delete(live, ids[i])
				ids = append(ids[:i], ids[i+1:]...)
			default:
				id := ids[rng.IntN(len(ids))]
				r := randRow(id)
				c.AppendRow(types.OpUpdateDelete, live[id])
				c.AppendRow(types.OpUpdateInsert, r)
				live[id] = r
			}
		}
		mv.apply(t, e.stepBarrier(t, op, in, c, types.BarrierCheckpoint))
		if rng.IntN(8) == 0 {
			op.Close()
			e.reset()
			if small {
				e.actx.Cache = storage.NewCache(2 << 10)
			}
			op = build()
			mv.apply(t, e.stepBarrier(t, op, in, nil, types.BarrierInitial))
		}
		want := refTopN(n, live)
		if got := mv.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("epoch %d:\nmaterialized:\n%s\nreference:\n%s", epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if n.Input.Base().AppendOnly {
			// The state keeps each group's window (with the rows
			// tied at its end) and drops the rest: once there
			// are many rows, well under half of them.
			if n := topStateRows(t, op); len(live) > 100 && n > len(live)/2 {
				t.Fatalf("epoch %d: the append-only state holds %d rows for %d live", epoch, n, len(live))
			}
		}
	}
	op.Close()
}

// topStateRows counts the rows of a TopN's state table.
func topStateRows(t *testing.T, op Operator) int {
	t.Helper()
	rows, err := storage.Collect(op.(*TopN).state.Iter(nil, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}
