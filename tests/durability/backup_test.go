package durability

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// TestOfflineBackup copies a stopped server's data directory with `weir
// backup`, refuses to copy one a server is running on, and serves the
// copy: its table and view hold what the original held, and the view
// follows the copy's own writes.
func TestOfflineBackup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	orig := testenv.Start(t, testenv.Options{})
	conn := connect(t, ctx, orig)
	exec1(t, ctx, conn, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW n AS SELECT v, count(*) AS c FROM t GROUP BY v")
	exec1(t, ctx, conn, "INSERT INTO t SELECT i, 'v' || (i % 3) FROM generate_series(1, 30) i")
	conn.Close(ctx)

	copyDir := filepath.Join(t.TempDir(), "copy")
	backup := func() (string, error) {
		out, err := exec.Command(testenv.Binary(t), "backup", "--data-dir", orig.DataDir, "--to", copyDir).CombinedOutput()
		return string(out), err
	}
	if out, err := backup(); err == nil || !strings.Contains(out, "55006") {
		t.Fatalf("weir backup of a directory in use: %v\n%s", err, out)
	}
	orig.Stop()
	out, err := backup()
	if err != nil || !strings.Contains(out, "written to "+copyDir) {
		t.Fatalf("weir backup: %v\n%s", err, out)
	}

	cp := testenv.Start(t, testenv.Options{DataDir: copyDir})
	want := []string{"1:v1", "2:v2", "3:v0"}
	if got := rows(t, ctx, cp); len(got) != 30 || strings.Join(got[:3], " ") != strings.Join(want, " ") {
		t.Fatalf("the copy's t: %q", got)
	}
	c := connect(t, ctx, cp)
	exec1(t, ctx, c, "INSERT INTO t VALUES (31, 'v9')")
	exec1(t, ctx, c, "DELETE FROM t WHERE id <= 3")
	var diff int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM (SELECT v, c FROM n EXCEPT SELECT v, count(*) FROM t GROUP BY v) x`).Scan(&diff); err != nil || diff != 0 {
		t.Fatalf("the copy's view differs from its query in %d rows (%v)", diff, err)
	}
	var nine int
	if err := c.QueryRow(ctx, `SELECT c FROM n WHERE v = 'v9'`).Scan(&nine); err != nil || nine != 1 {
		t.Fatalf("the copy's view counts %d rows of v9 (%v)", nine, err)
	}
}

// TestOfflineBackupHandsOverSinks hands a stopped server's sinks over to
// an offline copy: `weir backup --hand-over-sinks` names them, the
// original restarts without them and the copy, started with
// --take-over-sinks, runs them.
func TestOfflineBackupHandsOverSinks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	orig := testenv.Start(t, testenv.Options{})
	conn := connect(t, ctx, orig)
	exec1(t, ctx, conn, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW n AS SELECT v, count(*) AS c FROM t GROUP BY v")
	exec1(t, ctx, conn, "CREATE SINK hole FROM n WITH (connector = 'blackhole', primary_key = 'v') FORMAT UPSERT ENCODE JSON")
	exec1(t, ctx, conn, "INSERT INTO t SELECT i, 'v' || (i % 3) FROM generate_series(1, 30) i")
	conn.Close(ctx)
	orig.Stop()

	copyDir := filepath.Join(t.TempDir(), "copy")
	out, err := exec.Command(testenv.Binary(t), "backup", "--data-dir", orig.DataDir, "--to", copyDir, "--hand-over-sinks").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "dropped from "+orig.DataDir+": hole\n") || !strings.Contains(string(out), "--take-over-sinks") {
		t.Fatalf("weir backup --hand-over-sinks: %v\n%s", err, out)
	}
	sinks := func(s *testenv.Server) string {
		c := connect(t, ctx, s)
		defer c.Close(ctx)
		var names string
		if err := c.QueryRow(ctx, "SELECT coalesce(string_agg(name, ','), '') FROM weir.sinks").Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	orig.Restart()
	if got := sinks(orig); got != "" {
		t.Fatalf("the original still has sinks %q after handing them over", got)
	}
	cp := testenv.Start(t, testenv.Options{DataDir: copyDir, Args: []string{"--take-over-sinks"}})
	if got := sinks(cp); got != "hole" {
		t.Fatalf("the copy's sinks: %q", got)
	}
}
