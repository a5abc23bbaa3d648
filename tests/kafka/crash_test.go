package kafka

import (
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The input of a crash test, in record counts: part one is processed by a
// clean run before the fault is armed, part two waits in the topic when
// the armed server starts (so that its first epochs carry data into the
// sinks), part three is produced in batches while it runs and dies, and
// the rest after the clean restart.
const (
	crashPart1  = 1000
	crashPart2  = 2000
	crashPart3  = 4000
	crashTotal  = 5000
	crashRetry  = 400 // records produced for another try of a crash
	crashBatch  = 100
	crashPause  = 100 * time.Millisecond
	faultWait   = 2 * time.Minute
	crashPoints = 8
)

// coupled is the option that keeps a sink coupled: the points of the
// coupled protocol (DESIGN.md §5) are swept with it.
const coupled = "sink.decouple = 'false'"

// decoupledPoints are the points swept with decoupled sinks (DESIGN.md
// §5a), one pipeline with both sinks each: the log store append, the
// record, the Kafka commit (sink.during_commit: before the truncation)
// and the truncation.
var decoupledPoints = []string{fault.SinkLogAppend, fault.SinkLogAfterRecord, fault.SinkDuringCommit, fault.SinkLogAfterTruncate}

// faultHits is the hit of each point at which the armed server dies,
// chosen to land while part three is being produced: sink points are hit
// by every sink actor at every barrier, the checkpoint point once per
// checkpoint, sink.during_commit once per committed non-empty transaction.
var faultHits = map[string]int{
	fault.SinkBeforePrecommit:   10,
	fault.SinkAfterPrecommit:    10,
	fault.CheckpointAfterCommit: 7,
	fault.SinkDuringCommit:      5,
	fault.SinkLogAppend:         10,
	fault.SinkLogAfterRecord:    5,
	fault.SinkLogAfterTruncate:  5,
}

// TestCrashMatrix kills weir (SIGKILL, from inside, at a fault point of
// the exactly-once protocol) for every point of coupled sinks, for a
// PLAIN sink over the source and an UPSERT sink over the aggregate view,
// and for every point of decoupled sinks with both sinks; restarts it
// without the fault on the same data directory, produces the rest of the
// input, and checks that the view equals the aggregate of exactly the
// input and that read_committed consumers of the sinks' topics see every
// record exactly once (PLAIN) and the view's rows as the latest values
// (UPSERT). recovery.before_sink_commit crashes a recovery: the first
// crash is at checkpoint.after_commit, which leaves transactions to
// commit, and the restart armed with it dies before committing them.
func TestCrashMatrix(t *testing.T) {
	kafkatest.Kcat(t)
	if len(fault.Points) != crashPoints {
		t.Fatalf("fault.Points has %d points, the matrix covers %d: add the new ones", len(fault.Points), crashPoints)
	}
	for _, point := range fault.Points[:5] {
		for _, kind := range []string{"plain", "upsert"} {
			t.Run(point+"/"+kind, func(t *testing.T) {
				t.Parallel()
				p := newPipeline(t, kind == "plain", kind == "upsert", coupled)
				crashRun(t, p, point)
				p.check(crashTotal)
			})
		}
	}
	for _, point := range decoupledPoints {
		t.Run(point+"/decoupled", func(t *testing.T) {
			t.Parallel()
			p := newPipeline(t, true, true)
			crashRun(t, p, point)
			p.check(crashTotal)
		})
	}
}

// crashRun processes part one cleanly, restarts weir armed with point and
// waits for it to die there while parts two and three arrive, then
// restarts it disarmed.
func crashRun(t *testing.T, p *pipeline, point string) {
	t.Helper()
	p.produce(crashPart1)
	p.waitMV(crashPart1)
	p.w.Stop()
	p.produce(crashPart2)

	first := point
	if point == fault.RecoveryBeforeSinkCommit {
		first = fault.CheckpointAfterCommit
	}
	errc := p.produceAsync(crashPart3, crashBatch, crashPause)
	dieAt(t, p.w, first, faultHits[first])
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	logCommitted(t, p, "after the crash at "+first)

	if point == fault.RecoveryBeforeSinkCommit {
		crashRecovery(t, p)
	}
	p.w.SetEnv()
	p.w.Restart()
	p.produce(crashTotal)
}

// dieAt starts weir armed with point:n and waits for it to die there.
func dieAt(t *testing.T, w *kafkatest.Weir, point string, n int) {
	t.Helper()
	w.SetEnv(fmt.Sprintf("%s=%s:%d", fault.EnvVar, point, n))
	before := kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point))
	w.Spawn()
	kafkatest.WaitFault(t, w, point, before, faultWait)
	t.Logf("weir died at %s (hit %d)", point, n)
}

