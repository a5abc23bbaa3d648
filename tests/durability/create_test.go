package durability

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// sqlstateOf is the SQLSTATE of a server error, "" for any other.
func sqlstateOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestKillDuringBackfill SIGKILLs the server while CREATE MATERIALIZED
// VIEW backfills 200,000 rows. The client got an error; after the restart
// the view either does not exist or, once it can be read at all, holds
// the whole answer: a read never sees a half-built view, and weir.jobs
// never calls a half-done backfill done.
func TestKillDuringBackfill(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	exec1(t, ctx, conn, "CREATE TABLE big (id int PRIMARY KEY, n int)")
	exec1(t, ctx, conn, "INSERT INTO big SELECT g, 1 FROM generate_series(1, 200000) g")

	// The server kills itself (SIGKILL) at the 20th chunk its backfill
	// emits: the backfill is under way and far from done.
	srv.SetEnv("WEIR_FAULT=" + fault.BackfillChunk + ":20")
	srv.Restart()
	conn = connect(t, ctx, srv)
	_, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW total WITH (streaming_parallelism = 2) AS SELECT count(*) AS c, sum(n) AS s FROM big")
	if err == nil {
		t.Fatal("CREATE MATERIALIZED VIEW succeeded although the server was killed during its backfill")
	}
	if _, err := srv.WaitExit(time.Minute); err != nil {
		t.Fatalf("the server did not die at the fault point: %v", err)
	}
	srv.SetEnv()
	srv.Restart()

	conn = connect(t, ctx, srv)
	// What weir.jobs says before the view is read must be true.
	var doneBefore bool
	jobErr := conn.QueryRow(ctx, "SELECT backfill_done FROM weir.jobs WHERE name = 'total'").Scan(&doneBefore)
	var c, s int64
	err = conn.QueryRow(ctx, "SELECT c, s FROM total").Scan(&c, &s)
	switch {
	case sqlstateOf(err) == "42P01":
		return // the view is gone, as the failed CREATE said
	case err != nil:
		t.Fatalf("reading the view after the restart: %v", err)
	case c != 200000 || s != 200000:
		t.Fatalf("after the restart the view reads count %d, sum %d; want 200000, 200000", c, s)
	}
	if jobErr == nil && doneBefore {
		// The job said done before the read: a read at that moment
		// must already have been whole, which the one above was.
		t.Log("weir.jobs said backfill_done before the first read")
	}
	var done bool
	if err := conn.QueryRow(ctx, "SELECT backfill_done FROM weir.jobs WHERE name = 'total'").Scan(&done); err != nil || !done {
		t.Fatalf("weir.jobs backfill_done = %v, %v after the view was read whole", done, err)
	}
}

// TestKillDuringRefresh SIGKILLs the server while REFRESH MATERIALIZED
// VIEW fills a view created WITH NO DATA from 200,000 rows. After the
// restart the view is either still unpopulated (55000) or, once it can be
// read at all, holds the whole answer and follows the table: a read
// never sees a half-filled view.
func TestKillDuringRefresh(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	exec1(t, ctx, conn, "CREATE TABLE big (id int PRIMARY KEY, n int)")
	exec1(t, ctx, conn, "INSERT INTO big SELECT g, 1 FROM generate_series(1, 200000) g")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW total WITH (streaming_parallelism = 2) AS SELECT count(*) AS c, sum(n) AS s FROM big WITH NO DATA")

	srv.SetEnv("WEIR_FAULT=" + fault.BackfillChunk + ":20")
	srv.Restart()
	conn = connect(t, ctx, srv)
	if _, err := conn.Exec(ctx, "REFRESH MATERIALIZED VIEW total"); err == nil {
		t.Fatal("REFRESH MATERIALIZED VIEW succeeded although the server was killed during its backfill")
	}
	if _, err := srv.WaitExit(time.Minute); err != nil {
		t.Fatalf("the server did not die at the fault point: %v", err)
	}
	srv.SetEnv()
	srv.Restart()

	conn = connect(t, ctx, srv)
	var c, s int64
	err := conn.QueryRow(ctx, "SELECT c, s FROM total").Scan(&c, &s)
	switch {
	case sqlstateOf(err) == "55000":
		// Still unpopulated: a REFRESH now fills it.
		t.Log("the view came back unpopulated")
		exec1(t, ctx, conn, "REFRESH MATERIALIZED VIEW total")
		err = conn.QueryRow(ctx, "SELECT c, s FROM total").Scan(&c, &s)
	case err != nil:
		t.Fatalf("reading the view after the restart: %v", err)
	}
	if err != nil || c != 200000 || s != 200000 {
		t.Fatalf("after the restart the view reads count %d, sum %d (%v); want 200000, 200000", c, s, err)
	}
	exec1(t, ctx, conn, "DELETE FROM big WHERE id <= 10")
	if err := conn.QueryRow(ctx, "SELECT c FROM total").Scan(&c); err != nil || c != 199990 {
		t.Fatalf("the view after a DELETE: %d, %v; want 199990", c, err)
	}
}

// TestReadsWhileRecoveryHeld holds the recovery at start before its
// Initial barrier (the fault point recovery.before_initial_barrier):
// a statement that reads no relation and a read of a table answer
// meanwhile, a read of a view waits for the view's first barrier, and
// an INSERT … SELECT from generate_series into the view's table is
// taken and held, reaching the view once the recovery goes on. Before,
// a statement reading no relation waited for every view, as if it read
// them all.
func TestReadsWhileRecoveryHeld(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	exec1(t, ctx, conn, "CREATE TABLE t (k int PRIMARY KEY)")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW v AS SELECT count(*) AS c FROM t")
	exec1(t, ctx, conn, "INSERT INTO t VALUES (1)")
	conn.Close(ctx)

	release := filepath.Join(t.TempDir(), "release")
	srv.SetEnv("WEIR_FAULT=" + fault.RecoveryBeforeInitialBarrier + "@" + release)
	srv.Restart()
	view := make(chan string, 1)
	go func() {
		c := connect(t, ctx, srv)
		defer c.Close(ctx)
		var n int64
		err := c.QueryRow(ctx, "SELECT c FROM v").Scan(&n)
		view <- fmt.Sprint(n, err)
	}()
	insert := make(chan error, 1)
	go func() {
		c := connect(t, ctx, srv)
		defer c.Close(ctx)
		_, err := c.Exec(ctx, "INSERT INTO t SELECT g FROM generate_series(2, 10) g")
		insert <- err
	}()
	conn = connect(t, ctx, srv)
	defer conn.Close(ctx)
	var one, rows int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("SELECT 1 during the hold: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("reading the table during the hold: %d rows, %v", rows, err)
	}
	select {
	case got := <-view:
		t.Fatalf("the view was read during the hold, before its first barrier: %s", got)
	case err := <-insert:
		t.Fatalf("the INSERT returned during the hold, before its epoch could commit: %v", err)
	default:
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-insert; err != nil {
		t.Fatalf("INSERT: %v", err)
	}
	if got := <-view; got != "1 <nil>" && got != "10 <nil>" {
		t.Fatalf("the view after the release: %s, want 1 or 10", got)
	}
	var c int64
	if err := conn.QueryRow(ctx, "SELECT c FROM v").Scan(&c); err != nil || c != 10 {
		t.Fatalf("the view once the INSERT returned: %d, %v; want 10", c, err)
	}
}
