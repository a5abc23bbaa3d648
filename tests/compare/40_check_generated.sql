-- CHECK constraints and stored generated columns, as PostgreSQL names,
-- enforces and shows them.
CREATE TABLE ck (a int CHECK (a > 0), b text CONSTRAINT bshort CHECK (length(b) < 5),
  CHECK (a < 100 AND b <> 'x'), CONSTRAINT not7 CHECK (a <> 7));
\d ck
INSERT INTO ck VALUES (1, 'a');
INSERT INTO ck VALUES (0, 'a');
INSERT INTO ck VALUES (NULL, NULL);
INSERT INTO ck VALUES (7, 'abcdef');
INSERT INTO ck VALUES (5, 'x');
INSERT INTO ck VALUES (7, 'b');
UPDATE ck SET a = -1 WHERE a = 1;
UPDATE ck SET a = 2 WHERE a = 1;
SELECT * FROM ck ORDER BY a;
COPY ck FROM stdin;
3	c
\.
COPY ck FROM stdin;
4	d
-4	e
\.
SELECT * FROM ck ORDER BY a;
-- Names chosen as PostgreSQL chooses them: one column read gives
-- <table>_<column>_check, else <table>_check, numbered when taken.
CREATE TABLE ck2 (a int CHECK (a > 0) CHECK (a < 10), b int CHECK (a < b), CHECK (true), CHECK (a > 0));
\d ck2
SELECT conname, contype, conkey, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'ck2'::regclass ORDER BY 1;
-- ALTER TABLE ADD and DROP CONSTRAINT.
CREATE TABLE v (a int, b text);
INSERT INTO v VALUES (1, 'a'), (-1, 'b');
ALTER TABLE v ADD CONSTRAINT pos CHECK (a > 0);
ALTER TABLE v ADD CHECK (a > -5);
ALTER TABLE v ADD CHECK (a > -5 AND b IS NOT NULL);
ALTER TABLE v ADD CONSTRAINT v_a_check CHECK (a > 0);
\d v
INSERT INTO v VALUES (-6, 'c');
INSERT INTO v VALUES (2, NULL);
ALTER TABLE v DROP CONSTRAINT nope;
ALTER TABLE v DROP CONSTRAINT IF EXISTS nope;
ALTER TABLE v DROP CONSTRAINT v_check;
INSERT INTO v VALUES (2, NULL);
ALTER TABLE v RENAME COLUMN a TO aa;
\d v
INSERT INTO v VALUES (-7, 'd');
ALTER TABLE v DROP COLUMN aa;
\d v
ALTER TABLE v ADD COLUMN c int CHECK (c > 0);
ALTER TABLE v ADD COLUMN d int DEFAULT 0 CHECK (d > 0);
INSERT INTO v VALUES ('e', -1);
\d v
-- Errors in the expressions.
CREATE TABLE bad (a int CHECK (sum(a) > 0));
CREATE TABLE bad (a int CHECK ((SELECT 1) > 0));
CREATE TABLE bad (a int CHECK (a + 1));
CREATE TABLE bad (a int CHECK (zz > 0));
CREATE TABLE bad (a int CONSTRAINT c CHECK (a > 0), CONSTRAINT c CHECK (a < 0));
-- A row failing several checks is reported against the first by name.
CREATE TABLE ord (a int, CONSTRAINT zz CHECK (a > 0), CONSTRAINT aa CHECK (a > 1), CHECK (a > 2));
INSERT INTO ord VALUES (0);
INSERT INTO ord VALUES (1);
INSERT INTO ord VALUES (2);
DROP TABLE ord;
-- ON CONFLICT DO UPDATE checks the updated row.
CREATE TABLE oc (k int PRIMARY KEY, v int CHECK (v < 10));
INSERT INTO oc VALUES (1, 1);
INSERT INTO oc VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = oc.v + 20;
INSERT INTO oc VALUES (1, 50) ON CONFLICT (k) DO UPDATE SET v = 2;
INSERT INTO oc VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = excluded.v + 1;
SELECT * FROM oc;
-- Stored generated columns.
CREATE TABLE g (a int, b int GENERATED ALWAYS AS (a * 2) STORED, c text GENERATED ALWAYS AS ('x' || a::text) STORED);
\d g
INSERT INTO g VALUES (1);
INSERT INTO g VALUES (2, DEFAULT);
INSERT INTO g (a) VALUES (3) RETURNING *;
INSERT INTO g VALUES (3, 4);
INSERT INTO g (a, c) VALUES (3, 'y');
INSERT INTO g OVERRIDING SYSTEM VALUE VALUES (3, 4);
INSERT INTO g SELECT 4, 5;
UPDATE g SET b = 5;
UPDATE g SET b = DEFAULT, a = 10 WHERE a = 1;
UPDATE g SET a = a + 100 WHERE a = 2 RETURNING b, c;
COPY g FROM stdin;
5
\.
COPY g (a, b) FROM stdin;
CREATE TABLE cg (a int, b int GENERATED ALWAYS AS (a + 1) STORED, c int);
INSERT INTO cg VALUES (1, DEFAULT, 3);
COPY cg TO stdout;
COPY cg (a, c) TO stdout;
SELECT * FROM g ORDER BY a;
SELECT attname, attgenerated, atthasdef FROM pg_attribute WHERE attrelid = 'g'::regclass AND attnum > 0 ORDER BY attnum;
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (b * 2) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (a * 2) STORED, c int GENERATED ALWAYS AS (b * 2) STORED);
CREATE TABLE bad (a int, b int DEFAULT 1 GENERATED ALWAYS AS (a * 2) STORED);
CREATE TABLE bad (a int, b float8 GENERATED ALWAYS AS (random()) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (a::text) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (sum(a)) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS ((SELECT 1)) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (zz) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS (a) STORED GENERATED ALWAYS AS (a) STORED);
CREATE TABLE bad (a int, b int GENERATED ALWAYS AS IDENTITY GENERATED ALWAYS AS (a * 2) STORED);
ALTER TABLE g DROP COLUMN a;
-- A generated column under a CHECK constraint.
CREATE TABLE g9 (a int PRIMARY KEY, b int GENERATED ALWAYS AS (a * 2) STORED CHECK (b < 10));
CREATE UNIQUE INDEX g9_b ON g9 (b);
\d g9
INSERT INTO g9 VALUES (6);
INSERT INTO g9 VALUES (1);
INSERT INTO g9 VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 20;
INSERT INTO g9 VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 20;
COPY g9 FROM stdin;
60
\.
SELECT * FROM g9;
DROP TABLE ck, ck2, v, oc, g, g9, cg;
-- How the expressions print, pretty (\d) and not.
CREATE TABLE pr (a int, b int, t text,
  CHECK (a > 0 OR b IS NULL), CHECK (NOT (a = 3 AND b = 4)), CHECK ((a + 1) * 2 > b - (a - 1)),
  CHECK (a * 2 + 1 <> 0 AND (t IS NULL OR length(t::varchar) < 10)), CHECK (t <> 'x'),
  c int GENERATED ALWAYS AS ((a + 1) * (b - 2) - 3) STORED, d text GENERATED ALWAYS AS (t || (a + 1)::text) STORED);
