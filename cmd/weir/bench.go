package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/weirdb/weir/connector/nexmark"
	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file is `weir bench nexmark`: the Nexmark benchmark run in
// process, each query as a sink into a blackhole over the generator
// sources, in a fresh database of its own, measured with getrusage.

const benchUsage = `Usage: weir bench nexmark [flags]

Runs Nexmark queries in this process over the built-in generator (each
query as CREATE SINK ... WITH (connector = 'blackhole') over the sources
person, auction and bid, in a fresh database), and prints per query the
events per second, events per CPU-second (user + system, from getrusage),
peak RSS and checkpoint durations (barrier injected to epoch committed,
p50 and p99), under a memory budget as weir serve's (--memory-budget),
with the memory's parts: the Go runtime's, the live heap, the state
cache's and Pebble's. Events count every event of the stream, of all three kinds
(nexmark.event.num), as the benchmark's other implementations count them.
With --all each query runs in a child process of its own (so peak RSS and
CPU are its own), after the generator alone, the ceiling of every query.

Flags:
`

// benchResult is one measured run.
type benchResult struct {
	Query        string        `json:"query"`
	Events       int64         `json:"events"`
	Wall         time.Duration `json:"wall_ns"`
	CPU          time.Duration `json:"cpu_ns"`
	PeakRSSBytes int64         `json:"peak_rss_bytes"`
	// PeakHeapBytes is the highest live Go heap (as of a garbage
	// collection's mark) sampled during the run.
	PeakHeapBytes int64 `json:"peak_heap_bytes"`
	// PeakStateBytes is the highest the state cache's own count of its
	// entries' bytes (weir_state_cache_bytes) was, sampled every
	// second: what it holds to three quarters of the budget.
	PeakStateBytes int64 `json:"peak_state_bytes,omitempty"`
	// PeakGoBytes is the most memory the Go runtime held from the
	// system (all its classes but the heap's pages returned), sampled:
	// the resident set beyond it is memory allocated outside Go, such as
	// Pebble's block cache and memtables.
	PeakGoBytes int64 `json:"peak_go_bytes,omitempty"`
	// PeakPebbleBytes is the most Pebble held in its block cache and
	// memtables, sampled every second.
	PeakPebbleBytes int64           `json:"peak_pebble_bytes,omitempty"`
	Checkpoints     []time.Duration `json:"checkpoints_ns,omitempty"`
	SinkRows        int64           `json:"sink_rows"`
	Err             string          `json:"error,omitempty"`
}

func (r benchResult) eventsPerSec() float64 { return float64(r.Events) / r.Wall.Seconds() }
func (r benchResult) eventsPerCPU() float64 { return float64(r.Events) / r.CPU.Seconds() }

// percentile returns the p-th percentile (0..100) of ds, 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

type benchOpts struct {
	query      string
	all        bool
	events     int64
	par        int
	splits     int
	interval   time.Duration
	delivery   string
	dataDir    string
	jsonOut    bool
	noProgress bool
	cpuProfile string
	memProfile string
	// maxWall, when positive, ends a query's run after this much wall
	// time: its events are then the share of the stream generated.
	maxWall time.Duration
	// budgetMB is the memory budget in MiB, as weir serve's
	// --memory-budget.
	budgetMB int64
}

func bench(args []string) int { return benchMain(args, os.Stdout, os.Stderr) }

