package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/wire"
)

// Flags of BenchmarkKafkaSinkGuarantee (after -args, or as -kafka.records
// and so on on the go test command line).
var (
	benchRecords    = flag.Int("kafka.records", 500_000, "records preloaded into each mode's input topic (drain phase)")
	benchRate       = flag.Int("kafka.rate", 20_000, "records per second produced in the steady-rate (latency) phase")
	benchSeconds    = flag.Int("kafka.seconds", 10, "length of the steady-rate phase in seconds")
	benchPartitions = flag.Int("kafka.partitions", 4, "partitions of the input and output topics")
	benchRounds     = flag.Int("kafka.rounds", 1, "rounds (both modes each) per benchmark iteration")
	benchBarrierMs  = flag.Int("kafka.barrier-ms", 1000, "barrier_interval_ms of the runs")
	benchInProcess  = flag.Bool("kafka.inprocess", false, "run weir's engine inside the benchmark process (for -cpuprofile)")
	benchBrokerSync = flag.Bool("kafka.broker-sync", true, "run the broker with --sync-writes (an fsync per produced batch); false syncs as Kafka does by default, not per write")
)

// BenchmarkKafkaSinkGuarantee measures the cost of exactly-once delivery
// end to end: a Kafka source → filter/project → Kafka sink job, once with
// sink.delivery.guarantee = 'exactly-once' (one Kafka transaction per
// checkpoint epoch, delivered from the sink's log store), once with
// 'at-least-once' (an idempotent producer flushed at each barrier, and
// streaming.barrier_alignment = 'false'), and once exactly-once with
// sink.decouple = 'false' (the transaction pre-committed at the barrier),
// with barrier_interval_ms = 1000 (-kafka.barrier-ms). It prints a table and reports, per
// mode:
//
//   - records per CPU-second: records drained divided by the utime+stime
//     (/proc/PID/stat) the weir server process spent draining them, and
//     the ratio exactly-once / at-least-once;
//   - event-to-visible latency at a steady rate: every record carries its
//     produce time in microseconds (ts), and a franz-go consumer of the
//     output topic at read_committed takes latency = time it received the
//     record − ts (p50, p99, max). It is split at the output record's
//     Kafka timestamp, which the sink's producer sets when weir hands it
//     the record: "in" is ts until then (the producer, the broker, the
//     source, the wait for the barrier, the checkpoint and, decoupled,
//     the delivery's start), "out" the rest (the sink's flush, its
//     transaction's commit and the reader's fetch).
//
// Each round, for each mode: a fresh weir server (`weir serve`, its own
// data directory) against one shared broker process (`weir kafka`, so
// that the broker's CPU is not weir's; its CPU is shown apart) and an
// input topic of the mode's own, preloaded with -kafka.records JSON
// records {"id":…,"ts":…,"k":…,"v":"…"} by a franz-go producer before the
// server starts. Then CREATE SOURCE, and the CPU clock starts just before
// CREATE SINK (WHERE k % 10 <> 0: nine records in ten pass) and stops
// when the consumer has seen every expected record, committed (drain
// phase). After 3 idle seconds (weir's CPU per second with nothing to
// read is shown: exactly-once's drain lasts up to a barrier interval
// longer, until its last transaction commits), the same server gets
// -kafka.rate records per second for -kafka.seconds seconds (steady
// phase). Fresh servers rather than two sinks in one server keep the
// modes from sharing a process: the second sink would otherwise run
// beside the first one's idle job, warm caches and the first mode's
// garbage. Rounds alternate which mode goes first; the table shows each
// round's ratio and their median, steadier than the overall ratio when
// the machine's load comes and goes.
//
// It needs nothing but Go (the broker is weir's own) and takes about a
// minute per round at the defaults. It runs only with -bench:
//
//	go test ./tests/kafka -run '^$' -bench KafkaSinkGuarantee
//	go test ./tests/kafka -run '^$' -bench KafkaSinkGuarantee -kafka.rounds 5 \
//	    -kafka.records 1000000 -kafka.rate 20000 -kafka.seconds 10
//
// (one benchmark iteration is longer than -benchtime's default second,
// so the iteration count stays 1; use -kafka.rounds, not -benchtime Nx,
// which would also run a first single-round iteration). To profile weir,
// -kafka.inprocess runs the engine and its Postgres server inside the
// benchmark process; its goroutines carry the pprof label mode=<mode>:
//
//	go test ./tests/kafka -run '^$' -bench KafkaSinkGuarantee -kafka.inprocess \
//	    -cpuprofile cpu.out -o kafka.test
//	go tool pprof -tagfocus mode=exactly-once -top kafka.test cpu.out
//
// A second table splits the steady phase's latency (in, out), shows the
// input producer's acknowledgement times (ack) beside the floor, and
// the benchmark process's Go scheduling latency and GC pauses. The
// broker fsyncs every produced batch (`weir kafka --sync-writes`, its
// default); -kafka.broker-sync=false runs it as Kafka runs by default,
// leaving the flush to the operating system:
//
//	go test ./tests/kafka -run '^$' -bench KafkaSinkGuarantee -benchtime 1x \
//	    -kafka.barrier-ms 100 -kafka.records 50000 -kafka.rate 5000 -kafka.seconds 5 \
//	    -kafka.broker-sync=false
//
// The machine's other load shows in the figures: the broker, the
// consumer and the producers share the cores with weir (the CPU figures
// count weir's process only, or the whole process with -kafka.inprocess;
// wall times and latencies feel the rest).
func BenchmarkKafkaSinkGuarantee(b *testing.B) {
	n, rate, secs, parts := *benchRecords, *benchRate, *benchSeconds, *benchPartitions
	if n <= 0 || rate <= 0 || secs <= 0 || parts <= 0 || *benchRounds <= 0 {
		b.Fatalf("-kafka.records, -kafka.rate, -kafka.seconds, -kafka.partitions and -kafka.rounds must be positive")
	}
	var brokerArgs []string
	if !*benchBrokerSync {
		brokerArgs = append(brokerArgs, "--sync-writes=false")
	}
	broker := kafkatest.StartBroker(b, "", brokerArgs...)
	modes := []benchMode{
		{name: "exactly-once", with: "sink.delivery.guarantee = 'exactly-once'"},
		{name: "at-least-once", with: "sink.delivery.guarantee = 'at-least-once', streaming.barrier_alignment = 'false'"},
		{name: "exactly-once-coupled", with: "sink.delivery.guarantee = 'exactly-once', sink.decouple = 'false'"},
	}
	var results []benchResult
	b.ResetTimer()
	rounds := b.N * *benchRounds
	for round := range rounds {
		// Each round starts with another mode.
		var order []int
		for i := range modes {
			order = append(order, (round+i)%len(modes))
		}
		for _, m := range order {
			b.StopTimer()
			tag := fmt.Sprintf("%s-%d", modes[m].name, round)
			in, out := "in-"+tag, "out-"+tag
			kafkatest.CreateTopic(b, broker.Addr, in, parts)
			kafkatest.CreateTopic(b, broker.Addr, out, parts)
			preload(b, broker.Addr, in, n)
			b.StartTimer()
			r := runMode(b, broker, modes[m], in, out, n, rate, secs)
			r.round = round
			results = append(results, r)
		}
	}
	b.StopTimer()
	printResults(b, n, rate, secs, parts, results)
}