\d pr
SELECT conname, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'pr'::regclass ORDER BY 1;
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid, true) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = 'pr'::regclass ORDER BY 1;
-- More expressions as pg_get_constraintdef prints them: IN lists,
-- BETWEEN, casts, CASE (on lines of its own), LIKE and regular expressions.
CREATE TABLE e1 (a int, b text, d date, f bool, "A" int, n numeric,
  CHECK (a > 1.5), CHECK (b IN ('x', 'y')), CHECK (b NOT IN ('z')), CHECK (a IN (1, 2, 3)), CHECK (a BETWEEN 1 AND 5),
  CHECK (b ~ '^[a-z]+$'), CHECK (b LIKE 'a%'), CHECK ("A" > 0), CHECK (f), CHECK (d > '2020-01-01'),
  CHECK (coalesce(a, 0) > 0), CHECK (upper(b) = b), CHECK (length(b) BETWEEN 1 AND 10), CHECK (n > 0 AND n < 100.5),
  CHECK (a IS NOT NULL OR b IS NOT NULL), CHECK (NOT f), CHECK (a <> -1), CHECK (-a < 0), CHECK (f IS TRUE),
  CHECK (CASE WHEN a > 0 THEN true ELSE false END), CHECK (a % 2 = 0), CHECK (b <> ''), CHECK (a::text <> b));
