package testenv

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// CPU time of processes, from /proc, for benchmarks that report work per
// CPU-second of one process (or a process tree) rather than wall time.

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
const clockTicks = 100

// ProcessCPU returns the user plus system CPU time of process pid.
func ProcessCPU(pid int) (time.Duration, error) {
	f, _ := statFields(pid)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat unreadable", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// TreeCPU returns the CPU time of pid and its live children (a
// postmaster's backends), plus the time of children it has reaped.
func TreeCPU(pid int) time.Duration {
	total, _ := ProcessCPU(pid)
	if f, _ := statFields(pid); len(f) >= 15 {
		cu, _ := strconv.ParseInt(f[13], 10, 64)
		cs, _ := strconv.ParseInt(f[14], 10, 64)
		total += time.Duration(cu+cs) * time.Second / clockTicks
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, _ := statFields(child); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			c, _ := ProcessCPU(child)
			total += c
		}
	}
	return total
}
