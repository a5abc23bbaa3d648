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
