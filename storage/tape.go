package storage

import (
	"bufio"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// Tape is a file of records that can be read in both directions from
// any record boundary, as PostgreSQL's tuplestore reads its temporary
// file: a scrollable cursor keeps the rows it holds beyond its share of
// memory on one. Each record is framed by its length on both sides,
//
//	[len u32][record][len u32]
//
// so the reader needs no index: it steps from a boundary to the next
// (Next) or the previous (Prev). Like a Log it lives in the logs
// directory, which Open empties, and is not safe for concurrent use.
type Tape struct {
	db   *DB
	path string
	f    vfs.File
	w    *bufio.Writer
	// size is the offset after the last record appended; written is the
	// part of it flushed to the file.
	size, written int64
	hdr           [4]byte
	// gen counts the flushes, which invalidate the blocks cached.
	gen uint64
	// cache holds the block Next, Skip and Prev read through.
	cache tapeCache
}

// tapeCache caches the aligned tapeBlock-sized piece of a tape's file at
// off (block nil when none), so that stepping from record to record,
// either way, reads the file once per block.
type tapeCache struct {
	block []byte
	off   int64
	// gen is the tape's gen when the block was read: a flush may have
	// added to the block since.
	gen uint64
}

// tapeWriteBuffer is the size of a tape's write buffer.
const tapeWriteBuffer = 64 << 10

// tapeBlock is the size of the piece of a tape's file a reader caches.
const tapeBlock = 64 << 10

// NewTape returns a new, empty tape.
func (db *DB) NewTape() (*Tape, error) {
	id, err := db.NextID("log")
	if err != nil {
		return nil, err
	}
	path := db.fs.PathJoin(db.dir, logDir, "tape-"+strconv.FormatUint(id, 10))
	f, err := db.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "creating tape")
	}
	return &Tape{db: db, path: path, f: f, w: bufio.NewWriterSize(f, tapeWriteBuffer)}, nil
}

// Append adds rec at the end of the tape.
func (t *Tape) Append(rec []byte) error {
	if t.f == nil {
		return pgerr.New(pgerr.InternalError, "tape used after Discard")
	}
	if t.w == nil {
		t.w = bufio.NewWriterSize(t.f, tapeWriteBuffer)
	}
	binary.BigEndian.PutUint32(t.hdr[:], uint32(len(rec)))
	for _, b := range [][]byte{t.hdr[:], rec, t.hdr[:]} {
		if _, err := t.w.Write(b); err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "writing tape")
		}
	}
	t.size += int64(len(rec)) + 8
	return nil
}

// Seal writes the records appended so far to the file and releases the
// tape's write buffer. A tape written whole before it is read (a sorted
// run, a hash partition) is sealed when its writing ends, so that the
// many of them an operator may hold cost no memory until they are read;
// appending after Seal takes a new buffer.
func (t *Tape) Seal() error {
	if t.f == nil {
		return pgerr.New(pgerr.InternalError, "tape used after Discard")
	}
	if err := t.flush(); err != nil {
		return err
	}
	t.w = nil
	return nil
}

// Size returns the offset after the last record: the end boundary.
func (t *Tape) Size() int64 { return t.size }

// flush makes every appended record readable from the file.
func (t *Tape) flush() error {
	if t.written == t.size {
		return nil
	}
	if err := t.w.Flush(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "writing tape")
	}
	t.written = t.size
	t.gen++
	return nil
}

func (t *Tape) readAt(p []byte, off int64) error { return t.readCached(&t.cache, p, off) }

// readCached reads len(p) bytes at off through cache c.
func (t *Tape) readCached(c *tapeCache, p []byte, off int64) error {
	if t.f == nil {
		return pgerr.New(pgerr.InternalError, "tape used after Discard")
	}
	if err := t.flush(); err != nil {
		return err
	}
	start := off / tapeBlock * tapeBlock
	if off+int64(len(p)) > start+tapeBlock {
		// Across a block boundary (or larger than a block): read it
		// directly.
		if _, err := t.f.ReadAt(p, off); err != nil {
			return pgerr.Wrap(pgerr.IOError, err, "reading tape")
		}
		return nil
	}
	if c.block == nil || c.off != start || c.gen != t.gen {
		n := min(tapeBlock, t.size-start)
		c.block = slices.Grow(c.block[:0], int(n))[:n]
		if _, err := t.f.ReadAt(c.block, start); err != nil {
			c.block = nil
			return pgerr.Wrap(pgerr.IOError, err, "reading tape")
		}
		c.off, c.gen = start, t.gen
	}
	copy(p, c.block[off-start:])
	return nil
}

