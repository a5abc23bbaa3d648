package oracle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// The event-time oracle streams rows with advancing, out-of-order event
// times into an APPEND ONLY table with a watermark, and checks after
// every statement that each windowed view on weir equals the same query
// written with plain arithmetic (date_bin, generate_series for the
// windows of a hop) run by PostgreSQL over the rows weir accepted; for
// EMIT ON WINDOW CLOSE views, over the windows the watermark closed.
// The test computes which rows are late by the documented rule (a
// statement's rows behind the watermark as it starts are dropped; the
// watermark is the largest accepted time minus the delay) and checks
// weir's table and watermark against it. weir is SIGKILLed and restarted
// twice per seed.

// etLagSeconds is the watermark delay of the oracle's tables.
const etLagSeconds = 10

// etSchema is created on weir; PostgreSQL gets the same tables without
// the watermark clause.
var etSchema = []string{
	"CREATE TABLE ev (id int, k int, v int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '10 seconds') APPEND ONLY",
	"CREATE TABLE pay (id int, k int, v int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '10 seconds') APPEND ONLY",
}

// etTables are the oracle's tables, in etSchema's order.
var etTables = []string{"ev", "pay"}

// etView is a view on weir and the PostgreSQL query it must equal.
// The PostgreSQL query may use $W, ev's watermark as a timestamp
// literal, and $JW, the watermark on e.ts of the interval joins below:
// min(ev's watermark, pay's watermark - 20 seconds). Before a table has
// a watermark, they are a time before every row.
type etView struct {
	name, weir, postgres string
}

