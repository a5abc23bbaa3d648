package kafka

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// Flags of BenchmarkSinkOutage.
var (
	outageSeconds = flag.Int("outage.seconds", 60, "length of the baseline phase and of the sink's broker outage, in seconds")
	outageRate    = flag.Int("outage.rate", 2000, "records per second produced into the healthy pipeline's source")
	outageDMLGap  = flag.Duration("outage.dml-gap", 50*time.Millisecond, "pause between the single-row INSERTs whose latency is measured")
	outageRetry   = flag.Int("outage.retry-max-ms", 0, "ALTER SYSTEM SET sink_retry_max_delay_ms to this before creating the sinks (0: the default)")
)

// BenchmarkSinkOutage measures what one sink's broker outage costs the
// rest of the database (DESIGN.md §5a). weir runs two pipelines: a table
// rows_in whose decoupled sink writes to a broker of its own (a `weir
// kafka` process), and a healthy Kafka source on weir's embedded broker
// feeding a materialized view and a sink of its own, at -outage.rate
// records per second. Single-row INSERTs into rows_in run throughout,
// one every -outage.dml-gap. The run has two phases of -outage.seconds
// each: a baseline with both brokers up, then the same with the sink's
// broker SIGKILLed. For each phase it reports the INSERTs' latency (p50,
// p99, max), the healthy view's lag (the age of the newest record it
// shows, sampled every 250 ms: p50 and max), weir's CPU (utime+stime of
// the `weir serve` process per second of wall time) and the lines its log
// gained per second. Then the broker is restarted and the time until the
// sink's topic, read at read_committed, holds every row of rows_in
// exactly once is the catch-up time: at most about the sink's longest
// wait between delivery attempts (sink_retry_max_delay_ms, set with
// -outage.retry-max-ms) after an outage long enough to reach it. The cost of decoupling per record,
// against sink.decouple = 'false', is BenchmarkKafkaSinkGuarantee's
// exactly-once-coupled row.
//
//	go test ./tests/kafka -run '^$' -bench SinkOutage -benchtime 1x -timeout 30m
//
// It takes a little over twice -outage.seconds.
func BenchmarkSinkOutage(b *testing.B) {
	secs, rate := *outageSeconds, *outageRate
	if secs <= 0 || rate <= 0 || *outageDMLGap <= 0 {
		b.Fatal("-outage.seconds, -outage.rate and -outage.dml-gap must be positive")
	}
	kafkatest.Kcat(b)
	sinkBroker := kafkatest.StartBroker(b, "")
	w := kafkatest.StartWeir(b, kafkatest.Options{})
	healthy := w.KafkaAddr
	kafkatest.CreateTopic(b, sinkBroker.Addr, "rows_out", 1)
	kafkatest.CreateTopic(b, healthy, "outage_src", 4)
	kafkatest.CreateTopic(b, healthy, "outage_plain", 4)
	conn := w.ConnString()
	if *outageRetry > 0 {
		kafkatest.Exec(b, conn, fmt.Sprintf("ALTER SYSTEM SET sink_retry_max_delay_ms = %d", *outageRetry))
	}
	kafkatest.Exec(b, conn,
		"CREATE TABLE rows_in (id int) APPEND ONLY",
		fmt.Sprintf(`CREATE SINK rows_out FROM rows_in WITH (connector = 'kafka', topic = 'rows_out',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000') FORMAT PLAIN ENCODE JSON`, sinkBroker.Addr),
		fmt.Sprintf(`CREATE SOURCE outage_src (k int, v bigint, ts bigint) WITH (connector = 'kafka', topic = 'outage_src',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, healthy),
		"CREATE MATERIALIZED VIEW outage_agg AS SELECT k, count(*) AS n, sum(v) AS s, max(ts) AS ts FROM outage_src GROUP BY k",
		fmt.Sprintf(`CREATE SINK outage_plain AS SELECT k, v FROM outage_src WITH (connector = 'kafka',
			topic = 'outage_plain', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, healthy),
	)
	pid := w.Pid()
	if pid == 0 {
		b.Fatal("weir is not running")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var produceErr atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := produceAtRate(ctx, healthy, "outage_src", rate); err != nil && ctx.Err() == nil {
			produceErr.Store(err)
		}
	}()
	defer wg.Wait()
	defer cancel()

	dml, err := pgx.Connect(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	defer dml.Close(context.Background())
	probe, err := pgx.Connect(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	defer probe.Close(context.Background())

	nextID := 0
	b.ResetTimer()
	base := runOutagePhase(b, dml, probe, pid, w.LogPath, &nextID, time.Duration(secs)*time.Second)
	sinkBroker.Kill()
	down := runOutagePhase(b, dml, probe, pid, w.LogPath, &nextID, time.Duration(secs)*time.Second)
	sinkBroker.Restart()
	back := time.Now()
	want := idRecords(0, nextID)
	kafkatest.Eventually(b, 5*time.Minute, fmt.Sprintf("rows_out holding %d records exactly once", len(want)), func() (bool, string) {
		recs := kafkatest.ConsumeIsolation(b, sinkBroker.Addr, "rows_out", "read_committed")
		if d := kafkatest.Duplicates(recs); len(d) > 0 {
			b.Fatalf("rows_out: %d records, duplicated: %v", len(recs), d)
		}
		got := kafkatest.Values(recs)
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprintf("%d records", len(got))
	})
	catchUp := time.Since(back)
	b.StopTimer()
	if err, _ := produceErr.Load().(error); err != nil {
		b.Fatalf("producing into outage_src: %v", err)
	}

	b.Logf("sink broker outage of %d s, healthy source at %d records/s, one INSERT every %s, sink_retry_max_delay_ms %d (0: default):",
		secs, rate, *outageDMLGap, *outageRetry)
	b.Logf("%-9s %8s %8s %8s %8s %9s %9s %10s %10s", "phase", "INSERTs", "p50", "p99", "max", "lag p50", "lag max", "CPU/s", "log lines/s")
	for _, p := range []struct {
		name string
		r    outagePhase
	}{{"baseline", base}, {"outage", down}} {
		r := p.r
		b.Logf("%-9s %8d %8s %8s %8s %9s %9s %10.2f %10.1f", p.name, len(r.dml),
			percentile(r.dml, 0.5).Round(100*time.Microsecond), percentile(r.dml, 0.99).Round(100*time.Microsecond),
			percentile(r.dml, 1).Round(100*time.Microsecond),
			percentile(r.lag, 0.5).Round(time.Millisecond), percentile(r.lag, 1).Round(time.Millisecond),
			r.cpu.Seconds()/r.wall.Seconds(), float64(r.logLines)/r.wall.Seconds())
	}
	b.Logf("rows_out caught up %s after its broker returned (%d rows in all)", catchUp.Round(time.Millisecond), nextID)
	b.ReportMetric(float64(percentile(down.dml, 0.99).Microseconds())/1000, "outage-dml-p99-ms")
	b.ReportMetric(float64(percentile(base.dml, 0.99).Microseconds())/1000, "baseline-dml-p99-ms")
	b.ReportMetric(catchUp.Seconds(), "catch-up-s")
}

// outagePhase is what one phase of BenchmarkSinkOutage measured.
type outagePhase struct {
	dml, lag []time.Duration // sorted
	cpu      time.Duration
	wall     time.Duration
	logLines int
}

// runOutagePhase inserts single rows into rows_in for d, one every
// -outage.dml-gap, timing each, while probe samples the healthy view's
// lag every 250 ms; it returns the sorted latencies and lags and weir's
// CPU time and log lines over the phase.
func runOutagePhase(b *testing.B, dml, probe *pgx.Conn, pid int, logPath string, nextID *int, d time.Duration) outagePhase {
	b.Helper()
	ctx := context.Background()
	var r outagePhase
	cpu0, lines0, start := mustCPU(b, pid), kafkatest.CountInLog(logPath, "\n"), time.Now()
	lagDone := make(chan struct{})
	lagStop := make(chan struct{})
	go func() {
		defer close(lagDone)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-lagStop:
				return
			case <-tick.C:
			}
			var newest *int64
			if err := probe.QueryRow(ctx, "SELECT max(ts) FROM outage_agg").Scan(&newest); err != nil || newest == nil {
				continue
			}
			r.lag = append(r.lag, time.Since(time.UnixMilli(*newest)))
		}
	}()
	for time.Since(start) < d {
		t0 := time.Now()
		if _, err := dml.Exec(ctx, "INSERT INTO rows_in VALUES ("+strconv.Itoa(*nextID)+")"); err != nil {
			close(lagStop)
			<-lagDone
			b.Fatalf("INSERT %d: %v", *nextID, err)
		}
		r.dml = append(r.dml, time.Since(t0))
		*nextID++
		time.Sleep(*outageDMLGap)
	}
	close(lagStop)
	<-lagDone
	r.wall = time.Since(start)
	r.cpu = mustCPU(b, pid) - cpu0
	r.logLines = kafkatest.CountInLog(logPath, "\n") - lines0
	slices.Sort(r.dml)
	slices.Sort(r.lag)
	return r
}

// produceAtRate produces JSON records {"k":…,"v":…,"ts":<produce time in
// ms>} into topic at rate records per second until ctx ends.
func produceAtRate(ctx context.Context, addr, topic string, rate int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic))
	if err != nil {
		return err
	}
	defer cl.Close()
	const tick = 10 * time.Millisecond
	perTick := max(rate/int(time.Second/tick), 1)
	t := time.NewTicker(tick)
	defer t.Stop()
	var errMu sync.Mutex
	var firstErr error
	i := 0
	for {
		select {
		case <-ctx.Done():
			_ = cl.Flush(context.Background())
			return firstErr
		case <-t.C:
		}
		now := time.Now().UnixMilli()
		for range perTick {
			v := fmt.Appendf(nil, `{"k":%d,"v":%d,"ts":%d}`, i%100, i, now)
			cl.Produce(ctx, &kgo.Record{Value: v}, func(_ *kgo.Record, err error) {
				if err != nil && ctx.Err() == nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
				}
			})
			i++
		}
		errMu.Lock()
		err := firstErr
		errMu.Unlock()
		if err != nil {
			return err
		}
	}
}