// benchMain is bench writing its results to stdout and its errors and
// usage to stderr.
func benchMain(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
		fmt.Fprint(stdout, "Usage: weir bench nexmark [flags] (weir bench nexmark -h for the flags)\n")
		return 0
	}
	if len(args) == 0 || args[0] != "nexmark" {
		fmt.Fprint(stderr, "Usage: weir bench nexmark [flags] (weir bench nexmark -h for the flags)\n")
		return 2
	}
	fs := flag.NewFlagSet("bench nexmark", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), benchUsage)
		fs.PrintDefaults()
	}
	var o benchOpts
	fs.StringVar(&o.query, "query", "", "the query to run: q0 ... q22, or gen for the generator alone")
	fs.BoolVar(&o.all, "all", false, "run the generator alone and every query, one child process each, and print a table")
	fs.Int64Var(&o.events, "events", 1_000_000, "events of the stream (all kinds): nexmark.event.num")
	fs.IntVar(&o.par, "parallelism", 1, "streaming_parallelism of the query's job")
	fs.IntVar(&o.splits, "splits", 1, "nexmark.split.num of each source")
	fs.DurationVar(&o.interval, "barrier-interval", time.Second, "barrier (checkpoint) interval")
	fs.StringVar(&o.delivery, "delivery", "exactly-once", "exactly-once (aligned barriers) or at-least-once (unaligned)")
	fs.StringVar(&o.dataDir, "data-dir", "", "where the databases are created (default: a temporary directory, removed after)")
	fs.BoolVar(&o.jsonOut, "json", false, "print the result as one JSON object (what --all reads from its children)")
	fs.BoolVar(&o.noProgress, "no-progress", false, "no progress bar even on a terminal")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile (pprof) of the run to this file; with --all, to this file with the query's name appended")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile (pprof) to this file when the live heap is at its highest (sampled every 100 ms), and one at the end to this file with .end appended; with --all, the query's name is appended first")
	fs.DurationVar(&o.maxWall, "max-wall", 0, "stop a query after this much wall time and measure the events generated so far (their share of the stream's rows); 0: run to the end")
	fs.Int64Var(&o.budgetMB, "memory-budget", defaultBudgetMB(), "memory budget in MiB of the whole process, as weir serve --memory-budget (and the same default, half of the machine's or its cgroup's memory, at least 256): the state cache, Pebble's block cache and memtables and the other shares, and the Go soft memory limit (the budget less Pebble's share and a fixed part, unless GOMEMLIMIT is set)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weir bench nexmark: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if o.delivery != "exactly-once" && o.delivery != "at-least-once" {
		fmt.Fprintf(stderr, "weir bench nexmark: --delivery must be exactly-once or at-least-once, not %q\n", o.delivery)
		return 2
	}
	if o.budgetMB > maxBudgetMB {
		fmt.Fprintf(stderr, "weir bench nexmark: --memory-budget must be at most %d (MiB), not %d\n", maxBudgetMB, o.budgetMB)
		return 2
	}
	if o.events <= 0 || o.par <= 0 || o.splits <= 0 || o.interval <= 0 || o.budgetMB <= 0 {
		fmt.Fprint(stderr, "weir bench nexmark: --events, --parallelism, --splits, --barrier-interval and --memory-budget must be above zero\n")
		return 2
	}
	if o.maxWall < 0 {
		fmt.Fprint(stderr, "weir bench nexmark: --max-wall must not be negative\n")
		return 2
	}
	if o.all == (o.query != "") {
		fmt.Fprint(stderr, "weir bench nexmark: give either --query q<N> or --all\n")
		return 2
	}
	if !o.all && o.query != "gen" {
		if _, ok := nexmark.QueryByName(o.query); !ok {
			fmt.Fprintf(stderr, "weir bench nexmark: unknown query %q; valid: %s\n", o.query, strings.Join(benchNames(), ", "))
			return 2
		}
	}
	if o.all {
		return benchAll(o, args[1:], stdout, stderr)
	}
	applyMemoryLimit(o.budgetMB)
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "weir bench nexmark: %v\n", err)
			return 1
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "weir bench nexmark: %v\n", err)
			return 1
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	var r benchResult
	var err error
	if o.query == "gen" {
		r = benchGenerator(o.events)
	} else {
		r, err = benchQuery(o)
	}
	if err != nil {
		r.Query, r.Err = o.query, err.Error()
	}
	if o.jsonOut {
		_ = json.NewEncoder(stdout).Encode(r)
	}
	if err != nil {
		if !o.jsonOut { // --all prints the error in its table
			fmt.Fprintf(stderr, "weir bench nexmark: %v\n", err)
		}
		return 1
	}
	if !o.jsonOut {
		t := newResultTable(stdout, o)
		t.row(r)
	}
	return 0
}

// benchNames are the names --query takes: gen, then q0 ... q22.
func benchNames() []string {
	names := []string{"gen"}
	for _, q := range nexmark.Queries() {
		names = append(names, q.Name)
	}
	return names
}

