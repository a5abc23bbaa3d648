package engine

import (
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// rowStore holds a cursor's materialised rows in order, as PostgreSQL's
// tuplestore holds a scrollable or holdable cursor's: the first ones in
// memory, up to limit bytes, the rest on a tape on disk, read back one
// row at a time. Nothing of the tape's part stays in memory but the
// reader's place, so a store costs at most limit bytes whatever its size.
type rowStore struct {
	db    *storage.DB
	ts    []types.T
	limit int64
	mem   []types.Row
	bytes int64
	tape  *storage.Tape
	nTape int64
	// ti and toff are the tape reader's place: toff is the boundary
	// before the tape's record ti (0-based).
	ti, toff int64
	buf      []byte
}

// newRowStore returns an empty store of rows of types ts holding up to
// limit bytes in memory.
func newRowStore(db *storage.DB, ts []types.T, limit int64) *rowStore {
	enc := make([]types.T, len(ts))
	for i, t := range ts {
		// The row encoding writes unknown-typed values as NULL; their
		// text is what a client sees of them.
		if t.ID == types.Unknown {
			t = types.TText
		}
		enc[i] = t
	}
	return &rowStore{db: db, ts: enc, limit: limit}
}

// Len returns the number of rows stored.
func (st *rowStore) Len() int64 { return int64(len(st.mem)) + st.nTape }

// Append adds row at the end of the store.
func (st *rowStore) Append(row types.Row) error {
	if st.tape == nil {
		if b := types.RowMemSize(row); st.bytes+b <= st.limit {
			st.mem = append(st.mem, row)
			st.bytes += b
			return nil
		}
		t, err := st.db.NewTape()
		if err != nil {
			return err
		}
		st.tape = t
	}
	st.buf = types.AppendRow(st.buf[:0], row, st.ts)
	if err := st.tape.Append(st.buf); err != nil {
		return err
	}
	st.nTape++
	return nil
}

// Row returns row i (0-based, i < Len()). Rows on the tape are read by
// stepping from the reader's place, so reading the rows in order, either
// way, costs one read each.
func (st *rowStore) Row(i int64) (types.Row, error) {
	if i < int64(len(st.mem)) {
		return st.mem[i], nil
	}
	j := i - int64(len(st.mem))
	if j < st.ti-j {
		st.ti, st.toff = 0, 0
	}
	var err error
	for st.ti < j && err == nil {
		st.toff, err = st.tape.Skip(st.toff)
		st.ti++
	}
	for st.ti > j && err == nil {
		st.toff, err = st.tape.Prev(st.toff)
		st.ti--
	}
	if err != nil {
		st.ti, st.toff = 0, 0
		return nil, err
	}
	rec, next, err := st.tape.Next(st.toff, st.buf)
	if err != nil {
		return nil, err
	}
	st.buf = rec
	st.ti, st.toff = j+1, next
	return types.DecodeRow(rec, st.ts)
}

// Close removes the store's tape.
func (st *rowStore) Close() {
	if st.tape != nil {
		_ = st.tape.Discard()
		st.tape = nil
	}
	st.mem = nil
}
