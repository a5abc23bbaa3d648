package executor

import (
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

func int8Chunk(n int) *types.Chunk {
	c := types.NewChunk([]types.T{types.TInt8, types.TInt8}, n)
	for i := 0; i < n; i++ {
		c.AppendRow(types.OpInsert, types.Row{types.DInt(int64(i)), types.DInt(int64(i % 7))})
	}
	return c
}

// TestLazyAndSkipsRows checks that the right side of AND runs only on
// rows where the left side is not false: x <> 0 AND 10 / x > 1 must not
// divide by zero on the row where x = 0.
func TestLazyAndSkipsRows(t *testing.T) {
	in := int8Chunk(8)
	x := &planner.ColRef{Idx: 1, T: types.TInt8}
	zero := &planner.Const{V: types.DInt(0), T: types.TInt8}
	ten := &planner.Const{V: types.DInt(10), T: types.TInt8}
	one := &planner.Const{V: types.DInt(1), T: types.TInt8}
	e := &planner.And{Args: []planner.Expr{
		&planner.Call{Fn: "<>", Args: []planner.Expr{x, zero}, T: types.TBool},
		&planner.Call{Fn: ">", Args: []planner.Expr{&planner.Call{Fn: "/", Args: []planner.Expr{ten, x}, T: types.TInt8}, one}, T: types.TBool},
	}}
	ev, err := Compile(e)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ev.Eval(&EvalCtx{}, in)
	if err != nil {
		t.Fatalf("lazy AND evaluated a skipped row: %v", err)
	}
	// x = 0,1,...,6,0: 10/x > 1 holds for x in 1..5; rows with x = 0 are false.
	want := []bool{false, true, true, true, true, true, false, false}
	for i, w := range want {
		if v.Nulls[i] || v.B[i] != w {
			t.Errorf("row %d: got %v (null %v), want %v", i, v.B[i], v.Nulls[i], w)
		}
	}
}

// BenchmarkEvalAddInt64 measures int8 + int8 over 1,024-row chunks.
func BenchmarkEvalAddInt64(b *testing.B) {
	in := int8Chunk(types.ChunkCap)
	ev, err := Compile(&planner.Call{Fn: "+", Args: []planner.Expr{
		&planner.ColRef{Idx: 0, T: types.TInt8}, &planner.ColRef{Idx: 1, T: types.TInt8}}, T: types.TInt8})
	if err != nil {
		b.Fatal(err)
	}
	ctx := &EvalCtx{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ev.Eval(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*types.ChunkCap)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkEvalCompareInt64 measures int8 < int8 over 1,024-row chunks.
func BenchmarkEvalCompareInt64(b *testing.B) {
	in := int8Chunk(types.ChunkCap)
	ev, err := Compile(&planner.Call{Fn: "<", Args: []planner.Expr{
		&planner.ColRef{Idx: 0, T: types.TInt8}, &planner.ColRef{Idx: 1, T: types.TInt8}}, T: types.TBool})
	if err != nil {
		b.Fatal(err)
	}
	ctx := &EvalCtx{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ev.Eval(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*types.ChunkCap)/b.Elapsed().Seconds(), "rows/s")
}
