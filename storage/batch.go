package storage

import (
	"bytes"
	"encoding/binary"
	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
	"runtime"
	"sync"
	"sync/atomic"
)

// Batch is an atomic set of writes. Reads through a Batch (Get, Scan) see
// its own writes over the database's latest committed state. Nothing is
// visible to others until Commit, which is durable (fsynced) when it
// returns. A Batch is not safe for concurrent use.
type Batch struct {
	b      *pebble.Batch
	db     *DB
	closed bool
	// writeOnly: the batch keeps no index of its writes (NewWriteBatch).
	writeOnly bool
	buf       []byte // scratch for encoding rows
	// marks are the spill areas the batch commits (spill.go).
	marks []spillRef
	// areas are the DML spill areas the batch reads, per table, oldest
	// first (area.go); areaList has them all in the order added.
	areas    map[uint32][]*Area
	areaList []*Area
	// committing are the areas CommitArea marked in this batch.
	committing []*Area
	// tops caches, per table, the largest key the batch sees over the
	// committed rows (tableTop): Get answers a larger key, a bulk
	// statement's ascending keys, without a Pebble lookup.
	topsMu sync.Mutex
	tops   map[uint32]tableTop
	// gets counts the lookups Get made without the tops, up to
	// topAfterGets.
	gets atomic.Int32
	// acct counts the batch's memory in a state cache's budget (Account).
	acct *setAcct
}

// setAcct is the memory of a batch counted in a Cache's budget.
type setAcct struct {
	c *Cache
	n atomic.Int64
}

// release takes the batch's bytes out of the cache's count, once.
func (a *setAcct) release() {
	if n := a.n.Swap(0); n != 0 {
		a.c.sets.Add(-n)
	}
}

// Account counts the batch's memory (its writes and the room reserved
// for more) in c's budget from now until the batch is committed or
// closed, following its growth as state tables commit into it (Commit)
// and write sets are applied to it (Apply). An actor's write set is a
// copy of the epoch's dirty entries, in memory besides them until its
// checkpoint commits: counted, it makes the tables evict clean entries
// (or flush dirty ones early) to make room, instead of the heap growing
// past the budget by an epoch's writes. A batch dropped without Close
// (its recovery discarded it) is taken out of the count when the
// collector frees it. Account on a batch already counted does nothing.
func (b *Batch) Account(c *Cache) {
	if c == nil || b.acct != nil || b.closed {
		return
	}
	b.acct = &setAcct{c: c}
	runtime.AddCleanup(b, (*setAcct).release, b.acct)
	b.recount()
}

// recount brings the count of an accounted batch's memory up to date.
func (b *Batch) recount() {
	if b.acct == nil || b.closed {
		return
	}
	n := int64(cap(b.b.Repr()))
	if d := n - b.acct.n.Swap(n); d != 0 {
		b.acct.c.sets.Add(d)
	}
}

// topAfterGets is the number of lookups a batch makes before it finds
// and keeps a table's largest key (Batch.top) to answer the keys above
// it. Finding the top opens an iterator and seeks to the table's end,
// which costs more than a lookup and pays only over many keys: a
// single-row INSERT's key check, in a batch of its own, would find a
// top the next commit makes stale, at every INSERT.
const topAfterGets = 4

// tableTop is the largest key of a table as a batch sees it (its own
// writes over the committed rows, areas aside), valid while no commit has
// changed the committed rows since (DB.gen).
type tableTop struct {
	gen   uint64
	key   []byte // without the table's prefix
	empty bool
}

// NewBatch returns an empty, indexed write batch.
func (db *DB) NewBatch() *Batch {
	return &Batch{b: db.pdb.NewIndexedBatch(), db: db}
}

// NewWriteBatch returns an empty write-only batch: a Batch that keeps no
// index of its writes, so each write costs an append instead of an
// ordered insert, and that cannot be read (Get, Scan and ScanRange fail
// with an InternalError). Actors' write sets, which are only ever applied
// to the checkpoint's batch, are write-only.
func (db *DB) NewWriteBatch() *Batch {
	return &Batch{b: db.pdb.NewBatch(), db: db, writeOnly: true}
}

