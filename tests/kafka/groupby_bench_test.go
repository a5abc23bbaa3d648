package kafka

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// Flags of BenchmarkKafkaGroupBy.
var (
	groupByRecords  = flag.Int("groupby.records", 2_000_000, "JSON bids preloaded into the source topic")
	groupByAuctions = flag.Int("groupby.auctions", 10_000, "distinct auctions (groups) among the bids")
	groupByRounds   = flag.Int("groupby.rounds", 1, "fresh servers run one after the other over the same topic")
	groupByProcs    = flag.Int("groupby.gomaxprocs", 1, "GOMAXPROCS of the weir server (0: its default)")
	groupByJSONL    = flag.String("groupby.jsonl", "", "also write the bids to this file, one per line, for a peer run on the same data")
)

// BenchmarkKafkaGroupBy measures a Kafka JSON source feeding
//
//	CREATE MATERIALIZED VIEW g AS SELECT auction, count(*), sum(price) FROM bids GROUP BY auction
//
// in events per CPU-second of the `weir serve` process: -groupby.records
// bids {"auction","bidder","price","ts"} over -groupby.auctions auctions
// are preloaded into a one-partition topic of a broker process of its own
// (`weir kafka`, whose CPU is not counted), a fresh server (GOMAXPROCS
// -groupby.gomaxprocs) gets CREATE SOURCE, and the CPU clock runs from
// just before CREATE MATERIALIZED VIEW until a checkpoint covers every
// bid (the source's committed position, polled every 100 ms; the default
// 1 s barriers); then the view must count them all. -groupby.jsonl writes
// the same bids to a file, so that a peer (such as a streaming library
// reading JSON lines) runs over the same data in the same session:
//
//	go test ./tests/kafka -run '^$' -bench KafkaGroupBy -groupby.rounds 2 -groupby.jsonl /tmp/bids.jsonl
//
// With -kafka.inprocess the server runs inside the benchmark process, for
// -cpuprofile (its CPU figure is then the whole process's).
func BenchmarkKafkaGroupBy(b *testing.B) {
	n, groups := *groupByRecords, *groupByAuctions
	if n <= 0 || groups <= 0 || *groupByRounds <= 0 {
		b.Fatal("-groupby.records, -groupby.auctions and -groupby.rounds must be positive")
	}
	broker := kafkatest.StartBroker(b, "")
	kafkatest.CreateTopic(b, broker.Addr, "bids", 1)
	bid := func(buf []byte, i int) []byte {
		// A fixed pseudo-random auction and price per bid; 100 bids per
		// millisecond of event time.
		h := uint64(i) * 0x9e3779b97f4a7c15
		return fmt.Appendf(buf[:0], `{"auction":%d,"bidder":%d,"price":%d,"ts":%d}`,
			h%uint64(groups), (h>>20)%100_000, 100+(h>>40)%10_000, 1_700_000_000_000+int64(i/100))
	}
	preloadWith(b, broker.Addr, "bids", n, bid)
	if *groupByJSONL != "" {
		writeLines(b, *groupByJSONL, n, bid)
	}
	var perCPU []float64
	for round := range b.N * *groupByRounds {
		ev, cpu, wall := runGroupBy(b, broker, n)
		fmt.Printf("round %d: %d bids in %.2f s wall, %.2f s CPU of weir: %.0f events per CPU-second, %.0f events/s wall\n",
			round, ev, wall.Seconds(), cpu.Seconds(), float64(ev)/cpu.Seconds(), float64(ev)/wall.Seconds())
		perCPU = append(perCPU, float64(ev)/cpu.Seconds())
	}
	slices.Sort(perCPU)
	b.ReportMetric(perCPU[len(perCPU)/2], "events/cpu-s")
}

// runGroupBy runs the view over the bids on a fresh server and returns
// how many bids it counted, the server's CPU time and the wall time.
func runGroupBy(b *testing.B, broker *kafkatest.Broker, n int) (int64, time.Duration, time.Duration) {
	b.Helper()
	var srv *benchServer
	if *benchInProcess {
		srv = startInProcess(b)
	} else {
		var env []string
		if *groupByProcs > 0 {
			env = append(env, fmt.Sprintf("GOMAXPROCS=%d", *groupByProcs))
		}
		w := kafkatest.StartWeir(b, kafkatest.Options{Broker: broker, Env: env})
		pid, err := serverPid(w.DataDir)
		if err != nil {
			w.Stop()
			b.Fatal(err)
		}
		srv = &benchServer{connString: w.ConnString(), pid: pid, stop: w.Stop}
	}
	defer srv.stop()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.connString)
	if err != nil {
		b.Fatalf("connecting to weir: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE SOURCE bids (auction bigint, bidder bigint, price bigint, ts bigint)
		WITH (connector = 'kafka', topic = 'bids', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
		FORMAT PLAIN ENCODE JSON`, broker.Addr)); err != nil {
		b.Fatalf("CREATE SOURCE: %v", err)
	}
	cpu0 := srv.mustCPU(b)
	t0 := time.Now()
	if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW g AS SELECT auction, count(*), sum(price) FROM bids GROUP BY auction"); err != nil {
		b.Fatalf("CREATE MATERIALIZED VIEW: %v", err)
	}
	// The source's committed position is cheap to read, where summing
	// the view costs a scan of every group: once a checkpoint covers
	// every bid, the view counts them all.
	var pos int64
	for deadline := time.Now().Add(10 * time.Minute); pos < int64(n); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("the view's checkpoints cover %d of %d bids after 10 minutes", pos, n)
		}
		var p *int64
		if err := conn.QueryRow(ctx, "SELECT max(committed_position) FROM weir.source_partitions").Scan(&p); err != nil {
			b.Fatalf("reading the source's position: %v", err)
		}
		if p != nil {
			pos = *p
		}
	}
	wall := time.Since(t0)
	cpu := srv.mustCPU(b) - cpu0
	var seen int64
	if err := conn.QueryRow(ctx, "SELECT sum(count)::bigint FROM g").Scan(&seen); err != nil {
		b.Fatalf("reading the view: %v", err)
	}
	if seen != int64(n) {
		b.Fatalf("the view counts %d bids, want %d", seen, n)
	}
	return seen, cpu, wall
}

// preloadWith writes records 0..n-1, rendered by render, to topic and
// waits until all are acknowledged.
func preloadWith(b *testing.B, addr, topic string, n int, render func([]byte, int) []byte) {
	b.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
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
	var buf []byte
	for i := range n {
		buf = render(buf, i)
		cl.Produce(ctx, &kgo.Record{Value: slices.Clone(buf)}, promise)
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatalf("preloading %s: %v", topic, err)
	}
	if p := failed.Load(); p != nil {
		b.Fatalf("preloading %s: %v", topic, *p)
	}
}

// writeLines writes records 0..n-1, rendered by render, to path, one per
// line.
func writeLines(b *testing.B, path string, n int, render func([]byte, int) []byte) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var buf []byte
	for i := range n {
		buf = append(render(buf, i), '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
