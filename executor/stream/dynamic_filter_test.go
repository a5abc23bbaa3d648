package stream

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// The DynamicFilter tests read rows (id int8, ts timestamptz) keyed by
// id; "barrier @MS" sets the epoch's time, which is what now() is.
var dfInTs = []types.T{types.TInt8, types.TTimestamptz}

// dfNode returns the filter `ts op now() + offsetMs` over dfInTs rows.
func dfNode(op string, offsetMs int64) *planner.StreamDynamicFilter {
	in := inputNode(false, col("id", types.TInt8), col("ts", types.TTimestamptz))
	in.Base().StreamKey = []int{0}
	now := &planner.Call{Fn: "now", T: types.TTimestamptz}
	iv := &planner.Const{V: types.DInterval(types.IntervalVal{Micros: offsetMs * 1000}), T: types.TInterval}
	n := &planner.StreamDynamicFilter{Input: in, Key: colRef(1, types.TTimestamptz), Op: op,
		Bound: &planner.Call{Fn: "+", Args: []planner.Expr{now, iv}, T: types.TTimestamptz}, State: planner.StateTableDesc{ID: 100}}
	n.Out, n.StreamKey = in.Base().Out, []int{0}
	return n
}

func runDF(t *testing.T, e *opEnv, n *planner.StreamDynamicFilter, script string) []string {
	t.Helper()
	op, err := NewDynamicFilter(e.actx, &scriptInput{msgs: e.script(t, script, dfInTs)}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	return e.drain(t, op)
}

// TestDynamicFilterRetracts checks `ts > now() - 2s`: rows pass when
// inserted after the bound, leave at the first barrier whose time puts
// them at or below it, deletes and updates of passing rows go through
// and those of rows that left do not.
func TestDynamicFilterRetracts(t *testing.T) {
	e := newOpEnv(t)
	n := dfNode(">", -2000)
	got := runDF(t, e, n, `
barrier @10000
+ 1 1970-01-01T00:00:09Z
+ 2 1970-01-01T00:00:07Z
+ 3 1970-01-01T00:00:12Z
+ 4 .
+ 5 1970-01-01T00:00:08Z
barrier @11000
- 3 1970-01-01T00:00:12Z
+ 6 1970-01-01T00:00:10Z
- 1 1970-01-01T00:00:09Z
U- 7 1970-01-01T00:00:05Z
U+ 7 1970-01-01T00:00:30Z
barrier @13000
U- 7 1970-01-01T00:00:30Z
U+ 7 1970-01-01T00:00:31Z
barrier @20000
barrier @40000
`)
	checkEpochs(t, got, ``, `
+ 1 1970-01-01T00:00:09Z
+ 3 1970-01-01T00:00:12Z
- 1 1970-01-01T00:00:09Z
`, `
- 3 1970-01-01T00:00:12Z
+ 6 1970-01-01T00:00:10Z
+ 7 1970-01-01T00:00:30Z
- 6 1970-01-01T00:00:10Z
`, `
U- 7 1970-01-01T00:00:30Z
U+ 7 1970-01-01T00:00:31Z
`, `
- 7 1970-01-01T00:00:31Z
`)
	if r := stateRows(t, e, 100); r != 0 {
		t.Fatalf("%d state rows left, want 0", r)
	}
}

// TestDynamicFilterInserts checks `ts <= now() + 1s`: rows from the
// future wait in state and come in at the barrier whose time reaches
// them; a waiting row's delete removes it without output.
func TestDynamicFilterInserts(t *testing.T) {
	e := newOpEnv(t)
	n := dfNode("<=", 1000)
	got := runDF(t, e, n, `
barrier @10000
+ 1 1970-01-01T00:00:11Z
+ 2 1970-01-01T00:00:12Z
+ 3 1970-01-01T00:00:15Z
+ 4 1970-01-01T00:00:14Z
barrier @11000
- 3 1970-01-01T00:00:15Z
- 1 1970-01-01T00:00:11Z
barrier @13000
barrier @30000
`)
	checkEpochs(t, got, ``, `
+ 1 1970-01-01T00:00:11Z
+ 2 1970-01-01T00:00:12Z
`, `
- 1 1970-01-01T00:00:11Z
+ 4 1970-01-01T00:00:14Z
`, ``)
	if r := stateRows(t, e, 100); r != 0 {
		t.Fatalf("%d state rows left, want 0", r)
	}
}

// TestDynamicFilterRestart checks that the state is checkpointed: a
// restarted filter (fresh actor context over the same storage) that
// resumes at a later time retracts exactly the committed rows that time
// puts out, right after its first barrier.
func TestDynamicFilterRestart(t *testing.T) {
	e := newOpEnv(t)
	n := dfNode(">", -2000)
	got := runDF(t, e, n, `
barrier @10000
+ 1 1970-01-01T00:00:09Z
+ 2 1970-01-01T00:00:20Z
+ 3 1970-01-01T00:00:12Z
barrier @10500
`)
	checkEpochs(t, got, ``, `
+ 1 1970-01-01T00:00:09Z
+ 2 1970-01-01T00:00:20Z
+ 3 1970-01-01T00:00:12Z
`)
	e.reset()
	got = runDF(t, e, n, `
barrier @15000
- 2 1970-01-01T00:00:20Z
barrier @16000
barrier @30000
`)
	checkEpochs(t, got, ``, `
- 1 1970-01-01T00:00:09Z
- 3 1970-01-01T00:00:12Z
- 2 1970-01-01T00:00:20Z
`, ``)
	if r := stateRows(t, e, 100); r != 0 {
		t.Fatalf("%d state rows left, want 0", r)
	}
}

// TestDynamicFilterLargeExpiry checks that a barrier moving more rows
// than fit in a chunk emits them all, in chunks, before the barrier.
func TestDynamicFilterLargeExpiry(t *testing.T) {
	e := newOpEnv(t)
	n := dfNode(">", -1000)
	c := types.NewChunk(dfInTs, 3000)
	for i := range 3000 {
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(i)), types.DInt(int64(10_000_000 + i))})
	}
	msgs := append(e.script(t, "barrier @10000", dfInTs), c)
	msgs = append(msgs, e.script(t, "barrier @10500\nbarrier @20000", dfInTs)...)
	// e.script numbers the first barrier of each call Initial; only the
	// first barrier of the run may be.
	for i, m := range msgs {
		if b, ok := m.(types.Barrier); ok && i > 0 {
			b.Kind = types.BarrierCheckpoint
			msgs[i] = b
		}
	}
	op, err := NewDynamicFilter(e.actx, &scriptInput{msgs: msgs}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	got := e.drain(t, op)
	if len(got) != 3 {
		t.Fatalf("got %d epochs, want 3", len(got))
	}
	for i, want := range []int{0, 3000, 3000} {
		if n := countLines(got[i]); n != want {
			t.Errorf("epoch %d: %d rows, want %d", i+1, n, want)
		}
	}
	if r := stateRows(t, e, 100); r != 0 {
		t.Fatalf("%d state rows left, want 0", r)
	}
}

func countLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			n++
		}
	}
	return n
}
