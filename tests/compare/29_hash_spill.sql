-- Hash aggregation, DISTINCT, set operations and hash joins over tens of
-- thousands of rows with work_mem at its minimum, so that weir's hash
-- tables spill to disk (PostgreSQL's may spill too, or sort). Every
-- query orders its output, which spilling must not change.
SET work_mem = '64kB';
SHOW work_mem;
CREATE TABLE a (id int PRIMARY KEY, k int, g int, v numeric, s text);
CREATE TABLE b (id int PRIMARY KEY, k int, w int, t text);
INSERT INTO a SELECT i, CASE WHEN i % 97 = 0 THEN NULL WHEN i % 50 = 0 THEN 7 ELSE i % 6000 END,
  i % 10000, CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 1000) / 8.0 END, md5(i::text) || repeat('x', i % 17)
  FROM generate_series(1, 20000) AS s(i);
INSERT INTO b SELECT i, CASE WHEN i % 89 = 0 THEN NULL WHEN i % 500 = 0 THEN 7 ELSE (i * 3) % 9000 END,
  i % 13, 'b' || (i % 7000)
  FROM generate_series(1, 15000) AS s(i);
-- Aggregation: many groups, every kind of aggregate.
SELECT g, count(*), count(v), sum(v), avg(v), min(s), max(v), count(DISTINCT k),
  sum(v) FILTER (WHERE id % 3 = 0)
  FROM a GROUP BY g ORDER BY g LIMIT 8;
SELECT count(*), sum(c), sum(d), sum(sv), sum(length(sa)), sum(cardinality(aa)) FROM (
  SELECT k, count(*) AS c, count(DISTINCT g) AS d, sum(v) AS sv,
    string_agg(s, ',' ORDER BY s) AS sa, array_agg(id ORDER BY id) AS aa
  FROM a GROUP BY k) x ORDER BY 1;
SELECT k, count(*), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id < 60), (array_agg(g ORDER BY g DESC))[1:3]
  FROM a WHERE k IS NULL OR k IN (7, 8, 9) GROUP BY k ORDER BY k NULLS FIRST;
SELECT s, count(*) FROM a GROUP BY s HAVING count(*) > 0 ORDER BY s DESC LIMIT 5;
SELECT g % 7 AS m, count(DISTINCT s), avg(v), sum(id) FROM a GROUP BY g % 7 ORDER BY m;
-- DISTINCT.
SELECT count(*), sum(k) FROM (SELECT DISTINCT k, g % 100 FROM a) x ORDER BY 1;
SELECT DISTINCT g % 9 AS m, k % 3 AS r FROM a ORDER BY m, r NULLS LAST;
-- Set operations.
SELECT count(*) FROM (SELECT k FROM a UNION SELECT k FROM b) x ORDER BY 1;
SELECT count(*), sum(k) FROM (SELECT k, g % 13 FROM a INTERSECT SELECT k, w FROM b) x ORDER BY 1;
SELECT count(*), sum(k) FROM (SELECT k, g % 13 FROM a INTERSECT ALL SELECT k, w FROM b) x ORDER BY 1;
SELECT count(*), sum(k) FROM (SELECT k FROM a EXCEPT SELECT k FROM b) x ORDER BY 1;
SELECT count(*), sum(k) FROM (SELECT k FROM a EXCEPT ALL SELECT k FROM b) x ORDER BY 1;
(SELECT k FROM a EXCEPT SELECT k FROM b) ORDER BY k NULLS FIRST LIMIT 5;
-- Joins of every kind weir plans as hash joins, with NULL keys, a skewed
-- key and a residual condition.
SELECT count(*), sum(a.id), sum(b.id) FROM a JOIN b ON a.k = b.k ORDER BY 1;
SELECT count(*), sum(a.id), sum(b.id) FROM a JOIN b ON a.k = b.k AND a.g % 13 < b.w ORDER BY 1;
SELECT count(*), count(b.id), sum(a.id) FROM a LEFT JOIN b ON a.k = b.k AND b.w > 3 ORDER BY 1;
SELECT count(*), count(a.id), sum(b.id) FROM a RIGHT JOIN b ON a.k = b.k AND a.id % 2 = 0 ORDER BY 1;
SELECT count(*), count(a.id), count(b.id) FROM a FULL JOIN b ON a.k = b.k AND a.g < 10000 ORDER BY 1;
SELECT count(*), sum(id) FROM a WHERE k IN (SELECT k FROM b WHERE w = 4) ORDER BY 1;
SELECT a.id, a.k, b.id, b.t FROM a JOIN b ON a.k = b.k WHERE a.id % 1000 = 1 ORDER BY a.id, b.id LIMIT 10;
SELECT a.id, b.id FROM a FULL JOIN b ON a.k = b.k WHERE a.id IS NULL OR b.id IS NULL ORDER BY a.id NULLS FIRST, b.id LIMIT 10;
SELECT count(*), sum(x.id - y.id) FROM a x JOIN a y ON x.s = y.s ORDER BY 1;
-- A join feeding an aggregation.
SELECT b.w, count(*), count(DISTINCT a.g), sum(a.v) FROM a JOIN b ON a.k = b.k GROUP BY b.w ORDER BY b.w;
DROP TABLE a;
DROP TABLE b;
