package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// TestMemoryBudgetRecoveryHold writes a bulk upsert of 1,500,000 rows
// (about 450 MB of changes: 256 bytes of text a row) and a delete into a
// table a view reads while the recovery at start is held before its
// Initial barrier (the fault point recovery.before_initial_barrier), so
// that the view's job cannot take them and the engine holds them. Under
// a 64 MB --memory-budget the server's peak resident set, through the
// hold and the replay after it, must stay below the budget plus 384 MB:
// the Go heap's 160 MiB beyond the budget (Pebble's block cache and
// memtables are within it), the runtime and the collector's overshoot,
// none of which grows with the changes held. Measured with the spill
// (and the fixed 64 MiB block cache Pebble then had): 349 MB during the
// hold, 375 MB through the replay; with every change held in memory
// (the spill disabled) the hold alone passed 636 MB. Once released, the
// view must equal its query over the table, and both must hold exactly
// what the statements wrote: no change lost or applied twice.
func TestMemoryBudgetRecoveryHold(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const (
		old = 100_000   // rows before the hold, which the upsert updates
		n   = 1_500_000 // rows the upsert writes
	)
	release := filepath.Join(t.TempDir(), "release")
	srv := testenv.Start(t, testenv.Options{Args: memoryArgs(), ReadyTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	conn := connectHold(t, ctx, srv)
	for _, s := range []string{
		"CREATE TABLE t (g bigint PRIMARY KEY, m bigint, p text)",
		"CREATE MATERIALIZED VIEW v AS SELECT m, count(*) AS c, sum(g) AS s, sum(length(p)) AS l FROM t GROUP BY m",
		fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000, 'old' FROM generate_series(1, %d) g", old),
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close(ctx)

	srv.SetEnv("WEIR_FAULT=" + fault.RecoveryBeforeInitialBarrier + "@" + release)
	srv.Restart()
	pid := srv.Pid()
	resetPeak(t, pid)
	// Each statement waits for its epoch, which cannot commit before the
	// release; each runs on a connection of its own.
	upsert := runAsync(ctx, connectHold(t, ctx, srv), fmt.Sprintf(
		"INSERT INTO t SELECT g, g %% 997, repeat(md5(g::text), 8) FROM generate_series(1, %d) g "+
			"ON CONFLICT (g) DO UPDATE SET m = excluded.m, p = excluded.p", n))
	waitIdle(t, pid)
	del := runAsync(ctx, connectHold(t, ctx, srv), "DELETE FROM t WHERE g % 100 = 0")
	waitIdle(t, pid)
	for name, ch := range map[string]chan error{"the upsert": upsert, "the delete": del} {
		select {
		case err := <-ch:
			t.Fatalf("%s returned during the hold (err %v): the recovery was not held", name, err)
		default:
		}
	}
	held := procStatus(t, pid, "VmHWM")
	logs := dirBytes(t, filepath.Join(srv.DataDir, "logs"))
	t.Logf("during the hold: peak RSS %d MB, %d MB in the data directory's logs", held>>20, logs>>20)

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan error{"the upsert": upsert, "the delete": del} {
		if err := <-ch; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("through the replay: peak RSS %d MB", peak>>20)
	if limit := int64(budgetMB+384) << 20; peak > limit {
		t.Errorf("peak RSS %d MB, over %d MB with --memory-budget %d", peak>>20, limit>>20, budgetMB)
	}

	// The table holds g in 1..n but the multiples of 100, each with
	// m = g % 997 and 256 bytes of text; the view must say the same.
	var rows, sumG, sumL int64
	for g := int64(1); g <= n; g++ {
		if g%100 != 0 {
			rows, sumG, sumL = rows+1, sumG+g, sumL+256
		}
	}
	want := fmt.Sprintf("%d %d %d %d", 997, rows, sumG, sumL)
	conn = connectHold(t, ctx, srv)
	defer func() { conn.Close(ctx) }()
	for _, q := range []string{
		"SELECT count(*) || ' ' || sum(c) || ' ' || sum(s) || ' ' || sum(l) FROM v",
		"SELECT count(DISTINCT m) || ' ' || count(*) || ' ' || sum(g) || ' ' || sum(length(p)) FROM t",
	} {
		var got string
		if err := conn.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
	var diff int64
	const batch = "SELECT m, count(*), sum(g), sum(length(p)) FROM t GROUP BY m"
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM ("+batch+" EXCEPT SELECT * FROM v) a) + "+
		"(SELECT count(*) FROM (SELECT * FROM v EXCEPT "+batch+") b)").Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("the view and its query over the table differ in %d rows", diff)
	}
}

func connectHold(t *testing.T, ctx context.Context, srv *testenv.Server) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runAsync runs stmt on conn in a goroutine, closes conn, and sends the
// statement's error on the returned channel.
func runAsync(ctx context.Context, conn *pgx.Conn, stmt string) chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, stmt)
		conn.Close(ctx)
		ch <- err
	}()
	return ch
}

// waitIdle waits until process pid has used no more than a clock tick
// of CPU time in each of four half-seconds in a row: the statements
// sent to it have done all they can before the release.
func waitIdle(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Minute)
	prev, err := testenv.ProcessCPU(pid)
	quiet := 0
	for err == nil && quiet < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the server kept busy for 20 minutes")
		}
		time.Sleep(500 * time.Millisecond)
		var cpu time.Duration
		cpu, err = testenv.ProcessCPU(pid)
		if cpu-prev <= 10*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
		prev = cpu
	}
	if err != nil {
		t.Fatal(err)
	}
}

// dirBytes is the size of the files in dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}