// NewWriteBatchSize is NewWriteBatch with room for size bytes of writes
// (as Bytes counts them) reserved up front. A batch grows by doubling,
// copying what it holds each time: one whose size is known or foreseen
// (the merge of an epoch's write sets, an actor's write set of about
// the last epoch's size) is filled without those copies.
func (db *DB) NewWriteBatchSize(size int) *Batch {
	return &Batch{b: db.pdb.NewBatchWithSize(max(size, 0)), db: db, writeOnly: true}
}

func (b *Batch) checkRead() error {
	if b.writeOnly {
		return pgerr.New(pgerr.InternalError, "storage batch is write-only")
	}
	return b.check()
}

func (b *Batch) check() error {
	if b.closed {
		return pgerr.New(pgerr.InternalError, "storage batch used after Commit or Close")
	}
	return nil
}

func wrapWrite(err error) error {
	if err == nil {
		return nil
	}
	return pgerr.Wrap(pgerr.InternalError, err, "writing storage batch")
}

// Put sets the row of tableID with memcomparable key key to row, encoded
// with the column types ts.
func (b *Batch) Put(tableID uint32, key []byte, row types.Row, ts []types.T) error {
	if err := b.check(); err != nil {
		return err
	}
	// Pebble copies key and value into the batch, so the scratch buffer can
	// be reused.
	b.buf = types.AppendRow(b.buf[:0], row, ts)
	b.raiseTop(tableID, key)
	return wrapWrite(b.b.Set(TableKey(tableID, key), b.buf, nil))
}

// Delete removes the row of tableID with memcomparable key key (a no-op
// when there is none).
func (b *Batch) Delete(tableID uint32, key []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	return wrapWrite(b.b.Delete(TableKey(tableID, key), nil))
}

// DeleteRange removes every row of tableID (DROP TABLE, TRUNCATE) with one
// range deletion, whatever the table's size.
func (b *Batch) DeleteRange(tableID uint32) error {
	if err := b.check(); err != nil {
		return err
	}
	p := TablePrefix(tableID)
	if err := wrapWrite(b.b.DeleteRange(p, prefixEnd(p), nil)); err != nil {
		return err
	}
	// Reads no longer see the table's areas.
	delete(b.areas, tableID)
	// The table's spill areas and their marks go with it: early flushes
	// of a dropped or truncated table must neither stay on disk nor be
	// moved into it later.
	for _, prefix := range []byte{PrefixSpill, PrefixSpillMark} {
		sp := binary.BigEndian.AppendUint32([]byte{prefix}, tableID)
		if err := wrapWrite(b.b.DeleteRange(sp, prefixEnd(sp), nil)); err != nil {
			return err
		}
	}
	return nil
}

// SetMeta sets the metadata entry name to value. Names starting with
// "counter/" are reserved for NextID.
func (b *Batch) SetMeta(name string, value []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	return wrapWrite(b.b.Set(MetaKey(name), value, nil))
}

// Set writes a raw key built with one of the key builders (CatalogKey,
// SourceOffsetKey, SinkTxnKey...).
func (b *Batch) Set(key, value []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	b.forgetTops()
	return wrapWrite(b.b.Set(key, value, nil))
}

// DeleteKey removes a raw key built with one of the key builders.
func (b *Batch) DeleteKey(key []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	return wrapWrite(b.b.Delete(key, nil))
}

// Get returns the row of tableID with memcomparable key key as the batch
// sees it (its own writes over the committed state), and false when there
// is none.
func (b *Batch) Get(tableID uint32, key []byte, ts []types.T) (types.Row, bool, error) {
	if err := b.checkRead(); err != nil {
		return nil, false, err
	}
	b.db.vis.RLock()
	defer b.db.vis.RUnlock()
	areas := b.areas[tableID]
	for i := len(areas) - 1; i >= 0; i-- {
		if row, found, err := areas[i].get(key, ts); err != nil || found {
			return row, row != nil, err
		}
	}
	if b.gets.Load() < topAfterGets {
		b.gets.Add(1)
		return getRow(b.b, b.db, tableID, key, ts)
	}
	if top, err := b.top(tableID); err != nil {
		return nil, false, err
	} else if top.empty || bytes.Compare(key, top.key) > 0 {
		return nil, false, nil
	}
	return getRow(b.b, b.db, tableID, key, ts)
}

