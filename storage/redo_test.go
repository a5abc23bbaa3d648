package storage

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// redoLSNs returns the LSNs EachRedo gives, checking each record's
// payload is the one appendN wrote for it.
func redoLSNs(t *testing.T, db *DB) []uint64 {
	t.Helper()
	var out []uint64
	err := db.EachRedo(func(lsn uint64, rec []byte) error {
		if want := redoPayload(lsn); !bytes.Equal(rec, want) {
			return fmt.Errorf("record %d: %q, want %q", lsn, rec, want)
		}
		out = append(out, lsn)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func redoPayload(lsn uint64) []byte {
	return bytes.Repeat([]byte{byte('a' + lsn%26)}, int(lsn%50)+1)
}

// appendN appends records from..to, waiting for each when wait is set.
func appendN(t *testing.T, db *DB, from, to uint64, wait bool) {
	t.Helper()
	for lsn := from; lsn <= to; lsn++ {
		w, err := db.AppendRedo(lsn, redoPayload(lsn))
		if err != nil {
			t.Fatal(err)
		}
		if wait {
			if err := w.Wait(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// openRedo opens the database in dir on fs with small redo segments (a
// few dozen records each), failing the test on an error.
func openRedo(t *testing.T, fs vfs.FS, dir string) *DB {
	t.Helper()
	db, err := Open(dir, Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	db.redo.segBytes = 1 << 10
	return db
}

// markApplied commits lsn as the applied mark, as a checkpoint's batch
// does.
func markApplied(t *testing.T, db *DB, lsn uint64) {
	t.Helper()
	b := db.NewWriteBatch()
	if err := b.TruncateRedo(lsn); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestRedoLogCrash: the records whose Wait returned survive a crash (a
// copy of the file system with only what was synced), across segments;
// reading stops at the end of what was synced, and LSNs go on from the
// last record after the restart.
func TestRedoLogCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openRedo(t, fs, "d")
	appendN(t, db, 1, 100, true)
	appendN(t, db, 101, 103, false) // not synced: may be lost
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	db.Close()

	db = openRedo(t, crashed, "d")
	got := redoLSNs(t, db)
	if len(got) < 100 || got[0] != 1 {
		t.Fatalf("after the crash the log holds %d records from %v, want at least 1..100", len(got), got[:min(len(got), 1)])
	}
	last, err := db.LastRedoLSN()
	if err != nil || last != uint64(len(got)) {
		t.Fatalf("LastRedoLSN %d, %v; want %d", last, err, len(got))
	}
	db.redo.segBytes = 1 << 10
	appendN(t, db, last+1, last+20, true)
	if got := redoLSNs(t, db); len(got) != int(last)+20 {
		t.Fatalf("after more appends the log holds %d records, want %d", len(got), last+20)
	}
	db.Close()
}

// TestRedoLogTornRecord: a record whose bytes were cut short or changed
// ends the log there.
func TestRedoLogTornRecord(t *testing.T) {
	fs := vfs.NewMem()
	db := openRedo(t, fs, "d")
	appendN(t, db, 1, 10, true)
	db.Close()
	// Flip a byte of record 6's payload.
	name := fs.PathJoin("d", redoDir, segmentName(1))
	f, err := fs.OpenReadWrite(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	off := int64(0)
	for lsn := uint64(1); lsn < 6; lsn++ {
		off += int64(redoFrameHeader + len(redoPayload(lsn)))
	}
	if _, err := f.WriteAt([]byte{'!'}, off+redoFrameHeader); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db = openRedo(t, fs, "d")
	defer db.Close()
	if got := redoLSNs(t, db); fmt.Sprint(got) != "[1 2 3 4 5]" {
		t.Fatalf("records %v, want [1 2 3 4 5]", got)
	}
}

// TestRedoLogApplied: the records a committed checkpoint's applied mark
// covers are skipped, and DropRedo deletes the segments they fill while
// keeping the one appended to.
func TestRedoLogApplied(t *testing.T) {
	fs := vfs.NewMem()
	db := openRedo(t, fs, "d")
	defer db.Close()
	db.redo.segBytes = 1 << 10
	appendN(t, db, 1, 100, true)
	segs := func() int {
		names, err := fs.List(fs.PathJoin("d", redoDir))
		if err != nil {
			t.Fatal(err)
		}
		return len(names)
	}
	before := segs()
	if before < 3 {
		t.Fatalf("%d segments, want several", before)
	}
	markApplied(t, db, 90)
	if got := redoLSNs(t, db); len(got) != 10 || got[0] != 91 {
		t.Fatalf("past the applied mark 90: %v, want 91..100", got)
	}
	if err := db.DropRedo(90); err != nil {
		t.Fatal(err)
	}
	if after := segs(); after >= before || after < 1 {
		t.Fatalf("%d segments after DropRedo(90), %d before", after, before)
	}
	if got := redoLSNs(t, db); len(got) != 10 || got[0] != 91 {
		t.Fatalf("after DropRedo: %v, want 91..100", got)
	}
	// The copy of a checkpoint holds the records past its applied mark.
	if err := db.Checkpoint("/copy"); err != nil {
		t.Fatal(err)
	}
	cp := openRedo(t, fs, "/copy")
	defer cp.Close()
	if got := redoLSNs(t, cp); len(got) != 10 || got[0] != 91 {
		t.Fatalf("the checkpoint's copy holds %v, want 91..100", got)
	}
	markApplied(t, db, 100)
	if err := db.DropRedo(100); err != nil {
		t.Fatal(err)
	}
	if segs() != 1 {
		t.Fatalf("%d segments after DropRedo(100), want the one appended to", segs())
	}
	if got := redoLSNs(t, db); len(got) != 0 {
		t.Fatalf("past the applied mark 100: %v, want none", got)
	}
}

// TestRedoLogEmptySegmentAfterCrash: a segment started right before a
// crash, holding no whole record, is started again under its name; the
// log reads on across it.
func TestRedoLogEmptySegmentAfterCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db := openRedo(t, fs, "d")
	appendN(t, db, 1, 30, true)
	// Start the next segment with a record that is never synced.
	for lsn := uint64(31); ; lsn++ {
		appendN(t, db, lsn, lsn, false)
		if db.redo.segs[len(db.redo.segs)-1] == lsn {
			break
		}
		if err := (&RedoWait{l: db.redo, lsn: lsn}).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	db.Close()
	db = openRedo(t, crashed, "d")
	defer db.Close()
	db.redo.segBytes = 1 << 10
	last, err := db.LastRedoLSN()
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, db, last+1, last+50, true)
	got := redoLSNs(t, db)
	if len(got) != int(last)+50 || got[len(got)-1] != last+50 {
		t.Fatalf("after the restart the log reads %d records up to %v, want %d", len(got), got[len(got)-1:], last+50)
	}
	if n := len(db.redo.segs); n != len(slices.Compact(slices.Clone(db.redo.segs))) {
		t.Fatalf("segments listed twice: %v", db.redo.segs)
	}
}

// TestRedoLogSegmentWithoutRecords: a segment a crash left with no valid
// record (created and preallocated, its first record never written) is
// where the log ends; the restart starts a segment of the same name, and
// the checkpoint's DropRedo must not then delete the segment appended
// to, whose records are acknowledged.
func TestRedoLogSegmentWithoutRecords(t *testing.T) {
	fs := vfs.NewMem()
	db := openRedo(t, fs, "d")
	appendN(t, db, 1, 3, true)
	db.Close()
	f, err := fs.Create(fs.PathJoin("d", redoDir, segmentName(4)), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Preallocate(0, 1<<10); err != nil {
		t.Fatal(err)
	}
	f.Close()

	db = openRedo(t, fs, "d")
	if last, err := db.LastRedoLSN(); err != nil || last != 3 {
		t.Fatalf("LastRedoLSN %d, %v; want 3", last, err)
	}
	appendN(t, db, 4, 4, true)
	markApplied(t, db, 4)
	if err := db.DropRedo(4); err != nil {
		t.Fatal(err)
	}
	appendN(t, db, 5, 7, true)
	db.Close()

	db = openRedo(t, fs, "d")
	defer db.Close()
	if got := redoLSNs(t, db); fmt.Sprint(got) != "[5 6 7]" {
		t.Fatalf("after a restart the log holds %v past the applied mark 4, want [5 6 7]", got)
	}
}
