package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// SetOp computes UNION, INTERSECT and EXCEPT with Postgres's semantics,
// NULLs equal (Postgres docs §7.4):
//
//   - UNION ALL: every left row, then every right row (streamed).
//   - UNION: each distinct row of either input once.
//   - INTERSECT [ALL]: a row appearing l times left and r times right
//     appears once if l, r > 0 (ALL: min(l, r) times).
//   - EXCEPT [ALL]: once if l > 0 and r = 0 (ALL: max(l - r, 0) times).
//
// The non-streaming forms count rows in a hash table and emit rows in the
// order of their first appearance. Output vectors have the Out types.
//
// Beyond ExecCtx.WorkMem the hash tables spill by partition, as HashAgg
// does: UNION passes rows of keys not in its full table on to tapes by
// their hash and deduplicates each tape afterwards; INTERSECT and EXCEPT
// send the left rows of new keys, and then the right rows not in the
// table, to a pair of tapes per partition and count each pair
// afterwards. Spilling changes the order of the output, not its rows.
type SetOp struct {
	endState
	plan        *planner.SetOp
	left, right Operator
	ec          *ExecCtx
	ts          []types.T
	leftDone    bool
	seen        *rowTable // UNION
	buf         *rowBuffer
	hashSpill   // UNION
	// INTERSECT and EXCEPT: the partitions still to count, the last
	// first, and the one being counted.
	started bool
	pairs   []setOpPart
	cur     *setOpPart
}

// setOpPart is a spilled partition of an INTERSECT or EXCEPT: its left
// and right rows.
type setOpPart struct {
	left, right *partReader
	level       int
}

func (p *setOpPart) discard() {
	for _, r := range []*partReader{p.left, p.right} {
		if r.tape != nil {
			_ = r.tape.Discard()
		}
	}
}

var _ Operator = (*SetOp)(nil)

// NewSetOp returns a SetOp of left and right for p.
func NewSetOp(left, right Operator, p *planner.SetOp, ec *ExecCtx) *SetOp {
	ts := p.Out.Types()
	s := &SetOp{plan: p, left: left, right: right, ts: ts, ec: ec}
	if p.Kind == planner.Union && !p.All {
		s.seen = newRowTable(ts)
	}
	return s
}

// Next implements Operator.
func (s *SetOp) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	c, err := s.next(ctx)
	if err != nil || c == nil {
		s.release()
	}
	return s.finish(c, err)
}

func (s *SetOp) next(ctx context.Context) (*types.Chunk, error) {
	if s.plan.Kind != planner.Union {
		return s.nextCounted(ctx)
	}
	for {
		c, err := s.readUnion(ctx)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if s.seen == nil || !s.nextPart(s.ts) {
				return nil, nil
			}
			s.seen = newRowTable(s.ts)
			continue
		}
		out := types.NewChunk(s.ts, c.Len())
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r := c.Row(i)
			if s.seen != nil {
				h := hashRow(r, s.ts)
				if s.seen.find(h, r) >= 0 {
					continue
				}
				if s.full {
					if err := s.spillRow(s.ec, s.ts, h, c, i); err != nil {
						return nil, err
					}
					continue
				}
				cp := make(types.Row, len(r))
				for j, d := range r {
					cp[j] = copyDatum(d)
				}
				s.seen.insert(h, cp)
				s.bytes += types.RowMemSize(cp) + hashTableEntry
				s.full = s.ec.spillable(s.bytes)
			}
			out.AppendRow(types.OpInsert, r)
		}
		if out.Len() > 0 {
			return out, nil
		}
	}
}

// readUnion returns the next chunk of UNION's input: the left rows, the
// right rows, then the spilled partitions'.
func (s *SetOp) readUnion(ctx context.Context) (*types.Chunk, error) {
	if s.reading == nil && !s.leftDone {
		c, err := nextVisible(ctx, s.left)
		if err != nil || c != nil {
			return c, err
		}
		s.leftDone = true
		s.left.Close()
	}
	return s.read(ctx, s.right)
}