// top returns the largest key of tableID the batch sees over the
// committed rows, finding it anew when a commit may have changed them.
// The caller holds db.vis.
func (b *Batch) top(tableID uint32) (tableTop, error) {
	gen := b.db.gen.Load()
	b.topsMu.Lock()
	t, ok := b.tops[tableID]
	b.topsMu.Unlock()
	if ok && t.gen == gen {
		return t, nil
	}
	p := TablePrefix(tableID)
	it, err := b.b.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return tableTop{}, pgerr.Wrap(pgerr.IOError, err, "opening table iterator")
	}
	t = tableTop{gen: gen, empty: !it.Last()}
	if !t.empty {
		t.key = bytes.Clone(it.Key()[len(p):])
	}
	if err := it.Close(); err != nil {
		return tableTop{}, pgerr.Wrap(pgerr.IOError, err, "reading table")
	}
	b.topsMu.Lock()
	if b.tops == nil {
		b.tops = map[uint32]tableTop{}
	}
	b.tops[tableID] = t
	b.topsMu.Unlock()
	return t, nil
}

// raiseTop records a write of key to tableID in the cached top.
func (b *Batch) raiseTop(tableID uint32, key []byte) {
	b.topsMu.Lock()
	defer b.topsMu.Unlock()
	if t, ok := b.tops[tableID]; ok && (t.empty || bytes.Compare(key, t.key) > 0) {
		b.tops[tableID] = tableTop{gen: t.gen, key: bytes.Clone(key)}
	}
}

// forgetTops drops the cached tops (after a write the batch cannot place
// in a table, or a rollback).
func (b *Batch) forgetTops() {
	b.topsMu.Lock()
	b.tops = nil
	b.topsMu.Unlock()
}

// Scan returns an iterator over every row of tableID as the batch sees
// it, in key order. Writing to the batch while the iterator is open is
// allowed, but the iterator may or may not see those writes.
func (b *Batch) Scan(tableID uint32, ts []types.T) RowIter {
	if err := b.checkRead(); err != nil {
		return &rowIter{done: true, err: err}
	}
	b.db.vis.RLock()
	defer b.db.vis.RUnlock()
	if b.HasAreas(tableID) {
		return b.scanAreas(tableID, nil, nil, ts)
	}
	return scanTable(b.b, b.db, tableID, nil, nil, ts)
}

// ScanRange returns an iterator over the rows of tableID whose
// memcomparable keys k satisfy lo <= k < hi as the batch sees them, in key
// order. A nil lo means from the first row, a nil hi to the last.
func (b *Batch) ScanRange(tableID uint32, lo, hi []byte, ts []types.T) RowIter {
	if err := b.checkRead(); err != nil {
		return &rowIter{done: true, err: err}
	}
	b.db.vis.RLock()
	defer b.db.vis.RUnlock()
	if b.HasAreas(tableID) {
		return b.scanAreas(tableID, lo, hi, ts)
	}
	return scanTable(b.b, b.db, tableID, lo, hi, ts)
}

// Apply appends every write of src to b, in order, as if they had been
// made on b (later writes win). The checkpoint commit merges the write
// sets of all actors of an epoch into one batch this way. The areas src
// reads and commits (area.go) are b's too. src is left unchanged; the
// caller still closes it.
func (b *Batch) Apply(src *Batch) error {
	if err := b.check(); err != nil {
		return err
	}
	if err := src.check(); err != nil {
		return err
	}
	b.forgetTops()
	b.marks = append(b.marks, src.marks...)
	for _, a := range src.areaList {
		b.AddArea(a)
	}
	err := b.b.Apply(src.b, nil)
	b.recount()
	return wrapWrite(err)
}

// Bytes returns the size of the batch's writes as encoded for the
// write-ahead log.
func (b *Batch) Bytes() int { return len(b.b.Repr()) }

