package executor

import (
	"bytes"
	"context"
	"slices"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// IndexScan reads the rows of a relation whose index key lies in the
// plan's range: it evaluates the range's values once, reads the index's
// key range from ExecCtx.Source and fetches each row of the relation by
// its primary key, emitting the columns plan.Cols in chunks of up to
// ChunkCap rows, or, for a covering plan, the columns from the index
// row itself. A NULL among the values matches no row. When the source
// is no IndexSource or cannot serve the index at its snapshot, it scans
// the whole relation instead, as Scan does (the Filter above it keeps
// the rows the range would have).
type IndexScan struct {
	endState
	plan *planner.IndexScan
	ec   *ExecCtx
	ts   []types.T
	// it iterates over the index range (src set) or, without an index,
	// over the relation.
	it       RowIter
	src      IndexSource
	relTypes []types.T
	idxTypes []types.T
	// pending holds the key ranges still to read after the current one.
	pending [][2][]byte
	keyBuf  []byte
}

var _ Operator = (*IndexScan)(nil)

// NewIndexScan returns an IndexScan of p.
func NewIndexScan(p *planner.IndexScan, ec *ExecCtx) *IndexScan {
	return &IndexScan{plan: p, ec: ec, ts: p.Out.Types()}
}

// Next implements Operator.
func (s *IndexScan) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	return s.finish(s.next(ctx))
}

func colTypes(cols []types.T, n int, at func(int) types.T) []types.T {
	for i := 0; i < n; i++ {
		cols = append(cols, at(i))
	}
	return cols
}

// eval evaluates a row-free expression of the plan.
func (s *IndexScan) eval(e planner.Expr) (types.Datum, error) {
	ev, err := Compile(e)
	if err != nil {
		return types.Datum{}, err
	}
	vec, err := ev.Eval(&s.ec.Eval, oneRowChunk())
	if err != nil {
		return types.Datum{}, err
	}
	return vec.Get(0), nil
}

// open computes the key ranges to read and starts the iterator: over
// the first range when the source serves the index, over the relation
// otherwise. It reports false when no range can hold a row (a NULL
// value).
func (s *IndexScan) open(ctx context.Context) (bool, error) {
	p := s.plan
	s.relTypes = colTypes(nil, len(p.Rel.Cols), func(i int) types.T { return p.Rel.Cols[i].T })
	src, ok := s.ec.Source.(IndexSource)
	if !ok || !src.IndexUsable(p.Index.ID) {
		it, err := s.ec.Source.ScanRelation(ctx, p.Rel.ID, s.relTypes)
		s.it = it
		return true, err
	}
	s.idxTypes = colTypes(nil, len(p.Index.Cols), func(i int) types.T { return p.Index.Cols[i].T })
	if p.Primary {
		s.idxTypes = s.relTypes
	}
	ranges, err := s.ranges()
	if err != nil || len(ranges) == 0 {
		return false, err
	}
	s.src, s.pending = src, ranges
	return s.nextRange(ctx)
}

// nextRange opens the iterator over the next pending range, reporting
// false when none is left.
func (s *IndexScan) nextRange(ctx context.Context) (bool, error) {
	if len(s.pending) == 0 {
		return false, nil
	}
	r := s.pending[0]
	s.pending = s.pending[1:]
	it, err := s.src.ScanRange(ctx, s.plan.Index.ID, r[0], r[1], s.idxTypes)
	if err != nil {
		return false, err
	}
	s.it = it
	return true, nil
}

// ranges returns the key ranges [lo, hi) of the plan, in key order and
// without overlap (an IN list's equal values are read once): none when
// a value is NULL, which no comparison matches.
func (s *IndexScan) ranges() ([][2][]byte, error) {
	p := s.plan
	idxTypes := s.idxTypes
	var prefix []byte
	for i, e := range p.Eq {
		d, err := s.eval(e)
		if err != nil || d.Null {
			return nil, err
		}
		prefix = types.AppendKey(prefix, d, idxTypes[i], false)
	}
	k := len(p.Eq)
	if p.In != nil {
		var keys [][]byte
		for _, e := range p.In {
			d, err := s.eval(e)
			if err != nil {
				return nil, err
			}
			if d.Null {
				continue
			}
			keys = append(keys, types.AppendKey(append([]byte(nil), prefix...), d, idxTypes[k], false))
		}
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)
		out := make([][2][]byte, len(keys))
		for i, key := range keys {
			out[i] = [2][]byte{key, keySuccessor(key)}
		}
		return out, nil
	}
	lo, hi := prefix, keySuccessor(prefix)
	if p.Lo != nil {
		d, err := s.eval(p.Lo.Value)
		if err != nil || d.Null {
			return nil, err
		}
		lo = types.AppendKey(append([]byte(nil), prefix...), d, idxTypes[k], false)
		if !p.Lo.Inclusive {
			lo = keySuccessor(lo)
			if lo == nil {
				return nil, nil
			}
		}
	} else if p.Hi != nil {
		// NULL sorts first and satisfies no comparison.
		lo = types.AppendKey(append([]byte(nil), prefix...), types.NullDatum, idxTypes[k], false)
		lo = keySuccessor(lo)
	}
	if p.Hi != nil {
		d, err := s.eval(p.Hi.Value)
		if err != nil || d.Null {
			return nil, err
		}
		hi = types.AppendKey(append([]byte(nil), prefix...), d, idxTypes[k], false)
		if p.Hi.Inclusive {
			hi = keySuccessor(hi)
		}
	}
	if len(lo) == 0 {
		lo = nil
	}
	return [][2][]byte{{lo, hi}}, nil
}

// keySuccessor returns the smallest key greater than every key starting
// with p, or nil when there is none (unbounded).
func keySuccessor(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

func (s *IndexScan) next(ctx context.Context) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.it == nil {
		ok, err := s.open(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			s.Close()
			return nil, nil
		}
	}
	p := s.plan
	n := s.ec.chunkRows()
	c := types.NewChunk(s.ts, n)
	out := make(types.Row, len(p.Cols))
	for c.Len() < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := s.it.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			s.it.Close()
			s.it = nil
			more := false
			if s.src != nil {
				if more, err = s.nextRange(ctx); err != nil {
					return nil, err
				}
			}
			if !more {
				s.Close()
				break
			}
			continue
		}
		if s.src != nil && p.Covering != nil {
			for j, i := range p.Covering {
				if i < 0 {
					out[j] = types.NullDatum
				} else {
					out[j] = r[i]
				}
			}
			c.AppendRow(types.OpInsert, out)
			continue
		}
		if s.src != nil && !p.Primary {
			s.keyBuf = s.keyBuf[:0]
			for i, pk := range p.Rel.PK {
				s.keyBuf = types.AppendKey(s.keyBuf, r[p.PKCols[i]], s.relTypes[pk], false)
			}
			row, found, err := s.src.Get(ctx, p.Rel.ID, s.keyBuf, s.relTypes)
			if err != nil {
				return nil, err
			}
			if !found {
				// Index and relation are read at one snapshot, where
				// they agree; a row missing here is skipped.
				continue
			}
			r = row
		}
		for j, col := range p.Cols {
			out[j] = r[col]
		}
		c.AppendRow(types.OpInsert, out)
	}
	if c.Len() == 0 {
		return nil, nil
	}
	return c, nil
}

// Close implements Operator.
func (s *IndexScan) Close() {
	if s.it != nil {
		s.it.Close()
		s.it = nil
	}
	s.done = true
}
