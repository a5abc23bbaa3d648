-- Aggregates of materialized views after deletes: a NaN or an infinity
-- deleted leaves the sum of the other rows (not NaN for good), and an
-- interval sum that passed out of range on the way comes back when the
-- rows that pushed it out are deleted. The views are compared with
-- PostgreSQL's, refreshed after each change.
CREATE TABLE nt(id int PRIMARY KEY, g int, x numeric, y real, z float8);
CREATE MATERIALIZED VIEW nv AS
  SELECT sum(x) s, avg(x) a, var_samp(x) vs, stddev_pop(x) sp,
         sum(y) sy, avg(y) ay, var_pop(y) vy,
         sum(z) sz, avg(z) az, stddev_samp(z) dz
  FROM nt;
CREATE MATERIALIZED VIEW ngv AS
  SELECT g, sum(x) s, avg(z) az, var_samp(z) vz, count(*) n FROM nt GROUP BY g;
INSERT INTO nt VALUES (1, 1, 'Infinity', 'Infinity', 'Infinity'), (2, 1, 5, 5, 5),
  (3, 2, 'NaN', 'NaN', 'NaN'), (4, 2, 7, 7, 7);
REFRESH MATERIALIZED VIEW nv;
REFRESH MATERIALIZED VIEW ngv;
SELECT * FROM nv;
SELECT * FROM ngv ORDER BY g;
-- Only +Infinity left beside the finite rows.
DELETE FROM nt WHERE id = 3;
REFRESH MATERIALIZED VIEW nv;
REFRESH MATERIALIZED VIEW ngv;
SELECT * FROM nv;
SELECT * FROM ngv ORDER BY g;
-- Both infinities: NaN.
INSERT INTO nt VALUES (5, 2, '-Infinity', '-Infinity', '-Infinity');
REFRESH MATERIALIZED VIEW nv;
REFRESH MATERIALIZED VIEW ngv;
SELECT * FROM nv;
SELECT * FROM ngv ORDER BY g;
DELETE FROM nt WHERE id = 1;
REFRESH MATERIALIZED VIEW nv;
REFRESH MATERIALIZED VIEW ngv;
SELECT * FROM nv;
SELECT * FROM ngv ORDER BY g;
-- All gone: the finite sums.
DELETE FROM nt WHERE id = 5;
INSERT INTO nt VALUES (6, 1, 1.25, 1, 1);
REFRESH MATERIALIZED VIEW nv;
REFRESH MATERIALIZED VIEW ngv;
SELECT * FROM nv;
SELECT * FROM ngv ORDER BY g;
SELECT sum(x) s, avg(x) a, var_samp(x) vs, stddev_pop(x) sp,
       sum(y) sy, avg(y) ay, var_pop(y) vy,
       sum(z) sz, avg(z) az, stddev_samp(z) dz
FROM nt;
-- NaN and infinities updated away.
UPDATE nt SET x = 'NaN', z = 'Infinity' WHERE id = 2;
UPDATE nt SET x = 3, z = 3 WHERE id = 2;
REFRESH MATERIALIZED VIEW nv;
SELECT * FROM nv;

-- Interval sums: the running sum leaves the interval range while both
-- long rows are in, and the view has the sum again once one is gone.
CREATE TABLE ov(id int PRIMARY KEY, g int, z interval);
CREATE MATERIALIZED VIEW ovv AS SELECT sum(z) sz, avg(z) az, count(z) n FROM ov;
CREATE MATERIALIZED VIEW ogv AS SELECT g, sum(z) sz, avg(z) az FROM ov GROUP BY g;
INSERT INTO ov VALUES (1, 1, '178000000 years'), (2, 1, '178000000 years'), (3, 1, '1 day'),
  (4, 2, '-178000000 years'), (5, 2, '-178000000 years'), (6, 2, '-7 days');
DELETE FROM ov WHERE id IN (1, 4);
REFRESH MATERIALIZED VIEW ovv;
REFRESH MATERIALIZED VIEW ogv;
SELECT * FROM ovv;
SELECT * FROM ogv ORDER BY g;
SELECT sum(z) sz, avg(z) az FROM ov;
INSERT INTO ov VALUES (7, 1, '2147483647 days'), (8, 1, '2147483647 days'), (9, 1, '9223372036 seconds'), (10, 1, '9223372036 seconds');
DELETE FROM ov WHERE id IN (7, 9);
UPDATE ov SET z = z - '2147483647 days' WHERE id = 8;
UPDATE ov SET z = z - '9223372036 seconds' WHERE id = 10;
REFRESH MATERIALIZED VIEW ogv;
SELECT * FROM ogv ORDER BY g;

-- sum(bigint) is numeric: no overflow on the way.
CREATE TABLE bt(id int PRIMARY KEY, v bigint);
CREATE MATERIALIZED VIEW btv AS SELECT sum(v) s, avg(v) a FROM bt;
INSERT INTO bt VALUES (1, 9223372036854775807), (2, 9223372036854775807), (3, -1);
REFRESH MATERIALIZED VIEW btv;
SELECT * FROM btv;
DELETE FROM bt WHERE id = 1;
REFRESH MATERIALIZED VIEW btv;
SELECT * FROM btv;
