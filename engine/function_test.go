package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
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

// TestSQLFunctionErrors: CREATE FUNCTION checks the body as PostgreSQL
// does, and refuses with 0A000 the bodies weir does not inline.
func TestSQLFunctionErrors(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	for q, want := range map[string]struct {
		code pgerr.Code
		msg  string
	}{
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT 'x'::text $$":         {pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return integer"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT '7' $$":               {pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return integer"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT b $$":                 {pgerr.UndefinedColumn, `column "b" does not exist`},
		"CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS $$ SELECT $2 $$":                  {pgerr.UndefinedParameter, "there is no parameter $2"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a, a $$":              {pgerr.InvalidFunctionDefinition, "return type mismatch"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ $$":                          {pgerr.InvalidFunctionDefinition, "return type mismatch"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT $$":                   {pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return integer"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT FROM t $$":            {pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return integer"},
		"CREATE FUNCTION f(a int, a int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$":          {pgerr.InvalidFunctionDefinition, `parameter name "a" used more than once`},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a FROM t $$":          {pgerr.FeatureNotSupported, "FROM clause"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a; SELECT a $$":       {pgerr.FeatureNotSupported, "more than one statement"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT (SELECT a) $$":        {pgerr.FeatureNotSupported, "subquery"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT sum(a) $$":            {pgerr.FeatureNotSupported, "aggregate"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ INSERT INTO t VALUES (1) $$": {pgerr.FeatureNotSupported, "other than one SELECT"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN a; END $$":  {pgerr.FeatureNotSupported, "language plpgsql"},
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE foo AS $$ SELECT a $$":                 {pgerr.UndefinedObject, `language "foo" does not exist`},
		"CREATE FUNCTION f(a int) RETURNS SETOF int LANGUAGE sql AS $$ SELECT a $$":           {pgerr.FeatureNotSupported, "SETOF"},
		"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT a $$":                              {pgerr.InvalidFunctionDefinition, "no language specified"},
		"CREATE FUNCTION f(a int) RETURNS int RETURN a || 'x'":                                {pgerr.InvalidFunctionDefinition, "return type mismatch"},
		"CREATE FUNCTION f(a int) RETURNS int RETURN nosuch(a)":                               {pgerr.UndefinedFunction, "function nosuch(integer) does not exist"},
	} {
		wantCode(t, s, q, want.code, want.msg)
	}
	wantRows(t, s, "SELECT count(*) FROM pg_proc WHERE proname = 'f'", "0")
	// PostgreSQL 15's details tell an empty body from one of no column.
	for q, detail := range map[string]string{
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT $$":      "Final statement must return exactly one column.",
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a, a $$": "Final statement must return exactly one column.",
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$ ; $$":           "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.",
	} {
		_, err := run(t, s, q)
		if pe := pgerr.As(err); err == nil || pe.Detail != detail || pe.Where != `SQL function "f"` {
			t.Errorf("%s: got %v (detail %q, where %q), want detail %q", q, err, pe.Detail, pe.Where, detail)
		}
	}
	mustRun(t, s, "CREATE FUNCTION f(a int) RETURNS int RETURN a")
	wantCode(t, s, "CREATE FUNCTION f(b int) RETURNS int RETURN b", pgerr.DuplicateFunction, `function "f" already exists with same argument types`)
	wantCode(t, s, "CREATE OR REPLACE FUNCTION f(a int) RETURNS bigint RETURN a", pgerr.InvalidFunctionDefinition, "cannot change return type of existing function")
	wantCode(t, s, "CREATE OR REPLACE FUNCTION f(b int) RETURNS int RETURN b", pgerr.InvalidFunctionDefinition, `cannot change name of input parameter "a"`)
	mustRun(t, s, "CREATE OR REPLACE FUNCTION f(a int) RETURNS int RETURN a * 10")
	wantRows(t, s, "SELECT f(2)", "20")
}

// TestSQLFunctionInMViewRestart: a materialized view calling a function
// is maintained through DML and a restart, and keeps the body it was
// built with when CREATE OR REPLACE changes the function, while a view
// and new queries see the new body.
func TestSQLFunctionInMViewRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION bucket(x int, w int) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT x / w * w $$")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT bucket(v, 10) AS b, count(*) AS n FROM t GROUP BY bucket(v, 10)")
	mustRun(t, s, "CREATE VIEW v AS SELECT k, bucket(v, 10) AS b FROM t")
	mustRun(t, s, "INSERT INTO t VALUES (1, 3), (2, 14), (3, 17), (4, NULL)")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT b, n FROM mv ORDER BY b", "0 1", "10 2", "NULL 1")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t VALUES (5, 21)")
	mustRun(t, s, "DELETE FROM t WHERE k = 1")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT b, n FROM mv ORDER BY b", "10 2", "20 1", "NULL 1")
	mustRun(t, s, "CREATE OR REPLACE FUNCTION bucket(x int, w int) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT x / w * w + 1 $$")
	wantRows(t, s, "SELECT b FROM v WHERE k = 5", "21")
	mustRun(t, s, "INSERT INTO t VALUES (6, 25)")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT b, n FROM mv ORDER BY b", "10 2", "20 2", "NULL 1")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t VALUES (7, 29)")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT b, n FROM mv ORDER BY b", "10 2", "20 3", "NULL 1")
	wantRows(t, s, "SELECT bucket(29, 10)", "21")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDropSQLFunctionDependents: DROP FUNCTION is blocked by the views,
