package kafka

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// The tests of decoupled sinks (DESIGN.md §5a): a sink whose broker is
// down holds nothing else up, and catches up exactly once from its log
// store when the broker returns.

// sinkRetryLine is what weir logs once per failed delivery attempt.
const sinkRetryLine = "sink delivery failed; retrying"

// tableSinkRows returns rows_out's committed records, sorted.
func tableSinkRows(t *testing.T, addr, topic string) []string {
	t.Helper()
	vals := kafkatest.Values(kafkatest.ConsumeIsolation(t, addr, topic, "read_committed"))
	slices.Sort(vals)
	return vals
}

// idRecords returns the PLAIN JSON records of ids [from, to).
func idRecords(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf(`{"id":%d}`, i))
	}
	slices.Sort(out)
	return out
}

// insertIDs is an INSERT of ids [from, to) into rows_in.
func insertIDs(from, to int) string {
	var vals []string
	for i := from; i < to; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	return "INSERT INTO rows_in VALUES " + strings.Join(vals, ", ")
}

// waitExactly waits until topic, read at read_committed, holds want (sorted)
// and fails at once on a duplicate.
func waitExactly(t *testing.T, addr, topic string, want []string) {
	t.Helper()
	kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("%s holding %d records exactly once", topic, len(want)), func() (bool, string) {
		recs := kafkatest.ConsumeIsolation(t, addr, topic, "read_committed")
		if d := kafkatest.Duplicates(recs); len(d) > 0 {
			t.Fatalf("%s: %d records, duplicated: %v", topic, len(recs), d)
		}
		got := kafkatest.Values(recs)
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprintf("%d records", len(got))
	})
}

// sinkLag returns rows_out's lag_rows and paused in weir.sinks.
func sinkLag(t *testing.T, conn, sink string) (rows int64, paused string) {
	t.Helper()
	r := kafkatest.Query(t, conn, "SELECT lag_rows, paused FROM weir.sinks WHERE name = '"+sink+"'")
	if len(r) != 1 {
		t.Fatalf("weir.sinks has %d rows for %s", len(r), sink)
	}
	n, err := strconv.ParseInt(r[0][0], 10, 64)
	if err != nil {
		t.Fatalf("lag_rows %q", r[0][0])
	}
	return n, r[0][1]
}

