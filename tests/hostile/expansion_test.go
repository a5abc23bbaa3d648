package hostile

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// hangBound bounds each statement of the tests below. It detects a hang
// (a statement waiting for a checkpoint that never completes, up to
// checkpoint_timeout_ms, 10 minutes), not a speed: each statement takes
// well under a second on an idle machine.
const hangBound = time.Minute

// TestHugeExpansionHoldsUpNoOne: a materialized view whose one input
// row expands into 10^18 rows never finishes that row, yet it holds up
// nobody: barriers pass its ProjectSet mid-expansion once they have
// waited expansion_barrier_hold_ms, so checkpoints commit, an INSERT
// into an unrelated table completes, and DROP of the view completes. Before, the view's actor held every barrier until the
// row was done, and every statement waiting for a checkpoint hung.
func TestHugeExpansionHoldsUpNoOne(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, hangBound)
		defer cancel()
		if _, err := conn.Exec(sctx, sql); err != nil {
			t.Fatalf("%s: %v (no answer within %s is a hang)", sql, err, hangBound)
		}
	}
	// A barrier waits behind an expansion for 200 ms, then passes it.
	exec("ALTER SYSTEM SET expansion_barrier_hold_ms = 200")
	exec("CREATE TABLE t (n bigint)")
	exec("INSERT INTO t VALUES (1000000000000000000)")
	exec("CREATE TABLE u (x int)")
	for i, view := range []string{
		"SELECT generate_series(1, n) AS g FROM t",
		"SELECT count(*) FROM t, generate_series(1, t.n)",
		"SELECT g, x FROM t, LATERAL generate_series(1, t.n) AS g, LATERAL (SELECT 1 AS x) AS s",
	} {
		exec("CREATE MATERIALIZED VIEW huge AS " + view)
		exec(fmt.Sprintf("INSERT INTO u VALUES (%d)", i+1))
		// The view is being filled: it is readable, at a committed epoch.
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM huge").Scan(&n); err != nil {
			t.Fatalf("reading the view %q: %v", view, err)
		}
		exec("INSERT INTO u VALUES (10)")
		exec("DROP MATERIALIZED VIEW huge")
		exec("INSERT INTO u VALUES (20)")
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM u").Scan(&n); err != nil || n != 9 {
		t.Fatalf("u holds %d rows (%v), want 9", n, err)
	}
}

// TestStalledJobFailsAlone: a job stuck on one row where no barrier can
// pass it (the expansion runs in the fragment of the aggregation it
// reads, which cannot be polled) holds up a checkpoint until
// checkpoint_timeout_ms; then that job fails alone, with 57014 in
// weir.stream_errors and its message in weir.jobs, and the checkpoint
// commits for everyone else, so the INSERT that got it stuck and one
// into an unrelated table complete, and DROP of the view completes.
func TestStalledJobFailsAlone(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) error {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, hangBound)
		defer cancel()
		_, err := conn.Exec(sctx, sql)
		return err
	}
	for _, sql := range []string{
		"ALTER SYSTEM SET checkpoint_timeout_ms = 2000",
		"CREATE TABLE t (n bigint)",
		"CREATE TABLE u (x int)",
		"CREATE MATERIALIZED VIEW stuck AS SELECT generate_series(1, m) AS g FROM (SELECT max(n) AS m FROM t) s",
		// The job gets stuck on this row; the INSERT is committed once
		// the job is failed, by the checkpoint it held up.
		"INSERT INTO t VALUES (1000000000000000000)",
		"INSERT INTO u VALUES (1)",
	} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v (no answer within %s is a hang)", sql, err, hangBound)
		}
	}
	var code, msg string
	if err := conn.QueryRow(ctx, "SELECT sqlstate, last_error FROM weir.stream_errors WHERE operator = 'checkpoint'").Scan(&code, &msg); err != nil {
		t.Fatalf("reading the stuck job's error: %v", err)
	}
	if code != "57014" || !strings.Contains(msg, "did not pass the barrier") {
		t.Fatalf("weir.stream_errors shows %s %q, want 57014 and the barrier not passed", code, msg)
	}
	var jobErr string
	if err := conn.QueryRow(ctx, "SELECT coalesce(last_error, '') FROM weir.jobs WHERE name = 'stuck'").Scan(&jobErr); err != nil {
		t.Fatalf("reading weir.jobs: %v", err)
	}
	if !strings.Contains(jobErr, "did not pass the barrier") {
		t.Fatalf("weir.jobs shows the stuck job's last error as %q", jobErr)
	}
	for _, sql := range []string{"DROP MATERIALIZED VIEW stuck", "INSERT INTO u VALUES (2)"} {
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v (no answer within %s is a hang)", sql, err, hangBound)
		}
	}
}
