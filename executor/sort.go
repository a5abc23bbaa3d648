package executor

import (
	"context"

	"github.com/weirdb/weir/internal/pgsort"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Sort reads its whole input into memory, orders it stably by the sort
// keys (types.Compare per key, DESC inverting it, NULLs placed by
// NullsFirst), and emits the rows in chunks of up to ChunkCap rows.
type Sort struct {
	endState
	in   Operator
	keys []planner.SortKey
	evs  []Evaluator
	ec   *ExecCtx
	ts   []types.T
	buf  *rowBuffer
}

var _ Operator = (*Sort)(nil)

// NewSort returns a Sort of in by keys.
func NewSort(in Operator, keys []planner.SortKey, schema types.Schema, ec *ExecCtx) (*Sort, error) {
	evs := make([]Evaluator, len(keys))
	for i, k := range keys {
		ev, err := Compile(k.Expr)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	return &Sort{in: in, keys: keys, evs: evs, ec: ec, ts: schema.Types()}, nil
}

// sortedRow is an input row with its evaluated sort keys.
type sortedRow struct {
	row types.Row
	key types.Row
}

// compareKeys orders two key rows by keys.
func compareKeys(a, b types.Row, keys []planner.SortKey) int {
	for i, k := range keys {
		c := cmpNulls(a[i], b[i], k.Expr.Type(), k.NullsFirst != k.Desc)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Next implements Operator.
func (s *Sort) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	if s.buf == nil {
		rows, err := s.load(ctx)
		if err != nil {
			return s.finish(nil, err)
		}
		s.buf = &rowBuffer{ts: s.ts, rows: rows, ec: s.ec}
	}
	return s.finish(s.buf.next(), nil)
}

func (s *Sort) load(ctx context.Context) ([]types.Row, error) {
	var rows []sortedRow
	for {
		c, err := nextVisible(ctx, s.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			break
		}
		kv, err := evalAll(s.ec, s.evs, c)
		if err != nil {
			return nil, err
		}
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			key := make(types.Row, len(kv))
			for j, v := range kv {
				key[j] = copyDatum(v.Get(i))
			}
			rows = append(rows, sortedRow{row: detachRow(c, i), key: key})
		}
	}
	s.in.Close()
	// Postgres's own quicksort, so rows with equal keys come out in the
	// order Postgres gives them.
	pgsort.Sort(len(rows), func(a, b int) int { return compareKeys(rows[a].key, rows[b].key, s.keys) },
		func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
	out := make([]types.Row, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out, nil
}

// Close implements Operator.
func (s *Sort) Close() {
	s.done = true
	s.buf = nil
	s.in.Close()
}
