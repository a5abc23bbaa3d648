package storage

import (
	"bytes"
	"errors"

	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Snapshot is a consistent, read-only view of the database as of the
// moment NewSnapshot was called; later commits are not visible through it.
// A Snapshot may be read from several goroutines at once; Close it when
// done, after closing its iterators.
type Snapshot struct {
	snap *pebble.Snapshot
	db   *DB
}

// NewSnapshot returns a snapshot of the committed state. It waits while
// a commit moves spill areas into their tables (Batch.Commit).
func (db *DB) NewSnapshot() *Snapshot {
	db.vis.RLock()
	defer db.vis.RUnlock()
	return &Snapshot{snap: db.pdb.NewSnapshot(), db: db}
}

// Scan returns an iterator over every row of tableID in key order, each
// decoded with the column types ts.
func (s *Snapshot) Scan(tableID uint32, ts []types.T) RowIter {
	return scanTable(s.snap, s.db, tableID, nil, nil, ts)
}

// ScanRange returns an iterator over the rows of tableID whose
// memcomparable keys k satisfy lo <= k < hi, in key order. A nil lo means
// from the first row, a nil hi to the last.
func (s *Snapshot) ScanRange(tableID uint32, lo, hi []byte, ts []types.T) RowIter {
	return scanTable(s.snap, s.db, tableID, lo, hi, ts)
}

// Get returns the row of tableID with memcomparable key key, and false
// when there is none.
func (s *Snapshot) Get(tableID uint32, key []byte, ts []types.T) (types.Row, bool, error) {
	return getRow(s.snap, s.db, tableID, key, ts)
}

// Meta returns the metadata value stored under name as of the snapshot.
func (s *Snapshot) Meta(name string) ([]byte, bool, error) {
	return getRaw(s.snap, MetaKey(name))
}

// ScanPrefix calls fn with every key starting with prefix and its value,
// in key order, stopping at the first error fn returns. The slices are
// valid only during the call.
func (s *Snapshot) ScanPrefix(prefix []byte, fn func(key, value []byte) error) error {
	return scanPrefix(s.snap, prefix, fn)
}

// Close releases the snapshot.
func (s *Snapshot) Close() error {
	if err := s.snap.Close(); err != nil {
		return pgerr.Wrap(pgerr.InternalError, err, "closing snapshot")
	}
	return nil
}

// RowIter iterates over rows in key order. Next returns the next row, or
// a nil row and nil error at the end; after an error the iteration is
// over. Close releases the iterator and may be called more than once.
type RowIter interface {
	Next() (types.Row, error)
	// Key returns the memcomparable key (without the table prefix) of the
	// row last returned by Next; it is valid until the next call to Next.
	Key() []byte
	Close()
}

// Collect reads it to the end and closes it, returning the rows for
// which keep is true (every row when keep is nil). It is for scans whose
// rows are then written to the table they came from, which must not
// happen while the iteration is open.
func Collect(it RowIter, keep func(types.Row) bool) ([]types.Row, error) {
	defer it.Close()
	var rows []types.Row
	for {
		r, err := it.Next()
		if err != nil || r == nil {
			return rows, err
		}
		if keep == nil || keep(r) {
			rows = append(rows, r)
		}
	}
}

type rowIter struct {
	it      *pebble.Iterator
	prefix  int
	decode  func([]byte) (types.Row, error)
	started bool
	done    bool
	err     error
}

func scanTable(r pebble.Reader, db *DB, tableID uint32, lo, hi []byte, ts []types.T) RowIter {
	p := TablePrefix(tableID)
	o := &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)}
	if lo != nil {
		o.LowerBound = TableKey(tableID, lo)
	}
	if hi != nil {
		o.UpperBound = TableKey(tableID, hi)
	}
	it, err := r.NewIter(o)
	if err != nil {
		return &rowIter{done: true, err: pgerr.Wrap(pgerr.IOError, err, "opening table iterator")}
	}
	return &rowIter{it: it, prefix: len(p), decode: db.decoder(tableID, ts)}
}

func (r *rowIter) Next() (types.Row, error) {
	if r.done {
		return nil, r.err
	}
	var ok bool
	if !r.started {
		ok, r.started = r.it.First(), true
	} else {
		ok = r.it.Next()
	}
	if !ok {
		r.done = true
		if err := r.it.Error(); err != nil {
			r.err = pgerr.Wrap(pgerr.IOError, err, "reading table")
		}
		return nil, r.err
	}
	v, err := r.it.ValueAndErr()
	if err != nil {
		r.done, r.err = true, pgerr.Wrap(pgerr.IOError, err, "reading table")
		return nil, r.err
	}
	row, err := r.decode(v)
	if err != nil {
		r.done, r.err = true, err
		return nil, err
	}
	return row, nil
}

func (r *rowIter) Key() []byte {
	if r.it == nil || !r.it.Valid() {
		return nil
	}
	return r.it.Key()[r.prefix:]
}

func (r *rowIter) Close() {
	if r.it != nil {
		_ = r.it.Close()
		r.it = nil
	}
	r.done = true
}

func getRow(r pebble.Reader, db *DB, tableID uint32, key []byte, ts []types.T) (types.Row, bool, error) {
	v, closer, err := r.Get(TableKey(tableID, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, pgerr.Wrap(pgerr.IOError, err, "reading row")
	}
	defer closer.Close()
	row, err := db.decoder(tableID, ts)(v)
	if err != nil {
		return nil, false, err
	}
	return row, true, nil
}

func getRaw(r pebble.Reader, key []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, pgerr.Wrap(pgerr.IOError, err, "reading storage")
	}
	defer closer.Close()
	return bytes.Clone(v), true, nil
}

func scanPrefix(r pebble.Reader, prefix []byte, fn func(key, value []byte) error) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "opening iterator")
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "reading storage")
		}
		if err := fn(it.Key(), v); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "reading storage")
	}
	return nil
}