// materialized views, indexes, generated columns, defaults and CHECK
// constraints calling the function (2BP01, naming each as PostgreSQL
// does); CASCADE drops them all, as PostgreSQL does.
func TestDropSQLFunctionDependents(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + 1 $$")
	mustRun(t, s, "CREATE FUNCTION f(a text) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT length(a) $$")
	mustRun(t, s, "CREATE FUNCTION g(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a * 2 $$")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE VIEW v AS SELECT f(k) AS x FROM t")
	mustRun(t, s, "CREATE VIEW w AS SELECT x FROM v")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT k, f(v) AS y FROM t")
	mustRun(t, s, "CREATE INDEX ti ON t (g(v))")
	mustRun(t, s, "CREATE TABLE u (a int PRIMARY KEY, b int GENERATED ALWAYS AS (g(a)) STORED, c int DEFAULT g(3) CHECK (g(c) > 0))")
	wantCode(t, s, "DROP FUNCTION f", pgerr.AmbiguousFunction, `function name "f" is not unique`)
	wantCode(t, s, "DROP FUNCTION f(int)", pgerr.DependentObjectsStillExist, "cannot drop function f(integer) because other objects depend on it")
	wantDetail(t, s, "DROP FUNCTION f(int)", "view v depends on function f(integer)\nmaterialized view mv depends on function f(integer)")
	wantDetail(t, s, "DROP FUNCTION g(int)", "index ti depends on function g(integer)\ncolumn b of table u depends on function g(integer)\n"+
		"default value for column c of table u depends on function g(integer)\nconstraint u_c_check on table u depends on function g(integer)")
	mustRun(t, s, "DROP FUNCTION f(text)")
	mustRun(t, s, "DROP FUNCTION f(int) CASCADE")
	wantRows(t, s, "SELECT relname FROM pg_class WHERE relname IN ('v', 'w', 'mv', 'ti') ORDER BY 1", "ti")
	mustRun(t, s, "INSERT INTO u (a) VALUES (1)")
	mustRun(t, s, "DROP FUNCTION g(int) CASCADE")
	// The generated column, the default and the CHECK constraint went
	// with the function; the table keeps its rows.
	mustRun(t, s, "INSERT INTO u (a) VALUES (2)")
	mustRun(t, s, "INSERT INTO u (a, c) VALUES (3, -1)")
	wantRows(t, s, "SELECT * FROM u ORDER BY a", "1 6", "2 NULL", "3 -1")
	wantRows(t, s, "SELECT count(*) FROM pg_constraint WHERE conrelid = 'u'::regclass AND contype = 'c'", "0")
	wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname = 'ti'", "0")
	wantCode(t, s, "DROP FUNCTION g(int)", pgerr.UndefinedFunction, "function g(integer) does not exist")
	mustRun(t, s, "DROP FUNCTION IF EXISTS g(int)")
	wantCode(t, s, "SELECT g(1)", pgerr.UndefinedFunction, "function g(integer) does not exist")
	// What the drop changed stays changed across a restart.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO u (a, c) VALUES (4, -2)")
	wantRows(t, s, "SELECT * FROM u ORDER BY a", "1 6", "2 NULL", "3 -1", "4 -2")
}

