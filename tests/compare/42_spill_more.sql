-- The rows a WITH RECURSIVE UNION has seen, the rows of subqueries in
-- expressions and the rows RETURNING yields, with work_mem at its
-- minimum so that weir keeps them on tapes beyond it. Their order and
-- values must be the ones kept in memory (PostgreSQL's).
SET work_mem = '64kB';
SHOW work_mem;
CREATE TABLE big (id int PRIMARY KEY, k int, v numeric, s text);
INSERT INTO big SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE i % 3000 END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 1000) / 8.0 END, md5(i::text) || repeat('x', i % 17)
  FROM generate_series(1, 20000) AS s(i);
-- WITH RECURSIVE ... UNION: a graph walk whose rounds repeat rows of
-- earlier rounds and of their own, in the order the rows are found.
WITH RECURSIVE r(n) AS (
  SELECT 1 UNION SELECT m FROM r, LATERAL (VALUES ((n * 2) % 40000), ((n * 3 + 1) % 40000), (n % 17)) AS v(m))
SELECT count(*), sum(n), md5(string_agg(n::text, ',')) FROM r;
WITH RECURSIVE r(n) AS (
  SELECT 1 UNION SELECT m FROM r, LATERAL (VALUES ((n * 2) % 40000), ((n * 3 + 1) % 40000), (n % 17)) AS v(m))
SELECT n FROM r LIMIT 12;
-- One row a round, until it comes back to a row seen.
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n * 7 + 3) % 10007 FROM r)
SELECT count(*), min(n), max(n), md5(string_agg(n::text, ',')) FROM r;
-- The table's rows, then all of them again: every one a repeat.
WITH RECURSIVE r(id, k, v, s) AS (SELECT id, k, v, s FROM big UNION SELECT id, k, v, s FROM r)
SELECT count(*), sum(id), count(k), sum(v), md5(string_agg(s, ',')) FROM r;
-- NULLs are equal, and of equal numerics the first found is kept.
WITH RECURSIVE r(x, t) AS (
  SELECT 1.0, NULL::text
  UNION
  SELECT round((x * 7 + 3) % 4999, (x % 3)::int), CASE WHEN x % 3 = 0 THEN NULL ELSE 'k' || (x % 5)::text END FROM r)
SELECT count(*), count(t), sum(x), md5(string_agg(x || ':' || coalesce(t, '-'), ',')) FROM r;
WITH RECURSIVE r(x, t) AS (
  SELECT 1.0, NULL::text
  UNION
  SELECT round((x * 7 + 3) % 4999, (x % 3)::int), CASE WHEN x % 3 = 0 THEN NULL ELSE 'k' || (x % 5)::text END FROM r)
SELECT x, t FROM r LIMIT 8;
-- UNION ALL keeps every row.
WITH RECURSIVE r(n, d) AS (SELECT id, 0 FROM big WHERE id <= 3000 UNION ALL SELECT n, d + 1 FROM r WHERE d < 2)
SELECT count(*), sum(n), sum(d) FROM r;
-- Subqueries in expressions: IN, NOT IN, = ANY, <> ALL, < ALL, row IN,
-- scalar, EXISTS and ARRAY over thousands of rows, NULLs among them.
SELECT count(*) FILTER (WHERE k IN (SELECT k * 2 FROM big WHERE id % 3 = 0)),
  count(*) FILTER (WHERE k NOT IN (SELECT k * 2 FROM big WHERE id % 3 = 0)),
  count(*) FILTER (WHERE k NOT IN (SELECT k * 2 FROM big WHERE id % 3 = 0 AND k IS NOT NULL)),
  count(*) FILTER (WHERE k = ANY (SELECT id FROM big WHERE id > 2500)),
  count(*) FILTER (WHERE k <> ALL (SELECT id FROM big WHERE id > 2500)),
  count(*) FILTER (WHERE k < ALL (SELECT id + 100 FROM big WHERE id > 2500))
  FROM big WHERE id % 50 = 0;
