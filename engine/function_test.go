package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestSQLFunctionsInline: SQL functions called in queries, by name or
// $n, converted to the declared types, STRICT, and overloaded beside
// each other and the built-ins.
func TestSQLFunctionsInline(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION add1(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + 1 $$")
	mustRun(t, s, "CREATE FUNCTION add1(a bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT a + 100 $$")
	mustRun(t, s, "CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql AS 'select $1 * 2'")
	mustRun(t, s, "CREATE FUNCTION mul(a int, b int) RETURNS numeric RETURN a * b")
	mustRun(t, s, "CREATE FUNCTION st3(a int) RETURNS bigint LANGUAGE sql STRICT AS $$ SELECT coalesce(a, 7) $$")
	mustRun(t, s, "CREATE FUNCTION c3(a int) RETURNS bigint LANGUAGE sql AS $$ SELECT coalesce(a, 7) $$")
	mustRun(t, s, "CREATE FUNCTION lower(text) RETURNS text LANGUAGE sql AS $$ SELECT 'mine' $$")
	mustRun(t, s, "CREATE FUNCTION lower(int) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$")
	wantRows(t, s, "SELECT add1(1), add1(1::bigint), twice(4), mul(3, 4), pg_typeof(mul(3, 4)), st3(NULL), c3(NULL), st3(2)",
		"2 101 8 12 numeric NULL 7 2")
	wantRows(t, s, "SELECT lower('ABC'), lower(5), public.lower('ABC')", "abc int mine")
	wantCode(t, s, "SELECT add1(2.5)", pgerr.UndefinedFunction, "function add1(numeric) does not exist")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, add1(10)), (2, twice(21))")
	mustRun(t, s, "UPDATE t SET v = add1(v) WHERE twice(k) = 4")
	wantRows(t, s, "SELECT k, v, add1(v) FROM t ORDER BY k", "1 11 12", "2 43 44")
}