// wantDetail runs q and wants an error whose DETAIL is detail.
func wantDetail(t *testing.T, s wire.Session, q, detail string) {
	t.Helper()
	_, err := run(t, s, q)
	if pe := pgerr.As(err); pe == nil || pe.Detail != detail {
		t.Errorf("%s: got %v (detail %q), want detail %q", q, err, pgerr.As(err).Detail, detail)
	}
}

// TestSQLFunctionCatalog: pg_proc lists user functions as PostgreSQL
// does, and pg_get_functiondef prints them.
func TestSQLFunctionCatalog(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION add1(a int) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS $$ select a + 1 $$")
	mustRun(t, s, "CREATE FUNCTION mul(a int, b int) RETURNS int RETURN a * b")
	mustRun(t, s, "CREATE FUNCTION two(int, text) RETURNS text LANGUAGE sql STABLE AS 'select $2 || $1'")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT proname, prolang, prosrc, prorettype::regtype, proargtypes, provolatile, proisstrict, prokind, pronargs, pronamespace::regnamespace "+
		"FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1",
		"add1 14  select a + 1  integer 23 i t f 1 public", "mul 14  integer 23 23 v f f 2 public", "two 14 select $2 || $1 text 23 25 s f f 2 public")
	wantRows(t, s, "SELECT pg_get_functiondef('add1'::regproc)", "CREATE OR REPLACE FUNCTION public.add1(a integer)\n RETURNS integer\n LANGUAGE sql\n IMMUTABLE STRICT\nAS $function$ select a + 1 $function$\n")
	wantRows(t, s, "SELECT pg_get_functiondef('mul'::regproc)", "CREATE OR REPLACE FUNCTION public.mul(a integer, b integer)\n RETURNS integer\n LANGUAGE sql\nRETURN (a * b)\n")
	wantRows(t, s, "SELECT pg_get_function_arguments('two(int, text)'::regprocedure), pg_get_function_result('two'::regproc), two(1, 'x')", "integer, text text x1")
}

