package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// sessionQuery groups ev by k and 10-second sessions of ts, with the
// aggregates a session window must keep exact through merges and splits.
const sessionQuery = `SELECT k, SESSION_START(ts, INTERVAL '10' SECOND) AS s, SESSION_END(ts, INTERVAL '10' SECOND) AS e,
	count(*) AS n, sum(v) AS total, min(v) AS lo, max(v) AS hi, avg(v) AS mean
	FROM ev GROUP BY k, SESSION(ts, INTERVAL '10' SECOND)`

// wantSessionView checks that view sv holds what sessionQuery gives as a
// batch query over ev now.
func wantSessionView(t *testing.T, s wire.Session, step string) []string {
	t.Helper()
	mustRun(t, s, "FLUSH")
	want := sortedRows(t, s, "SELECT * FROM ("+sessionQuery+") AS q")
	got := sortedRows(t, s, "SELECT * FROM sv")
	if !slices.Equal(got, want) {
		t.Fatalf("%s: the view has %d rows, the batch query %d:\n%s", step, len(got), len(want), diffRows(got, want))
	}
	return got
}

// TestSessionWindow follows sessions through the changes that move their
// bounds: a new session, an extension, an out-of-order row that joins two
// sessions, a delete that splits one again, an update that moves a row
// to another key, and rows without a time. After each step the view
// must equal the batch query, and the join and the split have the rows
// worked out by hand.
func TestSessionWindow(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int PRIMARY KEY, k int, ts timestamp, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv AS "+sessionQuery)

	mustRun(t, s, `INSERT INTO ev VALUES (1, 1, '2024-01-01 00:00:00', 1), (2, 1, '2024-01-01 00:00:05', 2),
		(3, 1, '2024-01-01 00:00:30', 3), (4, 2, '2024-01-01 00:00:00', 4)`)
	wantSessionView(t, s, "two sessions of k 1")
	sessions := func(step string, want ...string) {
		t.Helper()
		wantSessionView(t, s, step)
		wantRows(t, s, "SELECT k, s::time, e::time, n FROM sv ORDER BY k, s", want...)
	}
	sessions("two sessions of k 1", "1 00:00:00 00:00:15 2", "1 00:00:30 00:00:40 1", "2 00:00:00 00:00:10 1")
	mustRun(t, s, "INSERT INTO ev VALUES (5, 1, '2024-01-01 00:00:18', 5)")
	sessions("a session between", "1 00:00:00 00:00:15 2", "1 00:00:18 00:00:28 1", "1 00:00:30 00:00:40 1", "2 00:00:00 00:00:10 1")
	// 12 is within 10 seconds of 5 and of 18; then 24 of 18 and of 30.
	mustRun(t, s, "INSERT INTO ev VALUES (6, 1, '2024-01-01 00:00:12', -6)")
	sessions("a late row joins two", "1 00:00:00 00:00:28 4", "1 00:00:30 00:00:40 1", "2 00:00:00 00:00:10 1")
	mustRun(t, s, "INSERT INTO ev VALUES (7, 1, '2024-01-01 00:00:24', 7)")
	sessions("a late row joins all", "1 00:00:00 00:00:40 6", "2 00:00:00 00:00:10 1")
	mustRun(t, s, "DELETE FROM ev WHERE id = 6")
	sessions("a delete splits", "1 00:00:00 00:00:15 2", "1 00:00:18 00:00:40 3", "2 00:00:00 00:00:10 1")
	mustRun(t, s, "UPDATE ev SET k = 2 WHERE id = 7")
	sessions("a row changes key", "1 00:00:00 00:00:15 2", "1 00:00:18 00:00:28 1", "1 00:00:30 00:00:40 1",
		"2 00:00:00 00:00:10 1", "2 00:00:24 00:00:34 1")
	// 8 is exactly the gap before 18: the gap bounds a session inclusively.
	mustRun(t, s, "UPDATE ev SET ts = '2024-01-01 00:00:08' WHERE id = 3")
	sessions("a row moves in time", "1 00:00:00 00:00:28 4", "2 00:00:00 00:00:10 1", "2 00:00:24 00:00:34 1")
	mustRun(t, s, "INSERT INTO ev VALUES (8, 1, NULL, 8), (9, 1, NULL, 9), (10, NULL, '2024-01-01 00:00:03', 10)")
	sessions("rows without a time or key", "1 00:00:00 00:00:28 4", "1 NULL NULL 2", "2 00:00:00 00:00:10 1",
		"2 00:00:24 00:00:34 1", "NULL 00:00:03 00:00:13 1")
	mustRun(t, s, "DELETE FROM ev WHERE k = 1 AND ts < '2024-01-01 00:00:06'")
	sessions("the start leaves", "1 00:00:08 00:00:28 2", "1 NULL NULL 2", "2 00:00:00 00:00:10 1",
		"2 00:00:24 00:00:34 1", "NULL 00:00:03 00:00:13 1")
	mustRun(t, s, "DELETE FROM ev")
	sessions("empty")
}

