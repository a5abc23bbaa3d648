// Package memlimit lends headroom above the Go runtime's soft memory
// limit to work whose memory is accounted for elsewhere, and reads how
// much memory the process may use, from which weir's default memory
// budget is sized (SystemMemory, DefaultBudgetMB: half of the machine's
// memory or its cgroup's limit, whichever is less; the limit is the
// least of the process's own cgroup's and its ancestors', found through
// /proc/self/cgroup and /proc/self/mountinfo).
//
// weir serve sets the runtime's soft limit (debug.SetMemoryLimit) from
// the memory budget, so that the collector keeps the heap within the
// budget and a fixed overhead. A few things hold memory the budget does
// not cover but another gate does: the parse of a statement of
// megabytes, admitted by the engine's parse gate with an estimate of
// what it will hold. Under the soft limit alone such a parse, live and
// growing above the limit, makes the collector run back to back for as
// long as it lasts: a 7 MB IN list of a million numbers took 39 s of CPU
// in weir serve against 7 s without the limit. A Loan raises the limit
// by the admitted amount for as long as it is held and gives it back
// when the last holder releases it, so the collector works as usual
// over the rest of the heap.
//
// The runtime's limit is one per process, so the loans are too: the
// package keeps the limit in force before the first outstanding loan
// and restores it when the last is released. Nothing else may change
// the limit while loans are outstanding; weir sets it once at start.
package memlimit
