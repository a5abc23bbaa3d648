package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/connector/nexmark"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// nexmarkBase is the base time of the test sources: 2026-01-01 00:00:00.
const nexmarkBase = 1767225600000

// waitRows runs FLUSH and query until query returns want, failing after
// many rounds (the sources generate in the background).
func waitRows(t *testing.T, s wire.Session, query string, want ...string) {
	t.Helper()
	var got []string
	for range 600 {
		mustRun(t, s, "FLUSH")
		if got = mustRun(t, s, query); fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s:\ngot  %q\nwant %q", query, got, want)
}

// bidTotals computes, from the generator itself, the count and sum of
// prices of the bids among the first n events.
func bidTotals(n int64) (count, sum int64) {
	g := nexmark.NewGenerator(nexmark.Clock{BaseMillis: nexmarkBase})
	for e := range n {
		if nexmark.KindOf(e) == nexmark.Bid {
			count++
			sum += g.Bid(e).Price
		}
	}
	return count, sum
}

func bidSource(name string, events int, gapNs int, extra string) string {
	return fmt.Sprintf(`CREATE SOURCE %s (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
		date_time TIMESTAMP, extra VARCHAR%s) WITH (connector = 'nexmark', nexmark.table.type = 'Bid',
		nexmark.event.num = '%d', nexmark.min.event.gap.in.ns = '%d', nexmark.split.num = '3',
		nexmark.base.time = '%d')`, name, extra, events, gapNs, nexmarkBase)
}

// TestNexmarkSourceView: a view over a Nexmark Bid source holds exactly
// the generated bids, a blackhole sink takes them all, and a second view
// reads the same events.
func TestNexmarkSourceView(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, bidSource("bid", 10000, 0, ""))
	mustRun(t, s, "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(price) AS p, min(date_time) AS lo, max(date_time) AS hi FROM bid")
	before := BlackholeRows()
	mustRun(t, s, "CREATE SINK q0 AS SELECT auction, bidder, price, date_time FROM bid WITH (connector = 'blackhole', type = 'append-only')")
	n, sum := bidTotals(10000)
	if n != nexmark.CountBefore(nexmark.Bid, 10000) {
		t.Fatalf("%d bids among 10000 events", n)
	}
	// Event 4 is the first bid, event 9999 the last: 0.4 ms and 999.9 ms
	// after the base time, at 10,000 events per second.
	waitRows(t, s, "SELECT * FROM totals", fmt.Sprintf("%d %d 2026-01-01 00:00:00 2026-01-01 00:00:01", n, sum))
	for range 600 {
		if BlackholeRows()-before >= n {
			break
		}
		mustRun(t, s, "FLUSH")
		time.Sleep(50 * time.Millisecond)
	}
	if got := BlackholeRows() - before; got != n {
		t.Fatalf("the blackhole sink took %d rows, want %d", got, n)
	}
	if st := e.GeneratorStats(); st.Readers != 2 || st.Exhausted != 2 {
		t.Fatalf("generator readers: %v", st)
	}
}

// TestNexmarkSourceRecovers crashes the database while a paced source
// is being read: after recovery the view counts every bid exactly once.
func TestNexmarkSourceRecovers(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "ALTER SYSTEM SET barrier_interval_ms = 50")
	// 20,000 events at one per 20 µs: about 0.4 s of generation.
	mustRun(t, s, bidSource("bid", 20000, 20000, ""))
	mustRun(t, s, "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(price) AS p FROM bid")
	mustRun(t, s, "FLUSH")
	mid := mustRun(t, s, "SELECT n FROM totals")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	n, sum := bidTotals(20000)
	waitRows(t, s, "SELECT * FROM totals", fmt.Sprintf("%d %d", n, sum))
	t.Logf("crashed with %v bids counted", mid)
}

// TestNexmarkWatermarkWindows: a watermark on a Nexmark source closes
// tumbling windows of an EMIT ON WINDOW CLOSE view; every closed window
// holds the count of its bids.
func TestNexmarkWatermarkWindows(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	// 100,000 events at 10,000 per second of event time span 10 s.
	mustRun(t, s, bidSource("bid", 100000, 0, ", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND"))
	mustRun(t, s, `CREATE MATERIALIZED VIEW w AS SELECT window_start, count(*) AS n
		FROM TUMBLE(bid, date_time, INTERVAL '2' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE`)
	counts := map[int64]int64{}
	g := nexmark.Clock{BaseMillis: nexmarkBase}
	var last int64
	for ev := range int64(100000) {
		if nexmark.KindOf(ev) == nexmark.Bid {
			ms := g.Millis(ev)
			counts[(ms-nexmarkBase)/2000]++
			last = ms
		}
	}
	// The watermark ends at the last bid's time minus 4 s: windows ending
	// at or before it are closed.
	var want []string
	for w := int64(0); nexmarkBase+(w+1)*2000 <= last-4000; w++ {
		want = append(want, fmt.Sprintf("%s %d", types.FormatTimestamp((nexmarkBase+w*2000)*1000), counts[w]))
	}
	if len(want) != 3 {
		t.Fatalf("want %v: the test expects three closed windows", want)
	}
	waitRows(t, s, "SELECT * FROM w ORDER BY window_start", want...)
}

