package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The interval join tests use the join tests' shape, (id, k, v) int8 on
// both sides joined on k, with v as event time: the condition is r.v
// BETWEEN l.v - lo AND l.v + hi, both inputs have watermarks on v. The
// plan's bounds are what the planner derives from it (r.v >= l.v - lo
// cleans the right side by the left's watermark, l.v >= r.v - hi the
// left by the right's), each side cleaned through an index table keyed
// by (v, k, id), since its state table is keyed by (k, id).

// State table ids of the interval join tests.
const (
	ijLeft, ijRight, ijLeftIdx, ijRightIdx = 1001, 1002, 1003, 1004
)

// intervalCond is r.v >= l.v - lo AND r.v <= l.v + hi over l ++ r.
func intervalCond(lo, hi int64) planner.Expr {
	lv, rv := joinCol(2, types.TInt8), joinCol(5, types.TInt8)
	return &planner.And{Args: []planner.Expr{
		joinCall(">=", types.TBool, rv, joinCall("-", types.TInt8, lv, joinInt(lo))),
		joinCall("<=", types.TBool, rv, joinCall("+", types.TInt8, lv, joinInt(hi))),
	}}
}

// intervalNode returns the interval join of kind on k with r.v between
// l.v - lo and l.v + hi. With clean, it has the bounds, clean tables and
// output watermarks the planner gives it; without, it is the same join
// keeping its whole state (the reference the cleaned join must match).
func intervalNode(kind planner.JoinKind, lo, hi int64, clean bool) *planner.StreamHashJoin {
	n := joinNode(kind, intervalCond(lo, hi))
	n.Left.Base().Watermarks = []int{2}
	n.Right.Base().Watermarks = []int{2}
	if !clean {
		return n
	}
	v := joinCol(2, types.TInt8)
	n.Bounds = []planner.JoinBound{
		{Side: 1, Col: 2, OtherCol: 2, Expr: joinCall("-", types.TInt8, v, joinInt(lo)), Name: "r.v"},
		{Side: 0, Col: 2, OtherCol: 2, Expr: joinCall("-", types.TInt8, v, joinInt(hi)), Name: "l.v"},
	}
	n.LeftClean = &planner.JoinClean{Col: 2, IndexCols: []int{2, 1, 0}, Index: indexDesc(ijLeftIdx, "join_left_clean")}
	n.RightClean = &planner.JoinClean{Col: 2, IndexCols: []int{2, 1, 0}, Index: indexDesc(ijRightIdx, "join_right_clean")}
	n.Watermarks = outWatermarkCols(kind, 2, 5)
	return n
}

func indexDesc(id uint32, name string) planner.StateTableDesc {
	cols := types.Schema{{Name: "v", T: types.TInt8}, {Name: "k", T: types.TInt8}, {Name: "id", T: types.TInt8}}
	return planner.StateTableDesc{ID: id, Name: name, Cols: cols, KeyCols: []int{0, 1, 2}, OrderDesc: make([]bool, 3)}
}

// outWatermarkCols returns the output columns l, r (of the left and
// right column of a bound pair) that a join of kind forwards watermarks
// on: those of the sides never padded with NULLs.
func outWatermarkCols(kind planner.JoinKind, l, r int) []int {
	switch kind {
	case planner.InnerJoin:
		return []int{l, r}
	case planner.LeftJoin, planner.SemiJoin, planner.AntiJoin:
		return []int{l}
	case planner.RightJoin:
		return []int{r}
	}
	return nil
}

// withKeyBounds gives a join on k of the test shape the bounds the
// planner derives from the equal keys when both carry watermarks: l.k >=
// r.k and r.k >= l.k, each side cleaned through its state table (keyed
// by k first), and the output watermarks they give.
func withKeyBounds(n *planner.StreamHashJoin) *planner.StreamHashJoin {
	n.Left.Base().Watermarks = []int{1}
	n.Right.Base().Watermarks = []int{1}
	n.Bounds = []planner.JoinBound{
		{Side: 0, Col: 1, OtherCol: 1, Expr: joinCol(1, types.TInt8), Name: "l.k"},
		{Side: 1, Col: 1, OtherCol: 1, Expr: joinCol(1, types.TInt8), Name: "r.k"},
	}
	n.LeftClean = &planner.JoinClean{Col: 1}
	n.RightClean = &planner.JoinClean{Col: 1}
	n.Watermarks = outWatermarkCols(n.Kind, 1, 4)
	return n
}

