package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/wire"
)

// TestRenameCannotRedirectAView: a role renaming its own table to the
// name of a column the view reads from another table must not make the
// view read that column: the view keeps reading what it read (or the
// rename is refused), so no privilege leaks.
func TestRenameCannotRedirectAView(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	root := session(t, e)
	mustRun(t, root, "CREATE ROLE lowly LOGIN")
	mustRun(t, root, "GRANT CREATE ON SCHEMA public TO lowly")
	mustRun(t, root, "CREATE TABLE rt (id int PRIMARY KEY, lt int, salary int)")
	mustRun(t, root, "INSERT INTO rt VALUES (1, 5, 250000), (2, 6, 310000)")
	low := sessionAs(t, e, "lowly")
	mustRun(t, low, "CREATE TABLE lt (id int PRIMARY KEY)")
	mustRun(t, low, "INSERT INTO lt VALUES (1), (2)")
	mustRun(t, low, "GRANT SELECT ON lt TO root")
	mustRun(t, root, "CREATE VIEW rv AS SELECT id, lt AS val FROM rt NATURAL JOIN lt")
	mustRun(t, root, "CREATE MATERIALIZED VIEW rmv AS SELECT id, lt AS val FROM rt NATURAL JOIN lt")
	mustRun(t, root, "GRANT SELECT ON rv, rmv TO lowly")
	// The definition cannot be printed to follow the new name (NATURAL
	// JOIN): its text is rewritten where it names the relation, not
	// where it names the column lt.
	mustRun(t, low, "ALTER TABLE lt RENAME TO salary")
	// An alias spelled like the new name leaves no text that reads the
	// same: the rename is refused, not followed by a wrong definition.
	mustRun(t, root, "CREATE VIEW av AS SELECT id, lt AS val FROM rt x NATURAL JOIN salary")
	mustRun(t, root, "GRANT SELECT ON av TO lowly")
	wantCode(t, low, "ALTER TABLE salary RENAME TO x", pgerr.FeatureNotSupported, `view "av" could not follow`)
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM rv ORDER BY id", "1 5", "2 6")
		wantRows(t, s, "SELECT * FROM rmv ORDER BY id", "1 5", "2 6")
		wantRows(t, s, "SELECT * FROM av ORDER BY id", "1 5", "2 6")
	}
	checkAcrossRestart(t, fs, e, low, check)
}

