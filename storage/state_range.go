package storage

import (
	"github.com/weirdb/weir/types"
)

// This file is StateTable's deletion of a key range by one Pebble range
// deletion (DeleteBefore), for operators that drop whole ranges of
// their state at once: an aggregation closing the windows a watermark
// passed, a join forgetting the rows below its clean bound. Deleting
// row by row writes a tombstone per row, which the checkpoint's batch,
// the memtable, its flush and every compaction then carry; a range
// deletion is one write, and compactions drop the rows it covers.
//
// Until the batch holding it is durable, a range deletion is pending:
// the table's reads of Pebble and of its spill areas hide the rows in
// it (none of them written after it: see spill, which keeps in memory
// the entries it would flush into a pending range), and the entries in
// memory that it covers are forgotten at once.

// rangeDel is a pending range deletion of the keys in [lo, hi) (encoded,
// without the table's prefix); epoch is the epoch whose batch holds it,
// 0 while that epoch is open.
type rangeDel struct {
	lo, hi string
	epoch  uint64
}

// SoleWriter declares that no other actor writes this table's keyspace
// (its operator runs as one actor), so that a range of keys may be
// deleted by one range deletion (DeleteBefore): with several actors
// sharing the keyspace, it would delete the others' rows too. It must
// be called before the table is used.
func (t *StateTable) SoleWriter() { t.sole = true }

// CanDeleteBefore reports whether DeleteBefore would delete by range
// now: the table is its keyspace's sole writer (SoleWriter), holds
// every row in memory (Exclusive) or keeps no clean entries
// (DropClean), has not flushed the open epoch early into a spill area,
// and its first key column sorts ascending (and is of a known type,
// whose values' keys do not all encode as NULL's).
func (t *StateTable) CanDeleteBefore() bool {
	return t.sole && (t.whole || t.dropClean) && t.spillID == 0 && len(t.keyTypes) > 0 && !t.desc[0] &&
		t.keyTypes[0].ID != types.Unknown
}

// DeleteBefore deletes, in the open epoch, every row whose first key
// column is not NULL and sorts below w, with one range deletion, and
// reports true; it does nothing and reports false when CanDeleteBefore
// does not hold (or w is NULL), for the caller to delete the rows one
// by one. The rows deleted are gone for the table's reads at once.
func (t *StateTable) DeleteBefore(w types.Datum) bool {
	if w.Null || !t.CanDeleteBefore() {
		return false
	}
	t.writes++
	hiB := types.AppendKey(nil, w, t.keyTypes[0], false)
	// A non-NULL value's key starts with the same byte as w's; NULLs
	// sort before it.
	lo, hi := string(hiB[:1]), string(hiB)
	// The entries in the tree, then those on their way into it: a
	// table only ever range-deleted (an aggregation's groups) thus
	// never sorts its entries into the tree.
	var covered []*stEntry
	t.overlay.AscendFunc(t.ge(lo), t.lt(hi), func(id int32, _ struct{}) bool {
		covered = append(covered, t.slab.at(id))
		return true
	})
	// The range starts at the least non-NULL key: with no NULL key in
	// the tree, its entries are the tree's first ones, which DeleteMin
	// takes out without searching for each.
	if id, _, ok := t.overlay.Min(); ok && t.slab.at(id).key() >= lo {
		for _, e := range covered {
			t.overlay.DeleteMin()
			e.inTree = false
		}
	}
	for _, e := range covered {
		t.forget(e)
	}
	keepU := t.unsorted[:0]
	for _, e := range t.unsorted {
		switch {
		case e.gone || e.inTree:
		case e.key() >= lo && e.key() < hi:
			t.forget(e)
		default:
			keepU = append(keepU, e)
		}
	}
	clear(t.unsorted[len(keepU):])
	t.unsorted = keepU
	// A DropClean table may hold several dirty entries of a key, the
	// tree only the last.
	keep := t.dirty[:0]
	for _, e := range t.dirty {
		switch {
		case e.gone:
			// Forgotten above (its bytes left dirtyBytes then).
		case e.key() >= lo && e.key() < hi:
			t.forget(e)
		default:
			keep = append(keep, e)
		}
	}
	clear(t.dirty[len(keep):])
	t.dirty = keep
	t.rangeDels = append(t.rangeDels, rangeDel{lo: lo, hi: hi})
	t.flushUsed()
	return true
}

// forget removes an entry covered by a range deletion from memory: from
// the index, the B-tree and the LRU list, and gives its slot back;
// Committed skips it in its list, and a dirty one must also leave
// t.dirty (its bytes leave dirtyBytes here).
func (t *StateTable) forget(e *stEntry) {
	if e.gone {
		return
	}
	if e.inTree {
		e.inTree = false
		t.overlay.Delete(e.id)
	}
	if !e.inOverlay && t.inLRU(e) {
		t.lruRemove(e)
	}
	if !t.dropClean && t.index.get(&t.slab, e.key(), e.tag) == e {
		t.index.del(e)
	}
	if e.dirty {
		t.dirtyBytes -= e.size
	}
	t.releaseEntry(e)
}

// hidden reports whether key (encoded, without the table's prefix) is
// in a pending range deletion: a row of it read from Pebble or a spill
// area is deleted.
func (t *StateTable) hidden(key []byte) bool {
	return hiddenIn(t.rangeDels, key)
}

func hiddenIn(ds []rangeDel, key []byte) bool {
	for _, d := range ds {
		if string(key) >= d.lo && string(key) < d.hi {
			return true
		}
	}
	return false
}

// commitRanges writes the open epoch's range deletions into b, before
// the epoch's other writes (which, made after them or not, are of keys
// still held: written after, they must survive them).
func (t *StateTable) commitRanges(b *Batch, epoch uint64) error {
	for i := range t.rangeDels {
		d := &t.rangeDels[i]
		if d.epoch != 0 {
			continue
		}
		d.epoch = epoch
		lo := append(append([]byte(nil), t.prefix...), d.lo...)
		hi := append(append([]byte(nil), t.prefix...), d.hi...)
		if err := b.b.DeleteRange(lo, hi, nil); err != nil {
			return wrapWrite(err)
		}
	}
	return nil
}

// committedRanges forgets the range deletions durable with epoch.
func (t *StateTable) committedRanges(epoch uint64) {
	keep := t.rangeDels[:0]
	for _, d := range t.rangeDels {
		if d.epoch == 0 || d.epoch > epoch {
			keep = append(keep, d)
		}
	}
	t.rangeDels = keep
}
