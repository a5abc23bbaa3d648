package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// A full disk must not take the server down. Pebble treats a failed
// write of its log as fatal (it exits the process), and a restart on a
// full disk cannot even replay its log. So weir keeps a reserve: below
// DiskReserveBytes of free space on the data directory's file system,
// statements that would write (DML, COPY, COMMIT, DDL) are refused with
// Postgres's 53100 at once, before they reach storage, while reads go on
// and the streaming jobs commit what was accepted before into the
// reserve. Writes resume by themselves once space is freed; a start with
// less than the reserve free fails with the same error.

// DefaultDiskReserveBytes is Config.DiskReserveBytes's default (128 MiB).
const DefaultDiskReserveBytes = 128 << 20

// diskReserve is the reserve in bytes (0: none).
func (c Config) diskReserve() int64 {
	switch {
	case c.DiskReserveBytes < 0:
		return 0
	case c.DiskReserveBytes == 0:
		return DefaultDiskReserveBytes
	}
	return c.DiskReserveBytes
}

// checkDiskSpace fails with 53100 when the data directory's file system
// has less free space than the reserve.
func (e *Engine) checkDiskSpace() error {
	return e.freeSpace.check(e.cfg.DataDir, e.cfg.diskReserve(), "could not write to the data directory", time.Now())
}

// A write statement checks the reserve before it runs, and a session
// sending single-row INSERTs would pay a statfs for each. A measurement
// that found the reserve and freeSpaceHeadroom more free is reused for
// freeSpaceReuse: the statements of that window could take no more than
// the headroom on a disk that writes less than 2.5 GB/s, and the reserve
// is still there under them. Closer to the reserve every statement
// measures again, so a disk filling up is noticed at the first write
// statement that finds it below the reserve.
const (
	freeSpaceReuse    = 100 * time.Millisecond
	freeSpaceHeadroom = 256 << 20
)

// freeSpaceCache is the last measurement of the free space under the
// data directory: when it was taken (Unix nanoseconds, 0: never) and the
// bytes found free.
type freeSpaceCache struct {
	at, free atomic.Int64
}

// statfs is syscall.Statfs; a test counts the calls through it.
var statfs = syscall.Statfs

// check is checkFreeSpace, reusing a measurement taken less than
// freeSpaceReuse before now that found at least freeSpaceHeadroom above
// the reserve.
func (c *freeSpaceCache) check(dir string, reserve int64, what string, now time.Time) error {
	if reserve <= 0 || dir == "" {
		return nil
	}
	if at := c.at.Load(); at != 0 {
		age := now.UnixNano() - at
		if age >= 0 && age < int64(freeSpaceReuse) && c.free.Load() >= reserve+freeSpaceHeadroom {
			return nil
		}
	}
	var st syscall.Statfs_t
	if statfs(dir, &st) != nil {
		return checkFreeSpace(dir, reserve, what)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	c.free.Store(free)
	c.at.Store(now.UnixNano())
	return reserveLeft(dir, free, reserve, what)
}

// checkFreeSpace checks the free space of the file system holding dir
// (or its nearest existing parent) against reserve. A directory that is
// not on a real file system (tests on an in-memory one) passes.
func checkFreeSpace(dir string, reserve int64, what string) error {
	if reserve <= 0 || dir == "" {
		return nil
	}
	// The data directory exists once the engine is open: one statfs per
	// check, the walk up to an existing parent only when it fails.
	var st syscall.Statfs_t
	if statfs(dir, &st) == nil {
		return reserveLeft(dir, int64(st.Bavail)*int64(st.Bsize), reserve, what)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	path := abs
	for {
		if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		parent := filepath.Dir(path)
		if parent == path {
			return nil
		}
		path = parent
	}
	if err := statfs(path, &st); err != nil {
		return nil
	}
	return reserveLeft(dir, int64(st.Bavail)*int64(st.Bsize), reserve, what)
}

// reserveLeft fails with 53100 when free is below reserve.
func reserveLeft(dir string, free, reserve int64, what string) error {
	if free >= reserve {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return pgerr.New(pgerr.DiskFull, "%s %q: %s free on its file system, below the %s kept in reserve", what, abs, mib(free), mib(reserve)).
		WithHint("Free space on the file system of the data directory (or lower --disk-reserve-mb); weir takes writes again as soon as there is room.")
}

// mib formats n bytes in MiB.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
