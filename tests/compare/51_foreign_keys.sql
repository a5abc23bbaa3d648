-- FOREIGN KEY constraints: names, checks, actions, errors and catalog,
-- as PostgreSQL 15 has them.
CREATE TABLE fp (id int PRIMARY KEY, u int UNIQUE, t text);
CREATE TABLE fc (cid int PRIMARY KEY, pid int REFERENCES fp, pu int,
  CONSTRAINT fc_u FOREIGN KEY (pu) REFERENCES fp(u) ON DELETE CASCADE ON UPDATE SET NULL);
\d fp
\d fc
INSERT INTO fp VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c');
INSERT INTO fc VALUES (1, 1, 10), (2, 2, 20), (3, NULL, NULL);
INSERT INTO fc VALUES (4, 9, NULL);
INSERT INTO fc VALUES (4, NULL, 99);
UPDATE fc SET pid = 7 WHERE cid = 1;
DELETE FROM fp WHERE id = 1;
UPDATE fp SET id = 5 WHERE id = 2;
-- ON DELETE CASCADE through u, ON UPDATE SET NULL.
UPDATE fp SET u = 21 WHERE id = 2;
SELECT * FROM fc ORDER BY cid;
DELETE FROM fc WHERE cid = 1;
DELETE FROM fp WHERE id = 1;
SELECT * FROM fc ORDER BY cid;
INSERT INTO fc VALUES (5, 3, 30);
DELETE FROM fp WHERE u = 30 AND id <> 3;
UPDATE fc SET pid = NULL WHERE cid = 5;
DELETE FROM fp WHERE id = 3;
SELECT * FROM fc ORDER BY cid;
-- Actions of each kind.
CREATE TABLE ap (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE ac (id int PRIMARY KEY, x int DEFAULT 0, y int DEFAULT 0,
  FOREIGN KEY (x, y) REFERENCES ap ON UPDATE CASCADE ON DELETE SET DEFAULT);
INSERT INTO ap VALUES (0, 0), (1, 1), (2, 2);
INSERT INTO ac VALUES (1, 1, 1), (2, 2, 2), (3, 1, NULL);
UPDATE ap SET a = 11, b = 11 WHERE a = 1;
SELECT * FROM ac ORDER BY id;
DELETE FROM ap WHERE a = 2;
SELECT * FROM ac ORDER BY id;
DELETE FROM ap WHERE a = 0;
\d ac
SELECT conname, contype, conkey, confkey, confupdtype, confdeltype, confmatchtype, pg_get_constraintdef(oid, true)
  FROM pg_constraint WHERE contype = 'f' ORDER BY conname;
-- MATCH FULL.
CREATE TABLE mf (id int PRIMARY KEY, x int, y int, FOREIGN KEY (x, y) REFERENCES ap MATCH FULL ON DELETE RESTRICT);
INSERT INTO mf VALUES (1, 11, NULL);
INSERT INTO mf VALUES (1, NULL, NULL);
INSERT INTO mf VALUES (2, 11, 11);
DELETE FROM ap WHERE a = 11;
-- Errors of the definition.
CREATE TABLE e1 (x int REFERENCES nosuch);
CREATE TABLE e2 (x int REFERENCES fp(t));
CREATE TABLE e3 (x text REFERENCES fp);
CREATE TABLE e4 (x int, FOREIGN KEY (x, x) REFERENCES ap);
CREATE TABLE e5 (x int, FOREIGN KEY (nosuch) REFERENCES fp);
CREATE TABLE e6 (x int REFERENCES fp MATCH PARTIAL);
CREATE TABLE e7 (x int REFERENCES fp ON UPDATE SET NULL (x));
CREATE TABLE e8 (x int, y int, FOREIGN KEY (x) REFERENCES fp ON DELETE SET NULL (y));
CREATE TABLE e9 (x bigint REFERENCES fp, y numeric REFERENCES fp);
CREATE TABLE e10 (x bigint REFERENCES fp);
\d e10
-- ALTER TABLE ADD and DROP CONSTRAINT.
CREATE TABLE al (id int PRIMARY KEY, p int);
INSERT INTO fp VALUES (50, 500, 'z');
INSERT INTO al VALUES (1, 50), (2, 77);
ALTER TABLE al ADD CONSTRAINT al_p FOREIGN KEY (p) REFERENCES fp;
DELETE FROM al WHERE id = 2;
ALTER TABLE al ADD CONSTRAINT al_p FOREIGN KEY (p) REFERENCES fp;
ALTER TABLE al ADD FOREIGN KEY (p) REFERENCES fp;
\d al
INSERT INTO al VALUES (3, 99);
ALTER TABLE al ADD CONSTRAINT al_nv FOREIGN KEY (p) REFERENCES fp NOT VALID;
\d al
ALTER TABLE al VALIDATE CONSTRAINT al_nv;
DELETE FROM al WHERE id = 3;
ALTER TABLE al VALIDATE CONSTRAINT al_nv;
ALTER TABLE al DROP CONSTRAINT al_nv;
ALTER TABLE al DROP CONSTRAINT al_p_fkey;
ALTER TABLE al DROP CONSTRAINT al_p;
\d al
-- A self reference.
CREATE TABLE tree (id int PRIMARY KEY, parent int REFERENCES tree ON DELETE CASCADE);
INSERT INTO tree VALUES (1, NULL), (2, 1), (3, 2), (4, 1);
INSERT INTO tree VALUES (5, 5);
INSERT INTO tree VALUES (6, 60);
DELETE FROM tree WHERE id = 2;
SELECT * FROM tree ORDER BY id;
-- In a transaction block.
BEGIN;
INSERT INTO fp VALUES (40, 400, 'x');
INSERT INTO fc VALUES (40, 40, 400);
COMMIT;
BEGIN;
DELETE FROM fp WHERE id = 40;
COMMIT;
SELECT * FROM fc ORDER BY cid;
-- The columns of a foreign key: DROP CONSTRAINT of the key it
-- references, DROP COLUMN and ALTER COLUMN ... TYPE on either side.
CREATE TABLE dp (id int PRIMARY KEY, u int UNIQUE, w int);
CREATE TABLE dc (id int PRIMARY KEY, pu int REFERENCES dp(u), x int, FOREIGN KEY (x) REFERENCES dp);
ALTER TABLE dp DROP CONSTRAINT dp_u_key;
ALTER TABLE dp DROP COLUMN u;
ALTER TABLE dc DROP COLUMN pu;
ALTER TABLE dc ALTER COLUMN x TYPE bigint;
ALTER TABLE dc ALTER COLUMN x TYPE text;
ALTER TABLE dp ALTER COLUMN id TYPE text;
\d dc
INSERT INTO dp VALUES (1, 1, 1);
INSERT INTO dc VALUES (1, 1), (2, NULL);
INSERT INTO dc VALUES (3, 5000000000);
DROP TABLE dc, dp;
-- TRUNCATE and DROP of a referenced table.
TRUNCATE fp;
TRUNCATE fp, fc, al;
TRUNCATE ap CASCADE;
SELECT count(*) FROM ac;
DROP TABLE fp;
DROP TABLE fp CASCADE;
\d fc
DROP TABLE fc, ap, ac, mf, e4, e10, al, tree;
-- More definitions: what may be referenced, names, column orders, a
-- second action clause, DROP with views and constraints depending.
CREATE TABLE p (id int PRIMARY KEY, u int UNIQUE, g int GENERATED ALWAYS AS (id * 2) STORED);
CREATE VIEW pv AS SELECT * FROM p;
CREATE TABLE x1 (a int REFERENCES pv);
CREATE TEMP TABLE x2 (a int REFERENCES p);
CREATE TABLE x3 (a int, b int, FOREIGN KEY (a, b) REFERENCES p);
CREATE TABLE x4 (a int, b int, FOREIGN KEY (a) REFERENCES p ON DELETE SET NULL (b));
CREATE TABLE x5 (a int GENERATED ALWAYS AS (1) STORED REFERENCES p ON DELETE SET NULL);
CREATE TABLE x6 (a int CONSTRAINT dup CHECK (a > 0), b int CONSTRAINT dup REFERENCES p);
CREATE TABLE x7 (id int PRIMARY KEY, u int UNIQUE, pu int REFERENCES x7(u));
\d x7
CREATE TABLE x8 (a_very_long_column_name_that_goes_on_and_on_and_on int, another_quite_long_column_name_for_testing int, FOREIGN KEY (a_very_long_column_name_that_goes_on_and_on_and_on, another_quite_long_column_name_for_testing) REFERENCES p(id, u));
CREATE TABLE pp (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE x9 (b int, a int, FOREIGN KEY (b, a) REFERENCES pp(b, a));
INSERT INTO pp VALUES (1, 2);
INSERT INTO x9 VALUES (2, 1);
INSERT INTO x9 VALUES (1, 2);
\d x9
CREATE TABLE x10 (a int REFERENCES p(g));
CREATE TABLE x11 (a int REFERENCES p, b int REFERENCES p);
INSERT INTO p VALUES (1, 1), (2, 2);
INSERT INTO x11 VALUES (1, 2);
UPDATE p SET id = 3 - id;
SELECT * FROM x11;
CREATE VIEW xv AS SELECT * FROM x11;
DROP TABLE p;
DROP TABLE p CASCADE;
\d x11
CREATE TABLE q (id int PRIMARY KEY);
CREATE TABLE q1 (a int REFERENCES q);
CREATE TABLE q2 (a int REFERENCES q);
DROP TABLE q CASCADE;
CREATE TABLE mf (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE mfc (a int, b int);
INSERT INTO mfc VALUES (1, NULL);
ALTER TABLE mfc ADD FOREIGN KEY (a, b) REFERENCES mf MATCH FULL;
ALTER TABLE mfc ADD FOREIGN KEY (a, b) REFERENCES mf;
ALTER TABLE mfc ADD FOREIGN KEY (a, b) REFERENCES mf ON DELETE SET NULL ON DELETE CASCADE;
CREATE TABLE x12 (a int REFERENCES mf(a));
CREATE TABLE x13 (a int REFERENCES nosuch.t);
CREATE TABLE x14 (a int, FOREIGN KEY (a) REFERENCES mf (a, b));
TRUNCATE mf, mfc;
DROP TABLE x7, x9, pp, x11, mf, mfc, q1, q2, xv;
-- ADD COLUMN ... REFERENCES.
CREATE TABLE acp (id int PRIMARY KEY);
CREATE TABLE acc (id int PRIMARY KEY);
INSERT INTO acp VALUES (1);
INSERT INTO acc VALUES (1), (2);
ALTER TABLE acc ADD COLUMN a int REFERENCES acp;
ALTER TABLE acc ADD COLUMN b int DEFAULT 5 REFERENCES acp;
ALTER TABLE acc ADD COLUMN b text REFERENCES acp;
ALTER TABLE acc ADD COLUMN d int DEFAULT 1 CONSTRAINT dd REFERENCES acp ON DELETE CASCADE;
\d acc
INSERT INTO acc VALUES (3, 7);
DELETE FROM acp;
SELECT * FROM acc;
DROP TABLE acc, acp;
-- information_schema's views of the keys.
CREATE TABLE ip (id int PRIMARY KEY, u int, w int, UNIQUE (w, u));
CREATE UNIQUE INDEX ip_plain ON ip (u);
CREATE TABLE ic (id int PRIMARY KEY, a int REFERENCES ip, b int REFERENCES ip(u) MATCH FULL ON DELETE SET NULL,
  c int, d int, FOREIGN KEY (d, c) REFERENCES ip (u, w) ON UPDATE CASCADE ON DELETE RESTRICT);
SELECT * FROM information_schema.referential_constraints ORDER BY constraint_name;
SELECT * FROM information_schema.key_column_usage WHERE table_name IN ('ip', 'ic') ORDER BY constraint_name, ordinal_position;
SELECT constraint_name, column_name, position_in_unique_constraint FROM information_schema.key_column_usage
  WHERE position_in_unique_constraint IS NOT NULL ORDER BY 1, 2;
DROP TABLE ic, ip;
-- DROP INDEX of a unique index a foreign key references.
CREATE TABLE dip (id int PRIMARY KEY, u int);
CREATE UNIQUE INDEX dip_u ON dip (u);
CREATE TABLE dic (a int REFERENCES dip(u));
DROP INDEX dip_u;
DROP INDEX dip_u CASCADE;
\d dic
DROP TABLE dic, dip;
-- A referenced table in another schema: DROP TABLE and DROP SCHEMA.
CREATE SCHEMA fks;
CREATE TABLE fks.sp (id int PRIMARY KEY);
CREATE TABLE spc (id int PRIMARY KEY, p int REFERENCES fks.sp);
\d spc
DROP TABLE fks.sp;
DROP SCHEMA fks;
DROP SCHEMA fks CASCADE;
\d spc
DROP TABLE spc;