// TestSessionWindowRandom is the oracle of the session window: random
// inserts, deletes and updates of keys and times (out of order, often
// joining and splitting sessions), and after every FLUSH the view equals
// its query run as a batch query. A second view runs on two actors.
func TestSessionWindowRandom(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int PRIMARY KEY, k int, ts timestamp, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv AS "+sessionQuery)
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv2 WITH (streaming_parallelism = 2) AS "+sessionQuery)
	rng := rand.New(rand.NewPCG(11, 18))
	ts := func() string {
		if rng.IntN(20) == 0 {
			return "NULL"
		}
		return fmt.Sprintf("TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '%d second'", rng.IntN(150))
	}
	next, merged := 0, 0
	for round := range 40 {
		for range 1 + rng.IntN(4) {
			switch r := rng.IntN(10); {
			case r < 6 || next < 5:
				mustRun(t, s, fmt.Sprintf("INSERT INTO ev VALUES (%d, %d, %s, %d)", next, rng.IntN(3), ts(), rng.IntN(100)-20))
				next++
			case r < 8:
				mustRun(t, s, fmt.Sprintf("DELETE FROM ev WHERE id = %d", rng.IntN(next)))
			case r < 9:
				mustRun(t, s, fmt.Sprintf("UPDATE ev SET ts = %s WHERE id = %d", ts(), rng.IntN(next)))
			default:
				mustRun(t, s, fmt.Sprintf("UPDATE ev SET k = %d, v = v + 1 WHERE id = %d", rng.IntN(3), rng.IntN(next)))
			}
		}
		rows := wantSessionView(t, s, fmt.Sprintf("round %d", round))
		merged = max(merged, len(rows))
		if two := sortedRows(t, s, "SELECT * FROM sv2"); !slices.Equal(two, rows) {
			t.Fatalf("round %d: the view on two actors differs:\n%s", round, diffRows(two, rows))
		}
	}
	// The test must have compared sessions, not an empty view.
	if merged < 5 {
		t.Fatalf("at most %d sessions over the run", merged)
	}
}

// TestSessionWindowRecovers reopens the database after a crash: the
// sessions come back from their state tables, and a late row after the
// restart joins two sessions made before it.
func TestSessionWindowRecovers(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int PRIMARY KEY, k int, ts timestamp, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv AS "+sessionQuery)
	mustRun(t, s, `INSERT INTO ev SELECT i, i % 2, TIMESTAMP '2024-01-01 00:00:00' + (i * 3 + (i / 10) * 14) * INTERVAL '1 second', i
		FROM generate_series(0, 39) AS g(i)`)
	before := wantSessionView(t, s, "before the crash")
	mustRun(t, s, "FLUSH")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	if after := wantSessionView(t, s, "after the restart"); !slices.Equal(after, before) {
		t.Fatalf("the view changed over the restart:\n%s", diffRows(after, before))
	}
	// Each key's rows are 6 seconds apart within a run of ten ids, and
	// its runs 20 seconds apart (key 0's run j spans 44j to 44j + 24):
	// a row exactly in the middle of each gap of key 0 joins its runs.
	wantRows(t, s, "SELECT k, count(*) FROM sv GROUP BY k ORDER BY k", "0 4", "1 4")
	mustRun(t, s, `INSERT INTO ev SELECT 100 + j, 0, TIMESTAMP '2024-01-01 00:00:00' + (44 * j + 34) * INTERVAL '1 second', 0
		FROM generate_series(0, 2) AS g(j)`)
	got := wantSessionView(t, s, "late rows after the restart")
	wantRows(t, s, "SELECT k, count(*), sum(n) FROM sv GROUP BY k ORDER BY k", "0 1 23", "1 4 20")
	t.Logf("%d sessions before, %d after", len(before), len(got))
}

