package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/wire"
)

// TestAlterTableKeepsDefinitions: after ADD and RENAME COLUMN the views
// created before read the table as they did, running and after a
// restart (their definitions are bound again then, through the pinned
// columns), while views created after see the new columns.
func TestAlterTableKeepsDefinitions(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	mustRun(t, s, "CREATE MATERIALIZED VIEW star AS SELECT * FROM t")
	mustRun(t, s, "CREATE VIEW bs AS SELECT a, b FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW over_view AS SELECT b, count(*) AS n FROM bs GROUP BY b")
	mustRun(t, s, "ALTER TABLE t ADD COLUMN c int DEFAULT 10")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN b TO label")
	mustRun(t, s, "INSERT INTO t VALUES (3, 'x', 30)")
	wantRows(t, s, "SELECT * FROM star ORDER BY a", "1 x", "2 y", "3 x")
	wantRows(t, s, "SELECT * FROM bs ORDER BY a", "1 x", "2 y", "3 x")
	wantRows(t, s, "SELECT * FROM over_view ORDER BY b", "x 2", "y 1")
	wantRows(t, s, "SELECT * FROM t ORDER BY a", "1 x 10", "2 y 10", "3 x 30")
	mustRun(t, s, "CREATE MATERIALIZED VIEW later AS SELECT label, c FROM t WHERE c > 5")
	wantRows(t, s, "SELECT * FROM later ORDER BY c, label", "x 10", "y 10", "x 30")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t VALUES (4, 'y', 40)")
	wantRows(t, s, "SELECT * FROM star ORDER BY a", "1 x", "2 y", "3 x", "4 y")
	wantRows(t, s, "SELECT * FROM bs ORDER BY a", "1 x", "2 y", "3 x", "4 y")
	wantRows(t, s, "SELECT * FROM over_view ORDER BY b", "x 2", "y 2")
	wantRows(t, s, "SELECT * FROM later ORDER BY c, label", "x 10", "y 10", "x 30", "y 40")
	star, _ := e.cat.Lookup("", "star")
	tbl, _ := e.cat.Lookup("", "t")
	if got := strings.Join(star.DepCols[tbl.ID], ","); got != "a,b" {
		t.Fatalf("star pins t's columns as %q, want a,b", got)
	}
}

// TestDropColumn: a column read by a view cannot be dropped without
// CASCADE; an unused one can, and a column added again under its name
// starts empty (the dropped values stay unreachable).
func TestDropColumn(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text, c int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x', 5)")
	mustRun(t, s, "CREATE VIEW vb AS SELECT a, b FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mc AS SELECT sum(c) AS s FROM t")
	mustRun(t, s, "CREATE INDEX t_c ON t (c)")
	_, err := run(t, s, "ALTER TABLE t DROP COLUMN c")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.DependentObjectsStillExist || pe.Detail != "materialized view mc depends on column c of table t" {
		t.Fatalf("DROP COLUMN c: %v", err)
	}
	_, err = run(t, s, "ALTER TABLE t DROP COLUMN a")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported {
		t.Fatalf("DROP COLUMN of the key: %v", err)
	}
	if n := runNotices(t, s, "ALTER TABLE t DROP COLUMN c CASCADE"); len(n) != 1 || n[0] != "drop cascades to materialized view mc" {
		t.Fatalf("notices: %q", n)
	}
	for _, gone := range []string{"mc", "t_c"} {
		if _, ok := e.cat.Lookup("", gone); ok {
			t.Fatalf("%s survived the drop of the column it reads", gone)
		}
	}
	wantRows(t, s, "SELECT * FROM vb", "1 x")
	mustRun(t, s, "ALTER TABLE t ADD COLUMN c int")
	mustRun(t, s, "INSERT INTO t VALUES (2, 'y', 7)")
	wantRows(t, s, "SELECT * FROM t ORDER BY a", "1 x NULL", "2 y 7")
	if _, err := run(t, s, `SELECT "........pg.dropped.3........" FROM t`); pgerr.As(err) == nil || pgerr.As(err).Code != pgerr.UndefinedColumn {
		t.Fatalf("the dropped column is reachable: %v", err)
	}
	if n := runNotices(t, s, "ALTER TABLE t DROP COLUMN b CASCADE"); len(n) != 1 || n[0] != "drop cascades to view vb" {
		t.Fatalf("notices: %q", n)
	}
	wantRows(t, s, "SELECT * FROM t ORDER BY a", "1 NULL", "2 7")
	for _, q := range []string{"SHOW COLUMNS FROM t", "DESCRIBE t"} {
		if rows := strings.Join(mustRun(t, s, q), "\n"); strings.Contains(rows, "dropped") {
			t.Fatalf("%s lists dropped columns:\n%s", q, rows)
		}
	}
}

