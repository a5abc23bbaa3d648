package fault

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// Error points are the other kind of point: instead of killing the
// process, Fail returns an error, as a failing operator or connector
// would, so that a test can watch the failure handled while the process
// lives on (a job restarted by its restart strategy, other jobs going on).
// WEIR_FAULT selects one with an error point's name, a scope after '@'
// (the view or sink whose job fails) and the hits that fail:
//
//	WEIR_FAULT=stream.operator_error@v:3      # the 3rd hit fails
//	WEIR_FAULT=stream.operator_error@v:3-5    # hits 3 to 5 fail
//	WEIR_FAULT=stream.operator_error@v:3-     # every hit from the 3rd fails
const (
	// OperatorError is hit by Materialize for every chunk it writes, with
	// the view's name as the scope. A statement's changes reach the view
	// as soon as the statement writes them, before the barrier that
	// commits them is injected, so the failure may fall between
	// checkpoints, failing none.
	OperatorError = "stream.operator_error"
	// BarrierError is hit by Materialize for every barrier that ends an
	// epoch in which it was given changes, with the view's name as the
	// scope, before the barrier's state is written. The failure falls
	// while that barrier's checkpoint is in flight, so it fails that
	// checkpoint, always.
	BarrierError = "stream.barrier_error"
)

// errorPoints lists the error points.
var errorPoints = []string{OperatorError, BarrierError}

// ErrInjected is the error Fail returns (wrapped with the point).
var ErrInjected = errors.New("injected fault")

// failing is the armed error point, nil when none is.
var failing *failSpec

type failSpec struct {
	point       string // name@scope
	first, last int64  // 1-based hits that fail; last 0: no end
	hits        atomic.Int64
}

// parseFailure reads a WEIR_FAULT value naming an error point. It returns
// nil, nil when v names a crash point instead.
func parseFailure(v string) (*failSpec, error) {
	name, count, _ := strings.Cut(strings.TrimSpace(v), ":")
	if base, _, _ := strings.Cut(name, "@"); !slices.Contains(errorPoints, base) {
		return nil, nil
	}
	if !strings.Contains(name, "@") {
		return nil, fmt.Errorf("%q: the error point needs a scope: %s@<view or sink>", v, name)
	}
	f := &failSpec{point: name, first: 1, last: 1}
	if count == "" {
		return f, nil
	}
	lo, hi, isRange := strings.Cut(count, "-")
	a, err := strconv.ParseInt(lo, 10, 64)
	if err != nil || a < 1 {
		return nil, fmt.Errorf("%q: the hits after ':' must be N, N-M or N-", v)
	}
	f.first, f.last = a, a
	if isRange {
		f.last = 0
		if hi != "" {
			b, err := strconv.ParseInt(hi, 10, 64)
			if err != nil || b < a {
				return nil, fmt.Errorf("%q: the hits after ':' must be N, N-M or N-", v)
			}
			f.last = b
		}
	}
	return f, nil
}

// Fail marks that execution reached the error point name within scope
// (a view's or sink's name). When WEIR_FAULT arms name@scope and this hit
// is one of the hits it names, Fail returns an error wrapping
// ErrInjected (and says so on stderr); otherwise nil. With WEIR_FAULT
// unset it is one nil check.
func Fail(name, scope string) error {
	f := failing
	if f == nil || f.point != name+"@"+scope {
		return nil
	}
	k := f.hits.Add(1)
	if k < f.first || f.last != 0 && k > f.last {
		return nil
	}
	fmt.Fprintf(os.Stderr, "weir: error point %s reached (hit %d): failing\n", f.point, k)
	return fmt.Errorf("%w at %s (hit %d)", ErrInjected, f.point, k)
}
