-- ALTER TABLE's column actions: ADD, DROP, RENAME COLUMN, ALTER COLUMN.
CREATE TABLE at1 (id int PRIMARY KEY, name text, score numeric);
INSERT INTO at1 VALUES (1, 'one', 1.50), (2, 'two', NULL);
CREATE VIEW at1_all AS SELECT * FROM at1;
CREATE VIEW at1_names AS SELECT id, name FROM at1 WHERE id > 0;
CREATE VIEW at1_names2 AS SELECT name FROM at1_names;
CREATE INDEX at1_name_idx ON at1 (name);
-- ADD COLUMN: existing rows take the default, evaluated once.
ALTER TABLE at1 ADD COLUMN price numeric DEFAULT 2.50;
ALTER TABLE at1 ADD label text DEFAULT 'a' || 'b' NOT NULL;
ALTER TABLE at1 ADD COLUMN note varchar(10);
ALTER TABLE at1 ADD COLUMN IF NOT EXISTS note text;
ALTER TABLE at1 ADD COLUMN note text;
ALTER TABLE at1 ADD COLUMN id int;
ALTER TABLE at1 ADD COLUMN flag boolean NOT NULL;
ALTER TABLE at1 ADD COLUMN big bigint DEFAULT 3;
SELECT * FROM at1 ORDER BY id;
INSERT INTO at1 VALUES (3, 'three', 3, 7.25, 'x', 'n3', 30);
INSERT INTO at1 (id, name) VALUES (4, 'four');
SELECT * FROM at1 ORDER BY id;
-- Views created before see the table as it was; later ones see it all.
SELECT * FROM at1_all ORDER BY id;
CREATE VIEW at1_later AS SELECT * FROM at1;
SELECT * FROM at1_later ORDER BY id;
\d at1
-- RENAME COLUMN: views keep reading the column under its old name.
ALTER TABLE at1 RENAME COLUMN name TO title;
ALTER TABLE at1 RENAME score TO points;
ALTER TABLE at1 RENAME COLUMN missing TO other;
ALTER TABLE at1 RENAME COLUMN title TO points;
SELECT * FROM at1_names ORDER BY id;
SELECT * FROM at1_all ORDER BY id;
SELECT title, points FROM at1 WHERE id = 3;
\d at1
\d at1_name_idx
-- ALTER COLUMN.
ALTER TABLE at1 ALTER COLUMN note SET DEFAULT 'dflt';
ALTER TABLE at1 ALTER note DROP NOT NULL;
ALTER TABLE at1 ALTER COLUMN big SET NOT NULL;
ALTER TABLE at1 ALTER COLUMN note SET NOT NULL;
ALTER TABLE at1 ALTER COLUMN id DROP NOT NULL;
ALTER TABLE at1 ALTER COLUMN label DROP DEFAULT;
ALTER TABLE at1 ALTER COLUMN nope SET DEFAULT 1;
INSERT INTO at1 (id, title, label) VALUES (5, 'five', 'l5');
INSERT INTO at1 (id, title) VALUES (6, 'six');
INSERT INTO at1 (id, title, label, big) VALUES (6, 'six', 'l6', NULL);
SELECT id, title, note, big FROM at1 ORDER BY id;
\d at1
-- DROP COLUMN: refused while a view reads it, CASCADE drops the views.
ALTER TABLE at1 DROP COLUMN points;
ALTER TABLE at1 DROP COLUMN price;
ALTER TABLE at1 DROP COLUMN IF EXISTS nothing;
ALTER TABLE at1 DROP COLUMN nothing;
ALTER TABLE at1 DROP COLUMN big RESTRICT;
ALTER TABLE at1 DROP COLUMN points CASCADE;
ALTER TABLE at1 DROP title;
ALTER TABLE at1 DROP title CASCADE;
SELECT * FROM at1 ORDER BY id;
INSERT INTO at1 VALUES (7, 1, 'l7', 'n7');
SELECT * FROM at1 ORDER BY id;
SELECT attname, attisdropped FROM pg_attribute WHERE attrelid = 'at1'::regclass AND attnum > 0 ORDER BY attnum;
SELECT relnatts FROM pg_class WHERE relname = 'at1';
SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'at1' ORDER BY ordinal_position;
\d at1
ALTER TABLE at1 ADD COLUMN title text DEFAULT 'back';
SELECT * FROM at1 ORDER BY id;
-- A table without a primary key.
CREATE TABLE at2 (a int, b text);
INSERT INTO at2 VALUES (1, 'x');
ALTER TABLE at2 ADD COLUMN c int DEFAULT 10;
ALTER TABLE at2 DROP COLUMN a;
INSERT INTO at2 VALUES ('y', 20);
SELECT * FROM at2 ORDER BY b;
-- A volatile default on an empty table.
CREATE TABLE at3 (a int);
CREATE SEQUENCE at3_seq;
ALTER TABLE at3 ADD COLUMN n int DEFAULT nextval('at3_seq');
INSERT INTO at3 (a) VALUES (1), (2);
SELECT * FROM at3 ORDER BY a;
ALTER TABLE IF EXISTS at_none ADD COLUMN x int;
ALTER TABLE at_none ADD COLUMN x int;
ALTER TABLE at1_all ADD COLUMN x int;
-- ONLY, as pg_dump writes it.
CREATE TABLE onl (a int PRIMARY KEY);
ALTER TABLE ONLY onl ADD COLUMN b int DEFAULT 3;
ALTER TABLE IF EXISTS ONLY onl ALTER COLUMN b SET DEFAULT 4;
ALTER TABLE ONLY onl RENAME TO onl2;
INSERT INTO onl (a) VALUES (1);
SELECT * FROM onl;