// TestSQLFunctionVolatileArgs: a volatile argument is computed once
// per call, as PostgreSQL computes it, though the body reads it twice or
// a STRICT function's null check reads it too; a strict function called
// with a NULL constant computes none of its arguments (PostgreSQL folds
// the call to NULL). Each result is PostgreSQL 15's.
func TestSQLFunctionVolatileArgs(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE SEQUENCE s")
	mustRun(t, s, "CREATE FUNCTION inc(a int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT a + 1 $$")
	mustRun(t, s, "CREATE FUNCTION sq(a int) RETURNS int RETURN a * a")
	mustRun(t, s, "CREATE FUNCTION sqs(a int) RETURNS int STRICT RETURN a * a")
	mustRun(t, s, "CREATE FUNCTION pair(a int, b int) RETURNS text STRICT RETURN a || ',' || b || ',' || a")
	mustRun(t, s, "CREATE FUNCTION same(a float8) RETURNS bool RETURN a = a")
	mustRun(t, s, "CREATE FUNCTION neg(a float8) RETURNS float8 LANGUAGE sql AS $$ SELECT -a $$")
	wantRows(t, s, "SELECT inc(nextval('s')::int), currval('s')", "2 1")
	wantRows(t, s, "SELECT sq(nextval('s')::int), currval('s')", "4 2")
	wantRows(t, s, "SELECT sqs(nextval('s')::int), currval('s')", "9 3")
	wantRows(t, s, "SELECT pair(nextval('s')::int, 5), currval('s')", "4,5,4 4")
	wantRows(t, s, "SELECT pair(nextval('s')::int, NULL) IS NULL, currval('s')", "t 4")
	wantRows(t, s, "SELECT sqs(sqs(nextval('s')::int)), currval('s')", "625 5")
	wantRows(t, s, "SELECT same(random()), neg(random()) <= 0, sq(3)", "t t 9")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, sqs(nextval('s')::int)), (2, 0), (3, 0)")
	wantRows(t, s, "SELECT v, currval('s') FROM t WHERE k = 1", "36 6")
	// Once per row, and only for the rows a CASE arm computes.
	mustRun(t, s, "UPDATE t SET v = sq(nextval('s')::int) WHERE k > 1")
	wantRows(t, s, "SELECT k, v FROM t ORDER BY k", "1 36", "2 49", "3 64")
	wantRows(t, s, "SELECT k, CASE WHEN k > 1 THEN sqs(nextval('s')::int) END FROM t ORDER BY k", "1 NULL", "2 81", "3 100")
	wantRows(t, s, "SELECT count(*) FROM t WHERE sqs(nextval('s')::int) > 0", "3")
	wantRows(t, s, "SELECT currval('s')", "13")
	// A body copied into itself (g's Let in f's argument and body)
	// keeps each copy's value apart.
	mustRun(t, s, "CREATE SEQUENCE s2")
	mustRun(t, s, "CREATE FUNCTION g(x int, z int) RETURNS int RETURN x + x + z")
	mustRun(t, s, "CREATE FUNCTION f(y int) RETURNS int RETURN g(nextval('s2')::int, y)")
	wantRows(t, s, "SELECT f(f(0)), currval('s2')", "6 2")
	wantRows(t, s, "EXPLAIN SELECT sqs(nextval('s')::int)",
		"Project [(LET a = nextval('s')::integer IN CASE WHEN a IS NULL THEN NULL::integer ELSE a * a END) AS sqs]", "└─Values [()]")
}

// TestSQLFunctionUnusedArgs: an argument the body does not read is
// computed when it is a constant, whose errors PostgreSQL raises as it
// folds it when it plans (f(1/0)); any other PostgreSQL drops with the
// argument, and so does weir, unless the function is STRICT.
func TestSQLFunctionUnusedArgs(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE SEQUENCE s")
	mustRun(t, s, "CREATE FUNCTION k7(x int) RETURNS int LANGUAGE sql AS $$ SELECT 7 $$")
	mustRun(t, s, "CREATE FUNCTION k7s(x int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT 7 $$")
	mustRun(t, s, "CREATE FUNCTION k7t(x text) RETURNS int RETURN 7")
	wantCode(t, s, "SELECT k7(1/0)", pgerr.DivisionByZero, "division by zero")
	wantCode(t, s, "SELECT k7s(1/0)", pgerr.DivisionByZero, "division by zero")
	wantCode(t, s, "SELECT k7(k7(1/0))", pgerr.DivisionByZero, "division by zero")
	wantCode(t, s, "SELECT k7t(repeat('x', -1)::int::text)", pgerr.InvalidTextRepresentation, "invalid input syntax for type integer")
	mustRun(t, s, "CREATE TABLE t (a int)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2)")
	wantRows(t, s, "SELECT k7(a / 0) FROM t", "7", "7")
	wantCode(t, s, "SELECT k7s(a / 0) FROM t", pgerr.DivisionByZero, "division by zero")
	wantRows(t, s, "SELECT k7(1), k7(NULL), k7s(NULL), k7(nextval('s')::int), k7s(nextval('s')::int)", "7 7 NULL 7 7")
	wantRows(t, s, "SELECT currval('s')", "1")
}

// TestSQLFunctionCallForms: no arguments, untyped literals, parameters,
// and a prepared statement planned again when the function changes.
func TestSQLFunctionCallForms(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION one() RETURNS int RETURN 1")
	mustRun(t, s, "CREATE FUNCTION inc(a int) RETURNS int RETURN a + one()")
	wantRows(t, s, "SELECT one(), inc('5'), inc(inc(1))", "1 6 3")
	mustRun(t, s, "PREPARE p AS SELECT inc($1), pg_typeof(inc($1))")
	wantRows(t, s, "EXECUTE p(41)", "42 integer")
	mustRun(t, s, "CREATE OR REPLACE FUNCTION one() RETURNS int RETURN 10")
	wantRows(t, s, "EXECUTE p(41)", "51 integer")
	mustRun(t, s, "CREATE OR REPLACE FUNCTION one() RETURNS int RETURN inc(1)")
	wantCode(t, s, "SELECT one()", pgerr.FeatureNotSupported, "calls itself")
}

