package stream

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// replicateNode is a Replicate of (g int8, m int8) by m: (g, _copy).
func replicateNode() *planner.StreamReplicate {
	in := &planner.StreamValues{}
	in.Out = types.Schema{{Name: "g", T: types.TInt8}, {Name: "m", T: types.TInt8}}
	in.StreamKey = []int{0}
	n := &planner.StreamReplicate{Input: in, Count: 1}
	n.Out = types.Schema{{Name: "g", T: types.TInt8}, {Name: "_copy", T: types.TInt8}}
	n.StreamKey = []int{0, 1}
	return n
}

// TestReplicateOps: an insert emits its copies, an update pair of the
// same row adds or retracts only the copies between the two
// multiplicities, a pair that changes the row pairs the copies both have,
// a delete retracts all; a watermark on the multiplicity is dropped.
func TestReplicateOps(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt8}
	msgs := parseScript(t, ts, `
barrier 1 add
+  1 2
+  2 0
+  3 .
U- 1 2
U+ 1 4
U- 1 4
U+ 1 1
U- 1 1
U+ 5 2
-  5 2
barrier 2
`)
	last := msgs[len(msgs)-1]
	msgs = append(msgs[:len(msgs)-1],
		types.Watermark{Col: 1, T: types.TInt8, Val: types.DInt(5)},
		types.Watermark{Col: 0, T: types.TInt8, Val: types.DInt(7)},
		last)
	checkOutput(t, drain(t, NewReplicate(&rtScript{msgs: msgs}, replicateNode()), 2), `
barrier 1
 I I
+  1 1
+  1 2
+  1 3
+  1 4
-  1 2
-  1 3
-  1 4
U- 1 1
U+ 5 1
+  5 2
-  5 1
-  5 2
wm 0 7
barrier 2
`)
}

// TestReplicateRandom applies random changes of random multiplicities
// (inserts, deletes, update pairs of the same row and of another, NULL
// and negative multiplicities) in chunks of random sizes, around
// types.ChunkCap copies at a time, and checks that the output applied by
// stream key, every retraction checked, always holds each row as many
// times as its multiplicity says.
func TestReplicateRandom(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := replicateNode()
		rows := map[int64]types.Datum{} // g -> m
		var msgs []types.Message
		msgs = append(msgs, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}})
		mult := func() types.Datum {
			switch rng.Intn(8) {
			case 0:
				return types.NullDatum
			case 1:
				return types.DInt(-rng.Int63n(3))
			case 2:
				return types.DInt(rng.Int63n(3 * types.ChunkCap))
			}
			return types.DInt(rng.Int63n(5))
		}
		const epochs = 40
		for e := uint64(1); e <= epochs; e++ {
			ch := types.NewChunk([]types.T{types.TInt8, types.TInt8}, 16)
			for r := rng.Intn(10) + 1; r > 0; r-- {
				g := rng.Int63n(6)
				m, ok := rows[g]
				switch {
				case !ok:
					nm := mult()
					ch.AppendRow(types.OpInsert, types.Row{types.DInt(g), nm})
					rows[g] = nm
				case rng.Intn(4) == 0:
					ch.AppendRow(types.OpDelete, types.Row{types.DInt(g), m})
					delete(rows, g)
				case rng.Intn(4) == 0:
					// The row moves to another g, free or not yet used.
					ng := g + 6 + rng.Int63n(6)
					if _, taken := rows[ng]; taken {
						continue
					}
					nm := mult()
					ch.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(g), m})
					ch.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(ng), nm})
					delete(rows, g)
					rows[ng] = nm
				default:
					nm := mult()
					ch.AppendRow(types.OpUpdateDelete, types.Row{types.DInt(g), m})
					ch.AppendRow(types.OpUpdateInsert, types.Row{types.DInt(g), nm})
					rows[g] = nm
				}
			}
			msgs = append(msgs, ch, types.Barrier{Epoch: types.Epoch{Prev: e, Curr: e + 1}})
		}
		want := map[string]bool{}
		for g, m := range rows {
			for k := int64(1); !m.Null && k <= m.I; k++ {
				want[fmt.Sprintf("%d %d", g, k)] = true
			}
		}
		op := NewReplicate(&rtScript{msgs: msgs}, n)
		view := map[string]bool{}
		for barriers := 0; barriers <= epochs; {
			m, err := op.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			c, ok := m.(*types.Chunk)
			if !ok {
				if _, ok := m.(types.Barrier); ok {
					barriers++
				}
				continue
			}
			if c.Len() > types.ChunkCap {
				t.Fatalf("seed %d: chunk of %d rows", seed, c.Len())
			}
			for i := 0; i < c.Len(); i++ {
				r := ownRow(c, i)
				k := fmt.Sprintf("%d %d", r[0].I, r[1].I)
				if c.Op(i).IsInsert() {
					if view[k] {
						t.Fatalf("seed %d: insert of present copy %s", seed, k)
					}
					view[k] = true
				} else {
					if !view[k] {
						t.Fatalf("seed %d: retraction of absent copy %s", seed, k)
					}
					delete(view, k)
				}
			}
		}
		if got, w := sortedKeys(view), sortedKeys(want); got != w {
			t.Fatalf("seed %d: got %d copies, want %d:\n%.400s\nwant:\n%.400s", seed, len(view), len(want), got, w)
		}
	}
}

func sortedKeys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
