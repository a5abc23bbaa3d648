-- FILTER (WHERE c) decides which rows an aggregate sees; it is not a
-- CASE in the argument: aggregates that keep NULLs or count rows differ.
CREATE TABLE flt (id int PRIMARY KEY, g int, x int, s text);
INSERT INTO flt VALUES (1, 1, 10, 'a'), (2, 1, NULL, NULL), (3, 2, 30, 'c'), (4, 2, NULL, 'd');
SELECT array_agg(x) FILTER (WHERE false) AS none, array_agg(x) FILTER (WHERE true) AS all_rows,
  array_agg(x ORDER BY id) FILTER (WHERE id > 1) AS some_rows FROM flt;
SELECT count(*) FILTER (WHERE x IS NULL) AS null_rows, count(x) FILTER (WHERE id < 3) AS counted,
  count(*) FILTER (WHERE false) AS zero, count(DISTINCT g) FILTER (WHERE s IS NOT NULL) AS dg FROM flt;
SELECT jsonb_agg(x ORDER BY id) FILTER (WHERE g = 1) AS j, jsonb_agg(x) FILTER (WHERE id > 9) AS jnone,
  jsonb_agg(s ORDER BY id) FILTER (WHERE x IS NULL) AS js,
  string_agg(s, ',' ORDER BY id) FILTER (WHERE id <> 3) AS sa FROM flt;
SELECT g, array_agg(x ORDER BY id) FILTER (WHERE x IS NULL) AS nulls, sum(x) FILTER (WHERE id > 1) AS s,
  count(*) FILTER (WHERE s > 'a') AS c, max(s) FILTER (WHERE x IS NULL) AS m
  FROM flt GROUP BY g ORDER BY g;
SELECT count(*) FILTER (WHERE x > 0) AS a, count(*) FILTER (WHERE x > 5) AS b FROM flt
  HAVING count(*) FILTER (WHERE x > 0) > 1;
SELECT array_agg(DISTINCT g) FILTER (WHERE x IS NULL) AS dnull FROM flt;
SELECT sum(x) FILTER (WHERE 1) FROM flt;
SELECT sum(x) FILTER (WHERE count(*) > 1) FROM flt;
SELECT lower(s) FILTER (WHERE true) FROM flt;
SELECT id, sum(x) FILTER (WHERE id > 1) OVER (ORDER BY id) AS running FROM flt ORDER BY id;
