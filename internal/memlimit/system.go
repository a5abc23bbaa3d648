package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"strconv"
	"strings"
)

// Files SystemMemory reads: which cgroups the process is in, where the
// cgroup hierarchies are mounted, and the kernel's memory total.
var (
	procSelfCgroup    = "/proc/self/cgroup"
	procSelfMountinfo = "/proc/self/mountinfo"
	procMeminfo       = "/proc/meminfo"
)

// The memory limit files of cgroup v2 and v1.
const (
	cgroupV2Max   = "memory.max"
	cgroupV1Limit = "memory.limit_in_bytes"
)

// noLimit is the smallest value read as "no limit": cgroup v1 writes
// the largest multiple of the page size below 2^63 for none.
const noLimit = 1 << 60

// SystemMemory returns the memory the process may use: the machine's
// (MemTotal of /proc/meminfo), or its cgroup's limit when that is less.
// The limit is the least of those of the process's own cgroup and of
// every cgroup above it, in v2 and in v1's memory hierarchy: a systemd
// service's MemoryMax= is on its own cgroup, below the mount point, and
// a slice's limit holds its services too. ok is false when neither the
// total nor a limit can be read.
func SystemMemory() (bytes int64, ok bool) {
	total, ok := memTotal(procMeminfo)
	for _, h := range cgroupHierarchies() {
		if l, has := h.limit(); has && (!ok || l < total) {
			total, ok = l, true
		}
	}
	return total, ok
}

// cgroupHierarchy is a mounted cgroup hierarchy that limits memory: the
// directory of the process's cgroup in it, the mount point above which
// the walk to the root stops, and the name of its limit file.
type cgroupHierarchy struct {
	dir, mount, file string
}

// limit returns the least memory limit of h's cgroup and its ancestors
// up to the mount point.
func (h cgroupHierarchy) limit() (int64, bool) {
	var least int64
	found := false
	for d := h.dir; ; d = path.Dir(d) {
		if l, has := cgroupLimit(path.Join(d, h.file)); has && (!found || l < least) {
			least, found = l, true
		}
		if d == h.mount || d == "/" || d == "." {
			return least, found
		}
	}
}

// cgroupHierarchies returns the memory-limiting cgroup hierarchies the
// process is in (v2's, and v1's memory hierarchy), from /proc/self/cgroup
// and /proc/self/mountinfo.
func cgroupHierarchies() []cgroupHierarchy {
	paths := selfCgroups(procSelfCgroup)
	var out []cgroupHierarchy
	for _, m := range cgroupMounts(procSelfMountinfo) {
		cg, ok := paths[m.version]
		if !ok {
			continue
		}
		// The process's cgroup path is from the root of its cgroup
		// namespace; the mount shows the hierarchy from m.root.
		rel, under := strings.CutPrefix(cg, m.root)
		if !under || (rel != "" && !strings.HasPrefix(rel, "/") && m.root != "/") {
			rel = ""
		}
		file := cgroupV2Max
		if m.version == 1 {
			file = cgroupV1Limit
		}
		out = append(out, cgroupHierarchy{dir: path.Join(m.point, rel), mount: path.Clean(m.point), file: file})
	}
	return out
}

// selfCgroups reads a /proc/self/cgroup file: the process's cgroup path
// in v2's unified hierarchy (key 2) and in v1's memory hierarchy (key 1).
func selfCgroups(file string) map[int]string {
	out := map[int]string{}
	f, err := os.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		id, rest, ok1 := strings.Cut(sc.Text(), ":")
		controllers, p, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			continue
		}
		switch {
		case id == "0" && controllers == "":
			out[2] = p
		case hasField(controllers, ",", "memory"):
			out[1] = p
		}
	}
	return out
}

// cgroupMount is a mount of a cgroup hierarchy: v2's, or v1's memory
// controller, with the hierarchy's directory mounted (root) and where.
type cgroupMount struct {
	version     int
	root, point string
}

// cgroupMounts reads a /proc/self/mountinfo file for the cgroup
// hierarchies that can limit memory.
func cgroupMounts(file string) []cgroupMount {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cgroupMount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mount-point options [optional...] - fstype source super-options
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, after := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(after) < 1 {
			continue
		}
		m := cgroupMount{root: unescapeMount(fields[3]), point: unescapeMount(fields[4])}
		switch {
		case after[0] == "cgroup2":
			m.version = 2
		case after[0] == "cgroup" && len(after) >= 3 && hasField(after[2], ",", "memory"):
			m.version = 1
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasField reports whether the sep-separated list s holds f.
func hasField(s, sep, f string) bool {
	for _, x := range strings.Split(s, sep) {
		if x == f {
			return true
		}
	}
	return false
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
