package storage

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var testTypes = []types.T{types.TInt8, types.TText}

func key(i int64) []byte { return types.AppendKey(nil, types.DInt(i), types.TInt8, false) }

func row(i int64, s string) types.Row { return types.Row{types.DInt(i), types.DString(s)} }

func openMem(t testing.TB, fs vfs.FS) *DB {
	t.Helper()
	db, err := Open("/data", Options{FS: fs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// dump returns the rows of a table as "k=v" pairs in scan order.
func dump(t testing.TB, it RowIter) string {
	t.Helper()
	defer it.Close()
	var out []string
	for {
		r, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return strings.Join(out, " ")
		}
		out = append(out, fmt.Sprintf("%d=%s", r[0].I, r[1].S))
	}
}

func scan(t testing.TB, db *DB, table uint32) string {
	t.Helper()
	s := db.NewSnapshot()
	defer s.Close()
	return dump(t, s.Scan(table, testTypes))
}

func TestBatchReadsOwnWritesAndCommits(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()

	b := db.NewBatch()
	for _, i := range []int64{3, -1, 2} {
		if err := b.Put(7, key(i), row(i, fmt.Sprint("v", i)), testTypes); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Put(8, key(1), row(1, "other table"), testTypes); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := b.Get(7, key(2), testTypes); err != nil || !ok || r[1].S != "v2" {
		t.Fatalf("batch Get = %v %v %v", r, ok, err)
	}
	if got := dump(t, b.Scan(7, testTypes)); got != "-1=v-1 2=v2 3=v3" {
		t.Fatalf("batch scan = %q", got)
	}
	if got := dump(t, b.ScanRange(7, key(0), key(3), testTypes)); got != "2=v2" {
		t.Fatalf("batch range scan = %q", got)
	}
	// Not visible before Commit.
	if got := scan(t, db, 7); got != "" {
		t.Fatalf("uncommitted rows visible: %q", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(7, key(9), row(9, "late"), testTypes); err == nil {
		t.Fatal("Put after Commit succeeded")
	}
	b.Close() // harmless after Commit

	snap := db.NewSnapshot()
	defer snap.Close()
	b = db.NewBatch()
	_ = b.Delete(7, key(2))
	_ = b.Put(7, key(3), row(3, "new"), testTypes)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	// The old snapshot still sees the state before the second batch.
	if got := dump(t, snap.Scan(7, testTypes)); got != "-1=v-1 2=v2 3=v3" {
		t.Fatalf("old snapshot = %q", got)
	}
	if got := scan(t, db, 7); got != "-1=v-1 3=new" {
		t.Fatalf("after delete = %q", got)
	}
	if got := scan(t, db, 8); got != "1=other table" {
		t.Fatalf("table 8 = %q", got)
	}
	s := db.NewSnapshot()
	if _, ok, err := s.Get(7, key(2), testTypes); ok || err != nil {
		t.Fatalf("deleted row found: %v %v", ok, err)
	}
	if got := dump(t, s.ScanRange(7, key(0), key(4), testTypes)); got != "3=new" {
		t.Fatalf("range scan = %q", got)
	}
	s.Close()

	// DeleteRange drops one table and leaves its neighbours alone.
	b = db.NewBatch()
	_ = b.DeleteRange(7)
	if got := dump(t, b.Scan(7, testTypes)); got != "" {
		t.Fatalf("batch sees deleted table: %q", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := scan(t, db, 7); got != "" {
		t.Fatalf("table 7 after DeleteRange = %q", got)
	}
	if got := scan(t, db, 8); got != "1=other table" {
		t.Fatalf("table 8 after DeleteRange of 7 = %q", got)
	}
}

func TestDiscardedBatch(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	b := db.NewBatch()
	_ = b.Put(1, key(1), row(1, "x"), testTypes)
	_ = b.SetMeta("epoch", []byte("5"))
	b.Close()
	if got := scan(t, db, 1); got != "" {
		t.Fatalf("discarded batch visible: %q", got)
	}
	if _, ok, _ := db.Meta("epoch"); ok {
		t.Fatal("discarded meta visible")
	}
}

func TestMeta(t *testing.T) {
	db := openMem(t, vfs.NewMem())
	defer db.Close()
	b := db.NewBatch()
	_ = b.SetMeta("committed_epoch", []byte{0, 0, 0, 42})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	v, ok, err := db.Meta("committed_epoch")
	if err != nil || !ok || string(v) != "\x00\x00\x00\x2a" {
		t.Fatalf("Meta = %x %v %v", v, ok, err)
	}
	if _, ok, _ := db.Meta("nope"); ok {
		t.Fatal("missing meta found")
	}
}

func TestNextID(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	seen := map[uint64]bool{}
	take := func(db *DB, name string) uint64 {
		id, err := db.NextID(name)
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] {
			t.Fatalf("id %d handed out twice", id)
		}
		seen[id] = true
		return id
	}
	if id := take(db, "rel"); id != 1 {
		t.Fatalf("first id = %d, want 1", id)
	}
	for range IDBlockSize + 5 {
		take(db, "rel")
	}
	first, err := db.NextIDs("rel", 3*IDBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(3 * IDBlockSize) {
		if seen[first+i] {
			t.Fatalf("range id %d handed out twice", first+i)
		}
		seen[first+i] = true
	}
	// Counters are independent.
	if id, _ := db.NextID("row"); id != 1 {
		t.Fatalf("other counter starts at %d", id)
	}
	db.Close()
	db = openMem(t, fs)
	defer db.Close()
	for range 10 {
		take(db, "rel")
	}
}

// TestCrashDurability writes batches into a crashable file system, takes
// crash clones (keeping only what was synced) at random points and checks
// every committed batch is there, no uncommitted write is, and the id
// counter never repeats an id.
func TestCrashDurability(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	fs := vfs.NewCrashableMem()
	db := openMem(t, fs)
	committed := map[int64]string{}
	ids := map[uint64]bool{}
	for round := range 6 {
		// Some committed batches of a few rows each, and ids.
		for range 1 + rng.IntN(5) {
			b := db.NewBatch()
			for range 1 + rng.IntN(4) {
				k := int64(rng.IntN(50))
				v := fmt.Sprintf("r%d-%d", round, rng.IntN(1000))
				_ = b.Put(1, key(k), row(k, v), testTypes)
				committed[k] = v
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			for range rng.IntN(700) {
				id, err := db.NextID("rowid")
				if err != nil {
					t.Fatal(err)
				}
				if ids[id] {
					t.Fatalf("round %d: id %d repeated", round, id)
				}
				ids[id] = true
			}
		}
		// A batch still open at the crash.
		pending := db.NewBatch()
		_ = pending.Put(1, key(1000), row(1000, "uncommitted"), testTypes)

		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(100), RNG: rng})
		pending.Close()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		fs = crashed
		db = openMem(t, fs)

		var want []string
		for k := range int64(50) {
			if v, ok := committed[k]; ok {
				want = append(want, fmt.Sprintf("%d=%s", k, v))
			}
		}
		if got := scan(t, db, 1); got != strings.Join(want, " ") {
			t.Fatalf("round %d after crash:\n got %s\nwant %s", round, got, strings.Join(want, " "))
		}
	}
	db.Close()
}

func TestLockSecondOpenFails(t *testing.T) {
	fs := vfs.NewMem()
	db := openMem(t, fs)
	_, err := Open("/data", Options{FS: fs, Logger: quiet})
	if e := pgerr.As(err); e == nil || e.Code != pgerr.ObjectInUse {
		t.Fatalf("second Open error = %v, want 55006", err)
	}
	db.Close()
	db = openMem(t, fs) // the lock is released by Close
	db.Close()
}

// TestLockOSNamesPid checks the real-file-system lock: a second process
// cannot open the directory, and the error names the directory and the
// pid holding it. The second opener runs as a child process because
// flock(2) conflicts are per open file, and the message must come from a
// real rival.
func TestLockOSNamesPid(t *testing.T) {
	if dir := os.Getenv("WEIR_STORAGE_LOCK_CHILD"); dir != "" {
		_, err := Open(dir, Options{Logger: quiet})
		fmt.Fprintf(os.Stdout, "child: %v\n", err)
		if e := pgerr.As(err); e != nil && e.Code == pgerr.ObjectInUse {
			os.Exit(0)
		}
		os.Exit(3)
	}
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockOSNamesPid$")
	cmd.Env = append(os.Environ(), "WEIR_STORAGE_LOCK_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child did not fail with 55006: %v\n%s", err, out)
	}
	want := fmt.Sprintf("data directory %q is in use by another weir process (pid %d)", dir, os.Getpid())
	if !strings.Contains(string(out), want) {
		t.Fatalf("child output %q does not contain %q", out, want)
	}
}