\d e1
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'e1'::regclass ORDER BY 1;
create table e2 (a int, b text, check (a in (1,2) and b is null), check ((a + 1) in (3, 4)), check (a > 0 and case when a > 1 then b = 'x' else b = case when a = 1 then 'y' end end), check (b in ('x', 'y') or a not in (3, 4)));
select pg_get_constraintdef(oid, true) from pg_constraint where conrelid = 'e2'::regclass order by conname;
select pg_get_constraintdef(oid) from pg_constraint where conrelid = 'e2'::regclass order by conname;
DROP TABLE e1, e2;
-- A prepared INSERT sees a constraint added after it was prepared.
PREPARE ins (int) AS INSERT INTO pr (a, b) VALUES ($1, 1);
EXECUTE ins (5);
ALTER TABLE pr ADD CONSTRAINT lt9 CHECK (a < 9);
EXECUTE ins (10);
ALTER TABLE pr DROP CONSTRAINT lt9;
EXECUTE ins (10);
SELECT * FROM pr ORDER BY a;
DEALLOCATE ins;
-- Inside a transaction block.
BEGIN;
INSERT INTO pr (a, b) VALUES (11, 1);
INSERT INTO pr (a, b) VALUES (-11, 1);
ROLLBACK;
DROP TABLE pr;
-- Long names are cut as PostgreSQL cuts them (the longer part first).
CREATE TABLE a_table_whose_name_is_rather_long_for_a_constraint_name_xyz (a_column_with_a_long_name int CHECK (a_column_with_a_long_name > 0) CHECK (a_column_with_a_long_name < 9), CHECK (true));
SELECT conname FROM pg_constraint WHERE conrelid = 'a_table_whose_name_is_rather_long_for_a_constraint_name_xyz'::regclass ORDER BY 1;
DROP TABLE a_table_whose_name_is_rather_long_for_a_constraint_name_xyz;
-- NO INHERIT and NOT VALID; VALIDATE CONSTRAINT.
CREATE TABLE nv2 (a int, CONSTRAINT c CHECK (a > 0) NOT VALID, CHECK (a < 9) NO INHERIT);
\d nv2
SELECT conname, convalidated, connoinherit, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'nv2'::regclass ORDER BY 1;
CREATE TABLE bad (a int CHECK (a > 0) NOT VALID);
CREATE TABLE nv (a int, b int);
INSERT INTO nv VALUES (-1, -1);
ALTER TABLE nv ADD CONSTRAINT c1 CHECK (a > 0) NOT VALID;
ALTER TABLE nv ADD CONSTRAINT c2 CHECK (b > 0) NO INHERIT NOT VALID;
ALTER TABLE nv ADD CONSTRAINT c3 CHECK (b > -5) NOT VALID NO INHERIT;
\d nv
SELECT conname, convalidated, connoinherit FROM pg_constraint WHERE conrelid = 'nv'::regclass ORDER BY 1;
INSERT INTO nv VALUES (-2, 1);
ALTER TABLE nv VALIDATE CONSTRAINT c1;
ALTER TABLE nv VALIDATE CONSTRAINT nope;
ALTER TABLE nv VALIDATE CONSTRAINT c3;
UPDATE nv SET a = 1;
UPDATE nv SET a = 1, b = 1;
ALTER TABLE nv VALIDATE CONSTRAINT c1;
ALTER TABLE nv VALIDATE CONSTRAINT c1;
\d nv
DROP TABLE nv, nv2;
-- LIKE ... INCLUDING CONSTRAINTS | GENERATED.
CREATE TABLE src (a int CHECK (a > 0), b int GENERATED ALWAYS AS (a * 2) STORED, CONSTRAINT named CHECK (b < 100));
CREATE TABLE l1 (LIKE src INCLUDING CONSTRAINTS INCLUDING GENERATED);
\d l1
CREATE TABLE l2 (LIKE src INCLUDING CONSTRAINTS);
\d l2
CREATE TABLE l3 (LIKE src, CHECK (a < 5));
\d l3
INSERT INTO l1 VALUES (60);
INSERT INTO l1 VALUES (-1);
INSERT INTO l2 VALUES (1, 200);
INSERT INTO l3 VALUES (-1, 200);
DROP TABLE src, l1, l2, l3;
-- DROP EXPRESSION makes a generated column an ordinary one.
CREATE TABLE de (a int, b int GENERATED ALWAYS AS (a * 2) STORED);
INSERT INTO de VALUES (1);
ALTER TABLE de ALTER COLUMN a DROP EXPRESSION;
ALTER TABLE de ALTER COLUMN a DROP EXPRESSION IF EXISTS;
ALTER TABLE de ALTER b DROP EXPRESSION;
\d de
INSERT INTO de VALUES (2, 5);
SELECT * FROM de ORDER BY a;
ALTER TABLE de ALTER COLUMN b DROP EXPRESSION IF EXISTS;
ALTER TABLE de ALTER COLUMN zz DROP EXPRESSION;
DROP TABLE de;
-- ALTER TABLE over generated columns and checks.
CREATE TABLE at1 (a int, b int GENERATED ALWAYS AS (a + 1) STORED, c int CHECK (c > 0), d int);
ALTER TABLE at1 ALTER COLUMN a TYPE bigint;
ALTER TABLE at1 DROP COLUMN c, DROP COLUMN d;
\d at1
INSERT INTO at1 VALUES (1);
SELECT * FROM at1;
DROP TABLE at1;
-- LOCK TABLE outside a transaction block.
LOCK TABLE nope;
LOCK ck IN ACCESS SHARE MODE NOWAIT;
-- ntile reads its argument once, at the partition's first row (the
-- first whose argument is not NULL).
SELECT ntile(a) OVER (ORDER BY a) FROM (VALUES (1), (2), (3)) v(a);
SELECT a, ntile(b) OVER (ORDER BY a) FROM (VALUES (1, NULL), (2, 2), (3, 1), (4, 5)) v(a, b);
SELECT a, ntile(a) OVER (PARTITION BY a % 2 ORDER BY a) FROM generate_series(1, 7) a ORDER BY a;
-- Each element of search_path is one schema's name.
SET search_path = 'public, pg_catalog';
SHOW search_path;
SET search_path = public, 'pg_catalog';
SHOW search_path;
SET search_path = '$user', public;
SHOW search_path;
SET search_path = "Foo", bar, 'Baz';
SHOW search_path;
SET SCHEMA 'Foo';
SHOW search_path;
RESET search_path;
SHOW search_path;