// TestDecoupledSinkBrokerDown kills the broker of one sink (its own
// process) while a second pipeline streams through a healthy broker and
// DML runs: every INSERT commits, the healthy view and sink keep up, the
// dead broker's sink shows its lag in weir.sinks and retries with a
// backoff; when the broker returns it catches up from its log store, and
// both topics hold every record exactly once at read_committed.
func TestDecoupledSinkBrokerDown(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	healthy := w.KafkaAddr
	kafkatest.CreateTopic(t, b.Addr, "rows_out", 1)
	kafkatest.CreateTopic(t, healthy, inTopic, 1)
	kafkatest.CreateTopic(t, healthy, plainTopic, 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"CREATE TABLE rows_in (id int) APPEND ONLY",
		fmt.Sprintf(`CREATE SINK rows_out FROM rows_in WITH (connector = 'kafka', topic = 'rows_out',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000') FORMAT PLAIN ENCODE JSON`, b.Addr),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, healthy),
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k",
		fmt.Sprintf(`CREATE SINK out_plain AS SELECT k, v FROM src WITH (connector = 'kafka',
			topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, plainTopic, healthy),
		insertIDs(0, 100),
	)
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 100))

	b.Kill()
	retriesBefore := kafkatest.CountInLog(w.LogPath, sinkRetryLine)
	outage := time.Now()
	// DML into the dead broker's sink's table commits, one row at a time.
	var lat []time.Duration
	for i := 100; i < 150; i++ {
		start := time.Now()
		if _, err := kafkatest.QueryErr(conn, fmt.Sprintf("INSERT INTO rows_in VALUES (%d)", i)); err != nil {
			t.Fatalf("INSERT %d with the sink's broker down: %v", i, err)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("50 INSERTs with the sink's broker down: p50 %s, max %s", lat[len(lat)/2], lat[len(lat)-1])
	// The healthy pipeline streams meanwhile.
	p := &pipeline{t: t, b: &kafkatest.Broker{Addr: healthy}, sinkAddr: healthy, w: w}
	p.produce(2000)
	p.waitMV(2000)
	checkPlain(t, healthy, plainTopic, 2000)
	// The sink holds its rows in its log store, and says so.
	kafkatest.Eventually(t, time.Minute, "weir.sinks showing rows_out's 50 rows behind", func() (bool, string) {
		n, paused := sinkLag(t, conn, "rows_out")
		return n == 50, fmt.Sprintf("lag_rows %d paused %s", n, paused)
	})
	if n, _ := sinkLag(t, conn, "out_plain"); n != 0 {
		// Not a timing assertion: out_plain delivered every record
		// (checkPlain), so nothing is left in its log store once its
		// last truncation ran; wait for it.
		kafkatest.Eventually(t, time.Minute, "out_plain's log store empty", func() (bool, string) {
			n, _ := sinkLag(t, conn, "out_plain")
			return n == 0, fmt.Sprint(n)
		})
	}
	// The sink retries its delivery with a backoff, one line per retry.
	kafkatest.Eventually(t, 2*time.Minute, "a delivery retry logged", func() (bool, string) {
		n := kafkatest.CountInLog(w.LogPath, sinkRetryLine) - retriesBefore
		return n > 0, fmt.Sprint(n)
	})
	down := time.Since(outage)
	retries := kafkatest.CountInLog(w.LogPath, sinkRetryLine) - retriesBefore
	t.Logf("outage of %s: %d delivery retries logged", down.Round(time.Millisecond), retries)

	b.Restart()
	back := time.Now()
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 150))
	t.Logf("rows_out caught up %s after its broker returned", time.Since(back).Round(time.Millisecond))
	kafkatest.Eventually(t, time.Minute, "rows_out's log store empty", func() (bool, string) {
		n, _ := sinkLag(t, conn, "rows_out")
		return n == 0, fmt.Sprint(n)
	})
	checkPlain(t, healthy, plainTopic, 2000)
}

// TestDecoupledSinkStartsWithBrokerDown restarts weir while a sink's
// broker is down: tables and views work and stream, and the sink catches
// up exactly once when its broker returns.
func TestDecoupledSinkStartsWithBrokerDown(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	kafkatest.CreateTopic(t, b.Addr, "rows_out", 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"CREATE TABLE rows_in (id int) APPEND ONLY",
		"CREATE MATERIALIZED VIEW cnt AS SELECT count(*) AS n FROM rows_in",
		fmt.Sprintf(`CREATE SINK rows_out FROM rows_in WITH (connector = 'kafka', topic = 'rows_out',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000') FORMAT PLAIN ENCODE JSON`, b.Addr),
		insertIDs(0, 50),
	)
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 50))
	w.Stop()
	b.Kill()
	w.Restart()
	conn = w.ConnString()
	for i := 50; i < 100; i += 10 {
		if _, err := kafkatest.QueryErr(conn, insertIDs(i, i+10)); err != nil {
			t.Fatalf("INSERT after a start with the sink's broker down: %v", err)
		}
	}
	if got := kafkatest.Query(t, conn, "SELECT n FROM cnt"); len(got) != 1 || got[0][0] != "100" {
		t.Fatalf("cnt after the inserts: %v, want 100", got)
	}
	b.Restart()
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 100))
}

// redeliverLine is logged when a sink delivers an aborted epoch again.
const redeliverLine = "the broker aborted a recorded sink transaction"

