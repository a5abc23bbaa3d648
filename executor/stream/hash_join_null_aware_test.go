package stream

import (
	"context"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// nullAwareNode is the null-aware anti join (x NOT IN (subquery)) of two
// test inputs on k.
func nullAwareNode() *planner.StreamHashJoin {
	n := joinNode(planner.AntiJoin, nil)
	n.NullAware = true
	n.CountState = planner.StateTableDesc{ID: 1003, Name: "join_right_count", Cols: types.Schema{
		{Name: "_rows", T: types.TInt8, NotNull: true}, {Name: "_nulls", T: types.TInt8, NotNull: true}}}
	return n
}

// TestNullAwareAntiJoinScript: every left row while the right side is
// empty, the NULL-key one included; none while it holds a NULL key;
// otherwise the unmatched rows of non-NULL key.
func TestNullAwareAntiJoinScript(t *testing.T) {
	got, _ := runJoin(t, nullAwareNode(), `
barrier 1
L + 1 10 100
L + 2 . 200
L + 3 20 300
barrier 2
R + 1 10 1000
barrier 3
R + 2 . 1001
barrier 4
R - 2 . 1001
R - 1 10 1000
barrier 5
R + 3 30 1002
L - 2 . 200
L + 4 . 400
barrier 6
`)
	want := `
barrier 1
 I I I
+ 1 10 100
+ 2 . 200
+ 3 20 300
barrier 2
 I I I
- 2 . 200
- 1 10 100
barrier 3
 I I I
- 3 20 300
barrier 4
 I I I
+ 3 20 300
+ 2 . 200
+ 1 10 100
barrier 5
 I I I
- 2 . 200
barrier 6
`
	joinCheck(t, got, want)
}

// TestNullAwareAntiJoinRandom drives a null-aware anti join with random
// inserts, deletes and updates on both sides over few keys and many
// NULLs, so that the right side often becomes empty and gains and loses
// its NULLs, under a tiny cache, and rebuilds the operator from the
// committed state every few epochs. After each barrier the output,
// applied by stream key with every retraction checked, must equal
// PostgreSQL's x NOT IN (S) computed from the current inputs.
func TestNullAwareAntiJoinRandom(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		nullAwareRandomRun(t, seed)
	}
}

func nullAwareRandomRun(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	n := nullAwareNode()
	newOp := func() (*HashJoin, *sidedScript, *ActorContext) {
		actx := joinActx(db)
		actx.Cache = storage.NewCache(4 << 10)
		script := &sidedScript{}
		return newScriptedJoin(t, actx, n, script), script, actx
	}
	j, script, actx := newOp()
	defer func() { j.Close() }()

	sides := [2]*randSide{{rows: map[int64]types.Row{}}, {rows: map[int64]types.Row{}}}
	key := func() types.Datum {
		if rng.Intn(5) == 0 {
			return types.NullDatum
		}
		return types.DInt(rng.Int63n(4))
	}
	ids := func(s *randSide) []int64 {
		var out []int64
		for id := range s.rows {
			out = append(out, id)
		}
		sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
		return out
	}
	view := map[int64]types.Row{}
	outTs := n.Out.Types()
	script.sides = append(script.sides, 0)
	script.msgs = append(script.msgs, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}})
	stepEpoch(t, j, actx)
	for epoch := uint64(1); epoch <= 60; epoch++ {
		if epoch%7 == 0 {
			// A restart from the state committed at the last barrier.
			j.Close()
			j, script, actx = newOp()
		}
		for c := rng.Intn(4); c > 0; c-- {
			side := rng.Intn(2)
			s := sides[side]
			ch := types.NewChunk(joinSideTypes, 8)
			for r := rng.Intn(4) + 1; r > 0; r-- {
				existing := ids(s)
				switch x := rng.Intn(10); {
				case x < 4 || len(existing) == 0:
					s.nextID++
					row := types.Row{types.DInt(s.nextID), key(), types.DInt(int64(epoch))}
					s.rows[s.nextID] = row
					ch.AppendRow(types.OpInsert, row)
				case x < 7:
					id := existing[rng.Intn(len(existing))]
					ch.AppendRow(types.OpDelete, s.rows[id])
					delete(s.rows, id)
				default:
					id := existing[rng.Intn(len(existing))]
					row := types.Row{types.DInt(id), key(), types.DInt(int64(epoch))}
					ch.AppendRow(types.OpUpdateDelete, s.rows[id])
					ch.AppendRow(types.OpUpdateInsert, row)
					s.rows[id] = row
				}
			}
			script.sides = append(script.sides, side)
			script.msgs = append(script.msgs, ch)
		}
		script.sides = append(script.sides, 0)
		script.msgs = append(script.msgs, types.Barrier{Epoch: types.Epoch{Prev: epoch, Curr: epoch + 1}})
		for {
			m, err := j.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m.(types.Barrier); ok {
				if err := actx.WriteSet.Commit(); err != nil {
					t.Fatal(err)
				}
				actx.WriteSet = db.NewBatch()
				break
			}
			c := m.(*types.Chunk)
			for i := 0; i < c.Len(); i++ {
				r := ownRow(c, i)
				id := r[0].I
				if c.Op(i).IsInsert() {
					if _, ok := view[id]; ok {
						t.Fatalf("seed %d epoch %d: insert of a present key: %v", seed, epoch, r)
					}
					view[id] = r
				} else {
					old, ok := view[id]
					if !ok || fmtRow(old, outTs) != fmtRow(r, outTs) {
						t.Fatalf("seed %d epoch %d: retraction of %v, view holds %v (%v)", seed, epoch, r, old, ok)
					}
					delete(view, id)
				}
			}
		}
		want := refNotIn(sides[0].rows, sides[1].rows, outTs)
		var got []string
		for _, r := range view {
			got = append(got, fmtRow(r, outTs))
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d epoch %d:\ngot:\n%s\nwant:\n%s", seed, epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// refNotIn keeps the left rows l for which l.k NOT IN (right's k) is
// true, by PostgreSQL's rules: l.k <> r.k is true for every right row.
func refNotIn(left, right map[int64]types.Row, ts []types.T) []string {
	var out []string
	for _, l := range left {
		keep := true
		for _, r := range right {
			if l[1].Null || r[1].Null || l[1].I == r[1].I {
				keep = false // l.k <> r.k is NULL or false
				break
			}
		}
		if keep {
			out = append(out, fmtRow(l, ts))
		}
	}
	sort.Strings(out)
	return out
}
