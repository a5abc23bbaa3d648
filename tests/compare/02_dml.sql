-- DML: INSERT forms, RETURNING, UPDATE, DELETE, constraint errors with DETAIL.
CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, score int DEFAULT 10, note text);
INSERT INTO t VALUES (1, 'a', 5, 'x');
INSERT INTO t (id, name) VALUES (2, 'b'), (3, 'c');
INSERT INTO t VALUES (4, 'd', DEFAULT, NULL);
INSERT INTO t VALUES (5, 'e') RETURNING *;
INSERT INTO t (id, name) VALUES (6, 'f'), (7, 'g') RETURNING id, upper(name) AS up;
SELECT * FROM t ORDER BY id;
INSERT INTO t VALUES (1, 'dup');
INSERT INTO t (id) VALUES (8);
INSERT INTO t VALUES (9, NULL);
INSERT INTO t VALUES ('nine', 'x');
INSERT INTO t VALUES (9, 'x', 1, 'y', 'extra');
INSERT INTO t (id, nosuch) VALUES (9, 1);
UPDATE t SET score = score * 2 WHERE id < 3;
-- RETURNING follows the heap order, where Postgres moves updated rows to the
-- end; id > 2 leaves out row 2, which the UPDATE above just moved.
UPDATE t SET note = 'n' WHERE note IS NULL AND id > 2 RETURNING id, note;
UPDATE t SET id = 1 WHERE id = 2;
UPDATE t SET name = NULL WHERE id = 3;
DELETE FROM t WHERE id > 5 RETURNING id;
DELETE FROM t WHERE id = 100;
SELECT * FROM t ORDER BY id;
CREATE TABLE t2 (id int PRIMARY KEY, name text);
INSERT INTO t2 SELECT id, name FROM t WHERE id % 2 = 1;
INSERT INTO t2 SELECT id, name FROM t;
SELECT * FROM t2 ORDER BY id;
CREATE TABLE c (s varchar(3), n numeric(4,1), i smallint);
INSERT INTO c VALUES ('abcd', 1, 1);
INSERT INTO c VALUES ('abc', 1000, 1);
INSERT INTO c VALUES ('abc', 1.25, 40000);
INSERT INTO c VALUES ('abc', 1.25, 4.5);
SELECT * FROM c;
