package stream

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// The TopN tests read rows (id int8, g int8, v int4) with stream key id.
var topInTs = []types.T{types.TInt8, types.TInt8, types.TInt4}

// topNode returns a StreamTopN over (id, g, v) ordered by v (desc when
// asked), grouped by groupBy; rankFn != "" selects the rank as the last
// output column.
func topNode(groupBy []int, desc bool, limit, offset int64, rankFn string, withTies bool) *planner.StreamTopN {
	in := &planner.StreamValues{StreamBase: planner.StreamBase{
		Out:       types.Schema{col("id", types.TInt8), col("g", types.TInt8), col("v", types.TInt4)},
		StreamKey: []int{0},
	}}
	n := &planner.StreamTopN{
		Input: in, GroupBy: groupBy, Limit: limit, Offset: offset, WithTies: withTies,
		Order:  []planner.SortKey{{Expr: colRef(2, types.TInt4), Desc: desc, NullsFirst: desc}},
		RankFn: rankFn, RankCol: -1, State: planner.StateTableDesc{ID: 200},
	}
	n.Out = append(types.Schema(nil), in.Out...)
	if rankFn != "" {
		n.RankCol = 3
		n.Out = append(n.Out, col(rankFn, types.TInt8))
	}
	n.StreamKey = []int{0}
	return n
}