var etViews = []etView{
	{
		"tumble_closed",
		`SELECT window_start, window_end, k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi
		 FROM TUMBLE(ev, ts, INTERVAL '1 minute') GROUP BY window_start, window_end, k EMIT ON WINDOW CLOSE`,
		`SELECT date_bin('1 minute', ts, TIMESTAMP '1970-01-01') AS ws, date_bin('1 minute', ts, TIMESTAMP '1970-01-01') + INTERVAL '1 minute', k, count(*), sum(v), min(v), max(v)
		 FROM ev GROUP BY 1, 2, 3 HAVING date_bin('1 minute', ts, TIMESTAMP '1970-01-01') + INTERVAL '1 minute' <= $W`,
	},
	{
		"hop_closed",
		`SELECT window_start, count(*) AS n, sum(v) AS s, count(DISTINCT k) AS keys
		 FROM HOP(ev, ts, INTERVAL '20 seconds', INTERVAL '1 minute') GROUP BY window_start EMIT ON WINDOW CLOSE`,
		`SELECT ws, count(*), sum(v), count(DISTINCT k)
		 FROM ev, LATERAL (SELECT date_bin('20 seconds', ev.ts, TIMESTAMP '1970-01-01') - g * INTERVAL '20 seconds' AS ws FROM generate_series(0, 2) g) h
		 GROUP BY ws HAVING ws + INTERVAL '1 minute' <= $W`,
	},
	{
		"binned_closed",
		`SELECT date_bin(INTERVAL '15 seconds', ts, TIMESTAMP '1970-01-01') AS b, count(*) AS n, max(v) AS hi
		 FROM ev GROUP BY 1 EMIT ON WINDOW CLOSE`,
		`SELECT date_bin('15 seconds', ts, TIMESTAMP '1970-01-01'), count(*), max(v)
		 FROM ev GROUP BY 1 HAVING date_bin('15 seconds', ts, TIMESTAMP '1970-01-01') + INTERVAL '15 seconds' <= $W`,
	},
	{
		// A view over an EMIT ON WINDOW CLOSE view counts each window
		// once: it sees the windows' appends, never one twice.
		"closed_total",
		`SELECT count(*) AS windows, sum(n) AS n FROM tumble_closed`,
		`SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM ev GROUP BY date_bin('1 minute', ts, TIMESTAMP '1970-01-01'), k
		 HAVING date_bin('1 minute', ts, TIMESTAMP '1970-01-01') + INTERVAL '1 minute' <= $W) x`,
	},
	{
		// A view passing ts through keeps ev's watermark on it ...
		"ev_pos",
		`SELECT id, k, v, ts FROM ev WHERE v % 3 <> 0`,
		`SELECT id, k, v, ts FROM ev WHERE v % 3 <> 0`,
	},
	{
		// ... so a view over it emits on window close: the watermark
		// crosses the view, and the windows it closed are final.
		"pos_closed",
		`SELECT window_start, k, count(*) AS n, sum(v) AS s FROM TUMBLE(ev_pos, ts, INTERVAL '30 seconds')
		 GROUP BY window_start, k EMIT ON WINDOW CLOSE`,
		`SELECT date_bin('30 seconds', ts, TIMESTAMP '1970-01-01'), k, count(*), sum(v) FROM ev WHERE v % 3 <> 0
		 GROUP BY 1, 2 HAVING date_bin('30 seconds', ts, TIMESTAMP '1970-01-01') + INTERVAL '30 seconds' <= $W`,
	},
	{
		// An over window in EOWC mode emits each row once its time is
		// behind the watermark; looking back only, that is every row
		// with ts < W.
		"over_closed",
		`SELECT id, k, ts, v,
		   row_number() OVER (PARTITION BY k ORDER BY ts, id) AS rn,
		   rank() OVER (PARTITION BY k ORDER BY ts) AS rk,
		   lag(v, 2, -1) OVER (PARTITION BY k ORDER BY ts, id) AS back2,
		   sum(v) OVER (PARTITION BY k ORDER BY ts, id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS s4,
		   max(v) OVER (PARTITION BY k ORDER BY ts) AS hi
		 FROM ev EMIT ON WINDOW CLOSE`,
		`SELECT * FROM (SELECT id, k, ts, v,
		   row_number() OVER (PARTITION BY k ORDER BY ts, id),
		   rank() OVER (PARTITION BY k ORDER BY ts),
		   lag(v, 2, -1) OVER (PARTITION BY k ORDER BY ts, id),
		   sum(v) OVER (PARTITION BY k ORDER BY ts, id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
		   max(v) OVER (PARTITION BY k ORDER BY ts)
		 FROM ev) x WHERE ts < $W`,
	},
	{
		// lead() waits for the next row of the partition to be final.
		"over_lead",
		`SELECT id, k, ts, lead(v) OVER (PARTITION BY k ORDER BY ts, id) AS next_v FROM ev EMIT ON WINDOW CLOSE`,
		`SELECT id, k, ts, nv FROM (SELECT id, k, ts, lead(v) OVER w AS nv, lead(ts) OVER w AS nts
		 FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts, id)) x WHERE ts < $W AND nts < $W`,
	},
	{
		// RANGE frames over event time reach back by time: looking back
		// only, every row with ts < W is out.
		"over_range_back",
		`SELECT id, k, ts, v,
		   sum(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '30 seconds' PRECEDING AND CURRENT ROW) AS s30,
		   count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS peers,
		   max(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND INTERVAL '5 seconds' PRECEDING) AS hi
		 FROM ev EMIT ON WINDOW CLOSE`,
		`SELECT * FROM (SELECT id, k, ts, v,
		   sum(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '30 seconds' PRECEDING AND CURRENT ROW),
		   count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN CURRENT ROW AND CURRENT ROW),
		   max(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND INTERVAL '5 seconds' PRECEDING)
		 FROM ev) x WHERE ts < $W`,
	},
	{
		// Frames reaching ahead: two windows, two over windows stacked,
		// each emitting its rows once the watermark has passed them by its
		// reach (20 and 15 seconds) and passing on the watermark delayed by
		// it, so a row is out once the watermark has passed it by 35.
		"over_range_ahead",
		`SELECT id, k, ts,
		   count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10 seconds' PRECEDING AND INTERVAL '20 seconds' FOLLOWING) AS n,
		   sum(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1 second' FOLLOWING AND INTERVAL '15 seconds' FOLLOWING) AS later
		 FROM ev EMIT ON WINDOW CLOSE`,
		`SELECT * FROM (SELECT id, k, ts,
		   count(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10 seconds' PRECEDING AND INTERVAL '20 seconds' FOLLOWING),
		   sum(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1 second' FOLLOWING AND INTERVAL '15 seconds' FOLLOWING)
		 FROM ev) x WHERE ts + INTERVAL '35 seconds' < $W`,
	},
	{
		// Interval joins: their state is cleaned as both watermarks
		// pass, and they still find every matching pair.
		"paid",
		`SELECT e.id AS eid, p.id AS pid, e.k, p.v FROM ev e JOIN pay p
		 ON p.k = e.k AND p.ts BETWEEN e.ts AND e.ts + INTERVAL '20 seconds'`,
		`SELECT e.id, p.id, e.k, p.v FROM ev e JOIN pay p
		 ON p.k = e.k AND p.ts BETWEEN e.ts AND e.ts + INTERVAL '20 seconds'`,
	},
	{
		"paid_left",
		`SELECT e.id AS eid, p.id AS pid FROM ev e LEFT JOIN pay p
		 ON p.k = e.k AND p.ts BETWEEN e.ts - INTERVAL '5 seconds' AND e.ts + INTERVAL '15 seconds'`,
		`SELECT e.id, p.id FROM ev e LEFT JOIN pay p
		 ON p.k = e.k AND p.ts BETWEEN e.ts - INTERVAL '5 seconds' AND e.ts + INTERVAL '15 seconds'`,
	},
	{
		// A window over an interval join closes when the join's output
		// watermark passes it.
		"paid_closed",
		`SELECT date_bin(INTERVAL '30 seconds', e.ts, TIMESTAMP '1970-01-01') AS w, count(*) AS n, sum(p.v) AS s
		 FROM ev e JOIN pay p ON p.k = e.k AND p.ts BETWEEN e.ts AND e.ts + INTERVAL '20 seconds'
		 GROUP BY 1 EMIT ON WINDOW CLOSE`,
		`SELECT date_bin('30 seconds', e.ts, TIMESTAMP '1970-01-01'), count(*), sum(p.v)
		 FROM ev e JOIN pay p ON p.k = e.k AND p.ts BETWEEN e.ts AND e.ts + INTERVAL '20 seconds'
		 GROUP BY 1 HAVING date_bin('30 seconds', e.ts, TIMESTAMP '1970-01-01') + INTERVAL '30 seconds' <= $JW`,
	},
	{
		// Nexmark q5 (RisingWave's text, over ev): the keys with the most
		// rows per hop window, two windowed aggregations joined on the
		// window start, whose state the watermark cleans.
		"nexmark_q5",
		`SELECT AuctionBids.k, AuctionBids.num, AuctionBids.starttime FROM (
		   SELECT k, count(*) AS num, window_start AS starttime
		   FROM HOP(ev, ts, INTERVAL '20 seconds', INTERVAL '1 minute') GROUP BY k, window_start) AS AuctionBids
		 JOIN (
		   SELECT max(CountBids.num) AS maxn, CountBids.starttime_c FROM (
		     SELECT count(*) AS num, window_start AS starttime_c
		     FROM HOP(ev, ts, INTERVAL '20 seconds', INTERVAL '1 minute') GROUP BY k, window_start) AS CountBids
		   GROUP BY CountBids.starttime_c) AS MaxBids
		 ON AuctionBids.starttime = MaxBids.starttime_c AND AuctionBids.num >= MaxBids.maxn`,
		`WITH h AS (SELECT ev.k, date_bin('20 seconds', ev.ts, TIMESTAMP '1970-01-01') - g * INTERVAL '20 seconds' AS ws
		   FROM ev, generate_series(0, 2) g),
		 c AS (SELECT k, ws, count(*) AS num FROM h GROUP BY k, ws)
		 SELECT c.k, c.num, c.ws FROM c JOIN (SELECT ws, max(num) AS maxn FROM c GROUP BY ws) m
		 ON c.ws = m.ws AND c.num >= m.maxn`,
	},
	{
		// Nexmark q7: the rows holding each tumbling window's highest v,
		// an interval join of the rows with the windows' maxima.
		"nexmark_q7",
		`SELECT B.id, B.v, B.k, B.ts FROM ev B
		 JOIN (SELECT max(v) AS maxv, window_end AS ts FROM TUMBLE(ev, ts, INTERVAL '30 seconds') GROUP BY window_end) B1
		 ON B.v = B1.maxv
		 WHERE B.ts BETWEEN B1.ts - INTERVAL '30 seconds' AND B1.ts`,
		`SELECT B.id, B.v, B.k, B.ts FROM ev B
		 JOIN (SELECT max(v) AS maxv, date_bin('30 seconds', ts, TIMESTAMP '1970-01-01') + INTERVAL '30 seconds' AS ts FROM ev GROUP BY 2) B1
		 ON B.v = B1.maxv
		 WHERE B.ts BETWEEN B1.ts - INTERVAL '30 seconds' AND B1.ts`,
	},
	{
		// Nexmark q8: keys seen in both tables in the same tumbling
		// window, a join of two windowed inputs on the window.
		"nexmark_q8",
		`SELECT P.k, P.starttime FROM (
		   SELECT k, window_start AS starttime, window_end AS endtime
		   FROM TUMBLE(ev, ts, INTERVAL '30 seconds') GROUP BY k, window_start, window_end) P
		 JOIN (
		   SELECT k AS seller, window_start AS starttime, window_end AS endtime
		   FROM TUMBLE(pay, ts, INTERVAL '30 seconds') GROUP BY k, window_start, window_end) A
		 ON P.k = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime`,
		`SELECT DISTINCT e.k, date_bin('30 seconds', e.ts, TIMESTAMP '1970-01-01') FROM ev e JOIN pay p
		 ON p.k = e.k AND date_bin('30 seconds', p.ts, TIMESTAMP '1970-01-01') = date_bin('30 seconds', e.ts, TIMESTAMP '1970-01-01')`,
	},
	{
		// Updated at every checkpoint; the state of windows behind the
		// watermark is dropped, their rows stay.
		"tumble_live",
		`SELECT window_start, k, count(*) AS n, sum(v) AS s, max(v) AS hi FROM TUMBLE(ev, ts, INTERVAL '30 seconds') GROUP BY window_start, k`,
		`SELECT date_bin('30 seconds', ts, TIMESTAMP '1970-01-01'), k, count(*), sum(v), max(v) FROM ev GROUP BY 1, 2`,
	},
}

