package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/vfs"
	"golang.org/x/sys/unix"

	"github.com/weirdb/weir/internal/pgerr"
)

// The redo log holds the DML statements acknowledged before the
// checkpoint holding their writes commits. A small statement's commit
// appends one record (its table writes and changelog, encoded by the
// engine) and is acknowledged once the record is fsynced: one fdatasync
// of a preallocated file, shared by every statement committing at the
// same time, instead of a checkpoint through every job. The checkpoint
// that holds the statement's writes records its LSN as applied in the
// same atomic batch (Batch.TruncateRedo), and the files whose records
// are all applied are deleted after it (DB.DropRedo); after a crash the
// records past the applied mark are exactly the acknowledged statements
// the committed state lacks, and the recovery applies them again
// (DB.EachRedo). This is PostgreSQL's write-ahead log for tables, with
// Flink's checkpoints for everything derived from them.
//
// The log is a directory of segment files (<data-dir>/redo), each named
// by the LSN of its first record and preallocated, so that appending
// does not grow the file and an fdatasync writes the data and no file
// size (PostgreSQL preallocates its WAL segments for the same reason).
// A record is framed as
//
//	u32 length | u32 CRC-32C of (lsn | payload) | u64 lsn | payload
//
// all big-endian. Records are appended in LSN order, one after the other;
// reading stops at the first frame that is zero, torn or out of order.
// A segment is synced before the next one is started, so only the last
// one can end in a torn record.

// metaRedoApplied names the metadata entry holding the highest LSN whose
// record a committed checkpoint holds (8 bytes big-endian).
const metaRedoApplied = "redo_applied"

// redoDir is the redo log's directory in the data directory.
const redoDir = "redo"

// redoSegmentBytes is the size a segment is preallocated to; a record
// that does not fit starts the next one (a larger record gets a segment
// of its size).
const redoSegmentBytes = 8 << 20

// redoFrameHeader is the size of a record's frame before its payload.
const redoFrameHeader = 16

var redoCRC = crc32.MakeTable(crc32.Castagnoli)

// redoLog is the open redo log of a DB.
type redoLog struct {
	fs  vfs.FS
	dir string
	log *slog.Logger
	// segBytes is the size segments are preallocated to
	// (redoSegmentBytes; tests make it small).
	segBytes int64

	// mu guards the fields below; appends hold it while they write.
	mu sync.Mutex
	// segs are the segments' first LSNs, oldest first; the last is cur's
	// once an append started it.
	segs    []uint64
	cur     vfs.File
	off     int64
	written uint64 // the last LSN appended
	loaded  bool   // segs read from the directory
	// failed is the first failed fsync's error. A failed fsync may have
	// dropped the records it covered from the page cache, and a later
	// one would then succeed without them (Linux clears the error once
	// reported), so the log takes no more records, and no later Wait
	// succeeds for a record not synced before, until the process
	// restarts: PostgreSQL panics on a failed WAL fsync for this reason.
	failed error

	// syncMu orders the syncs: one at a time, each covering every record
	// written before it began.
	syncMu sync.Mutex
	synced atomic.Uint64
	buf    []byte
}

func segmentName(first uint64) string { return fmt.Sprintf("%016x.redo", first) }

// load lists the segments on disk once. Called under mu.
func (l *redoLog) load() error {
	if l.loaded {
		return nil
	}
	names, err := l.fs.List(l.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return pgerr.Wrap(pgerr.IOError, err, "listing the redo log")
	}
	for _, n := range names {
		hex, ok := strings.CutSuffix(n, ".redo")
		if !ok {
			continue
		}
		first, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			continue
		}
		l.segs = append(l.segs, first)
	}
	slices.Sort(l.segs)
	l.loaded = true
	return nil
}

// RedoWait is an appended redo record whose fsync may not be done yet.
type RedoWait struct {
	l   *redoLog
	lsn uint64
}

// AppendRedo appends the record rec under lsn and returns without waiting
// for its fsync. Callers append in LSN order, one after the other (under
// one lock), and call Wait outside that lock, so that concurrent
// statements share an fsync.
func (db *DB) AppendRedo(lsn uint64, rec []byte) (*RedoWait, error) {
	l := db.redo
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return nil, fmt.Errorf("%w: %w", ErrRedoFailed, l.failed)
	}
	if err := l.load(); err != nil {
		return nil, err
	}
	n := int64(redoFrameHeader + len(rec))
	if l.cur == nil || l.off+n > l.segBytes {
		if err := l.startSegment(lsn, max(n, l.segBytes)); err != nil {
			return nil, err
		}
	}
	l.buf = binary.BigEndian.AppendUint32(l.buf[:0], uint32(len(rec)))
	l.buf = binary.BigEndian.AppendUint32(l.buf, 0)
	l.buf = binary.BigEndian.AppendUint64(l.buf, lsn)
	l.buf = append(l.buf, rec...)
	binary.BigEndian.PutUint32(l.buf[4:], crc32.Checksum(l.buf[8:], redoCRC))
	if _, err := l.cur.WriteAt(l.buf, l.off); err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "appending to the redo log")
	}
	l.off += n
	l.written = lsn
	return &RedoWait{l: l, lsn: lsn}, nil
}

