package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// This file is the spill path of DESIGN.md §4: a state table whose epoch
// has written more than its share of the memory budget flushes its dirty
// entries early, into a spill area of its own, instead of holding them
// until the barrier.
//
// A spill area is identified by the table and a spill id that is never
// reused (DB.NextID("spill")):
//
//	0x05 spill       [0x05][table id u32][spill id u64][key] -> 0x00 (deleted) | 0x01 row
//	0x06 spill mark  [0x06][table id u32][spill id u64]      -> epoch u64
//
// Nothing reads a spill area except the state table that wrote it, so an
// early flush is invisible to every snapshot: it is not committed. The
// table's Commit writes the area's mark into the checkpoint's batch; the
// mark is what commits the area, atomically with the rest of the epoch.
// Batch.Commit then moves every area it marked into the table's rows, in
// the order the areas were written, and deletes area and mark. Readers of
// committed data (snapshots and the reads of indexed batches) wait while
// a commit and its moves run, so they see the epoch whole or not at all;
// the writing table reads its areas itself until it learns, at the next
// barrier, that they are moved. Recovery (ResolveSpills) finishes the
// moves of marked areas and deletes every unmarked one: the early flushes
// of an epoch that never committed vanish with it.

// Keyspace prefixes of the spill path (see above).
const (
	// PrefixSpill holds state table entries flushed early.
	PrefixSpill byte = 0x05
	// PrefixSpillMark holds the marks of committed spill areas not yet
	// moved into their tables.
	PrefixSpillMark byte = 0x06
)

// spillRef names one spill area.
type spillRef struct {
	table uint32
	id    uint64
}

func (r spillRef) prefix() []byte {
	k := binary.BigEndian.AppendUint32([]byte{PrefixSpill}, r.table)
	return binary.BigEndian.AppendUint64(k, r.id)
}

func (r spillRef) markKey() []byte {
	k := binary.BigEndian.AppendUint32([]byte{PrefixSpillMark}, r.table)
	return binary.BigEndian.AppendUint64(k, r.id)
}

// spillMoveBatch is how many bytes of writes one batch of a move holds.
const spillMoveBatch = 1 << 20

// newPieceBatch returns a batch for writes committed in pieces of
// spillMoveBatch bytes: it has room for a piece and the write that
// passes its end, and keeps that room across Reset (a Pebble batch
// grows by doubling and copying, and by default drops a buffer past
// 1 MiB at each Reset, so each piece would grow from nothing again).
func (db *DB) newPieceBatch() *pebble.Batch {
	return db.pdb.NewBatchWithSize(2*spillMoveBatch, pebble.WithMaxRetainedSizeBytes(4*spillMoveBatch))
}

// setSpillMark writes the mark committing area r into b.
func (b *Batch) setSpillMark(r spillRef, epoch uint64) error {
	if err := b.check(); err != nil {
		return err
	}
	b.marks = append(b.marks, r)
	return wrapWrite(b.b.Set(r.markKey(), binary.BigEndian.AppendUint64(nil, epoch), nil))
}

// moveSpills moves the marked areas into their tables, in id order (the
// order they were written). The caller holds db.vis exclusively.
func (db *DB) moveSpills(refs []spillRef) error {
	slices.SortFunc(refs, func(a, b spillRef) int {
		if a.id != b.id {
			return cmpU64(a.id, b.id)
		}
		return cmpU64(uint64(a.table), uint64(b.table))
	})
	refs = slices.Compact(refs)
	for _, r := range refs {
		if err := db.moveSpill(r); err != nil {
			return err
		}
	}
	return nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// moveSpill copies area r into its table in bounded batches, then deletes
// the area and its mark in a last one. A crash in the middle leaves the
// mark, and ResolveSpills moves the area again (the copy is idempotent).
func (db *DB) moveSpill(r spillRef) error {
	p := r.prefix()
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "opening spill area")
	}
	defer it.Close()
	tp := TablePrefix(r.table)
	b := db.newPieceBatch()
	defer func() { b.Close() }()
	var k []byte
	for it.First(); it.Valid(); it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "reading spill area")
		}
		k = append(append(k[:0], tp...), it.Key()[len(p):]...)
		if len(v) > 0 && v[0] == 1 {
			err = b.Set(k, v[1:], nil)
		} else {
			err = b.Delete(k, nil)
		}
		if err != nil {
			return wrapWrite(err)
		}
		if b.Len() >= spillMoveBatch {
			if err := b.Commit(pebble.NoSync); err != nil {
				return pgerr.Wrap(pgerr.IOError, err, "moving spill area")
			}
			fault.Hit(fault.SpillMove)
			b.Reset()
		}
	}
	if err := it.Error(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "reading spill area")
	}
	_ = b.DeleteRange(p, prefixEnd(p), nil)
	_ = b.Delete(r.markKey(), nil)
	if err := b.Commit(pebble.NoSync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "moving spill area")
	}
	return nil
}

