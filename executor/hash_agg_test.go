package executor

import (
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

func TestHashAggGroups(t *testing.T) {
	in := vals(t, `
+ 1 10 t a
+ 2 5  t b
+ 1 .  f c
+ . 7  t d
+ . 3  t e
+ 1 10 t f`, tI4, tI4, tB, tTxt)
	p := &planner.Agg{
		Input:   in,
		GroupBy: []planner.Expr{col(0, tI4)},
		Aggs: []planner.AggCall{
			{Fn: "count", T: tI8},
			{Fn: "count", Args: []planner.Expr{col(1, tI4)}, T: tI8},
			{Fn: "sum", Args: []planner.Expr{col(1, tI4)}, T: tI8},
			{Fn: "sum", Args: []planner.Expr{col(1, tI4)}, Distinct: true, T: tI8},
			{Fn: "min", Args: []planner.Expr{col(1, tI4)}, T: tI4},
			{Fn: "count", Args: []planner.Expr{col(1, tI4)}, Filter: col(2, tB), T: tI8},
			{Fn: "string_agg", Args: []planner.Expr{col(3, tTxt), cnst(types.DString(","), tTxt)},
				OrderBy: []planner.SortKey{{Expr: col(3, tTxt), Desc: true}}, T: tTxt},
		},
		Out: schema(tI4, tI8, tI8, tI8, tI8, tI4, tI8, tTxt),
	}
	// NULL keys form one group; groups come out in first-appearance order.
	expect(t, p, newEC(), `
+ 1 3 2 20 10 10 2 f,c,a
+ 2 1 1 5  5  5  1 b
+ . 2 2 10 10 3  2 e,d`, false)
}

func TestHashAggWithoutGroupByOverEmptyInput(t *testing.T) {
	in := &planner.Filter{Input: vals(t, "+ 1 f", tI4, tB), Cond: col(1, tB)}
	p := &planner.Agg{
		Input: in,
		Aggs: []planner.AggCall{
			{Fn: "count", T: tI8},
			{Fn: "sum", Args: []planner.Expr{col(0, tI4)}, T: tI8},
			{Fn: "max", Args: []planner.Expr{col(0, tI4)}, T: tI4},
		},
		Out: schema(tI8, tI8, tI4),
	}
	expect(t, p, newEC(), "+ 0 . .", false)
	grouped := &planner.Agg{Input: in, GroupBy: []planner.Expr{col(0, tI4)}, Out: schema(tI4)}
	expect(t, grouped, newEC(), "", false)
}

func TestHashAggManyGroupsAcrossChunks(t *testing.T) {
	gs := &planner.TableFunc{Fn: "generate_series", Args: []planner.Expr{i8(1), i8(5000)}, Out: schema(tI8)}
	p := &planner.Agg{
		Input: &planner.Agg{Input: gs, GroupBy: []planner.Expr{col(0, tI8)}, Aggs: []planner.AggCall{{Fn: "count", T: tI8}}, Out: schema(tI8, tI8)},
		Aggs: []planner.AggCall{
			{Fn: "count", T: tI8},
			{Fn: "sum", Args: []planner.Expr{col(0, tI8)}, T: tN},
			{Fn: "max", Args: []planner.Expr{col(1, tI8)}, T: tI8},
		},
		Out: schema(tI8, tN, tI8),
	}
	expect(t, p, newEC(), "+ 5000 12502500 1", false)
}
