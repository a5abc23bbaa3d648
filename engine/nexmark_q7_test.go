package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/connector/nexmark"
)

// TestNexmarkQ7DropsBelowMax runs Nexmark q7 over a generator of one
// split, where the join drops the bids below their window's highest
// price seen so far (planner/stream_maxprune.go), and compares the view
// with the batch query over tables holding the same events.
func TestNexmarkQ7DropsBelowMax(t *testing.T) {
	const events = 20000
	opts := nexmark.SourceOptions{Events: events, Splits: 1, BaseMillis: nexmarkBase, EventRate: 700, Watermark: true}
	stream, ss, bs := nexmarkPair(t, opts, 0)
	var q7 string
	for _, q := range nexmark.Queries() {
		if q.Name == "q7" {
			q7 = q.SQL
		}
	}
	plan := strings.Join(mustRun(t, ss, "EXPLAIN CREATE MATERIALIZED VIEW q7 AS "+q7), "\n")
	if !strings.Contains(plan, "max_prune: [price below max per tumble(date_time, 00:00:10)]") {
		t.Fatalf("q7's join does not drop the bids below the maximum:\n%s", plan)
	}
	// Two readers of a source of two splits may drop different late
	// rows (they interleave the splits each their own way): no dropping.
	two := opts
	two.Splits = 2
	mustRun(t, ss, strings.Replace(nexmark.DDL(nexmark.Bid, two), "CREATE SOURCE bid ", "CREATE SOURCE bid2 ", 1))
	q7two := strings.ReplaceAll(strings.ReplaceAll(q7, "FROM bid B", "FROM bid2 B"), "TUMBLE(bid,", "TUMBLE(bid2,")
	if plan := strings.Join(mustRun(t, ss, "EXPLAIN CREATE MATERIALIZED VIEW q7two AS "+q7two), "\n"); strings.Contains(plan, "max_prune") ||
		!strings.Contains(plan, "bid2") {
		t.Fatalf("q7 over a source of two splits:\n%s", plan)
	}
	mustRun(t, ss, "CREATE MATERIALIZED VIEW q7 AS "+q7)
	waitRows(t, bs, "SELECT count(*) FROM bid", fmt.Sprint(nexmark.CountBefore(nexmark.Bid, events)))
	for range 3000 {
		if st := stream.GeneratorStats(); st.Exhausted == st.Readers {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := sortedRows(t, bs, "SELECT * FROM ("+q7+") AS q")
	var got []string
	for range 20 {
		mustRun(t, ss, "FLUSH")
		if got = sortedRows(t, ss, "SELECT * FROM q7"); slices.Equal(got, want) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the view has %d rows, the batch query %d; first differences:\n%s", len(got), len(want), diffRows(got, want))
	}
	if len(want) == 0 {
		t.Fatal("no rows: the test compares nothing")
	}
	t.Logf("%d rows", len(want))
}
