package storage

// Shares is how a memory budget (weir serve --memory-budget) is divided
// so that the whole process, not only what streaming holds, stays within
// it (DESIGN.md §4, docs/memory.md):
//
//	Fixed + Pebble + GoLimit = Budget (from MinBudget up)
//
// The Go runtime's soft memory limit (GoLimit) bounds everything the Go
// runtime holds: the state tables' entries and the epochs' write sets
// (State), a DML statement's changes (DML), and the rest of the heap
// (sessions, plans, chunks in flight, Pebble's write-ahead log buffers)
// with the collector's headroom above what is live.
type Shares struct {
	// Budget is the memory budget in bytes.
	Budget int64
	// Fixed is what the process holds that no share controls: the
	// executable's pages, threads' stacks, what C's malloc keeps
	// besides Pebble's blocks (fixedOverhead).
	Fixed int64
	// Pebble is Pebble's block cache and memtables (PebbleShare),
	// allocated with C's malloc outside the Go heap.
	Pebble int64
	// GoLimit is the Go runtime's soft memory limit
	// (debug.SetMemoryLimit): the budget less Fixed and Pebble, at least
	// minGoLimit.
	GoLimit int64
	// State is the state cache's budget (NewCache): the state tables'
	// entries, clean and dirty, and the epochs' write sets until their
	// checkpoint commits. Three eighths of GoLimit (below MinBudget, of
	// the same fraction of the budget as at MinBudget, not of the
	// floor): the rest of the live
	// heap (operators' buffers, chunks in flight, Pebble's write-ahead
	// log buffers) takes about as much again at its peak, and the
	// collector needs room above all of it not to run back to back
	// (with half, Nexmark q16's live heap reached the limit and it ran
	// at half its speed).
	State int64
	// DML is what a DML statement holds of its changes in the Go heap
	// before it moves them to spill areas and a log in pieces: an eighth
	// of GoLimit (below MinBudget, of the Go runtime's part before its
	// floor, as State is).
	DML int64
}

const (
	// fixedOverhead is Shares.Fixed: the resident set of weir bench
	// nexmark running q0 (no state) over 1M events, 67 MiB, less the
	// 19 MiB the Go runtime held, is 48 MiB (the executable's pages
	// about 44 MiB of it); the stateful queries' peaks were 55-59 MiB
	// above their Go runtime's and Pebble's (what C's malloc keeps).
	fixedOverhead = 56 << 20
	// minGoLimit is the least soft memory limit: under it sessions,
	// plans and the collector's headroom would not fit, and the
	// collector would run back to back. At 64 MiB it did: five views
	// over a table at a 152 MiB budget kept a live heap of 57 MB against
	// a goal of 59 MB (2,389 collections, inserting 100k rows took 100
	// s and more against 9 s at 256 MiB), and a bulk upsert held back by
	// a recovery under 64 MiB never went idle.
	minGoLimit = 128 << 20
)

// MinBudget is the least budget whose shares add up to it: below it the
// Go runtime still gets minGoLimit and Pebble its minimum, so the
// process holds more than its budget.
const MinBudget = fixedOverhead + minPebbleBytes + minGoLimit

// BudgetShares divides a memory budget of budget bytes (see Shares).
func BudgetShares(budget int64) Shares {
	s := Shares{Budget: budget, Fixed: fixedOverhead, Pebble: PebbleShare(budget)}
	// The Go runtime's part of the budget; below MinBudget, the same
	// fraction of the budget as at MinBudget, so that a smaller budget
	// still means less state and smaller DML pieces (tests run under
	// budgets of a few MiB to reach their spill paths).
	goPart := budget - s.Fixed - s.Pebble
	if budget < MinBudget {
		goPart = budget / (MinBudget >> 20) * (minGoLimit >> 20)
	}
	s.GoLimit = max(goPart, minGoLimit)
	s.State = goPart / 8 * 3
	s.DML = goPart / 8
	return s
}
