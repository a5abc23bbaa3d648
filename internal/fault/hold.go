package fault

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Hold points are the third kind: instead of killing the process or
// failing, Hold waits, as a step stuck on a slow disk or a busy peer
// would, until the test releases it by creating a file. The process
// meanwhile goes on serving, so that a test can act in the window the
// hold keeps open. WEIR_FAULT selects one with the point's name and,
// after '@', the file whose creation releases it:
//
//	WEIR_FAULT=recovery.before_initial_barrier@/tmp/x/release
//
// Every hit waits until the file exists (once it does, hits pass at
// once) or the caller's context is done.
const (
	// RecoveryBeforeInitialBarrier is hit by a recovery (the one at
	// start too) once it has rebuilt the jobs and before it reports them
	// to the checkpoint coordinator, which then injects their Initial
	// barrier: DML written in the window is held until that barrier
	// (engine/held.go).
	RecoveryBeforeInitialBarrier = "recovery.before_initial_barrier"
)

// holdPoints lists the hold points.
var holdPoints = []string{RecoveryBeforeInitialBarrier}

// holding is the armed hold point, nil when none is.
var holding *holdSpec

type holdSpec struct {
	name    string
	release string // the file whose existence releases the hits
}

// holdPoll is how often a held hit looks for its release file.
const holdPoll = 20 * time.Millisecond

// parseHold reads a WEIR_FAULT value naming a hold point. It returns
// nil, nil when v names another kind of point.
func parseHold(v string) (*holdSpec, error) {
	name, file, hasFile := strings.Cut(strings.TrimSpace(v), "@")
	found := false
	for _, p := range holdPoints {
		found = found || p == name
	}
	if !found {
		return nil, nil
	}
	if !hasFile || file == "" {
		return nil, fmt.Errorf("%q: the hold point needs the file that releases it: %s@<path>", v, name)
	}
	return &holdSpec{name: name, release: file}, nil
}

// Hold marks that execution reached the hold point name. When WEIR_FAULT
// arms it, Hold waits until the release file exists (saying so on
// stderr) and returns nil, or returns ctx.Err() if ctx is done first;
// otherwise it returns nil at once. With WEIR_FAULT unset it is one nil
// check.
func Hold(ctx context.Context, name string) error {
	h := holding
	if h == nil || h.name != name {
		return nil
	}
	if _, err := os.Stat(h.release); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "weir: hold point %s reached: waiting for %s\n", name, h.release)
	tick := time.NewTicker(holdPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if _, err := os.Stat(h.release); err == nil {
			fmt.Fprintf(os.Stderr, "weir: hold point %s released\n", name)
			return nil
		}
	}
}
