package executor

import (
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// winSpool holds one window partition's rows in window order, as
// PostgreSQL's WindowAgg holds its partition in a tuplestore: in memory
// while they fit in ExecCtx.WorkMem (by types.RowMemSize), the rest on
// two tapes. A row in memory is the stage's whole sorted row; on tape
// its output columns (r[:base]) go to one tape, read once in order as the
// rows are emitted, and its keys (r[keyAt:]: the ORDER BY values then the
// calls' arguments) to another, which the calls' winCursors read at the
// places their frames need, so that they decode no wide output column.
type winSpool struct {
	ec    *ExecCtx
	spill bool
	base  int
	keyAt int
	outTs []types.T
	keyTs []types.T
	mem   []types.Row
	held  int64
	// out and keys are the tapes, nil until the partition outgrows
	// WorkMem; index[k] is the offset on keys of tape row
	// k*winIndexStep, so that a cursor going back does not read the
	// tape from its start.
	out   *rowTape
	keys  *rowTape
	index []int64
	n     int
	// outRd reads the output columns in order; next is the row it
	// returns next.
	outRd *rowTapeReader
	next  int
}

// winIndexStep is how many key records apart winSpool.index marks the
// tape: a cursor seeking a row skips at most this many records (reading
// only their length) to reach it.
const winIndexStep = 64

// newWinSpool returns an empty spool of rows whose output columns are
// the first base, of types outTs, and whose keys are from keyAt on, of
// types keyTs. With spill false the rows stay in memory.
func newWinSpool(ec *ExecCtx, spill bool, base, keyAt int, outTs, keyTs []types.T) *winSpool {
	return &winSpool{ec: ec, spill: spill, base: base, keyAt: keyAt, outTs: outTs, keyTs: keyTs}
}

// add appends r, which the spool keeps: the caller passes a copy.
func (s *winSpool) add(r types.Row) error {
	s.n++
	if s.out == nil {
		s.held += types.RowMemSize(r)
		if !s.spill || !s.ec.spillable(s.held) {
			s.mem = append(s.mem, r)
			return nil
		}
		var err error
		if s.out, err = newRowTape(s.ec, s.outTs); err != nil {
			return err
		}
		if s.keys, err = newRowTape(s.ec, s.keyTs); err != nil {
			return err
		}
	}
	if k := s.keys.len(); k%winIndexStep == 0 {
		s.index = append(s.index, s.keys.tape.Size())
	}
	if err := s.out.append(r[:s.base]); err != nil {
		return err
	}
	return s.keys.append(r[s.keyAt:])
}

// seal ends the adding of rows: the tapes' write buffers are released.
func (s *winSpool) seal() error {
	if s.out == nil {
		return nil
	}
	if err := s.out.seal(); err != nil {
		return err
	}
	return s.keys.seal()
}

// spilled reports whether rows went to tapes.
func (s *winSpool) spilled() bool { return s.out != nil }

// output returns the output columns of the next row in order: row 0 at
// the first call, row 1 at the second, and so on.
func (s *winSpool) output() (types.Row, error) {
	i := s.next
	s.next++
	if i < len(s.mem) {
		return s.mem[i][:s.base], nil
	}
	if s.outRd == nil {
		s.outRd = s.out.reader()
	}
	return s.outRd.next()
}

// discard drops the spool's rows and removes its tapes; it may be called
// more than once.
func (s *winSpool) discard() {
	s.out.discard()
	s.keys.discard()
	s.out, s.keys, s.mem, s.index, s.outRd = nil, nil, nil, nil, nil
}

// winCursor reads the keys of a winSpool's rows at any place, cheaply
// when it moves forward a little at a time as a frame's ends do. Each
// cursor has a block cache of its own (storage.TapeReader).
type winCursor struct {
	s  *winSpool
	rd *storage.TapeReader
	// row holds the keys of row j (-1 for none), read from the tape;
	// off is the tape offset of tape row next.
	j    int
	row  types.Row
	next int
	off  int64
	buf  []byte
	// want says which keys the cursor decodes from the tape (all when
	// nil); the others read as NULL.
	want []bool
}

func newWinCursor(s *winSpool) *winCursor { return &winCursor{s: s, j: -1} }

// wanting returns c decoding only the keys [0, ord) and [from, to) from
// the tape.
func (c *winCursor) wanting(ord, from, to int) *winCursor {
	c.want = make([]bool, len(c.s.keyTs))
	for i := range c.want {
		c.want[i] = i < ord || i >= from && i < to
	}
	return c
}

// keys returns the keys of row j (0 <= j < s.n). A cursor that decodes
// only some keys (wanting) reuses the row's storage at its next read; the
// rows of others are not changed by later reads, and a caller may keep
// them.
func (c *winCursor) keys(j int) (types.Row, error) {
	s := c.s
	if j < len(s.mem) {
		return s.mem[j][s.keyAt:], nil
	}
	if j == c.j {
		return c.row, nil
	}
	if c.rd == nil {
		c.rd = s.keys.tape.NewReader()
	}
	t := j - len(s.mem)
	switch {
	case t < c.next && c.next-t <= t%winIndexStep:
		// A few rows back (a frame restarting at its start): step back
		// over them rather than forward from the mark before them.
		for ; c.next > t; c.next-- {
			off, err := c.rd.Prev(c.off)
			if err != nil {
				return nil, err
			}
			c.off = off
		}
	case t < c.next || t-c.next > winIndexStep:
		k := t / winIndexStep
		c.next, c.off = k*winIndexStep, s.index[k]
	}
	for ; c.next < t; c.next++ {
		off, err := c.rd.Skip(c.off)
		if err != nil {
			return nil, err
		}
		c.off = off
	}
	rec, next, err := c.rd.Next(c.off, c.buf)
	if err != nil {
		return nil, err
	}
	c.buf, c.off = rec, next
	c.next++
	var row types.Row
	if c.want != nil {
		row, err = types.DecodeRowCols(c.row, rec, s.keys.ts, c.want)
	} else {
		row, err = types.DecodeRow(rec, s.keys.ts)
	}
	if err != nil {
		return nil, err
	}
	c.j, c.row = j, row
	return row, nil
}
