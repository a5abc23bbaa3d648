-- Arguments of inlined SQL functions are computed as PostgreSQL computes
-- them: a volatile one once per call though the body, or a STRICT
-- function's null check, reads it more than once; none of a strict
-- function's when one is a NULL constant; a constant one the body does
-- not read still raises its errors.
CREATE SEQUENCE s;
CREATE FUNCTION inc(a int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT a + 1 $$;
CREATE FUNCTION sq(a int) RETURNS int RETURN a * a;
CREATE FUNCTION sqs(a int) RETURNS int STRICT RETURN a * a;
CREATE FUNCTION pair(a int, b int) RETURNS text STRICT RETURN a || ',' || b || ',' || a;
CREATE FUNCTION same(a float8) RETURNS bool RETURN a = a;
SELECT inc(nextval('s')::int), currval('s');
SELECT sq(nextval('s')::int), currval('s');
SELECT sqs(nextval('s')::int), currval('s');
SELECT pair(nextval('s')::int, 5), currval('s');
SELECT pair(nextval('s')::int, NULL) IS NULL, currval('s');
SELECT sqs(sqs(nextval('s')::int)), currval('s');
SELECT same(random()), same(random() + 1);
CREATE TABLE t (k int PRIMARY KEY, v int);
INSERT INTO t VALUES (1, sqs(nextval('s')::int)), (2, 0), (3, 0);
SELECT v, currval('s') FROM t WHERE k = 1;
UPDATE t SET v = sq(nextval('s')::int) WHERE k > 1;
SELECT k, v FROM t ORDER BY k;
SELECT k, CASE WHEN k > 1 THEN sqs(nextval('s')::int) END FROM t ORDER BY k;
SELECT count(*) FROM t WHERE sqs(nextval('s')::int) > 0;
SELECT currval('s');
-- A function calling one with a volatile argument, called on itself.
CREATE SEQUENCE s2;
CREATE FUNCTION g(x int, z int) RETURNS int RETURN x + x + z;
CREATE FUNCTION f(y int) RETURNS int RETURN g(nextval('s2')::int, y);
SELECT f(f(0)), currval('s2');
-- Arguments the body does not read.
CREATE FUNCTION k7(x int) RETURNS int LANGUAGE sql AS $$ SELECT 7 $$;
CREATE FUNCTION k7s(x int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT 7 $$;
SELECT k7(1/0);
SELECT k7s(1/0);
SELECT k7(k7(1/0));
SELECT k7(a / 0) FROM (VALUES (1), (2)) v(a);
SELECT k7s(a / 0) FROM (VALUES (1), (2)) v(a);
SELECT k7(1), k7(NULL), k7s(NULL), k7(nextval('s')::int), k7s(nextval('s')::int);
SELECT currval('s');
