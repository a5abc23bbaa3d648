package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// Options configures Open. The zero value opens a database on the real
// file system with Pebble's share of the default memory budget
// (PebbleShare(256 MiB): 32 MiB).
type Options struct {
	// FS is the file system; nil means the operating system's. Tests pass
	// vfs.NewMem() or vfs.NewCrashableMem().
	FS vfs.FS
	// Logger receives Pebble's messages at debug level (errors at error
	// level); nil means slog.Default().
	Logger *slog.Logger
	// PebbleBytes is what Pebble may hold in memory, its block cache and
	// its memtables together (see PebbleShare and pebbleSizes); 0 means
	// PebbleShare(256 MiB).
	PebbleBytes int64
}

// The bounds of Pebble's share of the memory budget (PebbleShare) and of
// its memtable size (pebbleSizes).
const (
	minPebbleBytes   = 32 << 20
	maxPebbleBytes   = 1 << 30
	minMemTableBytes = 1 << 20
	maxMemTableBytes = 64 << 20
	// memTables is Pebble's MemTableStopWritesThreshold: writes wait
	// while the memtables (the one being written and those being
	// flushed) hold more than memTables times the memtable size.
	memTables = 2
)

// PebbleShare returns the part of a memory budget of budget bytes that
// Pebble's block cache and memtables take: an eighth, at least 32 MiB and
// at most 1 GiB. BudgetShares gives the rest to the Go runtime and a
// fixed part, so that together they hold at most the budget.
// (Less is slower for state that outgrows its share: with 8 MiB under a
// 64 MiB budget, Nexmark's q20 spent about 15% more CPU per event than
// with 32 MiB or the fixed 64 MiB cache before.)
func PebbleShare(budget int64) int64 {
	return min(max(budget/8, minPebbleBytes), maxPebbleBytes)
}

// pebbleSizes splits Pebble's share of the memory budget: the memtable
// size is an eighth of it (from 1 to 64 MiB; Pebble's default is 4 MiB,
// the size at the default budget and below), memTables of them at most
// in memory, and the rest is the block cache.
func pebbleSizes(share int64) (cache, memTable int64) {
	memTable = min(max(share/8, minMemTableBytes), maxMemTableBytes)
	return max(share-memTables*memTable, minMemTableBytes), memTable
}

// IDBlockSize is how many ids NextID reserves with one durable write. A
// crash loses at most the unused rest of a block; ids are never repeated.
const IDBlockSize = 1000

// lockFile is the name of the data directory's lock file, and pebbleDir
// the subdirectory holding the Pebble database (Pebble keeps its own LOCK
// file there).
const (
	lockFile  = "LOCK"
	pebbleDir = "pebble"
)

// DB is weir's storage: one Pebble database in the data directory. A DB is
// safe for concurrent use.
type DB struct {
	dir  string
	fs   vfs.FS
	pdb  *pebble.DB
	lock io.Closer
	// redo is the DML redo log (redo.go).
	redo *redoLog
	log  *slog.Logger

	idMu sync.Mutex
	ids  map[string]*idBlock

	// vis is held exclusively while a commit moves spill areas into
	// their tables, and shared while a reader of committed data takes
	// its view (spill.go).
	vis sync.RWMutex
	// resolves counts the calls of ResolveSpills, which delete every
	// unmarked spill area: an Area made before one may have lost its
	// writes, and Batch.Commit refuses to mark it (rewrite.go).
	resolves atomic.Uint64
	// gen counts the commits that may have changed tables' committed
	// rows (Batch.Commit, the moves of spill areas): a batch's cached
	// largest keys (Batch.top) are valid while it stands still.
	gen atomic.Uint64

	// missing holds the added columns' values of altered tables
	// (missing.go).
	missing missingSet

	// ramp flushes the memtables Pebble queues while their sizes ramp
	// up after a start (memtables.go).
	ramp rampMemTables
}

// idBlock is the part of a counter's ids reserved durably and not yet
// handed out: [next, limit).
type idBlock struct{ next, limit uint64 }

