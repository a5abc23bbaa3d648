package stream

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// BenchmarkMVGroupBy measures a materialized view's whole streaming path
// as the engine runs it: an in-process append-only source pushing chunks
// of types.ChunkCap rows into a table input (as DML does) → hash exchange
// → HashAgg (GROUP BY k over 10,000 groups: count(*), sum, min, max) →
// Materialize, planned by planner.PlanStream from the bound query, built
// by Build, with a real checkpoint.Driver taking a checkpoint every second
// into Pebble in a temporary directory (every commit fsyncs; the source's
// rows themselves are not stored, as a Kafka source's are not). b.N is
// the number of source rows; row i has group key i % 10000 and a
// pseudo-random value in [-1e9, 1e9).
//
// The figures are reported, not asserted (the machine is shared):
//
//	rows/cpu-s   source rows per second of process CPU time (user + system,
//	             getrusage), from the first push to the last commit
//	plain-x      how many times more CPU the stream takes than a plain Go
//	             loop folding the same rows into a map in one goroutine
//	ckpt-p50-ms  checkpoint latency, barrier injection to durable commit
//	ckpt-p99-ms
//	maxrss-MB    peak resident set of the process (reset before the run
//	             where Linux allows it)
//	heap-MB      peak of the Go heap's live and unswept objects, sampled
//	             every 10 ms
//
// After the run, the view must equal the plain loop's result (a mismatch
// fails the benchmark). Sub-benchmarks: append-only (the table is APPEND
// ONLY, so min and max keep only their extremes) and retracting (a plain
// table: min and max keep every input value in state tables, as they
// must when deletes may come), each with 1 and 2 actors per fragment.
//
// Run it with enough rows for several checkpoints (the retracting ones
// are about ten times slower, and hold an epoch's values in memory):
//
//	go test -run '^$' -bench 'MVGroupBy/append-only' -benchtime 20000000x ./executor/stream/
//	go test -run '^$' -bench 'MVGroupBy/retracting' -benchtime 2000000x ./executor/stream/
func BenchmarkMVGroupBy(b *testing.B) {
	for _, appendOnly := range []bool{true, false} {
		for _, par := range []int{1, 2} {
			name := "append-only"
			if !appendOnly {
				name = "retracting"
			}
			b.Run(fmt.Sprintf("%s/p%d", name, par), func(b *testing.B) {
				runMVBench(b, appendOnly, par)
			})
		}
	}
}

const (
	mvGroups  = 10_000
	mvTableID = 10
	mvViewID  = 20
)

// mvRow returns source row i: its id (primary key), group key and value.
func mvRow(i int64) (id, k, v int64) {
	// splitmix64 of i: cheap, deterministic, well spread.
	z := uint64(i) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return i, i % mvGroups, int64(z%2_000_000_000) - 1_000_000_000
}

// mvAgg is one group of the plain loop.
type mvAgg struct{ count, sum, min, max int64 }

// plainGroupBy folds rows 0..n-1 into a map in one goroutine: the
// baseline the stream is compared to.
func plainGroupBy(n int64) map[int64]mvAgg {
	m := make(map[int64]mvAgg)
	for i := int64(0); i < n; i++ {
		_, k, v := mvRow(i)
		g, ok := m[k]
		if !ok {
			g = mvAgg{min: v, max: v}
		}
		g.count++
		g.sum += v
		g.min = min(g.min, v)
		g.max = max(g.max, v)
		m[k] = g
	}
	return m
}

// mvCatalog is the binder's catalog of the benchmark: the table t.
type mvCatalog struct{ t *catalog.Relation }

func (c mvCatalog) Relation(schema, name string) (*catalog.Relation, bool) {
	if name == "t" && (schema == "" || schema == "public") {
		return c.t, true
	}
	return nil, false
}

func (mvCatalog) SystemTable(schema, name string) (string, types.Schema, bool) {
	return "", nil, false
}

