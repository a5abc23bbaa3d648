package storage

import (
	"bytes"
	"encoding/binary"

	"github.com/cockroachdb/pebble/v2"
	"github.com/weirdb/weir/internal/pgerr"
)

// The redo log holds the DML statements acknowledged before the
// checkpoint holding their writes commits. A small statement's commit
// appends one record (its table writes and changelog, encoded by the
// engine) and is acknowledged once the record is fsynced: one fsync of
// the write-ahead log, shared by every statement committing at the same
// time, instead of a checkpoint through every job. The checkpoint that
// holds the statement's writes removes its record in the same atomic
// batch (Batch.TruncateRedo), so after a crash the records left are
// exactly the acknowledged statements the committed state lacks, and the
// recovery applies them again (DB.EachRedo). This is PostgreSQL's
// write-ahead log for tables, with Flink's checkpoints for everything
// derived from them.
//
// Records are keyed by their log sequence number (LSN), which the engine
// hands out in the order statements commit; they live under PrefixRedo.

// metaRedoApplied names the metadata entry holding the highest LSN whose
// record a committed checkpoint holds (8 bytes big-endian).
const metaRedoApplied = "redo_applied"

// RedoKey returns the key of the redo record lsn:
// [PrefixRedo][lsn, 8 bytes big-endian], so records scan in LSN order.
func RedoKey(lsn uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{PrefixRedo}, lsn)
}

// RedoWait is an appended redo record whose fsync may not be done yet.
type RedoWait struct {
	b *pebble.Batch
}

// AppendRedo appends the record rec under lsn to the write-ahead log and
// returns without waiting for its fsync: it is visible to reads and
// ordered after every record appended before it. Callers append in LSN
// order (under one lock) and call Wait outside it, so that concurrent
// statements share an fsync. A record larger than the memtable's large
// batch threshold is refused by the caller's size limit, not here.
func (db *DB) AppendRedo(lsn uint64, rec []byte) (*RedoWait, error) {
	b := db.pdb.NewBatch()
	if err := b.Set(RedoKey(lsn), rec, nil); err != nil {
		b.Close()
		return nil, wrapWrite(err)
	}
	if err := db.pdb.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		b.Close()
		return nil, pgerr.Wrap(pgerr.IOError, err, "appending to the redo log")
	}
	return &RedoWait{b: b}, nil
}

// Wait returns once the record, and every record appended before it, is
// durable. It must be called exactly once.
func (w *RedoWait) Wait() error {
	err := w.b.SyncWait()
	w.b.Close()
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "syncing the redo log")
	}
	return nil
}

// EachRedo calls fn with every redo record in LSN order, stopping at the
// first error fn returns. rec is valid only during the call.
func (db *DB) EachRedo(fn func(lsn uint64, rec []byte) error) error {
	return scanPrefix(db.pdb, []byte{PrefixRedo}, func(key, value []byte) error {
		if len(key) != 9 {
			return pgerr.New(pgerr.DataCorrupted, "corrupt redo log key %x", key)
		}
		return fn(binary.BigEndian.Uint64(key[1:]), value)
	})
}

// LastRedoLSN returns the highest LSN handed out so far: that of the
// last record in the log, or the applied mark a checkpoint left when the
// log is empty. LSNs continue from it after a restart.
func (db *DB) LastRedoLSN() (uint64, error) {
	var last uint64
	v, ok, err := db.Meta(metaRedoApplied)
	if err != nil {
		return 0, err
	}
	if ok {
		if len(v) != 8 {
			return 0, pgerr.New(pgerr.DataCorrupted, "corrupt redo applied mark (%d bytes)", len(v))
		}
		last = binary.BigEndian.Uint64(v)
	}
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: []byte{PrefixRedo}, UpperBound: []byte{PrefixRedo + 1}})
	if err != nil {
		return 0, pgerr.Wrap(pgerr.IOError, err, "opening iterator")
	}
	defer it.Close()
	if it.Last() {
		k := it.Key()
		if len(k) != 9 || !bytes.HasPrefix(k, []byte{PrefixRedo}) {
			return 0, pgerr.New(pgerr.DataCorrupted, "corrupt redo log key %x", k)
		}
		last = max(last, binary.BigEndian.Uint64(k[1:]))
	}
	return last, it.Error()
}

// TruncateRedo removes, in the batch that commits a checkpoint, the redo
// records up to lsn (inclusive), whose writes the checkpoint holds, and
// records lsn as applied.
func (b *Batch) TruncateRedo(lsn uint64) error {
	if err := b.check(); err != nil {
		return err
	}
	if err := wrapWrite(b.b.DeleteRange([]byte{PrefixRedo}, RedoKey(lsn+1), nil)); err != nil {
		return err
	}
	return b.SetMeta(metaRedoApplied, binary.BigEndian.AppendUint64(nil, lsn))
}

// ApplyRedo appends to b the writes encoded in repr, the Repr of a
// write batch (a redo record's table writes, applied again by a
// recovery).
func (b *Batch) ApplyRedo(repr []byte) error {
	if err := b.check(); err != nil {
		return err
	}
	src := b.db.pdb.NewBatch()
	defer src.Close()
	if err := src.SetRepr(bytes.Clone(repr)); err != nil {
		return pgerr.Wrap(pgerr.DataCorrupted, err, "decoding a redo record's writes")
	}
	b.forgetTops()
	err := b.b.Apply(src, nil)
	b.recount()
	return wrapWrite(err)
}

// Repr returns the encoded writes of the batch (for a redo record);
// valid until the batch changes.
func (b *Batch) Repr() []byte { return b.b.Repr() }
