-- ALTER TABLE ... ADD COLUMN of a stored generated column: the rows
-- already stored take its value, computed from each.
CREATE TABLE g (k int PRIMARY KEY, a int);
INSERT INTO g VALUES (1, 10), (2, NULL), (3, -4);
CREATE MATERIALIZED VIEW gv AS SELECT k, a FROM g;
CREATE VIEW gw AS SELECT * FROM g;
ALTER TABLE g ADD COLUMN b int GENERATED ALWAYS AS (a * 2) STORED;
SELECT * FROM g ORDER BY k;
SELECT * FROM gv ORDER BY k;
SELECT * FROM gw ORDER BY k;
INSERT INTO g VALUES (4, 7);
INSERT INTO g (k, a, b) VALUES (5, 1, 1);
UPDATE g SET a = 100 WHERE k = 1;
SELECT * FROM g ORDER BY k;
SELECT * FROM gw ORDER BY k;
\d g
SELECT attname, attgenerated, pg_get_expr(adbin, adrelid, true) FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum WHERE attrelid = 'g'::regclass;
-- Errors as PostgreSQL's.
ALTER TABLE g ADD COLUMN c int GENERATED ALWAYS AS (b + 1) STORED;
ALTER TABLE g ADD COLUMN c float8 GENERATED ALWAYS AS (random()) STORED;
ALTER TABLE g ADD COLUMN c int GENERATED ALWAYS AS (nope + 1) STORED;
ALTER TABLE g ADD COLUMN c int DEFAULT 1 GENERATED ALWAYS AS (a) STORED;
ALTER TABLE g ADD COLUMN b int GENERATED ALWAYS AS (a) STORED;
ALTER TABLE g ADD COLUMN c int GENERATED ALWAYS AS (10 / (a - 7)) STORED;
ALTER TABLE g ADD COLUMN c int NOT NULL GENERATED ALWAYS AS (a) STORED;
SELECT * FROM g ORDER BY k;
-- On an empty table, and with a cast to the column's type.
CREATE TABLE g2 (a numeric);
ALTER TABLE g2 ADD COLUMN t text GENERATED ALWAYS AS (a::text || '!') STORED;
ALTER TABLE g2 ADD COLUMN i int GENERATED ALWAYS AS (a) STORED;
INSERT INTO g2 VALUES (1.6);
SELECT * FROM g2;
DROP TABLE g2;
DROP MATERIALIZED VIEW gv;
DROP VIEW gw;
DROP TABLE g;
-- CREATE TEMP SEQUENCE: a sequence of the session's temporary schema,
-- which goes when the session ends.
CREATE TEMP SEQUENCE ts;
CREATE TEMPORARY SEQUENCE IF NOT EXISTS ts;
CREATE SEQUENCE ts START 100;
SELECT nextval('ts'), nextval('ts'), currval('ts');
SELECT nextval('public.ts'), nextval('pg_temp.ts');
SELECT setval('ts', 50), nextval('ts'), lastval();
SELECT relname, relkind, relpersistence FROM pg_class WHERE relname = 'ts' ORDER BY relpersistence;
SELECT last_value, is_called FROM ts;
SELECT last_value, is_called FROM public.ts;
CREATE TEMP SEQUENCE ts2 AS smallint START 7;
SELECT nextval('ts2');
CREATE TEMP SEQUENCE public.ts3;
CREATE SEQUENCE pg_temp.ts4;
SELECT relname, relpersistence FROM pg_class WHERE relname = 'ts4';
DROP SEQUENCE ts2;
SELECT relname FROM pg_class WHERE relname = 'ts2';
-- serial columns of a temporary table.
CREATE TEMP TABLE tt (id serial, v text);
INSERT INTO tt (v) VALUES ('a'), ('b');
SELECT * FROM tt ORDER BY id;
SELECT pg_get_serial_sequence('tt', 'id'), currval('tt_id_seq');
SELECT relname, relpersistence FROM pg_class WHERE relname = 'tt_id_seq';
\c
SELECT nextval('ts');
DROP SEQUENCE ts;
-- (row).*: the fields of a row whose type the query knows.
SELECT (ROW(1, 2)).*;
SELECT (ROW(1, 'a', NULL::date)).*, 3 AS c;
SELECT (ROW(1, 'a'::text, NULL::date)).*, 3 AS c;
SELECT (ROW(1, NULL)).*;
CREATE TABLE rt (a int, b text);
INSERT INTO rt VALUES (1, 'x'), (2, 'y');
SELECT (rt).* FROM rt ORDER BY a;
SELECT (ROW(a + 1, b || '!')).* FROM rt ORDER BY 1;
SELECT (r).b FROM rt r ORDER BY 1;
SELECT (1).*;
SELECT (x).* FROM (SELECT 1) s(x);
-- A row constructor a subquery in FROM outputs.
SELECT (x).* FROM (SELECT ROW(1, 'a')) s(x);
SELECT (x).* FROM (SELECT ROW(1, 'a'::text)) s(x);
SELECT (x).f2 FROM (SELECT ROW(1, 'a'::text)) s(x);
SELECT * FROM (SELECT ROW(1, 'a'::text)) s(x);
SELECT s.* FROM (SELECT ROW(1, 'a'::text) AS r, 5 AS z) s;
SELECT (r).*, z FROM (SELECT ROW(1, 'a'::text) AS r, 5 AS z) s JOIN (SELECT 1 AS q) u ON true ORDER BY 1;
SELECT (s.r).* FROM (SELECT ROW(g, g * 2) AS r FROM generate_series(1, 3) g) s ORDER BY 2 DESC;
SELECT (x).* FROM (SELECT rt FROM rt) s(x) ORDER BY 1;
SELECT (x).b FROM (SELECT rt FROM rt) s(x) ORDER BY 1;
CREATE VIEW rw AS SELECT (x).* FROM (SELECT ROW(a, b) FROM rt) s(x);
SELECT * FROM rw ORDER BY 1;
DROP VIEW rw;
DROP TABLE rt;