SELECT id, k, s IN (SELECT s FROM big WHERE id % 2 = 1) AS odd,
  (k, v) IN (SELECT k, v FROM big WHERE id > 10000) AS later,
  v > ALL (SELECT v FROM big WHERE id > 19000 AND v IS NOT NULL) AS above
  FROM big WHERE id % 997 = 0 OR id IN (11, 97, 20000) ORDER BY id;
SELECT id, (SELECT max(s) FROM big WHERE k = 5) AS m, EXISTS (SELECT 1 FROM big WHERE k = id % 40) AS e
  FROM big WHERE id <= 3 ORDER BY id;
SELECT cardinality(a), md5(a::text), a[1:3], a[19998:20000] FROM (SELECT ARRAY(SELECT s FROM big ORDER BY id) AS a) x;
SELECT md5(ARRAY(SELECT v FROM big WHERE id > 15000 ORDER BY id DESC)::text);
SELECT count(*) FROM big b1 WHERE b1.k IN (SELECT b2.k + 1 FROM big b2 WHERE b2.id % 7 = 0) OR b1.id < 0;
-- IN and NOT IN are answered from a hash of the subquery's values
-- when the types agree: values equal by = though written apart, NULLs,
-- an empty subquery.
SELECT x, x IN (SELECT v FROM big WHERE id <= 16) AS i, x NOT IN (SELECT v FROM big WHERE id <= 16) AS ni,
  x IN (SELECT v FROM big WHERE id <= 10) AS i10, x NOT IN (SELECT v FROM big WHERE id <= 10) AS ni10
  FROM (VALUES (0.125), (0.1250), (2.0), (NULL), (99)) AS t(x);
SELECT f, f IN (SELECT g FROM (VALUES ('-0'::float8), ('NaN'), (1.5)) AS s(g)) AS i,
  f NOT IN (SELECT g FROM (VALUES ('-0'::float8), ('NaN'), (1.5)) AS s(g)) AS ni
  FROM (VALUES ('0'::float8), ('NaN'::float8), (2.0::float8), ('-Infinity')) AS t(f);
SELECT NULL::int IN (SELECT id FROM big WHERE id < 0) AS i, NULL::int NOT IN (SELECT id FROM big WHERE id < 0) AS ni,
  NULL::int IN (SELECT id FROM big) AS i2, 'ab '::char(4) IN (SELECT 'ab'::char(3)) AS c,
  'ab'::varchar IN (SELECT 'ab'::text) AS vt, 3::int2 IN (SELECT id::int8 FROM big) AS i28,
  2.5::float4 NOT IN (SELECT v::float8 FROM big WHERE id < 30 AND v IS NOT NULL) AS f48;
SELECT count(*) FILTER (WHERE s IN (SELECT s FROM big WHERE id % 3 = 0)),
  count(*) FILTER (WHERE s NOT IN (SELECT s FROM big WHERE id % 3 = 0)),
  count(*) FILTER (WHERE upper(s) IN (SELECT upper(s) FROM big WHERE id % 5 = 0)),
  count(*) FILTER (WHERE v IN (SELECT v * 2 FROM big WHERE id % 2 = 0))
  FROM big;
-- RETURNING of thousands of rows.
CREATE TABLE sink (id int PRIMARY KEY, k int, v numeric, s text);
INSERT INTO sink SELECT id, k, v, s FROM big WHERE id <= 2500 RETURNING id, k, v, s;
UPDATE sink SET v = v * 2, s = upper(s) WHERE id % 2 = 0 RETURNING id, v, s, k + 1 AS k1;
DELETE FROM sink WHERE id % 2 = 1 RETURNING *;
SELECT count(*), sum(id), sum(v), md5(string_agg(s, ',' ORDER BY id)) FROM sink;
DROP TABLE sink;
DROP TABLE big;