// TestDatagenTable: a datagen table's sequence ends the stream, its
// random column stays within its bounds, and every row arrives once.
func TestDatagenTable(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, `CREATE TABLE d (id int, v int, name varchar) WITH (connector = 'datagen',
		fields.id.kind = 'sequence', fields.id.start = '1', fields.id.end = '500',
		fields.v.kind = 'random', fields.v.min = '0', fields.v.max = '9', fields.v.seed = '3',
		fields.name.length = '4', datagen.rows.per.second = '1000000', datagen.split.num = '2')`)
	waitRows(t, s, "SELECT count(*), sum(id), count(DISTINCT id), min(v) >= 0 AND max(v) <= 9, min(length(name)) FROM d",
		"500 125250 500 t 4")
}

func TestGeneratorErrors(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	for _, c := range []struct{ sql, code string }{
		{"CREATE SOURCE a (id BIGINT) WITH (connector = 'nexmark')", "0A000"},
		{"CREATE SOURCE a (id BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'Order')", "22023"},
		{"CREATE SOURCE a (idd BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'Person')", "42703"},
		{"CREATE SOURCE a (name BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'Person')", "42804"},
		{"CREATE SOURCE a (id BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'Person', nexmark.split.num = '0')", "22023"},
		{"CREATE SOURCE a (id BIGINT) WITH (connector = 'nexmark', nexmark.table.type = 'Person', topic = 't')", "22023"},
		{"CREATE SOURCE a (id INT) WITH (connector = 'datagen', fields.id.kind = 'spiral')", "22023"},
		{"CREATE SOURCE a (id INT) WITH (connector = 'datagen', fields.idx.kind = 'random')", "22023"},
		{"CREATE SOURCE a (id INT) WITH (connector = 'datagen', fields.id.start = '1', fields.id.end = '9999999999')", "22023"},
	} {
		_, err := run(t, s, c.sql)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || string(pe.Code) != c.code {
			t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.code)
		}
	}
	mustRun(t, s, "CREATE SOURCE p (id BIGINT, state VARCHAR) WITH (connector = 'nexmark', nexmark.table.type = 'person')")
	if rows := mustRun(t, s, "SHOW CREATE SOURCE p"); !strings.Contains(fmt.Sprint(rows), "nexmark") {
		t.Errorf("SHOW CREATE SOURCE: %v", rows)
	}
}

// TestJoinOfSourceAggregation: an aggregation read straight from a
// source runs on the source's one actor, so a join consuming it must
// repartition it by the join key; before, the plan claimed the
// aggregation's output was hash-partitioned already, and the join actors
// other than the first never saw it.
func TestJoinOfSourceAggregation(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, `CREATE SOURCE p (id bigint) WITH (connector = 'datagen', fields.id.start = '1', fields.id.end = '600', datagen.rows.per.second = '0')`)
	mustRun(t, s, `CREATE SOURCE a (n bigint, seller bigint) WITH (connector = 'datagen', fields.n.start = '1', fields.n.end = '1800',
		fields.seller.kind = 'random', fields.seller.min = '1', fields.seller.max = '900', datagen.rows.per.second = '0')`)
	mustRun(t, s, "SET streaming_parallelism = 2")
	mustRun(t, s, `CREATE MATERIALIZED VIEW j AS SELECT P.id FROM p P JOIN (SELECT seller FROM a GROUP BY seller) A ON P.id = A.seller`)
	mustRun(t, s, `CREATE MATERIALIZED VIEW k AS SELECT count(DISTINCT seller) AS n FROM a WHERE seller <= 600`)
	// Once every generator is exhausted, the join holds one row per
	// distinct seller up to 600, as k counts them: both read after one
	// FLUSH, until they agree (k and j may each still be catching up on
	// the last generated rows).
	var got, want []string
	for range 600 {
		st := e.GeneratorStats()
		mustRun(t, s, "FLUSH")
		want = mustRun(t, s, "SELECT n FROM k")
		got = mustRun(t, s, "SELECT count(*) FROM j")
		if st.Exhausted == st.Readers && len(want) == 1 && want[0] != "0" && fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("SELECT count(*) FROM j:\ngot  %q\nwant %q (SELECT n FROM k)", got, want)
}