// tableRows counts the committed rows of state table id (its keys in
// Pebble).
func tableRows(t testing.TB, db *storage.DB, id uint32) int {
	t.Helper()
	snap := db.NewSnapshot()
	defer snap.Close()
	n := 0
	if err := snap.ScanPrefix(storage.TablePrefix(id), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// stateCounts prints the committed rows of the four tables.
func stateCounts(t testing.TB, db *storage.DB) string {
	return fmt.Sprintf("left %d/%d right %d/%d", tableRows(t, db, ijLeft), tableRows(t, db, ijLeftIdx),
		tableRows(t, db, ijRight), tableRows(t, db, ijRightIdx))
}

// intervalScript is joined with r.v between l.v and l.v + 10: its
// watermarks make the right side drop rows below W_l and the left side
// rows below W_r - 10, and its deletes keep the watermark promise.
const intervalScript = `
barrier 1
L + 1 1 100
L + 2 1 105
R + 1 1 103
R + 2 1 118
barrier 2
wm L 2 104
wm R 2 125
L + 3 1 110
R + 3 1 126
barrier 3
L - 2 1 105
wm L 2 119
L + 4 1 120
barrier 4
R - 3 1 126
L - 4 1 120
barrier 5
`

// runEpochs runs script through join n on a fresh database, returning
// each epoch's output and the state counts after each barrier.
func runEpochs(t *testing.T, n *planner.StreamHashJoin, script string) (outs, states []string) {
	t.Helper()
	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	actx := joinActx(db)
	s := parseSided(t, script)
	j := newScriptedJoin(t, actx, n, s)
	defer j.Close()
	for range s.barriers() {
		outs = append(outs, stepEpoch(t, j, actx))
		states = append(states, stateCounts(t, db))
	}
	return outs, states
}

// TestIntervalJoinCleans checks an inner interval join epoch by epoch:
// rows inside the bounds are joined; once the watermarks pass, the rows
// below the bounds leave both the state table and the index at the
// barrier; a row arriving below its side's bound (l 3: v 110 < 125 - 10)
// is joined with the stored rows (r 2) but not stored; output watermarks
// are min(own, bound at the other side's).
func TestIntervalJoinCleans(t *testing.T) {
	outs, states := runEpochs(t, intervalNode(planner.InnerJoin, 0, 10, true), intervalScript)
	want := []string{`
barrier 1`, `
I I I I I I
+ 1 1 100 1 1 103
barrier 2`, `
wm 2 104
wm 5 104
I I I I I I
+ 3 1 110 2 1 118
barrier 3`, `
wm 2 115
wm 5 119
I I I I I I
+ 4 1 120 3 1 126
barrier 4`, `
I I I I I I
- 4 1 120 3 1 126
barrier 5`,
	}
	joinCheck(t, strings.Join(outs, ""), strings.Join(want, "\n"))
	wantStates := []string{
		"left 0/0 right 0/0",
		"left 2/2 right 2/2",
		// Left rows below 125 - 10 (1, 2) and right rows below 104 (1)
		// are gone; left 3 was never stored.
		"left 0/0 right 2/2",
		// Right rows below 119 (2) are gone.
		"left 1/1 right 1/1",
		"left 0/0 right 0/0",
	}
	if !slices.Equal(states, wantStates) {
		t.Errorf("state rows (state/index) after each barrier:\n%s\nwant:\n%s", strings.Join(states, "\n"), strings.Join(wantStates, "\n"))
	}
}

// TestIntervalJoinSameOutput checks, for every join kind, that the
// cleaned join emits exactly the rows of the same join keeping its whole
// state: padded rows, degrees and semi/anti output are unchanged by
// cleaning, including the retraction of a row that was cleaned (l 2).
// Only the cleaned join forwards watermarks.
func TestIntervalJoinSameOutput(t *testing.T) {
	for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		t.Run(joinKindNames[kind], func(t *testing.T) {
			want, full := runEpochs(t, intervalNode(kind, 0, 10, false), intervalScript)
			got, cleaned := runEpochs(t, intervalNode(kind, 0, 10, true), intervalScript)
			if g, w := strings.Join(epochLines(strings.Join(got, "")), "\n"), strings.Join(epochLines(strings.Join(want, "")), "\n"); g != w {
				t.Errorf("cleaned:\n%s\nwhole state:\n%s", g, w)
			}
			if full[4] == cleaned[4] || cleaned[2] == full[2] {
				t.Errorf("state not cleaned: %v, whole %v", cleaned, full)
			}
		})
	}
	got, _ := runEpochs(t, intervalNode(planner.LeftJoin, 0, 10, true), intervalScript)
	want := []string{`
barrier 1`, `
I I I I I I
+ 1 1 100 . . .
+ 2 1 105 . . .
I I I I I I
- 1 1 100 . . .
+ 1 1 100 1 1 103
barrier 2`, `
wm 2 104
I I I I I I
+ 3 1 110 2 1 118
barrier 3`, `
I I I I I I
- 2 1 105 . . .
wm 2 115
I I I I I I
+ 4 1 120 3 1 126
barrier 4`, `
I I I I I I
- 4 1 120 3 1 126
+ 4 1 120 . . .
I I I I I I
- 4 1 120 . . .
barrier 5`,
	}
	joinCheck(t, strings.Join(got, ""), strings.Join(want, "\n"))
}

// TestIntervalJoinKeyClean checks a join on k whose keys carry
// watermarks: each side's state is ordered by k, so the rows below the
// other side's watermark are one range scan of the state table itself.
func TestIntervalJoinKeyClean(t *testing.T) {
	script := `
barrier 1
L + 1 1 0
L + 2 2 0
L + 3 3 0
R + 1 1 0
R + 2 3 0
barrier 2
wm L 1 2
wm R 1 3
R + 3 3 1
L + 4 2 1
barrier 3
L + 5 3 1
barrier 4
`
	want := `
barrier 1
I I I I I I
+ 1 1 0 1 1 0
+ 3 3 0 2 3 0
barrier 2
wm 1 2
wm 4 2
I I I I I I
+ 3 3 0 3 3 1
barrier 3
I I I I I I
+ 5 3 1 2 3 0
+ 5 3 1 3 3 1
barrier 4
`
	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	actx := joinActx(db)
	s := parseSided(t, script)
	j := newScriptedJoin(t, actx, withKeyBounds(joinNode(planner.InnerJoin, nil)), s)
	defer j.Close()
	var out strings.Builder
	var states []string
	for range s.barriers() {
		out.WriteString(stepEpoch(t, j, actx))
		states = append(states, fmt.Sprintf("%d/%d", tableRows(t, db, ijLeft), tableRows(t, db, ijRight)))
	}
	joinCheck(t, out.String(), want)
	// At barrier 3 the left drops k < 3 (l 1, 2; l 4 arrived below it
	// and was not stored), the right k < 2 (r 1).
	if w := []string{"0/0", "3/2", "1/2", "2/2"}; !slices.Equal(states, w) {
		t.Errorf("left/right state rows after each barrier: %v, want %v", states, w)
	}
}

// TestIntervalJoinRestart checks that a join rebuilt from the state
// committed at barrier 3 (with part of epoch 4 processed and lost)
// continues like an uninterrupted one: the same rows, and, once the
// re-announced watermarks bring its bounds back, the same state.
func TestIntervalJoinRestart(t *testing.T) {
	head, tail := intervalScript[:strings.Index(intervalScript, "L - 2")], intervalScript[strings.Index(intervalScript, "L - 2"):]
	// The inputs re-announce their watermarks after a recovery, as a
	// source or table does.
	const again = "wm L 2 104\nwm R 2 125\n"
	for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
		t.Run(joinKindNames[kind], func(t *testing.T) {
			want, wantStates := runEpochs(t, intervalNode(kind, 0, 10, true), intervalScript)

			fs := vfs.NewMem()
			db := joinOpenDB(t, fs)
			actx := joinActx(db)
			s := parseSided(t, head+"L - 2 1 105\nwm L 2 119\nL + 4 1 120\n")
			j := newScriptedJoin(t, actx, intervalNode(kind, 0, 10, true), s)
			var got []string
			for i := 0; i < 3; i++ {
				got = append(got, stepEpoch(t, j, actx))
			}
			// Rows of epoch 4 are processed but never committed.
			for len(s.msgs) > 0 {
				if _, err := j.Next(context.Background()); err != nil {
					if !strings.Contains(err.Error(), "exhausted") {
						t.Fatal(err)
					}
					break
				}
			}
			j.Close()
			actx.WriteSet.Close()
			db.Close()

			db = joinOpenDB(t, fs)
			defer db.Close()
			actx = joinActx(db)
			s = parseSided(t, "barrier 3\n"+again+tail)
			s.msgs[0] = types.Barrier{Epoch: types.Epoch{Prev: 3, Curr: 3}, Kind: types.BarrierInitial}
			j = newScriptedJoin(t, actx, intervalNode(kind, 0, 10, true), s)
			defer j.Close()
			stepEpoch(t, j, actx) // the initial barrier
			var states []string
			for i := 0; i < 2; i++ {
				got = append(got, stepEpoch(t, j, actx))
				states = append(states, stateCounts(t, db))
			}
			if g, w := strings.Join(epochLines(strings.Join(got, "")), "\n"), strings.Join(epochLines(strings.Join(want, "")), "\n"); g != w {
				t.Errorf("restarted:\n%s\nuninterrupted:\n%s", g, w)
			}
			if !slices.Equal(states, wantStates[3:]) {
				t.Errorf("state after the restart %v, uninterrupted %v", states, wantStates[3:])
			}
		})
	}
}

