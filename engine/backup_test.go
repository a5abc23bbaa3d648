package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
)

func wantErrCode(t *testing.T, err error, code pgerr.Code, text string) {
	t.Helper()
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Fatalf("%s: got %v, want SQLSTATE %s", text, err, code)
	}
}

// TestBackupRestore takes a backup while the database runs, changes the
// original afterwards, and opens the copy: its views hold what they held
// at the backup's epoch, keep streaming the copy's own writes, and equal
// their queries.
func TestBackupRestore(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW big AS SELECT k, v FROM t WHERE v >= 10")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1, 5), (2, 1, 10), (3, 2, 20)")

	if _, err := run(t, s, "BACKUP TO 'relative/dir'"); err == nil {
		t.Fatal("a relative backup directory was accepted")
	} else {
		wantErrCode(t, err, pgerr.InvalidParameterValue, "relative directory")
	}
	if _, err := run(t, s, "BACKUP TO '/bk' WITH (bogus = 1)"); err == nil {
		t.Fatal("an unknown option was accepted")
	}
	rows := mustRun(t, s, "BACKUP TO '/bk'")
	if len(rows) != 1 || !strings.HasSuffix(rows[0], " /bk") {
		t.Fatalf("BACKUP returned %q", rows)
	}
	if _, err := run(t, s, "BACKUP TO '/bk'"); err == nil {
		t.Fatal("a backup into a non-empty directory was accepted")
	} else {
		wantErrCode(t, err, pgerr.DuplicateObject, "existing directory")
	}
	// Changes after the backup stay in the original.
	mustRun(t, s, "INSERT INTO t VALUES (4, 2, 40)")
	mustRun(t, s, "DELETE FROM t WHERE k = 1")
	wantRows(t, s, "SELECT g, n, s FROM agg ORDER BY g", "1 1 10", "2 2 60")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	c, err := Open(Config{DataDir: "/bk", Storage: storage.Options{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cs := session(t, c)
	wantRows(t, cs, "SELECT g, n, s FROM agg ORDER BY g", "1 2 15", "2 1 20")
	wantRows(t, cs, "SELECT k, v FROM big ORDER BY k", "2 10", "3 20")
	mustRun(t, cs, "INSERT INTO t VALUES (5, 1, 50)")
	mustRun(t, cs, "UPDATE t SET v = 1 WHERE k = 3")
	wantRows(t, cs, "SELECT g, n, s FROM agg ORDER BY g", "1 3 65", "2 1 1")
	wantRows(t, cs, "SELECT k, v FROM big ORDER BY k", "2 10", "5 50")
	wantRows(t, cs, "SELECT g, count(*), sum(v) FROM t GROUP BY g ORDER BY g", "1 3 65", "2 1 1")
	// The copy's sinks are held until --take-over-sinks.
	_, err = run(t, cs, "CREATE SINK k FROM agg WITH (connector = 'kafka', topic = 'x', properties.bootstrap.server = '127.0.0.1:1') FORMAT UPSERT ENCODE JSON (primary_key = 'g')")
	wantErrCode(t, err, pgerr.ObjectNotInPrerequisiteState, "CREATE SINK in a held copy")
	if v, ok, err := c.db.Meta(metaRestoredFrom); err != nil || !ok || !strings.Contains(string(v), `"database_id":"`+c.databaseID+`"`) {
		t.Fatalf("restored_from = %q, %v, %v", v, ok, err)
	}
}

// TestBackupOfflineTakeOver copies a closed data directory with weir
// backup's function, and checks that the copy's sinks are held until it
// is opened with TakeOverSinks, which lifts the hold for good. (A copy
// that has sinks refuses to open while held: tests/kafka checks it.)
func TestBackupOfflineTakeOver(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2)")
	e.Close()
	// Closing commits the INSERT's epoch (a shutdown checkpoint).
	committed := e.st.committed.Load()

	res, err := BackupOffline("data", "/copy", true, storage.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	if res.Epoch != committed {
		t.Fatalf("backup epoch %d, last committed %d", res.Epoch, committed)
	}
	if _, err := BackupOffline("data", "/copy", false, storage.Options{FS: fs}); err == nil {
		t.Fatal("a backup over an existing copy was accepted")
	}
	// The original is not held: a hand-over drops its sinks instead.
	o := openTest(t, fs)
	if o.sinksHeld.Load() != nil {
		t.Fatal("the original's sinks are held after a hand-over")
	}
	o.Close()

	c, err := Open(Config{DataDir: "/copy", Storage: storage.Options{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	if c.sinksHeld.Load() == nil {
		t.Fatal("the copy's sinks are not held")
	}
	wantRows(t, session(t, c), "SELECT k FROM t ORDER BY k", "1", "2")
	c.Close()
	c, err = Open(Config{DataDir: "/copy", Storage: storage.Options{FS: fs}, TakeOverSinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.sinksHeld.Load() != nil {
		t.Fatal("--take-over-sinks left the sinks held")
	}
	c.Close()
	c, err = Open(Config{DataDir: "/copy", Storage: storage.Options{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.sinksHeld.Load() != nil {
		t.Fatal("the take-over did not last")
	}
}