// TestBlackholeSinkFormats: a blackhole sink of a query that updates
// rows needs FORMAT UPSERT or force_append_only, as every sink does,
// but no ENCODE, since it writes nothing.
func TestBlackholeSinkFormats(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW c AS SELECT v, count(*) AS n FROM t GROUP BY v")
	if _, err := run(t, s, "CREATE SINK plain_c FROM c WITH (connector = 'blackhole')"); err == nil || !strings.Contains(err.Error(), "FORMAT PLAIN cannot write") {
		t.Fatalf("a plain blackhole sink of an updating view: %v", err)
	}
	if _, err := run(t, s, "CREATE SINK keyless AS SELECT n FROM c WITH (connector = 'blackhole') FORMAT UPSERT"); err == nil || !strings.Contains(err.Error(), "an UPSERT sink needs a primary key") {
		t.Fatalf("an upsert blackhole sink without a key: %v", err)
	}
	mustRun(t, s, "CREATE SINK upsert_c FROM c WITH (connector = 'blackhole') FORMAT UPSERT")
	mustRun(t, s, "CREATE SINK append_c FROM c WITH (connector = 'blackhole', force_append_only = 'true')")
	before := BlackholeRows()
	mustRun(t, s, "INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
	mustRun(t, s, "FLUSH")
	for range 600 {
		if BlackholeRows()-before >= 4 {
			break
		}
		mustRun(t, s, "FLUSH")
		time.Sleep(50 * time.Millisecond)
	}
	if got := BlackholeRows() - before; got < 4 {
		t.Fatalf("the blackhole sinks took %d rows, want at least 4", got)
	}
}

// TestBlackholeSinkCounts checks that weir.sinks counts what a blackhole
// sink takes as it does a Kafka sink's: the records its format would
// write (an update is one, a FORMAT PLAIN sink writes inserts alone) as
// records written, and each checkpoint that wrote some as a committed
// transaction.
func TestBlackholeSinkCounts(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE SINK bh FROM t WITH (connector = 'blackhole') FORMAT UPSERT")
	mustRun(t, s, "CREATE SINK bp FROM t WITH (connector = 'blackhole', force_append_only = 'true')")
	const q = "SELECT name, records_written, transactions_committed > 0 FROM weir.sinks WHERE name IN ('bh', 'bp') ORDER BY name"
	mustRun(t, s, "INSERT INTO t SELECT g, g FROM generate_series(1, 5) g")
	waitRows(t, s, q, "bh 5 t", "bp 5 t")
	mustRun(t, s, "UPDATE t SET v = 0 WHERE id <= 2")
	mustRun(t, s, "DELETE FROM t WHERE id = 5")
	waitRows(t, s, q, "bh 8 t", "bp 7 t")
}

// TestGeneratorSourcePartitions: weir.source_partitions shows a
// generator's splits as a Kafka source's partitions, with the index of
// the split's next event (or row) as the position and the rows the
// reader generated as records. Split s of n reads the events (rows) of
// index s, s+n, s+2n, ... of the source's kind; the expected figures are
// computed from that and from the generator's event numbering.
func TestGeneratorSourcePartitions(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, bidSource("bid", 10000, 0, ""))
	mustRun(t, s, "CREATE MATERIALIZED VIEW bids AS SELECT count(*) AS n FROM bid")
	mustRun(t, s, `CREATE TABLE d (id int) WITH (connector = 'datagen', fields.id.kind = 'sequence',
		fields.id.start = '1', fields.id.end = '10', datagen.rows.per.second = '0', datagen.split.num = '2')`)
	bids, _ := bidTotals(10000)
	waitRows(t, s, "SELECT n FROM bids", fmt.Sprint(bids))
	waitRows(t, s, "SELECT count(*) FROM d", "10")

	// want lists, per split of n, "partition position committed_position
	// high_watermark lag records bytes" once the generator is exhausted
	// at count rows and committed.
	want := func(count int64, n int) []string {
		var rows []string
		for s := range int64(n) {
			records := (count - s + int64(n) - 1) / int64(n)
			next := s + records*int64(n)
			rows = append(rows, fmt.Sprintf("%d %d %d NULL NULL %d 0", s, next, next, records))
		}
		return rows
	}
	const cols = `"partition", position, committed_position, high_watermark, lag, records, bytes`
	waitRows(t, s, "SELECT "+cols+" FROM weir.source_partitions WHERE source = 'bid' AND job = 'bids' ORDER BY 1", want(bids, 3)...)
	waitRows(t, s, "SELECT "+cols+" FROM weir.source_partitions WHERE source = 'd' AND job = 'd' ORDER BY 1", want(10, 2)...)
	wantRows(t, s, "SELECT name, partitions, lag FROM weir.sources ORDER BY name", "bid 3 NULL", "d 2 NULL")
}
