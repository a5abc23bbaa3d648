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
