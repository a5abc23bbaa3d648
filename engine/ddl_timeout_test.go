package engine

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// bigTable makes table big with enough rows that reading or rewriting
// them takes far longer than a statement_timeout of a millisecond.
func bigTable(t *testing.T, e *Engine) {
	t.Helper()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE big (x int, y text)")
	mustRun(t, s, "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 100000) g")
}

// TestDDLStatementTimeout: statement_timeout stops CREATE TABLE AS,
// SELECT INTO and the ALTER TABLEs that rewrite the rows with
// PostgreSQL's 57014, and leaves nothing changed.
func TestDDLStatementTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	bigTable(t, e)
	s := session(t, e)
	mustRun(t, s, "SET statement_timeout = 1")
	for _, q := range []string{
		"CREATE TABLE c AS SELECT * FROM big",
		"SELECT * INTO d FROM big",
		"ALTER TABLE big ALTER COLUMN x TYPE bigint",
		"ALTER TABLE big ADD PRIMARY KEY (x)",
	} {
		wantCode(t, s, q, pgerr.QueryCanceled, "canceling statement due to statement timeout")
	}
	mustRun(t, s, "RESET statement_timeout")
	wantRows(t, s, "SELECT to_regclass('c') IS NULL, to_regclass('d') IS NULL", "t t")
	wantRows(t, s, "SELECT pg_typeof(x) FROM big LIMIT 1", "integer")
	// No primary key: a key already there may be written again.
	mustRun(t, s, "INSERT INTO big VALUES (1, 'again')")
	wantRows(t, s, "SELECT count(*) FROM big", "100001")
	// The names are free.
	mustRun(t, s, "CREATE TABLE c AS SELECT * FROM big WHERE x < 3")
	wantRows(t, s, "SELECT count(*) FROM c", "3")
}

// TestDDLCancel: a cancel request stops CREATE TABLE AS and ALTER
// COLUMN ... TYPE with 57014 "due to user request", changing nothing.
func TestDDLCancel(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	bigTable(t, e)
	s := session(t, e)
	for _, q := range []string{
		"CREATE TABLE c AS SELECT * FROM big",
		"ALTER TABLE big ALTER COLUMN x TYPE bigint",
	} {
		p, err := s.Prepare(context.Background(), q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = p.Execute(ctx, nil, &testIO{})
		if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to user request" {
			t.Fatalf("%s cancelled: %v, want 57014 canceling statement due to user request", q, err)
		}
	}
	wantRows(t, s, "SELECT to_regclass('c') IS NULL, pg_typeof(x) FROM big LIMIT 1", "t integer")
}

// TestActivityDuringDDL: while a DDL statement holds the engine's write
// lock (as CREATE TABLE AS and ALTER TABLE's rewrite do throughout),
// another session reads pg_stat_activity, which shows the statement
// active, and cancels it with pg_cancel_backend, without waiting for the
// statement to end.
func TestActivityDuringDDL(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	a.(*Session).showActive("ALTER TABLE big ALTER COLUMN x TYPE bigint")
	e.writeMu.Lock()
	rows, err := run(t, b, "SELECT state, query FROM pg_stat_activity WHERE query LIKE 'ALTER%'")
	_, cerr := run(t, b, "SELECT pg_cancel_backend(pg_backend_pid() + 1000000)")
	e.writeMu.Unlock()
	if err != nil || len(rows) != 1 || rows[0] != "active ALTER TABLE big ALTER COLUMN x TYPE bigint" {
		t.Fatalf("pg_stat_activity during the DDL: %q, %v; want the statement active", rows, err)
	}
	if cerr != nil {
		t.Fatalf("pg_cancel_backend during the DDL: %v", cerr)
	}
}