// startSegment syncs and closes the current segment and starts one whose
// first record is lsn, preallocated to size bytes. Called under mu.
func (l *redoLog) startSegment(lsn uint64, size int64) error {
	if l.cur != nil {
		// Its records are durable before any of the next segment's.
		if err := l.cur.SyncData(); err != nil {
			l.failed = pgerr.Wrap(pgerr.IOError, err, "syncing the redo log")
			return l.failed
		}
		l.markSynced(l.written)
		_ = l.cur.Close()
		l.cur = nil
	}
	// Segments from lsn on are what a crash left past the log's end (one
	// created before its first record was written, or one after a torn
	// record): scan stopped before their records, none of which was
	// acknowledged. They are forgotten, and deleted but for the one
	// Create below truncates; listed with it, the same name would count
	// twice and DropRedo delete the segment being appended to.
	for n := len(l.segs); n > 0 && l.segs[n-1] >= lsn; n-- {
		if first := l.segs[n-1]; first != lsn {
			if err := l.fs.Remove(l.fs.PathJoin(l.dir, segmentName(first))); err != nil && !errors.Is(err, os.ErrNotExist) {
				return pgerr.Wrap(pgerr.IOError, err, "removing a redo log segment past the log's end")
			}
		}
		l.segs = l.segs[:n-1]
	}
	if err := l.fs.MkdirAll(l.dir, 0o755); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "creating the redo log's directory")
	}
	f, err := l.fs.Create(l.fs.PathJoin(l.dir, segmentName(lsn)), vfs.WriteCategoryUnspecified)
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "creating a redo log segment")
	}
	if fd := f.Fd(); fd != vfs.InvalidFd {
		// Allocated and sized now: an append then changes neither the
		// file's size nor its blocks' allocation.
		err = unix.Fallocate(int(fd), 0, 0, size)
	} else {
		err = f.Preallocate(0, size)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		// The directory's entry in the data directory too, the first
		// time.
		err = syncDir(l.fs, l.dir)
		if err == nil && len(l.segs) == 0 {
			err = syncDir(l.fs, l.fs.PathDir(l.dir))
		}
	}
	if err != nil {
		_ = f.Close()
		return pgerr.Wrap(pgerr.IOError, err, "preallocating a redo log segment")
	}
	l.cur, l.off = f, 0
	l.segs = append(l.segs, lsn)
	return nil
}

// Wait returns once the record, and every record appended before it, is
// durable. Once an fsync of the log failed, it fails for every record
// not synced before.
func (w *RedoWait) Wait() error {
	l := w.l
	if l.synced.Load() >= w.lsn {
		return nil
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if l.synced.Load() >= w.lsn {
		// Synced by the statement that synced before this one.
		return nil
	}
	l.mu.Lock()
	f, upTo, failed := l.cur, l.written, l.failed
	l.mu.Unlock()
	if upTo <= l.synced.Load() {
		return nil // a new segment's start synced it
	}
	if failed != nil {
		return failed
	}
	if f == nil {
		return pgerr.New(pgerr.IOError, "the redo log is closed")
	}
	if err := f.SyncData(); err != nil {
		if l.synced.Load() >= upTo {
			// The next segment's start synced and closed this one.
			return nil
		}
		err = pgerr.Wrap(pgerr.IOError, err, "syncing the redo log")
		l.mu.Lock()
		if l.failed == nil {
			l.failed = err
		}
		l.mu.Unlock()
		return err
	}
	l.markSynced(upTo)
	return nil
}

// ErrRedoFailed is the error AppendRedo wraps once an fsync of the redo
// log failed: the log takes no records until the process restarts.
var ErrRedoFailed = errors.New("the redo log takes no records after a failed fsync")

// markSynced records that the records up to lsn are durable.
func (l *redoLog) markSynced(lsn uint64) {
	for {
		cur := l.synced.Load()
		if cur >= lsn || l.synced.CompareAndSwap(cur, lsn) {
			return
		}
	}
}

// redoApplied returns the applied mark the last committed checkpoint
// left (0 when none did).
func (db *DB) redoApplied() (uint64, error) {
	return db.metaUint64(metaRedoApplied, "redo applied mark")
}

// EachRedo calls fn, in LSN order, with every record past the applied
// mark (the acknowledged statements the committed state lacks), stopping
// at the first error fn returns. rec is valid only during the call.
func (db *DB) EachRedo(fn func(lsn uint64, rec []byte) error) error {
	applied, err := db.redoApplied()
	if err != nil {
		return err
	}
	_, err = db.redo.scan(func(lsn uint64, rec []byte) error {
		if lsn <= applied {
			return nil
		}
		return fn(lsn, rec)
	})
	return err
}

// scan reads every segment's valid records in order, calling fn (when
// not nil) with each, and returns the last LSN read.
func (l *redoLog) scan(fn func(lsn uint64, rec []byte) error) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.load(); err != nil {
		return 0, err
	}
	var last uint64
	for i, first := range l.segs {
		if i > 0 && first != last+1 {
			// A segment after a torn end: nothing after it was ever
			// acknowledged.
			if fn != nil {
				l.log.Warn("redo log segment past the log's end ignored", "segment", segmentName(first), "last_lsn", last)
			}
			break
		}
		data, err := l.readSegment(first)
		if err != nil {
			return 0, err
		}
		next := first
		for len(data) >= redoFrameHeader {
			n := binary.BigEndian.Uint32(data)
			sum := binary.BigEndian.Uint32(data[4:])
			lsn := binary.BigEndian.Uint64(data[8:])
			if n == 0 && sum == 0 {
				break // the preallocated zeros: the end
			}
			if int64(n) > int64(len(data)-redoFrameHeader) || lsn != next ||
				crc32.Checksum(data[8:redoFrameHeader+int(n)], redoCRC) != sum {
				// A record torn by a crash (never acknowledged) or
				// damaged: the log ends here, as PostgreSQL's WAL
				// replay ends at an invalid record, and says so.
				if fn != nil {
					l.log.Warn("redo log ends at an invalid record", "segment", segmentName(first), "lsn", next)
				}
				break
			}
			if fn != nil {
				if err := fn(lsn, data[redoFrameHeader:redoFrameHeader+int(n)]); err != nil {
					return 0, err
				}
			}
			last, next = lsn, lsn+1
			data = data[redoFrameHeader+int(n):]
		}
	}
	return last, nil
}