// TestSQLFunctionExecutePrivilege: EXECUTE is PUBLIC's until REVOKE,
// the owner keeps it, and the grants persist.
func TestSQLFunctionExecutePrivilege(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION f(a int) RETURNS int RETURN a")
	mustRun(t, s, "CREATE ROLE u LOGIN")
	mustRun(t, s, "CREATE ROLE w LOGIN")
	mustRun(t, s, "REVOKE EXECUTE ON FUNCTION f(int) FROM PUBLIC")
	mustRun(t, s, "GRANT EXECUTE ON FUNCTION f TO u")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	wantRows(t, sessionAs(t, e, "u"), "SELECT f(3)", "3")
	wantCode(t, sessionAs(t, e, "w"), "SELECT f(3)", pgerr.InsufficientPrivilege, "permission denied for function f")
	wantCode(t, sessionAs(t, e, "w"), "GRANT EXECUTE ON FUNCTION f TO w", pgerr.InsufficientPrivilege, "permission denied for function f")
	wantRows(t, session(t, e), "SELECT proacl FROM pg_proc WHERE proname = 'f'", "{root=X/root,u=X/root}")
}

// TestSQLFunctionInRenamedView: a view whose table's column was renamed
// (its definition pins the table's columns) still calls the function.
func TestSQLFunctionInRenamedView(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION add1(a int) RETURNS int RETURN a + 1")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10)")
	mustRun(t, s, "CREATE VIEW v AS SELECT add1(v) AS w FROM t")
	mustRun(t, s, "ALTER TABLE t RENAME COLUMN v TO vv")
	wantRows(t, s, "SELECT w FROM v", "11")
	wantRows(t, s, "SELECT pg_get_viewdef('v')", " SELECT add1(t.vv) AS w\n   FROM t;")
}

// TestSQLFunctionPinnedThroughView: a materialized view reading a view
// that calls a function keeps the body it was built with across a
// restart; the view, not the materialized view, depends on the function,
// and a function's body calls are the function's dependencies.
func TestSQLFunctionPinnedThroughView(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION g(a int) RETURNS int RETURN a * 2")
	mustRun(t, s, "CREATE FUNCTION f(a int) RETURNS int RETURN g(a) + 1")
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY)")
	mustRun(t, s, "CREATE VIEW v AS SELECT k, f(k) AS x FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT k, x FROM v")
	wantDetail(t, s, "DROP FUNCTION f(int)", "view v depends on function f(integer)")
	wantDetail(t, s, "DROP FUNCTION g(int)", "function f(integer) depends on function g(integer)")
	mustRun(t, s, "CREATE OR REPLACE FUNCTION g(a int) RETURNS int RETURN a * 100")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t VALUES (1)")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT x FROM mv", "3")
	wantRows(t, s, "SELECT x FROM v", "101")
}

// TestSQLFunctionBodyText: a body of AS '...' may end in a semicolon and
// hold comments, and keeps its text as written in pg_proc.prosrc.
func TestSQLFunctionBodyText(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS $$\n  -- add one\n  SELECT a + 1;\n$$")
	mustRun(t, s, "CREATE FUNCTION q(a text) RETURNS text LANGUAGE sql AS 'SELECT a || ''!'''")
	wantRows(t, s, "SELECT f(1), q('x')", "2 x!")
	wantRows(t, s, "SELECT prosrc FROM pg_proc WHERE proname = 'q'", "SELECT a || '!'")
	wantCode(t, s, "CREATE FUNCTION b(a int) RETURNS int LANGUAGE sql AS $$ SELECT a +; $$", pgerr.SyntaxError, "syntax error")
}