// Open opens (creating if needed) the database in dir. It takes an
// exclusive lock on dir/LOCK holding this process's pid, so a second
// process opening the same directory fails at once with an ObjectInUse
// (55006) error naming the directory and the pid holding it.
func Open(dir string, opts Options) (*DB, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	fs := opts.FS
	if fs == nil {
		fs = vfs.Default
	}
	if err := fs.MkdirAll(fs.PathJoin(dir, pebbleDir), 0o755); err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not create data directory %q", dir))
	}
	// A directory entry is durable only once its parent directory is
	// synced; Pebble syncs its own directory but not the ones above it.
	for _, d := range []string{fs.PathDir(dir), dir} {
		if err := syncDir(fs, d); err != nil {
			return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not sync data directory %q", dir))
		}
	}
	lock, err := lockDir(fs, dir)
	if err != nil {
		return nil, err
	}
	share := opts.PebbleBytes
	if share <= 0 {
		share = PebbleShare(256 << 20)
	}
	cacheBytes, memTable := pebbleSizes(share)
	cache := pebble.NewCache(cacheBytes)
	defer cache.Unref()
	popts := &pebble.Options{
		FS:                          fs,
		Cache:                       cache,
		MemTableSize:                uint64(memTable),
		MemTableStopWritesThreshold: memTables,
		Logger:                      slogLogger{log},
		FormatMajorVersion:          pebble.FormatNewest,
	}
	// Bloom filters on every level (each level takes the one above's):
	// operators look up keys that are not there all the time (every new
	// group, join key or distinct value of a state table no longer held
	// whole in memory), and without a filter each such Get reads a data
	// block of every level it overlaps.
	popts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	// The base level (where level 0 compacts into) takes two memtables'
	// worth instead of Pebble's 64 MiB. State writes spread over a
	// table's whole keyspace (a DISTINCT aggregate's values, a join
	// side), so every level-0 file overlaps all of the base level, and
	// each compaction of a few MiB flushed rewrote up to 64 MiB of it:
	// Nexmark q16 over 3M events wrote 1.3-1.7 GB in compactions for 0.3
	// GB flushed, a quarter of its CPU. A smaller base level puts a
	// level between it and the last one sooner; the same run wrote 0.8 GB.
	popts.LBaseMaxBytes = 2 * memTable
	pdb, err := pebble.Open(fs.PathJoin(dir, pebbleDir), popts)
	if err != nil {
		lock.Close()
		return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not open database in %q", dir))
	}
	db := &DB{dir: dir, fs: fs, pdb: pdb, lock: lock, log: log, ids: map[string]*idBlock{},
		redo: &redoLog{fs: fs, dir: fs.PathJoin(dir, redoDir), log: log, segBytes: redoSegmentBytes}}
	db.ramp.until = 2 * memTable
	// Early flushes left by a crash: finish the committed ones' moves,
	// drop the others.
	if err := db.ResolveSpills(); err != nil {
		_ = pdb.Close()
		lock.Close()
		return nil, err
	}
	if err := db.resetLogs(); err != nil {
		_ = pdb.Close()
		lock.Close()
		return nil, err
	}
	return db, nil
}

func syncDir(fs vfs.FS, dir string) error {
	f, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lockDir takes the data directory's lock. On the operating system's file
// system it is a flock(2) on dir/LOCK, which also holds the owner's pid
// for the error message; other file systems use their own Lock.
func lockDir(fs vfs.FS, dir string) (io.Closer, error) {
	path := fs.PathJoin(dir, lockFile)
	if fs != vfs.Default {
		l, err := fs.Lock(path)
		if err != nil {
			return nil, pgerr.Wrap(pgerr.ObjectInUse, err, fmt.Sprintf("data directory %q is in use by another weir process", dir))
		}
		return l, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not open lock file of data directory %q", dir))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, pgerr.New(pgerr.ObjectInUse, "data directory %q is in use by another weir process (pid %s)",
				dir, strings.TrimSpace(string(pid)))
		}
		return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not lock data directory %q", dir))
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not write lock file of data directory %q", dir))
	}
	// Closing the file releases the flock.
	return f, nil
}

