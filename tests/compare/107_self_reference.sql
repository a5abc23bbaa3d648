-- A foreign key naming the table being created, unqualified, refers to
-- it wherever the search finds that name first: in CREATE SCHEMA's
-- elements the new schema comes first, and a temporary table's name is
-- found in pg_temp before public.
CREATE ROLE r107;
CREATE SCHEMA s107 CREATE TABLE t (a int PRIMARY KEY, b int REFERENCES t(a));
CREATE SCHEMA s107b AUTHORIZATION r107
  CREATE TABLE t (a int PRIMARY KEY, b int REFERENCES t)
  CREATE VIEW v AS SELECT a, b FROM t;
CREATE SCHEMA s107c CREATE TABLE t (a int REFERENCES t(a));
CREATE SCHEMA s107d;
CREATE TABLE s107d.u (a int PRIMARY KEY, b int REFERENCES u);
CREATE TABLE s107d.u (a int PRIMARY KEY, b int REFERENCES s107d.u);
INSERT INTO s107.t VALUES (1, NULL), (2, 1);
INSERT INTO s107.t VALUES (3, 9);
INSERT INTO s107b.t VALUES (1, 1);
INSERT INTO s107b.t VALUES (2, 3);
SELECT * FROM s107b.v;
\d s107.t
CREATE TEMP TABLE tt107 (a int PRIMARY KEY, b int REFERENCES tt107);
INSERT INTO tt107 VALUES (1, 1), (2, 3);
CREATE TABLE pt107 (a int PRIMARY KEY);
CREATE TEMP TABLE pt107 (a int PRIMARY KEY, b int REFERENCES pt107);
INSERT INTO pt107 VALUES (1, 1);
INSERT INTO pt107 VALUES (2, 3);
DROP SCHEMA s107, s107b, s107d CASCADE;
DROP TABLE pt107, tt107;
DROP TABLE pt107;
DROP ROLE r107;
