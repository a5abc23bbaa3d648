package engine

import (
	"context"
	"github.com/weirdb/weir/sql/catalog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/executor/sinktxn"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
)

// System settings are the database's own (ALTER SYSTEM SET name = value),
// unlike a session's (SET): they are kept in the meta keyspace under
// "system/<name>", read at start, shown by SHOW name, and take effect at
// once. barrier_interval_ms is one of them and keeps its own code
// (stream.go, mview.go); this file holds the checkpoint settings of a
// production stream and the restart strategy every job gets unless its
// WITH (...) says otherwise.

// systemSetting is one ALTER SYSTEM setting.
type systemSetting struct {
	name string
	// def is the value SHOW prints when the setting was never set; ""
	// means the value depends on others (see show).
	def  string
	desc string
	// check validates a value and returns it normalised. Errors: 22023,
	// or 0A000 for a value weir does not support.
	check func(v string) (string, error)
	// apply hands a new value to the running system; nil when it is read
	// where it is used.
	apply func(ctx context.Context, e *Engine, v string) error
}

// Restart options, as ALTER SYSTEM settings (the system default) and as
// WITH options of CREATE MATERIALIZED VIEW and CREATE SINK (the job's).
const (
	optRestartStrategy    = "restart_strategy"
	optRestartAttempts    = "restart_attempts"
	optRestartDelay       = "restart_delay_ms"
	optRestartMaxDelay    = "restart_max_delay_ms"
	optRestartMultiplier  = "restart_backoff_multiplier"
	optRestartJitter      = "restart_jitter"
	optRestartResetAfter  = "restart_reset_after_ms"
	optRestartMaxFailures = "restart_max_failures_per_interval"
	optRestartInterval    = "restart_failure_rate_interval_ms"
)

// restartOptions are the restart options a view or sink takes in WITH.
var restartOptions = []string{optRestartStrategy, optRestartAttempts, optRestartDelay, optRestartMaxDelay,
	optRestartMultiplier, optRestartJitter, optRestartResetAfter, optRestartMaxFailures, optRestartInterval}

func init() {
	mviewOptions = append(mviewOptions, restartOptions...)
	sinkOptions = append(sinkOptions, restartOptions...)
}

func checkMillis(name string, lo, hi int64) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
				WithHint("A number of milliseconds from %d to %d is expected.", lo, hi)
		}
		return strconv.FormatInt(n, 10), nil
	}
}

func checkCount(name string, lo, hi int64) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
				WithHint("An integer from %d to %d is expected.", lo, hi)
		}
		return strconv.FormatInt(n, 10), nil
	}
}

func checkFloat(name string, lo, hi float64) func(string) (string, error) {
	return func(v string) (string, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= lo && f <= hi) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v).
				WithHint("A number from %s to %s is expected.", strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64))
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
}

func checkRestartKind(v string) (string, error) {
	k, err := checkpoint.ParseRestartKind(v)
	if err != nil {
		return "", err
	}
	return k.String(), nil
}

func msOf(v string) time.Duration {
	n, _ := strconv.ParseInt(v, 10, 64)
	return time.Duration(n) * time.Millisecond
}

const maxSettingMillis = 7 * 24 * 3600 * 1000