// TestAlterTableBackup: a backup taken after ADD and DROP COLUMN opens
// with the added column's missing value and the dropped column gone.
func TestAlterTableBackup(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text, c int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x', 5)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT a, c FROM t")
	mustRun(t, s, "ALTER TABLE t ADD COLUMN d numeric DEFAULT 1.50")
	mustRun(t, s, "ALTER TABLE t DROP COLUMN b")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN c TO cc")
	mustRun(t, s, "INSERT INTO t VALUES (2, 6, 2.25)")
	mustRun(t, s, "BACKUP TO '/bk'")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Open(Config{DataDir: "/bk", Storage: storage.Options{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s = session(t, c)
	wantRows(t, s, "SELECT * FROM t ORDER BY a", "1 5 1.50", "2 6 2.25")
	wantRows(t, s, "SELECT a, cc FROM t WHERE d > 2", "2 6")
	mustRun(t, s, "INSERT INTO t VALUES (3, 7, 3)")
	wantRows(t, s, "SELECT * FROM m ORDER BY a", "1 5", "2 6", "3 7")
}

// TestAlterTablePreparedWrites: statements prepared before ADD COLUMN
// write rows holding the added column (its missing value for a new row,
// the stored value for an updated one), so jobs planned after the change
// get whole rows.
func TestAlterTablePreparedWrites(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE pt (a int PRIMARY KEY, b text)")
	mustRun(t, s, "PREPARE ins AS INSERT INTO pt VALUES ($1, $2)")
	mustRun(t, s, "PREPARE upd AS UPDATE pt SET b = b || '!' WHERE a = $1")
	mustRun(t, s, "PREPARE del AS DELETE FROM pt WHERE a = $1")
	mustRun(t, s, "EXECUTE ins(1, 'x')")
	mustRun(t, s, "EXECUTE ins(3, 'w')")
	mustRun(t, s, "ALTER TABLE pt ADD COLUMN z int DEFAULT 3")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mz AS SELECT * FROM pt")
	mustRun(t, s, "CREATE MATERIALIZED VIEW ms AS SELECT sum(z) AS s, count(*) AS n FROM pt")
	mustRun(t, s, "EXECUTE ins(2, 'y')")
	mustRun(t, s, "UPDATE pt SET z = 10 WHERE a = 1")
	mustRun(t, s, "EXECUTE upd(1)")
	mustRun(t, s, "EXECUTE del(3)")
	wantRows(t, s, "SELECT * FROM pt ORDER BY a", "1 x! 10", "2 y 3")
	wantRows(t, s, "SELECT * FROM mz ORDER BY a", "1 x! 10", "2 y 3")
	wantRows(t, s, "SELECT * FROM ms", "13 2")
}

// TestAlterTableIndexes: an index keeps serving its column after the
// column is renamed, and never a new column that took its old name.
func TestAlterTableIndexes(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	mustRun(t, s, "CREATE INDEX t_b ON t (b)")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN b TO c")
	mustRun(t, s, "ALTER TABLE t ADD COLUMN b text DEFAULT 'y'")
	mustRun(t, s, "INSERT INTO t VALUES (3, 'x', 'x')")
	wantRows(t, s, "SELECT a FROM t WHERE b = 'x' ORDER BY a", "3")
	wantRows(t, s, "SELECT a FROM t WHERE c = 'x' ORDER BY a", "1", "3")
	plan := strings.Join(mustRun(t, s, "EXPLAIN SELECT a FROM t WHERE c = 'x'"), "\n")
	if !strings.Contains(plan, "t_b") {
		t.Fatalf("the renamed column's index is not used:\n%s", plan)
	}
	plan = strings.Join(mustRun(t, s, "EXPLAIN SELECT a FROM t WHERE b = 'x'"), "\n")
	if strings.Contains(plan, "t_b") {
		t.Fatalf("the index serves the new column of its column's old name:\n%s", plan)
	}
}

// TestDefaultRefusesSubquery: a DEFAULT, in CREATE TABLE or ALTER TABLE,
// may not hold a subquery (0A000, as in PostgreSQL), constant or not.
func TestDefaultRefusesSubquery(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE r5 (k int PRIMARY KEY, b int)")
	for _, stmt := range []string{
		"ALTER TABLE r5 ALTER COLUMN b SET DEFAULT (SELECT 7)",
		"ALTER TABLE r5 ADD COLUMN q int DEFAULT (SELECT 5)",
		"CREATE TABLE r6 (k int DEFAULT (SELECT max(k) FROM r5))",
	} {
		_, err := run(t, s, stmt)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.FeatureNotSupported || pe.Message != "cannot use subquery in DEFAULT expression" {
			t.Fatalf("%s: got %v", stmt, err)
		}
	}
	mustRun(t, s, "CREATE TABLE r7 (k int DEFAULT (1 + 2))")
}

// TestRenamesFollowedByDefinitions: after column renames that swap two
// names and a rename of a table named like its own column, the views
// and materialized views reading them read the same columns, running
// and after a restart, and pg_get_viewdef prints today's names.
func TestRenamesFollowedByDefinitions(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE s (a int, b int)")
	mustRun(t, s, "INSERT INTO s VALUES (1, 2)")
	mustRun(t, s, "CREATE VIEW sv AS SELECT a, b FROM s WHERE a < b")
	mustRun(t, s, "CREATE MATERIALIZED VIEW smv AS SELECT a, sum(b) AS t FROM s GROUP BY a")
	mustRun(t, s, "CREATE TABLE tt (tt int, x int)")
	mustRun(t, s, "INSERT INTO tt VALUES (5, 6)")
	mustRun(t, s, "CREATE VIEW tv AS SELECT tt FROM tt WHERE x > 0")
	mustRun(t, s, "ALTER TABLE s RENAME COLUMN a TO tmp")
	mustRun(t, s, "ALTER TABLE s RENAME COLUMN b TO a")
	mustRun(t, s, "ALTER TABLE s RENAME COLUMN tmp TO b")
	mustRun(t, s, "ALTER TABLE tt RENAME TO tt2")
	mustRun(t, s, "ALTER TABLE s RENAME TO s2")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM sv", "1 2")
		wantRows(t, s, "SELECT * FROM smv ORDER BY a", "1 2", "10 3")
		wantRows(t, s, "SELECT * FROM tv", "5")
		wantRows(t, s, "SELECT pg_get_viewdef('sv'::regclass, true)", " SELECT s2.b AS a,\n    s2.a AS b\n   FROM s2\n  WHERE s2.b < s2.a;")
		wantRows(t, s, "SELECT definition FROM pg_matviews", " SELECT s2.b AS a,\n    sum(s2.a) AS t\n   FROM s2\n  GROUP BY s2.b;")
		wantRows(t, s, "SELECT pg_get_viewdef('tv'::regclass)", " SELECT tt2.tt\n   FROM tt2\n  WHERE (tt2.x > 0);")
	}
	// The views read the first column as a: 10, the second as b: 3.
	mustRun(t, s, "INSERT INTO s2 VALUES (10, 3)")
	check(s)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	check(session(t, e))
}

// TestDefaultExpressionChecks: a DEFAULT is checked as PostgreSQL's
// cookDefault checks it, in CREATE TABLE, ALTER TABLE and CREATE
// DOMAIN: a column reference is 0A000 (at its position in CREATE TABLE),
// an aggregate 42803, and the value must convert to the column's type
// by an assignment cast (42804), a typed text no more than any other.
func TestDefaultExpressionChecks(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE d0 (a int)")
	for _, c := range []struct {
		q    string
		code pgerr.Code
		msg  string
		pos  int
	}{
		{"CREATE TABLE d1 (x int, y int DEFAULT x = 1)", pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression", 39},
		{"CREATE TABLE d1 (x int, y int DEFAULT length(x::text) + 1)", pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression", 46},
		{"CREATE TABLE d1 (y int DEFAULT (SELECT 1) + x)", pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression", 32},
		{"CREATE TABLE d1 (y int DEFAULT sum(1))", pgerr.GroupingError, "aggregate functions are not allowed in DEFAULT expressions", 32},
		{"ALTER TABLE d0 ALTER COLUMN a SET DEFAULT a + 1", pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression", 0},
		{"ALTER TABLE d0 ADD COLUMN b int DEFAULT a", pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression", 0},
		{"CREATE TABLE d1 (ts timestamptz DEFAULT 'abc'::text)", pgerr.DatatypeMismatch, `column "ts" is of type timestamp with time zone but default expression is of type text`, 0},
		{"CREATE TABLE d1 (n numeric DEFAULT now())", pgerr.DatatypeMismatch, `column "n" is of type numeric but default expression is of type timestamp with time zone`, 0},
		{"ALTER TABLE d0 ALTER COLUMN a SET DEFAULT 'x'::text", pgerr.DatatypeMismatch, `column "a" is of type integer but default expression is of type text`, 0},
		{"ALTER TABLE d0 ADD COLUMN c bool DEFAULT 1", pgerr.DatatypeMismatch, `column "c" is of type boolean but default expression is of type integer`, 0},
		{"CREATE DOMAIN dd AS int DEFAULT 'x'::text", pgerr.DatatypeMismatch, `column "dd" is of type integer but default expression is of type text`, 0},
	} {
		_, err := run(t, s, c.q)
		if err == nil {
			t.Errorf("%s: no error, want %s %q", c.q, c.code, c.msg)
			continue
		}
		if pe := pgerr.As(err); pe.Code != c.code || pe.Message != c.msg || pe.Position != c.pos {
			t.Errorf("%s: got %v (position %d), want %s %q at %d", c.q, err, pe.Position, c.code, c.msg, c.pos)
		}
	}
	// Assignment casts are fine, and so is a literal of no type.
	mustRun(t, s, "CREATE TABLE d2 (i int DEFAULT 1.5, t text DEFAULT 1, b bigint DEFAULT 1::numeric, ts timestamptz DEFAULT '2020-01-01', d date DEFAULT now())")
	mustRun(t, s, "INSERT INTO d2 DEFAULT VALUES")
	wantRows(t, s, "SELECT i, t, b, ts IS NOT NULL FROM d2", "2 1 1 t")
}

// TestUnloggedTable: CREATE UNLOGGED TABLE makes a table that pg_class
// calls unlogged (relpersistence 'u') and SHOW CREATE TABLE shows so;
// ALTER TABLE ... SET LOGGED | UNLOGGED switches what it is called, with
// PostgreSQL's 42P16 for temporary tables and for foreign keys from a
// logged table to an unlogged one. weir keeps its rows as durably as any
// table's: they survive a crash, and a materialized view over it
// follows it as usual.
func TestUnloggedTable(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE UNLOGGED TABLE un (a int PRIMARY KEY, b text)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW un_n AS SELECT count(*) AS n FROM un")
	mustRun(t, s, "INSERT INTO un VALUES (1, 'x'), (2, 'y')")
	persistence := func(s wire.Session, want string) {
		t.Helper()
		wantRows(t, s, "SELECT relpersistence FROM pg_class WHERE relname = 'un'", want)
	}
	persistence(s, "u")
	wantRows(t, s, "SHOW CREATE TABLE un", "public.un CREATE UNLOGGED TABLE un (a int PRIMARY KEY, b text)")
	wantCode(t, s, "CREATE TABLE lg (a int REFERENCES un)", pgerr.InvalidTableDefinition, "constraints on permanent tables may reference only permanent tables")
	mustRun(t, s, "CREATE UNLOGGED TABLE un2 (a int REFERENCES un)")
	wantCode(t, s, "ALTER TABLE un2 SET LOGGED", pgerr.InvalidTableDefinition, `could not change table "un2" to logged because it references unlogged table "un"`)
	mustRun(t, s, "ALTER TABLE un SET LOGGED")
	persistence(s, "p")
	wantRows(t, s, "SHOW CREATE TABLE un", "public.un CREATE TABLE un (a int PRIMARY KEY, b text)")
	mustRun(t, s, "ALTER TABLE un2 SET LOGGED")
	wantCode(t, s, "ALTER TABLE un SET UNLOGGED", pgerr.InvalidTableDefinition, `could not change table "un" to unlogged because it references logged table "un2"`)
	mustRun(t, s, "DROP TABLE un2")
	mustRun(t, s, "ALTER TABLE un SET UNLOGGED")
	mustRun(t, s, "CREATE TEMP TABLE tmp (a int)")
	wantCode(t, s, "ALTER TABLE tmp SET UNLOGGED", pgerr.InvalidTableDefinition, `cannot change logged status of table "tmp" because it is temporary`)
	wantCode(t, s, "ALTER TABLE un_n SET LOGGED", pgerr.WrongObjectType, `ALTER action SET LOGGED cannot be performed on relation "un_n"`)
	wantCode(t, s, "CREATE UNLOGGED MATERIALIZED VIEW m2 AS SELECT 1", pgerr.FeatureNotSupported, "materialized views cannot be unlogged")
	mustRun(t, s, "INSERT INTO un VALUES (3, 'z')")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()
	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	persistence(s, "u")
	wantRows(t, s, "SHOW CREATE TABLE un", "public.un CREATE UNLOGGED TABLE un (a int PRIMARY KEY, b text)")
	wantRows(t, s, "SELECT a, b FROM un ORDER BY a", "1 x", "2 y", "3 z")
	mustRun(t, s, "INSERT INTO un VALUES (4, 'w')")
	wantRows(t, s, "SELECT n FROM un_n", "4")
}