// benchMode is one delivery guarantee: its name and the sink's WITH
// options that select it.
type benchMode struct {
	name string
	with string
}

// benchResult holds one mode's figures of one round.
type benchResult struct {
	mode  string
	round int
	// Drain phase.
	drained    int           // input records
	visible    int           // output records seen
	drainWall  time.Duration // CREATE SINK until the last record was visible
	drainCPU   time.Duration // weir's utime+stime meanwhile
	brokerCPU  time.Duration // the broker's
	idlePerSec time.Duration // weir's CPU per second with nothing to read
	steadyRecs int           // steady-phase input records
	steadyCPU  time.Duration // weir's CPU over the steady phase
	lat        []time.Duration
	// in and out split each latency at the output record's Kafka
	// timestamp (see BenchmarkKafkaSinkGuarantee).
	in, out []time.Duration
	missing int // steady-phase output records never seen
	// The steady phase's checkpoints: their durations and the gaps
	// between their starts.
	ckptDur, ckptGap []time.Duration
	// floor holds the steady records' latencies read straight from the
	// input topic by the same kind of consumer: what the producer, the
	// broker and the consumer cost without weir. ack holds the time from
	// handing each steady record to the producer until the broker
	// acknowledged it.
	floor, ack []time.Duration
	// The benchmark process's Go scheduling latencies (runnable until
	// running) and GC pauses over the steady phase, from runtime/metrics;
	// with -kafka.inprocess they are weir's too.
	sched, gcPause runtimeHist
}