// TestIntervalJoinOwnPartition runs one join as two actors over one
// database: each actor cleans only the rows of its own hash partition
// of the join key, even though a range scan of the shared tables shows
// it the other's rows; through an index table, and through the state
// table ordered by the key.
func TestIntervalJoinOwnPartition(t *testing.T) {
	// Keys 1..40 split by the hash exchange's function.
	var mine [2][]int64
	for k := int64(1); k <= 40; k++ {
		p := partitionOf(hashRow(types.Row{types.NullDatum, types.DInt(k)}, []int{1}, joinSideTypes), 2)
		mine[p] = append(mine[p], k)
	}
	if len(mine[0]) == 0 || len(mine[1]) == 0 {
		t.Fatalf("partitions %v", mine)
	}
	for _, tc := range []struct {
		name string
		plan func() *planner.StreamHashJoin
		wm   string // the left watermark that passes every right row
	}{
		{"index", func() *planner.StreamHashJoin { return intervalNode(planner.InnerJoin, 0, 10, true) }, "wm L 2 200"},
		{"state", func() *planner.StreamHashJoin { return withKeyBounds(joinNode(planner.InnerJoin, nil)) }, "wm L 1 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := joinOpenDB(t, vfs.NewMem())
			defer db.Close()
			plan := func() *planner.StreamHashJoin {
				n := tc.plan()
				n.Left.Base().Dist = planner.Distribution{Kind: planner.DistHash, Keys: []int{1}}
				n.Right.Base().Dist = planner.Distribution{Kind: planner.DistHash, Keys: []int{1}}
				return n
			}
			var joins [2]*HashJoin
			var actxs [2]*ActorContext
			for a := range 2 {
				actxs[a] = joinActx(db)
				actxs[a].Parallelism, actxs[a].Index = 2, a
				var b strings.Builder
				b.WriteString("barrier 1\n")
				for i, k := range mine[a] {
					fmt.Fprintf(&b, "R + %d %d 100\n", int64(a)*100+int64(i), k)
				}
				b.WriteString("barrier 2\n")
				if a == 0 {
					// Only actor 0 sees the left watermark pass the
					// right rows.
					b.WriteString(tc.wm + "\n")
				}
				b.WriteString("barrier 3\n")
				s := parseSided(t, b.String())
				joins[a] = newScriptedJoin(t, actxs[a], plan(), s)
				defer joins[a].Close()
				stepEpoch(t, joins[a], actxs[a])
				stepEpoch(t, joins[a], actxs[a])
			}
			all := len(mine[0]) + len(mine[1])
			if n := tableRows(t, db, ijRight); n != all {
				t.Fatalf("%d right rows stored, want %d", n, all)
			}
			stepEpoch(t, joins[0], actxs[0])
			if n := tableRows(t, db, ijRight); n != len(mine[1]) {
				t.Fatalf("after actor 0 cleaned: %d right rows; want actor 1's %d", n, len(mine[1]))
			}
			if m := tableRows(t, db, ijRightIdx); tc.name == "index" && m != len(mine[1]) {
				t.Fatalf("after actor 0 cleaned: %d right index rows; want actor 1's %d", m, len(mine[1]))
			}
		})
	}
}

