-- An untyped literal or NULL in a plain SELECT feeding INSERT takes the
-- target column's type; after a set operation or ORDER BY it is text.
CREATE TABLE nt (a int, b int, d date, v varchar(2));
INSERT INTO nt SELECT NULL, 1;
INSERT INTO nt (a) SELECT NULL;
INSERT INTO nt SELECT '7', NULL, '2020-01-02', 'ab';
INSERT INTO nt SELECT 'x', NULL;
INSERT INTO nt SELECT 1, 2, 'notadate';
INSERT INTO nt SELECT 1, 2, NULL, 'abc';
INSERT INTO nt SELECT 1, NULL UNION ALL SELECT NULL, 2;
INSERT INTO nt SELECT 1, NULL UNION SELECT NULL, NULL;
INSERT INTO nt SELECT NULL, 1 ORDER BY 1 LIMIT 1;
INSERT INTO nt WITH x AS (SELECT 3) SELECT NULL, 4 FROM x;
INSERT INTO nt VALUES (NULL, NULL), (NULL, 5);
SELECT * FROM nt ORDER BY a, b, d;
-- DROP SCHEMA of several schemas: every name is looked up first, then
-- the dependents of all of them are listed in PostgreSQL's order.
CREATE SCHEMA s1; CREATE SCHEMA s2; CREATE SCHEMA s3;
CREATE TABLE s3.t (a int);
CREATE TABLE s1.u (a int);
CREATE TABLE s3.t2 (a int);
CREATE VIEW s2.v AS SELECT * FROM s3.t;
DROP SCHEMA s2, s4, s1;
DROP SCHEMA s3, s3;
DROP SCHEMA IF EXISTS s4, s3;
DROP SCHEMA s2, s3, s1;
DROP SCHEMA s1, s2, s3;
DROP SCHEMA pg_catalog, s9;
DROP SCHEMA s1, pg_catalog;
DROP SCHEMA s2, s3, s1 CASCADE;
SELECT nspname FROM pg_namespace WHERE nspname LIKE 's_' ORDER BY 1;
-- Multiple-column assignments in UPDATE and ON CONFLICT DO UPDATE, and a
-- WITH clause in front of INSERT, UPDATE and DELETE.
CREATE TABLE m (id int PRIMARY KEY, a int, b text);
INSERT INTO m VALUES (1, 1, 'x'), (2, 2, 'y');
UPDATE m SET (a, b) = (10, 'z') WHERE id = 1;
UPDATE m SET (a, b) = (SELECT 20, 'w') WHERE id = 2;
SELECT * FROM m ORDER BY id;
UPDATE m SET (a) = (5) WHERE id = 2;
UPDATE m SET (a, b) = ROW(7, 'r') WHERE id = 2;
UPDATE m SET (a, b) = (1) WHERE id = 2;
UPDATE m SET (a, b) = (SELECT 1) WHERE id = 2;
UPDATE m SET (a, a) = (1, 2) WHERE id = 2;
UPDATE m SET (a, b) = (1, 'q', 3) WHERE id = 2;
UPDATE m SET (a, b) = ROW(1) WHERE id = 2;
UPDATE m SET (a, b) = (SELECT 1, 'a', 3) WHERE id = 2;
UPDATE m SET (a, b) = (SELECT a, b FROM m) WHERE id = 2;
UPDATE m SET (a, b) = (SELECT a, b FROM m WHERE id = 99) WHERE id = 2;
SELECT * FROM m ORDER BY id;
UPDATE m SET (a, b) = (DEFAULT, 'd'), id = 2 WHERE id = 2;
UPDATE m SET (a, nosuch) = (1, 2) WHERE id = 2;
UPDATE m SET (a, b) = (SELECT m2.a + m.a, m2.b || 'p' FROM m m2 WHERE m2.id = 1) WHERE id = 2 RETURNING *;
UPDATE m SET (a, b) = (b, a) WHERE id = 2;
UPDATE m SET (a) = ROW(5) WHERE id = 2;
UPDATE m SET b = 'k', (a) = ROW(6) WHERE id = 2 RETURNING *;
UPDATE m SET (a, b) = (SELECT $$1$$::int, 'x' FROM m WHERE m.id = 1) FROM m m3 WHERE m3.id = m.id AND m.id = 2 RETURNING m.*;
INSERT INTO m VALUES (1, 0, 'c') ON CONFLICT (id) DO UPDATE SET (a, b) = (excluded.a, excluded.b || 'e');
SELECT * FROM m ORDER BY id;
WITH s AS (SELECT 4 AS id, 4 AS a, 'd' AS b) INSERT INTO m SELECT * FROM s;
WITH s AS (SELECT 5 AS id, 5 AS a, 'e' AS b) INSERT INTO m (id, a) SELECT id, a FROM s RETURNING *;
WITH s AS (SELECT 4 AS id) UPDATE m SET a = 40 FROM s WHERE m.id = s.id;
WITH s AS (SELECT 4 AS id) UPDATE m SET a = a + 1 WHERE id IN (SELECT id FROM s);
WITH s AS (SELECT 4 AS id) DELETE FROM m WHERE id IN (SELECT id FROM s) RETURNING *;
SELECT * FROM m ORDER BY id;
DROP TABLE m;
