package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// TestEnumArrays: an enum's array type makes columns, casts and
// array_agg results, orders by the labels' order, refuses a label the
// enum lacks (22P02), keeps a materialized view over a mood[] column
// up to date under DML, and survives a restart (the catalog keeps the
// array type's OID). A mood[] column keeps the enum from being dropped
// and its labels from being renamed. Arrays of a domain check each
// element against the domain, there and after the restart.
func TestEnumAndDomainArrays(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	mustRun(t, s, "CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
	mustRun(t, s, "CREATE TABLE em (k int PRIMARY KEY, ms mood[])")
	mustRun(t, s, "INSERT INTO em VALUES (1, '{happy,sad}'), (2, '{ok}'), (3, ARRAY['sad']::mood[])")
	mustRun(t, s, "CREATE MATERIALIZED VIEW emv AS SELECT k, ms[1] AS first, cardinality(ms) AS n FROM em WHERE 'sad' = ANY(ms)")
	wantCode(t, s, "INSERT INTO em VALUES (4, '{meh}')", pgerr.InvalidTextRepresentation, `invalid input value for enum mood: "meh"`)
	mustRun(t, s, "CREATE TABLE pa (k int PRIMARY KEY, ps posint[])")
	mustRun(t, s, "INSERT INTO pa VALUES (1, '{1,2}'), (2, NULL)")
	wantCode(t, s, "INSERT INTO pa VALUES (3, ARRAY[1, -1])", pgerr.CheckViolation, `value for domain posint violates check constraint "posint_check"`)
	wantCode(t, s, "UPDATE pa SET ps = ARRAY[0] WHERE k = 1", pgerr.CheckViolation, `value for domain posint violates check constraint "posint_check"`)
	wantCode(t, s, "SELECT ARRAY[5, -5]::posint[]", pgerr.CheckViolation, `value for domain posint violates check constraint "posint_check"`)
	wantCode(t, s, "ALTER DOMAIN posint ADD CONSTRAINT small CHECK (VALUE < 10)", pgerr.FeatureNotSupported, `cannot alter type "posint" because column "pa.ps" uses it`)
	wantCode(t, s, "SELECT '{a}'::nosuch[]", pgerr.UndefinedObject, `type "nosuch[]" does not exist`)
	wantCode(t, s, "DROP TYPE mood", pgerr.DependentObjectsStillExist, "cannot drop type mood because other objects depend on it")
	wantCode(t, s, "ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'", pgerr.FeatureNotSupported, "RENAME VALUE is not supported while column ms of table em is of type mood[]")
	mustRun(t, s, "UPDATE em SET ms = '{sad,happy}' WHERE k = 2")
	mustRun(t, s, "DELETE FROM em WHERE k = 3")
	checkAcrossRestart(t, fs, e, s, func(s wire.Session) {
		wantRows(t, s, "SELECT k, ms FROM em ORDER BY ms, k", "2 {sad,happy}", "1 {happy,sad}")
		wantRows(t, s, "SELECT array_agg(u ORDER BY u)::text FROM em, unnest(ms) u", "{sad,sad,happy,happy}")
		wantRows(t, s, "SELECT k, first, n FROM emv ORDER BY k", "1 happy 2", "2 sad 2")
		wantRows(t, s, "SELECT pg_typeof(ms)::text FROM em WHERE k = 1", "mood[]")
		wantRows(t, s, "SELECT k, ps FROM pa ORDER BY k", "1 {1,2}", "2 NULL")
		wantCode(t, s, "INSERT INTO pa VALUES (3, ARRAY[-3])", pgerr.CheckViolation, `value for domain posint violates check constraint "posint_check"`)
	})
}

// TestDomainOverEnumRestart: a domain whose base type is an enum, or an
// enum's array, opens again after a restart (the catalog decodes the
// enums before the domains over them), and its checks still hold.
func TestDomainOverEnumRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE e5 AS ENUM ('a', 'b')")
	mustRun(t, s, "CREATE DOMAIN d5 AS e5 CHECK (VALUE <> 'b')")
	mustRun(t, s, "CREATE DOMAIN d6 AS e5[] CHECK (cardinality(VALUE) < 3)")
	mustRun(t, s, "CREATE TABLE de (k int PRIMARY KEY, x d5, y d6)")
	mustRun(t, s, "INSERT INTO de VALUES (1, 'a', '{a,b}')")
	checkAcrossRestart(t, fs, e, s, func(s wire.Session) {
		wantRows(t, s, "SELECT k, x, y FROM de", "1 a {a,b}")
		wantCode(t, s, "INSERT INTO de VALUES (2, 'b', NULL)", pgerr.CheckViolation, `value for domain d5 violates check constraint "d5_check"`)
		wantCode(t, s, "INSERT INTO de VALUES (2, NULL, '{a,a,a}')", pgerr.CheckViolation, `value for domain d6 violates check constraint "d6_check"`)
	})
}

// TestArrayMaxMinRestart: max and min over int[] and mood[] columns in
// a materialized view keep their values in state ordered as the arrays
// compare (element by element, an enum's by its labels' order), so a
// delete of the current extreme after a restart finds the next one.
func TestArrayMaxMinRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, g int, a int[], m mood[])")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1, '{10}', '{happy}'), (2, 1, '{9,1}', '{ok,happy}'), (3, 1, '{9}', '{sad}'), (4, 1, '{-1}', '{ok}')")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT g, max(a) AS hi, min(a) AS lo, max(m) AS mhi, min(m) AS mlo FROM t GROUP BY g")
	wantRows(t, s, "SELECT * FROM mv", "1 {10} {-1} {happy} {sad}")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "DELETE FROM t WHERE id IN (1, 3)")
	wantRows(t, s, "SELECT * FROM mv", "1 {9,1} {-1} {ok,happy} {ok}")
	mustRun(t, s, "DELETE FROM t WHERE id = 4")
	wantRows(t, s, "SELECT * FROM mv", "1 {9,1} {9,1} {ok,happy} {ok,happy}")
}