// ResolveSpills brings the spill areas in line with the committed state:
// it moves every committed (marked) area into its table and deletes every
// other one, the early flushes of epochs that did not commit. Recovery
// calls it while no state table is in use; Open calls it too.
func (db *DB) ResolveSpills() error {
	db.vis.Lock()
	defer db.vis.Unlock()
	db.resolves.Add(1)
	defer db.gen.Add(1)
	var refs []spillRef
	err := scanPrefix(db.pdb, []byte{PrefixSpillMark}, func(key, _ []byte) error {
		if len(key) != 13 {
			return pgerr.New(pgerr.DataCorrupted, "corrupt spill mark (%d bytes)", len(key))
		}
		refs = append(refs, spillRef{table: binary.BigEndian.Uint32(key[1:]), id: binary.BigEndian.Uint64(key[5:])})
		return nil
	})
	if err != nil {
		return err
	}
	if err := db.moveSpills(refs); err != nil {
		return err
	}
	b := db.pdb.NewBatch()
	defer b.Close()
	_ = b.DeleteRange([]byte{PrefixSpill}, []byte{PrefixSpill + 1}, nil)
	if err := b.Commit(pebble.NoSync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "discarding spill areas")
	}
	return nil
}

// SpillBytes returns the approximate bytes on disk of spill areas not
// yet moved or discarded (for tests and monitoring).
func (db *DB) SpillBytes() (uint64, error) {
	n, err := db.pdb.EstimateDiskUsage([]byte{PrefixSpill}, []byte{PrefixSpillMark + 1})
	if err != nil {
		return 0, pgerr.Wrap(pgerr.IOError, err, "estimating spill size")
	}
	return n, nil
}

// spillLayer is one spill area a state table reads: the open epoch's, or
// one committed with epoch whose move the table has not yet learnt of.
type spillLayer struct {
	ref   spillRef
	epoch uint64 // 0 for the open epoch's
}

// spill flushes the table's dirty entries into the open epoch's spill
// area and forgets them: reads find them in the area from now on. Entries
// whose previous value is still in flight in an uncommitted batch are
// kept (their area would be moved after that batch, which is right, but
// the entry is also in the list Committed walks); there are few.
//
// With keep set (an epoch being committed), the flushed entries are not
// forgotten but stay in memory as flushed with that epoch, as Commit
// leaves the entries it writes into the batch: the area and the entries
// hold the same rows, and the entries take precedence until Committed
// reports the epoch durable and they become clean. A DropClean table
// forgets them all the same.
func (t *StateTable) spill(keep uint64) error {
	if t.dropClean {
		keep = 0
	}
	if t.spillID == 0 {
		id, err := t.db.NextID("spill")
		if err != nil {
			return err
		}
		t.spillID = id
	}
	ref := spillRef{table: t.id, id: t.spillID}
	p := ref.prefix()
	if t.dropClean {
		t.sortOverlay()
	}
	b := t.db.newPieceBatch()
	defer b.Close()
	left := t.dirty[:0]
	var kept int64
	var k, v []byte
	for _, e := range t.dirty {
		if e.flushEpoch != 0 || (len(t.rangeDels) > 0 && t.hidden([]byte(e.key()))) {
			// An entry in a pending range deletion stays too: in the
			// area, it would reach the table's rows before the
			// deletion is known durable, and reads would take it for
			// a row the deletion hides.
			left = append(left, e)
			kept += e.size
			continue
		}
		k = append(append(k[:0], p...), e.key()...)
		e.fresh = false
		switch {
		case e.enc() != "":
			v = append(append(v[:0], 1), e.enc()...)
		case e.row == nil:
			v = append(v[:0], 0)
		default:
			v = types.AppendRow(append(v[:0], 1), e.row, t.valueTypes)
		}
		if err := b.Set(k, v, nil); err != nil {
			return wrapWrite(err)
		}
		if b.Len() >= spillMoveBatch {
			// In bounded pieces: one batch of every dirty entry would
			// hold a copy of them all in memory.
			if err := b.Commit(pebble.NoSync); err != nil {
				return pgerr.Wrap(pgerr.IOError, err, "spilling state")
			}
			b.Reset()
		}
		e.dirty = false
		if keep != 0 {
			e.flushEpoch = keep
			t.flushed = append(t.flushed, e)
			continue
		}
		e.inOverlay = false
		if e.inTree {
			e.inTree = false
			t.overlay.Delete(e.id)
		}
		t.drop(e)
	}
	clear(t.dirty[len(left):])
	t.dirty = left
	t.dirtyBytes = kept
	t.pruneUnsorted()
	if err := b.Commit(pebble.NoSync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "spilling state")
	}
	t.cstats.Spills.Add(1)
	return nil
}

