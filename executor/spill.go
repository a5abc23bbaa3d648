package executor

import (
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// rowTape is a sequence of rows an operator moved out of memory: a
// storage.Tape from the statement's TempSpace holding one row per
// record in the row value encoding (types.AppendRow). Rows are appended
// and then read back in the same order by any number of readers; each
// reader costs the tape's one block cache, so a merge holding a reader
// per tape costs a block per tape. The owner discards the tape, on
// success and on error alike.
type rowTape struct {
	tape *storage.Tape
	ts   []types.T
	buf  []byte
	n    int64
}

// newRowTape returns an empty tape of rows of types ts from ec's
// TempSpace, which the caller has checked is there (ec.spillable).
func newRowTape(ec *ExecCtx, ts []types.T) (*rowTape, error) {
	t, err := ec.Temp.NewTape()
	if err != nil {
		return nil, err
	}
	return &rowTape{tape: t, ts: spillTypes(ts)}, nil
}

// spillTypes returns the types rows of types ts are encoded with on a
// tape: unknown-typed columns as text, since the row encoding writes
// unknown values as NULL and their text is what a client sees of them.
func spillTypes(ts []types.T) []types.T {
	enc := make([]types.T, len(ts))
	for i, t := range ts {
		if t.ID == types.Unknown {
			t = types.TText
		}
		enc[i] = t
	}
	return enc
}

// append adds r at the end of the tape.
func (t *rowTape) append(r types.Row) error {
	t.buf = types.AppendRow(t.buf[:0], r, t.ts)
	t.n++
	return t.tape.Append(t.buf)
}

// seal ends the writing of the tape: its write buffer is released
// (storage.Tape.Seal), and a later append takes a new one.
func (t *rowTape) seal() error { return t.tape.Seal() }

// len returns the number of rows appended.
func (t *rowTape) len() int64 { return t.n }

// reader returns a reader of the tape's rows from the first.
func (t *rowTape) reader() *rowTapeReader { return &rowTapeReader{t: t} }

// discard removes the tape; it may be called more than once.
func (t *rowTape) discard() {
	if t != nil && t.tape != nil {
		_ = t.tape.Discard()
		t.tape = nil
	}
}

// rowTapeReader reads a rowTape's rows in order.
type rowTapeReader struct {
	t   *rowTape
	off int64
	buf []byte
}

// next returns the next row, or nil after the last (or once the tape is
// discarded). The row is the caller's: nothing of it points into the
// reader.
func (r *rowTapeReader) next() (types.Row, error) {
	if r.t.tape == nil || r.off >= r.t.tape.Size() {
		return nil, nil
	}
	rec, next, err := r.t.tape.Next(r.off, r.buf)
	if err != nil {
		return nil, err
	}
	r.buf, r.off = rec, next
	return types.DecodeRow(rec, r.t.ts)
}

// rowSpool holds rows in order, as PostgreSQL's tuplestore holds a
// working table: in memory while they fit in ExecCtx.WorkMem (by
// types.RowMemSize), the rest on a rowTape. Its readers read it from the
// first row; rows added after a reader started may or may not be seen.
type rowSpool struct {
	ec   *ExecCtx
	ts   []types.T
	mem  []types.Row
	held int64
	tape *rowTape
	n    int
}

// newRowSpool returns an empty spool of rows of types ts in ec.
func newRowSpool(ec *ExecCtx, ts []types.T) *rowSpool { return &rowSpool{ec: ec, ts: ts} }

// add appends r, which the spool keeps: the caller passes a copy.
func (s *rowSpool) add(r types.Row) error {
	s.n++
	if s.tape == nil {
		s.held += types.RowMemSize(r)
		if !s.ec.spillable(s.held) {
			s.mem = append(s.mem, r)
			return nil
		}
		t, err := newRowTape(s.ec, s.ts)
		if err != nil {
			return err
		}
		s.tape = t
	}
	return s.tape.append(r)
}

// len returns the number of rows added.
func (s *rowSpool) len() int { return s.n }

// reader returns a reader of the spool's rows from the first.
func (s *rowSpool) reader() *rowSpoolReader {
	rd := &rowSpoolReader{s: s}
	if s.tape != nil {
		rd.tape = s.tape.reader()
	}
	return rd
}

// discard drops the spool's rows and removes its tape.
func (s *rowSpool) discard() {
	s.tape.discard()
	s.tape, s.mem = nil, nil
}

// rowSpoolReader reads a rowSpool's rows in order.
type rowSpoolReader struct {
	s    *rowSpool
	pos  int
	tape *rowTapeReader
}

// next returns the next row, or nil after the last.
func (r *rowSpoolReader) next() (types.Row, error) {
	if r.pos < len(r.s.mem) {
		r.pos++
		return r.s.mem[r.pos-1], nil
	}
	if r.tape == nil {
		return nil, nil
	}
	return r.tape.next()
}

// RowStore holds a statement's result rows until they are sent, as
// PostgreSQL's tuplestore holds a portal's: the first ExecCtx.WorkMem
// of them (by types.RowMemSize) in memory, the rest on a tape. A DML
// statement's RETURNING rows wait in one until the statement commits.
type RowStore struct {
	s *rowSpool
}

// NewRowStore returns an empty store of rows of types ts, spilling
// through ec's WorkMem and Temp.
func NewRowStore(ec *ExecCtx, ts []types.T) *RowStore {
	return &RowStore{s: newRowSpool(ec, ts)}
}

// Add appends r, which the store keeps: the caller passes a row nothing
// else changes.
func (s *RowStore) Add(r types.Row) error { return s.s.add(r) }

// Len returns the number of rows added.
func (s *RowStore) Len() int { return s.s.len() }

// Reader returns a reader of the rows from the first; rows added after
// it was made may or may not be read.
func (s *RowStore) Reader() *RowStoreReader {
	if s.s.tape != nil {
		_ = s.s.tape.seal()
	}
	return &RowStoreReader{rd: s.s.reader()}
}

// Discard drops the rows and removes the tape; it may be called more
// than once.
func (s *RowStore) Discard() { s.s.discard() }

// RowStoreReader reads a RowStore's rows in order.
type RowStoreReader struct {
	rd *rowSpoolReader
}

// Next returns the next row, or nil after the last.
func (r *RowStoreReader) Next() (types.Row, error) { return r.rd.next() }
