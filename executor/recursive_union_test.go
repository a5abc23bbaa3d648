package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// recursiveCounter is WITH RECURSIVE r AS (<nonRec> UNION [ALL] SELECT
// c0 + 1 FROM r WHERE c0 < limit) over int8 rows.
func recursiveCounter(nonRec planner.Plan, all bool, limit int64) *planner.RecursiveUnion {
	out := schema(types.TInt8)
	ws := &planner.WorkTableScan{Name: "r", WorkTable: 1, Out: out}
	var in planner.Plan = ws
	if limit > 0 {
		in = &planner.Filter{Input: ws, Cond: &planner.Call{Fn: "<", Args: []planner.Expr{col(0, types.TInt8), i8(limit)}, T: types.TBool}}
	}
	rec := &planner.Project{Input: in, Exprs: []planner.Expr{&planner.Call{Fn: "+", Args: []planner.Expr{col(0, types.TInt8), i8(1)}, T: types.TInt8}}, Out: out}
	return &planner.RecursiveUnion{Name: "r", NonRecursive: nonRec, Recursive: rec, All: all, WorkTable: 1, Out: out}
}

func TestRecursiveUnion(t *testing.T) {
	// Postgres semantics: with r(n) AS (VALUES (1), (3), (3)
	// UNION [ALL] SELECT n + 1 FROM r WHERE n < 4), UNION ALL yields
	// 1 3 3 2 4 4 3 4 and UNION 1 3 2 4 (duplicates dropped across rounds).
	nonRec := vals(t, "+ 1\n+ 3\n+ 3", types.TInt8)
	expect(t, recursiveCounter(nonRec, true, 4), newEC(), "+ 1\n+ 3\n+ 3\n+ 2\n+ 4\n+ 4\n+ 3\n+ 4", false)
	expect(t, recursiveCounter(nonRec, false, 4), newEC(), "+ 1\n+ 3\n+ 2\n+ 4", false)
	// An empty non-recursive term ends at once.
	expect(t, recursiveCounter(vals(t, "", types.TInt8), true, 4), newEC(), "", false)
}

func TestRecursiveUnionStopsOnCancel(t *testing.T) {
	// An unbounded recursion runs until the statement is cancelled.
	p := recursiveCounter(vals(t, "+ 1", types.TInt8), true, 0)
	ec := newEC()
	op, err := Build(p, ec)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for {
		c, err := op.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			break
		}
		if c == nil {
			t.Fatal("unbounded recursion ended")
		}
		if n += c.VisibleCount(); n >= 1000 {
			cancel()
		}
	}
	if n != 1000 {
		t.Fatalf("got %d rows before the cancellation, want 1000", n)
	}
}

// TestRecursiveUnionSpillsLikeMemory runs a UNION recursion whose rows
// seen pass a 64 kB work_mem: its output is the one it gives with them
// in memory, row for row, and its tapes are gone once it is closed.
func TestRecursiveUnionSpillsLikeMemory(t *testing.T) {
	rows := spillRows(20000)
	// Repeats within the non-recursive term, then every row again from
	// the recursive term: both are looked up among the runs.
	rows = append(rows, rows[:5000]...)
	out := schema(tI8, tTxt, tF8, tN, types.T{ID: types.Unknown})
	plan := func(ec *ExecCtx) *planner.RecursiveUnion {
		return &planner.RecursiveUnion{Name: "r", NonRecursive: spillScan(rows, ec),
			Recursive: &planner.WorkTableScan{Name: "r", WorkTable: 1, Out: out}, WorkTable: 1, Out: out}
	}
	memEC := newEC()
	want := sortText(t, plan(memEC), memEC)
	if len(want) != 20000 {
		t.Fatalf("%d rows in memory, want 20000", len(want))
	}
	temp := newTemp(t)
	ec := newEC()
	ec.WorkMem, ec.Temp = 64<<10, temp
	got := sortText(t, plan(ec), ec)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
	// Some 40 runs of 64 kB, merged 8 at a time.
	if temp.tapes <= 40 {
		t.Errorf("%d tapes made, want more than 40 (runs and merges)", temp.tapes)
	}
	if left := temp.left(t); len(left) != 0 {
		t.Errorf("tapes left after the recursion: %v", left)
	}

	// A counter of many rounds, each row new but for the one its
	// predecessor made: 1..3000 and n + 1 below 3000.
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "+ %d\n", i)
	}
	nonRec := vals(t, b.String(), types.TInt8)
	want = sortText(t, recursiveCounter(nonRec, false, 3000), newEC())
	temp = newTemp(t)
	ec = newEC()
	ec.WorkMem, ec.Temp = 8<<10, temp
	got = sortText(t, recursiveCounter(nonRec, false, 3000), ec)
	if len(got) != 3000 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("counter: %d rows, want the %d of memory", len(got), len(want))
	}
	if temp.tapes == 0 {
		t.Error("the counter's rows seen made no tape")
	}
	if left := temp.left(t); len(left) != 0 {
		t.Errorf("tapes left after the counter: %v", left)
	}
}
