package stream

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// TestHashJoinRandom drives every join kind, with and without a residual
// condition, with random inserts, deletes and updates (of keys and
// values, NULLs included) on both sides, committing each epoch to a real
// database under a tiny cache budget so that state is read back from
// storage. After each barrier the materialized output (applied by stream
// key, every retraction checked against what was inserted) must equal a
// nested-loop recomputation over the current inputs.
func TestHashJoinRandom(t *testing.T) {
	kinds := []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin}
	for _, kind := range kinds {
		for _, withCond := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/cond=%v", joinKindNames[kind], withCond), func(t *testing.T) {
				for seed := int64(1); seed <= 3; seed++ {
					randomJoinRun(t, kind, withCond, seed)
				}
			})
		}
	}
}

type randSide struct {
	rows   map[int64]types.Row // current rows by id
	nextID int64
}

func randomJoinRun(t *testing.T, kind planner.JoinKind, withCond bool, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	actx := joinActx(db)
	actx.Cache = storage.NewCache(4 << 10)
	var cond planner.Expr
	if withCond {
		cond = condLt()
	}
	n := joinNode(kind, cond)
	script := &sidedScript{}
	j := newScriptedJoin(t, actx, n, script)
	defer j.Close()

	sides := [2]*randSide{{rows: map[int64]types.Row{}}, {rows: map[int64]types.Row{}}}
	datum := func(max int64) types.Datum {
		if rng.Intn(6) == 0 {
			return types.NullDatum
		}
		return types.DInt(rng.Int63n(max))
	}
	newRow := func(id int64) types.Row { return types.Row{types.DInt(id), datum(5), datum(4)} }
	ids := func(s *randSide) []int64 {
		var out []int64
		for id := range s.rows {
			out = append(out, id)
		}
		sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
		return out
	}

	view := map[string]types.Row{}
	outTs := n.Out.Types()
	keyOf := func(r types.Row) string {
		var b []byte
		for _, k := range n.StreamKey {
			b = types.AppendKey(b, r[k], outTs[k], false)
		}
		return string(b)
	}
	script.sides = append(script.sides, 0)
	script.msgs = append(script.msgs, types.Barrier{Epoch: types.Epoch{Prev: 0, Curr: 1}})
	stepEpoch(t, j, actx)
	for epoch := uint64(1); epoch <= 50; epoch++ {
		for c := rng.Intn(4); c > 0; c-- {
			side := rng.Intn(2)
			s := sides[side]
			ch := types.NewChunk(joinSideTypes, 8)
			for r := rng.Intn(6) + 1; r > 0; r-- {
				existing := ids(s)
				switch x := rng.Intn(10); {
				case x < 5 || len(existing) == 0:
					s.nextID++
					row := newRow(s.nextID)
					s.rows[s.nextID] = row
					ch.AppendRow(types.OpInsert, row)
				case x < 7:
					id := existing[rng.Intn(len(existing))]
					ch.AppendRow(types.OpDelete, s.rows[id])
					delete(s.rows, id)
				default:
					id := existing[rng.Intn(len(existing))]
					row := newRow(id)
					if rng.Intn(2) == 0 {
						row[1] = s.rows[id][1] // keep the join key
					}
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

		// Apply the output up to the barrier to the view.
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
				if !c.Visible(i) {
					continue
				}
				r := ownRow(c, i)
				k := keyOf(r)
				if c.Op(i).IsInsert() {
					if _, ok := view[k]; ok {
						t.Fatalf("seed %d epoch %d: insert of a present key: %v", seed, epoch, r)
					}
					view[k] = r
				} else {
					old, ok := view[k]
					if !ok || fmtRow(old, outTs) != fmtRow(r, outTs) {
						t.Fatalf("seed %d epoch %d: retraction of %v, view holds %v (%v)", seed, epoch, r, old, ok)
					}
					delete(view, k)
				}
			}
		}

		want := refJoin(kind, withCond, sides[0].rows, sides[1].rows, outTs)
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

func fmtRow(r types.Row, ts []types.T) string {
	parts := make([]string, len(r))
	for i, d := range r {
		if d.Null {
			parts[i] = "."
		} else {
			parts[i] = types.FormatText(d, ts[i], nil)
		}
	}
	return strings.Join(parts, " ")
}

// refJoin computes the join of the current inputs by nested loops, as
// sorted formatted rows.
func refJoin(kind planner.JoinKind, withCond bool, left, right map[int64]types.Row, ts []types.T) []string {
	match := func(l, r types.Row) bool {
		if l[1].Null || r[1].Null || l[1].I != r[1].I {
			return false
		}
		if withCond {
			return !l[2].Null && !r[2].Null && l[2].I < r[2].I
		}
		return true
	}
	null3 := types.Row{types.NullDatum, types.NullDatum, types.NullDatum}
	var out []string
	add := func(l, r types.Row) {
		row := append(append(types.Row(nil), l...), r...)
		out = append(out, fmtRow(row, ts))
	}
	rightMatched := map[int64]bool{}
	for _, l := range left {
		n := 0
		for id, r := range right {
			if match(l, r) {
				n++
				rightMatched[id] = true
				if kind != planner.SemiJoin && kind != planner.AntiJoin {
					add(l, r)
				}
			}
		}
		switch {
		case kind == planner.SemiJoin && n > 0, kind == planner.AntiJoin && n == 0:
			out = append(out, fmtRow(l, ts))
		case (kind == planner.LeftJoin || kind == planner.FullJoin) && n == 0:
			add(l, null3)
		}
	}
	if kind == planner.RightJoin || kind == planner.FullJoin {
		for id, r := range right {
			if !rightMatched[id] {
				add(null3, r)
			}
		}
	}
	sort.Strings(out)
	return out
}
