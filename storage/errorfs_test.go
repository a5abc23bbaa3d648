package storage

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestOpenIOErrors sweeps an injected I/O error over the operations that
// opening an existing database performs, until an Open succeeds: each
// failing Open must return an error carrying the injected cause and an
// I/O SQLSTATE (never panic), and the data must be intact afterwards.
//
// Failed writes inside Pebble's directory are left out: Pebble treats a
// failed WAL or MANIFEST write as fatal and ends the process (as Postgres
// PANICs), which a test cannot observe in-process.
func TestOpenIOErrors(t *testing.T) {
	mem := vfs.NewMem()
	db := openMem(t, mem)
	b := db.NewBatch()
	_ = b.Put(1, key(1), row(1, "kept"), testTypes)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()

	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("Open never succeeded")
		}
		n := 0
		inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
			if op.Kind.ReadOrWrite() == errorfs.OpIsWrite && strings.HasPrefix(op.Path, "/data/pebble/") {
				return nil
			}
			n++
			if n == i+1 {
				return errorfs.ErrInjected
			}
			return nil
		})
		db, err := Open("/data", Options{FS: errorfs.Wrap(mem, inj), Logger: quiet})
		if err != nil {
			// A failing Lock of a non-OS file system reads as "in use".
			code := pgerr.CodeOf(err)
			if !errors.Is(err, errorfs.ErrInjected) || (code != pgerr.IOError && code != pgerr.ObjectInUse) {
				t.Fatalf("op %d: error %v (%s) does not carry the injected I/O error", i, err, code)
			}
			continue
		}
		got := scan(t, db, 1)
		db.Close()
		if got != "1=kept" {
			t.Fatalf("after %d failed opens the data is %q", i, got)
		}
		if i < 5 {
			t.Fatalf("Open succeeded with an error injected at op %d: the sweep injected nothing", i)
		}
		t.Logf("swept %d operations", i)
		return
	}
}
