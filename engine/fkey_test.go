package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestForeignKeyCascadeReachesViews: the rows a foreign key's actions
// change (ON DELETE CASCADE, ON UPDATE CASCADE, SET NULL) reach the
// materialized views over the referencing table as a DELETE or UPDATE
// of them would, in the same statement, through a second level of
// cascade too, in a transaction block as outside one; a failed cascade
// leaves nothing behind.
func TestForeignKeyCascadeReachesViews(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE, v int)")
	mustRun(t, s, "CREATE TABLE g (id int PRIMARY KEY, cid int REFERENCES c ON DELETE SET NULL, w int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cs AS SELECT pid, count(*) AS n, sum(v) AS s FROM c GROUP BY pid")
	mustRun(t, s, "CREATE MATERIALIZED VIEW gs AS SELECT count(cid) AS linked, count(*) AS n FROM g")
	mustRun(t, s, "INSERT INTO p VALUES (1), (2), (3)")
	mustRun(t, s, "INSERT INTO c VALUES (10, 1, 1), (11, 1, 2), (20, 2, 5), (30, 3, 7)")
	mustRun(t, s, "INSERT INTO g VALUES (100, 10, 0), (101, 20, 0), (102, 30, 0)")
	wantRows(t, s, "SELECT * FROM cs ORDER BY pid", "1 2 3", "2 1 5", "3 1 7")
	wantRows(t, s, "SELECT * FROM gs", "3 3")

	mustRun(t, s, "DELETE FROM p WHERE id = 1")
	wantRows(t, s, "SELECT * FROM cs ORDER BY pid", "2 1 5", "3 1 7")
	wantRows(t, s, "SELECT * FROM gs", "2 3")
	wantRows(t, s, "SELECT id, cid FROM g ORDER BY id", "100 NULL", "101 20", "102 30")

	mustRun(t, s, "UPDATE p SET id = 4 WHERE id = 2")
	wantRows(t, s, "SELECT * FROM cs ORDER BY pid", "3 1 7", "4 1 5")

	mustRun(t, s, "BEGIN")
	mustRun(t, s, "DELETE FROM p WHERE id = 3")
	wantRows(t, s, "SELECT id FROM c ORDER BY id", "20")
	mustRun(t, s, "COMMIT")
	wantRows(t, s, "SELECT * FROM cs ORDER BY pid", "4 1 5")
	wantRows(t, s, "SELECT * FROM gs", "1 3")

	// A cascade that fails further down (g.cid NOT NULL now) changes
	// nothing, the views included.
	mustRun(t, s, "DELETE FROM g WHERE cid IS NULL")
	mustRun(t, s, "ALTER TABLE g ALTER COLUMN cid SET NOT NULL")
	wantCode(t, s, "DELETE FROM p WHERE id = 4", pgerr.NotNullViolation, `null value in column "cid" of relation "g" violates not-null constraint`)
	wantRows(t, s, "SELECT id FROM p", "4")
	wantRows(t, s, "SELECT * FROM cs ORDER BY pid", "4 1 5")
	wantRows(t, s, "SELECT * FROM gs", "1 1")
}

// TestForeignKeyConcurrentBlocks: a transaction block's foreign key
// checks ran against what it saw; COMMIT checks its net changes again
// against what other sessions committed since, so neither order of a
// reference and the removal of its key leaves a row referencing
// nothing.
func TestForeignKeyConcurrentBlocks(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE p (id int PRIMARY KEY)")
	mustRun(t, a, "CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p)")
	mustRun(t, a, "INSERT INTO p VALUES (1), (2)")

	// The block references 1, another session removes it.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "INSERT INTO c VALUES (1, 1)")
	mustRun(t, b, "DELETE FROM p WHERE id = 1")
	if _, err := run(t, a, "COMMIT"); err == nil {
		t.Fatal("COMMIT of a reference to a key removed since succeeded")
	} else if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.SerializationFailure && pe.Code != pgerr.ForeignKeyViolation {
		t.Fatalf("COMMIT failed with %v, want 40001 or 23503", err)
	}
	wantRows(t, a, "SELECT count(*) FROM c", "0")

	// The block removes 2, another session references it meanwhile.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "DELETE FROM p WHERE id = 2")
	mustRun(t, b, "INSERT INTO c VALUES (2, 2)")
	wantCode(t, a, "COMMIT", pgerr.ForeignKeyViolation, `update or delete on table "p" violates foreign key constraint "c_pid_fkey" on table "c"`)
	wantRows(t, a, "SELECT * FROM p", "2")
	wantRows(t, a, "SELECT * FROM c", "2 2")
}

// TestForeignKeysSurviveRestart: foreign keys, a table's reference to
// itself included, are kept in the catalog and enforced after a restart.
func TestForeignKeysSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree ON DELETE CASCADE)")
	mustRun(t, s, "CREATE TABLE leaf (id int PRIMARY KEY, t int, CONSTRAINT on_tree FOREIGN KEY (t) REFERENCES tree ON UPDATE SET NULL)")
	mustRun(t, s, "INSERT INTO tree VALUES (1, NULL), (2, 1)")
	mustRun(t, s, "INSERT INTO leaf VALUES (1, 2)")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT conname, conrelid = confrelid, confupdtype, confdeltype FROM pg_constraint WHERE contype = 'f' ORDER BY 1",
		"on_tree f n a", "tree_parent_fkey t a c")
	wantCode(t, s, "INSERT INTO tree VALUES (3, 9)", pgerr.ForeignKeyViolation, `insert or update on table "tree" violates foreign key constraint "tree_parent_fkey"`)
	mustRun(t, s, "UPDATE tree SET id = 20 WHERE id = 2")
	wantRows(t, s, "SELECT * FROM leaf", "1 NULL")
	mustRun(t, s, "DELETE FROM tree WHERE id = 1")
	wantRows(t, s, "SELECT count(*) FROM tree", "0")
}