// TestDecoupledSinkRedeliversTimedOutTransaction SIGKILLs weir after a
// sink stored the record of a flushed transaction and before it committed
// it, and waits until the broker (its own process) aborts that
// transaction on its own, as a transaction timeout (here 3 s) does during
// a long outage. The restarted sink finds the record aborted and delivers
// the epoch again from its log store: the topic holds every row exactly
// once (Flink's sink loses such a transaction).
func TestDecoupledSinkRedeliversTimedOutTransaction(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	kafkatest.CreateTopic(t, b.Addr, "rows_out", 1)
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"CREATE TABLE rows_in (id int) APPEND ONLY",
		fmt.Sprintf(`CREATE SINK rows_out FROM rows_in WITH (connector = 'kafka', topic = 'rows_out',
			properties.bootstrap.server = '%s', properties.transaction.timeout.ms = '3000') FORMAT PLAIN ENCODE JSON`, b.Addr),
		insertIDs(0, 20),
	)
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 20))
	w.Stop()
	w.SetEnv(fmt.Sprintf("%s=%s:1", fault.EnvVar, fault.SinkLogAfterRecord))
	before := kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(fault.SinkLogAfterRecord))
	w.Restart()
	kafkatest.QueryErr(w.ConnString(), insertIDs(20, 30))
	kafkatest.WaitFault(t, w, fault.SinkLogAfterRecord, before, time.Minute)

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	kafkatest.Eventually(t, time.Minute, "the broker aborting the open transaction", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		txns, err := adm.ListTransactions(ctx, nil, nil)
		if err != nil {
			return false, err.Error()
		}
		var states []string
		open := false
		for _, tx := range txns.Sorted() {
			states = append(states, tx.TxnID+"="+tx.State)
			open = open || tx.State == "Ongoing" || tx.State == "PrepareCommit"
		}
		return len(states) > 0 && !open, strings.Join(states, " ")
	})
	if got := tableSinkRows(t, b.Addr, "rows_out"); len(got) != 20 {
		t.Fatalf("rows_out holds %d committed records before the restart, want the first 20", len(got))
	}
	w.SetEnv()
	w.Restart()
	waitExactly(t, b.Addr, "rows_out", idRecords(0, 30))
	if n := kafkatest.CountInLog(w.LogPath, redeliverLine); n == 0 {
		t.Errorf("the log does not say that an aborted epoch was delivered again (%q)", redeliverLine)
	}
}

// TestDecoupledSinkFullLogStorePausesItsJob gives a sink over a source a
// log store of 1,000 bytes and kills its broker: the log store fills, the
// sink's job pauses its source (weir.sinks says paused) while a view over
// the same source reads every record; when the broker returns the sink
// drains its log store, its source reads on, and the topic holds every
// record exactly once.
func TestDecoupledSinkFullLogStorePausesItsJob(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	healthy := w.KafkaAddr
	kafkatest.CreateTopic(t, healthy, inTopic, 1)
	kafkatest.CreateTopic(t, b.Addr, plainTopic, 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, healthy),
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k",
		fmt.Sprintf(`CREATE SINK out_plain AS SELECT k, v FROM src WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000',
			sink.log_store.max_bytes = '1000') FORMAT PLAIN ENCODE JSON`, plainTopic, b.Addr),
	)
	b.Kill()
	p := &pipeline{t: t, b: &kafkatest.Broker{Addr: healthy}, sinkAddr: healthy, w: w}
	p.produce(2000)
	p.waitMV(2000)
	kafkatest.Eventually(t, time.Minute, "weir.sinks showing out_plain paused", func() (bool, string) {
		n, paused := sinkLag(t, conn, "out_plain")
		return paused == "t", fmt.Sprintf("lag_rows %d paused %s", n, paused)
	})
	// Paused, the sink's job reads no more, while the view reads on.
	p.produce(10000)
	p.waitMV(10000)
	n, _ := sinkLag(t, conn, "out_plain")
	t.Logf("paused with %d rows in the log store, of 10000 records", n)
	if n >= 10000 {
		t.Errorf("the paused sink holds all %d records in its log store: its source did not pause", n)
	}
	b.Restart()
	back := time.Now()
	checkPlain(t, b.Addr, plainTopic, 10000)
	t.Logf("out_plain delivered all 10000 records %s after its broker returned", time.Since(back).Round(time.Millisecond))
	kafkatest.Eventually(t, time.Minute, "out_plain no longer paused", func() (bool, string) {
		_, paused := sinkLag(t, conn, "out_plain")
		return paused == "f", paused
	})
}
