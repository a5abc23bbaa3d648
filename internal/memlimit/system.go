package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Files SystemMemory reads: the cgroup v2 and v1 memory limits of the
// process's cgroup as mounted, and the kernel's memory total.
var (
	cgroupV2Max   = "/sys/fs/cgroup/memory.max"
	cgroupV1Limit = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	procMeminfo   = "/proc/meminfo"
)

// noLimit is the smallest value read as "no limit": cgroup v1 writes
// the largest multiple of the page size below 2^63 for none.
const noLimit = 1 << 60

// SystemMemory returns the memory the process may use: the machine's
// (MemTotal of /proc/meminfo), or its cgroup's limit when that is less,
// as a container sees it. ok is false when neither can be read.
func SystemMemory() (bytes int64, ok bool) {
	total, ok := memTotal(procMeminfo)
	for _, f := range []string{cgroupV2Max, cgroupV1Limit} {
		if l, has := cgroupLimit(f); has && (!ok || l < total) {
			total, ok = l, true
		}
	}
	return total, ok
}

// cgroupLimit reads a cgroup memory limit file: a number of bytes, or
// "max" (v2) or a value near 2^63 (v1) for none.
func cgroupLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || v <= 0 || v >= noLimit {
		return 0, false
	}
	return v, true
}

// memTotal reads MemTotal (in kB) from a /proc/meminfo file.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !found {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil || kb <= 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// DefaultBudgetMB is weir's default memory budget in MiB for a process
// that may use system bytes (SystemMemory; ok false when unknown): half
// of it, as a database server leaves the rest to the kernel's page
// cache and the machine's other work, and never less than minMB, which
// is also the default when the machine's memory is unknown.
func DefaultBudgetMB(system int64, ok bool, minMB int64) int64 {
	if !ok {
		return minMB
	}
	return max(system/2>>20, minMB)
}
