package engine

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/executor/stream"
)

// resetValues holds, for each setting ALTER SYSTEM keeps, a valid value
// other than its default (max_concurrent_checkpoints takes only 1).
var resetValues = map[string]string{
	"barrier_interval_ms":           "250",
	sysSinkLogMaxBytes:              "1048576",
	"checkpoint_timeout_ms":         "30000",
	"checkpoint_min_pause_ms":       "5",
	"tolerable_checkpoint_failures": "2",
	"max_concurrent_checkpoints":    "1",
	sysExpansionHold:                "7",
	sysSinkRetryMaxDelay:            "12345",
	optRestartStrategy:              "failure-rate",
	optRestartAttempts:              "9",
	optRestartDelay:                 "123",
	optRestartMaxDelay:              "4567",
	optRestartMultiplier:            "3",
	optRestartJitter:                "0.5",
	optRestartResetAfter:            "8901",
	optRestartMaxFailures:           "4",
	optRestartInterval:              "6789",
	"work_mem":                      "8MB",
}

// TestAlterSystemReset: ALTER SYSTEM RESET name, SET name TO DEFAULT and
// RESET ALL restore every setting ALTER SYSTEM can set to its default,
// in force at once for weir's settings (at pg_reload_conf() for the
// session ones, as in PostgreSQL) and after a restart.
func TestAlterSystemReset(t *testing.T) {
	names := []string{"barrier_interval_ms", sysSinkLogMaxBytes}
	for i := range systemSettingList {
		names = append(names, systemSettingList[i].name)
	}
	names = append(names, "work_mem")
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	defaults := map[string]string{}
	for _, n := range names {
		if _, ok := resetValues[n]; !ok {
			t.Fatalf("no test value for %s", n)
		}
		defaults[n] = mustRun(t, s, "SHOW "+n)[0]
	}
	if defaults["barrier_interval_ms"] != strconv.FormatInt(defaultBarrierInterval.Milliseconds(), 10) ||
		defaults[sysSinkLogMaxBytes] != strconv.FormatInt(stream.DefaultSinkLogMaxBytes, 10) {
		t.Fatalf("unexpected defaults: %v", defaults)
	}
	setAll := func() {
		t.Helper()
		for _, n := range names {
			mustRun(t, s, "ALTER SYSTEM SET "+n+" = '"+resetValues[n]+"'")
		}
		mustRun(t, s, "SELECT pg_reload_conf()")
		s = session(t, e)
		for _, n := range names {
			wantRows(t, s, "SHOW "+n, resetValues[n])
		}
	}
	wantDefaults := func(how string) {
		t.Helper()
		mustRun(t, s, "SELECT pg_reload_conf()")
		s = session(t, e)
		for _, n := range names {
			if got := mustRun(t, s, "SHOW "+n)[0]; got != defaults[n] {
				t.Errorf("after %s: SHOW %s = %s, want %s", how, n, got, defaults[n])
			}
		}
	}
	for _, form := range []string{"ALTER SYSTEM RESET %s", "ALTER SYSTEM SET %s TO DEFAULT", "ALTER SYSTEM SET %s = DEFAULT"} {
		setAll()
		// The restart settings are checked as a whole: reset the
		// strategy last, once its own settings are gone.
		for i := len(names) - 1; i >= 0; i-- {
			mustRun(t, s, fmt.Sprintf(form, names[i]))
		}
		wantDefaults(form)
	}
	setAll()
	mustRun(t, s, "ALTER SYSTEM RESET ALL")
	wantDefaults("RESET ALL")
	if got := e.st.interval.Load(); got != defaultBarrierInterval.Milliseconds() {
		t.Errorf("running barrier interval %d ms after RESET ALL, want %d", got, defaultBarrierInterval.Milliseconds())
	}
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	for _, n := range names {
		if got := mustRun(t, s, "SHOW "+n)[0]; got != defaults[n] {
			t.Errorf("after a restart: SHOW %s = %s, want %s", n, got, defaults[n])
		}
	}
}
