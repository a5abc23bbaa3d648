-- Gaps against PostgreSQL 15 closed together: pattern matching with ANY/ALL,
-- cursors (WHERE CURRENT OF, rows computed as fetched), f(*), DROP's
-- notices and errors, back references in regular expressions.

-- LIKE, ILIKE and the regular-expression operators quantified over arrays
-- and subqueries, with ANY's and ALL's NULL rules.
SELECT 'abc' LIKE ANY (ARRAY['a%', 'x%']), 'abc' LIKE ALL (ARRAY['a%', 'x%']), 'abc' NOT LIKE ALL (ARRAY['x%', 'y%']);
SELECT 'ABC' ILIKE ANY (ARRAY['a%']), 'abc' NOT ILIKE ANY ('{A%,b%}'), 'abc' ~ ANY ('{^b,c$}'), 'ABC' ~* ALL ('{^a,c$}'), 'abc' !~ ALL ('{x,y}'), 'abc' !~* SOME ('{A,x}');
SELECT 'abc' ~~ ANY ('{a%}'), 'abc' !~~ ALL ('{a%}'), 'abc' ~~* ANY ('{A%}'), 'abc' !~~* ANY ('{A%}');
SELECT NULL LIKE ANY ('{a}'), 'a' LIKE ANY ('{}'), 'a' LIKE ANY (NULL::text[]), 'a' LIKE ANY ('{b,NULL}'), 'a' LIKE ALL ('{a,NULL}');
CREATE TABLE pt (id int, s text, pats text[]);
INSERT INTO pt VALUES (1, 'apple', '{a%,%e}'), (2, 'berry', '{a%}'), (3, NULL, '{%}'), (4, 'cherry', NULL);
SELECT id, s LIKE ANY (pats) AS l_any, s LIKE ALL (pats) AS l_all, s ~ ANY (ARRAY['^b', 'y$']) AS re FROM pt ORDER BY id;
SELECT id FROM pt WHERE s || 'x' LIKE ANY (ARRAY['%yx', 'ax%']) ORDER BY id;
SELECT id FROM pt WHERE s NOT LIKE ALL (ARRAY['a%', 'b%']) AND id > 0 ORDER BY id;
SELECT id, s LIKE ANY (SELECT p FROM unnest(ARRAY['a%', 'c%']) p) AS sub, s ILIKE ALL (SELECT 'B%') AS suball FROM pt ORDER BY id;
SELECT id, s ~ ANY (SELECT '^' || left(s, 1) FROM pt) FROM pt ORDER BY id;
SELECT 1 LIKE ANY (ARRAY['1']);
SELECT 'a' = ANY ('{a,b}'), 'a' < ALL ('{b,c}');
CREATE MATERIALIZED VIEW mv AS SELECT id, s LIKE ANY (pats) AS l, s !~ ALL (ARRAY['^a', 'x']) AS r FROM pt;
SELECT * FROM mv ORDER BY id;
CREATE MATERIALIZED VIEW mv2 AS SELECT id FROM pt WHERE s LIKE ANY (SELECT 'a%');
SELECT * FROM mv2 ORDER BY id;
SELECT id FROM pt WHERE NOT s LIKE ANY (SELECT 'a%') ORDER BY id;
SELECT 'ab' NOT LIKE ANY (ARRAY['a%']) OR true, 'x' LIKE ANY (ARRAY['x']) = true;