// ijRow is one input row of the randomized test; v < 0 stands for NULL.
type ijRow struct{ id, k, v int64 }

func (r ijRow) datums() types.Row {
	row := types.Row{types.DInt(r.id), types.DInt(r.k), types.DInt(r.v)}
	if r.v < 0 {
		row[2] = types.NullDatum
	}
	return row
}

// TestIntervalJoinRandom streams random rows with bounded disorder,
// watermarks and deletes that keep the watermark promise through a
// cleaned interval join of every kind, restarting it from its
// committed state once, and checks that the changes it emits add up to
// the join of all the rows computed afresh (cleaning never loses a
// match, never keeps a padded row too long), that every output row after
// an output watermark is at or above it, and that the state was
// cleaned.
func TestIntervalJoinRandom(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		for _, kind := range []planner.JoinKind{planner.InnerJoin, planner.LeftJoin, planner.RightJoin, planner.FullJoin, planner.SemiJoin, planner.AntiJoin} {
			t.Run(fmt.Sprintf("%s/%d", joinKindNames[kind], seed), func(t *testing.T) {
				randomIntervalRun(t, kind, seed)
			})
		}
	}
}

func randomIntervalRun(t *testing.T, kind planner.JoinKind, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, uint64(kind)))
	lo, hi := rng.Int64N(5), rng.Int64N(15)
	const (
		events   = 3000
		disorder = 6 // a row's v is at most this far behind its side's clock
		keys     = 4
	)
	// Each side has its own clock; a side's watermark is its clock less
	// the disorder, so no later row of the side is below it.
	var clock, wm [2]int64
	var live [2][]ijRow
	var sides []int
	var msgs []types.Message
	nextID := int64(1)
	add := func(s int, op types.Op, r ijRow) {
		c := types.NewChunk(joinSideTypes, 1)
		c.AppendRow(op, r.datums())
		sides, msgs = append(sides, s), append(msgs, c)
	}
	epoch := uint64(1)
	barrier := func() {
		sides, msgs = append(sides, 0), append(msgs, types.Barrier{Epoch: types.Epoch{Prev: epoch - 1, Curr: epoch}})
		epoch++
	}
	barrier()
	for i := 0; i < events; i++ {
		s := rng.IntN(2)
		switch x := rng.IntN(100); {
		case x < 70:
			clock[s] += rng.Int64N(3)
			r := ijRow{id: nextID, k: rng.Int64N(keys), v: clock[s] - rng.Int64N(disorder+1)}
			if rng.IntN(30) == 0 {
				r.v = -1
			}
			nextID++
			live[s] = append(live[s], r)
			add(s, types.OpInsert, r)
		case x < 80:
			// Delete a live row that the side's watermark has not passed.
			var ok []int
			for i, r := range live[s] {
				if r.v < 0 || r.v >= wm[s] {
					ok = append(ok, i)
				}
			}
			if len(ok) == 0 {
				continue
			}
			i := ok[rng.IntN(len(ok))]
			add(s, types.OpDelete, live[s][i])
			live[s] = slices.Delete(live[s], i, i+1)
		case x < 90:
			if w := clock[s] - disorder; w > wm[s] {
				wm[s] = w
				sides, msgs = append(sides, s), append(msgs, types.Watermark{Col: 2, T: types.TInt8, Val: types.DInt(w)})
			}
		default:
			barrier()
		}
	}
	barrier()

	db := joinOpenDB(t, vfs.NewMem())
	defer db.Close()
	actx := joinActx(db)
	n := intervalNode(kind, lo, hi, true)
	j := newScriptedJoin(t, actx, n, &sidedScript{})
	defer func() { j.Close() }()
	// got counts the output rows (inserts less retractions); outWm holds
	// the output watermarks, which later rows must respect.
	got := map[string]int{}
	outWm := map[int]int64{}
	barriers := 0
	handle := func(m types.Message) {
		switch x := m.(type) {
		case *types.Chunk:
			for r := 0; r < x.Len(); r++ {
				row := x.Row(r)
				for c, w := range outWm {
					if !row[c].Null && row[c].I < w {
						t.Fatalf("row %s after watermark %d on column %d", rowKey(row), w, c)
					}
				}
				if x.Op(r).IsInsert() {
					got[rowKey(row)]++
				} else {
					got[rowKey(row)]--
				}
			}
		case types.Watermark:
			if prev, ok := outWm[x.Col]; ok && x.Val.I < prev {
				t.Fatalf("watermark on column %d went back from %d to %d", x.Col, prev, x.Val.I)
			}
			outWm[x.Col] = x.Val.I
		case types.Barrier:
			if err := actx.WriteSet.Commit(); err != nil {
				t.Fatal(err)
			}
			actx.WriteSet = db.NewBatch()
			barriers++
		}
	}
	// feed passes one input message to the join and handles its output.
	feed := func(side int, m types.Message) {
		j.in = &sidedScript{sides: []int{side}, msgs: []types.Message{m}}
		for {
			out, err := j.Next(context.Background())
			if err != nil {
				if !strings.Contains(err.Error(), "exhausted") {
					t.Fatal(err)
				}
				return
			}
			handle(out)
		}
	}
	// After barrier restartAt the join is rebuilt from its committed
	// state, and the inputs announce their last watermarks again, as a
	// recovered job's sources and tables do.
	restartAt := 1 + rng.IntN(int(epoch)-2)
	var lastWm [2]*types.Watermark
	for i, m := range msgs {
		if w, ok := m.(types.Watermark); ok {
			lastWm[sides[i]] = &w
		}
		feed(sides[i], m)
		b, ok := m.(types.Barrier)
		if !ok || barriers != restartAt {
			continue
		}
		j.Close()
		actx = joinActx(db)
		j = newScriptedJoin(t, actx, n, &sidedScript{})
		feed(0, types.Barrier{Epoch: types.Epoch{Prev: b.Epoch.Curr, Curr: b.Epoch.Curr}, Kind: types.BarrierInitial})
		for s, w := range lastWm {
			if w != nil {
				feed(s, *w)
			}
		}
	}

	want := map[string]int{}
	for _, r := range expectedJoin(kind, live, lo, hi) {
		want[rowKey(r)]++
	}
	for k, v := range got {
		if v == 0 {
			delete(got, k)
		}
	}
	if !mapsEqual(got, want) {
		t.Fatalf("lo %d hi %d restart at barrier %d: output differs from the join recomputed:\n%s", lo, hi, restartAt, diffCounts(got, want))
	}
	stored := tableRows(t, db, ijLeft) + tableRows(t, db, ijRight)
	if all := len(live[0]) + len(live[1]); stored*3 > all {
		t.Fatalf("%d rows still stored of %d live: state not cleaned", stored, all)
	}
	if tableRows(t, db, ijLeft) != tableRows(t, db, ijLeftIdx) || tableRows(t, db, ijRight) != tableRows(t, db, ijRightIdx) {
		t.Fatalf("index out of step with the state: %s", stateCounts(t, db))
	}
}

