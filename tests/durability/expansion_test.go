package durability

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// TestKillMidExpansion SIGKILLs the server while a materialized view
// expands one row into 3,000,000 (generate_series), with checkpoints
// committing mid-expansion (barriers wait 100 ms behind it, then pass), and again after the restart: the ProjectSet
// resumes from the ordinal committed in its state table, so the view
// ends with every value exactly once (count, distinct count and sum
// exact), neither missing the rows committed before the kill nor
// repeating them.
func TestKillMidExpansion(t *testing.T) {
	const n = 3_000_000
	const sum = int64(n) * (n + 1) / 2
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	// Barriers wait behind the expansion for 100 ms, then pass it.
	exec1(t, ctx, conn, "ALTER SYSTEM SET expansion_barrier_hold_ms = 100")
	exec1(t, ctx, conn, "CREATE TABLE t (id int PRIMARY KEY, n bigint)")
	exec1(t, ctx, conn, "INSERT INTO t VALUES (1, $1)", int64(n))
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW v AS SELECT id, generate_series(1, n) AS g FROM t")

	// count reads the view's committed row count.
	count := func() int64 {
		t.Helper()
		c := connect(t, ctx, srv)
		var got int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&got); err != nil {
			t.Fatalf("counting the view: %v", err)
		}
		c.Close(ctx)
		return got
	}
	kills := 0
	for kills < 2 {
		got := count()
		if got >= n {
			break
		}
		if got > 0 {
			t.Logf("kill %d with %d of %d rows committed", kills+1, got, n)
			srv.Kill()
			srv.Restart()
			kills++
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	if kills == 0 {
		t.Fatalf("the expansion of %d rows was done before it could be killed", n)
	}
	for {
		got := count()
		if got > n {
			t.Fatalf("the view holds %d rows, more than the %d of the series", got, n)
		}
		if got == n {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the view holds %d of %d rows when the test's time is up", got, n)
		case <-time.After(100 * time.Millisecond):
		}
	}
	conn = connect(t, ctx, srv)
	exec1(t, ctx, conn, "FLUSH")
	var rows, distinct, total int64
	if err := conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT g), sum(g) FROM v").Scan(&rows, &distinct, &total); err != nil {
		t.Fatal(err)
	}
	if rows != n || distinct != n || total != sum {
		t.Fatalf("after %d kills the view holds %d rows, %d distinct, summing to %d; want %d, %d, %d", kills, rows, distinct, total, n, n, sum)
	}
}
