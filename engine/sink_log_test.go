package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestSinkLogStoreSystemBound checks ALTER SYSTEM SET
// sink_log_store_max_bytes: a positive number of bytes becomes the bound
// of the sinks started afterwards and survives a restart; anything else
// fails with 22023.
func TestSinkLogStoreSystemBound(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	for _, bad := range []string{"0", "-5", "'many'"} {
		_, err := run(t, s, "ALTER SYSTEM SET sink_log_store_max_bytes = "+bad)
		if pgerr.CodeOf(err) != pgerr.InvalidParameterValue {
			t.Errorf("ALTER SYSTEM SET sink_log_store_max_bytes = %s: %v, want 22023", bad, err)
		}
	}
	if got := e.sinkDecoupling().MaxBytes; got != 0 {
		t.Fatalf("the bound before ALTER SYSTEM is %d, want 0 (the executor's default)", got)
	}
	mustRun(t, s, "ALTER SYSTEM SET sink_log_store_max_bytes = 1048576")
	if got := e.sinkDecoupling().MaxBytes; got != 1<<20 {
		t.Fatalf("the bound after ALTER SYSTEM is %d, want 1048576", got)
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	if got := e.sinkDecoupling().MaxBytes; got != 1<<20 {
		t.Fatalf("the bound after a restart is %d, want 1048576", got)
	}
}
