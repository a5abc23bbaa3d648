package engine

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/jackc/pgx/v5"
)

// TestPipelineIsOneTransaction sends batches of Bind/Execute messages
// with one Sync (pgx's SendBatch): outside a transaction block they run
// as PostgreSQL's implicit transaction, which commits at Sync, and which
// a failing statement rolls back as a whole, the statements after it
// skipped.
func TestPipelineIsOneTransaction(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	conn := servePgx(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := conn.Exec(ctx, "CREATE TABLE plt (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	count := func() int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM plt").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	batch := func(stmts ...string) []error {
		t.Helper()
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s)
		}
		br := conn.SendBatch(ctx, b)
		errs := make([]error, len(stmts))
		for i := range stmts {
			_, errs[i] = br.Exec()
		}
		if err := br.Close(); err != nil && errs[len(errs)-1] == nil {
			t.Fatalf("batch close: %v", err)
		}
		return errs
	}

	errs := batch("INSERT INTO plt VALUES (1)", "INSERT INTO plt VALUES (1)", "INSERT INTO plt VALUES (3)")
	if errs[0] != nil || pgCode(errs[1]) != "23505" || errs[2] == nil {
		t.Fatalf("batch results: %v", errs)
	}
	if n := count(); n != 0 {
		t.Fatalf("count(*) after the failed batch = %d, want 0: the batch is one transaction", n)
	}

	// A batch that succeeds commits at Sync; its statements see each
	// other's writes.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO plt VALUES (1)")
	b.Queue("INSERT INTO plt VALUES (2)")
	var seen int64
	b.Queue("SELECT count(*) FROM plt").QueryRow(func(r pgx.Row) error { return r.Scan(&seen) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if seen != 2 {
		t.Fatalf("count(*) inside the batch = %d, want 2", seen)
	}
	if n := count(); n != 2 {
		t.Fatalf("count(*) after the batch = %d, want 2", n)
	}

	// A single statement, and a failing one, on their own.
	if _, err := conn.Exec(ctx, "INSERT INTO plt VALUES (2)"); pgCode(err) != "23505" {
		t.Fatalf("duplicate insert: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO plt VALUES (3)"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("count(*) = %d, want 3", n)
	}

	// COMMIT inside the batch commits what came before it; ROLLBACK
	// undoes it.
	errs = batch("INSERT INTO plt VALUES (10)", "COMMIT", "INSERT INTO plt VALUES (10)")
	if errs[0] != nil || errs[1] != nil || pgCode(errs[2]) != "23505" {
		t.Fatalf("batch with COMMIT: %v", errs)
	}
	errs = batch("INSERT INTO plt VALUES (11)", "ROLLBACK", "INSERT INTO plt VALUES (12)")
	if errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("batch with ROLLBACK: %v", errs)
	}
	if n := count(); n != 5 {
		t.Fatalf("count(*) = %d, want 5 (1, 2, 3, 10, 12)", n)
	}

	// LOCK and DECLARE need a transaction block, which a batch is not.
	errs = batch("SELECT 1", "LOCK plt")
	if pgCode(errs[1]) != "25P01" {
		t.Fatalf("LOCK in a batch: %v", errs)
	}
}

// TestLocalSettingOutsideBlock checks set_config(..., true) and SET
// LOCAL outside a transaction block: the setting holds until the end of
// the statement's implicit transaction (the Query, or the batch up to
// Sync), as in PostgreSQL.
func TestLocalSettingOutsideBlock(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	conn := servePgx(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	show := func() string {
		t.Helper()
		var v string
		if err := conn.QueryRow(ctx, "SHOW work_mem").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var got string
	if err := conn.QueryRow(ctx, "SELECT set_config('statement_timeout', '1234', true)").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "1234ms" {
		t.Fatalf("set_config returned %q, want 1234ms", got)
	}
	var a, b string
	if err := conn.QueryRow(ctx, "SELECT set_config('work_mem', '1MB', true), current_setting('work_mem')").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	if a != "1MB" || b != "1MB" {
		t.Fatalf("set_config, current_setting = %q, %q; want 1MB, 1MB", a, b)
	}
	if v := show(); v != "4MB" {
		t.Fatalf("work_mem after the statement = %q, want 4MB", v)
	}

	// In a simple Query of several statements, and in a batch, the
	// setting holds until its end.
	res, err := conn.PgConn().Exec(ctx, "SET LOCAL work_mem = '2MB'; SHOW work_mem").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if v := string(res[1].Rows[0][0]); v != "2MB" {
		t.Fatalf("SHOW after SET LOCAL in the same Query = %q, want 2MB", v)
	}
	if v := show(); v != "4MB" {
		t.Fatalf("work_mem after the Query = %q, want 4MB", v)
	}
	bt := &pgx.Batch{}
	bt.Queue("SELECT set_config('work_mem', '3MB', true)")
	bt.Queue("SHOW work_mem").QueryRow(func(r pgx.Row) error { return r.Scan(&got) })
	if err := conn.SendBatch(ctx, bt).Close(); err != nil {
		t.Fatal(err)
	}
	if got != "3MB" {
		t.Fatalf("SHOW in the batch = %q, want 3MB", got)
	}
	if v := show(); v != "4MB" {
		t.Fatalf("work_mem after the batch = %q, want 4MB", v)
	}

	// A SET after a local change in the same transaction stays.
	if _, err := conn.PgConn().Exec(ctx, "SELECT set_config('work_mem', '1MB', true), set_config('work_mem', '5MB', false)").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if v := show(); v != "5MB" {
		t.Fatalf("work_mem after SET = %q, want 5MB", v)
	}
}