var systemSettingList = []systemSetting{
	{name: "checkpoint_timeout_ms", def: strconv.FormatInt(checkpoint.DefaultTimeout.Milliseconds(), 10),
		desc:  "Fails a checkpoint not acknowledged by every actor within this many milliseconds.",
		check: checkMillis("checkpoint_timeout_ms", 1, maxSettingMillis),
		apply: func(ctx context.Context, e *Engine, v string) error { return e.st.drv.SetTimeout(ctx, msOf(v)) }},
	{name: "checkpoint_min_pause_ms", def: "0",
		desc:  "Least time in milliseconds between the end of one checkpoint and the start of the next.",
		check: checkMillis("checkpoint_min_pause_ms", 0, 3600_000),
		apply: func(ctx context.Context, e *Engine, v string) error { return e.st.drv.SetMinPause(ctx, msOf(v)) }},
	{name: "tolerable_checkpoint_failures", def: "0",
		desc:  "Number of consecutive checkpoint timeouts tolerated before the streaming jobs recover.",
		check: checkCount("tolerable_checkpoint_failures", 0, 1000),
		apply: func(ctx context.Context, e *Engine, v string) error {
			n, _ := strconv.Atoi(v)
			return e.st.drv.SetTolerableFailures(ctx, n)
		}},
	{name: "max_concurrent_checkpoints", def: "1",
		desc: "Number of checkpoints in flight at a time (only 1 is supported).",
		check: func(v string) (string, error) {
			n, err := checkCount("max_concurrent_checkpoints", 1, 1000)(v)
			if err != nil {
				return "", err
			}
			if n != "1" {
				return "", pgerr.New(pgerr.FeatureNotSupported, "max_concurrent_checkpoints = %s is not supported", n).
					WithDetail("weir runs one checkpoint at a time: a barrier is injected once the previous checkpoint committed, and writers arriving meanwhile share it.").
					WithHint("Lower barrier_interval_ms or checkpoint_min_pause_ms to checkpoint more often.")
			}
			return n, nil
		}},
	{name: sysExpansionHold, def: strconv.FormatInt(defaultExpansionHoldMillis, 10),
		desc:  "Longest wait in milliseconds of a checkpoint barrier behind a set-returning function's expansion in progress; past it the barrier passes and the rest of the expansion falls into later epochs.",
		check: checkMillis(sysExpansionHold, 0, maxSettingMillis)},
	{name: sysSinkRetryMaxDelay, def: strconv.FormatInt(sinktxn.DefaultRetryMax.Milliseconds(), 10),
		desc:  "Longest wait in milliseconds between two delivery attempts of a decoupled sink whose target fails; it bounds how late a sink resumes after its target returns.",
		check: checkMillis(sysSinkRetryMaxDelay, sinktxn.DefaultRetryInitial.Milliseconds(), maxSettingMillis)},
	{name: optRestartStrategy, def: checkpoint.DefaultRestartStrategy.Kind.String(),
		desc:  "Restart strategy of streaming jobs that do not set their own: fixed-delay, exponential-delay, failure-rate or none.",
		check: checkRestartKind},
	{name: optRestartAttempts, desc: "Restarts a job may make: in its life (fixed-delay) or between two quiet periods (exponential-delay, 0 for no limit).",
		check: checkCount(optRestartAttempts, 0, 1_000_000)},
	{name: optRestartDelay, def: strconv.FormatInt(checkpoint.DefaultRestartStrategy.Delay.Milliseconds(), 10),
		desc:  "Wait before a restart in milliseconds (fixed-delay, failure-rate), or the first wait (exponential-delay).",
		check: checkMillis(optRestartDelay, 0, maxSettingMillis)},
	{name: optRestartMaxDelay, def: strconv.FormatInt(checkpoint.DefaultRestartStrategy.MaxDelay.Milliseconds(), 10),
		desc:  "Longest wait before a restart in milliseconds (exponential-delay).",
		check: checkMillis(optRestartMaxDelay, 0, maxSettingMillis)},
	{name: optRestartMultiplier, def: strconv.FormatFloat(checkpoint.DefaultRestartStrategy.Multiplier, 'g', -1, 64),
		desc:  "Factor the wait grows by after each restart (exponential-delay).",
		check: checkFloat(optRestartMultiplier, 1, 100)},
	{name: optRestartJitter, def: strconv.FormatFloat(checkpoint.DefaultRestartStrategy.Jitter, 'g', -1, 64),
		desc:  "Random spread of each wait, as a fraction of it (exponential-delay).",
		check: checkFloat(optRestartJitter, 0, 1)},
	{name: optRestartResetAfter, def: strconv.FormatInt(checkpoint.DefaultRestartStrategy.ResetAfter.Milliseconds(), 10),
		desc:  "Milliseconds without a failure after which the wait and the attempts start again (exponential-delay).",
		check: checkMillis(optRestartResetAfter, 1, maxSettingMillis)},
	{name: optRestartMaxFailures, def: strconv.Itoa(checkpoint.DefaultRestartStrategy.MaxFailures),
		desc:  "Failures tolerated within restart_failure_rate_interval_ms (failure-rate).",
		check: checkCount(optRestartMaxFailures, 1, 1_000_000)},
	{name: optRestartInterval, def: strconv.FormatInt(checkpoint.DefaultRestartStrategy.FailureInterval.Milliseconds(), 10),
		desc:  "Window in milliseconds over which failure-rate counts failures.",
		check: checkMillis(optRestartInterval, 1, maxSettingMillis)},
}

