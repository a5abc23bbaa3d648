package hostile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// uniqueUpdateRows is how many rows the unique-index UPDATE rewrites.
const uniqueUpdateRows = 500_000

// uniqueUpdateOverMB is the most MB the UPDATE's peak may exceed the
// budget by: the Go heap's fixed allowance beyond the budget (160 MiB;
// Pebble's block cache and memtables are within the budget), the
// runtime and the collector's overshoot, none of which grows with the
// statement. The same UPDATE of a column with a plain index peaks at
// about 250 MB, as this one does (up to 290 MB since an epoch's writes
// stay in memory while the budget has room); holding the statement's
// key changes in memory took 411 MB.
const uniqueUpdateOverMB = 288

// TestMemoryBudgetUniqueUpdate rewrites the unique text column of
// 500,000 rows in one UPDATE under a 64 MB --memory-budget. The
// statement's key changes (each row gives up its old key and takes a
// new one) must leave memory in pieces as its row writes do: holding
// them all took 411 MB (601 MB with longer keys). Afterwards the rows must be the rewritten ones
// and the index must still refuse a duplicate, of a new value and of a
// value the UPDATE gave up and another row then took.
func TestMemoryBudgetUniqueUpdate(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = uniqueUpdateRows
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	srv, conn := loadedServer(t, ctx, memoryArgs(),
		"CREATE TABLE uu (id bigint PRIMARY KEY, u text UNIQUE, v bigint)",
		fmt.Sprintf("INSERT INTO uu SELECT g, 'key-' || g, g %% 1000 FROM generate_series(1, %d) g", n))
	start := time.Now()
	tag, err := conn.Exec(ctx, "UPDATE uu SET u = 'new-' || id, v = v + 1")
	if err != nil {
		t.Fatalf("UPDATE: %v", err)
	}
	took := time.Since(start)
	peak := procStatus(t, srv.Pid(), "VmHWM")
	t.Logf("UPDATE of %d rows: %s, peak RSS %d MB", n, took.Round(time.Millisecond), peak>>20)
	if tag.RowsAffected() != n {
		t.Errorf("UPDATE affected %d rows, want %d", tag.RowsAffected(), n)
	}
	if limit := int64(budgetMB+uniqueUpdateOverMB) << 20; peak > limit && os.Getenv("WEIR_MEMORY_ARGS") == "" {
		t.Errorf("UPDATE: peak RSS %d MB, over %d MB with --memory-budget %d", peak>>20, limit>>20, budgetMB)
	}

	var got string
	check := "SELECT count(*) || ' ' || count(DISTINCT u) || ' ' || sum(v) || ' ' || " +
		"count(*) FILTER (WHERE u = 'new-' || id) FROM uu"
	if err := conn.QueryRow(ctx, "SELECT ("+check+")::text").Scan(&got); err != nil {
		t.Fatalf("%s: %v", check, err)
	}
	if want := fmt.Sprintf("%d %d %d %d", n, n, sumMod(n, 1000)+n, n); got != want {
		t.Errorf("%s = %s, want %s", check, got, want)
	}
	// The key store answers as the rows do: a new value is taken, an old
	// one is free.
	for _, c := range []struct{ sql, detail string }{
		{fmt.Sprintf("INSERT INTO uu VALUES (%d, 'new-17', 0)", n+1), "Key (u)=(new-17) already exists."},
		{fmt.Sprintf("UPDATE uu SET u = 'new-%d' WHERE id = 1", n), fmt.Sprintf("Key (u)=(new-%d) already exists.", n)},
	} {
		_, err := conn.Exec(ctx, c.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23505" || pe.Detail != c.detail {
			t.Errorf("%s: got %v, want 23505 with DETAIL %q", c.sql, err, c.detail)
		}
	}
	for _, s := range []string{
		fmt.Sprintf("INSERT INTO uu VALUES (%d, 'key-17', 0)", n+1),
		"UPDATE uu SET u = 'key-18' WHERE id = 2",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	_, err = conn.Exec(ctx, "INSERT INTO uu VALUES (0, 'key-18', 0)")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" || pe.Detail != "Key (u)=(key-18) already exists." {
		t.Errorf("a value taken after the UPDATE: got %v, want 23505", err)
	}
}