// benchRecord renders input record i, with ts its produce time in
// microseconds: about 80 bytes of JSON.
func benchRecord(buf []byte, i int, ts int64) []byte {
	return fmt.Appendf(buf[:0], `{"id":%d,"ts":%d,"k":%d,"v":"payload-%016x"}`, i, ts, i%100, uint64(i)*0x9e3779b97f4a7c15)
}

// passes reports whether input record i passes the sink's filter.
func passes(i int) bool { return (i%100)%10 != 0 }

// preload writes records 0..n-1 to topic with a batching franz-go
// producer and waits until all are acknowledged.
func preload(b *testing.B, addr, topic string, n int) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.ProducerLinger(5*time.Millisecond), kgo.MaxBufferedRecords(200_000))
	if err != nil {
		b.Fatalf("kafka client: %v", err)
	}
	defer cl.Close()
	ctx := context.Background()
	var failed atomic.Pointer[error]
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.CompareAndSwap(nil, &err)
		}
	}
	ts := time.Now().UnixMicro()
	var buf []byte
	for i := range n {
		buf = benchRecord(buf, i, ts)
		cl.Produce(ctx, &kgo.Record{Value: slices.Clone(buf)}, promise)
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatalf("preloading %s: %v", topic, err)
	}
	if p := failed.Load(); p != nil {
		b.Fatalf("preloading %s: %v", topic, *p)
	}
}