// Room returns how many more bytes of writes (as Bytes counts them) the
// batch takes before it grows, copying what it holds.
func (b *Batch) Room() int {
	r := b.b.Repr()
	return cap(r) - len(r)
}

// BatchMark is a point in a batch's writes, for RollbackTo.
type BatchMark struct {
	size  int
	count uint32
}

// Mark returns the point the batch's writes have reached.
func (b *Batch) Mark() BatchMark {
	if b.closed {
		return BatchMark{}
	}
	return BatchMark{size: len(b.b.Repr()), count: b.b.Count()}
}

// RollbackTo discards the writes made since m (a Mark of this batch), as
// if they had never been made: the batch's log of writes is cut at m and
// its index rebuilt from what remains, which costs a pass over the
// writes kept. Savepoints in transaction blocks use it.
func (b *Batch) RollbackTo(m BatchMark) error {
	if err := b.check(); err != nil {
		return err
	}
	var nb *pebble.Batch
	if b.writeOnly {
		nb = b.db.pdb.NewBatch()
	} else {
		nb = b.db.pdb.NewIndexedBatch()
	}
	if m.count > 0 {
		repr := b.b.Repr()
		if m.size > len(repr) || m.size < batchHeaderLen {
			nb.Close()
			return pgerr.New(pgerr.InternalError, "storage batch mark out of range")
		}
		data := append([]byte(nil), repr[:m.size]...)
		binary.LittleEndian.PutUint32(data[8:batchHeaderLen], m.count)
		kept := b.db.pdb.NewBatch()
		err := kept.SetRepr(data)
		if err == nil {
			err = nb.Apply(kept, nil)
		}
		kept.Close()
		if err != nil {
			nb.Close()
			return wrapWrite(err)
		}
	}
	_ = b.b.Close()
	b.b = nb
	b.forgetTops()
	return nil
}

// batchHeaderLen is the size of a pebble batch's header: an 8-byte
// sequence number and a 4-byte little-endian count of its writes.
const batchHeaderLen = 12

// Len returns the number of writes in the batch.
func (b *Batch) Len() int { return int(b.b.Count()) }

// Commit applies the batch atomically and returns once it is durable
// (written and fsynced to the write-ahead log). The batch is closed
// afterwards, whether or not Commit succeeded.
//
// A batch that commits spill areas (a checkpoint whose state tables
// flushed early) also moves them into their tables before it returns;
// snapshots and indexed batches wait until the moves are done, so no
// reader sees the epoch in part.
func (b *Batch) Commit() error {
	if err := b.check(); err != nil {
		return err
	}
	if len(b.marks) > 0 {
		b.db.vis.Lock()
		defer b.db.vis.Unlock()
		for _, a := range b.committing {
			if a.resolves != b.db.resolves.Load() {
				// A recovery deleted the unmarked areas while this one
				// was being written: it may lack some of its writes.
				b.Close()
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access: a recovery discarded the rows being written").
					WithHint("The transaction might succeed if retried.")
			}
		}
	}
	// Cached tops (Batch.top) of other batches are stale once the rows
	// changed, even if the commit fails halfway through its moves; one
	// found while the commit runs is too, as a read then is concurrent
	// with it.
	b.db.gen.Add(1)
	defer b.db.gen.Add(1)
	n := b.b.Len()
	err := b.b.Commit(pebble.Sync)
	marks := b.marks
	b.Close()
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "committing to storage")
	}
	b.db.afterCommit(n)
	if len(marks) > 0 {
		// A failed move leaves its marks: the recovery that the failed
		// checkpoint starts moves the areas again.
		return b.db.moveSpills(marks)
	}
	return nil
}

// Empty reports whether the batch holds nothing to commit: no writes,
// no spill marks and no areas.
func (b *Batch) Empty() bool {
	return b.b.Count() == 0 && len(b.marks) == 0 && len(b.areaList) == 0 && len(b.committing) == 0
}

// Close discards the batch if it was not committed. It may be called more
// than once, and after Commit; on a nil batch it does nothing.
func (b *Batch) Close() {
	if b == nil || b.closed {
		return
	}
	if b.acct != nil {
		b.acct.release()
	}
	b.closed = true
	_ = b.b.Close()
}
