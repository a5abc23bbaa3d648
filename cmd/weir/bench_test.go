package main

import (
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