// benchAll runs the generator and every query in child processes.
func benchAll(o benchOpts, args []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "weir bench nexmark: %v\n", err)
		return 1
	}
	var base []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch name := strings.TrimLeft(a, "-"); {
		case name == "all" || name == "json":
		case name == "cpuprofile" || name == "memprofile":
			i++ // its value follows
		case strings.HasPrefix(name, "cpuprofile="), strings.HasPrefix(name, "memprofile="):
		default:
			base = append(base, a)
		}
	}
	t := newResultTable(stdout, o)
	failed := false
	for _, name := range benchNames() {
		child := append([]string{"bench", "nexmark", "--json", "--query", name}, base...)
		if o.cpuProfile != "" {
			child = append(child, "--cpuprofile", o.cpuProfile+"."+name)
		}
		if o.memProfile != "" {
			child = append(child, "--memprofile", o.memProfile+"."+name)
		}
		cmd := exec.Command(self, child...)
		cmd.Stderr = stderr
		out, err := cmd.Output()
		var r benchResult
		if jerr := json.Unmarshal(out, &r); jerr != nil {
			r = benchResult{Query: name, Err: fmt.Sprintf("%v (%v)", err, jerr)}
		}
		if r.Err != "" {
			failed = true
		}
		// Each row as it comes, in case a later query fails or is
		// stopped.
		t.row(r)
	}
	if failed {
		return 1
	}
	return 0
}

// resultTable prints the results as a table, a row per result as it
// comes: its columns have fixed widths so that a row needs none of the
// rows after it.
type resultTable struct {
	w io.Writer
}

// resultCols are the table's columns, each as wide as its title.
var resultCols = []string{"query", "events", "events/s", "events/CPU-s", "CPU s", "wall s", "peak RSS MiB", "Go MiB", "heap MiB", "state MiB", "Pebble MiB", "checkpoints", "p50 ms", "p99 ms", "sink rows"}

// newResultTable prints the run's settings and the table's header.
func newResultTable(w io.Writer, o benchOpts) *resultTable {
	fmt.Fprintf(w, "Nexmark, %d events, parallelism %d, %d split(s), barrier interval %v, %s, memory budget %d MiB, GOMAXPROCS %d, %d CPUs\n",
		o.events, o.par, o.splits, o.interval, o.delivery, o.budgetMB, runtime.GOMAXPROCS(0), runtime.NumCPU())
	t := &resultTable{w: w}
	t.line(resultCols)
	return t
}

// line prints cells right-aligned under the columns' titles.
func (t *resultTable) line(cells []string) {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%*s", max(len(resultCols[i]), 8), c)
	}
	b.WriteByte('\n')
	io.WriteString(t.w, b.String())
}

// row prints one result.
func (t *resultTable) row(r benchResult) {
	if r.Err != "" {
		fmt.Fprintf(t.w, "%*s  error: %s\n", max(len(resultCols[0]), 8), r.Query, r.Err)
		return
	}
	ck := func(p float64) string {
		if len(r.Checkpoints) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(percentile(r.Checkpoints, p))/1e6)
	}
	t.line([]string{r.Query, fmt.Sprint(r.Events), fmt.Sprintf("%.0f", r.eventsPerSec()), fmt.Sprintf("%.0f", r.eventsPerCPU()),
		fmt.Sprintf("%.2f", r.CPU.Seconds()), fmt.Sprintf("%.2f", r.Wall.Seconds()), fmt.Sprintf("%.0f", float64(r.PeakRSSBytes)/(1<<20)),
		fmt.Sprintf("%.0f", float64(r.PeakGoBytes)/(1<<20)), fmt.Sprintf("%.0f", float64(r.PeakHeapBytes)/(1<<20)), fmt.Sprintf("%.0f", float64(r.PeakStateBytes)/(1<<20)), fmt.Sprintf("%.0f", float64(r.PeakPebbleBytes)/(1<<20)),
		fmt.Sprint(len(r.Checkpoints)), ck(50), ck(99), fmt.Sprint(r.SinkRows)})
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's peak resident set size in bytes.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // kilobytes on Linux
}

