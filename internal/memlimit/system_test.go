package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSystemMemory reads a meminfo, a /proc/self/cgroup and a
// mountinfo written by the test, over cgroup trees it makes: the least
// of MemTotal and the limits of the process's cgroups and their
// ancestors counts; "max" or v1's near-2^63 value is no limit.
func TestSystemMemory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := [3]string{procSelfCgroup, procSelfMountinfo, procMeminfo}
	defer func() { procSelfCgroup, procSelfMountinfo, procMeminfo = saved[0], saved[1], saved[2] }()
	const total = int64(24683748) << 10
	procMeminfo = write("meminfo", "MemFree:  1000 kB\nMemTotal:       24683748 kB\nBuffers: 1 kB\n")
	v1, v2 := filepath.Join(dir, "v1mem"), filepath.Join(dir, "unified")
	procSelfMountinfo = write("mountinfo", ""+
		"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"+
		"31 30 0:28 / "+filepath.Join(dir, "v1cpu")+" rw,relatime - cgroup cgroup rw,cpu\n"+
		"34 30 0:31 / "+v1+" rw,relatime shared:9 - cgroup cgroup rw,memory\n"+
		"40 30 0:37 / "+v2+" rw,relatime - cgroup2 cgroup2 rw\n")
	procSelfCgroup = write("cgroup", "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/system.slice/weir.service\n")
	write("v1mem/memory.limit_in_bytes", "9223372036854771712\n")
	write("v1mem/process_api/abc/memory.limit_in_bytes", "9223372036854771712\n")
	write("v1cpu/process_api/abc/memory.limit_in_bytes", "1000\n") // not the memory hierarchy
	write("unified/system.slice/weir.service/memory.max", "max\n")
	if got, ok := SystemMemory(); !ok || got != total {
		t.Fatalf("no cgroup limit: got %d, %v; want MemTotal %d", got, ok, total)
	}
	// v1: the limit of the process's own cgroup, below the mount point.
	write("v1mem/process_api/abc/memory.limit_in_bytes", "3221225472\n")
	if got, _ := SystemMemory(); got != 3<<30 {
		t.Fatalf("a 3 GiB limit on the process's v1 cgroup: got %d", got)
	}
	// v2: a service's MemoryMax=, and a slice's lower limit above it.
	write("unified/system.slice/weir.service/memory.max", "2147483648\n")
	if got, _ := SystemMemory(); got != 2<<30 {
		t.Fatalf("a 2 GiB limit on the service's cgroup: got %d", got)
	}
	write("unified/system.slice/memory.max", "1073741824\n")
	if got, _ := SystemMemory(); got != 1<<30 {
		t.Fatalf("a 1 GiB limit on the slice above the service: got %d", got)
	}
	// A mount of a namespace's part of the hierarchy (a container's):
	// the process's path is taken from the mount's root.
	procSelfMountinfo = write("mountinfo", "40 30 0:37 /kubepods/pod1 "+v2+" rw - cgroup2 cgroup2 rw\n")
	procSelfCgroup = write("cgroup", "0::/kubepods/pod1/c1\n")
	write("unified/c1/memory.max", "536870912\n")
	write("unified/memory.max", "805306368\n")
	if got, _ := SystemMemory(); got != 512<<20 {
		t.Fatalf("a container's 512 MiB limit under its pod's mount: got %d", got)
	}
	procMeminfo, procSelfCgroup, procSelfMountinfo = filepath.Join(dir, "none"), filepath.Join(dir, "none"), filepath.Join(dir, "none")
	if _, ok := SystemMemory(); ok {
		t.Fatal("nothing readable: want ok false")
	}
}

// TestSystemMemoryHere reads this machine's files: whatever the limits,
// the result is some memory, no more than MemTotal.
func TestSystemMemoryHere(t *testing.T) {
	total, ok := memTotal(procMeminfo)
	got, gotOK := SystemMemory()
	if ok && (!gotOK || got <= 0 || got > total) {
		t.Fatalf("SystemMemory %d, %v; MemTotal %d", got, gotOK, total)
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
