package durability

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// temporalViews are the views of TestTemporalFilterView, each with its
// query run as a plain SELECT with now() replaced by %[1]s, the time of
// the committed epoch.
var temporalViews = []struct{ name, create, query string }{
	// Rows leave as time passes.
	{"recent", "CREATE MATERIALIZED VIEW recent AS SELECT id, ts FROM t WHERE ts > now() - INTERVAL '2 seconds'",
		"SELECT id, ts FROM t WHERE ts > %[1]s - INTERVAL '2 seconds'"},
	// A view over it sees the retractions as any other change.
	{"recent_count", "CREATE MATERIALIZED VIEW recent_count AS SELECT count(*) AS n, max(id) AS top FROM recent",
		"SELECT count(*) AS n, max(id) AS top FROM t WHERE ts > %[1]s - INTERVAL '2 seconds'"},
	// Rows come in as time passes.
	{"due", "CREATE MATERIALIZED VIEW due AS SELECT id FROM t WHERE ts <= current_timestamp + INTERVAL '1 second'",
		"SELECT id FROM t WHERE ts <= %[1]s + INTERVAL '1 second'"},
	// Both, with another condition and an aggregate over them.
	{"window_count", "CREATE MATERIALIZED VIEW window_count AS SELECT count(*) AS n FROM t WHERE ts BETWEEN now() - INTERVAL '1 second' AND now() AND id < 100",
		"SELECT count(*) AS n FROM t WHERE ts BETWEEN %[1]s - INTERVAL '1 second' AND %[1]s AND id < 100"},
}

// eventually calls cond every 100 ms until it reports done and fails the
// test with its last state when timeout passes first. The timeout bounds
// a hang; it is far above the expected time.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, state := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached after %v; last state: %s", what, timeout, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkTemporal takes a checkpoint (FLUSH) and compares every temporal
// view with its query at the time of the committed epoch; it returns
// the rows of recent and due. Barriers come only when asked for here
// (the interval is an hour), so no epoch commits between the FLUSH and
// the reads; a changed epoch would make the comparison inconclusive, and
// fails the test as a broken assumption.
func checkTemporal(t *testing.T, ctx context.Context, conn *pgx.Conn) (recent, due []string) {
	t.Helper()
	exec1(t, ctx, conn, "FLUSH")
	epochAt := func() (int64, string) {
		var ep int64
		var at string
		if err := conn.QueryRow(ctx, "SELECT committed_epoch, committed_at::text FROM weir.checkpoint", pgx.QueryExecModeSimpleProtocol).Scan(&ep, &at); err != nil {
			t.Fatalf("reading weir.checkpoint: %v", err)
		}
		return ep, at
	}
	ep, at := epochAt()
	out := map[string][]string{}
	for _, v := range temporalViews {
		got, err := testenv.TextRows(ctx, conn, "SELECT * FROM "+v.name)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		q := fmt.Sprintf(v.query, "'"+at+"'::timestamptz")
		want, err := testenv.TextRows(ctx, conn, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("view %s at epoch %d (%s) differs from its query:\nview:  %v\nquery: %v", v.name, ep, at, got, want)
		}
		out[v.name] = got
	}
	if ep2, _ := epochAt(); ep2 != ep {
		t.Fatalf("epoch %d committed during the reads at epoch %d: nothing should have asked for a barrier", ep2, ep)
	}
	return out["recent"], out["due"]
}

// ids returns the first column of rows "id|...".
func ids(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i], _, _ = strings.Cut(r, "|")
	}
	return out
}

// TestTemporalFilterView checks views whose WHERE compares a column with
// now(): after every checkpoint each equals its query run as a plain
// SELECT at the checkpoint's time while rows leave (and enter) as time
// passes, across a SIGKILL and restart in the middle; afterwards their
// operators keep only the rows whose condition can still change.
func TestTemporalFilterView(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	target := testenv.Start(t, testenv.Options{})
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "ALTER SYSTEM SET barrier_interval_ms = 3600000")
	exec1(t, ctx, conn, "SET streaming_parallelism = 2")
	exec1(t, ctx, conn, "CREATE TABLE t (id int PRIMARY KEY, ts timestamptz)")
	for _, v := range temporalViews {
		exec1(t, ctx, conn, v.create)
	}
	// now() anywhere else in a view is still refused.
	if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW bad AS SELECT id, now() - ts AS age FROM t"); err == nil || !strings.Contains(err.Error(), "0A000") {
		t.Fatalf("now() in a view's select list: err=%v, want SQLSTATE 0A000", err)
	}
	// Rows 1..12 are 400 ms apart from 1.2 s ago; 100 is long past, 101
	// far ahead, 102 has no time.
	exec1(t, ctx, conn, "INSERT INTO t SELECT i, now() + (i - 4) * INTERVAL '400 milliseconds' FROM generate_series(1, 12) AS i")
	exec1(t, ctx, conn, "INSERT INTO t VALUES (100, now() - INTERVAL '1 hour'), (101, now() + INTERVAL '1 hour'), (102, NULL)")
	// A plain SELECT reads now() as the statement's time, as before.
	if got, err := testenv.TextRows(ctx, conn, "SELECT id FROM t WHERE ts > now() - INTERVAL '2 seconds' AND id >= 100"); err != nil || !slices.Equal(got, []string{"101"}) {
		t.Fatalf("plain SELECT with now(): %v, %v; want [101]", got, err)
	}
	recent, _ := checkTemporal(t, ctx, conn)
	first := len(recent)
	// The newest row leaves through a DELETE instead.
	exec1(t, ctx, conn, "DELETE FROM t WHERE id = 12")
	checkTemporal(t, ctx, conn)
	// Let time take some rows out, then kill the server.
	eventually(t, time.Minute, "rows leaving recent", func() (bool, string) {
		recent, due := checkTemporal(t, ctx, conn)
		return len(recent) < first-1, fmt.Sprintf("recent %v, due %v", ids(recent), due)
	})
	conn.Close(ctx)
	target.Kill()
	target.Restart()
	conn = connect(t, ctx, target)
	// Every row but 101 leaves recent and enters due; the restarted
	// view keeps matching its query meanwhile.
	eventually(t, time.Minute, "every row's time passing", func() (bool, string) {
		recent, due := checkTemporal(t, ctx, conn)
		return slices.Equal(ids(recent), []string{"101"}) && len(due) == 12, fmt.Sprintf("recent %v, due %v", ids(recent), due)
	})
	// The operators hold only the rows whose condition can still
	// change: 101 in recent's (it will leave) and in due's (it will
	// enter); window_count's two filters hold nothing then (rows 1..11
	// left its `>=` filter, and its `<=` filter let them all in).
	got, err := testenv.TextRows(ctx, conn, "SELECT job, sum(rows) FROM weir.state_tables WHERE name = 'dynamic_filter' GROUP BY job")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"due|1", "recent|1", "window_count|0"}; !slices.Equal(got, want) {
		t.Fatalf("dynamic filter state rows: %v, want %v", got, want)
	}
}
