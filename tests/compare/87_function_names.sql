-- SQL functions whose names or parameters are words other grammars
-- keep: calls of functions named like TiDB's keywords (PostgreSQL
-- reads them as plain names), in queries, DML, defaults, checks and
-- views.
CREATE FUNCTION split(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 1 $$;
CREATE FUNCTION region(a int) RETURNS int LANGUAGE sql AS $$ SELECT split(a) * 10 $$;
CREATE FUNCTION cache(int) RETURNS int LANGUAGE sql RETURN $1 + 3;
CREATE FUNCTION file(a int) RETURNS text LANGUAGE sql AS $$ SELECT 'f' || a $$;
CREATE FUNCTION s3(a text) RETURNS text LANGUAGE sql AS $$ SELECT upper(a) $$;
CREATE FUNCTION status(a int) RETURNS int LANGUAGE sql AS $$ SELECT -a $$;
CREATE FUNCTION key(a int) RETURNS int LANGUAGE sql AS $$ SELECT a * 2 $$;
CREATE FUNCTION index(a int) RETURNS int LANGUAGE sql AS $$ SELECT a * 3 $$;
CREATE FUNCTION tidb(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION regions(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION stats(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION width(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION topn(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION role(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION source(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION engine(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION json(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION history(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION datetime(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION restore(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION bernoulli(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION level(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
SELECT split(1), region(2), cache(3), file(4), s3('x'), status(5), key(6), index(7);
SELECT tidb(1) + regions(2) + stats(3) + width(4) + topn(5) + role(6) + source(7) AS a,
  engine(1) + json(2) + history(3) + datetime(4) + restore(5) + bernoulli(6) + level(7) AS b;
SELECT split(split(split(1))), s3(file(key(1))), public.split(1);
SELECT split(1, 2);
SELECT split(1 2);
CREATE TABLE t (k int PRIMARY KEY, v int DEFAULT split(5) CHECK (status(v) < 0));
INSERT INTO t (k) VALUES (1);
INSERT INTO t VALUES (2, key(1)) RETURNING split(k), cache(v);
INSERT INTO t VALUES (3, status(1));
UPDATE t SET v = region(v) WHERE file(k) = 'f2';
SELECT k, v, split(k) FROM t WHERE split(k) > 1 ORDER BY key(k);
CREATE VIEW v AS SELECT k, split(v) AS s, region(k), s3(file(k)) FROM t;
SELECT * FROM v ORDER BY k;
SELECT pg_get_viewdef('v');
\d t
-- Definitions print names as quote_identifier does: keywords PostgreSQL
-- does not leave unreserved, and names not in lower case, are quoted.
CREATE FUNCTION f2("select" int, "from" text, "MyArg" int, "a b" int, key int, "left" int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE FUNCTION "MyF"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE FUNCTION "select"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE FUNCTION kw("order" int, "Mixed" int) RETURNS int LANGUAGE sql RETURN "order" + "Mixed";
SELECT pg_get_functiondef('f2'::regproc);
SELECT pg_get_functiondef('"select"'::regproc);
SELECT pg_get_function_arguments('f2'::regproc), pg_get_function_identity_arguments('f2'::regproc);
\sf f2
\sf "MyF"
\sf "select"
\sf kw
-- A call's label keeps a quoted name's case.
SELECT "MyF"(1), "select"(1), kw(1, 2), "kw"(3, 4);
-- character(n) arguments and results are character, as format_type
-- prints bpchar without a typmod.
CREATE FUNCTION ch(x int) RETURNS char(3) LANGUAGE sql AS $$ SELECT 'ab' $$;
CREATE FUNCTION ch2(x character) RETURNS character LANGUAGE sql AS $$ SELECT 'a' $$;
CREATE FUNCTION ch3(x char(5)[]) RETURNS bpchar LANGUAGE sql AS $$ SELECT 'a' $$;
SELECT pg_get_functiondef('ch'::regproc), pg_get_functiondef('ch2'::regproc), pg_get_functiondef('ch3'::regproc);
SELECT pg_get_function_result('ch'::regproc), ch(1), ch2('x'), pg_typeof(ch(1));
\df
-- \df+ shows a RETURN body (pg_get_function_sqlbody), prosrc for the others.
\df+ "MyF"
\df+ f2
SELECT proname, pg_get_function_sqlbody(oid) FROM pg_proc WHERE proname IN ('MyF', 'f2', 'kw') ORDER BY 1;
-- A user function is not in pg_catalog.
SELECT pg_catalog.split(1);
SELECT pg_catalog.split('x', 2);
SELECT pg_catalog.nosuch(1);
SELECT pg_catalog.split(b => 1);
SELECT pg_catalog.abs(-1), public.split(1);
CREATE FUNCTION g(a int) RETURNS int LANGUAGE sql RETURN pg_catalog.split(a);
CREATE TABLE t2 (a int DEFAULT pg_catalog.split(1));
-- A user function is no aggregate or window function.
SELECT split(DISTINCT 1);
SELECT nosuch(DISTINCT 1);
SELECT lower(DISTINCT 'A');
SELECT split(1) OVER ();
SELECT split(1) OVER (ORDER BY 1), split(2);
-- regprocedure output, view definitions and DROP messages quote names
-- as quote_identifier does, and spell bpchar character.
CREATE FUNCTION "where"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE FUNCTION "right"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE FUNCTION "Mixed Case"(x char) RETURNS int LANGUAGE sql RETURN 1;
CREATE FUNCTION "where"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE OR REPLACE FUNCTION "where"(x int) RETURNS text LANGUAGE sql RETURN 'a';
CREATE OR REPLACE FUNCTION "where"(y int) RETURNS int LANGUAGE sql RETURN 1;
SELECT '"where"'::regproc, '"where"(int)'::regprocedure, '"Mixed Case"'::regproc::regprocedure;
SELECT 'left(text, int)'::regprocedure, 'bpcharlen'::regproc::regprocedure;
DROP FUNCTION IF EXISTS "where"(text);
DROP FUNCTION "where"(text);
CREATE VIEW v2 AS SELECT "where"(1), "right"(2), "Mixed Case"('a');
SELECT pg_get_viewdef('v2');
DROP FUNCTION "where";
DROP FUNCTION "Mixed Case";
