package storage

import (
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/pgerr"
)

// This file serves a table rewrite (ALTER TABLE ... ALTER COLUMN ...
// TYPE): the new rows go into a spill area of the table (area.go), and
// one durable batch commits the area's mark together with the catalog's
// new entry (Batch.CommitArea in the catalog's own batch), so a crash
// leaves either the old rows and the old entry or, once the recovery of
// Open has moved the marked area, the new ones.

// HasWrites reports whether the indexed batch holds writes of its own to
// tableID, or reads spill areas of it.
func (b *Batch) HasWrites(tableID uint32) (bool, error) {
	if err := b.checkRead(); err != nil {
		return false, err
	}
	if b.HasAreas(tableID) {
		return true, nil
	}
	p := TablePrefix(tableID)
	it, err := b.b.NewBatchOnlyIter(context.Background(), &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return false, pgerr.Wrap(pgerr.IOError, err, "reading a batch")
	}
	defer it.Close()
	found := it.First()
	if err := it.Error(); err != nil {
		return false, pgerr.Wrap(pgerr.IOError, err, "reading a batch")
	}
	return found, nil
}

// Holds reports whether the area's flushed writes put a row at key (its
// deletion is not a row).
func (a *Area) Holds(key []byte) (bool, error) {
	if !a.mayHold(key) {
		return false, nil
	}
	v, closer, err := a.db.pdb.Get(append(a.ref.prefix(), key...))
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, pgerr.Wrap(pgerr.IOError, err, "reading spill area")
	}
	defer closer.Close()
	return len(v) > 0 && v[0] == 1, nil
}
