package executor

import (
	"context"

	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// Spilling hash operators. A hash aggregation or hash join whose table
// outgrows ExecCtx.WorkMem splits what does not fit by the hash of its
// key into hashFanout partitions, each a tape of encoded rows, and
// processes each partition afterwards the same way, as PostgreSQL's
// hash aggregation (13+) and hybrid hash join do. A partition of
// recursion level l is split again with a seed of its own (hashPartition),
// so keys that fell together at one level part at the next.

// hashFanout is how many partitions a spilling hash operator splits
// its overflow into at each level: enough that a few levels split a
// table thousands of times over, few enough that the tapes' write
// buffers (64 KiB each) stay small.
const hashFanout = 16

// hashTableEntry is the memory a hash table spends per entry beyond
// its row: the bucket slot, index and map overhead.
const hashTableEntry = 48

// hashPartition returns the partition (0 ≤ p < n) of the key hash h at
// recursion level level.
func hashPartition(h uint64, level, n int) int {
	x := h ^ (uint64(level+1) * 0x9e3779b97f4a7c15)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return int(x % uint64(n))
}

// hashTapeTypes returns the types rows of types ts are encoded with on a
// tape: the row encoding writes unknown-typed values as NULL, so they
// are written as the text they hold (the Datum is the same).
func hashTapeTypes(ts []types.T) []types.T {
	enc := make([]types.T, len(ts))
	for i, t := range ts {
		if t.ID == types.Unknown {
			t = types.TText
		}
		enc[i] = t
	}
	return enc
}

// partitionSet is a set of partitions, each a tape of rows, created on the
// first row written to it.
type partitionSet struct {
	temp   TempSpace
	enc    []types.T
	tapes  []*storage.Tape
	counts []int64
	buf    []byte
}

func newPartitionSet(temp TempSpace, ts []types.T, n int) *partitionSet {
	return &partitionSet{temp: temp, enc: hashTapeTypes(ts), tapes: make([]*storage.Tape, n), counts: make([]int64, n)}
}

// add appends row to partition p.
func (s *partitionSet) add(p int, row types.Row) error {
	if s.tapes[p] == nil {
		t, err := s.temp.NewTape()
		if err != nil {
			return err
		}
		s.tapes[p] = t
	}
	s.buf = types.AppendRow(s.buf[:0], row, s.enc)
	if err := s.tapes[p].Append(s.buf); err != nil {
		return err
	}
	s.counts[p]++
	return nil
}

// take returns partition p's tape and its row count, leaving the set
// without it (the caller discards it).
func (s *partitionSet) take(p int) (*storage.Tape, int64) {
	// The set is written: its tapes' write buffers can go.
	for _, t := range s.tapes {
		if t != nil {
			_ = t.Seal()
		}
	}
	t, n := s.tapes[p], s.counts[p]
	s.tapes[p], s.counts[p] = nil, 0
	return t, n
}

// discard removes every tape of the set.
func (s *partitionSet) discard() {
	if s == nil {
		return
	}
	for i, t := range s.tapes {
		if t != nil {
			_ = t.Discard()
			s.tapes[i] = nil
		}
	}
}

// partReader reads a tape of rows of types ts written by a partitionSet from
// its start, a chunk or a row at a time; a nil tape has no rows.
type partReader struct {
	tape *storage.Tape
	ts   []types.T
	enc  []types.T
	off  int64
	buf  []byte
}

func newPartReader(t *storage.Tape, ts []types.T) *partReader {
	return &partReader{tape: t, ts: ts, enc: hashTapeTypes(ts)}
}

// rewind makes the next read start at the first row again.
func (r *partReader) rewind() { r.off = 0 }

// row returns the next row, or nil at the end.
func (r *partReader) row() (types.Row, error) {
	if r.tape == nil || r.off >= r.tape.Size() {
		return nil, nil
	}
	rec, next, err := r.tape.Next(r.off, r.buf)
	if err != nil {
		return nil, err
	}
	r.buf, r.off = rec, next
	return types.DecodeRow(rec, r.enc)
}

// chunk returns the next up to ChunkCap rows as a chunk of types ts, or
// nil at the end, checking ctx once.
func (r *partReader) chunk(ctx context.Context) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var c *types.Chunk
	for c == nil || c.Len() < types.ChunkCap {
		row, err := r.row()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		if c == nil {
			c = types.NewChunk(r.ts, types.ChunkCap)
		}
		c.AppendRow(types.OpInsert, row)
	}
	return c, nil
}

// scratchRow fills scratch (grown as needed) with row i of c, the datums
// still pointing into c, for encoding.
func scratchRow(c *types.Chunk, i int, scratch types.Row) types.Row {
	if cap(scratch) < len(c.Cols) {
		scratch = make(types.Row, len(c.Cols))
	}
	scratch = scratch[:len(c.Cols)]
	for j, v := range c.Cols {
		scratch[j] = v.Get(i)
	}
	return scratch
}

// hashSpill is the spilling of an operator that passes or counts rows
// by key and reads its input once (Distinct, UNION): while not full,
// new keys enter its table; once full, rows of keys not in it go to
// spill by the key's hash, and after the input the partitions are read
// in turn, each into an empty table, as the input again.
type hashSpill struct {
	bytes   int64
	full    bool
	level   int
	inDone  bool
	spill   *partitionSet
	parts   []spilledPart
	reading *partReader
}

// spillRow writes row i of c (of types ts, key hash h) to its partition.
func (s *hashSpill) spillRow(ec *ExecCtx, ts []types.T, h uint64, c *types.Chunk, i int) error {
	if s.spill == nil {
		s.spill = newPartitionSet(ec.Temp, ts, hashFanout)
	}
	return s.spill.add(hashPartition(h, s.level, hashFanout), scratchRow(c, i, nil))
}

// read returns the next visible chunk of the input, from in until it
// ends, then from the partition being read; nil when that one ends too.
func (s *hashSpill) read(ctx context.Context, in Operator) (*types.Chunk, error) {
	if s.reading != nil {
		return s.reading.chunk(ctx)
	}
	if s.inDone {
		return nil, nil
	}
	c, err := nextVisible(ctx, in)
	if err != nil || c != nil {
		return c, err
	}
	s.inDone = true
	in.Close()
	return nil, nil
}

// nextPart moves on, once the input or a partition ended, to the next
// partition (pushing those the last read spilled to), reporting false
// when none is left. The caller empties its table.
func (s *hashSpill) nextPart(ts []types.T) bool {
	if s.reading != nil {
		_ = s.reading.tape.Discard()
		s.reading = nil
	}
	if s.spill != nil {
		for p := hashFanout - 1; p >= 0; p-- {
			if t, n := s.spill.take(p); t != nil && n > 0 {
				s.parts = append(s.parts, spilledPart{rows: newPartReader(t, ts), level: s.level + 1})
			}
		}
		s.spill = nil
	}
	if len(s.parts) == 0 {
		return false
	}
	p := s.parts[len(s.parts)-1]
	s.parts = s.parts[:len(s.parts)-1]
	s.reading, s.level, s.bytes, s.full = p.rows, p.level, 0, false
	return true
}

// discardSpill removes every tape.
func (s *hashSpill) discardSpill() {
	s.spill.discard()
	s.spill = nil
	if s.reading != nil {
		_ = s.reading.tape.Discard()
		s.reading = nil
	}
	for _, p := range s.parts {
		_ = p.rows.tape.Discard()
	}
	s.parts = nil
}
