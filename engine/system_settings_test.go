package engine

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestCheckpointSettings: the checkpoint settings are shown with their
// defaults, changed by ALTER SYSTEM at run time, checked, and kept across
// a restart.
func TestCheckpointSettings(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	wantRows(t, s, "SHOW checkpoint_timeout_ms", "600000")
	wantRows(t, s, "SHOW checkpoint_min_pause_ms", "0")
	wantRows(t, s, "SHOW tolerable_checkpoint_failures", "0")
	wantRows(t, s, "SHOW max_concurrent_checkpoints", "1")
	wantRows(t, s, "SHOW restart_strategy", "exponential-delay")
	wantRows(t, s, "SHOW restart_attempts", "0")
	all := strings.Join(mustRun(t, s, "SHOW ALL"), "\n")
	for _, want := range []string{"checkpoint_timeout_ms 600000 ", "max_concurrent_checkpoints 1 ", "restart_strategy exponential-delay ", "TimeZone UTC "} {
		if !strings.Contains(all, want) {
			t.Errorf("SHOW ALL lacks %q:\n%s", want, all)
		}
	}

	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t")
	mustRun(t, s, "ALTER SYSTEM SET checkpoint_timeout_ms = 30000")
	mustRun(t, s, "ALTER SYSTEM SET checkpoint_min_pause_ms TO '5'")
	mustRun(t, s, "ALTER SYSTEM SET tolerable_checkpoint_failures = 2")
	mustRun(t, s, "ALTER SYSTEM SET max_concurrent_checkpoints = 1")
	mustRun(t, s, "ALTER SYSTEM SET restart_strategy = 'fixed-delay'")
	wantRows(t, s, "SHOW restart_attempts", "3")
	mustRun(t, s, "ALTER SYSTEM SET restart_attempts = 5")
	// The coordinator runs with the new settings: writes still commit
	// (min pause 5 ms), and the view shows them.
	mustRun(t, s, "INSERT INTO t VALUES (1, 1), (2, 2)")
	mustRun(t, s, "INSERT INTO t VALUES (3, 3)")
	wantRows(t, s, "SELECT n FROM m", "3")

	for stmt, code := range map[string]pgerr.Code{
		"ALTER SYSTEM SET max_concurrent_checkpoints = 2":                               pgerr.FeatureNotSupported,
		"ALTER SYSTEM SET checkpoint_timeout_ms = 0":                                    pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET checkpoint_min_pause_ms = -1":                                 pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET tolerable_checkpoint_failures = 'many'":                       pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET restart_strategy = 'forever'":                                 pgerr.InvalidParameterValue,
		"ALTER SYSTEM SET restart_attempts = 0":                                         pgerr.InvalidParameterValue, // fixed-delay needs one
		"ALTER SYSTEM SET restart_jitter = 2":                                           pgerr.InvalidParameterValue,
		"CREATE MATERIALIZED VIEW bad WITH (restart_strategy = 'x') AS SELECT * FROM t": pgerr.InvalidParameterValue,
		"CREATE MATERIALIZED VIEW bad WITH (restart_strategy = 'exponential-delay', restart_backoff_multiplier = 0.5) AS SELECT * FROM t": pgerr.InvalidParameterValue,
	} {
		if _, err := run(t, s, stmt); pgerr.CodeOf(err) != code {
			t.Errorf("%s: got %v, want SQLSTATE %s", stmt, err, code)
		}
	}
	mustRun(t, s, "CREATE MATERIALIZED VIEW own WITH (restart_strategy = 'failure-rate', restart_max_failures_per_interval = 3) AS SELECT * FROM t")
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SHOW checkpoint_timeout_ms", "30000")
	wantRows(t, s, "SHOW checkpoint_min_pause_ms", "5")
	wantRows(t, s, "SHOW tolerable_checkpoint_failures", "2")
	wantRows(t, s, "SHOW restart_strategy", "fixed-delay")
	wantRows(t, s, "SHOW restart_attempts", "5")
	mustRun(t, s, "INSERT INTO t VALUES (4, 4)")
	wantRows(t, s, "SELECT n FROM m", "4")

	// TO DEFAULT forgets a setting.
	mustRun(t, s, "ALTER SYSTEM SET checkpoint_timeout_ms TO DEFAULT")
	mustRun(t, s, "ALTER SYSTEM SET restart_attempts = DEFAULT")
	wantRows(t, s, "SHOW checkpoint_timeout_ms", "600000")
	wantRows(t, s, "SHOW restart_attempts", "3")
	mustRun(t, s, "INSERT INTO t VALUES (5, 5)")
	wantRows(t, s, "SELECT n FROM m", "5")
}
