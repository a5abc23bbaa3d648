-- Temporary tables: visible to their session only, in its pg_temp_N
-- schema, which an unqualified name searches first.
CREATE TABLE shadow (a int PRIMARY KEY, b text);
INSERT INTO shadow VALUES (1, 'permanent');
CREATE TEMP TABLE shadow (a int PRIMARY KEY, b text);
INSERT INTO shadow VALUES (2, 'temporary');
SELECT * FROM shadow;
SELECT * FROM public.shadow;
SELECT * FROM pg_temp.shadow;
SELECT relname, relpersistence, relkind FROM pg_class WHERE relname IN ('shadow', 'shadow_pkey') ORDER BY relpersistence, relkind;
SELECT c.relpersistence, n.nspname LIKE 'pg_temp\_%' AS in_temp, c.relnamespace = pg_my_temp_schema() AS mine, pg_table_is_visible(c.oid) AS visible
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'shadow' ORDER BY 1;
SELECT 'shadow'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'shadow' AND relpersistence = 't');
SELECT table_type FROM information_schema.tables WHERE table_name = 'shadow' ORDER BY 1;
-- DML, COPY, TRUNCATE, CREATE TABLE AS and LIKE.
CREATE TEMPORARY TABLE tt (id int PRIMARY KEY, name text, n numeric);
INSERT INTO tt VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, 'three', NULL);
UPDATE tt SET n = 3.5 WHERE id = 3;
DELETE FROM tt WHERE id = 1;
SELECT * FROM tt ORDER BY id;
COPY tt FROM stdin;
10	ten	10
11	eleven	\N
\.
COPY tt TO stdout;
SELECT count(*), sum(n) FROM tt;
INSERT INTO tt VALUES (2, 'dup', 0);
INSERT INTO tt VALUES (2, 'two again', 0) ON CONFLICT (id) DO UPDATE SET name = excluded.name;
SELECT name FROM tt WHERE id = 2;
CREATE TEMP TABLE tt_copy AS SELECT id, name FROM tt WHERE id >= 10;
SELECT * FROM tt_copy ORDER BY id;
CREATE LOCAL TEMP TABLE tt_like (LIKE tt);
INSERT INTO tt_like SELECT * FROM tt;
SELECT count(*) FROM tt_like;
TRUNCATE tt_like;
SELECT count(*) FROM tt_like;
CREATE TEMP TABLE ctas_pr ON COMMIT PRESERVE ROWS AS SELECT 1 AS x;
CREATE TEMP TABLE serials (id serial, v text) ON COMMIT PRESERVE ROWS;
INSERT INTO serials (v) VALUES ('a'), ('b');
SELECT * FROM serials ORDER BY id;
SELECT * FROM ctas_pr;
-- A join of the temporary table with a permanent one.
SELECT t.name, s.b FROM tt t JOIN public.shadow s ON s.a + 1 = t.id ORDER BY 1;
-- An index on a temporary table is temporary too.
CREATE INDEX tt_name ON tt (name);
SELECT relname, relpersistence FROM pg_class WHERE relname = 'tt_name';
SELECT id FROM tt WHERE name = 'ten';
CREATE UNIQUE INDEX tt_n ON tt (n);
INSERT INTO tt VALUES (20, 'twenty', 10);
DROP INDEX tt_name;
-- Views: a view over a temporary table becomes temporary.
CREATE VIEW tv AS SELECT id, name FROM tt WHERE id < 10;
SELECT * FROM tv ORDER BY id;
SELECT relpersistence FROM pg_class WHERE relname = 'tv';
CREATE TEMP VIEW tv2 AS SELECT 1 AS one;
SELECT relpersistence FROM pg_class WHERE relname = 'tv2';
CREATE VIEW public.tv3 AS SELECT * FROM tt;
CREATE VIEW pv AS SELECT * FROM public.shadow;
SELECT * FROM pv;
SELECT relpersistence FROM pg_class WHERE relname = 'pv';
-- Materialized views must not read temporary relations.
CREATE MATERIALIZED VIEW mv AS SELECT * FROM tt;
CREATE MATERIALIZED VIEW mv AS SELECT * FROM tv;
-- Where a temporary table may and may not go.
CREATE TEMP TABLE public.nope (a int);
CREATE TABLE pg_temp.via_alias (a int);
SELECT relpersistence FROM pg_class WHERE relname = 'via_alias';
CREATE TABLE perm_on_commit (a int) ON COMMIT PRESERVE ROWS;
CREATE TEMP TABLE tt (a int);
CREATE TEMP TABLE IF NOT EXISTS tt (a int);
CREATE SCHEMA pg_temp_77;
-- DROP takes the temporary table first; the permanent one is next.
DROP TABLE shadow;
SELECT * FROM shadow;
DROP TABLE shadow;
SELECT * FROM shadow;
DROP TABLE tt;
DROP TABLE tt CASCADE;
SELECT relname, relkind FROM pg_class WHERE relpersistence = 't' AND relkind IN ('r', 'v') ORDER BY 1;
DISCARD TEMP;
SELECT count(*) FROM pg_class WHERE relpersistence = 't';
SELECT * FROM tt_copy;
DROP VIEW pv;
-- Inside a transaction block: a temporary table goes with a ROLLBACK (or
-- a ROLLBACK TO a savepoint before it), stays with a COMMIT, unless it
-- was created ON COMMIT DROP.
CREATE TABLE src (id int PRIMARY KEY, v text);
INSERT INTO src VALUES (1, 'a'), (2, 'b');
BEGIN;
INSERT INTO src VALUES (3, 'c');
CREATE TEMP TABLE stage AS SELECT * FROM src WHERE id > 1;
INSERT INTO stage VALUES (4, 'd');
SELECT * FROM stage ORDER BY id;
COMMIT;
SELECT * FROM stage ORDER BY id;
BEGIN;
CREATE TEMP TABLE gone (a int);
INSERT INTO gone VALUES (1);
SELECT * FROM gone;
ROLLBACK;
SELECT * FROM gone;
BEGIN;
CREATE TEMP TABLE kept (a int);
SAVEPOINT s1;
CREATE TEMP TABLE undone (a int);
INSERT INTO undone VALUES (1);
ROLLBACK TO SAVEPOINT s1;
SELECT count(*) FROM pg_class WHERE relname = 'undone';
INSERT INTO kept VALUES (7);
COMMIT;
SELECT * FROM kept;
BEGIN;
CREATE TEMP TABLE oc_drop (a int) ON COMMIT DROP;
INSERT INTO oc_drop VALUES (1), (2);
SELECT count(*) FROM oc_drop;
COMMIT;
SELECT * FROM oc_drop;
CREATE TEMP TABLE oc_drop2 ON COMMIT DROP AS SELECT 1 AS x;
SELECT * FROM oc_drop2;
BEGIN;
CREATE TEMP TABLE failing (a int);
SELECT 1/0;
COMMIT;
SELECT * FROM failing;
SELECT relname FROM pg_class WHERE relpersistence = 't' AND relkind = 'r' ORDER BY 1;
-- ON COMMIT DELETE ROWS empties the table as every transaction commits:
-- a statement's own outside a block.
CREATE TEMP TABLE d (a int PRIMARY KEY, b text) ON COMMIT DELETE ROWS;
INSERT INTO d VALUES (1, 'x') RETURNING *;
SELECT count(*) FROM d;
BEGIN;
INSERT INTO d VALUES (2, 'y'), (3, 'z');
SELECT * FROM d ORDER BY a;
UPDATE d SET b = 'w' WHERE a = 3;
SELECT * FROM d ORDER BY a;
COMMIT;
SELECT count(*) FROM d;
BEGIN;
INSERT INTO d VALUES (4, 'v');
ROLLBACK;
SELECT count(*) FROM d;
CREATE TEMP TABLE d2 ON COMMIT DELETE ROWS AS SELECT g AS x FROM generate_series(1, 3) g;
SELECT count(*) FROM d2;
CREATE INDEX d_b ON d (b);
BEGIN;
INSERT INTO d VALUES (5, 'five');
SELECT a FROM d WHERE b = 'five';
COMMIT;
SELECT a FROM d WHERE b = 'five';
INSERT INTO d VALUES (5, 'again');
SELECT count(*) FROM d;
COPY d FROM stdin;
7	seven
\.
SELECT count(*) FROM d;
-- A permanent view bound before a temporary table of the same name came
-- keeps reading the permanent one. (A prepared statement binds again at
-- once in weir; PostgreSQL's plan cache does only if the session had no
-- temporary schema yet, so the script does not run it in between.)
CREATE TABLE base (a int);
INSERT INTO base VALUES (1);
CREATE VIEW pv2 AS SELECT a FROM base;
PREPARE q AS SELECT a FROM base;
EXECUTE q;
CREATE TEMP TABLE base (a int);
INSERT INTO base VALUES (2);
SELECT * FROM pv2;
SELECT * FROM base;
ALTER TABLE base ADD COLUMN b text;
ALTER TABLE base RENAME TO base2;
SELECT * FROM base;
SELECT * FROM base2;
SELECT 'base2'::regclass, 'base'::regclass;
DROP TABLE base2;
EXECUTE q;
-- ALTER, COMMENT, the primary key's index and pg_temp-qualified names.
CREATE TEMP TABLE tk (id int PRIMARY KEY);
DROP INDEX tk_pkey;
DROP INDEX pg_temp.tk_pkey;
ALTER TABLE tk ADD COLUMN v text;
ALTER TABLE tk RENAME COLUMN v TO w;
COMMENT ON TABLE tk IS 'temporary';
SELECT obj_description('tk'::regclass, 'pg_class');
TRUNCATE pg_temp.tk;
DROP TABLE pg_temp.tk;
DROP TABLE IF EXISTS pg_temp.tk;
SELECT * FROM pg_temp.nothing;
SELECT current_schemas(true)::text LIKE '{pg\_temp\_%,pg_catalog,public}', current_schemas(false);
