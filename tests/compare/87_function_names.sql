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