// runMode runs one mode on a fresh weir server: the drain of the n
// preloaded records of topic in, then the steady phase.
func runMode(b *testing.B, broker *kafkatest.Broker, m benchMode, in, out string, n, rate, secs int) benchResult {
	b.Helper()
	res := benchResult{mode: m.name, drained: n}
	// In-process, every goroutine of the server inherits the label
	// mode=<name> (go tool pprof -tagfocus mode=exactly-once).
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("mode", m.name)))
	defer pprof.SetGoroutineLabels(context.Background())
	srv := startBenchServer(b, broker)
	defer srv.stop()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.connString)
	if err != nil {
		b.Fatalf("connecting to weir: %v", err)
	}
	defer conn.Close(ctx)
	exec := func(stmt string) {
		b.Helper()
		if _, err := conn.Exec(ctx, stmt); err != nil {
			b.Fatalf("%s: %v", stmt, err)
		}
	}
	exec(fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", *benchBarrierMs))
	exec(fmt.Sprintf(`CREATE SOURCE s (id bigint, ts bigint, k int, v varchar)
		WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, in, broker.Addr))

	wantDrain := 0
	for i := range n {
		if passes(i) {
			wantDrain++
		}
	}
	wantSteady := 0
	for i := n; i < n+rate*secs; i++ {
		if passes(i) {
			wantSteady++
		}
	}
	c := startCounter(b, broker.Addr, out, n, wantDrain, wantSteady)
	defer c.close()

	cpu0, bcpu0 := srv.mustCPU(b), mustCPU(b, broker.Pid())
	t0 := time.Now()
	exec(fmt.Sprintf(`CREATE SINK k AS SELECT id, ts, k * 2 AS k2, v FROM s WHERE k %% 10 <> 0
		WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', %s) FORMAT PLAIN ENCODE JSON`,
		out, broker.Addr, m.with))
	if !c.wait(c.drained, 10*time.Minute) {
		b.Fatalf("%s: drain: %d of %d records visible after 10 minutes", m.name, c.drainSeen.Load(), wantDrain)
	}
	res.drainWall = time.Since(t0)
	res.drainCPU, res.brokerCPU = srv.mustCPU(b)-cpu0, mustCPU(b, broker.Pid())-bcpu0
	res.visible = int(c.drainSeen.Load())

	// The floor's consumer reads the input topic from its start: it is
	// started here and has read the drain phase's records before the
	// steady phase, so that its catching up is not in its latencies.
	floor := startCounter(b, broker.Addr, in, n, n, rate*secs)
	defer floor.close()
	if !floor.wait(floor.drained, time.Minute) {
		b.Fatalf("%s: the floor's consumer read %d of %d input records in a minute", m.name, floor.drainSeen.Load(), n)
	}

	// Idle: the job runs with nothing to read; what weir spends per
	// second then is in every phase's figures too, and exactly-once's
	// drain lasts longer (its last records are visible only once their
	// checkpoint committed).
	cpu1 := srv.mustCPU(b)
	t1 := time.Now()
	time.Sleep(3 * time.Second)
	res.idlePerSec = time.Duration(float64(srv.mustCPU(b)-cpu1) / time.Since(t1).Seconds())

	// Steady phase: rate records per second, each stamped when handed to
	// the producer.
	res.steadyRecs = rate * secs
	cpu1 = srv.mustCPU(b)
	t2 := time.Now()
	rt0 := readRuntimeHists()
	pprof.Do(ctx, pprof.Labels("bench", "producer"), func(context.Context) {
		res.ack = produceSteady(b, broker.Addr, in, n, rate, secs)
	})
	ok := c.wait(c.steadyDone, time.Minute)
	res.steadyCPU = srv.mustCPU(b) - cpu1
	res.sched, res.gcPause = readRuntimeHists().since(rt0)
	res.lat, res.in, res.out = c.latencies()
	res.ckptDur, res.ckptGap = checkpointTimes(b, conn, time.Since(t2))
	floor.wait(floor.steadyDone, time.Minute)
	res.floor, _, _ = floor.latencies()
	if !ok {
		res.missing = wantSteady - len(res.lat)
	}
	return res
}

// checkpointTimes returns the durations of the checkpoints completed in
// the last span and the gaps between their starts, from
// weir.checkpoints.
func checkpointTimes(b *testing.B, conn *pgx.Conn, span time.Duration) (dur, gap []time.Duration) {
	b.Helper()
	rows, err := conn.Query(context.Background(), fmt.Sprintf(`SELECT duration_ms, started_at FROM weir.checkpoints
		WHERE status = 'succeeded' AND started_at > now() - interval '%d milliseconds' ORDER BY epoch`, span.Milliseconds()))
	if err != nil {
		b.Fatalf("weir.checkpoints: %v", err)
	}
	var last time.Time
	for rows.Next() {
		var ms float64
		var at time.Time
		if err := rows.Scan(&ms, &at); err != nil {
			b.Fatalf("weir.checkpoints: %v", err)
		}
		dur = append(dur, time.Duration(ms*float64(time.Millisecond)))
		if !last.IsZero() {
			gap = append(gap, at.Sub(last))
		}
		last = at
	}
	if err := rows.Err(); err != nil {
		b.Fatalf("weir.checkpoints: %v", err)
	}
	slices.Sort(dur)
	slices.Sort(gap)
	return dur, gap
}

