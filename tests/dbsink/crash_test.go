package dbsink

import (
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// crashPoints are the points the crash matrix kills weir at, with the
// hit that kills it: the log store append (before the checkpoint
// commits), the target's transaction sent but not committed, committed
// but the epoch still in the log store, the epoch gone from the log
// store; and a recovery: after a crash at sink.db_after_commit, the
// restart dies when it finds that epoch in the progress table.
var crashPoints = []struct {
	point string
	hit   int
}{
	{fault.SinkLogAppend, 10},
	{fault.SinkDBBeforeCommit, 6},
	{fault.SinkDBAfterCommit, 6},
	{fault.SinkLogAfterTruncate, 6},
	{fault.RecoveryBeforeSinkCommit, 1},
}

// twoPhasePoints are the points swept with sink.two_phase_commit: the
// transaction sent but not prepared, prepared but not recorded, recorded
// but not committed, committed but the epoch still in the log store; and
// a recovery that dies before committing the recorded transaction.
var twoPhasePoints = []struct {
	point string
	hit   int
}{
	{fault.SinkDBBeforeCommit, 6},
	{fault.SinkDBAfterPrepare, 6},
	{fault.SinkLogAfterRecord, 6},
	{fault.SinkDBAfterCommit, 6},
	{fault.RecoveryBeforeSinkCommit, 1},
}

// TestCrashMatrix kills weir (SIGKILL, from inside, at a fault point)
// while rows stream into both sinks of each target kind, restarts it
// without the fault on the same data directory, inserts more, and checks
// that each target table equals what weir holds: rows_out every row of
// the table exactly once, agg_out the view.
func TestCrashMatrix(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			srv := startServer(t, kind)
			for _, c := range crashPoints {
				t.Run(c.point, func(t *testing.T) {
					t.Parallel()
					crashCase(t, newTarget(t, kind, srv), c.point, c.hit, fault.SinkDBAfterCommit)
				})
			}
			for _, c := range twoPhasePoints {
				t.Run("two-phase/"+c.point, func(t *testing.T) {
					t.Parallel()
					crashCase(t, newTarget(t, kind, srv), c.point, c.hit, fault.SinkLogAfterRecord, "sink.two_phase_commit = 'true'")
				})
			}
		})
	}
}

// crashCase runs one case of the matrix: a pipeline into tg with extra
// sink options, killed at point's hit-th hit while rows stream in (for
// recovery.before_sink_commit, first at before's and then in the
// recovery), restarted disarmed, given more rows and checked.
func crashCase(t *testing.T, tg *target, point string, hit int, before string, extra ...string) {
	p := newPipeline(t, tg, extra...)
	p.insert(500, 250)
	p.check()
	first := point
	if point == fault.RecoveryBeforeSinkCommit {
		first, hit = before, 6
	}
	p.dieWhileInserting(first, hit)
	if point == fault.RecoveryBeforeSinkCommit {
		w := p.w
		w.SetEnv(armed(point, 1))
		n := kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point))
		w.Spawn()
		waitFault(t, w, point, n)
		t.Logf("the recovery died at %s", point)
	}
	p.w.SetEnv()
	p.w.Restart()
	p.resync()
	p.insert(p.next+500, 250)
	p.check()
	if len(extra) > 0 {
		// No prepared transaction is left behind holding locks.
		q := "SELECT gid FROM pg_prepared_xacts"
		if tg.kind == "mysql" {
			q = "XA RECOVER"
		}
		kafkatest.Eventually(t, time.Minute, "no prepared transaction left", func() (bool, string) {
			got, err := tg.rows(q)
			return err == nil && len(got) == 0, fmt.Sprint(got, err)
		})
	}
}

// dieWhileInserting restarts weir armed with point:hit and inserts
// batches until it dies there.
func (p *pipeline) dieWhileInserting(point string, hit int) {
	p.t.Helper()
	w := p.w
	w.Stop()
	w.SetEnv(armed(point, hit))
	before := kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point))
	w.Spawn()
	if err := w.WaitReady(); err != nil {
		// It died while starting: at the point, or the test fails.
		waitFault(p.t, w, point, before)
		p.t.Logf("weir died at %s (hit %d) as it started", point, hit)
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.insertUntilDown(p.next+50_000, 100)
	}()
	waitFault(p.t, w, point, before)
	<-done
	p.t.Logf("weir died at %s (hit %d) with %d ids sent", point, hit, p.next)
}