// TestEventTimeOracle runs the fixed seeds and one fresh one.
func TestEventTimeOracle(t *testing.T) {
	seeds := []uint64{1, 2, uint64(time.Now().UnixNano())}
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	}
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	for i, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			db := fmt.Sprintf("eventtime_%d", i)
			pg.RecreateDB(t, db, "root")
			runEventTimeSeed(t, seed, pg.As("root", db))
		})
	}
}

// etClock tracks what weir must accept: the table's watermark (the
// largest accepted event time minus the delay) in seconds from base.
type etClock struct {
	wm  int64 // valid when any
	any bool
}

var etBase = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

func etTime(sec int64) string {
	return etBase.Add(time.Duration(sec) * time.Second).Format("2006-01-02 15:04:05")
}

func runEventTimeSeed(t *testing.T, seed uint64, pgTarget testenv.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	failed := true
	defer func() {
		if failed {
			t.Logf("reproduce with: go test ./tests/oracle/ -run TestEventTimeOracle -seed %d", seed)
		}
	}()
	rng := rand.New(rand.NewPCG(seed, 0xe7e7))
	weir := testenv.Start(t, testenv.Options{})
	w := &side{"weir", connect(t, ctx, weir)}
	p := &side{"postgres", connect(t, ctx, pgTarget)}
	par := []int{1, 2, 3}[rng.IntN(3)]
	t.Logf("seed %d: streaming_parallelism %d", seed, par)
	mustExec(t, ctx, w, fmt.Sprintf("SET streaming_parallelism = %d", par))
	for _, s := range etSchema {
		mustExec(t, ctx, w, s)
		mustExec(t, ctx, p, s[:strings.Index(s, ", WATERMARK")]+")")
	}
	clks := make([]etClock, len(etTables))
	cursor, id, late := int64(0), 0, 0
	insert := func() {
		ti := rng.IntN(len(etTables))
		clk := &clks[ti]
		n := 1 + rng.IntN(5)
		var all, kept []string
		stmtWm, stmtAny := clk.wm, clk.any
		for range n {
			cursor += int64(rng.IntN(7))
			// Mostly a little out of order; now and then far behind.
			sec := cursor - int64(rng.IntN(4))
			if rng.IntN(8) == 0 {
				sec = cursor - int64(rng.IntN(3*etLagSeconds))
			}
			id++
			row := fmt.Sprintf("(%d, %d, %d, '%s')", id, rng.IntN(4), rng.IntN(100), etTime(sec))
			all = append(all, row)
			if stmtAny && sec < stmtWm {
				late++
				continue
			}
			kept = append(kept, row)
			if !clk.any || sec-etLagSeconds > clk.wm {
				clk.wm, clk.any = sec-etLagSeconds, true
			}
		}
		mustExec(t, ctx, w, "INSERT INTO "+etTables[ti]+" VALUES "+strings.Join(all, ", "))
		if len(kept) > 0 {
			mustExec(t, ctx, p, "INSERT INTO "+etTables[ti]+" VALUES "+strings.Join(kept, ", "))
		}
	}
	// Some rows come before the views, which backfill them.
	for range 10 {
		insert()
	}
	for _, v := range etViews {
		mustExec(t, ctx, w, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.weir)
	}
	etCompare(t, ctx, w, p, clks, "after creating the views")
	for i := range 150 {
		insert()
		etCompare(t, ctx, w, p, clks, fmt.Sprintf("after statement %d", i+1))
		if i%50 == 49 {
			// A crash loses nothing acknowledged, and the recovered
			// watermark keeps late rows late and closed windows closed.
			weir.Kill()
			weir.Restart()
			w.conn = connect(t, ctx, weir)
			mustExec(t, ctx, w, fmt.Sprintf("SET streaming_parallelism = %d", par))
			etCompare(t, ctx, w, p, clks, fmt.Sprintf("after a SIGKILL at statement %d", i+1))
		}
	}
	var sizes []string
	for _, v := range etViews {
		rows, err := testenv.TextRows(ctx, w.conn, "SELECT * FROM "+v.name)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fmt.Sprintf("%s %d", v.name, len(rows)))
	}
	t.Logf("%d rows, %d late; view rows: %s", id, late, strings.Join(sizes, ", "))
	// The joins' and windows' state holds what the watermarks have not
	// passed, not the streams: rows within about a minute of event time.
	states, err := testenv.TextRows(ctx, w.conn, "SELECT job || '.' || name, rows FROM weir.state_tables WHERE name NOT IN ('materialize', 'backfill')")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range states {
		name, n, _ := strings.Cut(r, "|")
		if rows, _ := strconv.Atoi(n); rows > 100 {
			t.Errorf("state table %s holds %d rows of %d", name, rows, id)
		}
	}
	t.Logf("state rows: %s", strings.Join(states, ", "))
	failed = t.Failed()
}

