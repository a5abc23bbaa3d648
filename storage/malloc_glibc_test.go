//go:build linux && cgo

package storage

import (
	"os"
	"testing"
)

// TestMallocArenas: C allocations from many threads at once (Pebble's,
// from the Go runtime's threads) share at most mallocArenas arenas.
func TestMallocArenas(t *testing.T) {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		t.Fatal("MALLOC_ARENA_MAX is set: this test checks weir's own limit; unset it")
	}
	n := cArenas(16)
	if n < 0 {
		t.Fatal("malloc_info reported no arenas")
	}
	t.Logf("%d arenas", n)
	if n > mallocArenas {
		t.Fatalf("%d malloc arenas after 16 threads allocated at once, want at most %d", n, mallocArenas)
	}
}
