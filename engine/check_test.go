package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestChecksSurviveRestart: CHECK constraints (made by CREATE TABLE and
// ALTER TABLE, renamed with their column) and generated columns are
// kept in the catalog: after a restart they are still enforced and
// computed, and a dropped constraint stays dropped.
func TestChecksSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, a int CHECK (a > 0), b int GENERATED ALWAYS AS (a * 2) STORED, CONSTRAINT small CHECK (b < 100))")
	mustRun(t, s, "ALTER TABLE t ADD CONSTRAINT odd CHECK (k % 2 = 1)")
	mustRun(t, s, "ALTER TABLE t ADD CONSTRAINT gone CHECK (k < 1000)")
	mustRun(t, s, "ALTER TABLE t DROP CONSTRAINT gone")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN a TO x")
	mustRun(t, s, "INSERT INTO t VALUES (1, 5)")
	mustRun(t, s, "ALTER TABLE t ADD CONSTRAINT later CHECK (k <> 1) NOT VALID")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM t", "1 5 10")
	mustRun(t, s, "INSERT INTO t VALUES (2001, 7)")
	for _, c := range []struct{ stmt, constraint string }{
		{"INSERT INTO t VALUES (3, 0)", "t_a_check"},
		{"INSERT INTO t VALUES (3, 50)", "small"},
		{"INSERT INTO t VALUES (2, 1)", "odd"},
		{"UPDATE t SET x = -1 WHERE k = 2001", "t_a_check"},
	} {
		_, err := run(t, s, c.stmt)
		if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.CheckViolation || pe.ConstraintName != c.constraint {
			t.Fatalf("%s after a restart: %v, want 23514 on %s", c.stmt, err, c.constraint)
		}
	}
	wantRows(t, s, "SELECT * FROM t ORDER BY k", "1 5 10", "2001 7 14")
	wantRows(t, s, "SELECT conname, convalidated FROM pg_constraint WHERE contype = 'c' ORDER BY 1", "later f", "odd t", "small t", "t_a_check t")
	if _, err := run(t, s, "ALTER TABLE t VALIDATE CONSTRAINT later"); pgerr.As(err) == nil || pgerr.As(err).Code != pgerr.CheckViolation {
		t.Fatalf("VALIDATE CONSTRAINT over a failing row: %v", err)
	}
	wantRows(t, s, "SELECT pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conname = 't_a_check'", "CHECK (x > 0)")
}

// TestLockTable: LOCK TABLE is PostgreSQL's 25P01 outside a transaction
// block; inside one a missing table is 42P01, a sequence 42809, and an
// existing table is locked (locks_test.go has what the locks do).
func TestLockTable(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int)")
	for _, c := range []struct {
		stmt string
		code pgerr.Code
	}{
		{"LOCK TABLE t", pgerr.NoActiveSQLTransaction},
		{"LOCK t IN ACCESS SHARE MODE NOWAIT", pgerr.NoActiveSQLTransaction},
		{"BEGIN", ""},
		{"LOCK TABLE nope", pgerr.UndefinedTable},
		{"ROLLBACK", ""},
		{"BEGIN", ""},
		{"LOCK TABLE t IN SHARE ROW EXCLUSIVE MODE", ""},
		{"LOCK t, t IN ACCESS SHARE MODE NOWAIT", ""},
		{"COMMIT", ""},
		{"CREATE SEQUENCE q", ""},
		{"BEGIN", ""},
		{"LOCK q", pgerr.WrongObjectType},
		{"ROLLBACK", ""},
		{"LOCK TABLE t IN SOME MODE", pgerr.SyntaxError},
	} {
		_, err := run(t, s, c.stmt)
		if c.code == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.stmt, err)
			}
			continue
		}
		if pe := pgerr.As(err); pe == nil || pe.Code != c.code {
			t.Fatalf("%s: %v, want %s", c.stmt, err, c.code)
		}
	}
}
