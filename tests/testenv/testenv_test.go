package testenv

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestPostgresLifecycle checks the reference server's lifecycle: a row
// committed before a clean restart and before a SIGKILL is there after
// each, and the process is really gone after Kill.
func TestPostgresLifecycle(t *testing.T) {
	pg := StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	target := pg.As("root", "dev")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	exec := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, target.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	count := func() int {
		t.Helper()
		conn, err := pgx.Connect(ctx, target.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	exec("CREATE TABLE t (a int)")
	exec("INSERT INTO t VALUES (1)")
	target.Restart()
	if n := count(); n != 1 {
		t.Fatalf("after restart: %d rows, want 1", n)
	}
	exec("INSERT INTO t VALUES (2)")
	target.Kill()
	if err := probe(target.Addr(), "postgres", "postgres"); err == nil {
		t.Fatal("server still answers after Kill")
	}
	target.Restart()
	if n := count(); n != 2 {
		t.Fatalf("after kill and restart: %d rows, want 2", n)
	}
}

func TestTargetName(t *testing.T) {
	t.Setenv("WEIR_SLT_TARGET", "")
	t.Setenv("WEIR_TEST_TARGET", "")
	if got := TargetName(); got != "weir" {
		t.Fatalf("default target %q, want weir", got)
	}
	t.Setenv("WEIR_TEST_TARGET", "Postgres")
	if got := TargetName(); got != "postgres" {
		t.Fatalf("target %q, want postgres", got)
	}
}
