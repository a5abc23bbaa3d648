package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"slices"
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// This file lets a large DML statement keep its table writes out of
// memory (DESIGN.md §4): they go into a spill area of the table (see
// spill.go for the keyspace), which the engine's view of pending writes
// reads under its own writes (Batch.AddArea) and which the epoch's batch
// commits by its mark (Batch.CommitArea), exactly as a state table's
// early flush. The statement's changelog goes into a Log, a file of its
// own. Both vanish at the next open (and the area at a recovery) unless
// committed, so a crash leaves nothing of an uncommitted statement.

// areaBatch is how many bytes of writes an Area buffers before writing
// them (unsynced) to Pebble, and a Log before writing them to its file.
const areaBatch = 1 << 20

// Area is a spill area of one table filled by a writer other than a
// state table: a DML statement's writes. Its writes are buffered up to
// areaBatch bytes and readable (by the batches it is added to) once
// Flush returns. An Area is not safe for concurrent use.
type Area struct {
	db   *DB
	ref  spillRef
	b    *pebble.Batch
	k, v []byte
	// resolves is db.resolves when the area was made.
	resolves uint64
	// lo and hi are the smallest and largest key written (without the
	// area's prefix): a key outside them is not in the area, which spares
	// a bulk statement of ascending keys a Pebble lookup per key check.
	lo, hi  []byte
	written bool
	// filter is a Bloom filter of the keys written, of a fixed size
	// (areaFilterBits): a key it has not seen is not in the area, which
	// spares a bulk statement of keys in random order (or a unique key
	// store, whose keys rise in no order) a Pebble lookup per key check
	// that the lo-hi bounds cannot rule out. It fills up past a few
	// million keys and then rules out less and less, never wrongly.
	filter []uint64
	seed   maphash.Seed
}

// areaFilterBits is the size of an Area's Bloom filter, 1 MiB: about 2%
// false positives at a million keys with areaFilterHashes hashes.
const (
	areaFilterBits   = 8 << 20
	areaFilterHashes = 4
)

// filterAdd records key in the area's filter.
func (a *Area) filterAdd(key []byte) {
	if a.filter == nil {
		a.filter = make([]uint64, areaFilterBits/64)
		a.seed = maphash.MakeSeed()
	}
	h := maphash.Bytes(a.seed, key)
	h1, h2 := uint32(h), uint32(h>>32)|1
	for i := uint32(0); i < areaFilterHashes; i++ {
		bit := (h1 + i*h2) % areaFilterBits
		a.filter[bit/64] |= 1 << (bit % 64)
	}
}

// mayHold reports whether key may have been written to the area: false
// means it was not.
func (a *Area) mayHold(key []byte) bool {
	if a.filter == nil {
		return false
	}
	h := maphash.Bytes(a.seed, key)
	h1, h2 := uint32(h), uint32(h>>32)|1
	for i := uint32(0); i < areaFilterHashes; i++ {
		bit := (h1 + i*h2) % areaFilterBits
		if a.filter[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}

// NewArea returns a new, empty spill area of tableID.
func (db *DB) NewArea(tableID uint32) (*Area, error) {
	id, err := db.NextID("spill")
	if err != nil {
		return nil, err
	}
	return &Area{db: db, ref: spillRef{table: tableID, id: id}, resolves: db.resolves.Load()}, nil
}

// Table returns the table the area belongs to.
func (a *Area) Table() uint32 { return a.ref.table }

func (a *Area) set(key, value []byte) error {
	if a.b == nil {
		a.b = a.db.pdb.NewBatch()
	}
	if !a.written || bytes.Compare(key, a.lo) < 0 {
		a.lo = append(a.lo[:0], key...)
	}
	if !a.written || bytes.Compare(key, a.hi) > 0 {
		a.hi = append(a.hi[:0], key...)
	}
	a.written = true
	a.filterAdd(key)
	a.k = append(append(a.k[:0], a.ref.prefix()...), key...)
	if err := a.b.Set(a.k, value, nil); err != nil {
		return wrapWrite(err)
	}
	if a.b.Len() >= areaBatch {
		return a.Flush()
	}
	return nil
}

// Put sets the row of the memcomparable key key, encoded with ts.
func (a *Area) Put(key []byte, row types.Row, ts []types.T) error {
	a.v = types.AppendRow(append(a.v[:0], 1), row, ts)
	return a.set(key, a.v)
}

// Delete records the deletion of the row of key.
func (a *Area) Delete(key []byte) error {
	return a.set(key, []byte{0})
}

// Flush writes the buffered writes to Pebble, unsynced: nothing reads
// an area but the batches it is added to, and only its mark, committed
// with an epoch, makes it durable.
func (a *Area) Flush() error {
	if a.b == nil {
		return nil
	}
	b := a.b
	a.b = nil
	defer b.Close()
	if err := b.Commit(pebble.NoSync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "writing spill area")
	}
	return nil
}

// Discard deletes the area (a failed statement's, or one of an epoch
// that will not commit). It must not be marked in a batch still to be
// committed.
func (a *Area) Discard() error {
	if a.b != nil {
		a.b.Close()
		a.b = nil
	}
	p := a.ref.prefix()
	if err := a.db.pdb.DeleteRange(p, prefixEnd(p), pebble.NoSync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "discarding spill area")
	}
	return nil
}

