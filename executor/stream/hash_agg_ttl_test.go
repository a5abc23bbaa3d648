package stream

import (
	"testing"

	"github.com/weirdb/weir/planner"
)

// ttlAggNode is aggNode with a state TTL of ttlMs and its TTL index
// (state table 110).
func ttlAggNode(ttlMs int64, groupBy []int, calls ...planner.AggCall) *planner.StreamHashAgg {
	n := aggNode(groupBy, calls...)
	n.TTLMs, n.TTL = ttlMs, planner.StateTableDesc{ID: 110}
	return n
}

// TestHashAggStateTTL checks that a group not written for longer than
// the TTL (in epoch time) is deleted without output, that a retraction
// for a group without state is ignored, and that a group that comes back
// starts from nothing.
func TestHashAggStateTTL(t *testing.T) {
	e := newOpEnv(t)
	n := ttlAggNode(1000, []int{0}, countStar, sumV, maxV)
	got := runAgg(t, e, n, `
barrier @1000
+ 1 10 a t
+ 2 5 a t
barrier @1500
+ 1 20 a t
barrier @2200
barrier @2600
- 2 5 a t
+ 2 7 a t
+ 3 1 a t
- 3 1 a t
- 3 1 a t
barrier @2700
+ 1 1 a t
barrier @3100
barrier @4000
`)
	checkEpochs(t, got, ``, `
+ 1 1 10 10
+ 2 1 5 5
`, `
U- 1 1 10 10
U+ 1 2 30 20
`, ``, `
+ 2 1 7 7
`, `
U- 1 2 30 20
U+ 1 3 31 20
`, ``)
	// Group 2 (written at 2700) expired at 4000; group 1 (3100) not yet.
	if r, x, i := stateRows(t, e, 100), stateRows(t, e, 103), stateRows(t, e, 110); r != 1 || x != 3 || i != 1 {
		t.Fatalf("state after expiry: %d groups, %d max entries, %d index entries; want 1, 3, 1", r, x, i)
	}
}

// TestHashAggStateTTLRestart checks that the write times are part of the
// checkpoint: a restarted aggregation expires the same groups.
func TestHashAggStateTTLRestart(t *testing.T) {
	e := newOpEnv(t)
	n := ttlAggNode(1000, []int{0}, countStar)
	got := runAgg(t, e, n, `
barrier @1000
+ 1 10 a t
+ 2 5 a t
barrier @1500
+ 2 6 a t
barrier @2000
`)
	checkEpochs(t, got, ``, `
+ 1 1
+ 2 1
`, `
U- 2 1
U+ 2 2
`)
	e.reset()
	got = runAgg(t, e, n, `
barrier @2600
+ 1 11 a t
+ 2 7 a t
barrier @2700
`)
	// Group 1 (written at 1500) expired at the initial barrier: its next
	// row starts it again; group 2 (2000) was still alive.
	checkEpochs(t, got, ``, `
+ 1 1
U- 2 2
U+ 2 3
`)
}
