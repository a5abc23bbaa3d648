package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/connector/nexmark"
	"github.com/weirdb/weir/storage"
)

// nexmarkStateful are the Nexmark queries that keep state: joins,
// aggregations, top-N and deduplication.
var nexmarkStateful = []string{"q3", "q4", "q5", "q6", "q7", "q8", "q9", "q15", "q16", "q17", "q18", "q19", "q20"}

// nexmarkEvictBudget is a memory budget far below what the stateful
// queries' state takes over 20,000 events, so that their state tables
// evict clean entries and flush dirty ones early into spill areas. Under
// 1 MiB, the join sides' prefix reads from memory went from 29 to 5,792
// in a few runs; under 4 MiB, from 461 to 1,009.
const nexmarkEvictBudget = 4 << 20

// nexmarkQueriesNamed returns the Nexmark queries of the given names.
func nexmarkQueriesNamed(t *testing.T, names []string) []nexmark.Query {
	t.Helper()
	qs := slices.DeleteFunc(nexmark.Queries(), func(q nexmark.Query) bool { return !slices.Contains(names, q.Name) })
	if len(qs) != len(names) {
		t.Fatalf("%d of the queries %v", len(qs), names)
	}
	return qs
}

// cacheTotals sums the cache statistics of every state table of e.
func cacheTotals(e *Engine) (evictions, spills, prefixHits int64) {
	e.st.cache.RangeStats(func(_ uint32, st *storage.TableCacheStats) {
		evictions += st.Evictions.Load()
		spills += st.Spills.Load()
		prefixHits += st.PrefixHits.Load()
	})
	return evictions, spills, prefixHits
}

// TestNexmarkQueriesEvict is TestNexmarkQueries for the stateful
// queries under a 4 MiB memory budget: their state tables evict clean
// entries, flush dirty ones early into spill areas, and the join sides,
// once they have let rows go, read the join keys none of whose rows
// left from memory alone (StateTable.SetReadPrefix). The views must
// still equal the batch queries.
func TestNexmarkQueriesEvict(t *testing.T) {
	const events, budget = 20000, nexmarkEvictBudget
	opts := nexmark.SourceOptions{Events: events, Splits: 2, BaseMillis: nexmarkBase, EventRate: 700, Watermark: true}
	stream, ss, bs := nexmarkPair(t, opts, budget)
	qs := nexmarkQueriesNamed(t, nexmarkStateful)
	createNexmarkViews(t, ss, bs, qs)
	waitNexmark(t, stream, bs, events)
	compareNexmark(t, ss, bs, qs, events)
	evictions, spills, prefixHits := cacheTotals(stream)
	t.Logf("%d evictions, %d spills, %d prefix reads from memory", evictions, spills, prefixHits)
	if evictions == 0 || spills == 0 {
		t.Errorf("under a %d-byte budget: %d evictions, %d spills; the test evicts or spills nothing", budget, evictions, spills)
	}
	if prefixHits == 0 {
		t.Errorf("no join side read a join key from memory after letting rows go")
	}
	// /metrics tells the same per operator.
	fams, err := stream.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var scraped float64
	for _, f := range fams {
		if f.GetName() == "weir_operator_state_cache_prefix_hits_total" {
			for _, m := range f.GetMetric() {
				scraped += m.GetCounter().GetValue()
			}
		}
	}
	if scraped == 0 || scraped > float64(prefixHits) {
		t.Errorf("weir_operator_state_cache_prefix_hits_total sums to %g, want between 1 and the cache's %d", scraped, prefixHits)
	}
}

// TestNexmarkQueriesEvictRestart is TestNexmarkQueriesEvict under a 1
// MiB budget, with a restart while the sources are being read: the
// database is closed and opened again on the same data directory, under
// the same budget, and the views, recovered from the last checkpoint and
// fed the rest of the events, must equal the batch queries.
func TestNexmarkQueriesEvictRestart(t *testing.T) {
	const events, budget = 40000, 1 << 20
	// One event per 200 µs at least (4 s for a split's): the restart comes
	// while the sources are being read.
	opts := nexmark.SourceOptions{Events: events, Splits: 2, BaseMillis: nexmarkBase, EventRate: 700, MinEventGapNs: 200000, Watermark: true}
	fs := vfs.NewMem()
	stream := openBudget(t, fs, budget)
	ss := session(t, stream)
	mustRun(t, ss, "ALTER SYSTEM SET barrier_interval_ms = 50")
	for _, k := range []nexmark.TableType{nexmark.Person, nexmark.Auction, nexmark.Bid} {
		mustRun(t, ss, nexmark.DDL(k, opts))
	}
	bs := nexmarkBatch(t, opts)
	qs := nexmarkQueriesNamed(t, nexmarkStateful)
	createNexmarkViews(t, ss, bs, qs)
	// Each view's job reads the events of its sources: twice the
	// events in all is a part of what they read.
	for range 1000 {
		if stream.GeneratorStats().Rows >= 2*events {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	gen := stream.GeneratorStats()
	evictions, spills, prefixHits := cacheTotals(stream)
	t.Logf("before the restart: generators %s; %d evictions, %d spills, %d prefix reads from memory", gen, evictions, spills, prefixHits)
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	if gen.Exhausted == gen.Readers {
		// The views may still be behind their sources; how far, the
		// machine's speed decides.
		t.Logf("every event was read before the restart")
	}
	stream = openBudget(t, fs, budget)
	defer stream.Close()
	ss = session(t, stream)
	waitNexmark(t, stream, bs, events)
	compareNexmark(t, ss, bs, qs, events)
	evictions, spills, prefixHits = cacheTotals(stream)
	t.Logf("after the restart: %d evictions, %d spills, %d prefix reads from memory", evictions, spills, prefixHits)
	if evictions == 0 || spills == 0 {
		t.Errorf("under a %d-byte budget after the restart: %d evictions, %d spills", budget, evictions, spills)
	}
}
