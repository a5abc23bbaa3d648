-- Collations. weir knows those that order text by its bytes (the
-- database default is C here): "default", "C", "POSIX", "ucs_basic".
-- ALTER COLUMN ... TYPE takes a COLLATE, and without one gives the
-- column its new type's default collation; a bad name is 42704 and a
-- type without collation 42804, both without a position.
CREATE TABLE ct (id int PRIMARY KEY, a text, b text COLLATE "C", c varchar(5) COLLATE "POSIX", n int, e text COLLATE "C");
CREATE INDEX ct_a ON ct (a);
CREATE UNIQUE INDEX ct_e ON ct (e);
INSERT INTO ct VALUES (1, 'x', 'y', 'z', 1, 'k'), (2, 'B', 'a', 'b', 2, 'K');
ALTER TABLE ct ALTER COLUMN a TYPE text COLLATE "C";
ALTER TABLE ct ALTER COLUMN b TYPE varchar(10);
ALTER TABLE ct ALTER COLUMN c TYPE text COLLATE "ucs_basic";
ALTER TABLE ct ALTER COLUMN n TYPE text COLLATE "POSIX" USING n::text;
ALTER TABLE ct ALTER COLUMN e SET DATA TYPE varchar(3) COLLATE pg_catalog."POSIX";
ALTER TABLE ct ALTER COLUMN id TYPE bigint COLLATE "C";
ALTER TABLE ct ALTER COLUMN a TYPE text COLLATE "nosuch";
ALTER TABLE ct ALTER COLUMN a TYPE text COLLATE public."C";
ALTER TABLE ct ALTER COLUMN nosuch TYPE text COLLATE "C";
\d ct
SELECT attname, attcollation FROM pg_attribute WHERE attrelid = 'ct'::regclass AND attnum > 0 ORDER BY attnum;
SELECT column_name, collation_catalog = current_database() AS here, collation_schema, collation_name FROM information_schema.columns WHERE table_name = 'ct' ORDER BY ordinal_position;
SELECT * FROM ct ORDER BY a;
SELECT * FROM ct ORDER BY e DESC;
INSERT INTO ct VALUES (3, 'q', 'q', 'q', '3', 'k');
SELECT id FROM ct WHERE a = 'x';
ALTER TABLE ct ALTER COLUMN a SET DATA TYPE text COLLATE pg_catalog."default";
ALTER TABLE ct ALTER COLUMN b TYPE text COLLATE "default";
\d ct
SELECT attname, attcollation FROM pg_attribute WHERE attrelid = 'ct'::regclass AND attnum > 0 ORDER BY attnum;
-- Two columns of different collations that order alike: an explicit
-- COLLATE on one side decides, and the default yields to the other.
CREATE TABLE cm (id int, d text, c text COLLATE "C", p text COLLATE "POSIX", u text COLLATE "ucs_basic");
INSERT INTO cm VALUES (1, 'a', 'b', 'c', 'd'), (2, 'B', 'C', 'D', 'e');
SELECT d < c, c COLLATE "C" < p, p < d COLLATE "C" FROM cm ORDER BY id;
SELECT c || p, length(c || d), min(c), max(p) FROM cm GROUP BY c, p, d ORDER BY 3;
SELECT c FROM cm ORDER BY c COLLATE "POSIX" DESC;
-- Where two different collations meet (neither the default), an
-- operation that needs one fails once it runs on values (42P22); on
-- NULLs, or no rows, it does not run.
INSERT INTO cm VALUES (3, NULL, NULL, NULL, NULL);
SELECT c < p FROM cm;
SELECT c = p FROM cm WHERE id = 3;
SELECT id FROM cm WHERE c = p;
SELECT c || p, c < p COLLATE "C" FROM cm ORDER BY id;
SELECT upper(c || p) FROM cm;
SELECT upper(c || p) FROM cm WHERE id = 3;
SELECT lower(c || u) FROM cm;
SELECT length(c || p) FROM cm ORDER BY id;
SELECT (c || p) < d FROM cm;
SELECT c < d, p > d FROM cm ORDER BY id;
SELECT count(*) FROM cm a JOIN cm b ON a.c < b.p;
SELECT count(*) FROM cm a JOIN cm b ON a.id = b.id AND a.c < b.p;
SELECT CASE WHEN c = p THEN 1 ELSE 0 END FROM cm;
SELECT c <> u FROM cm WHERE false;
SELECT a.c = b.u FROM cm a, cm b WHERE a.id = 3;
UPDATE cm SET d = 'x' WHERE c > p;
DELETE FROM cm WHERE upper(c || u) = 'X';
DELETE FROM cm WHERE id = 3;
-- An explicit COLLATE wins over the columns' collations; two different
-- explicit ones are 42P21, at the second clause. A type without
-- collation is 42804, an unknown name 42704, both at the clause.
SELECT c COLLATE "C" < p COLLATE "POSIX" FROM cm;
SELECT 'a' COLLATE "C" = 'b' COLLATE "POSIX";
SELECT 'a' COLLATE "C" = 'b' COLLATE "C", 'a' COLLATE "C" < 'b';
SELECT 1 COLLATE "C";
SELECT id COLLATE "POSIX" FROM cm;
SELECT (1 + 2) COLLATE "C";
SELECT -1 COLLATE "C";
SELECT 'x' COLLATE "nosuch";
SELECT c COLLATE "ucs_basic" < p, upper(c || p COLLATE "C") FROM cm ORDER BY id;
SELECT c COLLATE "C" AS x FROM cm ORDER BY x;
SELECT c FROM cm UNION SELECT p COLLATE "ucs_basic" FROM cm ORDER BY 1;
SELECT c COLLATE "C" FROM cm UNION SELECT p COLLATE "POSIX" FROM cm;
SELECT max(c COLLATE "POSIX"), (c COLLATE "C") COLLATE "POSIX" < p FROM cm GROUP BY c, p ORDER BY 1;
SELECT c::varchar(3) COLLATE "POSIX" < p FROM cm ORDER BY id;
SELECT CASE WHEN c COLLATE "C" = 'b' THEN p COLLATE "POSIX" ELSE u END FROM cm ORDER BY id;
SELECT coalesce(c COLLATE "C", p COLLATE "POSIX") FROM cm;
SELECT c COLLATE "C" IN (p COLLATE "POSIX") FROM cm;
SELECT c COLLATE "C" || p COLLATE "POSIX" FROM cm;
SELECT id FROM cm WHERE c COLLATE pg_catalog."C" = 'b' GROUP BY c COLLATE "POSIX", id;
SELECT c COLLATE "default" < p FROM cm ORDER BY 1;
-- A sort, group or DISTINCT key needs a collation: two implicit ones
-- that conflict are 42P21 when the query is bound, at the second one.
SELECT c FROM cm ORDER BY c || p;
SELECT c || p FROM cm ORDER BY 1;
SELECT c || p AS x FROM cm ORDER BY x;
SELECT count(*) FROM cm GROUP BY c, u || c;
SELECT DISTINCT c || u FROM cm;
SELECT c FROM cm ORDER BY upper(c || d || p);
SELECT c FROM cm ORDER BY c || p COLLATE "C";
SELECT c FROM cm WHERE false ORDER BY d || c || u;
SELECT max(c || p) FROM cm GROUP BY id ORDER BY id;
-- A set operation compares its rows under one collation per column
-- (but UNION ALL): two different ones, neither the default, are 42P21
-- at the second query's column.
SELECT c FROM cm UNION SELECT p FROM cm;
SELECT c FROM cm UNION SELECT d FROM cm ORDER BY 1;
SELECT id, c FROM cm INTERSECT SELECT id, u FROM cm;
SELECT id, c FROM cm EXCEPT SELECT id, upper(p) FROM cm;
SELECT c FROM cm UNION SELECT p COLLATE "C" FROM cm ORDER BY 1;
SELECT c FROM cm UNION SELECT c FROM cm UNION SELECT u FROM cm;
SELECT c FROM cm UNION (SELECT p FROM cm UNION ALL SELECT p FROM cm);
SELECT count(*) FROM (SELECT c FROM cm UNION ALL SELECT p FROM cm) s;
SELECT c FROM cm UNION SELECT u FROM cm WHERE false;
-- CREATE TABLE AS, views and materialized views take the collation of
-- the columns (and of expressions over them) they are made of.
CREATE TABLE cas AS SELECT c, p, c || 'x' AS cx, d, u, upper(u) AS uu, id, id::text AS it, c::varchar(3) AS cv FROM cm;
\d cas
CREATE TABLE cas2 AS SELECT * FROM cm WHERE id > 1;
\d cas2
CREATE TABLE cas3 AS SELECT p, count(*) AS n FROM cm GROUP BY p;
\d cas3
CREATE TABLE cas4 AS SELECT c COLLATE "POSIX" AS cp, d COLLATE "C" AS dc, p COLLATE "default" AS pd, upper(d COLLATE "ucs_basic") AS du FROM cm;
\d cas4
DROP TABLE cas4;
CREATE VIEW cv AS SELECT c, p, c || 'x' AS cx, d FROM cm;
\d cv
CREATE OR REPLACE VIEW cv AS SELECT c, p, c || 'y' AS cx, d, u FROM cm;
CREATE OR REPLACE VIEW cv AS SELECT c, u AS p, c || 'y' AS cx, d, u FROM cm;
CREATE OR REPLACE VIEW cv AS SELECT c, p, d AS cx, d, u FROM cm;
CREATE OR REPLACE VIEW cv AS SELECT c, p, c || 'x' AS cx, c AS d, u FROM cm;
\d cv
CREATE VIEW cv2 (x, y) AS SELECT a.c, b.u FROM cm a JOIN cm b ON a.id = b.id;
\d cv2
CREATE MATERIALIZED VIEW cmv AS SELECT c, p, d, id FROM cm;
\d cmv
CREATE MATERIALIZED VIEW cmv2 AS SELECT p, max(u) AS mu, count(*) AS n FROM cm GROUP BY p;
\d cmv2
CREATE VIEW uv AS SELECT c FROM cm UNION ALL SELECT c || 'x' FROM cm UNION ALL SELECT d FROM cm;
\d uv
DROP VIEW uv;
-- information_schema.columns lists tables and views, not materialized
-- views.
SELECT table_name, column_name, collation_schema, collation_name FROM information_schema.columns WHERE table_name IN ('cas', 'cas2', 'cas3', 'cv', 'cv2', 'cmv', 'cmv2') ORDER BY 1, ordinal_position;
SELECT c.relname, a.attname, a.attcollation FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname IN ('cas', 'cv', 'cv2', 'cmv', 'cmv2') AND a.attnum > 0 ORDER BY 1, a.attnum;
SELECT * FROM cmv ORDER BY id;
DROP MATERIALIZED VIEW cmv2;
DROP MATERIALIZED VIEW cmv;
DROP VIEW cv2;
DROP VIEW cv;
DROP TABLE cas, cas2, cas3, cm, ct;