// Next reads the record starting at boundary off into buf (grown as
// needed) and returns it with the boundary after it.
func (t *Tape) Next(off int64, buf []byte) (rec []byte, next int64, err error) {
	if err := t.readAt(t.hdr[:], off); err != nil {
		return nil, 0, err
	}
	n := int64(binary.BigEndian.Uint32(t.hdr[:]))
	rec = slices.Grow(buf[:0], int(n))[:n]
	if err := t.readAt(rec, off+4); err != nil {
		return nil, 0, err
	}
	return rec, off + n + 8, nil
}

// ReadRecords reads the records between boundaries from and to into buf
// (grown as needed) straight from the file, past the block cache, for a
// reader that looks up a few records at random places (a 64 kB block
// each time would cost more than the records); SplitRecord walks them.
func (t *Tape) ReadRecords(from, to int64, buf []byte) ([]byte, error) {
	if t.f == nil {
		return nil, pgerr.New(pgerr.InternalError, "tape used after Discard")
	}
	if err := t.flush(); err != nil {
		return nil, err
	}
	if from < 0 || to > t.size || from > to {
		return nil, pgerr.New(pgerr.InternalError, "tape range %d..%d outside its %d bytes", from, to, t.size)
	}
	buf = slices.Grow(buf[:0], int(to-from))[:to-from]
	if _, err := t.f.ReadAt(buf, from); err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "reading tape")
	}
	return buf, nil
}

// SplitRecord returns the first record of b, records as ReadRecords
// reads them, and the rest of b after it.
func SplitRecord(b []byte) (rec, rest []byte, err error) {
	if len(b) < 8 {
		return nil, nil, pgerr.New(pgerr.DataCorrupted, "tape record cut short")
	}
	n := int(binary.BigEndian.Uint32(b))
	if len(b) < n+8 {
		return nil, nil, pgerr.New(pgerr.DataCorrupted, "tape record cut short")
	}
	return b[4 : 4+n], b[n+8:], nil
}

// TapeReader reads a tape's records through a block cache of its own,
// so that readers at different places of one tape (the frame's head and
// tail in a window's partition) do not evict each other's block. Each
// costs a block (64 kB) once it read.
type TapeReader struct {
	t     *Tape
	cache tapeCache
	hdr   [4]byte
}

// NewReader returns a reader of t with a cache of its own.
func (t *Tape) NewReader() *TapeReader { return &TapeReader{t: t} }

// Next is Tape.Next through r's cache.
func (r *TapeReader) Next(off int64, buf []byte) (rec []byte, next int64, err error) {
	if err := r.t.readCached(&r.cache, r.hdr[:], off); err != nil {
		return nil, 0, err
	}
	n := int64(binary.BigEndian.Uint32(r.hdr[:]))
	rec = slices.Grow(buf[:0], int(n))[:n]
	if err := r.t.readCached(&r.cache, rec, off+4); err != nil {
		return nil, 0, err
	}
	return rec, off + n + 8, nil
}

// Skip is Tape.Skip through r's cache.
func (r *TapeReader) Skip(off int64) (int64, error) {
	if err := r.t.readCached(&r.cache, r.hdr[:], off); err != nil {
		return 0, err
	}
	return off + int64(binary.BigEndian.Uint32(r.hdr[:])) + 8, nil
}

// Prev is Tape.Prev through r's cache.
func (r *TapeReader) Prev(off int64) (int64, error) {
	if err := r.t.readCached(&r.cache, r.hdr[:], off-4); err != nil {
		return 0, err
	}
	return off - int64(binary.BigEndian.Uint32(r.hdr[:])) - 8, nil
}

// Release drops r's block; r reads the file again when next used.
func (r *TapeReader) Release() { r.cache = tapeCache{} }

// Skip returns the boundary after the record starting at boundary off,
// without reading the record.
func (t *Tape) Skip(off int64) (int64, error) {
	if err := t.readAt(t.hdr[:], off); err != nil {
		return 0, err
	}
	return off + int64(binary.BigEndian.Uint32(t.hdr[:])) + 8, nil
}

// Prev returns the boundary before the record ending at boundary off
// (off > 0).
func (t *Tape) Prev(off int64) (int64, error) {
	if err := t.readAt(t.hdr[:], off-4); err != nil {
		return 0, err
	}
	return off - int64(binary.BigEndian.Uint32(t.hdr[:])) - 8, nil
}

// Discard removes the tape. It may be called more than once.
func (t *Tape) Discard() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f, t.w = nil, nil
	if rerr := t.db.fs.Remove(t.path); err == nil {
		err = rerr
	}
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "removing tape")
	}
	return nil
}