// get looks key up in the area: found reports that the area holds it,
// and row is nil when it holds its deletion. The caller holds db.vis.
func (a *Area) get(key []byte, ts []types.T) (row types.Row, found bool, err error) {
	if !a.written || bytes.Compare(key, a.lo) < 0 || bytes.Compare(key, a.hi) > 0 || !a.mayHold(key) {
		return nil, false, nil
	}
	v, closer, err := a.db.pdb.Get(append(a.ref.prefix(), key...))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, pgerr.Wrap(pgerr.IOError, err, "reading spill area")
	}
	defer closer.Close()
	if len(v) == 0 || v[0] == 0 {
		return nil, true, nil
	}
	row, err = a.db.decoder(a.ref.table, ts)(v[1:])
	return row, true, err
}

// AddArea makes the batch's reads of a's table see a's flushed writes
// over its own writes and the committed rows. Areas added later are
// newer: their writes win. The batch's own writes to the table are taken
// to be older than every area of it, so once a table has an area, later
// writes to it must go into areas too.
func (b *Batch) AddArea(a *Area) {
	if b.areas == nil {
		b.areas = map[uint32][]*Area{}
	}
	b.areas[a.ref.table] = append(b.areas[a.ref.table], a)
	b.areaList = append(b.areaList, a)
}

// HasAreas reports whether the batch reads areas of tableID.
func (b *Batch) HasAreas(tableID uint32) bool { return len(b.areas[tableID]) > 0 }

// Areas returns every area added to the batch, in the order added.
func (b *Batch) Areas() []*Area { return b.areaList }

// CommitArea adds a (flushed) to the batch's areas and writes its mark
// into the batch: committing the batch commits the area, whose writes
// Commit then moves into the table before it returns (spill.go).
func (b *Batch) CommitArea(a *Area, epoch uint64) error {
	if err := a.Flush(); err != nil {
		return err
	}
	if err := b.setSpillMark(a.ref, epoch); err != nil {
		return err
	}
	b.AddArea(a)
	b.committing = append(b.committing, a)
	return nil
}

// logDir is the directory, in the data directory, of the Logs. Open
// empties it: a log outlives no process.
const logDir = "logs"

// Log is an ordered log of records kept out of memory, in a file of its
// own that is written once, read once and removed: a DML statement's
// changelog waits in one until the statement succeeds. Open removes
// the logs a crash left behind. A Log is not safe for concurrent use.
type Log struct {
	db   *DB
	path string
	f    vfs.File
	w    *bufio.Writer
	n    int
	hdr  []byte
}

// NewLog returns a new, empty log.
func (db *DB) NewLog() (*Log, error) {
	id, err := db.NextID("log")
	if err != nil {
		return nil, err
	}
	path := db.fs.PathJoin(db.dir, logDir, strconv.FormatUint(id, 10))
	f, err := db.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "creating log")
	}
	return &Log{db: db, path: path, f: f, w: bufio.NewWriterSize(f, areaBatch)}, nil
}

// Append adds rec to the log.
func (l *Log) Append(rec []byte) error {
	if l.f == nil {
		return pgerr.New(pgerr.InternalError, "log used after Discard")
	}
	l.n++
	l.hdr = binary.AppendUvarint(l.hdr[:0], uint64(len(rec)))
	if _, err := l.w.Write(l.hdr); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "writing log")
	}
	if _, err := l.w.Write(rec); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "writing log")
	}
	return nil
}

