package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/connector/nexmark"
)

// TestBenchQuery runs q0 through the benchmark harness: the blackhole
// sink receives every bid of the stream, and the run is measured.
func TestBenchQuery(t *testing.T) {
	o := benchOpts{query: "q0", events: 20000, par: 1, splits: 2, interval: 100 * time.Millisecond, delivery: "exactly-once", dataDir: t.TempDir(), noProgress: true}
	r, err := benchQuery(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := nexmark.CountBefore(nexmark.Bid, 20000); r.SinkRows != want {
		t.Fatalf("the sink took %d rows, want %d", r.SinkRows, want)
	}
	if r.Events != 20000 || r.CPU <= 0 || r.Wall <= 0 || r.PeakRSSBytes <= 0 {
		t.Fatalf("result %+v", r)
	}
	g := benchGenerator(20000)
	if g.SinkRows != 20000 || g.Err != "" {
		t.Fatalf("the generator made %d rows (%s), want 20000", g.SinkRows, g.Err)
	}
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	if p := percentile(ds, 50); p != 3 {
		t.Fatalf("p50 = %v", p)
	}
	if p := percentile(ds, 99); p != 4 {
		t.Fatalf("p99 = %v", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Fatalf("p50 of nothing = %v", p)
	}
}

// TestBenchUnknownQuery: a query that does not exist fails before
// anything is printed on stdout, and the error lists the valid names.
func TestBenchUnknownQuery(t *testing.T) {
	var out, errOut strings.Builder
	if rc := benchMain([]string{"nexmark", "--query", "q99", "--events", "1000"}, &out, &errOut); rc != 2 {
		t.Fatalf("exit status %d, want 2", rc)
	}
	if out.Len() != 0 {
		t.Fatalf("stdout %q, want nothing", out.String())
	}
	if e := errOut.String(); !strings.Contains(e, `unknown query "q99"`) || !strings.Contains(e, "gen, q0, q1") || !strings.Contains(e, "q22") {
		t.Fatalf("stderr %q", e)
	}
}

// TestResultTable: the header once, then one line per result, its
// cells under their columns' titles.
func TestResultTable(t *testing.T) {
	var out strings.Builder
	tb := newResultTable(&out, benchOpts{events: 1000, par: 1, splits: 1, interval: time.Second, delivery: "exactly-once"})
	tb.row(benchResult{Query: "q1", Events: 1000, Wall: time.Second, CPU: 2 * time.Second, PeakRSSBytes: 50 << 20, SinkRows: 7})
	tb.row(benchResult{Query: "q2", Err: "boom"})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out.String())
	}
	header, row := lines[1], lines[2]
	if len(header) != len(row) {
		t.Fatalf("the row is %d wide, the header %d:\n%s", len(row), len(header), out.String())
	}
	if i := strings.Index(header, "events/CPU-s") + len("events/CPU-s"); row[i-3:i] != "500" {
		t.Fatalf("events/CPU-s not under its title:\n%s", out.String())
	}
	if !strings.HasSuffix(lines[3], "q2  error: boom") {
		t.Fatalf("error line %q", lines[3])
	}
}

// TestBenchMemoryBudget: --memory-budget sets the Go soft memory limit
// as weir serve's does (the budget plus its fixed overhead), a budget
// of zero is refused, and --memprofile writes the peak's and the end's
// heap profiles.
func TestBenchMemoryBudget(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	var out, errOut strings.Builder
	if rc := benchMain([]string{"nexmark", "--query", "q0", "--memory-budget", "0"}, &out, &errOut); rc != 2 || !strings.Contains(errOut.String(), "--memory-budget") {
		t.Fatalf("exit status %d, stderr %q; want 2 and a word on --memory-budget", rc, errOut.String())
	}
	prof := filepath.Join(t.TempDir(), "heap")
	out.Reset()
	errOut.Reset()
	args := []string{"nexmark", "--query", "q0", "--events", "5000", "--memory-budget", "48", "--memprofile", prof, "--data-dir", t.TempDir(), "--json"}
	if rc := benchMain(args, &out, &errOut); rc != 0 {
		t.Fatalf("exit status %d: %s", rc, errOut.String())
	}
	if got, want := debug.SetMemoryLimit(-1), int64(48<<20+memoryOverhead); got != want {
		t.Fatalf("soft memory limit %d, want %d", got, want)
	}
	var r benchResult
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatal(err)
	}
	if r.PeakHeapBytes <= 0 {
		t.Fatalf("no peak heap in %+v", r)
	}
	for _, p := range []string{prof, prof + ".end"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Fatalf("heap profile %s: %v", p, err)
		}
	}
}
