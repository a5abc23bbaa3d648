package hostile

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/tests/testenv"
)

// smallDisk mounts a 64 MiB tmpfs for the test and unmounts it at the
// end. Mounting needs root, which CI has; elsewhere the test fails and
// says so rather than passing untested.
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts a 64 MiB tmpfs to fill it and must run as root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount: %v: %s", err, out)
		}
	})
	return dir
}

// fill writes a filler file on dir's file system until it is full and
// then shrinks it so that leave bytes are free.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(max(0, fi.Size()-leave)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiskFull fills the data directory's file system. Writes then fail
// at once with 53100 naming the data directory, reads go on and the
// server stays up; a start on the full disk fails with the same clear
// error instead of spinning; once space is freed writes resume and
// nothing acknowledged is lost, across a SIGKILL.
func TestDiskFull(t *testing.T) {
	dir := smallDisk(t)
	// A budget of 256 MiB keeps Pebble's memtables at 4 MiB: the
	// default, sized from the machine's memory, gives 64 MiB ones, whose
	// write-ahead log file Pebble preallocates at 110% of a memtable,
	// more than this file system holds.
	srv := testenv.Start(t, testenv.Options{DataDir: filepath.Join(dir, "data"), Args: []string{"--disk-reserve-mb", "16", "--memory-budget", "256"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustExec("CREATE MATERIALIZED VIEW n AS SELECT count(*) AS c FROM t")
	mustExec("INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, 100) g")

	filler := fill(t, dir, 8<<20) // below the 16 MiB reserve
	for _, sql := range []string{
		"INSERT INTO t VALUES (101, 'x')",
		"UPDATE t SET v = 'y' WHERE id = 1",
		"CREATE TABLE u (id int)",
		"CREATE MATERIALIZED VIEW m AS SELECT * FROM t",
	} {
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53100" || !strings.Contains(pe.Message, srv.DataDir) {
			t.Errorf("%s on a full disk: got %v, want 53100 naming %s", sql, err, srv.DataDir)
		}
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("102\tz\n"), "COPY t FROM STDIN"); sqlstate(err) != "53100" {
		t.Errorf("COPY on a full disk: got %v, want 53100", err)
	}
	var c int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&c); err != nil || c != 100 {
		t.Errorf("reading the table on a full disk: %d, %v; want 100", c, err)
	}
	if err := conn.QueryRow(ctx, "SELECT c FROM n").Scan(&c); err != nil || c != 100 {
		t.Errorf("reading the view on a full disk: %d, %v; want 100", c, err)
	}
	if !srv.Running() {
		t.Fatal("the server exited on a full disk")
	}

	// A start on the full disk fails, saying why.
	conn.Close(ctx)
	srv.Kill()
	cmd := srv.Command()
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	out, err := cmd.CombinedOutput()
	timer.Stop()
	if err == nil || !strings.Contains(string(out), "reserve") || !strings.Contains(string(out), srv.DataDir) {
		t.Fatalf("start on a full disk: %v, output:\n%s\nwant a failure naming the data directory and its reserve", err, out)
	}

	// Space returns: everything resumes.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	srv.Restart()
	conn, err = pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	mustExec("INSERT INTO t VALUES (101, 'x')")
	mustExec("CREATE TABLE u (id int)")
	conn.Close(ctx)
	srv.Kill()
	srv.Restart()
	conn, err = pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&c); err != nil || c != 101 {
		t.Errorf("after the disk was freed and a SIGKILL: %d rows, %v; want 101", c, err)
	}
	if err := conn.QueryRow(ctx, "SELECT c FROM n").Scan(&c); err != nil || c != 101 {
		t.Errorf("the view after the disk was freed and a SIGKILL: %d, %v; want 101", c, err)
	}
}
