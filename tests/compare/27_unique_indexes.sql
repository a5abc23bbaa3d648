-- Unique indexes and UNIQUE constraints, enforced on INSERT, UPDATE and
-- COPY as PostgreSQL does.
CREATE TABLE u1 (id int PRIMARY KEY, b int, c text);
CREATE UNIQUE INDEX u1_b ON u1 (b);
INSERT INTO u1 VALUES (1, 10, 'a'), (2, 20, 'b');
INSERT INTO u1 VALUES (3, 10, 'c');
INSERT INTO u1 VALUES (3, 30, 'c'), (4, 30, 'd');
SELECT * FROM u1 ORDER BY id;
-- NULLs are distinct.
INSERT INTO u1 VALUES (5, NULL, 'n'), (6, NULL, 'n');
SELECT * FROM u1 ORDER BY id;
-- UPDATE: a value taken by another row fails; keeping one's own passes.
UPDATE u1 SET b = 20 WHERE id = 1;
UPDATE u1 SET c = 'z' WHERE id = 1;
UPDATE u1 SET b = 11 WHERE id = 1;
INSERT INTO u1 VALUES (7, 10, 'freed');
-- DELETE frees a value.
DELETE FROM u1 WHERE id = 2;
INSERT INTO u1 VALUES (8, 20, 'again');
SELECT * FROM u1 ORDER BY id;
-- One statement taking a value twice.
INSERT INTO u1 VALUES (9, 90, 'x'), (10, 90, 'y');
SELECT count(*) FROM u1 WHERE b = 90;
-- COPY.
COPY u1 FROM stdin;
11	110	copy
12	110	copy
\.
SELECT count(*) FROM u1 WHERE id >= 11;
-- Transaction blocks.
BEGIN;
INSERT INTO u1 VALUES (13, 130, 'tx');
INSERT INTO u1 VALUES (14, 130, 'tx');
COMMIT;
BEGIN;
DELETE FROM u1 WHERE id = 8;
INSERT INTO u1 VALUES (15, 20, 'moved');
COMMIT;
SELECT * FROM u1 ORDER BY id;
-- Catalog.
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'u1' ORDER BY indexname;
SELECT c.relname, i.indisunique, i.indisprimary FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'u1'::regclass ORDER BY c.relname;
\d u1
-- CREATE UNIQUE INDEX on duplicates.
CREATE TABLE u2 (id int PRIMARY KEY, v text);
INSERT INTO u2 VALUES (1, 'x'), (2, 'y'), (3, 'x');
CREATE UNIQUE INDEX u2_v ON u2 (v);
CREATE UNIQUE INDEX ON u2 (id, v);
\d u2
-- UNIQUE constraints.
CREATE TABLE u3 (id int PRIMARY KEY, email text UNIQUE, a int, b int, CONSTRAINT u3_ab UNIQUE (a, b));
INSERT INTO u3 VALUES (1, 'a@x', 1, 1), (2, 'b@x', 1, 2);
INSERT INTO u3 VALUES (3, 'a@x', 2, 2);
INSERT INTO u3 VALUES (3, 'c@x', 1, 2);
INSERT INTO u3 VALUES (3, 'c@x', 1, NULL), (4, 'd@x', 1, NULL);
SELECT * FROM u3 ORDER BY id;
\d u3
SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint
  WHERE conrelid = 'u3'::regclass ORDER BY conname;
CREATE TABLE u4 (id int, x int UNIQUE, y int UNIQUE);
INSERT INTO u4 VALUES (1, 1, 1), (2, 2, 2);
INSERT INTO u4 VALUES (3, 1, 3);
INSERT INTO u4 VALUES (3, 3, 2);
SELECT * FROM u4 ORDER BY id;
\d u4
CREATE TABLE u5 (id int, z int, UNIQUE (nope));
-- DROP INDEX lifts the constraint.
DROP INDEX u1_b;
INSERT INTO u1 VALUES (20, 10, 'dup');
SELECT count(*) FROM u1 WHERE b = 10;
-- ON CONFLICT with a unique index as arbiter.
CREATE TABLE u6 (id int PRIMARY KEY, k text UNIQUE, n int);
INSERT INTO u6 VALUES (1, 'a', 1);
INSERT INTO u6 VALUES (2, 'a', 5) ON CONFLICT (k) DO NOTHING;
INSERT INTO u6 VALUES (2, 'a', 5) ON CONFLICT DO NOTHING;
INSERT INTO u6 VALUES (2, 'a', 5) ON CONFLICT (k) DO UPDATE SET n = u6.n + excluded.n;
INSERT INTO u6 VALUES (3, 'b', 7) ON CONFLICT (k) DO UPDATE SET n = u6.n + excluded.n;
INSERT INTO u6 VALUES (1, 'c', 9) ON CONFLICT (k) DO NOTHING;
INSERT INTO u6 VALUES (1, 'c', 9) ON CONFLICT ON CONSTRAINT u6_k_key DO NOTHING;
SELECT * FROM u6 ORDER BY id;
-- ALTER TABLE ... ADD UNIQUE.
CREATE TABLE u7 (id int PRIMARY KEY, a int, b int);
INSERT INTO u7 VALUES (1, 1, 1), (2, 1, 2);
ALTER TABLE u7 ADD CONSTRAINT u7_a_uq UNIQUE (a);
ALTER TABLE u7 ADD UNIQUE (b);
INSERT INTO u7 VALUES (3, 3, 2);
\d u7
-- A renamed column keeps its index.
ALTER TABLE u7 RENAME COLUMN b TO bb;
INSERT INTO u7 VALUES (4, 4, 1);
\d u7
-- TRUNCATE frees every value; a savepoint rolled back frees its own.
TRUNCATE u7;
INSERT INTO u7 VALUES (1, 1, 1);
BEGIN;
SAVEPOINT s;
INSERT INTO u7 VALUES (2, 2, 2);
ROLLBACK TO s;
INSERT INTO u7 VALUES (3, 5, 2);
INSERT INTO u7 VALUES (4, 6, 2);
COMMIT;
SELECT * FROM u7 ORDER BY id;
-- ON CONFLICT DO UPDATE setting a value another row holds.
CREATE TABLE u8 (id int PRIMARY KEY, k text UNIQUE);
INSERT INTO u8 VALUES (1, 'a'), (2, 'b');
INSERT INTO u8 VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET k = 'b';
INSERT INTO u8 VALUES (3, 'a'), (4, 'a') ON CONFLICT (k) DO UPDATE SET k = excluded.k || '2';
INSERT INTO u8 VALUES (5, 'c'), (6, 'c') ON CONFLICT (k) DO NOTHING;
SELECT * FROM u8 ORDER BY id;
CREATE TABLE IF NOT EXISTS u8 (id int, x int UNIQUE);
-- NULLS NOT DISTINCT: NULLs conflict like values.
CREATE TABLE u9 (id int PRIMARY KEY, a int UNIQUE NULLS NOT DISTINCT, b int, c int,
  UNIQUE NULLS DISTINCT (b), CONSTRAINT u9_bc UNIQUE NULLS NOT DISTINCT (b, c));
