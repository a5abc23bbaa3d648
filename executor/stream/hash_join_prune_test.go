package stream

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// The max prune tests join the left rows (id, k, v: v the time) with
// the maximum of k per window of v (size 10) on the right (id, k = the
// maximum, v = the window's end), on l.k = r.k and l.v BETWEEN r.v - 10
// AND r.v, as Nexmark q7 does. The right rows are what the maximum of
// the left rows before each barrier gives.
const maxPruneScript = `
barrier 1
L + 1 5 1
L + 2 3 2
R + 1 5 10
barrier 2
L + 3 7 3
L + 4 5 4
L + 5 7 5
L + 6 9 10
L + 7 7 10
L + 8 1 11
R - 1 5 10
R + 1 7 10
R + 2 9 20
barrier 3
wm L 2 12
L + 9 12 12
R - 2 9 20
R + 2 12 20
barrier 4
`

func maxPruneNode(prune bool) *planner.StreamHashJoin {
	lv, rv := joinCol(2, types.TInt8), joinCol(5, types.TInt8)
	n := joinNode(planner.InnerJoin, &planner.And{Args: []planner.Expr{
		joinCall(">=", types.TBool, lv, joinCall("-", types.TInt8, rv, joinInt(10))),
		joinCall("<=", types.TBool, lv, rv),
	}})
	if prune {
		n.MaxPrune = &planner.JoinMaxPrune{Value: 1, Time: 2, Size: 10}
	}
	return n
}

// TestHashJoinMaxPrune checks that the join drops the left rows below
// the highest k of their window seen so far (l 2, 4, 8) but keeps those
// equal to it (l 5) and a row on a window's start below its window's
// highest (l 7, which the window ending at its time matches), forgets the windows its left watermark
// passed, and emits per epoch the same changes as the join storing every
// row, but for the matches of a dropped row that the same epoch retracts
// (l 4 with r 1's old maximum 5).
func TestHashJoinMaxPrune(t *testing.T) {
	run := func(prune bool) (outs, states []string, windows int) {
		db := joinOpenDB(t, vfs.NewMem())
		defer db.Close()
		actx := joinActx(db)
		s := parseSided(t, maxPruneScript)
		j := newScriptedJoin(t, actx, maxPruneNode(prune), s)
		defer j.Close()
		for range s.barriers() {
			outs = append(outs, stepEpoch(t, j, actx))
			states = append(states, fmt.Sprintf("%d/%d", tableRows(t, db, ijLeft), tableRows(t, db, ijRight)))
		}
		if j.prune != nil {
			windows = len(j.prune.high)
		}
		return outs, states, windows
	}
	outs, states, windows := run(true)
	want := `
barrier 1
I I I I I I
+ 1 5 1 1 5 10
barrier 2
I I I I I I
- 1 5 1 1 5 10
+ 3 7 3 1 7 10
+ 5 7 5 1 7 10
+ 7 7 10 1 7 10
+ 6 9 10 2 9 20
barrier 3
I I I I I I
- 6 9 10 2 9 20
+ 9 12 12 2 12 20
barrier 4
`
	joinCheck(t, strings.Join(outs, ""), want)
	if w := []string{"0/0", "1/1", "5/2", "6/2"}; !slices.Equal(states, w) {
		t.Errorf("left/right state rows after each barrier: %v, want %v", states, w)
	}
	// The watermark 12 passed the window [0, 10).
	if windows != 1 {
		t.Errorf("%d windows remembered, want 1", windows)
	}
	full, fullStates, _ := run(false)
	if g, w := netChanges(outs), netChanges(full); !slices.Equal(g, w) {
		t.Errorf("dropping rows changed the epochs' changes:\n%s\nstoring every row:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if w := []string{"0/0", "2/1", "8/2", "9/2"}; !slices.Equal(fullStates, w) {
		t.Errorf("without dropping, left/right state rows: %v, want %v", fullStates, w)
	}
}

// netChanges returns each epoch's output rows with their net count
// (inserts minus deletes), the rows of count 0 left out.
func netChanges(outs []string) []string {
	var epochs []string
	for _, out := range outs {
		n := map[string]int{}
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "+", "U+":
				n[strings.Join(f[1:], " ")]++
			case "-", "U-":
				n[strings.Join(f[1:], " ")]--
			}
		}
		var rows []string
		for r, c := range n {
			if c != 0 {
				rows = append(rows, fmt.Sprintf("%s x%d", r, c))
			}
		}
		slices.Sort(rows)
		epochs = append(epochs, strings.Join(rows, ", "))
	}
	return epochs
}