// produceSteady writes records first..first+rate*secs-1 to topic at rate
// records per second, each with the current time in microseconds as ts,
// and returns the times until the broker acknowledged them, sorted.
func produceSteady(b *testing.B, addr, topic string, first, rate, secs int) []time.Duration {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		b.Fatalf("kafka client: %v", err)
	}
	defer cl.Close()
	ctx := context.Background()
	var failed atomic.Pointer[error]
	var mu sync.Mutex
	var acks []time.Duration
	promise := func(r *kgo.Record, err error) {
		if err != nil {
			failed.CompareAndSwap(nil, &err)
			return
		}
		d := time.Since(r.Context.Value(sentAt{}).(time.Time))
		mu.Lock()
		acks = append(acks, d)
		mu.Unlock()
	}
	total := rate * secs
	start := time.Now()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	var buf []byte
	for sent := 0; sent < total; {
		due := min(total, int(float64(rate)*time.Since(start).Seconds()))
		for ; sent < due; sent++ {
			now := time.Now()
			buf = benchRecord(buf, first+sent, now.UnixMicro())
			cl.Produce(ctx, &kgo.Record{Value: slices.Clone(buf), Context: context.WithValue(ctx, sentAt{}, now)}, promise)
		}
		<-tick.C
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatalf("steady produce: %v", err)
	}
	if p := failed.Load(); p != nil {
		b.Fatalf("steady produce: %v", *p)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(acks)
	return acks
}

// sentAt is the context key of a steady record's produce time.
type sentAt struct{}

// counter consumes the output topic at read_committed from its start and
// counts the drain phase's records (id < first) and the steady phase's,
// whose latencies it keeps, split at the records' Kafka timestamps.
type counter struct {
	cl         *kgo.Client
	cancel     context.CancelFunc
	done       sync.WaitGroup
	first      int
	drainSeen  atomic.Int64
	drained    chan struct{}
	steadyDone chan struct{}

	mu           sync.Mutex
	lat, in, out []time.Duration
	err          error
}

func startCounter(b *testing.B, addr, topic string, first, wantDrain, wantSteady int) *counter {
	b.Helper()
	// The label marks the consumer's goroutines, the client's included
	// (they inherit it from the goroutine creating the client).
	ctx, cancel := context.WithCancel(pprof.WithLabels(context.Background(), pprof.Labels("bench", "consumer")))
	pprof.SetGoroutineLabels(ctx)
	defer pprof.SetGoroutineLabels(context.Background())
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		cancel()
		b.Fatalf("kafka client: %v", err)
	}
	c := &counter{cl: cl, cancel: cancel, first: first, drained: make(chan struct{}), steadyDone: make(chan struct{})}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		var v struct {
			ID int   `json:"id"`
			TS int64 `json:"ts"`
		}
		steady := 0
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			now := time.Now()
			fs.EachError(func(_ string, _ int32, err error) {
				if ctx.Err() == nil {
					c.mu.Lock()
					c.err = err
					c.mu.Unlock()
				}
			})
			fs.EachRecord(func(r *kgo.Record) {
				if err := json.NewDecoder(bytes.NewReader(r.Value)).Decode(&v); err != nil {
					c.mu.Lock()
					c.err = fmt.Errorf("output record %q: %v", r.Value, err)
					c.mu.Unlock()
					return
				}
				if v.ID < first {
					if int(c.drainSeen.Add(1)) == wantDrain {
						close(c.drained)
					}
					return
				}
				ts := time.UnixMicro(v.TS)
				c.mu.Lock()
				c.lat = append(c.lat, now.Sub(ts))
				c.in = append(c.in, r.Timestamp.Sub(ts))
				c.out = append(c.out, now.Sub(r.Timestamp))
				c.mu.Unlock()
				if steady++; steady == wantSteady {
					close(c.steadyDone)
				}
			})
		}
	}()
	return c
}

// wait waits until ch is closed or timeout passed; it reports whether ch
// was closed. A consumer error ends the wait too.
func (c *counter) wait(ch chan struct{}, timeout time.Duration) bool {
	deadline := time.After(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ch:
			return true
		case <-deadline:
			return false
		case <-tick.C:
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			if err != nil {
				return false
			}
		}
	}
}

// latencies returns the steady records' latencies and their two parts,
// each sorted.
func (c *counter) latencies() (lat, in, out []time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	lat, in, out = slices.Clone(c.lat), slices.Clone(c.in), slices.Clone(c.out)
	slices.Sort(lat)
	slices.Sort(in)
	slices.Sort(out)
	return lat, in, out
}