// nextCounted returns INTERSECT's or EXCEPT's next chunk: the inputs'
// counted rows, then each spilled partition's.
func (s *SetOp) nextCounted(ctx context.Context) (*types.Chunk, error) {
	for {
		if s.buf != nil {
			if c := s.buf.next(); c != nil {
				return c, nil
			}
			s.buf = nil
		}
		var rows []types.Row
		var err error
		switch {
		case !s.started:
			s.started = true
			rows, err = s.counted(ctx, 0,
				func(ctx context.Context) (*types.Chunk, error) { return nextVisible(ctx, s.left) },
				func(ctx context.Context) (*types.Chunk, error) { return nextVisible(ctx, s.right) })
			s.left.Close()
			s.right.Close()
		case len(s.pairs) > 0:
			p := s.pairs[len(s.pairs)-1]
			s.pairs = s.pairs[:len(s.pairs)-1]
			s.cur = &p
			rows, err = s.counted(ctx, p.level, p.left.chunk, p.right.chunk)
			s.cur.discard()
			s.cur = nil
		default:
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		s.buf = &rowBuffer{ts: s.ts, rows: rows}
	}
}

// counted runs INTERSECT and EXCEPT over the rows readL and readR return:
// it counts each distinct row's occurrences on both sides, then derives
// the output multiplicities. Rows of keys that did not fit go to the
// partitions of level+1, pushed on s.pairs.
func (s *SetOp) counted(ctx context.Context, level int, readL, readR func(context.Context) (*types.Chunk, error)) ([]types.Row, error) {
	t := newRowTable(s.ts)
	var nl, nr []int64
	var bytes int64
	var lsp, rsp *partitionSet
	defer func() {
		// On an error; after the partitions were taken this is a no-op.
		lsp.discard()
		rsp.discard()
	}()
	for side, read := range []func(context.Context) (*types.Chunk, error){readL, readR} {
		for {
			c, err := read(ctx)
			if err != nil {
				return nil, err
			}
			if c == nil {
				break
			}
			for i := 0; i < c.Len(); i++ {
				if !c.Visible(i) {
					continue
				}
				r := c.Row(i)
				h := hashRow(r, s.ts)
				j := t.find(h, r)
				switch {
				case j >= 0 && side == 0:
					nl[j]++
				case j >= 0:
					nr[j]++
				case side == 1:
					// Rows only on the right never appear in the output,
					// but their key may be in a left partition.
					if lsp != nil {
						if err := rsp.add(hashPartition(h, level, hashFanout), r); err != nil {
							return nil, err
						}
					}
				case lsp != nil:
					if err := lsp.add(hashPartition(h, level, hashFanout), r); err != nil {
						return nil, err
					}
				default:
					for k, d := range r {
						r[k] = copyDatum(d)
					}
					t.insert(h, r)
					nl, nr = append(nl, 1), append(nr, 0)
					bytes += types.RowMemSize(r) + hashTableEntry + 16
					if s.ec.spillable(bytes) {
						lsp = newPartitionSet(s.ec.Temp, s.ts, hashFanout)
						rsp = newPartitionSet(s.ec.Temp, s.ts, hashFanout)
					}
				}
			}
		}
	}
	if lsp != nil {
		for p := hashFanout - 1; p >= 0; p-- {
			lt, ln := lsp.take(p)
			rt, rn := rsp.take(p)
			if ln == 0 || (s.plan.Kind == planner.Intersect && rn == 0) {
				for _, x := range []*storage.Tape{lt, rt} {
					if x != nil {
						_ = x.Discard()
					}
				}
				continue
			}
			s.pairs = append(s.pairs, setOpPart{left: newPartReader(lt, s.ts), right: newPartReader(rt, s.ts), level: level + 1})
		}
	}
	var rows []types.Row
	for j, r := range t.rows {
		var n int64
		switch {
		case s.plan.Kind == planner.Intersect && s.plan.All:
			n = min(nl[j], nr[j])
		case s.plan.Kind == planner.Intersect:
			if nr[j] > 0 {
				n = 1
			}
		case s.plan.All:
			n = max(nl[j]-nr[j], 0)
		case nr[j] == 0:
			n = 1
		}
		for ; n > 0; n-- {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// release drops the tables and removes every tape.
func (s *SetOp) release() {
	s.seen, s.buf = nil, nil
	s.discardSpill()
	if s.cur != nil {
		s.cur.discard()
		s.cur = nil
	}
	for i := range s.pairs {
		s.pairs[i].discard()
	}
	s.pairs = nil
}

// Close implements Operator.
func (s *SetOp) Close() {
	s.done = true
	s.release()
	s.left.Close()
	s.right.Close()
}