// Dir returns the data directory the DB was opened in.
func (db *DB) Dir() string { return db.dir }

// PebbleMemory returns the bytes Pebble holds in its block cache and its
// memtables (those in use and those waiting for their readers to
// finish): memory allocated outside the Go heap, which Options.PebbleBytes
// bounds (a batch larger than half a memtable is queued as a memtable of
// its own and may go beyond it until it is flushed).
func (db *DB) PebbleMemory() int64 {
	m := db.pdb.Metrics()
	return m.BlockCache.Size + int64(m.MemTable.Size+m.MemTable.ZombieSize)
}

// Close closes the database and releases the directory lock. Snapshots,
// iterators and batches must be closed first.
func (db *DB) Close() error {
	db.closeRedo()
	err := db.pdb.Close()
	if lerr := db.lock.Close(); err == nil {
		err = lerr
	}
	if err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "closing storage")
	}
	return nil
}

// Meta returns the metadata value stored under name, and false when there
// is none.
func (db *DB) Meta(name string) ([]byte, bool, error) {
	return getRaw(db.pdb, MetaKey(name))
}

// NextID returns a fresh id from the counter name (relation ids, hidden
// row ids...). Ids start at 1, increase, and are never handed out twice,
// even across crashes: ids are reserved IDBlockSize at a time by a durable
// write of the counter's high-water mark, so a crash skips at most the
// rest of a block.
func (db *DB) NextID(name string) (uint64, error) {
	return db.NextIDs(name, 1)
}

// NextIDs reserves n consecutive fresh ids from the counter name and
// returns the first; the same guarantees as NextID apply.
func (db *DB) NextIDs(name string, n uint64) (uint64, error) {
	if n == 0 {
		n = 1
	}
	db.idMu.Lock()
	defer db.idMu.Unlock()
	blk := db.ids[name]
	if blk == nil || blk.limit-blk.next < n {
		hw := uint64(1)
		if blk != nil {
			hw = blk.limit
		} else {
			v, ok, err := db.Meta(counterMeta(name))
			if err != nil {
				return 0, err
			}
			if ok {
				if len(v) != 8 {
					return 0, pgerr.New(pgerr.DataCorrupted, "corrupt id counter %q", name)
				}
				hw = binary.BigEndian.Uint64(v)
			}
		}
		// Blocks that a short remainder cannot serve are abandoned: gaps
		// are harmless, repeats are not.
		// Large requests (a bulk INSERT's row ids) reserve room for several
		// more like them, so that they do not pay an extra fsync each.
		limit := hw + max(IDBlockSize, 8*n)
		b := db.pdb.NewBatch()
		_ = b.Set(MetaKey(counterMeta(name)), binary.BigEndian.AppendUint64(nil, limit), nil)
		if err := b.Commit(pebble.Sync); err != nil {
			b.Close()
			return 0, pgerr.Wrap(pgerr.IOError, err, "persisting id counter "+name)
		}
		b.Close()
		blk = &idBlock{next: hw, limit: limit}
		db.ids[name] = blk
	}
	id := blk.next
	blk.next += n
	return id, nil
}

func counterMeta(name string) string { return "counter/" + name }

// slogLogger routes Pebble's log lines to slog: routine messages ("Found 0
// WALs", compactions) at debug, errors at error.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Infof(format string, args ...any) {
	s.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (s slogLogger) Errorf(format string, args ...any) {
	s.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on an unrecoverable invariant violation and
// must not return; like Pebble's own logger it ends the process.
func (s slogLogger) Fatalf(format string, args ...any) {
	s.l.Error(fmt.Sprintf(format, args...), "component", "pebble", "fatal", true)
	os.Exit(1)
}

// PutMetaSync durably writes the metadata value name (a synced write of
// its own, outside any epoch): what sequences record before they hand
// out the values it covers.
func (db *DB) PutMetaSync(name string, v []byte) error {
	b := db.pdb.NewBatch()
	defer b.Close()
	_ = b.Set(MetaKey(name), v, nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "persisting "+name)
	}
	return nil
}