// benchGenerator generates every event of the stream (all three kinds,
// all columns) with nothing downstream: the ceiling of every query.
func benchGenerator(events int64) benchResult {
	r := benchResult{Query: "gen", Events: events}
	c0, t0 := cpuTime(), time.Now()
	for _, k := range []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid} {
		cols := nexmark.Columns(k)
		cfg := nexmark.Config{Table: k, EventNum: events, Splits: 1, Clock: nexmark.Clock{BaseMillis: benchBase}}
		for i, c := range cols {
			cfg.Fields = append(cfg.Fields, i)
			cfg.Types = append(cfg.Types, c.T)
		}
		rd, err := nexmark.NewReader(cfg)
		if err != nil {
			r.Err = err.Error()
			return r
		}
		for {
			b := rd.Next(types.ChunkCap)
			if b.Chunk == nil {
				break
			}
			r.SinkRows += int64(b.Chunk.Len())
		}
	}
	r.Wall, r.CPU, r.PeakRSSBytes = time.Since(t0), cpuTime()-c0, peakRSS()
	var h heapWatch
	_ = h.sample()
	r.PeakHeapBytes, r.PeakGoBytes = h.peak, h.goPeak
	return r
}

// benchBase is the event time of the first event: 2026-01-01 00:00:00.
const benchBase = 1767225600000