// TestSQLFunctionStoredCalls: defaults, CHECK constraints, generated
// columns and index expressions print the user function calls they
// make, not the inlined bodies, as PostgreSQL keeps them.
func TestSQLFunctionStoredCalls(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION norm(e text) RETURNS text LANGUAGE sql IMMUTABLE RETURN lower(trim(e))")
	mustRun(t, s, "CREATE FUNCTION five() RETURNS int LANGUAGE sql RETURN 5")
	mustRun(t, s, "CREATE TABLE users (id int PRIMARY KEY, email text CHECK (norm(email) <> ''), k int DEFAULT five(), n text GENERATED ALWAYS AS (norm(email) || 'x') STORED)")
	mustRun(t, s, "CREATE UNIQUE INDEX ON users ((norm(email)))")
	wantRows(t, s, "SELECT pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid = 'users'::regclass ORDER BY adnum",
		"five()", "norm(email) || 'x'::text")
	wantRows(t, s, "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'users'::regclass AND contype = 'c'",
		"CHECK ((norm(email) <> ''::text))")
	wantRows(t, s, "SELECT indexdef FROM pg_indexes WHERE indexname = 'users_norm_idx'",
		"CREATE UNIQUE INDEX users_norm_idx ON public.users USING btree (norm(email))")
	mustRun(t, s, "INSERT INTO users (id, email) VALUES (1, ' A@B ')")
	wantDetail(t, s, "INSERT INTO users (id, email) VALUES (2, 'a@b')", "Key (norm(email))=(a@b) already exists.")
}

// TestSQLFunctionNamedArgs: user functions take arguments in named and
// mixed notation, and views print such calls as written.
func TestSQLFunctionNamedArgs(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION f_named(a int, b int) RETURNS int LANGUAGE sql RETURN a - b")
	wantRows(t, s, "SELECT f_named(b => 1, a => 10), f_named(10, b => 1), f_named(a := 7, b := 2)", "9 9 5")
	wantCode(t, s, "SELECT f_named(10, c => 1)", pgerr.UndefinedFunction, "function f_named(integer, c => integer) does not exist")
	wantCode(t, s, "SELECT f_named(10, a => 1)", pgerr.UndefinedFunction, "function f_named(integer, a => integer) does not exist")
	wantCode(t, s, "SELECT f_named(b => 1, 10)", pgerr.SyntaxError, "positional argument cannot follow named argument")
	mustRun(t, s, "CREATE VIEW v AS SELECT f_named(b => 1, a => 10) AS x, f_named(10, b => 2) AS y")
	wantRows(t, s, "SELECT * FROM v", "9 8")
	wantRows(t, s, "SELECT pg_get_viewdef('v')", " SELECT f_named(b => 1, a => 10) AS x,\n    f_named(10, b => 2) AS y;")
}

// TestDropSQLFunctionCascadeColumnReaders: DROP FUNCTION ... CASCADE
// dropping a generated column drops the views reading the column, as
// PostgreSQL does, in one notice.
func TestDropSQLFunctionCascadeColumnReaders(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION eight() RETURNS int LANGUAGE sql IMMUTABLE RETURN 8")
	mustRun(t, s, "CREATE TABLE fg (id int PRIMARY KEY, g int GENERATED ALWAYS AS (id * eight()) STORED)")
	mustRun(t, s, "CREATE INDEX fg_g ON fg (g)")
	mustRun(t, s, "CREATE VIEW fgv AS SELECT id, g FROM fg")
	mustRun(t, s, "INSERT INTO fg (id) VALUES (1)")
	mustRun(t, s, "DROP FUNCTION eight() CASCADE")
	wantRows(t, s, "SELECT relname FROM pg_class WHERE relname IN ('fgv', 'fg_g')")
	wantRows(t, s, "SELECT * FROM fg", "1")
}