func runTop(t *testing.T, e *opEnv, n *planner.StreamTopN, script string) []string {
	t.Helper()
	op, err := NewTopN(e.actx, &scriptInput{msgs: e.script(t, script, topInTs)}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	return e.drain(t, op)
}

func TestTopNLimitOffset(t *testing.T) {
	// ORDER BY v LIMIT 2 OFFSET 1. An update that moves a row within the
	// window leaves as a delete and an insert of its stream key (its
	// position in the state changes).
	got := runTop(t, newOpEnv(t), topNode(nil, false, 2, 1, "", false), `
barrier
+ 1 0 50
+ 2 0 10
+ 3 0 30
+ 4 0 40
barrier
- 3 0 30
barrier
+ 5 0 5
+ 6 0 . 
- 6 0 .
barrier
U- 4 0 40
U+ 4 0 45
barrier
- 1 0 50
- 2 0 10
- 4 0 45
- 5 0 5
barrier
`)
	checkEpochs(t, got, ``, `
+ 3 0 30
+ 4 0 40
`, `
- 3 0 30
+ 1 0 50
`, `
- 1 0 50
+ 2 0 10
`, `
- 4 0 40
+ 4 0 45
`, `
- 2 0 10
- 4 0 45
`)
}

func TestTopNGroupRowNumber(t *testing.T) {
	// ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) <= 2
	got := runTop(t, newOpEnv(t), topNode([]int{1}, true, 2, 0, "row_number", false), `
barrier
+ 1 1 10
+ 2 1 20
+ 3 1 30
+ 4 2 5
barrier
U- 3 1 30
U+ 3 2 30
barrier
+ 5 1 15
- 4 2 5
barrier
`)
	checkEpochs(t, got, ``, `
+ 3 1 30 1
+ 2 1 20 2
+ 4 2 5 1
`, `
- 3 1 30 1
U- 2 1 20 2
U+ 2 1 20 1
U- 4 2 5 1
U+ 4 2 5 2
+ 1 1 10 2
+ 3 2 30 1
`, `
- 1 1 10 2
- 4 2 5 2
+ 5 1 15 2
`)
}

func TestTopNRankTies(t *testing.T) {
	script := `
barrier
+ 1 0 10
+ 2 0 20
+ 3 0 20
+ 4 0 30
barrier
- 1 0 10
barrier
`
	// RANK() OVER (ORDER BY v) <= 2: 10 is 1st, both 20s are 2nd.
	got := runTop(t, newOpEnv(t), topNode(nil, false, 2, 0, "rank", false), script)
	checkEpochs(t, got, ``, `
+ 1 0 10 1
+ 2 0 20 2
+ 3 0 20 2
`, `
- 1 0 10 1
U- 2 0 20 2
U+ 2 0 20 1
U- 3 0 20 2
U+ 3 0 20 1
`)
	// DENSE_RANK() <= 2 also keeps both 20s, and 30 enters once 10 goes.
	got = runTop(t, newOpEnv(t), topNode(nil, false, 2, 0, "dense_rank", false), script)
	checkEpochs(t, got, ``, `
+ 1 0 10 1
+ 2 0 20 2
+ 3 0 20 2
`, `
- 1 0 10 1
U- 2 0 20 2
U+ 2 0 20 1
U- 3 0 20 2
U+ 3 0 20 1
+ 4 0 30 2
`)
	// ROW_NUMBER() <= 2 keeps one of the tied rows (the lower stream key).
	got = runTop(t, newOpEnv(t), topNode(nil, false, 2, 0, "row_number", false), script)
	checkEpochs(t, got, ``, `
+ 1 0 10 1
+ 2 0 20 2
`, `
- 1 0 10 1
U- 2 0 20 2
U+ 2 0 20 1
+ 3 0 20 2
`)
	// ORDER BY v FETCH FIRST 2 ROWS WITH TIES.
	got = runTop(t, newOpEnv(t), topNode(nil, false, 2, 0, "", true), script)
	checkEpochs(t, got, ``, `
+ 1 0 10
+ 2 0 20
+ 3 0 20
`, `
- 1 0 10
`)
}

// TestTopNRestart commits state at a barrier, rebuilds the operator from
// storage and continues: the output equals an uninterrupted run's.
func TestTopNRestart(t *testing.T) {
	n := topNode([]int{1}, true, 2, 0, "rank", false)
	part1 := `
barrier
+ 1 1 10
+ 2 1 20
+ 3 1 30
+ 4 2 5
barrier
`
	part2 := `
- 3 1 30
+ 5 2 7
barrier
- 2 1 20
barrier
`
	whole := runTop(t, newOpEnv(t), n, part1+part2)
	e := newOpEnv(t)
	first := runTop(t, e, n, part1)
	e.reset()
	second := runTop(t, e, n, "barrier\n"+part2)
	if second[0] != "" {
		t.Fatalf("recovery barrier emitted %q", second[0])
	}
	checkEpochs(t, append(first, second[1:]...), whole...)
	checkEpochs(t, whole, ``, `
+ 3 1 30 1
+ 2 1 20 2
+ 4 2 5 1
`, `
- 3 1 30 1
U- 2 1 20 2
U+ 2 1 20 1
U- 4 2 5 1
U+ 4 2 5 2
+ 1 1 10 2
+ 5 2 7 1
`, `
- 2 1 20 1
U- 1 1 10 2
U+ 1 1 10 1
`)
}

func TestTopNDuplicatesAtEdge(t *testing.T) {
	// ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) <= 2 over an
	// append-only input without a stream key: identical rows share a
	// state key and a count, and the window's end falls between the
	// copies of one. A row whose first copies are in the window is kept
	// (the group's later reads still find them), rows past the last
	// entry's key are not stored, and a copy of the last entry is.
	n := topNode([]int{1}, true, 2, 0, "row_number", false)
	n.Input.Base().StreamKey = nil
	n.Input.Base().AppendOnly = true
	e := newOpEnv(t)
	op, err := NewTopN(e.actx, &scriptInput{msgs: e.script(t, `
barrier
+ 1 1 10
+ 1 1 10
+ 1 1 10
barrier
+ 0 1 5
barrier
+ 2 1 20
barrier
+ 5 1 10
+ 1 1 10
+ 0 1 5
barrier
+ 3 1 30
barrier
+ 0 1 1
barrier
+ 2 1 20
barrier
`, topInTs)}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	got := e.drain(t, op)
	// The rows pushed out of the window are gone from the state: only
	// (3 1 30) and two copies of (2 1 20) are left.
	var kept []string
	if err := op.(*TopN).state.Scan(nil, func(_ string, r types.Row) bool {
		kept = append(kept, fmt.Sprintf("%d/%d", r[0].I, r[3].I))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(kept, " ") != "3/1 2/2" {
		t.Fatalf("state holds %v, want 3/1 2/2", kept)
	}
	checkEpochs(t, got, ``, `
+ 1 1 10 1
+ 1 1 10 2
`, ``, `
- 1 1 10 2
U- 1 1 10 1
U+ 1 1 10 2
+ 2 1 20 1
`, ``, `
- 1 1 10 2
U- 2 1 20 1
U+ 2 1 20 2
+ 3 1 30 1
`, ``, ``)
}

// TestTopNReusesWindowRows checks that the rows a live top-N copies into
// its dirty groups' windows, and the groups themselves, are taken back
// at the barrier and reused by the next epoch rather than allocated
// again, and that the reuse changes no output: the rows that leave the
// windows are emitted with their own values, not those of the rows
// copied over them.
func TestTopNReusesWindowRows(t *testing.T) {
	// ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) <= 1 over an
	// append-only input: each group's latest row, q18's shape.
	const groups = 100
	n := topNode([]int{1}, true, 1, 0, "row_number", false)
	n.Input.Base().AppendOnly = true
	e := newOpEnv(t)
	in := &pushInput{}
	op, err := NewTopN(e.actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	top := op.(*TopN)
	if !top.live {
		t.Fatal("the top-N is not live")
	}
	render := func(cs []*types.Chunk) string {
		var b strings.Builder
		for _, c := range cs {
			s := c.String()
			b.WriteString(s[strings.IndexByte(s, '\n')+1:])
		}
		return normPretty(b.String())
	}
	e.stepBarrier(t, op, in, nil, types.BarrierInitial)

	first := types.NewChunk(topInTs, groups)
	var want strings.Builder
	for g := 1; g <= groups; g++ {
		first.AppendRow(types.OpInsert, types.Row{types.DInt(int64(g)), types.DInt(int64(g)), types.DInt(int64(g))})
		fmt.Fprintf(&want, "+ %d %d %d 1\n", g, g, g)
	}
	if got := render(e.stepBarrier(t, op, in, first, types.BarrierCheckpoint)); got != normPretty(want.String()) {
		t.Fatalf("first epoch:\n%s\nwant:\n%s", got, want.String())
	}
	if len(top.free) != groups || len(top.spare) != groups {
		t.Fatalf("after the first epoch %d free rows and %d spare groups, want %d of each", len(top.free), len(top.spare), groups)
	}
	rows := map[*types.Datum]bool{}
	for _, r := range top.free {
		rows[&r[0]] = true
	}
	spare := map[*topGroup]bool{}
	for _, g := range top.spare {
		spare[g] = true
	}

	// Every group gets a later row, which replaces its window's row.
	second := types.NewChunk(topInTs, groups)
	want.Reset()
	for g := 1; g <= groups; g++ {
		second.AppendRow(types.OpInsert, types.Row{types.DInt(int64(groups + g)), types.DInt(int64(g)), types.DInt(int64(1000 + g))})
		fmt.Fprintf(&want, "- %d %d %d 1\n", g, g, g)
	}
	for g := 1; g <= groups; g++ {
		fmt.Fprintf(&want, "+ %d %d %d 1\n", groups+g, g, 1000+g)
	}
	in.q = append(in.q, second)
	if m, err := op.Next(context.Background()); err != nil || m != nil {
		t.Fatalf("the top-N emitted %v, %v before the barrier", m, err)
	}
	for _, g := range top.groups {
		if !spare[g] {
			t.Fatalf("group %v is not one of the first epoch's", g.key)
		}
		if len(g.cur) != 1 || !rows[&g.cur[0].row[0]] {
			t.Fatalf("group %v's window row is not one of the first epoch's", g.key)
		}
	}
	if got := render(e.stepBarrier(t, op, in, nil, types.BarrierCheckpoint)); got != normPretty(want.String()) {
		t.Fatalf("second epoch:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestTopNFlushesEarly: the dirty groups of one epoch past the
// operator's buffer (Cache.OperatorBuffer) have their changes emitted
// before the barrier, and the epoch's output adds up to the same
// windows. Without it the groups of an epoch grew with its input,
// whatever the budget.
func TestTopNFlushesEarly(t *testing.T) {
	// ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) <= 1 over an
	// append-only input, q18's shape, under a budget whose operator
	// buffer holds a few dozen groups.
	const groups = 2000
	n := topNode([]int{1}, true, 1, 0, "row_number", false)
	n.Input.Base().AppendOnly = true
	e := newOpEnv(t)
	e.actx.Cache = storage.NewCache(256 << 10)
	in := &pushInput{}
	op, err := NewTopN(e.actx, in, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	top := op.(*TopN)
	e.stepBarrier(t, op, in, nil, types.BarrierInitial)

	// Each group gets a row, then a later one.
	c := types.NewChunk(topInTs, 2*groups)
	for g := 1; g <= groups; g++ {
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(g)), types.DInt(int64(g)), types.DInt(1)})
	}
	for g := 1; g <= groups; g++ {
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(groups + g)), types.DInt(int64(g)), types.DInt(2)})
	}
	in.q = append(in.q, c)
	m, err := op.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*types.Chunk); !ok {
		t.Fatalf("the top-N emitted %v before the barrier, want the changes of its first groups", m)
	}
	if len(top.groups) >= groups {
		t.Fatalf("%d dirty groups held, all of the epoch's", len(top.groups))
	}
	out := []*types.Chunk{m.(*types.Chunk)}
	out = append(out, e.stepBarrier(t, op, in, nil, types.BarrierCheckpoint)...)
	// The net changes: each group's window holds its later row.
	net := map[string]int{}
	for _, c := range out {
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r := c.Row(i)
			k := fmt.Sprintf("%d %d %d", r[0].I, r[1].I, r[2].I)
			switch c.Op(i) {
			case types.OpInsert, types.OpUpdateInsert:
				net[k]++
			default:
				net[k]--
			}
		}
	}
	for k, v := range net {
		if v == 0 {
			delete(net, k)
		}
	}
	if len(net) != groups {
		t.Fatalf("%d rows in the windows after the epoch, want %d", len(net), groups)
	}
	for g := 1; g <= groups; g++ {
		if k := fmt.Sprintf("%d %d 2", groups+g, g); net[k] != 1 {
			t.Fatalf("group %d: row %q counted %d times, want once", g, k, net[k])
		}
	}
}