// readSegment returns the contents of the segment starting at first.
func (l *redoLog) readSegment(first uint64) ([]byte, error) {
	f, err := l.fs.Open(l.fs.PathJoin(l.dir, segmentName(first)))
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "opening a redo log segment")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "reading a redo log segment")
	}
	return data, nil
}

// LastRedoLSN returns the highest LSN handed out so far: that of the
// last record in the log, or the applied mark a checkpoint left when the
// log holds none past it. LSNs continue from it after a restart.
func (db *DB) LastRedoLSN() (uint64, error) {
	applied, err := db.redoApplied()
	if err != nil {
		return 0, err
	}
	last, err := db.redo.scan(nil)
	if err != nil {
		return 0, err
	}
	return max(applied, last), nil
}

// TruncateRedo records, in the batch that commits a checkpoint, that the
// checkpoint holds the writes of the redo records up to lsn (inclusive):
// a recovery skips them, and DropRedo deletes their segments once the
// batch is committed.
func (b *Batch) TruncateRedo(lsn uint64) error {
	return b.SetMeta(metaRedoApplied, binary.BigEndian.AppendUint64(nil, lsn))
}

// DropRedo deletes the segments whose records are all at or below lsn,
// an applied mark a committed checkpoint recorded. The segment being
// appended to stays.
func (db *DB) DropRedo(lsn uint64) error {
	l := db.redo
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.load(); err != nil {
		return err
	}
	n := 0
	for n+1 < len(l.segs) && l.segs[n+1]-1 <= lsn {
		if err := l.fs.Remove(l.fs.PathJoin(l.dir, segmentName(l.segs[n]))); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.segs = l.segs[n:]
			return pgerr.Wrap(pgerr.IOError, err, "removing a redo log segment")
		}
		n++
	}
	l.segs = l.segs[n:]
	return nil
}

// copyRedo copies the redo log's segments into the data directory dir
// (a checkpoint's copy), holding off DropRedo meanwhile.
func (db *DB) copyRedo(dir string) error {
	l := db.redo
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.load(); err != nil || len(l.segs) == 0 {
		return err
	}
	fs := db.fs
	to := fs.PathJoin(dir, redoDir)
	if err := fs.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, first := range l.segs {
		data, err := l.readSegment(first)
		if err != nil {
			return err
		}
		f, err := fs.Create(fs.PathJoin(to, segmentName(first)), vfs.WriteCategoryUnspecified)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return syncDir(fs, to)
}

// closeRedo closes the segment being appended to.
func (db *DB) closeRedo() {
	l := db.redo
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur != nil {
		_ = l.cur.Close()
		l.cur = nil
	}
}

// CheckRedoWrites reports whether repr, a redo record's writes, is a
// well-formed write batch holding only the kinds of write a statement
// makes. ApplyRedo appends the writes before Pebble reads them, so a
// record that passed its checksum but not this (edited by hand) would
// leave the batches it is applied to unreadable, or panic on a kind no
// batch may hold.
func CheckRedoWrites(repr []byte) error {
	bad := pgerr.New(pgerr.DataCorrupted, "corrupt redo record: malformed writes")
	h, ok := batchrepr.ReadHeader(repr)
	if !ok {
		return bad
	}
	r := batchrepr.Read(repr)
	n := uint32(0)
	for {
		kind, _, _, ok, err := r.Next()
		if err != nil {
			return bad
		}
		if !ok {
			break
		}
		switch kind {
		case pebble.InternalKeyKindSet, pebble.InternalKeyKindDelete, pebble.InternalKeyKindRangeDelete:
		default:
			return bad
		}
		n++
	}
	if n != h.Count {
		return bad
	}
	return nil
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
	if err := src.SetRepr(slices.Clone(repr)); err != nil {
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