// TestSQLFunctionIdentityCallsPrint: a call whose inlined body is its
// argument as it is (f(x) = x), maybe another inlined call, or a
// constant shared by the calls of one function, prints as the call it
// was; f(g(1)) used to print as f(f(...)) without end, which overflowed
// the stack of the server.
func TestSQLFunctionIdentityCallsPrint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION idf(x int) RETURNS int RETURN x")
	mustRun(t, s, "CREATE FUNCTION add1(x int) RETURNS int RETURN x + 1")
	mustRun(t, s, "CREATE FUNCTION k7(x int) RETURNS int RETURN 7")
	mustRun(t, s, "CREATE VIEW v AS SELECT idf(add1(1)) AS a, idf(idf(5)) AS b, k7(1) AS c, k7(2) AS d")
	wantRows(t, s, "SELECT * FROM v", "2 5 7 7")
	wantRows(t, s, "SELECT pg_get_viewdef('v')", " SELECT idf(add1(1)) AS a,\n    idf(idf(5)) AS b,\n    k7(1) AS c,\n    k7(2) AS d;")
}

// TestSQLFunctionInlineLimit: functions each calling the previous one
// twice double the expression they inline into; past the limit CREATE
// refuses the function with 54000 naming it, and DROP of the first
// still finds the one whose body calls it.
func TestSQLFunctionInlineLimit(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE FUNCTION ex0(x int) RETURNS int LANGUAGE sql RETURN x + x")
	for i := 1; i <= 13; i++ {
		mustRun(t, s, fmt.Sprintf("CREATE FUNCTION ex%d(x int) RETURNS int LANGUAGE sql RETURN ex%d(x) + ex%d(x)", i, i-1, i-1))
	}
	wantRows(t, s, "SELECT ex13(1)", "16384")
	wantCode(t, s, "CREATE FUNCTION ex14(x int) RETURNS int LANGUAGE sql RETURN ex13(x) + ex13(x)", pgerr.ProgramLimitExceeded, `SQL function "ex14" is too complex to inline`)
	wantRows(t, s, "SELECT ex13(1) + ex13(2)", "49152")
	wantCode(t, s, "DROP FUNCTION ex0", pgerr.DependentObjectsStillExist, "cannot drop function ex0(integer) because other objects depend on it")
}

// TestSQLFunctionExecuteCheckedPerRun: EXECUTE on a function is checked
// for the role running a prepared statement, not the one that prepared
// it, by PREPARE/EXECUTE and by the extended protocol (Parse, then SET
// ROLE, then Bind and Execute), as PostgreSQL checks it when it starts
// the plan; functions a view calls are checked for the current role too.
func TestSQLFunctionExecuteCheckedPerRun(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE ROLE q1 LOGIN")
	mustRun(t, s, "CREATE ROLE q2 LOGIN")
	mustRun(t, s, "CREATE FUNCTION qf(x int) RETURNS int RETURN x")
	mustRun(t, s, "CREATE FUNCTION outer_f(x int) RETURNS int RETURN qf(x) + 1")
	mustRun(t, s, "REVOKE EXECUTE ON FUNCTION qf(int) FROM PUBLIC")
	mustRun(t, s, "GRANT EXECUTE ON FUNCTION qf(int) TO q1")
	mustRun(t, s, "SET ROLE q1")
	mustRun(t, s, "PREPARE pf AS SELECT qf(7)")
	mustRun(t, s, "PREPARE pg AS SELECT outer_f(7)")
	wantRows(t, s, "EXECUTE pf", "7")
	wantRows(t, s, "EXECUTE pg", "8")
	mustRun(t, s, "RESET ROLE")
	mustRun(t, s, "SET ROLE q2")
	wantCode(t, s, "EXECUTE pf", pgerr.InsufficientPrivilege, "permission denied for function qf")
	wantCode(t, s, "EXECUTE pg", pgerr.InsufficientPrivilege, "permission denied for function qf")
	mustRun(t, s, "RESET ROLE")

	// The extended protocol: parsed as q1, bound and run as q2.
	mustRun(t, s, "SET ROLE q1")
	p, err := s.Prepare(context.Background(), "SELECT qf(5)", nil)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "RESET ROLE")
	mustRun(t, s, "SET ROLE q2")
	err = nil
	if rv, ok := p.(wire.Revalidator); ok {
		err = rv.Revalidate(context.Background())
	}
	if err == nil {
		var res wire.Result
		res, err = p.Execute(context.Background(), nil, nil)
		for err == nil {
			var row types.Row
			if row, err = res.Next(context.Background()); row == nil {
				break
			}
		}
		if res != nil {
			res.Close()
		}
	}
	if pgerr.CodeOf(err) != pgerr.InsufficientPrivilege {
		t.Errorf("extended protocol as q2: got %v, want 42501", err)
	}
	mustRun(t, s, "RESET ROLE")

	// A view's function calls are checked for the current role, not the
	// view's owner.
	mustRun(t, s, "CREATE VIEW qv AS SELECT qf(1) AS a")
	mustRun(t, s, "GRANT SELECT ON qv TO q1, q2")
	wantRows(t, sessionAs(t, e, "q1"), "SELECT a FROM qv", "1")
	wantCode(t, sessionAs(t, e, "q2"), "SELECT a FROM qv", pgerr.InsufficientPrivilege, "permission denied for function qf")
}

