package executor

import (
	"context"
	"errors"
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
