package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestObserverCheckpoints walks the observer through a committed
// checkpoint, one that fails, one that times out and a recovery at start
// (no failure), with the times passed in, and checks weir.checkpoints'
// records, the outcome counters and the jobs' restarts.
func TestObserverCheckpoints(t *testing.T) {
	o := newObserver()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	o.recoveryStarted(nil, nil, at(0)) // start-up: not a failure
	o.checkpointInjected(1, true, nil, at(1))
	o.checkpointCommitted(1, 100, at(3))
	o.checkpointInjected(2, false, nil, at(10))
	o.recoveryStarted(pgerr.New(pgerr.ConnectionException, "sink s: the broker did not answer"), []types.JobID{7, 8}, at(40))
	o.checkpointInjected(3, true, nil, at(50))
	o.recoveryStarted(pgerr.New(pgerr.QueryCanceled, "checkpoint of epoch 3 timed out"), []types.JobID{7}, at(90))
	o.checkpointInjected(4, true, nil, at(100))
	o.checkpointCommitted(4, 250, at(104))
	// A commit reported twice, or for an epoch not recorded, changes nothing.
	o.checkpointCommitted(4, 999, at(110))
	o.checkpointCommitted(99, 1, at(111))

	type rec struct {
		epoch  uint64
		ms     int
		bytes  int64
		status string
	}
	var got []rec
	for _, c := range o.checkpoints() {
		got = append(got, rec{c.epoch, int(c.duration.Milliseconds()), c.bytes, c.status})
	}
	want := []rec{{4, 4, 250, ckptSucceeded}, {3, 40, 0, ckptTimedOut}, {2, 30, 0, ckptFailed}, {1, 2, 100, ckptSucceeded}}
	if len(got) != len(want) {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("checkpoint %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if r := o.checkpoints()[2].reason; r != "sink s: the broker did not answer" {
		t.Errorf("failure reason %q", r)
	}
	for outcome, n := range map[string]float64{ckptSucceeded: 2, ckptFailed: 1, ckptTimedOut: 1} {
		if v := testutil.ToFloat64(o.ckptTotal.WithLabelValues(outcome)); v != n {
			t.Errorf("weir_checkpoints_total{outcome=%q} = %g, want %g", outcome, v, n)
		}
	}
	if n := testutil.CollectAndCount(o.ckptDuration); n != 1 {
		t.Errorf("duration histogram: %d series", n)
	}
	if h := o.jobHealthOf(7); h.restarts != 2 || h.lastError != "checkpoint of epoch 3 timed out" || !h.lastAt.Equal(at(90)) {
		t.Errorf("job 7: %+v, want 2 restarts and the timeout as its last error", h)
	}
	if h := o.jobHealthOf(8); h.restarts != 1 {
		t.Errorf("job 8: %+v, want 1 restart", h)
	}
	if o.recovering.Load() {
		t.Errorf("still recovering after the Initial barrier")
	}
	o.jobFailed(9, errors.New("cannot rebuild"), at(120))
	if h := o.jobHealthOf(9); h.restarts != 0 || h.lastError != "cannot rebuild" {
		t.Errorf("job 9: %+v", h)
	}
}

// TestObserverHistoryBounded checks that weir.checkpoints keeps the last
// checkpointHistory checkpoints.
func TestObserverHistoryBounded(t *testing.T) {
	o := newObserver()
	t0 := time.Unix(0, 0)
	for e := uint64(1); e <= checkpointHistory+20; e++ {
		o.checkpointInjected(e, false, nil, t0)
		o.checkpointCommitted(e, 1, t0)
	}
	cs := o.checkpoints()
	if len(cs) != checkpointHistory || cs[0].epoch != checkpointHistory+20 || cs[len(cs)-1].epoch != 21 {
		t.Errorf("kept %d checkpoints, epochs %d..%d; want %d, %d..21", len(cs), cs[0].epoch, cs[len(cs)-1].epoch, checkpointHistory, checkpointHistory+20)
	}
}

// TestMonitoringWhileWriting reads the metrics, weir.operators and
// EXPLAIN MATERIALIZED VIEW while another session writes (run with -race
// to check that reading the running jobs' counters is safe), then checks
// the counts once the writes are committed: the aggregation read every
// row and keeps one state row per group.
func TestMonitoringWhileWriting(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, g int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT g, count(*) AS n FROM t GROUP BY g")
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := session(t, e)
		for i := 0; i < 20; i++ {
			if _, err := run(t, w, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i%4)); err != nil {
				t.Errorf("insert: %v", err)
				return
			}
		}
	}()
	r := session(t, e)
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		if _, err := e.Metrics().Registry.Gather(); err != nil {
			t.Fatalf("gathering metrics: %v", err)
		}
		mustRun(t, r, "SELECT * FROM weir.operators")
		mustRun(t, r, "EXPLAIN MATERIALIZED VIEW m")
	}
	wantRows(t, s, "SELECT operator, rows_in, state_rows FROM weir.operators WHERE job = 'm' AND operator = 'StreamHashAgg'", "StreamHashAgg 20 4")
	wantRows(t, s, "SELECT name, status, restarts FROM weir.jobs", "m running 0")
	fams, err := e.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var rowsOut float64
	for _, f := range fams {
		if f.GetName() != "weir_operator_rows_out_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operator" && l.GetValue() == "StreamTableScan" {
					rowsOut += m.GetCounter().GetValue()
				}
			}
		}
	}
	if rowsOut != 20 {
		t.Errorf("weir_operator_rows_out_total{operator=StreamTableScan} = %g, want 20", rowsOut)
	}
}