func (c *counter) close() {
	c.cancel()
	c.done.Wait()
	c.cl.Close()
}

// benchServer is the weir server of one mode's run: a `weir serve`
// process, or (-kafka.inprocess) an engine and wire server inside the
// benchmark process. pid is the process whose CPU time counts.
type benchServer struct {
	connString string
	pid        int
	stop       func()
}

func (s *benchServer) mustCPU(b *testing.B) time.Duration {
	b.Helper()
	return mustCPU(b, s.pid)
}

// startBenchServer starts a fresh weir server whose connectors use broker.
func startBenchServer(b *testing.B, broker *kafkatest.Broker) *benchServer {
	b.Helper()
	if *benchInProcess {
		return startInProcess(b)
	}
	w := kafkatest.StartWeir(b, kafkatest.Options{Broker: broker})
	pid, err := serverPid(w.DataDir)
	if err != nil {
		w.Stop()
		b.Fatal(err)
	}
	return &benchServer{connString: w.ConnString(), pid: pid, stop: w.Stop}
}

// startInProcess serves a fresh engine on a free port from this process,
// as `weir serve` does, so that -cpuprofile sees weir's work. The
// benchmark's consumer runs with the pprof label bench=consumer
// (`go tool pprof -tagignore bench=consumer` leaves it out); the CPU
// figures are the whole process's. The server's goroutines carry the
// label mode=exactly-once or mode=at-least-once.
func startInProcess(b *testing.B) *benchServer {
	b.Helper()
	eng, err := engine.Open(engine.Config{DataDir: filepath.Join(b.TempDir(), "data")})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		b.Fatal(err)
	}
	srv := wire.NewServer(eng, wire.Options{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
		eng.Close()
	}
	return &benchServer{
		connString: fmt.Sprintf("postgres://root@%s/dev?sslmode=disable", ln.Addr()),
		pid:        os.Getpid(),
		stop:       stop,
	}
}

