// Package durability checks that acknowledged writes survive a SIGKILL and
// a clean restart, and that a second server refuses a data directory in
// use. It runs against weir, or against PostgreSQL with
// WEIR_TEST_TARGET=postgres to check the tests themselves.
package durability

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

func connect(t *testing.T, ctx context.Context, target testenv.Target) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, target.ConnString())
	if err != nil {
		t.Fatalf("connecting to %s: %v", target.Kind(), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec1(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// rows returns "id:v" for every row of t in id order.
func rows(t *testing.T, ctx context.Context, target testenv.Target) []string {
	t.Helper()
	conn := connect(t, ctx, target)
	rs, err := conn.Query(ctx, "SELECT id, v FROM t ORDER BY id")
	if err != nil {
		t.Fatalf("reading t: %v", err)
	}
	var out []string
	for rs.Next() {
		var id int64
		var v string
		if err := rs.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%s", id, v))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func want(n int, prefix string) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%d:%s%d", i, prefix, i))
	}
	return out
}

// TestKillAfterInsert SIGKILLs the server the moment the last INSERT is
// acknowledged: every acknowledged row must be there after the restart,
// and the table must take writes again.
func TestKillAfterInsert(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target := testenv.StartTarget(t)
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "CREATE TABLE t (id bigint PRIMARY KEY, v text NOT NULL)")
	const n = 200
	for i := 1; i <= n; i++ {
		exec1(t, ctx, conn, "INSERT INTO t VALUES ($1, $2)", i, fmt.Sprintf("row%d", i))
	}
	target.Kill()
	target.Restart()
	got := rows(t, ctx, target)
	if fmt.Sprint(got) != fmt.Sprint(want(n, "row")) {
		t.Fatalf("after SIGKILL: %d rows, want %d; first rows %v", len(got), n, got[:min(len(got), 5)])
	}
	// A multi-row INSERT and an UPDATE, then another SIGKILL.
	conn = connect(t, ctx, target)
	exec1(t, ctx, conn, "INSERT INTO t VALUES (1001, 'a'), (1002, 'b')")
	exec1(t, ctx, conn, "UPDATE t SET v = 'changed' WHERE id <= 10")
	exec1(t, ctx, conn, "DELETE FROM t WHERE id > 100 AND id <= 200")
	target.Kill()
	target.Restart()
	got = rows(t, ctx, target)
	if len(got) != 102 || got[0] != "1:changed" || got[10] != "11:row11" || got[101] != "1002:b" {
		t.Fatalf("after second SIGKILL: %d rows: %v ... %v", len(got), got[:min(len(got), 12)], got[max(0, len(got)-2):])
	}
}

// TestCleanRestart stops the server with its clean shutdown signal and
// checks that data and catalog are back after the restart.
func TestCleanRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target := testenv.StartTarget(t)
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec1(t, ctx, conn, "CREATE VIEW tv AS SELECT count(*) AS n FROM t")
	for i := 1; i <= 20; i++ {
		exec1(t, ctx, conn, "INSERT INTO t VALUES ($1, $2)", i, fmt.Sprintf("r%d", i))
	}
	conn.Close(ctx)
	target.Restart()
	if got := rows(t, ctx, target); fmt.Sprint(got) != fmt.Sprint(want(20, "r")) {
		t.Fatalf("after restart: %v", got)
	}
	var n int64
	if err := connect(t, ctx, target).QueryRow(ctx, "SELECT n FROM tv").Scan(&n); err != nil || n != 20 {
		t.Fatalf("view after restart: n=%d err=%v", n, err)
	}
	// The primary key still rejects duplicates.
	_, err := connect(t, ctx, target).Exec(ctx, "INSERT INTO t VALUES (1, 'dup')")
	if err == nil || !strings.Contains(err.Error(), "23505") {
		t.Fatalf("duplicate key after restart: err=%v, want SQLSTATE 23505", err)
	}
}

// TestSecondServerFailsFast starts a second server on the data directory
// of a running one: it must exit promptly with a non-zero code and say
// why, and the first server must keep serving.
func TestSecondServerFailsFast(t *testing.T) {
	target := testenv.StartTarget(t)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	var dataDir string
	switch s := target.(type) {
	case *testenv.Server:
		cmd, dataDir = s.CommandOn(port), s.DataDir
	case interface {
		Command(int) *exec.Cmd
	}:
		cmd = s.Command(port)
		dataDir = "postmaster.pid"
	default:
		t.Fatalf("cannot start a second %s server", target.Kind())
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("second server on the same data directory still running after 15s; output:\n%s", out.String())
	}
	if err == nil || cmd.ProcessState.ExitCode() == 0 {
		t.Fatalf("second server exited with code 0, want non-zero; output:\n%s", out.String())
	}
	msg := strings.ToLower(out.String())
	if !strings.Contains(msg, "lock") && !strings.Contains(msg, strings.ToLower(dataDir)) {
		t.Errorf("second server's message does not say the data directory is locked:\n%s", out.String())
	}
	if err := testenv.WaitReady(target.Addr(), target.User(), target.Database(), 5*time.Second, nil); err != nil {
		t.Errorf("first server stopped answering: %v", err)
	}
}