// TestWeirViewsInsideDML reads weir's views in INSERT ... SELECT, whose
// rows are computed while the statement holds the engine's write lock:
// the views must answer (from the jobs the last barrier went to) rather
// than wait for the lock forever.
func TestWeirViewsInsideDML(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT id % 2 AS g, count(*) AS n FROM t GROUP BY id % 2")
	mustRun(t, s, "CREATE TABLE x (what text, n text)")
	mustRun(t, s, "INSERT INTO x SELECT 'job', name || ' ' || status FROM weir.jobs")
	mustRun(t, s, "INSERT INTO x SELECT 'operator', operator FROM weir.operators WHERE operator = 'StreamHashAgg'")
	mustRun(t, s, "INSERT INTO x SELECT 'state', job FROM weir.state_tables WHERE operator = 'StreamHashAgg'")
	wantRows(t, s, "SELECT * FROM x ORDER BY what", "job m running", "operator StreamHashAgg", "state m")
}

// TestBackfillTime walks a job's backfill reports with the times passed
// in: the backfill runs from the first report until every reporting
// actor is done, and its time stays fixed after that.
func TestBackfillTime(t *testing.T) {
	j := &jobRun{progress: map[[2]uint32]stream.BackfillProgress{}}
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	if _, ok := j.backfillTime(at(0)); ok {
		t.Fatalf("a job that reported no backfill has a backfill time")
	}
	j.reportAt(stream.BackfillProgress{Actor: 1, Rows: 0, Total: 10}, at(1))
	j.reportAt(stream.BackfillProgress{Actor: 2, Rows: 0, Total: 10}, at(2))
	j.reportAt(stream.BackfillProgress{Actor: 1, Rows: 10, Total: 10, Done: true}, at(4))
	if d, ok := j.backfillTime(at(5)); !ok || d != 4*time.Second {
		t.Errorf("while actor 2 backfills: %v %v, want 4s so far", d, ok)
	}
	j.reportAt(stream.BackfillProgress{Actor: 2, Rows: 10, Total: 10, Done: true}, at(7))
	j.reportAt(stream.BackfillProgress{Actor: 2, Rows: 10, Total: 10, Done: true}, at(9)) // a later report changes nothing
	for _, now := range []time.Time{at(7), at(60)} {
		if d, ok := j.backfillTime(now); !ok || d != 6*time.Second {
			t.Errorf("done, asked at %v: %v %v, want 6s", now.Sub(t0), d, ok)
		}
	}
}

