package stream

import (
	"strconv"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// The HashAgg tests read rows (g int8, v int4, s text, b bool).
var aggInTs = []types.T{types.TInt8, types.TInt4, types.TText, types.TBool}

func aggInput(appendOnly bool) planner.StreamNode {
	return inputNode(appendOnly, col("g", types.TInt8), col("v", types.TInt4), col("s", types.TText), col("b", types.TBool))
}

// aggNode returns a StreamHashAgg grouping by groupBy over aggInput,
// giving every call that needs one an Extra state table.
func aggNode(groupBy []int, calls ...planner.AggCall) *planner.StreamHashAgg {
	n := &planner.StreamHashAgg{Input: aggInput(false), GroupBy: groupBy, Aggs: calls, Result: planner.StateTableDesc{ID: 100}}
	in := n.Input.Base().Out
	for _, g := range groupBy {
		n.Out = append(n.Out, in[g])
	}
	for i, c := range calls {
		n.Out = append(n.Out, col(c.Fn, c.T))
		if c.Fn == "min" || c.Fn == "max" || c.Fn == "string_agg" || c.Distinct {
			n.Extra = append(n.Extra, planner.StateTableDesc{ID: uint32(101 + i)})
			n.ExtraFor = append(n.ExtraFor, i)
		}
	}
	return n
}

var (
	aggV = colRef(1, types.TInt4)
	aggS = colRef(2, types.TText)
	aggB = colRef(3, types.TBool)

	countStar = planner.AggCall{Fn: "count", T: types.TInt8}
	countV    = planner.AggCall{Fn: "count", Args: []planner.Expr{aggV}, T: types.TInt8}
	sumV      = planner.AggCall{Fn: "sum", Args: []planner.Expr{aggV}, T: types.TInt8}
	minV      = planner.AggCall{Fn: "min", Args: []planner.Expr{aggV}, T: types.TInt4}
	maxV      = planner.AggCall{Fn: "max", Args: []planner.Expr{aggV}, T: types.TInt4}
	avgV      = planner.AggCall{Fn: "avg", Args: []planner.Expr{aggV}, T: types.TNumeric}
	countDV   = planner.AggCall{Fn: "count", Args: []planner.Expr{aggV}, Distinct: true, T: types.TInt8}
	sumDV     = planner.AggCall{Fn: "sum", Args: []planner.Expr{aggV}, Distinct: true, T: types.TInt8}
	boolAnd   = planner.AggCall{Fn: "bool_and", Args: []planner.Expr{aggB}, T: types.TBool}
	boolOr    = planner.AggCall{Fn: "bool_or", Args: []planner.Expr{aggB}, T: types.TBool}
	strAggS   = planner.AggCall{Fn: "string_agg", Args: []planner.Expr{aggS, &planner.Const{V: types.DString(","), T: types.TText}},
		OrderBy: []planner.SortKey{{Expr: aggV}}, T: types.TText}
)

// runAgg runs n over the script and returns the output per epoch.
func runAgg(t *testing.T, e *opEnv, n *planner.StreamHashAgg, script string) []string {
	t.Helper()
	op, err := NewHashAgg(e.actx, &scriptInput{msgs: e.script(t, script, aggInTs)}, n)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	return e.drain(t, op)
}

func TestHashAggBasic(t *testing.T) {
	e := newOpEnv(t)
	n := aggNode([]int{0}, countStar, countV, sumV, minV, maxV)
	got := runAgg(t, e, n, `
barrier
+ 1 10 a t
+ 1 20 a t
+ 2 5 a t
+ 2 . a t
barrier
- 1 10 a t
U- 2 5 a t
U+ 1 7 a t
barrier
- 1 20 a t
- 1 7 a t
- 2 . a t
barrier
`)
	checkEpochs(t, got, ``, `
+ 1 2 2 30 10 20
+ 2 2 1 5 5 5
`, `
U- 1 2 2 30 10 20
U+ 1 2 2 27 7 20
U- 2 2 1 5 5 5
U+ 2 1 0 . . .
`, `
- 1 2 2 27 7 20
- 2 1 0 . . .
`)
}

func TestHashAggFolding(t *testing.T) {
	e := newOpEnv(t)
	n := aggNode([]int{0}, countStar, sumV)
	script := "barrier\n+ 1 1 a t\nbarrier\n"
	// 1,000 updates of one row in an epoch leave as one U-/U+ pair.
	for i := 1; i <= 1000; i++ {
		script += "U- 1 " + itoaTest(i) + " a t\nU+ 1 " + itoaTest(i+1) + " a t\n"
	}
	// An insert then a delete of a new group leaves nothing; an update
	// back to the same result leaves nothing.
	script += "+ 7 1 a t\n- 7 1 a t\nbarrier\nU- 1 1001 a t\nU+ 1 1001 b t\nbarrier\n"
	got := runAgg(t, e, n, script)
	checkEpochs(t, got, ``, `+ 1 1 1`, `
U- 1 1 1
U+ 1 1 1001
`, ``)
}

func TestHashAggMinMaxRetract(t *testing.T) {
	e := newOpEnv(t)
	n := aggNode([]int{0}, minV, maxV)
	got := runAgg(t, e, n, `
barrier
+ 1 3 a t
+ 1 1 a t
+ 1 1 a t
+ 1 9 a t
+ 1 5 a t
barrier
- 1 1 a t
- 1 9 a t
barrier
- 1 1 a t
barrier
- 1 5 a t
+ 1 4 a t
barrier
- 1 3 a t
+ 1 8 a t
- 1 8 a t
barrier
`)
	checkEpochs(t, got, ``, `+ 1 1 9`, `
U- 1 1 9
U+ 1 1 5
`, `
U- 1 1 5
U+ 1 3 5
`, `
U- 1 3 5
U+ 1 3 4
`, `
U- 1 3 4
U+ 1 4 4
`)
}

func TestHashAggDistinct(t *testing.T) {
	e := newOpEnv(t)
	n := aggNode([]int{0}, countV, countDV, sumDV)
	got := runAgg(t, e, n, `
barrier
+ 1 3 a t
+ 1 3 a t
+ 1 4 a t
+ 1 . a t
barrier
- 1 3 a t
barrier
- 1 3 a t
barrier
`)
	checkEpochs(t, got, ``, `+ 1 3 2 7`, `
U- 1 3 2 7
U+ 1 2 2 7
`, `
U- 1 2 2 7
U+ 1 1 1 4
`)
}

func TestHashAggGlobal(t *testing.T) {
	e := newOpEnv(t)
	n := aggNode(nil, countStar, sumV, maxV)
	got := runAgg(t, e, n, `
barrier
barrier
+ 1 3 a t
+ 2 4 a t
barrier
- 1 3 a t
- 2 4 a t
barrier
barrier
`)
	checkEpochs(t, got, ``, `+ 0 . .`, `
U- 0 . .
U+ 2 7 4
`, `
U- 2 7 4
U+ 0 . .
`, ``)
}

func TestHashAggStringAggBoolFilterAvg(t *testing.T) {
	e := newOpEnv(t)
	filtered := countStar
	filtered.Filter = &planner.Not{Arg: aggB}
	n := aggNode([]int{0}, strAggS, boolAnd, boolOr, filtered, avgV)
	got := runAgg(t, e, n, `
barrier
+ 1 3 c t
+ 1 1 a t
+ 1 2 b f
+ 1 2 b2 .
barrier
- 1 2 b f
+ 1 0 z t
barrier
- 1 1 a t
- 1 2 b2 .
- 1 0 z t
barrier
`)
	checkEpochs(t, got, ``, `+ 1 a,b,b2,c f t 1 2.0000000000000000`, `
U- 1 a,b,b2,c f t 1 2.0000000000000000
U+ 1 z,a,b2,c t t 0 1.5000000000000000
`, `
U- 1 z,a,b2,c t t 0 1.5000000000000000
U+ 1 c t t 0 3.0000000000000000
`)
}

func itoaTest(i int) string {
	return strconv.Itoa(i)
}

// TestHashAggRestart commits state at a barrier, rebuilds the operator
// from storage and continues: the output equals an uninterrupted run's.
func TestHashAggRestart(t *testing.T) {
	n := aggNode([]int{0}, countStar, sumV, minV, maxV, countDV, strAggS)
	part1 := `
barrier
+ 1 10 a t
+ 1 20 b t
+ 2 5 c t
+ 2 5 d t
barrier
`
	part2 := `
- 1 10 a t
- 2 5 c t
+ 3 1 e t
barrier
- 1 20 b t
- 2 5 d t
barrier
`
	whole := runAgg(t, newOpEnv(t), n, part1+part2)

	e := newOpEnv(t)
	first := runAgg(t, e, n, part1)
	e.reset()
	second := runAgg(t, e, n, "barrier\n"+part2)
	if second[0] != "" {
		t.Fatalf("recovery barrier emitted %q", second[0])
	}
	checkEpochs(t, append(first, second[1:]...), whole...)
	checkEpochs(t, whole, ``, `
+ 1 2 30 10 20 2 a,b
+ 2 2 10 5 5 1 c,d
`, `
U- 1 2 30 10 20 2 a,b
U+ 1 1 20 20 20 1 b
U- 2 2 10 5 5 1 c,d
U+ 2 1 5 5 5 1 d
+ 3 1 1 1 1 1 e
`, `
- 1 1 20 20 20 1 b
- 2 1 5 5 5 1 d
`)
}
