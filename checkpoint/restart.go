package checkpoint

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// RestartKind names a restart strategy, as Flink's restart-strategy.type.
type RestartKind uint8

// Restart strategies.
const (
	// RestartNone never restarts: the first failure leaves the job FAILED.
	RestartNone RestartKind = iota
	// RestartFixedDelay restarts after Delay, at most Attempts times in
	// the job's life (until RESUME).
	RestartFixedDelay
	// RestartExponentialDelay restarts after a delay that starts at
	// Delay and grows by Multiplier up to MaxDelay, spread by Jitter; a
	// job that ran ResetAfter without failing starts again from Delay.
	// Attempts (0: unlimited) bounds the restarts between two resets.
	RestartExponentialDelay
	// RestartFailureRate restarts after Delay unless more than
	// MaxFailures failures fell within the last FailureInterval.
	RestartFailureRate
)

var restartKindNames = [...]string{"none", "fixed-delay", "exponential-delay", "failure-rate"}

// String returns the kind's name as restart_strategy spells it.
func (k RestartKind) String() string {
	if int(k) < len(restartKindNames) {
		return restartKindNames[k]
	}
	return fmt.Sprintf("RestartKind(%d)", k)
}

// ParseRestartKind reads a restart_strategy value: none, fixed-delay,
// exponential-delay or failure-rate (case-insensitive, '_' for '-'
// accepted). Errors: 22023.
func ParseRestartKind(s string) (RestartKind, error) {
	v := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	for i, n := range restartKindNames {
		if v == n {
			return RestartKind(i), nil
		}
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for restart_strategy: \"%s\"", s).
		WithHint("Use 'fixed-delay', 'exponential-delay', 'failure-rate' or 'none'.")
}

// RestartStrategy is how a failed job is restarted: the system default
// (ALTER SYSTEM SET restart_strategy = ...) or a job's own (WITH
// (restart_strategy = ...)). Fields a kind does not use are ignored.
type RestartStrategy struct {
	Kind RestartKind
	// Attempts: fixed-delay, the most restarts (≥ 1); exponential-delay,
	// the most restarts between two resets (0: unlimited).
	Attempts int
	// Delay: the wait before a restart (fixed-delay, failure-rate), or
	// the first one (exponential-delay).
	Delay time.Duration
	// MaxDelay caps the exponential delay.
	MaxDelay time.Duration
	// Multiplier grows the exponential delay after each restart (≥ 1).
	Multiplier float64
	// Jitter spreads each exponential delay by up to ±Jitter of it
	// (0 ≤ Jitter ≤ 1), so that jobs failing together do not restart
	// together.
	Jitter float64
	// ResetAfter is the quiet period after which the exponential delay
	// and its attempt count start again.
	ResetAfter time.Duration
	// MaxFailures is the number of failures tolerated within
	// FailureInterval (failure-rate).
	MaxFailures     int
	FailureInterval time.Duration
}

// DefaultRestartStrategy is the system default: exponential-delay with
// Flink's defaults (1 s, growing by 1.5 up to 1 min, ±10 % jitter, reset
// after an hour without failure, unlimited attempts), so a job that
// keeps failing is retried ever more slowly and never spins. Its other
// fields are the defaults of the other kinds (failure-rate: 1 failure
// per minute).
var DefaultRestartStrategy = RestartStrategy{
	Kind:            RestartExponentialDelay,
	Attempts:        0,
	Delay:           time.Second,
	MaxDelay:        time.Minute,
	Multiplier:      1.5,
	Jitter:          0.1,
	ResetAfter:      time.Hour,
	MaxFailures:     1,
	FailureInterval: time.Minute,
}

// RestartDefaults returns the strategy of kind with its default
// settings: fixed-delay, 3 attempts 1 s apart; exponential-delay and
// failure-rate as DefaultRestartStrategy.
func RestartDefaults(kind RestartKind) RestartStrategy {
	s := DefaultRestartStrategy
	s.Kind = kind
	if kind == RestartFixedDelay {
		s.Attempts = 3
	}
	return s
}

// Validate checks the strategy's fields for its kind. Errors: 22023
// naming the option at fault.
func (s RestartStrategy) Validate() error {
	bad := func(opt, format string, args ...any) error {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: %s", opt, fmt.Sprintf(format, args...))
	}
	switch s.Kind {
	case RestartNone:
	case RestartFixedDelay:
		if s.Attempts < 1 {
			return bad("restart_attempts", "fixed-delay needs at least 1 attempt, not %d", s.Attempts)
		}
	case RestartExponentialDelay:
		if s.Attempts < 0 {
			return bad("restart_attempts", "must not be negative, not %d", s.Attempts)
		}
		if s.MaxDelay < s.Delay {
			return bad("restart_max_delay_ms", "%d is below restart_delay_ms (%d)", s.MaxDelay.Milliseconds(), s.Delay.Milliseconds())
		}
		if s.Multiplier < 1 || math.IsNaN(s.Multiplier) || math.IsInf(s.Multiplier, 0) {
			return bad("restart_backoff_multiplier", "must be at least 1, not %s", strconv.FormatFloat(s.Multiplier, 'g', -1, 64))
		}
		if s.Jitter < 0 || s.Jitter > 1 || math.IsNaN(s.Jitter) {
			return bad("restart_jitter", "must be between 0 and 1, not %s", strconv.FormatFloat(s.Jitter, 'g', -1, 64))
		}
		if s.ResetAfter <= 0 {
			return bad("restart_reset_after_ms", "must be positive, not %d", s.ResetAfter.Milliseconds())
		}
	case RestartFailureRate:
		if s.MaxFailures < 1 {
			return bad("restart_max_failures_per_interval", "must be at least 1, not %d", s.MaxFailures)
		}
		if s.FailureInterval <= 0 {
			return bad("restart_failure_rate_interval_ms", "must be positive, not %d", s.FailureInterval.Milliseconds())
		}
	default:
		return bad("restart_strategy", "unknown kind %d", s.Kind)
	}
	if s.Delay < 0 {
		return bad("restart_delay_ms", "must not be negative, not %d", s.Delay.Milliseconds())
	}
	return nil
}