INSERT INTO u9 VALUES (1, NULL, NULL, NULL);
INSERT INTO u9 VALUES (2, NULL, 1, 1);
INSERT INTO u9 VALUES (2, 2, NULL, NULL);
INSERT INTO u9 VALUES (2, 2, NULL, 5);
CREATE UNIQUE INDEX u9_c ON u9 (c) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX u9_c ON u9 (c) INCLUDE (b) NULLS DISTINCT;
\d u9
\d u9_bc
\d u9_a_key
\di u9*
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'u9' ORDER BY indexname;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'u9'::regclass ORDER BY conname;
SELECT c.relname, i.indnullsnotdistinct FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'u9'::regclass ORDER BY c.relname;
CREATE TABLE u10 (id int, a int);
INSERT INTO u10 VALUES (1, NULL), (2, NULL);
ALTER TABLE u10 ADD UNIQUE NULLS NOT DISTINCT (a);
-- A primary key's index is a regclass, as every index is.
SELECT indexrelid::regclass, indisunique, indisprimary FROM pg_index
  WHERE indrelid = 'u9'::regclass ORDER BY indexrelid::regclass::text;
SELECT 'u9_pkey'::regclass = (SELECT indexrelid FROM pg_index WHERE indrelid = 'u9'::regclass AND indisprimary);
SELECT 'u10_pkey'::regclass;
-- DROP CONSTRAINT drops a UNIQUE constraint with its index; DROP INDEX
-- of the index is refused.
CREATE TABLE u11 (id int PRIMARY KEY, a int, b int UNIQUE, CONSTRAINT u11_a UNIQUE (a));
CREATE UNIQUE INDEX u11_ux ON u11 (id, a);
INSERT INTO u11 VALUES (1, 1, 1);
DROP INDEX u11_a;
DROP INDEX IF EXISTS u11_b_key;
DROP INDEX u11_a CASCADE;
ALTER TABLE u11 DROP CONSTRAINT u11_none;
ALTER TABLE u11 DROP CONSTRAINT IF EXISTS u11_none;
ALTER TABLE u11 DROP CONSTRAINT u11_ux;
ALTER TABLE u11 DROP CONSTRAINT u11_a;
INSERT INTO u11 VALUES (2, 1, 2);
ALTER TABLE u11 DROP CONSTRAINT IF EXISTS u11_b_key RESTRICT;
INSERT INTO u11 VALUES (3, 1, 1);
SELECT conname FROM pg_constraint WHERE conrelid = 'u11'::regclass ORDER BY conname;
\d u11
DROP INDEX u11_ux;
-- An UPDATE checks each row's new value as it writes the row (an
-- ordinary unique constraint, not DEFERRABLE): on a fresh table, whose
-- rows PostgreSQL visits in the order they were inserted, swapping two
-- values and shifting consecutive ones up fail at the first row, while
-- shifting them down frees each value before the next row takes it.
CREATE TABLE u12 (id int PRIMARY KEY, u int UNIQUE, t text UNIQUE);
INSERT INTO u12 SELECT g, g, 't' || g FROM generate_series(1, 5) g;
UPDATE u12 SET u = CASE id WHEN 1 THEN 2 ELSE 1 END WHERE id IN (1, 2);
UPDATE u12 SET u = u + 1;
UPDATE u12 SET t = 't' || (id + 1);
SELECT * FROM u12 ORDER BY id;
UPDATE u12 SET u = u - 1, t = 't' || (id - 1);
SELECT * FROM u12 ORDER BY id;
INSERT INTO u12 VALUES (6, 4, 'new');
INSERT INTO u12 VALUES (6, 5, 't4');
INSERT INTO u12 VALUES (6, 5, 't5');
DROP TABLE u1, u2, u3, u4, u6, u7, u8, u9, u10, u11, u12;