// etCompare checks weir's tables, watermarks and views against clks
// (one per table) and PostgreSQL.
func etCompare(t *testing.T, ctx context.Context, w, p *side, clks []etClock, when string) {
	t.Helper()
	var pairs [][2]string
	for i, tbl := range etTables {
		got, err := testenv.TextRows(ctx, w.conn, "SELECT watermark FROM weir.watermarks WHERE name = '"+tbl+"'")
		if err != nil {
			t.Fatalf("%s: weir.watermarks: %v", when, err)
		}
		want := []string{"NULL"}
		if clks[i].any {
			want = []string{etTime(clks[i].wm)}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: watermark of %s %v, want %v", when, tbl, got, want)
		}
		pairs = append(pairs, [2]string{"SELECT * FROM " + tbl, "SELECT * FROM " + tbl})
	}
	lit := func(sec int64, ok bool) string {
		if !ok {
			return "TIMESTAMP '1900-01-01'"
		}
		return "TIMESTAMP '" + etTime(sec) + "'"
	}
	ev, pay := clks[0], clks[1]
	wm := lit(ev.wm, ev.any)
	jw := lit(min(ev.wm, pay.wm-20), ev.any && pay.any)
	for _, v := range etViews {
		q := strings.ReplaceAll(strings.ReplaceAll(v.postgres, "$JW", jw), "$W", wm)
		pairs = append(pairs, [2]string{"SELECT * FROM " + v.name, q})
	}
	for _, q := range pairs {
		got, err := testenv.TextRows(ctx, w.conn, q[0])
		if err != nil {
			t.Fatalf("%s: weir: %s: %v", when, q[0], err)
		}
		want, err := testenv.TextRows(ctx, p.conn, q[1])
		if err != nil {
			t.Fatalf("%s: postgres: %s: %v", when, q[1], err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s differs (watermarks %s, %s)\nweir:     %v\npostgres: %v", when, q[0], wm, jw, got, want)
		}
	}
}