// Len returns the number of records appended.
func (l *Log) Len() int { return l.n }

// Each calls fn with every record in the order appended; rec is valid
// only during the call.
func (l *Log) Each(fn func(rec []byte) error) error {
	if l.f == nil {
		return nil
	}
	if err := l.w.Flush(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "writing log")
	}
	f, err := l.db.fs.Open(l.path)
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "opening log")
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, areaBatch)
	var rec []byte
	for i := 0; i < l.n; i++ {
		n, err := binary.ReadUvarint(r)
		if err == nil {
			rec = slices.Grow(rec[:0], int(n))[:n]
			_, err = io.ReadFull(r, rec)
		}
		if err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "reading log")
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// Discard removes the log. It may be called more than once.
func (l *Log) Discard() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.w = nil, nil
	if rerr := l.db.fs.Remove(l.path); err == nil {
		err = rerr
	}
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "removing log")
	}
	return nil
}

// resetLogs removes the logs left by an earlier process and makes sure
// their directory exists.
func (db *DB) resetLogs() error {
	dir := db.fs.PathJoin(db.dir, logDir)
	if err := db.fs.RemoveAll(dir); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "removing old logs")
	}
	if err := db.fs.MkdirAll(dir, 0o755); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "creating the logs directory")
	}
	return nil
}

// areaIter is a RowIter over a table's rows as a batch with areas sees
// them: the areas (newest first) over the batch's own iterator.
type areaIter struct {
	l       *levels
	decode  func([]byte) (types.Row, error)
	started bool
	key     []byte
	err     error
}

// scanAreas returns an iterator over the rows of tableID with keys in
// [lo, hi) as b sees them through its areas. The caller holds db.vis.
func (b *Batch) scanAreas(tableID uint32, lo, hi []byte, ts []types.T) RowIter {
	areas := b.areas[tableID]
	tp := TablePrefix(tableID)
	o := &pebble.IterOptions{LowerBound: tp, UpperBound: prefixEnd(tp)}
	if lo != nil {
		o.LowerBound = TableKey(tableID, lo)
	}
	if hi != nil {
		o.UpperBound = TableKey(tableID, hi)
	}
	main, err := b.b.NewIter(o)
	if err != nil {
		return &rowIter{done: true, err: pgerr.Wrap(pgerr.IOError, err, "opening table iterator")}
	}
	var its []*pebble.Iterator
	for i := len(areas) - 1; i >= 0; i-- {
		p := areas[i].ref.prefix()
		ao := &pebble.IterOptions{LowerBound: append(p, lo...), UpperBound: prefixEnd(p)}
		if hi != nil {
			ao.UpperBound = append(areas[i].ref.prefix(), hi...)
		}
		it, err := b.db.pdb.NewIter(ao)
		if err != nil {
			for _, o := range its {
				_ = o.Close()
			}
			_ = main.Close()
			return &rowIter{done: true, err: pgerr.Wrap(pgerr.IOError, err, "opening spill area")}
		}
		its = append(its, it)
	}
	return &areaIter{l: newLevels(its, len(areas[0].ref.prefix()), main, len(tp), false), decode: b.db.decoder(tableID, ts)}
}

func (r *areaIter) Next() (types.Row, error) {
	if r.l == nil {
		return nil, r.err
	}
	for {
		if !r.started {
			r.started = true
			r.l.first()
		} else {
			r.l.next()
		}
		if !r.l.valid() {
			if err := r.l.err(); err != nil {
				r.err = pgerr.Wrap(pgerr.IOError, err, "reading table")
			}
			r.Close()
			return nil, r.err
		}
		v, isRow, err := r.l.value()
		if err != nil {
			r.err = pgerr.Wrap(pgerr.IOError, err, "reading table")
			r.Close()
			return nil, r.err
		}
		if !isRow {
			continue
		}
		row, err := r.decode(v)
		if err != nil {
			r.err = err
			r.Close()
			return nil, err
		}
		r.key = append(r.key[:0], r.l.key(r.l.cur)...)
		return row, nil
	}
}

func (r *areaIter) Key() []byte { return r.key }

func (r *areaIter) Close() {
	if r.l != nil {
		r.l.close()
		r.l = nil
	}
}