-- UPDATE and DELETE ... WHERE CURRENT OF a cursor that is a simply updatable
-- scan of the table, and PostgreSQL's refusals, then their SQLSTATEs.
CREATE TABLE ct (id int PRIMARY KEY, v text);
CREATE TABLE cu (a int, b int);
INSERT INTO ct VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO cu VALUES (1, 10), (2, 20), (3, 30);
BEGIN;
DECLARE c CURSOR FOR SELECT v FROM ct WHERE id > 1;
UPDATE ct SET v = 'x' WHERE CURRENT OF c;
ROLLBACK;
BEGIN;
DECLARE c CURSOR FOR SELECT v FROM ct WHERE id > 1;
FETCH 1 FROM c;
UPDATE ct SET v = v || '!' WHERE CURRENT OF c RETURNING *;
FETCH 1 FROM c;
DELETE FROM ct WHERE CURRENT OF c RETURNING id;
MOVE 1 FROM c;
UPDATE ct AS t SET v = 'moved' WHERE CURRENT OF c;
FETCH 1 FROM c;
UPDATE ct SET v = 'y' WHERE CURRENT OF c;
ROLLBACK;
BEGIN;
UPDATE ct SET v = 'y' WHERE CURRENT OF nosuch;
ROLLBACK;
BEGIN;
DECLARE d CURSOR FOR SELECT * FROM cu;
FETCH 2 FROM d;
UPDATE cu SET b = b + 1 WHERE CURRENT OF d;
DELETE FROM cu WHERE CURRENT OF d;
SELECT * FROM cu ORDER BY a;
DELETE FROM ct WHERE CURRENT OF d;
ROLLBACK;
BEGIN;
DECLARE e CURSOR FOR SELECT * FROM ct ORDER BY v;
FETCH 1 FROM e;
UPDATE ct SET v = 'z' WHERE CURRENT OF e;
ROLLBACK;
BEGIN;
DECLARE f CURSOR FOR SELECT count(*) FROM ct;
FETCH 1 FROM f;
UPDATE ct SET v = 'z' WHERE CURRENT OF f;
ROLLBACK;
BEGIN;
DECLARE g SCROLL CURSOR FOR SELECT id FROM ct;
FETCH LAST FROM g;
FETCH PRIOR FROM g;
DELETE FROM ct WHERE CURRENT OF g;
FETCH ABSOLUTE 3 FROM g;
UPDATE ct SET v = 'abs3' WHERE CURRENT OF g;
FETCH RELATIVE 0 FROM g;
UPDATE ct SET v = v || '+' WHERE CURRENT OF g;
COMMIT;
SELECT * FROM ct ORDER BY id;
BEGIN;
DECLARE g SCROLL CURSOR FOR SELECT id FROM ct;
FETCH ABSOLUTE 0 FROM g;
DELETE FROM ct WHERE CURRENT OF g;
ROLLBACK;
SELECT * FROM ct WHERE CURRENT OF g;
BEGIN;
DECLARE h CURSOR WITH HOLD FOR SELECT id FROM ct;
COMMIT;
FETCH 1 FROM h;
UPDATE ct SET v = 'h' WHERE CURRENT OF h;
CLOSE h;
BEGIN;
DECLARE i CURSOR FOR SELECT id FROM ct FOR UPDATE;
FETCH 1 FROM i;
UPDATE ct SET v = 'i' WHERE CURRENT OF i;
SELECT * FROM ct ORDER BY id;
COMMIT;
BEGIN;
DECLARE j CURSOR FOR SELECT a FROM cu WHERE b > 10 LIMIT 5;
FETCH 2 FROM j;
DELETE FROM cu WHERE CURRENT OF j;
FETCH 1 FROM j;
SELECT * FROM cu ORDER BY a;
COMMIT;
CREATE TABLE empty (a int);
BEGIN;
DECLARE k CURSOR FOR SELECT * FROM empty;
DELETE FROM empty WHERE CURRENT OF k;
ROLLBACK;
\set VERBOSITY sqlstate
DELETE FROM empty WHERE CURRENT OF k;
BEGIN;
DECLARE k CURSOR FOR SELECT * FROM ct;
DELETE FROM ct WHERE CURRENT OF k;
ROLLBACK;
BEGIN;
DECLARE k CURSOR FOR SELECT * FROM ct;
MOVE 1 FROM k;
DELETE FROM empty WHERE CURRENT OF k;
ROLLBACK;
BEGIN;
DECLARE k CURSOR FOR SELECT count(*) FROM ct;
MOVE 1 FROM k;
DELETE FROM ct WHERE CURRENT OF k;
ROLLBACK;
BEGIN;
DECLARE k CURSOR WITH HOLD FOR SELECT * FROM ct;
COMMIT;
MOVE 1 FROM k;
DELETE FROM ct WHERE CURRENT OF k;
CLOSE k;
\set VERBOSITY default

-- A cursor computes its rows as FETCH and MOVE reach them: volatile
-- functions run and errors arise for those rows only.
CREATE SEQUENCE s;
BEGIN;
DECLARE c CURSOR FOR SELECT nextval('s') FROM generate_series(1, 10);
FETCH 1 FROM c;
SELECT currval('s');
FETCH 2 FROM c;
SELECT currval('s');
CLOSE c;
DECLARE d CURSOR FOR SELECT 10 / (5 - g) FROM generate_series(1, 10) g;
FETCH 1 FROM d;
FETCH 3 FROM d;
FETCH 1 FROM d;
ROLLBACK;
CREATE TABLE lz (id int PRIMARY KEY, d int);
INSERT INTO lz SELECT g, 5 - g FROM generate_series(1, 8) g;
BEGIN;
DECLARE e CURSOR FOR SELECT id, 100 / d FROM lz WHERE id > 0;
FETCH 2 FROM e;
FETCH 2 FROM e;
FETCH 1 FROM e;
ROLLBACK;
BEGIN;
DECLARE f CURSOR FOR SELECT id, nextval('s') FROM lz WHERE id > 2;
MOVE 2 FROM f;
SELECT currval('s');
ROLLBACK;

