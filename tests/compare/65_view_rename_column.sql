-- ALTER VIEW and ALTER MATERIALIZED VIEW ... RENAME COLUMN rename the
-- column; the views reading it keep reading it, and their definitions
-- name it by its new name.
CREATE TABLE vb (a int, x int);
INSERT INTO vb VALUES (1, 10), (2, 20);
CREATE VIEW vv AS SELECT a, x FROM vb WHERE a > 0;
CREATE VIEW vw AS SELECT a, x + 1 AS x1 FROM vv;
ALTER VIEW vv RENAME COLUMN a TO aa;
SELECT * FROM vv ORDER BY 1;
SELECT * FROM vw ORDER BY 1;
SELECT pg_get_viewdef('vw'::regclass);
SELECT pg_get_viewdef('vw'::regclass, true);
SELECT attname FROM pg_attribute WHERE attrelid = 'vv'::regclass AND attnum > 0 ORDER BY attnum;
SELECT column_name FROM information_schema.columns WHERE table_name = 'vv' ORDER BY ordinal_position;
ALTER VIEW vv RENAME x TO "X y";
SELECT * FROM vv ORDER BY 1;
SELECT pg_get_viewdef('vw'::regclass, true);
CREATE VIEW vn AS SELECT aa, "X y" FROM vv;
SELECT * FROM vn ORDER BY 1;
SELECT pg_get_viewdef('vn'::regclass, true);
-- Renaming it back, and again.
ALTER VIEW vv RENAME COLUMN aa TO a;
ALTER VIEW vv RENAME COLUMN a TO b;
SELECT * FROM vw ORDER BY 1;
SELECT * FROM vn ORDER BY 1;
SELECT pg_get_viewdef('vn'::regclass, true);
-- A materialized view, and a view over it.
CREATE MATERIALIZED VIEW vm AS SELECT a, sum(x) AS s FROM vb GROUP BY a;
CREATE VIEW vmv AS SELECT a, s FROM vm WHERE s > 10;
ALTER MATERIALIZED VIEW vm RENAME COLUMN s TO total;
SELECT * FROM vm ORDER BY 1;
SELECT * FROM vmv ORDER BY 1;
SELECT pg_get_viewdef('vmv'::regclass, true);
INSERT INTO vb VALUES (3, 30);
REFRESH MATERIALIZED VIEW vm;
SELECT * FROM vm ORDER BY 1;
SELECT * FROM vmv ORDER BY 1;
-- PostgreSQL takes any of TABLE, VIEW and MATERIALIZED VIEW for any of
-- the three in RENAME COLUMN.
ALTER TABLE vv RENAME COLUMN b TO c;
ALTER MATERIALIZED VIEW vv RENAME COLUMN c TO d;
ALTER VIEW vm RENAME COLUMN a TO k;
ALTER VIEW vb RENAME COLUMN x TO xx;
SELECT * FROM vv ORDER BY 1;
SELECT * FROM vm ORDER BY 1;
SELECT * FROM vb ORDER BY 1;
-- Errors.
ALTER VIEW vv RENAME COLUMN nosuch TO q;
ALTER VIEW vv RENAME COLUMN d TO "X y";
ALTER VIEW nosuch RENAME COLUMN a TO b;
ALTER VIEW IF EXISTS nosuch RENAME COLUMN a TO b;
ALTER MATERIALIZED VIEW IF EXISTS nosuch RENAME COLUMN a TO b;
ALTER VIEW vv RENAME COLUMN d;
ALTER VIEW vv RENAME COLUMN TO x;
ALTER VIEW vv RENAME d TO d;
ALTER TABLE vb RENAME COLUMN TO x;
