-- Aggregates with DISTINCT or ORDER BY in the call, DISTINCT ON and
-- nested-loop joins over tens of thousands of rows with work_mem at its
-- minimum, so that weir sorts the aggregates' input through runs on
-- tapes, and puts a nested loop's inner side on a tape. Each call's
-- sort keys decide the place of every row whose value shows (ties are
-- equal values), and every query orders its output.
SET work_mem = '64kB';
SHOW work_mem;
CREATE TABLE t (id int PRIMARY KEY, g int, k int, v numeric, s text, f float8, n numeric);
INSERT INTO t SELECT i, i % 7,
  CASE WHEN i % 97 = 0 THEN NULL ELSE i % 1000 END,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 500) / 4.0 END,
  CASE WHEN i % 31 = 0 THEN NULL ELSE md5(i::text) END,
  CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 200)::float8 / 8 END,
  CASE WHEN i % 2 = 0 THEN (i % 100)::numeric ELSE (i % 100)::numeric(10, 2) END
  FROM generate_series(1, 30000) AS s(i);
-- DISTINCT: counts, sums and averages of the distinct values, NULLs
-- left out, per group and over the whole table.
SELECT g, count(DISTINCT k), count(DISTINCT s), count(DISTINCT v), sum(DISTINCT v), avg(DISTINCT k),
  count(DISTINCT f), sum(DISTINCT f), count(DISTINCT n), count(DISTINCT k) FILTER (WHERE id % 3 = 0)
  FROM t GROUP BY g ORDER BY g;
SELECT count(DISTINCT k), count(DISTINCT s), count(DISTINCT v), sum(DISTINCT v), count(DISTINCT n),
  count(DISTINCT g), min(DISTINCT s), max(DISTINCT k) FROM t;
-- DISTINCT lists in the arguments' order, NULL (when kept) last.
SELECT g, md5(array_agg(DISTINCT k)::text), md5(array_agg(DISTINCT s)::text), md5(array_agg(DISTINCT f)::text),
  md5(string_agg(DISTINCT s, ',')), cardinality(array_agg(DISTINCT v))
  FROM t GROUP BY g ORDER BY g;
SELECT md5(string_agg(DISTINCT s, ',')), md5(array_agg(DISTINCT k)::text), md5(array_agg(DISTINCT v)::text) FROM t;
SELECT (array_agg(DISTINCT k))[1:5], (array_agg(DISTINCT k))[990:1000] FROM t;
-- DISTINCT with ORDER BY: the ORDER BY's direction and NULLs placement.
SELECT g, md5(string_agg(DISTINCT s, ',' ORDER BY s DESC)), md5(array_agg(DISTINCT k ORDER BY k DESC)::text),
  md5(array_agg(DISTINCT k ORDER BY k NULLS FIRST)::text), md5(array_agg(DISTINCT f ORDER BY f DESC NULLS LAST)::text)
  FROM t GROUP BY g ORDER BY g;
SELECT (array_agg(DISTINCT k ORDER BY k DESC))[1:4], (array_agg(DISTINCT k ORDER BY k NULLS FIRST))[1:4],
  (array_agg(DISTINCT f ORDER BY f DESC NULLS LAST))[199:201] FROM t;
-- ORDER BY: keys that decide every row's place.
SELECT g, md5(string_agg(s, ',' ORDER BY s)), md5(string_agg(s, ',' ORDER BY s DESC NULLS FIRST)),
  md5(string_agg(s, ',' ORDER BY k DESC NULLS FIRST, id)), md5(string_agg(id::text, ',' ORDER BY f NULLS FIRST, id DESC)),
  md5(array_agg(k ORDER BY k NULLS FIRST)::text), md5(array_agg(v ORDER BY v DESC)::text), md5(array_agg(f ORDER BY f)::text)
  FROM t GROUP BY g ORDER BY g;
SELECT md5(string_agg(s, ',' ORDER BY s)), md5(array_agg(id ORDER BY v NULLS FIRST, id DESC)::text),
  (array_agg(k ORDER BY k DESC))[1:5], (array_agg(k ORDER BY k DESC NULLS LAST))[1:5], (array_agg(id ORDER BY k NULLS FIRST, id))[1:5],
  left(string_agg(s, ',' ORDER BY id DESC), 70) FROM t;
-- Many groups, each small.
SELECT count(*), md5(string_agg(x, ';' ORDER BY x)) FROM (
  SELECT k, count(DISTINCT g)::text || '/' || string_agg(s, ',' ORDER BY s) || '/' || array_agg(DISTINCT f)::text AS x
  FROM t GROUP BY k) y;
SELECT k, count(DISTINCT g), string_agg(substr(s, 1, 6), ',' ORDER BY s NULLS FIRST), array_agg(DISTINCT f ORDER BY f DESC)
  FROM t WHERE k < 3 OR k IS NULL GROUP BY k ORDER BY k NULLS FIRST;
-- Grouping sets, HAVING and the JSON aggregates.
SELECT g % 2 AS h, count(DISTINCT k), md5(string_agg(s, ',' ORDER BY s)), cardinality(array_agg(DISTINCT s))
  FROM t GROUP BY ROLLUP (g % 2) ORDER BY h;
SELECT g, count(DISTINCT k) FROM t GROUP BY g HAVING count(DISTINCT s) > 4240 ORDER BY g;
SELECT g, md5(json_agg(k ORDER BY id DESC)::text), md5(jsonb_agg(s ORDER BY s NULLS FIRST)::text)
  FROM t GROUP BY g ORDER BY g;
-- DISTINCT ON over a sort.
SELECT DISTINCT ON (g) g, id, s FROM t ORDER BY g, s DESC NULLS LAST, id;
SELECT count(*), sum(id), md5(string_agg(s, ',' ORDER BY id)) FROM (SELECT DISTINCT ON (k) k, id, s FROM t ORDER BY k, id DESC) x;
SELECT count(*), sum(id) FROM (SELECT DISTINCT ON (f, g) f, g, id FROM t ORDER BY f NULLS FIRST, g DESC, id) x;
SELECT DISTINCT ON (k) k, id FROM t WHERE k IS NULL OR k < 4 ORDER BY k DESC, id;
-- Nested-loop joins: the inner side is the table.
SELECT count(*), sum(b.id), sum(v.x) FROM (VALUES (1), (2), (3)) AS v(x) JOIN t b ON b.id % 5 < v.x;
SELECT v.x, count(b.id), sum(b.id) FROM (VALUES (1), (2), (3), (40000)) AS v(x) LEFT JOIN t b ON b.id * 10 < v.x + b.k
  GROUP BY v.x ORDER BY v.x;
SELECT v.x, b.id FROM (VALUES (1), (2)) AS v(x) JOIN t b ON b.id < v.x * 3 ORDER BY v.x, b.id;
SELECT count(*), count(v.x), sum(b.id) FROM (VALUES (5), (7)) AS v(x) RIGHT JOIN t b ON b.id % 1000 = v.x * b.g;
SELECT v.x, count(*) FROM (VALUES (1), (2), (29999), (40000)) AS v(x) LEFT JOIN t b ON b.id > v.x
  WHERE b.id IS NULL OR b.id % 10000 = 0 GROUP BY v.x ORDER BY v.x;
DROP TABLE t;