// TestBackfillMetrics creates a view over a table that holds rows and
// reads the job's backfill series: its progress is 1, and its time is
// exported and no longer moves once the backfill is done.
func TestBackfillMetrics(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY)")
	var vals []string
	for i := 1; i <= 500; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	mustRun(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t")
	wantRows(t, s, "SELECT n FROM m", "500")
	gauge := func(name string) (float64, bool) {
		fams, err := e.Metrics().Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() != name {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "job" && l.GetValue() == "m" {
						return m.GetGauge().GetValue(), true
					}
				}
			}
		}
		return 0, false
	}
	if v, ok := gauge("weir_job_backfill_progress_ratio"); !ok || v != 1 {
		t.Errorf("weir_job_backfill_progress_ratio{job=m} = %g %v, want 1", v, ok)
	}
	first, ok := gauge("weir_job_backfill_seconds")
	if !ok || first < 0 {
		t.Fatalf("weir_job_backfill_seconds{job=m} = %g %v, want a time", first, ok)
	}
	mustRun(t, s, "INSERT INTO t VALUES (501)")
	wantRows(t, s, "SELECT n FROM m", "501")
	if again, _ := gauge("weir_job_backfill_seconds"); again != first {
		t.Errorf("weir_job_backfill_seconds{job=m} moved from %g to %g after the backfill was done", first, again)
	}
}

// A view that reads one source twice (Nexmark q7's self-join of bids)
// has one row per partition in weir.source_partitions and one series per
// partition in the metrics: two series of one name and labels made every
// scrape of /metrics fail.
func TestSelfJoinSourceMetrics(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, `CREATE SOURCE bid (auction bigint, bidder bigint, price bigint, channel varchar, url varchar, date_time timestamp, extra varchar)
		WITH (connector = 'nexmark', nexmark.table.type = 'Bid', nexmark.event.num = '2000')`)
	mustRun(t, s, `CREATE MATERIALIZED VIEW sj AS SELECT a.auction, count(*) AS n FROM bid a JOIN bid b ON a.auction = b.auction AND a.bidder = b.bidder GROUP BY a.auction`)
	deadline := time.Now().Add(time.Minute)
	for {
		rows := mustRun(t, s, "SELECT job, partition FROM weir.source_partitions WHERE job = 'sj' AND committed_position IS NOT NULL")
		if len(rows) > 0 {
			seen := map[string]bool{}
			for _, r := range rows {
				if seen[r] {
					t.Fatalf("weir.source_partitions lists %q twice: %q", r, rows)
				}
				seen[r] = true
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no committed position of the source within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := e.Metrics().Registry.Gather(); err != nil {
		t.Fatalf("gathering the metrics: %v", err)
	}
}

// TestStatementsCounted: weir_statements_total counts statements by the
// kind their command tag names, in lower case, and
// weir_dml_commits_total by the path each committed through.
func TestStatementsCounted(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	// Until the start's recovery injected its Initial barrier, and in
	// the epoch of a catalog change, writes commit through their
	// checkpoint: FLUSH waits for both to pass.
	mustRun(t, s, "FLUSH")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	mustRun(t, s, "INSERT INTO t VALUES (2, 20), (3, 30)")
	mustRun(t, s, "UPDATE t SET v = v + 1 WHERE id = 1")
	wantRows(t, s, "SELECT count(*) FROM t", "3")
	for kind, n := range map[string]float64{"insert": 2, "update": 1, "select": 1} {
		if v := testutil.ToFloat64(e.metrics.statements.WithLabelValues(kind)); v != n {
			t.Errorf("weir_statements_total{kind=%q} = %g, want %g", kind, v, n)
		}
	}
	if v := testutil.ToFloat64(e.obs.dmlCommits.WithLabelValues("redo_log")); v != 3 {
		t.Errorf(`weir_dml_commits_total{path="redo_log"} = %g, want 3`, v)
	}
}