// layers returns the spill areas the table reads, newest first.
func (t *StateTable) layers() []spillLayer {
	if t.spillID == 0 && len(t.spilled) == 0 {
		return nil
	}
	ls := make([]spillLayer, 0, len(t.spilled)+1)
	if t.spillID != 0 {
		ls = append(ls, spillLayer{ref: spillRef{table: t.id, id: t.spillID}})
	}
	for i := len(t.spilled) - 1; i >= 0; i-- {
		ls = append(ls, t.spilled[i])
	}
	return ls
}

// getSpilled looks key (encoded, without prefix) up in the table's spill
// areas, newest first: found reports that an area holds it, and row is
// nil when it holds its deletion.
func (t *StateTable) getSpilled(key []byte) (row types.Row, found bool, err error) {
	for _, l := range t.layers() {
		v, closer, err := t.db.pdb.Get(append(l.ref.prefix(), key...))
		if errors.Is(err, pebble.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, false, pgerr.Wrap(pgerr.IOError, err, "reading spill area")
		}
		defer closer.Close()
		if len(v) == 0 || v[0] == 0 {
			return nil, true, nil
		}
		row, err := types.DecodeRow(v[1:], t.valueTypes)
		return row, true, err
	}
	return nil, false, nil
}

// spillIters opens iterators over the spill areas' keys in [lo, hi)
// (suffixes after the table prefix; nil hi: no bound), newest first.
func (t *StateTable) spillIters(lo, hi []byte) ([]*pebble.Iterator, error) {
	var its []*pebble.Iterator
	for _, l := range t.layers() {
		p := l.ref.prefix()
		up := prefixEnd(p)
		if hi != nil {
			up = append(bytes.Clone(p), hi...)
		}
		it, err := t.db.pdb.NewIter(&pebble.IterOptions{LowerBound: append(bytes.Clone(p), lo...), UpperBound: up})
		if err != nil {
			for _, o := range its {
				o.Close()
			}
			return nil, pgerr.Wrap(pgerr.IOError, err, "opening spill area")
		}
		its = append(its, it)
	}
	return its, nil
}

// levels merges the table's committed rows (main) with its spill areas
// (spills, newest first) into one ordered stream of keys: on equal keys
// the newest area wins and the others are skipped. It serves stateIter,
// which merges it in turn with the in-memory overlay.
type levels struct {
	its     []*pebble.Iterator // spills..., main
	prefix  []int              // bytes to strip from each iterator's keys
	reverse bool
	cur     int // index of the iterator holding the current key, -1 at the end
}

func newLevels(spills []*pebble.Iterator, spillPrefix int, main *pebble.Iterator, mainPrefix int, reverse bool) *levels {
	l := &levels{its: append(spills, main), reverse: reverse}
	for range spills {
		l.prefix = append(l.prefix, spillPrefix)
	}
	l.prefix = append(l.prefix, mainPrefix)
	return l
}

func (l *levels) key(i int) []byte { return l.its[i].Key()[l.prefix[i]:] }

func (l *levels) first() {
	for _, it := range l.its {
		if l.reverse {
			it.Last()
		} else {
			it.First()
		}
	}
	l.pick()
}

// pick finds the iterator holding the smallest (largest, in reverse)
// key, preferring the newest on ties.
func (l *levels) pick() {
	l.cur = -1
	for i, it := range l.its {
		if !it.Valid() {
			continue
		}
		if l.cur < 0 {
			l.cur = i
			continue
		}
		c := bytes.Compare(l.key(i), l.key(l.cur))
		if l.reverse {
			c = -c
		}
		if c < 0 {
			l.cur = i
		}
	}
}

func (l *levels) valid() bool { return l.cur >= 0 }

// own reports whether the current key comes from a spill area (the
// table's own writes) rather than the committed rows.
func (l *levels) own() bool { return l.cur < len(l.its)-1 }

// value returns the current key's value and whether it is a row (false:
// a deletion recorded in a spill area).
func (l *levels) value() ([]byte, bool, error) {
	v, err := l.its[l.cur].ValueAndErr()
	if err != nil || !l.own() {
		return v, true, err
	}
	if len(v) == 0 || v[0] == 0 {
		return nil, false, nil
	}
	return v[1:], true, nil
}

// next steps past the current key in every iterator holding it.
func (l *levels) next() {
	k := bytes.Clone(l.key(l.cur))
	for i, it := range l.its {
		if it.Valid() && bytes.Equal(l.key(i), k) {
			if l.reverse {
				it.Prev()
			} else {
				it.Next()
			}
		}
	}
	l.pick()
}

func (l *levels) err() error {
	for _, it := range l.its {
		if err := it.Error(); err != nil {
			return err
		}
	}
	return nil
}

func (l *levels) close() {
	for _, it := range l.its {
		_ = it.Close()
	}
	l.its = nil
}
