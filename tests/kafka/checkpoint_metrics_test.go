package kafka

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// TestFailedCheckpointCounted makes one checkpoint fail and watches it
// through the server's own outputs: the error point fails the view base
// at the barrier ending the first epoch that gave it changes (the
// INSERT's), so the failure falls while that barrier's checkpoint is in
// flight. (Failing the INSERT's chunk instead, stream.operator_error,
// does not make that certain: the chunk reaches base before the barrier
// the statement asks for is injected, and a failure between checkpoints
// fails none.) base is read by another view and by a sink, which would
// have to be rebuilt with it (it reads a table), so its region cannot
// restart alone and its failure fails the checkpoint in flight, which a
// recovery of every job follows. /metrics then counts one failed
// checkpoint (and no timed-out one), weir.checkpoints shows it with its
// reason, and later checkpoints succeed again with the views caught up.
func TestFailedCheckpointCounted(t *testing.T) {
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	maddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	w := testenv.Start(t, testenv.Options{
		Args: []string{"--metrics-listen", maddr},
		Env:  []string{fault.EnvVar + "=" + fault.BarrierError + "@base:1"},
	})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		"CREATE MATERIALIZED VIEW base AS SELECT k, v FROM t",
		"CREATE MATERIALIZED VIEW top AS SELECT count(*) AS n FROM base",
		"CREATE SINK out FROM base WITH (connector = 'blackhole', primary_key = 'k') FORMAT UPSERT ENCODE JSON",
	)
	outcome := func(m testenv.Metrics, o string) float64 {
		v, _ := m.Value("weir_checkpoints_total", "outcome", o)
		return v
	}
	m := testenv.Scrape(t, maddr)
	if f, s := outcome(m, "failed"), outcome(m, "succeeded"); f != 0 || s < 1 {
		t.Fatalf("before the fault: %g failed and %g succeeded checkpoints, want 0 and some\n%s", f, s, m.Series("weir_checkpoints_total"))
	}
	failedRows := func() string {
		return strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn,
			"SELECT count(*), coalesce(min(failure_reason), '') FROM weir.checkpoints WHERE status = 'failed'")))
	}
	if got := failedRows(); got != "0 |" {
		t.Fatalf("weir.checkpoints before the fault: %s failed", got)
	}

	// The write that reaches base fails the checkpoint holding it; the
	// statement fails with it or commits after the recovery.
	if _, err := kafkatest.QueryErr(conn, "INSERT INTO t VALUES (1, 10)"); err != nil && !strings.Contains(err.Error(), `"base"`) {
		t.Fatalf("the write caught in the failed checkpoint failed without naming base: %v", err)
	}
	var succeededAfter float64
	kafkatest.Eventually(t, time.Minute, "one failed checkpoint counted", func() (bool, string) {
		m := testenv.Scrape(t, maddr)
		succeededAfter = outcome(m, "succeeded")
		return outcome(m, "failed") == 1, m.Series("weir_checkpoints_total")
	})
	got := failedRows()
	if !strings.HasPrefix(got, "1 | ") || !strings.Contains(got, "injected fault") {
		t.Errorf("weir.checkpoints' failed rows: %s, want one naming the injected fault", got)
	}
	if rows := kafkatest.Query(t, conn, "SELECT count(*) FROM weir.checkpoints WHERE status = 'failed' AND duration_ms IS NOT NULL AND bytes IS NULL"); rows[0][0] != "1" {
		t.Errorf("the failed checkpoint's row has no duration or has bytes: %v", rows)
	}

	// Everything goes on once the recovery (paced by base's restart
	// strategy) is done: writes commit, the views follow, checkpoints
	// succeed again, and the failure was counted once.
	kafkatest.Eventually(t, time.Minute, "both views and the sink running again", func() (bool, string) {
		rows := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT name, status FROM weir.jobs ORDER BY name"))
		return rows == "base | running\nout | running\ntop | running\n", rows
	})
	kafkatest.Exec(t, conn, "INSERT INTO t VALUES (2, 20)", "INSERT INTO t VALUES (3, 30)")
	if got, want := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT n FROM top")), kafkatest.Lines(kafkatest.Query(t, conn, "SELECT count(*) FROM t")); got != want || got < "2" {
		t.Errorf("top = %s, t has %s rows, want them equal and 2 or 3", got, want)
	}
	m = testenv.Scrape(t, maddr)
	if f, to, s := outcome(m, "failed"), outcome(m, "timed_out"), outcome(m, "succeeded"); f != 1 || to != 0 || s <= succeededAfter {
		t.Errorf("after the recovery: %g failed, %g timed out, %g succeeded (%g when the failure was counted), want 1, 0 and more\n%s",
			f, to, s, succeededAfter, m.Series("weir_checkpoints_total"))
	}
	if rows := kafkatest.Query(t, conn, "SELECT status FROM weir.checkpoints ORDER BY epoch DESC LIMIT 1"); rows[0][0] != "succeeded" && rows[0][0] != "in_progress" {
		t.Errorf("the newest checkpoint is %v after the recovery, want succeeded or in_progress", rows)
	}
	if v, _ := m.Value("weir_job_restarts_total", "job", "top"); v < 1 {
		t.Errorf("weir_job_restarts_total{job=top} = %g, want the recovery counted\n%s", v, fmt.Sprint(m.Series("weir_job_restarts_total")))
	}
}
