package executor

import (
	"testing"

	"github.com/weirdb/weir/planner"
)

func TestJoinKinds(t *testing.T) {
	l := vals(t, "+ 1 a\n+ 2 b\n+ . c\n+ 4 d\n+ 1 e", tI4, tTxt)
	r := vals(t, "+ 1 x t\n+ 1 y f\n+ 3 z t\n+ . w t", tI4, tTxt, tB)
	join := func(k planner.JoinKind, cond planner.Expr) *planner.Join {
		out := schema(tI4, tTxt, tI4, tTxt, tB)
		if k == planner.SemiJoin || k == planner.AntiJoin {
			out = schema(tI4, tTxt)
		}
		return &planner.Join{Kind: k, Left: l, Right: r,
			LeftKeys: []planner.Expr{col(0, tI4)}, RightKeys: []planner.Expr{col(0, tI4)}, Cond: cond, Out: out}
	}
	expect(t, join(planner.InnerJoin, nil), newEC(), `
+ 1 a 1 x t
+ 1 a 1 y f
+ 1 e 1 x t
+ 1 e 1 y f`, true)
	// The residual condition is over left columns then right columns.
	expect(t, join(planner.InnerJoin, col(4, tB)), newEC(), "+ 1 a 1 x t\n+ 1 e 1 x t", true)
	expect(t, join(planner.LeftJoin, col(4, tB)), newEC(), `
+ 1 a 1 x t
+ 1 e 1 x t
+ 2 b . . .
+ . c . . .
+ 4 d . . .`, true)
	expect(t, join(planner.RightJoin, col(4, tB)), newEC(), `
+ 1 a 1 x t
+ 1 e 1 x t
+ . . 1 y f
+ . . 3 z t
+ . . . w t`, true)
	expect(t, join(planner.FullJoin, nil), newEC(), `
+ 1 a 1 x t
+ 1 a 1 y f
+ 1 e 1 x t
+ 1 e 1 y f
+ 2 b . . .
+ . c . . .
+ 4 d . . .
+ . . 3 z t
+ . . . w t`, true)
	expect(t, join(planner.SemiJoin, nil), newEC(), "+ 1 a\n+ 1 e", true)
	expect(t, join(planner.AntiJoin, nil), newEC(), "+ 2 b\n+ . c\n+ 4 d", true)
	expect(t, join(planner.AntiJoin, col(4, tB)), newEC(), "+ 2 b\n+ . c\n+ 4 d", true)
}

func TestNestedLoopJoin(t *testing.T) {
	l := vals(t, "+ 1\n+ 2", tI4)
	r := vals(t, "+ a t\n+ b f", tTxt, tB)
	cross := &planner.Join{Kind: planner.InnerJoin, Left: l, Right: r, Out: schema(tI4, tTxt, tB)}
	expect(t, cross, newEC(), "+ 1 a t\n+ 1 b f\n+ 2 a t\n+ 2 b f", true)
	left := &planner.Join{Kind: planner.LeftJoin, Left: l, Right: vals(t, "+ a f", tTxt, tB), Cond: col(2, tB), Out: schema(tI4, tTxt, tB)}
	expect(t, left, newEC(), "+ 1 . .\n+ 2 . .", true)
	semi := &planner.Join{Kind: planner.SemiJoin, Left: l, Right: r, Cond: col(2, tB), Out: schema(tI4)}
	expect(t, semi, newEC(), "+ 1\n+ 2", true)
}

func TestJoinOutputLargerThanAChunk(t *testing.T) {
	gs := func(n int64) *planner.TableFunc {
		return &planner.TableFunc{Fn: "generate_series", Args: []planner.Expr{i8(1), i8(n)}, Out: schema(tI8)}
	}
	cross := &planner.Join{Kind: planner.InnerJoin, Left: gs(300), Right: gs(100), Out: schema(tI8, tI8)}
	p := &planner.Agg{Input: cross, Aggs: []planner.AggCall{{Fn: "count", T: tI8}, {Fn: "sum", Args: []planner.Expr{col(1, tI8)}, T: tN}}, Out: schema(tI8, tN)}
	expect(t, p, newEC(), "+ 30000 1515000", false)
	eq := &planner.Join{Kind: planner.FullJoin, Left: gs(3000), Right: gs(2000),
		LeftKeys: []planner.Expr{col(0, tI8)}, RightKeys: []planner.Expr{col(0, tI8)}, Out: schema(tI8, tI8)}
	q := &planner.Agg{Input: eq, Aggs: []planner.AggCall{{Fn: "count", T: tI8}, {Fn: "count", Args: []planner.Expr{col(1, tI8)}, T: tI8}}, Out: schema(tI8, tI8)}
	expect(t, q, newEC(), "+ 3000 2000", false)
}