// String prints the strategy with the fields its kind uses, as weir.jobs
// shows it.
func (s RestartStrategy) String() string {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + "ms" }
	switch s.Kind {
	case RestartFixedDelay:
		return fmt.Sprintf("fixed-delay(attempts=%d, delay=%s)", s.Attempts, ms(s.Delay))
	case RestartExponentialDelay:
		attempts := "unlimited"
		if s.Attempts > 0 {
			attempts = strconv.Itoa(s.Attempts)
		}
		return fmt.Sprintf("exponential-delay(initial=%s, max=%s, multiplier=%s, jitter=%s, reset_after=%s, attempts=%s)",
			ms(s.Delay), ms(s.MaxDelay), strconv.FormatFloat(s.Multiplier, 'g', -1, 64),
			strconv.FormatFloat(s.Jitter, 'g', -1, 64), ms(s.ResetAfter), attempts)
	case RestartFailureRate:
		return fmt.Sprintf("failure-rate(max_failures=%d, interval=%s, delay=%s)", s.MaxFailures, ms(s.FailureInterval), ms(s.Delay))
	}
	return s.Kind.String()
}

// RestartDecision is what Restarts.Failed decided about one failure.
type RestartDecision struct {
	// Restart is false when the strategy is exhausted: the job is FAILED
	// and Reason says why.
	Restart bool
	// Delay is the wait before the restart.
	Delay time.Duration
	// Attempt counts the restarts the strategy counts (1-based): in the
	// job's life (fixed-delay), since the last reset (exponential-delay),
	// or failures within the interval (failure-rate).
	Attempt int
	Reason  string
}

// Restarts applies a restart strategy to one job's failures. It is a
// deterministic state machine: the time of each failure and a random
// number for the jitter are passed in, so a sequence of calls always
// gives the same decisions. The zero value is not usable; see
// NewRestarts.
type Restarts struct {
	s RestartStrategy
	// attempts counts restarts: in the job's life (fixed-delay) or since
	// the last reset (exponential-delay).
	attempts int
	// next is the exponential delay of the next restart before jitter.
	next time.Duration
	// lastFailure is when the job last failed (zero: never).
	lastFailure time.Time
	// failures are the times of recent failures (failure-rate).
	failures []time.Time
}

// NewRestarts returns the restart state of a job that has not failed.
func NewRestarts(s RestartStrategy) *Restarts {
	r := &Restarts{s: s}
	r.Reset()
	return r
}

// Strategy returns the strategy applied.
func (r *Restarts) Strategy() RestartStrategy { return r.s }

// Reset forgets every failure: the job was resumed by hand (ALTER ...
// RESUME) and gets its full attempts again.
func (r *Restarts) Reset() {
	r.attempts, r.failures, r.lastFailure = 0, nil, time.Time{}
	r.next = r.s.Delay
}

// Failed records a failure of the job at now and decides whether and
// when it restarts. rnd, in [0, 1), picks the jitter of an exponential
// delay (0.5 means none).
func (r *Restarts) Failed(now time.Time, rnd float64) RestartDecision {
	quiet := r.lastFailure.IsZero() || now.Sub(r.lastFailure) >= r.s.ResetAfter
	r.lastFailure = now
	switch r.s.Kind {
	case RestartFixedDelay:
		if r.attempts >= r.s.Attempts {
			return RestartDecision{Attempt: r.attempts, Reason: fmt.Sprintf("restart strategy fixed-delay exhausted its %d attempts", r.s.Attempts)}
		}
		r.attempts++
		return RestartDecision{Restart: true, Delay: r.s.Delay, Attempt: r.attempts}
	case RestartExponentialDelay:
		if quiet {
			// The job ran a whole quiet period without failing: the
			// backoff starts again.
			r.attempts, r.next = 0, r.s.Delay
		}
		if r.s.Attempts > 0 && r.attempts >= r.s.Attempts {
			return RestartDecision{Attempt: r.attempts, Reason: fmt.Sprintf("restart strategy exponential-delay exhausted its %d attempts without a quiet period of %s", r.s.Attempts, r.s.ResetAfter)}
		}
		r.attempts++
		d := r.next
		if j := r.s.Jitter; j > 0 {
			d = time.Duration(float64(d) * (1 + j*(2*rnd-1)))
		}
		grown := float64(r.next) * r.s.Multiplier
		if grown >= float64(r.s.MaxDelay) {
			r.next = r.s.MaxDelay
		} else {
			r.next = time.Duration(grown)
		}
		return RestartDecision{Restart: true, Delay: max(d, 0).Round(time.Millisecond), Attempt: r.attempts}
	case RestartFailureRate:
		keep := r.failures[:0]
		for _, t := range r.failures {
			if now.Sub(t) < r.s.FailureInterval {
				keep = append(keep, t)
			}
		}
		r.failures = append(keep, now)
		if len(r.failures) > r.s.MaxFailures {
			return RestartDecision{Attempt: len(r.failures), Reason: fmt.Sprintf("restart strategy failure-rate exceeded: %d failures within %s, at most %d allowed", len(r.failures), r.s.FailureInterval, r.s.MaxFailures)}
		}
		return RestartDecision{Restart: true, Delay: r.s.Delay, Attempt: len(r.failures)}
	}
	return RestartDecision{Reason: "restart strategy none: the job is not restarted"}
}
