package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSystemMemory reads a meminfo and cgroup files written by the
// test: the least of MemTotal and a cgroup limit counts, and "max" or
// v1's near-2^63 value is no limit.
func TestSystemMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := [3]string{cgroupV2Max, cgroupV1Limit, procMeminfo}
	defer func() { cgroupV2Max, cgroupV1Limit, procMeminfo = saved[0], saved[1], saved[2] }()
	procMeminfo = write("meminfo", "MemFree:  1000 kB\nMemTotal:       24683748 kB\nBuffers: 1 kB\n")
	cgroupV2Max = filepath.Join(dir, "absent")
	cgroupV1Limit = write("v1", "9223372036854771712\n")
	if got, ok := SystemMemory(); !ok || got != 24683748<<10 {
		t.Fatalf("no cgroup limit: got %d, %v; want MemTotal %d", got, ok, int64(24683748)<<10)
	}
	cgroupV2Max = write("v2", "max\n")
	if got, _ := SystemMemory(); got != 24683748<<10 {
		t.Fatalf("v2 max: got %d, want MemTotal", got)
	}
	cgroupV2Max = write("v2", "2147483648\n")
	if got, _ := SystemMemory(); got != 2<<30 {
		t.Fatalf("a 2 GiB cgroup limit: got %d", got)
	}
	cgroupV1Limit = write("v1", "1073741824\n")
	if got, _ := SystemMemory(); got != 1<<30 {
		t.Fatalf("a 1 GiB v1 limit under a 2 GiB v2 one: got %d", got)
	}
	procMeminfo, cgroupV2Max, cgroupV1Limit = filepath.Join(dir, "none"), filepath.Join(dir, "none"), filepath.Join(dir, "none")
	if _, ok := SystemMemory(); ok {
		t.Fatal("nothing readable: want ok false")
	}
}

// TestDefaultBudgetMB checks the default budget: half the memory, never
// below the floor, the floor when the memory is unknown.
func TestDefaultBudgetMB(t *testing.T) {
	for _, c := range []struct {
		system int64
		ok     bool
		want   int64
	}{
		{24 << 30, true, 12 << 10},
		{1 << 30, true, 512},
		{300 << 20, true, 256},
		{64 << 30, false, 256},
	} {
		if got := DefaultBudgetMB(c.system, c.ok, 256); got != c.want {
			t.Errorf("DefaultBudgetMB(%d, %v) = %d, want %d", c.system, c.ok, got, c.want)
		}
	}
}