// benchQuery runs one query in a fresh database.
func benchQuery(o benchOpts) (benchResult, error) {
	q, ok := nexmark.QueryByName(o.query)
	if !ok {
		return benchResult{}, fmt.Errorf("unknown query %q (q0 ... q22, or gen)", o.query)
	}
	dir := o.dataDir
	if dir == "" {
		d, err := os.MkdirTemp("", "weir-bench-")
		if err != nil {
			return benchResult{}, err
		}
		defer os.RemoveAll(d)
		dir = d
	} else {
		dir = dir + "/" + q.Name
		if err := os.RemoveAll(dir); err != nil {
			return benchResult{}, err
		}
	}
	e, err := engine.Open(engine.Config{DataDir: dir, MemoryBudgetBytes: o.budgetMB << 20})
	if err != nil {
		return benchResult{}, err
	}
	defer e.Close()
	ctx := context.Background()
	ws, err := e.NewSession(ctx, wire.StartupParams{User: "root", Database: "dev"})
	if err != nil {
		return benchResult{}, err
	}
	defer ws.Close()
	exec := func(sql string) error { return benchExec(ctx, ws, sql) }
	if err := exec(fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", o.interval.Milliseconds())); err != nil {
		return benchResult{}, err
	}
	if err := exec(fmt.Sprintf("SET streaming_parallelism = %d", o.par)); err != nil {
		return benchResult{}, err
	}
	for _, st := range q.Setup {
		if err := exec(st); err != nil {
			return benchResult{}, err
		}
	}
	src := nexmark.SourceOptions{Events: o.events, Splits: o.splits, BaseMillis: benchBase, Watermark: true}
	var expect int64
	for _, k := range q.Tables {
		if err := exec(nexmark.DDL(k, src)); err != nil {
			return benchResult{}, err
		}
		expect += nexmark.CountBefore(k, o.events)
	}
	aligned := o.delivery == "exactly-once"
	sink := fmt.Sprintf("CREATE SINK %s AS %s WITH (connector = 'blackhole', type = 'append-only', force_append_only = 'true', streaming.barrier_alignment = '%t')",
		q.Name, q.SQL, aligned)
	sink0, ck0 := engine.BlackholeRows(), len(e.CheckpointDurations())
	c0, t0 := cpuTime(), time.Now()
	if err := exec(sink); err != nil {
		return benchResult{}, err
	}
	bar := newProgress(q.Name, expect, !o.noProgress && !o.jsonOut)
	heap := &heapWatch{profile: o.memProfile, state: e.StateCacheBytes, pebble: e.PebbleMemory}
	events := o.events
	for {
		st := e.GeneratorStats()
		bar.show(st.Rows)
		if err := heap.sample(); err != nil {
			return benchResult{}, err
		}
		if st.Readers > 0 && st.Exhausted == st.Readers {
			break
		}
		if o.maxWall > 0 && time.Since(t0) >= o.maxWall {
			// Stopped early: the events are the generated rows' share of
			// the stream (rows still queued count as processed).
			events = int64(float64(o.events) * float64(st.Rows) / float64(expect))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The last batches read may still wait in the sources' queues; the
	// sink's count settles once a checkpoint finds nothing more.
	last := int64(-1)
	for i := 0; i < 20 && events == o.events; i++ {
		if err := exec("FLUSH"); err != nil {
			return benchResult{}, err
		}
		n := engine.BlackholeRows()
		if n == last {
			break
		}
		last = n
		if err := heap.sample(); err != nil {
			return benchResult{}, err
		}
	}
	r := benchResult{Query: q.Name, Events: events, Wall: time.Since(t0), CPU: cpuTime() - c0, PeakRSSBytes: peakRSS(),
		SinkRows: engine.BlackholeRows() - sink0}
	if err := heap.sample(); err != nil {
		return benchResult{}, err
	}
	r.PeakHeapBytes, r.PeakStateBytes, r.PeakGoBytes, r.PeakPebbleBytes = heap.peak, heap.statePeak, heap.goPeak, heap.pebblePeak
	if o.memProfile != "" {
		if err := writeHeapProfile(o.memProfile + ".end"); err != nil {
			return benchResult{}, err
		}
	}
	bar.done()
	if ds := e.CheckpointDurations(); len(ds) > ck0 {
		r.Checkpoints = ds[ck0:]
	}
	return r, nil
}

// heapWatch follows the live Go heap during a run and, given a file,
// writes a heap profile to it whenever the live heap passes its highest
// so far by a sixteenth: the profile left is that of (nearly) the peak.
type heapWatch struct {
	profile string
	peak    int64
	written int64
	buf     [3]metrics.Sample
	goPeak  int64
	// state, if set, reads the state cache's bytes, every tenth sample.
	state     func() int64
	statePeak int64
	// pebble, if set, reads Pebble's memory, every tenth sample.
	pebble     func() int64
	pebblePeak int64
	n          int
}

// sample reads the live heap and writes the profile at a new peak.
func (h *heapWatch) sample() error {
	if h.state != nil && h.n%10 == 0 {
		h.statePeak = max(h.statePeak, h.state())
	}
	if h.pebble != nil && h.n%10 == 0 {
		h.pebblePeak = max(h.pebblePeak, h.pebble())
	}
	h.n++
	h.buf[0].Name = "/gc/heap/live:bytes"
	h.buf[1].Name = "/memory/classes/total:bytes"
	h.buf[2].Name = "/memory/classes/heap/released:bytes"
	metrics.Read(h.buf[:])
	for _, b := range h.buf {
		if b.Value.Kind() != metrics.KindUint64 {
			return nil
		}
	}
	h.goPeak = max(h.goPeak, int64(h.buf[1].Value.Uint64()-h.buf[2].Value.Uint64()))
	live := int64(h.buf[0].Value.Uint64())
	h.peak = max(h.peak, live)
	if h.profile == "" || live <= h.written+h.written/16 {
		return nil
	}
	h.written = live
	return writeHeapProfile(h.profile)
}

// writeHeapProfile writes the heap profile (as of the last garbage
// collection) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchExec runs one statement and drains its result.
func benchExec(ctx context.Context, s wire.Session, sql string) error {
	p, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	res, err := p.Execute(ctx, nil, discardIO{})
	if err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	defer res.Close()
	for {
		row, err := res.Next(ctx)
		if err != nil {
			return err
		}
		if row == nil {
			return nil
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// discardIO is the wire.ExecIO of the benchmark's statements.
type discardIO struct{}

func (discardIO) Notice(string, string, string) {}
func (discardIO) CopyIn(int16, int) (io.Reader, error) {
	return nil, errors.New("no COPY in benchmarks")
}
func (discardIO) CopyOut(int16, int) (io.Writer, error) {
	return nil, errors.New("no COPY in benchmarks")
}
func (discardIO) ParameterStatus(string, string) {}

// progress draws a progress bar on stderr when it is a terminal.
type progress struct {
	name   string
	total  int64
	on     bool
	start  time.Time
	shown  time.Time
	drawn  bool
	output io.Writer
}

func newProgress(name string, total int64, want bool) *progress {
	p := &progress{name: name, total: total, start: time.Now(), output: os.Stderr}
	if fi, err := os.Stderr.Stat(); err == nil && want && fi.Mode()&os.ModeCharDevice != 0 {
		p.on = true
	}
	return p
}

func (p *progress) show(rows int64) {
	if !p.on || time.Since(p.shown) < 200*time.Millisecond || p.total <= 0 {
		return
	}
	p.shown = time.Now()
	frac := min(float64(rows)/float64(p.total), 1)
	const width = 30
	n := int(frac * width)
	fmt.Fprintf(p.output, "\r%-4s [%s%s] %3.0f%% %d/%d rows generated, %.1fs", p.name,
		strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100, rows, p.total, time.Since(p.start).Seconds())
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.output, "\r\033[K")
	}
}