// TestPrepareChecksNoPrivileges: PREPARE, which only analyses the
// statement in PostgreSQL, is accepted for a role lacking a privilege
// it needs; EXECUTE checks it. CREATE FUNCTION does not check EXECUTE
// on what the body calls: calling the function does.
func TestPrepareChecksNoPrivileges(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE ROLE q2 LOGIN")
	mustRun(t, s, "GRANT CREATE ON SCHEMA public TO q2")
	mustRun(t, s, "CREATE FUNCTION qf(x int) RETURNS int RETURN x")
	mustRun(t, s, "REVOKE EXECUTE ON FUNCTION qf(int) FROM PUBLIC")
	mustRun(t, s, "CREATE TABLE tt (a int)")
	mustRun(t, s, "INSERT INTO tt VALUES (4)")
	mustRun(t, s, "CREATE TABLE td (a int, b int DEFAULT qf(9))")
	mustRun(t, s, "GRANT INSERT ON td TO q2")
	q := sessionAs(t, e, "q2")
	mustRun(t, q, "PREPARE pf AS SELECT qf(7)")
	mustRun(t, q, "PREPARE pt AS SELECT a FROM tt")
	mustRun(t, q, "PREPARE pd AS INSERT INTO td (a) VALUES (1)")
	wantCode(t, q, "EXECUTE pf", pgerr.InsufficientPrivilege, "permission denied for function qf")
	wantCode(t, q, "EXECUTE pt", pgerr.InsufficientPrivilege, "permission denied for table tt")
	wantCode(t, q, "EXECUTE pd", pgerr.InsufficientPrivilege, "permission denied for function qf")
	wantCode(t, q, "INSERT INTO td (a) VALUES (1)", pgerr.InsufficientPrivilege, "permission denied for function qf")
	mustRun(t, s, "GRANT EXECUTE ON FUNCTION qf(int) TO q2")
	mustRun(t, s, "GRANT SELECT ON tt TO q2")
	wantRows(t, q, "EXECUTE pf", "7")
	wantRows(t, q, "EXECUTE pt", "4")
	mustRun(t, q, "EXECUTE pd")
	mustRun(t, s, "REVOKE EXECUTE ON FUNCTION qf(int) FROM q2")
	wantCode(t, q, "EXECUTE pd", pgerr.InsufficientPrivilege, "permission denied for function qf")

	mustRun(t, q, "CREATE FUNCTION g2(x int) RETURNS int RETURN qf(x) + 1")
	mustRun(t, q, "CREATE FUNCTION g3(x int) RETURNS int LANGUAGE sql AS 'SELECT qf(x) + 1'")
	wantCode(t, q, "SELECT g2(1)", pgerr.InsufficientPrivilege, "permission denied for function qf")
	wantRows(t, s, "SELECT g2(1), g3(1)", "2 2")

	// Nor does CREATE VIEW: the view's readers are checked.
	mustRun(t, s, "REVOKE EXECUTE ON FUNCTION qf(int) FROM q2")
	mustRun(t, q, "CREATE VIEW qv AS SELECT qf(3) AS a")
	wantCode(t, q, "SELECT a FROM qv", pgerr.InsufficientPrivilege, "permission denied for function qf")
	wantRows(t, s, "SELECT a FROM qv", "3")
}