// TestSessionWindowEOWC: in EMIT ON WINDOW CLOSE mode a session's row
// appears once, when the watermark (5 seconds behind the latest time)
// passes its end, and is then the batch query's row; open sessions are
// not in the view. Rows come out of order within the watermark's delay,
// so late rows still join sessions before they close. A view without
// EOWC over the same rows equals the batch query throughout, while the
// watermark deletes the state of closed sessions from both of its
// operators; the EOWC view on two actors equals the one on one.
func TestSessionWindowEOWC(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int, k int, ts timestamp, v int, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv AS "+sessionQuery+" EMIT ON WINDOW CLOSE")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv2 AS "+sessionQuery)
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv3 WITH (streaming_parallelism = 2) AS "+sessionQuery+" EMIT ON WINDOW CLOSE")
	mustRun(t, s, "CREATE TABLE t0 (ts timestamp) APPEND ONLY")
	closed := "SELECT * FROM (" + sessionQuery + ") AS q WHERE e < (SELECT max(ts) FROM ev) - INTERVAL '5 seconds'"
	rng := rand.New(rand.NewPCG(5, 11))
	id, sessions := 0, 0
	for round := range 30 {
		var vals []string
		for range 1 + rng.IntN(5) {
			// Time runs forward 2 seconds a row on average, each row up to
			// 4 seconds early.
			sec := 2*id - rng.IntN(5)
			vals = append(vals, fmt.Sprintf("(%d, %d, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '%d second', %d)", id, rng.IntN(3), max(sec, 0), rng.IntN(50)))
			id++
		}
		mustRun(t, s, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
		mustRun(t, s, "FLUSH")
		want := sortedRows(t, s, closed)
		got := sortedRows(t, s, "SELECT * FROM sv")
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: the view has %d rows, the closed sessions are %d:\n%s", round, len(got), len(want), diffRows(got, want))
		}
		sessions = len(got)
		if two := sortedRows(t, s, "SELECT * FROM sv3"); !slices.Equal(two, got) {
			t.Fatalf("round %d: the view on two actors differs:\n%s", round, diffRows(two, got))
		}
		want = sortedRows(t, s, "SELECT * FROM ("+sessionQuery+") AS q")
		if got := sortedRows(t, s, "SELECT * FROM sv2"); !slices.Equal(got, want) {
			t.Fatalf("round %d: the view without EOWC has %d rows, the batch query %d:\n%s", round, len(got), len(want), diffRows(got, want))
		}
	}
	// The rows span about 200 seconds, of which the open sessions hold
	// the last few; without cleaning, the window would keep a row per
	// input row and the aggregation three (its min and max inputs).
	for _, op := range []string{"StreamSessionWindow", "StreamHashAgg"} {
		st := mustRun(t, s, "SELECT state_rows FROM weir.operators WHERE job = 'sv2' AND operator = '"+op+"'")
		if n, err := strconv.Atoi(st[0]); err != nil || n >= id {
			t.Errorf("%s keeps %v state rows of %d rows", op, st, id)
		} else {
			t.Logf("%s keeps %d state rows of %d rows", op, n, id)
		}
	}
	if sessions < 3 {
		t.Fatalf("%d sessions closed over the run", sessions)
	}
	t.Logf("%d rows, %d sessions closed", id, sessions)
	wantCode(t, s, "CREATE MATERIALIZED VIEW bad AS SELECT count(*) FROM t0 GROUP BY SESSION(ts, INTERVAL '1' SECOND) EMIT ON WINDOW CLOSE",
		pgerr.FeatureNotSupported, "needs a watermark on its time column")
}

// TestSessionWindowEOWCRecovers: sessions open at a crash come back
// from the state tables and close after the restart, when the watermark
// passes them, with the rows from before the crash counted.
func TestSessionWindowEOWCRecovers(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int, k int, ts timestamp, v int, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sv AS "+sessionQuery+" EMIT ON WINDOW CLOSE")
	// Key 1 has a session closed (0-3 s, end 13 s) and one open (30 s);
	// key 2 one open (25-28 s); the watermark is at 25 s.
	mustRun(t, s, `INSERT INTO ev VALUES (1, 1, '2024-01-01 00:00:00', 1), (2, 1, '2024-01-01 00:00:03', 2),
		(3, 2, '2024-01-01 00:00:25', 3), (4, 2, '2024-01-01 00:00:28', 4), (5, 1, '2024-01-01 00:00:30', 5)`)
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT k, s::time, e::time, n, total FROM sv ORDER BY k, s", "1 00:00:00 00:00:13 2 3")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	// 36 s extends key 1's open session; 60 s moves the watermark to
	// 55 s, past both open sessions' ends (46 and 38 s).
	mustRun(t, s, "INSERT INTO ev VALUES (6, 1, '2024-01-01 00:00:36', 6)")
	mustRun(t, s, "INSERT INTO ev VALUES (7, 2, '2024-01-01 00:01:00', 7)")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT k, s::time, e::time, n, total FROM sv ORDER BY k, s",
		"1 00:00:00 00:00:13 2 3", "1 00:00:30 00:00:46 2 11", "2 00:00:25 00:00:38 2 7")
}

// TestSessionWindowErrors: SESSION is a GROUP BY item only, and its
// start and end need it.
func TestSessionWindowErrors(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ev (id int PRIMARY KEY, k int, ts timestamp, v int)")
	wantCode(t, s, "SELECT SESSION(ts, INTERVAL '1' SECOND) FROM ev", pgerr.GroupingError, "only allowed as an item of GROUP BY")
	wantCode(t, s, "SELECT k, SESSION_START(ts, INTERVAL '1' SECOND) FROM ev GROUP BY k", pgerr.GroupingError, "grouped by SESSION")
	wantCode(t, s, "SELECT SESSION_END(ts, INTERVAL '2' SECOND) FROM ev GROUP BY SESSION(ts, INTERVAL '1' SECOND)", pgerr.GroupingError, "must be those of")
	wantCode(t, s, "SELECT count(*) FROM ev GROUP BY SESSION(ts, INTERVAL '0' SECOND)", pgerr.InvalidParameterValue, "greater than zero")
	wantCode(t, s, "SELECT count(*) FROM ev GROUP BY SESSION(v, INTERVAL '1' SECOND)", pgerr.DatatypeMismatch, "must be of type timestamp")
}