// crashRecovery restarts weir armed with recovery.before_sink_commit
// after a crash at checkpoint.after_commit and waits for it to die there.
// The point is hit only when the last checkpoint recorded sink
// transactions; a crash at a checkpoint whose epoch wrote nothing to the
// sink leaves none, and the recovery then runs through. In that case
// (told by the server still running after a while) the server is killed
// and crashed at checkpoint.after_commit once more, up to three times.
func crashRecovery(t *testing.T, p *pipeline) {
	t.Helper()
	w := p.w
	point := fault.RecoveryBeforeSinkCommit
	for attempt := 1; ; attempt++ {
		w.SetEnv(fault.EnvVar + "=" + point)
		before := kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point))
		size := kafkatest.LogSize(w.LogPath)
		w.Spawn()
		exit, err := w.WaitExit(20 * time.Second)
		if err == nil {
			if !exit.Killed() || kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point)) <= before {
				t.Fatalf("recovery ended (%v) without reaching %s\nlog:\n%s", exit, point, w.Tail(3000))
			}
			t.Logf("the recovery died at %s (attempt %d)", point, attempt)
			logCommitted(t, p, "after the crash during recovery")
			return
		}
		if attempt == 3 {
			t.Fatalf("the recovery never reached %s in %d attempts: no crash at %s left sink transactions to commit\nlog:\n%s",
				point, attempt, fault.CheckpointAfterCommit, w.Tail(3000))
		}
		t.Logf("attempt %d: the recovery had no sink transaction to commit; crashing at %s again; log:\n%s", attempt, fault.CheckpointAfterCommit, kafkatest.LogSince(w.LogPath, size))
		w.Kill()
		// Fresh records, so that the next epochs write to the sink.
		errc := p.produceAsync(p.next+crashRetry, crashBatch, crashPause)
		dieAt(t, w, fault.CheckpointAfterCommit, faultHits[fault.CheckpointAfterCommit])
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

// logCommitted logs how many records the sinks' topics hold at
// read_committed, to show where in the stream a crash landed.
func logCommitted(t *testing.T, p *pipeline, when string) {
	t.Helper()
	if p.sinkAddr == p.w.KafkaAddr && p.w.Embedded {
		// The sinks' broker died with weir.
		return
	}
	if p.plain {
		t.Logf("%s: %s holds %d committed records", when, plainTopic, len(kafkatest.Consume(t, p.sinkAddr, plainTopic)))
	}
	if p.upsert {
		t.Logf("%s: %s holds %d committed records", when, upsertTopic, len(kafkatest.Consume(t, p.sinkAddr, upsertTopic)))
	}
}

// TestCrashAgainAfterRecoveryCommitted crashes twice in a row: first at
// checkpoint.after_commit, which leaves the epoch's sink transactions for
// recovery to commit; then the recovering server, once it has committed
// them and started its producers, dies at its first pre-commit. The third
// start recovers again, and the view and both sinks end up exact. (A
// crash that lands after the recovery started the producers and before
// the first checkpoint after it committed is the case of
// TestRecoveryRepeatsAfterProducersStarted; fault points cannot aim at
// that window, the kill loop finds it.)
func TestCrashAgainAfterRecoveryCommitted(t *testing.T) {
	kafkatest.Kcat(t)
	p := newPipeline(t, true, true, coupled)
	p.produce(crashPart1)
	p.waitMV(crashPart1)
	p.w.Stop()
	p.produce(crashPart2)
	errc := p.produceAsync(crashPart3, crashBatch, crashPause)
	dieAt(t, p.w, fault.CheckpointAfterCommit, faultHits[fault.CheckpointAfterCommit])
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	dieAt(t, p.w, fault.SinkBeforePrecommit, 1)
	p.w.SetEnv()
	p.w.Restart()
	p.produce(crashTotal)
	p.check(crashTotal)
}

// TestCrashEmbeddedSinkBroker kills `weir serve --embedded-kafka` whose
// embedded broker holds the sinks' topics, between the commit of an
// epoch to Pebble and its Kafka commit, so the broker dies with the
// transaction open or its commit half done: for decoupled sinks after
// the transaction is recorded (sink_log.after_record) and while it
// commits (sink.during_commit), for coupled sinks right after the
// checkpoint commit (checkpoint.after_commit). The restarted broker keeps
// the open transactions, as Kafka does, and recovery commits them or
// settles a refused commit from the topic's log (a repeated commit that
// had landed is refused): no epoch is lost and none delivered twice. The
// input lives on a broker of its own. The view equals the aggregate of
// the input, and both sinks' topics at read_committed hold every record
// exactly once.
func TestCrashEmbeddedSinkBroker(t *testing.T) {
	kafkatest.Kcat(t)
	cases := []struct {
		point    string
		sinkWith []string
	}{
		{fault.SinkLogAfterRecord, nil},
		{fault.SinkDuringCommit, nil},
		{fault.CheckpointAfterCommit, []string{coupled}},
	}
	for _, c := range cases {
		t.Run(c.point, func(t *testing.T) {
			t.Parallel()
			p := newPipelineEmbeddedSinks(t, true, true, c.sinkWith...)
			crashRun(t, p, c.point)
			p.check(crashTotal)
		})
	}
}
