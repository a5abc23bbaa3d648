package stream

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// keyedAggInTs are aggInTs plus a unique row id, the input's stream key:
// with a stream key, min and max keep one Extra entry per input row
// (written without reading) instead of counted values.
var keyedAggInTs = append(append([]types.T(nil), aggInTs...), types.TInt8)

func keyedAggNode(groupBy []int, calls ...planner.AggCall) *planner.StreamHashAgg {
	n := aggNode(groupBy, calls...)
	in := inputNode(false, col("g", types.TInt8), col("v", types.TInt4), col("s", types.TText), col("b", types.TBool), col("id", types.TInt8))
	in.Base().StreamKey = []int{4}
	n.Input = in
	return n
}

// TestHashAggKeyedMinMaxRandom drives random inserts, deletes and updates
// (moving rows between groups, and many rows sharing the extreme) through
// min and max over an input with a stream key, restarting the operator
// from storage now and then, and compares the output after every barrier
// with a batch recomputation. The test's strict changelog checks make a
// retraction of an entry that is not in the Extra table fail.
func TestHashAggKeyedMinMaxRandom(t *testing.T) {
	filtered := maxV
	filtered.Filter = aggB
	calls := []planner.AggCall{countStar, minV, maxV, filtered, sumV}
	for _, tc := range []struct {
		name    string
		groupBy []int
	}{{"grouped", []int{0}}, {"global", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(len(tc.groupBy))))
			e := newOpEnv(t)
			n := keyedAggNode(tc.groupBy, calls...)
			if !strings.Contains(n.Input.Base().Out[4].Name, "id") {
				t.Fatal("input has no id column")
			}
			mv := newMview(n.Out.Types(), seqCols(len(tc.groupBy)))
			var live []types.Row
			nextID := int64(0)
			// Some rows have a NULL group key: a group of its own.
			row := func() types.Row {
				r := append(randAggRow(rng), types.DInt(nextID))
				if rng.IntN(10) == 0 {
					r[0] = types.NullDatum
				}
				nextID++
				return r
			}
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
			for epoch := 0; epoch < 80; epoch++ {
				c := types.NewChunk(keyedAggInTs, 64)
				for k := rng.IntN(40); k > 0; k-- {
					switch p := rng.IntN(10); {
					case p < 5 || len(live) == 0:
						r := row()
						live = append(live, r)
						c.AppendRow(types.OpInsert, r)
					case p < 7:
						i := rng.IntN(len(live))
						c.AppendRow(types.OpDelete, live[i])
						live = append(live[:i], live[i+1:]...)
					default:
						// An update keeps the row's id; half of them stay in
						// the group.
						i := rng.IntN(len(live))
						r := row()
						r[4] = live[i][4]
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

// TestHashAggKeyedMinMaxChecksChangelog: with the test's strict changelog
// checks, retracting a row the Extra table does not hold fails the
// operator instead of going unnoticed.
func TestHashAggKeyedMinMaxChecksChangelog(t *testing.T) {
	e := newOpEnv(t)
	n := keyedAggNode([]int{0}, minV)
	in := &pushInput{}
	op, err := NewHashAgg(e.actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	e.stepBarrier(t, op, in, nil, types.BarrierInitial)
	c := types.NewChunk(keyedAggInTs, 2)
	c.AppendRow(types.OpInsert, types.Row{types.DInt(1), types.DInt(5), types.DString("a"), types.DBool(true), types.DInt(1)})
	c.AppendRow(types.OpDelete, types.Row{types.DInt(1), types.DInt(5), types.DString("a"), types.DBool(true), types.DInt(2)})
	in.q = append(in.q, c)
	if _, err := op.Next(t.Context()); err == nil || !strings.Contains(err.Error(), "never added") {
		t.Fatalf("got %v, want an error about a row never added", err)
	}
}
