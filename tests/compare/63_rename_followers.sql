-- Renaming a relation: an index on a column named like its table keeps
-- indexing that column, and views name a table renamed to a keyword
-- quoted.
CREATE TABLE ia (id int PRIMARY KEY, ia int, ib int);
CREATE INDEX ia_idx ON ia (ia);
INSERT INTO ia VALUES (1, 7, 100), (2, 8, 7);
ALTER TABLE ia RENAME TO ib;
SELECT * FROM ib WHERE ia = 7;
SELECT * FROM ib WHERE ib = 7;
CREATE TABLE tz (tz int);
CREATE INDEX ON tz (tz);
INSERT INTO tz VALUES (3), (4);
ALTER TABLE tz RENAME TO tw;
SELECT * FROM tw WHERE tz = 4;
CREATE TABLE rw (a int);
INSERT INTO rw VALUES (1);
CREATE VIEW rwv AS SELECT a FROM rw WHERE a > 0;
ALTER TABLE rw RENAME TO "table";
SELECT * FROM rwv;
SELECT pg_get_viewdef('rwv'::regclass);
SELECT pg_get_viewdef('rwv'::regclass, true);
INSERT INTO "table" VALUES (2);
SELECT * FROM rwv ORDER BY a;
-- CHECK constraints and generated columns qualifying columns with the
-- table's name follow the rename; a column renamed to a key word is
-- quoted in them.
CREATE TABLE tq (tq int CHECK (tq.tq > 0), g int GENERATED ALWAYS AS (tq.tq + 1) STORED);
INSERT INTO tq VALUES (1);
ALTER TABLE tq RENAME TO tr;
INSERT INTO tr VALUES (2);
INSERT INTO tr VALUES (-2);
SELECT * FROM tr ORDER BY tq;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tr'::regclass AND contype = 'c';
CREATE TABLE cr (a int CHECK (a > 0), g int GENERATED ALWAYS AS (a + 1) STORED);
ALTER TABLE cr RENAME COLUMN a TO "select";
INSERT INTO cr VALUES (2);
INSERT INTO cr VALUES (-2);
SELECT * FROM cr;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'cr'::regclass AND contype = 'c';
-- Views read what they read after a table they join is renamed to the
-- name of a column, or of a table of another schema.
CREATE TABLE rt (id int PRIMARY KEY, lt int, salary int);
INSERT INTO rt VALUES (1, 5, 250000), (2, 6, 310000);
CREATE TABLE lt (id int PRIMARY KEY);
INSERT INTO lt VALUES (1), (2);
CREATE VIEW rv AS SELECT id, lt AS val FROM rt NATURAL JOIN lt;
CREATE MATERIALIZED VIEW rmv AS SELECT id, lt AS val FROM rt NATURAL JOIN lt;
ALTER TABLE lt RENAME TO salary;
SELECT * FROM rv ORDER BY id;
SELECT * FROM rmv ORDER BY id;
CREATE SCHEMA s2;
CREATE TABLE s2.t7 (id int PRIMARY KEY, a int);
CREATE TABLE t7 (id int PRIMARY KEY, b int);
CREATE TABLE decoy7 (id int PRIMARY KEY, b int);
INSERT INTO s2.t7 VALUES (1, 10), (2, 20);
INSERT INTO t7 VALUES (1, 100), (2, 200);
INSERT INTO decoy7 VALUES (1, 999), (3, 333);
CREATE VIEW sv7 AS SELECT * FROM s2.t7 x NATURAL JOIN t7;
CREATE MATERIALIZED VIEW smv7 AS SELECT * FROM s2.t7 x NATURAL JOIN t7;
ALTER TABLE s2.t7 RENAME TO decoy7;
SELECT * FROM sv7 ORDER BY id;
SELECT * FROM smv7 ORDER BY id;
CREATE TABLE p (id int PRIMARY KEY, x int);
CREATE TABLE q (id int PRIMARY KEY, p int, p2 int);
INSERT INTO p VALUES (1, 10);
INSERT INTO q VALUES (1, 7, 8);
CREATE VIEW pv AS SELECT id, p AS pcol, x FROM p NATURAL JOIN q;
ALTER TABLE p RENAME TO p2;
SELECT * FROM pv;
INSERT INTO p2 VALUES (2, 20);
INSERT INTO q VALUES (2, 3, 4);
SELECT * FROM pv ORDER BY id;