-- f(*) for a function other than count; DROP's cascade notice and
-- RESTRICT error list every dependent; \df lists no system function.
CREATE TABLE t4 (a int);
SELECT max(*) FROM t4;
SELECT sum(*) FROM t4;
SELECT count(*) FROM t4;
SELECT lower(*) FROM t4;
SELECT nosuch(*) FROM t4;
CREATE VIEW v4 AS SELECT a FROM t4;
CREATE VIEW v4b AS SELECT a FROM v4;
CREATE VIEW v4c AS SELECT a FROM t4;
DROP TABLE t4;
DROP TABLE t4 CASCADE;
CREATE TABLE t5 (a int);
CREATE VIEW v5 AS SELECT a FROM t5;
DROP TABLE t5 CASCADE;
\df
SELECT now(*);
SELECT pg_catalog.max(*) FROM (VALUES (1)) v;
SELECT rank(*) OVER ();
SELECT count(*) OVER ();
SELECT 1 WHERE 1 IN (SELECT max(a) FROM (VALUES (1)) v(a));
CREATE TABLE t6 (a int);
CREATE TABLE t7 (b int);
CREATE VIEW v6 AS SELECT a FROM t6;
CREATE VIEW v67 AS SELECT a, b FROM t6, t7;
CREATE VIEW v7 AS SELECT b FROM t7;
DROP VIEW v6, v7;
DROP TABLE t6, t7;
DROP TABLE t7, t6 RESTRICT;
DROP TABLE t6, t7 CASCADE;

-- Back references in regular expressions: matches, regexp_match,
-- regexp_split_to_array and regexp_replace, and PostgreSQL's error for a
-- reference to a group that does not exist.
SELECT 'abab' ~ '(ab)\1', 'abac' ~ '(ab)\1', 'ABab' ~* '(ab)\1';
SELECT regexp_replace('foo bar bar baz', '(\w+) \1', '\1');
SELECT regexp_replace('aaa bbb cc', '(\w)\1\1', 'X', 'g');
SELECT 'aa' ~ '(a)\2';
SELECT 'a1a' ~ '([a-z])\d\1', 'ab' ~ '(a)|\1b';
SELECT 'abab' ~ '(?:ab)\1';
SELECT 'xx' ~ '^(x)\1$', 'x' !~ '(x)\1';
SELECT regexp_match('abcabc', '(\w+)\1'), regexp_match('xyz', '(a)\1|(y)');
SELECT regexp_split_to_array('aXXbYYc', '([XY])\1');
SELECT regexp_replace('héhé wow', '(hé)\1', '[\1\&\\]'), regexp_replace('abab', '(ab)\1', '$1');
SELECT regexp_replace('aa bb cc', '(\w)\1', '<\1>', 'g'), regexp_replace('aa bb', '(\w)\1', '-', 'gi');
SELECT 'AbaB' ~* '^(ab)\1$', 'ab\nab' ~ '(b.a)';
SELECT regexp_replace('abc', 'b', '$&\&'), regexp_replace('abc', '(b)', '\2x\1');

-- Quantified pattern operators after other operators.
SELECT 'ab' || 'c' ~ ANY (ARRAY['^abc$']), 'x' || 'y' !~* ALL ('{X,z}');
SELECT 1 + 1 = ANY ('{2}'), NOT 'a' LIKE ANY ('{b}'), 'a' LIKE ANY ('{a}') AND 'b' ILIKE ALL ('{B,b%}');
SELECT CASE WHEN 'abc' LIKE ANY ('{a%}') THEN 1 ELSE 0 END;
SELECT 'abc' SIMILAR TO 'a%', 'abc' ~ 'b';
SELECT 'abc' OPERATOR(pg_catalog.~~) ANY ('{a%}');

-- f(*) with WITHIN GROUP, FILTER and OVER.
CREATE TABLE og4 (x int);
INSERT INTO og4 VALUES (1), (2);
SELECT sum(*) WITHIN GROUP (ORDER BY x) FROM og4;
SELECT max(*) FILTER (WHERE x > 1) FROM og4;
SELECT sum(*) OVER () FROM og4;
SELECT count(*) FILTER (WHERE x > 1) FROM og4;
SELECT rank(*) OVER (ORDER BY x), row_number(*) OVER w FROM og4 WINDOW w AS (ORDER BY x) ORDER BY 1;
SELECT max(*) OVER w FROM og4 WINDOW w AS (ORDER BY x);