func lookupSystemSetting(name string) *systemSetting {
	for i := range systemSettingList {
		if strings.EqualFold(systemSettingList[i].name, name) {
			return &systemSettingList[i]
		}
	}
	return nil
}

// systemValues holds the system settings set by ALTER SYSTEM (the
// others have their defaults).
type systemValues struct {
	mu   sync.Mutex
	vals map[string]string
}

func metaSystemKey(name string) string { return "system/" + name }

// loadSystemValues reads the system settings kept in the meta keyspace.
// A stored value that no longer passes its check is ignored (logged).
func (e *Engine) loadSystemValues() *systemValues {
	sv := &systemValues{vals: map[string]string{}}
	for _, s := range systemSettingList {
		v, ok, err := e.db.Meta(metaSystemKey(s.name))
		if err != nil || !ok {
			continue
		}
		norm, err := s.check(string(v))
		if err != nil {
			e.log.Warn("ignoring a stored system setting", "name", s.name, "value", string(v), "err", err)
			continue
		}
		sv.vals[s.name] = norm
	}
	return sv
}

// get returns the value of a system setting and whether it was set.
func (sv *systemValues) get(name string) (string, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	v, ok := sv.vals[name]
	return v, ok
}

// show returns what SHOW prints for a system setting.
func (sv *systemValues) show(s *systemSetting) string {
	if v, ok := sv.get(s.name); ok {
		return v
	}
	if s.name == optRestartAttempts {
		return strconv.Itoa(sv.restartStrategy().Attempts)
	}
	return s.def
}

// setSystemSetting runs ALTER SYSTEM SET for the settings of this file:
// it checks the value, keeps it, and hands it to the running system.
func (e *Engine) setSystemSetting(ctx context.Context, s *systemSetting, raw string) error {
	if raw == "" {
		return e.resetSystemSetting(ctx, s)
	}
	v, err := s.check(unquoteSetting(raw))
	if err != nil {
		return err
	}
	sv := e.st.sys
	if strings.HasPrefix(s.name, "restart_") {
		// The new system strategy must be whole: a job without options of
		// its own gets it at its next failure.
		sv.mu.Lock()
		vals := map[string]string{s.name: v}
		for k, x := range sv.vals {
			if k != s.name {
				vals[k] = x
			}
		}
		sv.mu.Unlock()
		if _, err := restartStrategyOf(vals, nil); err != nil {
			return err
		}
	}
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.SetMeta(metaSystemKey(s.name), []byte(v)); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return err
	}
	if s.apply != nil {
		if err := s.apply(ctx, e, v); err != nil {
			return err
		}
	}
	sv.mu.Lock()
	sv.vals[s.name] = v
	sv.mu.Unlock()
	return nil
}

// restartStrategy returns the system's restart strategy.
func (sv *systemValues) restartStrategy() checkpoint.RestartStrategy {
	sv.mu.Lock()
	vals := make(map[string]string, len(sv.vals))
	for k, v := range sv.vals {
		vals[k] = v
	}
	sv.mu.Unlock()
	s, err := restartStrategyOf(vals, nil)
	if err != nil {
		return checkpoint.DefaultRestartStrategy
	}
	return s
}

// strategyOrDefault returns rel's restart strategy, or the default one
// when its options no longer parse (they were checked at CREATE).
func (e *Engine) strategyOrDefault(rel *catalog.Relation) checkpoint.RestartStrategy {
	s, err := e.jobRestartStrategy(rel.With)
	if err != nil {
		return checkpoint.DefaultRestartStrategy
	}
	return s
}

// jobRestartStrategy returns the restart strategy of a job whose
// relation has the WITH options with: the system's, overridden by the
// job's own options. A job that names its own restart_strategy starts
// from that kind's defaults, not from the system's other settings.
// Errors: 22023 naming the option at fault.
func (e *Engine) jobRestartStrategy(with map[string]string) (checkpoint.RestartStrategy, error) {
	sys := map[string]string{}
	if e.st != nil && e.st.sys != nil {
		e.st.sys.mu.Lock()
		for k, v := range e.st.sys.vals {
			sys[k] = v
		}
		e.st.sys.mu.Unlock()
	}
	own := map[string]string{}
	for _, k := range restartOptions {
		if v, ok := with[k]; ok {
			norm, err := lookupSystemSetting(k).check(v)
			if err != nil {
				return checkpoint.RestartStrategy{}, err
			}
			own[k] = norm
		}
	}
	if _, ok := own[optRestartStrategy]; ok {
		sys = nil
	}
	return restartStrategyOf(sys, own)
}

