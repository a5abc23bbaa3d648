package engine

import (
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestFreeSpaceCacheReuse checks when the disk reserve check measures
// the free space again: a measurement far above the reserve is reused
// for a short while, one close to the reserve never is, so a disk
// filling towards the reserve is refused at the first statement after it
// crossed it.
func TestFreeSpaceCacheReuse(t *testing.T) {
	const reserve = 16 << 20
	var free int64
	calls := 0
	old := statfs
	statfs = func(path string, st *syscall.Statfs_t) error {
		calls++
		st.Bsize = 4096
		st.Bavail = uint64(free / 4096)
		return nil
	}
	defer func() { statfs = old }()
	dir := t.TempDir()
	now := time.Unix(1000, 0)
	var c freeSpaceCache
	check := func(at time.Duration) error {
		return c.check(dir, reserve, "could not write", now.Add(at))
	}

	// Far above the reserve: one statfs for the statements of the window.
	free = reserve + freeSpaceHeadroom + 1<<20
	for _, at := range []time.Duration{0, time.Millisecond, freeSpaceReuse / 2} {
		if err := check(at); err != nil {
			t.Fatalf("check at %v with %d bytes free: %v", at, free, err)
		}
	}
	if calls != 1 {
		t.Fatalf("%d statfs calls for three checks within %v far above the reserve, want 1", calls, freeSpaceReuse)
	}
	// Past the window it measures again, and sees the disk full.
	free = reserve - 1
	if err := check(freeSpaceReuse); pgerr.CodeOf(err) != pgerr.DiskFull {
		t.Fatalf("check after the window with the disk below the reserve: %v, want 53100", err)
	}
	if calls != 2 {
		t.Fatalf("%d statfs calls after the window, want 2", calls)
	}

	// Close to the reserve every check measures: the first one after the
	// disk went below the reserve refuses.
	free = reserve + freeSpaceHeadroom - 1
	if err := check(2 * freeSpaceReuse); err != nil {
		t.Fatalf("check just above the reserve: %v", err)
	}
	free = reserve - 1
	if err := check(2*freeSpaceReuse + time.Millisecond); pgerr.CodeOf(err) != pgerr.DiskFull {
		t.Fatalf("check right after the disk went below the reserve: %v, want 53100", err)
	}
	if calls != 4 {
		t.Fatalf("%d statfs calls, want 4: every check near the reserve measures", calls)
	}
}
