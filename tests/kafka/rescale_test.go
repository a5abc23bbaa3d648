package kafka

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// jobParallelism returns each job's parallelism, by name, as weir.jobs
// shows it.
func jobParallelism(t *testing.T, w *kafkatest.Weir) string {
	t.Helper()
	var parts []string
	for _, r := range kafkatest.Query(t, w.ConnString(), "SELECT name, parallelism FROM weir.jobs ORDER BY name") {
		parts = append(parts, r[0]+"="+r[1])
	}
	return strings.Join(parts, " ")
}

// TestBackupRestoreRescaled is the proof of a savepoint restored at
// another parallelism. The view and both decoupled exactly-once sinks run
// with three actors while input streams in; the sinks write to a broker
// of their own, stopped meanwhile, so that their log stores hold a
// backlog in every actor. BACKUP TO ... WITH (hand_over_sinks = true)
// copies the database at one committed epoch. More input arrives while
// no weir runs; the copy starts with --streaming-parallelism 1 and reads
// it, and then the sinks' broker comes back: the one actor left delivers
// the log stores of the two it no longer has, under their own
// transactional ids, before anything newer. The copy's view equals the aggregate of all the input
// (the original's view at the backup's epoch plus the later input: a
// record lost or counted twice across the backup would show), and the
// sinks' topics, read at read_committed, hold every input record exactly
// once (PLAIN) and every key's counts strictly increasing up to the
// view's (UPSERT). A restart with --streaming-parallelism 2 scales it up
// the same way.
func TestBackupRestoreRescaled(t *testing.T) {
	p := newPipeline(t, false, false)
	sb := kafkatest.StartBroker(t, "")
	kafkatest.KeepLogs(t, sb.LogPath)
	kafkatest.CreateTopic(t, sb.Addr, plainTopic, 3)
	kafkatest.CreateTopic(t, sb.Addr, upsertTopic, 3)
	kafkatest.Exec(t, p.w.ConnString(),
		"ALTER SYSTEM SET sink_retry_max_delay_ms = 500",
		"ALTER MATERIALIZED VIEW agg SET PARALLELISM = 3",
		fmt.Sprintf(`CREATE SINK out_plain AS SELECT k, v FROM src WITH (connector = 'kafka',
			topic = '%s', properties.bootstrap.server = '%s', streaming_parallelism = 3) FORMAT PLAIN ENCODE JSON`, plainTopic, sb.Addr),
		fmt.Sprintf(`CREATE SINK out_upsert FROM agg WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', primary_key = 'k', streaming_parallelism = 3) FORMAT UPSERT ENCODE JSON`, upsertTopic, sb.Addr))
	if got, want := jobParallelism(t, p.w), "agg=3 out_plain=3 out_upsert=3"; got != want {
		t.Fatalf("the original's jobs: %s, want %s", got, want)
	}
	p.produce(500)
	p.waitMV(500)
	checkPlain(t, sb.Addr, plainTopic, 500)

	// The sinks' broker goes away: their epochs stay in the log stores.
	sb.Stop()
	const streamed = 2500
	errc := p.produceAsync(streamed, 100, 20*time.Millisecond)
	kafkatest.Eventually(t, time.Minute, "agg counting more than 1000 records", func() (bool, string) {
		n, ok := p.mvCount()
		return ok && n > 1000, fmt.Sprintf("sum(n) = %d", n)
	})
	if r := kafkatest.Query(t, p.w.ConnString(), "SELECT sum(lag_rows) FROM weir.sinks"); len(r) != 1 || r[0][0] == "0" {
		t.Fatalf("the sinks hold no backlog while their broker is down: %q", r)
	}
	backupDir := filepath.Join(t.TempDir(), "copy")
	rows := kafkatest.Query(t, p.w.ConnString(), fmt.Sprintf("BACKUP TO '%s' WITH (hand_over_sinks = true)", backupDir))
	if len(rows) != 1 || rows[0][1] != backupDir {
		t.Fatalf("BACKUP returned %q", rows)
	}
	if epoch, err := strconv.ParseUint(rows[0][0], 10, 64); err != nil || epoch == 0 {
		t.Fatalf("BACKUP's epoch %q", rows[0][0])
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	p.waitMV(streamed)
	p.w.Stop()

	const total = 3000
	p.produce(total)
	c := kafkatest.StartWeir(t, kafkatest.Options{Broker: p.b, DataDir: backupDir,
		Args: []string{"--take-over-sinks", "--streaming-parallelism", "1"}})
	kafkatest.KeepLogs(t, c.LogPath)
	p.w = c
	if got, want := jobParallelism(t, c), "agg=1 out_plain=1 out_upsert=1"; got != want {
		t.Fatalf("the copy's jobs: %s, want %s", got, want)
	}
	// The sinks' broker returns once the copy runs at its parallelism:
	// the old actors' backlog and the later input's epochs all wait for
	// it in the log stores.
	p.waitMV(total)
	sb.Restart()
	p.check(total)
	checkPlain(t, sb.Addr, plainTopic, total)
	checkUpsert(t, sb.Addr, upsertTopic, expectedAgg(total))

	c.SetArgs("--streaming-parallelism", "2")
	c.Restart()
	if got, want := jobParallelism(t, c), "agg=2 out_plain=2 out_upsert=2"; got != want {
		t.Fatalf("the copy's jobs after a restart: %s, want %s", got, want)
	}
	p.produce(total + 500)
	p.check(total + 500)
	checkPlain(t, sb.Addr, plainTopic, total+500)
	checkUpsert(t, sb.Addr, upsertTopic, expectedAgg(total+500))
}

// TestRescaleUnderLoad changes the parallelism of a running view and of
// both running decoupled exactly-once sinks, up and down, while input
// streams in: the view stays equal to the aggregate of the input, and
// the sinks' topics at read_committed hold every record exactly once
// (PLAIN) and strictly increasing counts per key (UPSERT).
func TestRescaleUnderLoad(t *testing.T) {
	p := newPipeline(t, true, true)
	p.produce(300)
	p.waitMV(300)

	const total = 4000
	errc := p.produceAsync(total, 50, 20*time.Millisecond)
	for _, step := range []struct{ kind, name, n string }{
		{"SINK", "out_plain", "3"},
		{"SINK", "out_upsert", "3"},
		{"MATERIALIZED VIEW", "agg", "3"},
		{"SINK", "out_plain", "1"},
		{"SINK", "out_upsert", "1"},
		{"MATERIALIZED VIEW", "agg", "1"},
		{"SINK", "out_plain", "2"},
	} {
		// Some input between the steps, so that every change meets
		// epochs still in the sinks' log stores.
		n0, _ := p.mvCount()
		kafkatest.Eventually(t, time.Minute, "agg counting more input", func() (bool, string) {
			n, ok := p.mvCount()
			return ok && (n > n0+100 || n >= total), fmt.Sprintf("sum(n) = %d", n)
		})
		kafkatest.Exec(t, p.w.ConnString(), fmt.Sprintf("ALTER %s %s SET PARALLELISM = %s", step.kind, step.name, step.n))
		if got := jobParallelism(t, p.w); !strings.Contains(got, step.name+"="+step.n) {
			t.Fatalf("after ALTER %s %s SET PARALLELISM = %s: %s", step.kind, step.name, step.n, got)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	p.check(total)
}