// expectedJoin computes the join of all live rows afresh: the rows a
// batch join returns, in the output layout of the stream join.
func expectedJoin(kind planner.JoinKind, live [2][]ijRow, lo, hi int64) []types.Row {
	match := func(l, r ijRow) bool {
		return l.k == r.k && l.v >= 0 && r.v >= 0 && r.v >= l.v-lo && r.v <= l.v+hi
	}
	null3 := types.Row{types.NullDatum, types.NullDatum, types.NullDatum}
	var out []types.Row
	rightMatched := make([]bool, len(live[1]))
	for _, l := range live[0] {
		n := 0
		for i, r := range live[1] {
			if match(l, r) {
				n++
				rightMatched[i] = true
				if kind != planner.SemiJoin && kind != planner.AntiJoin {
					out = append(out, append(l.datums(), r.datums()...))
				}
			}
		}
		switch {
		case kind == planner.SemiJoin && n > 0, kind == planner.AntiJoin && n == 0:
			out = append(out, l.datums())
		case n == 0 && (kind == planner.LeftJoin || kind == planner.FullJoin):
			out = append(out, append(l.datums(), null3...))
		}
	}
	if kind == planner.RightJoin || kind == planner.FullJoin {
		for i, r := range live[1] {
			if !rightMatched[i] {
				out = append(out, append(slices.Clone(null3), r.datums()...))
			}
		}
	}
	return out
}

// rowKey prints an int8 row, NULL as ".".
func rowKey(row types.Row) string {
	var b strings.Builder
	for _, d := range row {
		if d.Null {
			b.WriteString(". ")
		} else {
			fmt.Fprintf(&b, "%d ", d.I)
		}
	}
	return b.String()
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffCounts(got, want map[string]int) string {
	var lines []string
	for k, v := range got {
		if want[k] != v {
			lines = append(lines, fmt.Sprintf("got %d want %d: %s", v, want[k], k))
		}
	}
	for k, v := range want {
		if _, ok := got[k]; !ok {
			lines = append(lines, fmt.Sprintf("got 0 want %d: %s", v, k))
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("... %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}