// planMVBench plans the benchmark's view over t.
func planMVBench(tb testing.TB, appendOnly bool) (*planner.StreamMaterialize, *catalog.Relation, *catalog.Relation) {
	t := &catalog.Relation{ID: mvTableID, OID: mvTableID + catalog.FirstUserOID, Schema: "public", Name: "t",
		Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
			{Name: "id", T: types.TInt8, NotNull: true}, {Name: "k", T: types.TInt8}, {Name: "v", T: types.TInt8}}}
	if appendOnly {
		t.With = map[string]string{"append_only": "true"}
	}
	stmt, err := sql.Parse("SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM t GROUP BY k")
	if err != nil {
		tb.Fatal(err)
	}
	bd, err := planner.Bind(stmt.(*sql.Query), mvCatalog{t}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	mv := &catalog.Relation{ID: mvViewID, OID: mvViewID + catalog.FirstUserOID, Schema: "public", Name: "mv", Kind: catalog.KindMView}
	next := uint32(100)
	root, err := planner.PlanStream(bd.Plan, mv, func() uint32 { next++; return next })
	if err != nil {
		tb.Fatal(err)
	}
	// The append-only path must spare min and max their input state.
	var agg *planner.StreamHashAgg
	var find func(n planner.StreamNode)
	find = func(n planner.StreamNode) {
		if a, ok := n.(*planner.StreamHashAgg); ok {
			agg = a
		}
		for _, in := range n.StreamInputs() {
			find(in)
		}
	}
	find(root)
	if agg == nil {
		tb.Fatalf("no hash aggregation in\n%s", planner.ExplainStream(root))
	}
	if want := map[bool]int{true: 0, false: 2}[appendOnly]; len(agg.Extra) != want {
		tb.Fatalf("append-only %v: %d extra state tables, want %d:\n%s", appendOnly, len(agg.Extra), want, planner.ExplainStream(root))
	}
	return root, t, mv
}

// mvIO is the engine's side of the checkpoint driver for the benchmark:
// it injects barriers into the job once the job is added, commits the
// actors' write sets with the committed epoch in one synced batch, and
// records each checkpoint's latency.
type mvIO struct {
	db  *storage.DB
	job *Job
	ctx context.Context
	// mu orders injections and pushes, as the engine's writeMu does, so a
	// chunk falls into one epoch on every actor.
	mu     sync.Mutex
	active bool

	lmu      sync.Mutex
	injected map[uint64]time.Time
	lat      []time.Duration
	failed   error
}

func (io *mvIO) Inject(b checkpoint.InjectBarrier) {
	io.mu.Lock()
	defer io.mu.Unlock()
	io.lmu.Lock()
	io.injected[b.Barrier.Epoch.Curr] = time.Now()
	io.lmu.Unlock()
	if m := b.Barrier.Mutation; m.Kind == types.MutationAddJob && m.Job.ID == io.job.ID {
		io.active = true
	}
	if io.active {
		_ = io.job.Inject(io.ctx, b.Barrier)
	}
}

func (io *mvIO) Commit(ctx context.Context, epoch uint64, ws []checkpoint.ActorWriteSet) error {
	// Nothing reads the checkpoint's batch: a write-only one spares an
	// ordered insert per write (the engine's Commit should do the same).
	batch := io.db.NewWriteBatch()
	defer batch.Close()
	for _, w := range ws {
		if wb, ok := w.WriteSet.(*storage.Batch); ok && wb != nil {
			err := batch.Apply(wb)
			wb.Close()
			if err != nil {
				return err
			}
		}
	}
	if err := batch.SetCommittedEpoch(epoch); err != nil {
		return err
	}
	return batch.Commit()
}

func (io *mvIO) Committed(epoch uint64, m checkpoint.Mutation) {
	io.lmu.Lock()
	defer io.lmu.Unlock()
	if t, ok := io.injected[epoch]; ok {
		io.lat = append(io.lat, time.Since(t))
		delete(io.injected, epoch)
	}
}

func (io *mvIO) Recover(ctx context.Context, fromEpoch uint64, cause error) ([]checkpoint.Job, error) {
	if cause != nil {
		io.lmu.Lock()
		io.failed = cause
		io.lmu.Unlock()
	}
	// At start there is no job yet: it is added by an AddJob barrier, as
	// CREATE MATERIALIZED VIEW does.
	return nil, nil
}

// mvSink hands the actors' acknowledgements to the driver.
type mvSink struct{ d *checkpoint.Driver }

func (s mvSink) Ack(ctx context.Context, epoch uint64, actor types.ActorID, ws *storage.Batch) error {
	return s.d.Ack(ctx, epoch, actor, ws)
}

func (s mvSink) ActorFailed(ctx context.Context, actor types.ActorID, err error) error {
	return s.d.ActorFailed(ctx, actor, err)
}

// mvMeasure is what one run measured.
type mvMeasure struct {
	cpu, plainCPU time.Duration
	maxRSS        int64 // bytes
	heapPeak      uint64
	lat           []time.Duration
}

func runMVBench(b *testing.B, appendOnly bool, par int) {
	b.StopTimer()
	rows := int64(b.N)
	m := measureMV(b, rows, appendOnly, par)
	cpuS := m.cpu.Seconds()
	b.ReportMetric(float64(rows)/cpuS, "rows/cpu-s")
	b.ReportMetric(m.cpu.Seconds()/max(m.plainCPU.Seconds(), 1e-9), "plain-x")
	slices.Sort(m.lat)
	b.ReportMetric(ms(percentile(m.lat, 0.50)), "ckpt-p50-ms")
	b.ReportMetric(ms(percentile(m.lat, 0.99)), "ckpt-p99-ms")
	b.ReportMetric(float64(m.maxRSS)/(1<<20), "maxrss-MB")
	b.ReportMetric(float64(m.heapPeak)/(1<<20), "heap-MB")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the p-quantile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}