// serverPid finds the `weir serve` process using dataDir.
func serverPid(dataDir string) (int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if i := slices.Index(args, "--data-dir"); i > 0 && i+1 < len(args) && args[i+1] == dataDir && slices.Contains(args, "serve") {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no weir serve process with --data-dir %s", dataDir)
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// processCPU returns the user plus system CPU time process pid has used
// (fields utime and stime of /proc/PID/stat).
func processCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// fields 3 onwards follow the last ')'.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

func mustCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	d, err := processCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// percentile returns the p-th percentile (0 < p ≤ 1) of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds))*p+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// printResults prints one row per mode and round, then the ratio of the
// modes' records per CPU-second over all rounds, and reports the main
// figures as benchmark metrics.
func printResults(b *testing.B, n, rate, secs, parts int, rs []benchResult) {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nKafka source → filter/project → Kafka sink; %d records drained per mode, then %d records/s for %d s; "+
		"%d partitions; barrier_interval_ms = %d; broker fsync per batch %t\n\n", n, rate, secs, parts, *benchBarrierMs, *benchBrokerSync)
	fmt.Fprintf(&sb, "%-14s %5s %8s %10s %10s %12s %10s %11s | %9s %8s %8s %8s %8s | %7s %7s %7s %7s %7s %7s\n",
		"mode", "round", "drain s", "weir CPU s", "rec/CPU-s", "broker CPU s", "wall rec/s", "idle CPU/s",
		"steady n", "p50 ms", "p99 ms", "max ms", "rec/CPU-s", "ckpt50", "ckpt99", "gap50", "gap99", "floor50", "floor99")
	type sum struct {
		recs        int
		cpu         time.Duration
		lat         []time.Duration
		steadyRecs  int
		steadyCPU   time.Duration
		wallRecsSec float64
	}
	sums := map[string]*sum{}
	for _, r := range rs {
		slices.Sort(r.lat)
		s := sums[r.mode]
		if s == nil {
			s = &sum{}
			sums[r.mode] = s
		}
		s.recs += r.drained
		s.cpu += r.drainCPU
		s.lat = append(s.lat, r.lat...)
		s.steadyRecs += r.steadyRecs
		s.steadyCPU += r.steadyCPU
		missing := ""
		if r.missing > 0 {
			missing = fmt.Sprintf("  (%d steady records not seen)", r.missing)
		}
		fmt.Fprintf(&sb, "%-14s %5d %8.2f %10.2f %10.0f %12.2f %10.0f %8s ms | %9d %8s %8s %8s %8.0f | %7s %7s %7s %7s %7s %7s%s\n",
			r.mode, r.round, r.drainWall.Seconds(), r.drainCPU.Seconds(), float64(r.drained)/r.drainCPU.Seconds(),
			r.brokerCPU.Seconds(), float64(r.drained)/r.drainWall.Seconds(), ms(r.idlePerSec),
			len(r.lat), ms(percentile(r.lat, 0.5)), ms(percentile(r.lat, 0.99)), ms(percentile(r.lat, 1)),
			float64(r.steadyRecs)/r.steadyCPU.Seconds(),
			ms(percentile(r.ckptDur, 0.5)), ms(percentile(r.ckptDur, 0.99)), ms(percentile(r.ckptGap, 0.5)), ms(percentile(r.ckptGap, 0.99)),
			ms(percentile(r.floor, 0.5)), ms(percentile(r.floor, 0.99)), missing)
	}
	// Where the steady phase's latency goes: in and out (see
	// BenchmarkKafkaSinkGuarantee), the input producer's acknowledgement,
	// the floor, and this process's Go scheduling latency and GC pauses
	// (weir's too with -kafka.inprocess).
	fmt.Fprintf(&sb, "\n%-20s %5s | %6s %6s %6s %6s | %6s %6s %7s %7s | %7s %7s %7s | %5s %6s %6s\n",
		"stages (ms)", "round", "in50", "in99", "out50", "out99", "ack50", "ack99", "floor50", "floor99",
		"sched99", "sched999", "schedmx", "GCs", "gc99", "gcmax")
	ms1 := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
	}
	for _, r := range rs {
		fmt.Fprintf(&sb, "%-20s %5d | %6s %6s %6s %6s | %6s %6s %7s %7s | %7s %7s %7s | %5d %6s %6s\n",
			r.mode, r.round, ms(percentile(r.in, 0.5)), ms(percentile(r.in, 0.99)), ms(percentile(r.out, 0.5)), ms(percentile(r.out, 0.99)),
			ms1(percentile(r.ack, 0.5)), ms1(percentile(r.ack, 0.99)), ms1(percentile(r.floor, 0.5)), ms1(percentile(r.floor, 0.99)),
			ms1(r.sched.quantile(0.99)), ms1(r.sched.quantile(0.999)), ms1(r.sched.quantile(1)),
			r.gcPause.total(), ms1(r.gcPause.quantile(0.99)), ms1(r.gcPause.quantile(1)))
	}
	eo, alo := sums["exactly-once"], sums["at-least-once"]
	if eo == nil || alo == nil {
		b.Log(sb.String())
		return
	}
	perCPU := func(s *sum) float64 { return float64(s.recs) / s.cpu.Seconds() }
	ratio := perCPU(eo) / perCPU(alo)
	fmt.Fprintf(&sb, "\nrecords per CPU-second (drain, all rounds): exactly-once %.0f, at-least-once %.0f; "+
		"ratio %.3f (exactly-once costs %.1f%%)\n", perCPU(eo), perCPU(alo), ratio, 100*(1-ratio))
	// The ratio of each round's pair, whose two runs are closest in time,
	// and their median: less swayed by load that comes and goes.
	var pairs []float64
	for round := 0; ; round++ {
		var e, a *benchResult
		for i := range rs {
			if rs[i].round == round {
				switch rs[i].mode {
				case "exactly-once":
					e = &rs[i]
				case "at-least-once":
					a = &rs[i]
				}
			}
		}
		if e == nil || a == nil {
			break
		}
		pairs = append(pairs, a.drainCPU.Seconds()/e.drainCPU.Seconds()*float64(e.drained)/float64(a.drained))
	}
	if len(pairs) > 1 {
		var parts []string
		for _, p := range pairs {
			parts = append(parts, fmt.Sprintf("%.3f", p))
		}
		sorted := slices.Sorted(slices.Values(pairs))
		med := sorted[len(sorted)/2]
		if len(sorted)%2 == 0 {
			med = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
		}
		fmt.Fprintf(&sb, "ratio per round: %s; median %.3f\n", strings.Join(parts, " "), med)
	}
	ec := sums["exactly-once-coupled"]
	if ec != nil {
		fmt.Fprintf(&sb, "records per CPU-second (drain, all rounds): exactly-once decoupled %.0f, coupled %.0f; "+
			"ratio %.3f (decoupling costs %.1f%%)\n", perCPU(eo), perCPU(ec), perCPU(eo)/perCPU(ec), 100*(1-perCPU(eo)/perCPU(ec)))
	}
	for _, x := range []struct {
		name string
		s    *sum
	}{{"exactly-once", eo}, {"at-least-once", alo}, {"exactly-once-coupled", ec}} {
		if x.s == nil {
			continue
		}
		slices.Sort(x.s.lat)
		fmt.Fprintf(&sb, "event-to-visible latency at read_committed, %s: p50 %s ms, p99 %s ms (%d records)\n",
			x.name, ms(percentile(x.s.lat, 0.5)), ms(percentile(x.s.lat, 0.99)), len(x.s.lat))
	}
	fmt.Print(sb.String())
	b.ReportMetric(perCPU(eo), "eo-rec/cpu-s")
	b.ReportMetric(perCPU(alo), "alo-rec/cpu-s")
	b.ReportMetric(ratio, "eo/alo")
	b.ReportMetric(float64(percentile(eo.lat, 0.5).Milliseconds()), "eo-p50-ms")
	b.ReportMetric(float64(percentile(eo.lat, 0.99).Milliseconds()), "eo-p99-ms")
	b.ReportMetric(float64(percentile(alo.lat, 0.5).Milliseconds()), "alo-p50-ms")
	b.ReportMetric(float64(percentile(alo.lat, 0.99).Milliseconds()), "alo-p99-ms")
}

