package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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
	return checkFreeSpace(e.cfg.DataDir, e.cfg.diskReserve(), "could not write to the data directory")
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
	if syscall.Statfs(dir, &st) == nil {
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
	if err := syscall.Statfs(path, &st); err != nil {
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
