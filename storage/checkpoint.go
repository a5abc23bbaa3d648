package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// Checkpoint writes a consistent copy of the whole database into dir, a
// directory that must not exist yet or be empty, laid out as a data
// directory (dir/pebble), so that Open(dir) opens the copy. It is a
// Pebble checkpoint: sstables are hard-linked where the file system
// allows it (copied otherwise), and the write-ahead log is copied up to
// the last synced batch. Every batch is atomic, so the copy holds whole
// checkpoints only: its committed epoch names exactly the state it holds.
// Writers go on meanwhile.
func (db *DB) Checkpoint(dir string) error {
	fs := db.fs
	if names, err := fs.List(dir); err == nil && len(names) > 0 {
		return pgerr.New(pgerr.DuplicateObject, "directory %q exists and is not empty", dir)
	}
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not create directory %q", dir))
	}
	// The redo log first: the records the Pebble copy's applied mark
	// covers are skipped when the copy opens, and those past it were
	// acknowledged before the copy's state was taken.
	if err := db.copyRedo(dir); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not copy the redo log into %q", dir))
	}
	if err := db.pdb.Checkpoint(fs.PathJoin(dir, pebbleDir), pebble.WithFlushedWAL()); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not write a checkpoint into %q", dir))
	}
	for _, d := range []string{dir, fs.PathDir(dir)} {
		if err := syncDir(fs, d); err != nil {
			return pgerr.Wrap(pgerr.IOError, err, fmt.Sprintf("could not sync directory %q", d))
		}
	}
	return nil
}

// FS returns the file system the database lives on.
func (db *DB) FS() vfs.FS { return db.fs }