// runtimeHist is a runtime/metrics histogram of durations.
type runtimeHist struct {
	counts  []uint64
	buckets []float64 // seconds; len(counts)+1 boundaries
}

// runtimeHists holds the process's scheduling-latency and GC-pause
// histograms at one time.
type runtimeHists struct{ sched, gc runtimeHist }

// readRuntimeHists reads /sched/latencies:seconds and
// /sched/pauses/total/gc:seconds.
func readRuntimeHists() runtimeHists {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}, {Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s)
	h := func(v metrics.Value) runtimeHist {
		if v.Kind() != metrics.KindFloat64Histogram {
			return runtimeHist{}
		}
		fh := v.Float64Histogram()
		return runtimeHist{counts: slices.Clone(fh.Counts), buckets: fh.Buckets}
	}
	return runtimeHists{sched: h(s[0].Value), gc: h(s[1].Value)}
}

// since returns the histograms of what happened after r0.
func (r runtimeHists) since(r0 runtimeHists) (sched, gc runtimeHist) {
	sub := func(a, b runtimeHist) runtimeHist {
		if len(a.counts) != len(b.counts) {
			return a
		}
		d := runtimeHist{counts: make([]uint64, len(a.counts)), buckets: a.buckets}
		for i := range a.counts {
			d.counts[i] = a.counts[i] - b.counts[i]
		}
		return d
	}
	return sub(r.sched, r0.sched), sub(r.gc, r0.gc)
}

// total returns the number of events in h.
func (h runtimeHist) total() uint64 {
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// quantile returns the upper bound of the bucket holding the p-th
// quantile (0 < p ≤ 1) of h, or 0 when h is empty.
func (h runtimeHist) quantile(p float64) time.Duration {
	n := h.total()
	if n == 0 {
		return 0
	}
	want := uint64(math.Ceil(float64(n) * p))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= want {
			hi := h.buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = h.buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}
