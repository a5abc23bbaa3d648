package executor

import (
	"context"
	"testing"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// chunkSource replays prebuilt chunks, so benchmarks measure the operator
// above it only.
type chunkSource struct {
	chunks []*types.Chunk
	pos    int
}

func (s *chunkSource) Next(context.Context) (*types.Chunk, error) {
	if s.pos >= len(s.chunks) {
		return nil, nil
	}
	s.pos++
	return s.chunks[s.pos-1], nil
}

func (s *chunkSource) Close() {}

// benchChunks returns n rows of (i % groups, i) as int8 columns.
func benchChunks(n, groups int) []*types.Chunk {
	var out []*types.Chunk
	for i := 0; i < n; i += types.ChunkCap {
		c := types.NewChunk([]types.T{tI8, tI8}, types.ChunkCap)
		for j := i; j < min(i+types.ChunkCap, n); j++ {
			c.Cols[0].Append(types.DInt(int64(j % groups)))
			c.Cols[1].Append(types.DInt(int64(j)))
		}
		c.SetLen(min(types.ChunkCap, n-i))
		out = append(out, c)
	}
	return out
}

// BenchmarkHashAgg groups 1M rows into 10k groups computing count, sum,
// min and max.
func BenchmarkHashAgg(b *testing.B) {
	const rows = 1_000_000
	chunks := benchChunks(rows, 10_000)
	v := col(1, tI8)
	p := &planner.Agg{
		Input:   vals(b, "", tI8, tI8),
		GroupBy: []planner.Expr{col(0, tI8)},
		Aggs: []planner.AggCall{
			{Fn: "count", T: tI8},
			{Fn: "sum", Args: []planner.Expr{v}, T: tN},
			{Fn: "min", Args: []planner.Expr{v}, T: tI8},
			{Fn: "max", Args: []planner.Expr{v}, T: tI8},
		},
		Out: schema(tI8, tI8, tN, tI8, tI8),
	}
	ec := newEC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op, err := NewHashAgg(&chunkSource{chunks: chunks}, p, ec)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			c, err := op.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if c == nil {
				break
			}
			n += c.Len()
		}
		if n != 10_000 {
			b.Fatalf("%d groups", n)
		}
		op.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkHashJoin joins 1M probe rows with a 10k-row build side on an
// int8 key (every probe row matches once).
func BenchmarkHashJoin(b *testing.B) {
	const rows = 1_000_000
	probe := benchChunks(rows, 10_000)
	build := benchChunks(10_000, 10_000)
	p := &planner.Join{
		Kind: planner.InnerJoin, Left: vals(b, "", tI8, tI8), Right: vals(b, "", tI8, tI8),
		LeftKeys: []planner.Expr{col(0, tI8)}, RightKeys: []planner.Expr{col(0, tI8)},
		Out: schema(tI8, tI8, tI8, tI8),
	}
	ec := newEC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op, err := NewHashJoin(&chunkSource{chunks: probe}, &chunkSource{chunks: build}, p, ec)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			c, err := op.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if c == nil {
				break
			}
			n += c.Len()
		}
		if n != rows {
			b.Fatalf("%d rows", n)
		}
		op.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWindow computes a row number, a running sum, a sum over a
// moving ROWS frame and lag over 200,000 rows: in 50,000 partitions of
// four rows, in one partition in memory, and in one partition spilled
// at a 64 kB work_mem.
func BenchmarkWindow(b *testing.B) {
	const rows = 200_000
	chunks := benchChunks(rows, 50_000)
	v := col(1, tI8)
	calls := func(part []planner.Expr) []planner.WindowCall {
		ord := []planner.SortKey{{Expr: v}}
		return []planner.WindowCall{
			{Fn: "row_number", PartitionBy: part, OrderBy: ord, T: tI8},
			{Fn: "sum", Args: []planner.Expr{v}, PartitionBy: part, OrderBy: ord, T: tN},
			{Fn: "sum", Args: []planner.Expr{v}, PartitionBy: part, OrderBy: ord, T: tN, Frame: &planner.Frame{Mode: "rows",
				Start: planner.FrameBound{Kind: "preceding", Offset: i8(5)}, End: planner.FrameBound{Kind: "following", Offset: i8(5)}}},
			{Fn: "lag", Args: []planner.Expr{v}, PartitionBy: part, OrderBy: ord, T: tI8},
		}
	}
	out := schema(tI8, tI8, tI8, tN, tN, tI8)
	for _, c := range []struct {
		name    string
		part    []planner.Expr
		workMem int64
	}{{"partitions", []planner.Expr{col(0, tI8)}, 0}, {"one", nil, 0}, {"one-spilled", nil, 64 << 10}} {
		b.Run(c.name, func(b *testing.B) {
			p := &planner.Window{Input: vals(b, "", tI8, tI8), Calls: calls(c.part), Out: out}
			for i := 0; i < b.N; i++ {
				ec := newEC()
				if c.workMem > 0 {
					ec.WorkMem, ec.Temp = c.workMem, newTemp(b)
				}
				op := NewWindow(&chunkSource{chunks: chunks}, p, ec)
				n := 0
				for {
					ch, err := op.Next(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if ch == nil {
						break
					}
					n += ch.Len()
				}
				if n != rows {
					b.Fatalf("%d rows", n)
				}
				op.Close()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