// heapSampler records the peak of the Go heap's object bytes.
type heapSampler struct {
	stop chan struct{}
	done chan uint64
}

func startHeapSampler() *heapSampler {
	s := &heapSampler{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				peak = max(peak, sample[0].Value.Uint64())
			}
			select {
			case <-s.stop:
				s.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *heapSampler) finish() uint64 {
	close(s.stop)
	return <-s.done
}

// measureMV runs the plain loop and then the stream over rows rows.
func measureMV(b *testing.B, rows int64, appendOnly bool, par int) mvMeasure {
	var m mvMeasure
	runtime.GC()
	c0 := cpuTime()
	want := plainGroupBy(rows)
	m.plainCPU = cpuTime() - c0

	saved := strictChangelog
	strictChangelog = false // as in production
	defer func() { strictChangelog = saved }()

	root, _, mv := planMVBench(b, appendOnly)
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	io := &mvIO{db: db, ctx: ctx, injected: map[uint64]time.Time{}}
	drv := checkpoint.NewDriver(checkpoint.Config{Interval: time.Second}, io, nil)
	var pmu sync.Mutex
	backfilled := map[types.ActorID]bool{}
	job, err := Build(root, Env{Job: mvViewID, DB: db, Cache: storage.NewCache(256 << 20), Sink: mvSink{drv},
		Errors: &errList{}, Parallelism: par, Progress: func(p BackfillProgress) {
			pmu.Lock()
			backfilled[p.Actor] = p.Done
			pmu.Unlock()
		}})
	if err != nil {
		b.Fatal(err)
	}
	io.job = job
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = drv.Run(ctx) }()
	jobErr := make(chan error, 1)
	go func() { defer wg.Done(); jobErr <- job.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	if err := drv.AddJob(ctx, job.Spec()); err != nil {
		b.Fatal(err)
	}
	// The table holds no rows (the source's rows are not stored), so the
	// backfill ends at the first snapshot; the rows are pushed after it,
	// when they pass straight through.
	for done := false; !done; {
		if err := drv.Barrier(ctx); err != nil {
			b.Fatal(err)
		}
		pmu.Lock()
		done = len(backfilled) == par
		for _, d := range backfilled {
			done = done && d
		}
		pmu.Unlock()
	}
	io.lmu.Lock()
	io.lat = nil
	io.lmu.Unlock()

	runtime.GC()
	// Writing 5 to clear_refs resets the peak RSS (Linux); elsewhere the
	// peak is the process's.
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	hs := startHeapSampler()
	c0 = cpuTime()
	b.StartTimer()
	ts := []types.T{types.TInt8, types.TInt8, types.TInt8}
	chunk := types.NewChunk(ts, types.ChunkCap)
	in := job.Tables[0]
	for i := int64(0); i < rows; {
		chunk.Reset()
		for j := 0; j < types.ChunkCap && i < rows; j, i = j+1, i+1 {
			id, k, v := mvRow(i)
			chunk.AppendRow(types.OpInsert, types.Row{types.DInt(id), types.DInt(k), types.DInt(v)})
		}
		io.mu.Lock()
		err := in.Push(ctx, chunk)
		io.mu.Unlock()
		if err != nil {
			b.Fatal(err)
		}
	}
	// FLUSH: every row pushed is in a committed checkpoint.
	if err := drv.Barrier(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	m.cpu = cpuTime() - c0
	m.heapPeak = hs.finish()
	m.maxRSS = maxRSS()
	io.lmu.Lock()
	m.lat = append([]time.Duration(nil), io.lat...)
	failed := io.failed
	io.lmu.Unlock()
	if failed != nil {
		b.Fatalf("a checkpoint failed: %v", failed)
	}
	select {
	case err := <-jobErr:
		b.Fatalf("the job ended: %v", err)
	default:
	}
	checkMVBench(b, db, mv, want)
	return m
}

// checkMVBench compares the committed view with the plain loop's result.
func checkMVBench(b *testing.B, db *storage.DB, mv *catalog.Relation, want map[int64]mvAgg) {
	ts := make([]types.T, len(mv.Cols))
	for i, c := range mv.Cols {
		ts[i] = c.T
	}
	snap := db.NewSnapshot()
	defer snap.Close()
	it := snap.Scan(mv.ID, ts)
	defer it.Close()
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		if r == nil {
			break
		}
		n++
		w, ok := want[r[0].I]
		sum, err := r[2].D.Int64()
		if !ok || err != nil || r[1].I != w.count || sum != w.sum || r[3].I != w.min || r[4].I != w.max {
			b.Fatalf("view row %v, want %+v", r, w)
		}
	}
	if n != len(want) {
		b.Fatalf("view has %d rows, want %d", n, len(want))
	}
}