// TestRenameKeepsTheSchemaOfARelation: renaming s2.t7 to the name of a
// table of another schema must not make a view or materialized view
// read that other table.
func TestRenameKeepsTheSchemaOfARelation(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE SCHEMA s2")
	mustRun(t, s, "CREATE TABLE s2.t7 (id int PRIMARY KEY, a int)")
	mustRun(t, s, "CREATE TABLE t7 (id int PRIMARY KEY, b int)")
	mustRun(t, s, "CREATE TABLE decoy7 (id int PRIMARY KEY, b int)")
	mustRun(t, s, "INSERT INTO s2.t7 VALUES (1, 10), (2, 20)")
	mustRun(t, s, "INSERT INTO t7 VALUES (1, 100), (2, 200)")
	mustRun(t, s, "INSERT INTO decoy7 VALUES (1, 999), (3, 333)")
	mustRun(t, s, "CREATE VIEW sv7 AS SELECT * FROM s2.t7 x NATURAL JOIN t7")
	mustRun(t, s, "CREATE MATERIALIZED VIEW smv7 AS SELECT * FROM s2.t7 x NATURAL JOIN t7")
	mustRun(t, s, "ALTER TABLE s2.t7 RENAME TO decoy7")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM sv7 ORDER BY id", "1 10 100", "2 20 200")
		wantRows(t, s, "SELECT * FROM smv7 ORDER BY id", "1 10 100", "2 20 200")
		wantRows(t, s, "SELECT * FROM s2.decoy7 ORDER BY id", "1 10", "2 20")
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameToAColumnsName: renaming p to p2 while the view also reads
// a table with a column p2 must not make it read q.p2.
func TestRenameToAColumnsName(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE p (id int PRIMARY KEY, x int)")
	mustRun(t, s, "CREATE TABLE q (id int PRIMARY KEY, p int, p2 int)")
	mustRun(t, s, "INSERT INTO p VALUES (1, 10)")
	mustRun(t, s, "INSERT INTO q VALUES (1, 7, 8)")
	mustRun(t, s, "CREATE VIEW pv AS SELECT id, p AS pcol, x FROM p NATURAL JOIN q")
	mustRun(t, s, "CREATE MATERIALIZED VIEW pmv AS SELECT id, p AS pcol, x FROM p NATURAL JOIN q")
	mustRun(t, s, "ALTER TABLE p RENAME TO p2")
	mustRun(t, s, "INSERT INTO q VALUES (2, 3, 4)")
	mustRun(t, s, "INSERT INTO p2 VALUES (2, 20)")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM pv ORDER BY id", "1 7 10", "2 3 20")
		wantRows(t, s, "SELECT * FROM pmv ORDER BY id", "1 7 10", "2 3 20")
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameTableKeepsIndexColumns: an index on a column named like its
// table keeps indexing that column after the table is renamed (to the
// name of another of its columns, or to a new name), after a restart too.
func TestRenameTableKeepsIndexColumns(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ia (id int PRIMARY KEY, ia int, ib int)")
	mustRun(t, s, "CREATE INDEX ia_idx ON ia (ia)")
	mustRun(t, s, "INSERT INTO ia VALUES (1, 7, 100), (2, 8, 7)")
	mustRun(t, s, "ALTER TABLE ia RENAME TO ib")
	mustRun(t, s, "CREATE TABLE tz (tz int)")
	mustRun(t, s, "CREATE INDEX ON tz (tz)")
	mustRun(t, s, "INSERT INTO tz VALUES (3), (4)")
	mustRun(t, s, "ALTER TABLE tz RENAME TO tw")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM ib WHERE ia = 7", "1 7 100")
		wantRows(t, s, "SELECT * FROM tw WHERE tz = 4", "4")
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameToAReservedWord: a view reading a table renamed to a
// reserved word quotes the new name in its definition.
func TestRenameToAReservedWord(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE rw (a int)")
	mustRun(t, s, "INSERT INTO rw VALUES (1)")
	mustRun(t, s, "CREATE VIEW rwv AS SELECT a FROM rw")
	mustRun(t, s, "CREATE MATERIALIZED VIEW rwmv AS SELECT a FROM rw")
	mustRun(t, s, `ALTER TABLE rw RENAME TO "table"`)
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT * FROM rwv", "1")
		wantRows(t, s, "SELECT * FROM rwmv", "1")
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameOwnDefinition: a relation's own CREATE statement changes only
// its name, not a schema or a key word spelled like it, after a restart
// too.
func TestRenameOwnDefinition(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE SCHEMA ss")
	mustRun(t, s, "CREATE TABLE ss.ss (ss int)")
	mustRun(t, s, "ALTER TABLE ss.ss RENAME TO tt")
	mustRun(t, s, `CREATE TABLE "table" (a int)`)
	mustRun(t, s, `ALTER TABLE "table" RENAME TO tb2`)
	mustRun(t, s, "CREATE TABLE kw (a int)")
	mustRun(t, s, `ALTER TABLE kw RENAME TO "select"`)
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SHOW CREATE TABLE ss.tt", "ss.tt CREATE TABLE ss.tt (ss int)")
		wantRows(t, s, "SHOW CREATE TABLE tb2", "public.tb2 CREATE TABLE tb2 (a int)")
		wantRows(t, s, `SHOW CREATE TABLE "select"`, `public.select CREATE TABLE "select" (a int)`)
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameCannotRedirectASink: a sink's query rewritten for a rename
// must read what it read, or the rename is refused.
func TestRenameCannotRedirectASink(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE rt (id int PRIMARY KEY, lt int, salary int)")
	mustRun(t, s, "CREATE TABLE lt (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE SINK rk AS SELECT id, lt AS val FROM rt NATURAL JOIN lt WITH (connector = 'blackhole', type = 'append-only', force_append_only = 'true')")
	mustRun(t, s, "CREATE SINK ak AS SELECT id, lt AS val FROM rt x NATURAL JOIN lt WITH (connector = 'blackhole', type = 'append-only', force_append_only = 'true')")
	wantCode(t, s, "ALTER TABLE lt RENAME TO x", pgerr.FeatureNotSupported, `sink "ak" could not follow`)
	mustRun(t, s, "DROP SINK ak")
	mustRun(t, s, "ALTER TABLE lt RENAME TO salary")
	mustRun(t, s, "CREATE SINK fk AS SELECT id, salary FROM rt WITH (connector = 'blackhole', type = 'append-only', force_append_only = 'true')")
	mustRun(t, s, "ALTER TABLE rt RENAME TO rt2")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	for name, want := range map[string]string{
		"fk": "CREATE SINK fk AS SELECT id, salary FROM rt2 WITH",
		"rk": "CREATE SINK rk AS SELECT id, lt AS val FROM rt2 NATURAL JOIN salary WITH",
	} {
		r, err := run(t, session(t, e), "SHOW CREATE SINK "+name)
		if err != nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("SHOW CREATE SINK %s: got %v, %v", name, r, err)
		}
	}
}

// TestRenameQualifiedChecks: a table's CHECK constraint and generated
// column qualifying its columns with the table's name keep working
// after the table is renamed, after a restart too.
func TestRenameQualifiedChecks(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE tz (tz int CHECK (tz.tz > 0), g int GENERATED ALWAYS AS (public.tz.tz + 1) STORED)")
	mustRun(t, s, "INSERT INTO tz VALUES (1)")
	mustRun(t, s, "ALTER TABLE tz RENAME TO tw")
	check := func(s wire.Session, v string) {
		t.Helper()
		mustRun(t, s, "INSERT INTO tw VALUES ("+v+")")
		wantCode(t, s, "INSERT INTO tw VALUES (-"+v+")", pgerr.CheckViolation, `violates check constraint "tz_tz_check"`)
	}
	check(s, "2")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	check(s, "3")
	wantRows(t, s, "SELECT * FROM tw ORDER BY tz", "1 2", "2 3", "3 4")
}

// checkAcrossRestart runs check on s, then closes e, opens the engine
// again over fs and runs check on a session of it.
func checkAcrossRestart(t *testing.T, fs vfs.FS, e *Engine, s wire.Session, check func(wire.Session)) {
	t.Helper()
	check(s)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	check(session(t, e))
}

// TestRenameReferencedTable: SHOW CREATE TABLE of a table whose foreign
// keys reference a renamed table (or itself, renamed) names it by its
// new name, and a column named like the old name is kept; the keys go
// on working.
func TestRenameReferencedTable(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE rp (id int PRIMARY KEY)")
	mustRun(t, s, "CREATE TABLE rc (rp int REFERENCES rp, b int, FOREIGN KEY (b) REFERENCES public.rp (id))")
	mustRun(t, s, "CREATE TABLE rs (id int PRIMARY KEY, up int REFERENCES rs)")
	mustRun(t, s, "ALTER TABLE rp RENAME TO rq")
	mustRun(t, s, "ALTER TABLE rs RENAME TO rt")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SHOW CREATE TABLE rc", "public.rc CREATE TABLE rc (rp int REFERENCES rq, b int, FOREIGN KEY (b) REFERENCES public.rq (id))")
		wantRows(t, s, "SHOW CREATE TABLE rt", "public.rt CREATE TABLE rt (id int PRIMARY KEY, up int REFERENCES rt)")
		wantCode(t, s, "INSERT INTO rc VALUES (7, NULL)", pgerr.ForeignKeyViolation, `"rc_rp_fkey"`)
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameViewColumn: ALTER VIEW and ALTER MATERIALIZED VIEW ...
// RENAME COLUMN rename the column; the views and materialized views
// reading it, a join's USING included, keep reading the same column
// and keep being maintained, after a restart too.
func TestRenameViewColumn(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE cb (id int PRIMARY KEY, a int, x int)")
	mustRun(t, s, "INSERT INTO cb VALUES (1, 1, 10), (2, 2, 20)")
	mustRun(t, s, "CREATE VIEW cv AS SELECT a, x FROM cb")
	mustRun(t, s, "CREATE VIEW cw AS SELECT a, x + 1 AS x1 FROM cv")
	mustRun(t, s, "CREATE VIEW cj AS SELECT cv.a, cb.id FROM cv JOIN cb USING (a)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cm AS SELECT a, sum(x) AS s FROM cv GROUP BY a")
	mustRun(t, s, "CREATE MATERIALIZED VIEW cn AS SELECT a, s FROM cm")
	mustRun(t, s, "ALTER VIEW cv RENAME COLUMN a TO x2")
	mustRun(t, s, "ALTER VIEW cv RENAME COLUMN x TO a")
	mustRun(t, s, "ALTER MATERIALIZED VIEW cm RENAME COLUMN s TO total")
	wantCode(t, s, "ALTER VIEW cv RENAME COLUMN x2 TO a", pgerr.DuplicateColumn, `column "a" of relation "cv" already exists`)
	wantCode(t, s, "ALTER VIEW cv RENAME COLUMN nosuch TO b", pgerr.UndefinedColumn, `column "nosuch" does not exist`)
	n := 3
	check := func(s wire.Session) {
		t.Helper()
		mustRun(t, s, fmt.Sprintf("INSERT INTO cb VALUES (%d, %d, %d)", n, n, 10*n))
		mustRun(t, s, "FLUSH")
		var cv, cw, cm []string
		for i := 1; i <= n; i++ {
			cv = append(cv, fmt.Sprintf("%d %d", i, 10*i))
			cw = append(cw, fmt.Sprintf("%d %d", i, 10*i+1))
			cm = append(cm, fmt.Sprintf("%d %d", i, 10*i))
		}
		wantRows(t, s, "SELECT x2, a FROM cv ORDER BY x2", cv...)
		wantRows(t, s, "SELECT * FROM cw ORDER BY a", cw...)
		wantRows(t, s, "SELECT a, id FROM cj WHERE a = 2", "2 2")
		wantRows(t, s, "SELECT a, total FROM cm ORDER BY a", cm...)
		wantRows(t, s, "SELECT a, s FROM cn ORDER BY a", cm...)
		wantRows(t, s, "SELECT pg_get_viewdef('cw'::regclass, true)", " SELECT cv.x2 AS a,\n    cv.a + 1 AS x1\n   FROM cv;")
		n++
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameViewColumnThenView: a view's column renamed, then the view
// and its table renamed: the views and materialized views reading it
// follow both, after a restart too.
func TestRenameViewColumnThenView(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE db (id int PRIMARY KEY, a int)")
	mustRun(t, s, "INSERT INTO db VALUES (1, 10)")
	mustRun(t, s, "CREATE VIEW dv AS SELECT id, a FROM db")
	mustRun(t, s, "CREATE VIEW dw AS SELECT a FROM dv")
	mustRun(t, s, "CREATE MATERIALIZED VIEW dm AS SELECT a, count(*) AS n FROM dv GROUP BY a")
	mustRun(t, s, "ALTER VIEW dv RENAME COLUMN a TO b")
	mustRun(t, s, "ALTER VIEW dv RENAME TO dv2")
	mustRun(t, s, "ALTER TABLE db RENAME TO db2")
	mustRun(t, s, "ALTER VIEW dv2 RENAME COLUMN b TO c")
	n := 2
	check := func(s wire.Session) {
		t.Helper()
		mustRun(t, s, fmt.Sprintf("INSERT INTO db2 VALUES (%d, %d)", n, 10*n))
		mustRun(t, s, "FLUSH")
		var rows, counts []string
		for i := 1; i <= n; i++ {
			rows = append(rows, fmt.Sprint(10*i))
			counts = append(counts, fmt.Sprintf("%d 1", 10*i))
		}
		wantRows(t, s, "SELECT * FROM dw ORDER BY a", rows...)
		wantRows(t, s, "SELECT * FROM dm ORDER BY a", counts...)
		wantRows(t, s, "SELECT pg_get_viewdef('dw'::regclass, true)", " SELECT dv2.c AS a\n   FROM dv2;")
		n++
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestRenameTwiceFollowsMadeUpAliases: a view whose subquery reads the
// table its query reads has the inner one named apart (t_1) in the text
// deparsed for a rename; the next rename renames that name too, as
// PostgreSQL's set_rtable_names does, also after a restart, while an
// alias the user wrote stays.
func TestRenameTwiceFollowsMadeUpAliases(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int, b int)")
	mustRun(t, s, "CREATE VIEW k1 AS SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE b > 0)")
	mustRun(t, s, "CREATE VIEW k2 AS SELECT a FROM t WHERE a IN (SELECT x.a FROM t x)")
	mustRun(t, s, "ALTER TABLE t RENAME TO tab")
	mustRun(t, s, "ALTER TABLE tab RENAME TO tt")
	mustRun(t, s, "INSERT INTO tt VALUES (1, 1), (2, 0)")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT pg_get_viewdef('k1'::regclass, true) LIKE '%FROM tt tt_1%', pg_get_viewdef('k1'::regclass, true) LIKE '%tab%'", "t f")
		wantRows(t, s, "SELECT pg_get_viewdef('k2'::regclass, true) LIKE '%FROM tt x%'", "t")
		wantRows(t, s, "SELECT * FROM k1", "1")
	}
	checkAcrossRestart(t, fs, e, s, check)
	e = openTest(t, fs)
	s = session(t, e)
	mustRun(t, s, "ALTER TABLE tt RENAME TO t3")
	wantRows(t, s, "SELECT pg_get_viewdef('k1'::regclass, true) LIKE '%FROM t3 t3_1%'", "t")
	e.Close()
}

// TestAlterTableRenamesViews: ALTER TABLE ... RENAME TO renames a view,
// a materialized view, a sequence or an index, as in PostgreSQL, and
// what reads them follows; ALTER VIEW and ALTER MATERIALIZED VIEW still
// take only their own kind, without a hint (42809).
func TestAlterTableRenamesViews(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE rt (a int)")
	mustRun(t, s, "CREATE VIEW rv AS SELECT a FROM rt")
	mustRun(t, s, "CREATE MATERIALIZED VIEW rm AS SELECT a FROM rt")
	mustRun(t, s, "CREATE VIEW rv2 AS SELECT rv.a, rm.a AS b FROM rv, rm")
	mustRun(t, s, "CREATE SEQUENCE rs")
	mustRun(t, s, "CREATE INDEX ri ON rt (a)")
	for _, q := range []string{"ALTER TABLE rv RENAME TO rv1", "ALTER TABLE rm RENAME TO rm1", "ALTER TABLE rs RENAME TO rs1", "ALTER TABLE ri RENAME TO ri1"} {
		mustRun(t, s, q)
	}
	for _, c := range [][2]string{
		{"ALTER VIEW rt RENAME TO x", `"rt" is not a view`},
		{"ALTER VIEW rm1 RENAME TO x", `"rm1" is not a view`},
		{"ALTER MATERIALIZED VIEW rv1 RENAME TO x", `"rv1" is not a materialized view`},
	} {
		_, err := run(t, s, c[0])
		if pe := pgerr.As(err); err == nil || pe.Code != pgerr.WrongObjectType || pe.Message != c[1] || pe.Hint != "" {
			t.Errorf("%s: got %v, want 42809 %q without a hint", c[0], err, c[1])
		}
	}
	mustRun(t, s, "INSERT INTO rt VALUES (1)")
	check := func(s wire.Session) {
		t.Helper()
		wantRows(t, s, "SELECT relname FROM pg_class WHERE relname IN ('rv1', 'rm1', 'rs1', 'ri1') ORDER BY 1", "ri1", "rm1", "rs1", "rv1")
		wantRows(t, s, "SELECT * FROM rv2", "1 1")
		wantRows(t, s, "SELECT pg_get_viewdef('rv2')", " SELECT rv1.a,\n    rm1.a AS b\n   FROM rv1,\n    rm1;")
	}
	checkAcrossRestart(t, fs, e, s, check)
}

// TestStoredDefinitionsOfOlderGrammar: a data directory whose catalog
// holds view definitions written before the grammar refused them (a
// FETCH FIRST count that is an expression, as an older weir stored it)
// opens, and the views and the views over them read as before (a
// materialized view's job, which cannot stream such a count, fails
// alone); a definition that does not parse at all leaves the directory
// usable and fails only the view's readers, with a clear 55000, until
// it is dropped.
func TestStoredDefinitionsOfOlderGrammar(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE ok (a int)")
	mustRun(t, s, "INSERT INTO ok VALUES (1), (2), (3)")
	mustRun(t, s, "CREATE VIEW old AS SELECT a FROM ok ORDER BY a FETCH FIRST 2 ROWS ONLY")
	mustRun(t, s, "CREATE VIEW over_old AS SELECT a * 10 AS b FROM old")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mold AS SELECT a FROM ok ORDER BY a FETCH FIRST 2 ROWS ONLY")
	mustRun(t, s, "CREATE VIEW broken AS SELECT 1 AS x")
	for name, text := range map[string]string{
		"old":    "SELECT a FROM ok ORDER BY a FETCH FIRST 1 + 1 ROWS ONLY",
		"mold":   "SELECT a FROM ok ORDER BY a FETCH FIRST 1 + 1 ROWS ONLY",
		"broken": "SELECT 1 AS x FROM WHERE (",
	} {
		rel, _ := e.cat.Lookup("public", name)
		up := rel.Clone()
		up.SQL = text
		if err := e.cat.Replace(up); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sql.Parse("SELECT a FROM ok ORDER BY a FETCH FIRST 1 + 1 ROWS ONLY"); err == nil {
		t.Fatal("the grammar takes an expression as FETCH FIRST count: the test needs text it refuses")
	}
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO ok VALUES (0)")
	wantRows(t, s, "SELECT * FROM old", "0", "1")
	wantRows(t, s, "SELECT * FROM over_old ORDER BY b", "0", "10")
	// A stream plan takes a constant count only: the materialized
	// view's job fails, and it keeps the rows it had.
	wantRows(t, s, "SELECT name, status, last_error FROM weir.jobs", "mold failed cannot be rebuilt: LIMIT must be a constant in materialized views")
	wantRows(t, s, "SELECT * FROM mold", "1", "2")
	wantRows(t, s, "SELECT pg_get_viewdef('old')", " SELECT ok.a\n   FROM ok\n  ORDER BY ok.a\n LIMIT (1 + 1);")
	wantCode(t, s, "SELECT * FROM broken", pgerr.ObjectNotInPrerequisiteState, `view "broken" cannot be read: its stored definition does not parse`)
	mustRun(t, s, "DROP VIEW broken")
	wantRows(t, s, "SELECT count(*) FROM ok", "4")
}