// restartStrategyOf builds a strategy from checked settings: base, then
// over (either may be nil). The kind's defaults fill what neither sets.
func restartStrategyOf(base, over map[string]string) (checkpoint.RestartStrategy, error) {
	get := func(k string) (string, bool) {
		if v, ok := over[k]; ok {
			return v, true
		}
		v, ok := base[k]
		return v, ok
	}
	kind := checkpoint.DefaultRestartStrategy.Kind
	if v, ok := get(optRestartStrategy); ok {
		k, err := checkpoint.ParseRestartKind(v)
		if err != nil {
			return checkpoint.RestartStrategy{}, err
		}
		kind = k
	}
	s := checkpoint.RestartDefaults(kind)
	if v, ok := get(optRestartAttempts); ok {
		s.Attempts, _ = strconv.Atoi(v)
	}
	if v, ok := get(optRestartDelay); ok {
		s.Delay = msOf(v)
	}
	if v, ok := get(optRestartMaxDelay); ok {
		s.MaxDelay = msOf(v)
	}
	if v, ok := get(optRestartMultiplier); ok {
		s.Multiplier, _ = strconv.ParseFloat(v, 64)
	}
	if v, ok := get(optRestartJitter); ok {
		s.Jitter, _ = strconv.ParseFloat(v, 64)
	}
	if v, ok := get(optRestartResetAfter); ok {
		s.ResetAfter = msOf(v)
	}
	if v, ok := get(optRestartMaxFailures); ok {
		s.MaxFailures, _ = strconv.Atoi(v)
	}
	if v, ok := get(optRestartInterval); ok {
		s.FailureInterval = msOf(v)
	}
	if s.Kind == checkpoint.RestartExponentialDelay && s.MaxDelay < s.Delay {
		if _, set := get(optRestartMaxDelay); !set {
			// Only the first delay was given: the cap follows it.
			s.MaxDelay = s.Delay
		}
	}
	return s, s.Validate()
}

// checkpointConfig fills the coordinator's settings that ALTER SYSTEM
// sets into cfg.
func (sv *systemValues) checkpointConfig(cfg checkpoint.Config) checkpoint.Config {
	if v, ok := sv.get("checkpoint_timeout_ms"); ok {
		cfg.Timeout = msOf(v)
	}
	if v, ok := sv.get("checkpoint_min_pause_ms"); ok {
		cfg.MinPauseBetweenCheckpoints = msOf(v)
	}
	if v, ok := sv.get("tolerable_checkpoint_failures"); ok {
		cfg.TolerableFailures, _ = strconv.Atoi(v)
	}
	return cfg
}

// resetSystemSetting runs ALTER SYSTEM SET name TO DEFAULT: the setting
// is forgotten and its default applies again.
func (e *Engine) resetSystemSetting(ctx context.Context, s *systemSetting) error {
	sv := e.st.sys
	if strings.HasPrefix(s.name, "restart_") {
		sv.mu.Lock()
		vals := map[string]string{}
		for k, x := range sv.vals {
			if k != s.name {
				vals[k] = x
			}
		}
		sv.mu.Unlock()
		if _, err := restartStrategyOf(vals, nil); err != nil {
			return err
		}
	}
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.DeleteKey(storage.MetaKey(metaSystemKey(s.name))); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return err
	}
	if s.apply != nil && s.def != "" {
		if err := s.apply(ctx, e, s.def); err != nil {
			return err
		}
	}
	sv.mu.Lock()
	delete(sv.vals, s.name)
	sv.mu.Unlock()
	return nil
}

// systemSettingRows returns the rows SHOW ALL adds for the system
// settings: name, value, description.
func (e *Engine) systemSettingRows() [][3]string {
	rows := [][3]string{{"barrier_interval_ms", strconv.FormatInt(e.st.interval.Load(), 10), "Time in milliseconds between periodic checkpoints."}}
	for i := range systemSettingList {
		s := &systemSettingList[i]
		rows = append(rows, [3]string{s.name, e.st.sys.show(s), s.desc})
	}
	rows = append(rows, [3]string{sysSinkLogMaxBytes, e.sinkLogMaxBytesSetting(),
		"The log store bound in bytes of decoupled sinks that set no sink.log_store.max_bytes."})
	return rows
}
