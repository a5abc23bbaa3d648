-- Float sums, averages and variances fail with 22003 as float8pl and
-- float8_accum (float4pl, float4_accum) do: at the step where finite
-- inputs give an infinite result. A NaN or infinite input, or a sum
-- already NaN or infinite, gives NaN or Infinity without error, so the
-- order the rows come in decides; window aggregates fail as the query's
-- aggregates do, whatever their frame.
CREATE TABLE f95 (id int, x float8, r real);
INSERT INTO f95 VALUES (1, 1e308, 3e38), (2, 1e308, 3e38), (3, -1e308, -3e38), (4, 1, 1);
SELECT sum(x) FROM f95;
SELECT avg(x) FROM f95;
SELECT sum(r) FROM f95;
SELECT avg(r) FROM f95;
SELECT sum(x) FROM f95 WHERE id <> 2;
SELECT id, sum(x) OVER (ORDER BY id) FROM f95;
SELECT id, avg(x) OVER (ORDER BY id) FROM f95;
SELECT id, sum(r) OVER (ORDER BY id) FROM f95;
SELECT id, avg(r) OVER (ORDER BY id) FROM f95;
SELECT id, stddev(x) OVER (ORDER BY id) FROM f95;
SELECT id, sum(x) OVER () FROM f95;
SELECT id, sum(x) OVER (PARTITION BY id) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM f95;
SELECT id, avg(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 PRECEDING) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM f95;
SELECT id, sum(x) FILTER (WHERE id <> 2) OVER (ORDER BY id) FROM f95;
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) FROM f95;
-- Frames holding no two of the large values.
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM f95 WHERE id <> 2;
SELECT id, sum(x) OVER (PARTITION BY id % 2 ORDER BY id) FROM f95 WHERE id <> 1;
-- The order of the rows decides whether an infinite or NaN input comes
-- first.
SELECT sum(x ORDER BY i), avg(x ORDER BY i) FROM (VALUES (1, 'Infinity'::float8), (2, 1e308), (3, 1e308)) v(i, x);
SELECT sum(x ORDER BY i) FROM (VALUES (1, 1e308::float8), (2, 1e308), (3, 'Infinity')) v(i, x);
SELECT avg(x ORDER BY i) FROM (VALUES (1, 1e308::float8), (2, 1e308), (3, 'Infinity')) v(i, x);
SELECT sum(x ORDER BY i), avg(x ORDER BY i) FROM (VALUES (1, '-Infinity'::float8), (2, 1e308), (3, 1e308)) v(i, x);
SELECT sum(x ORDER BY i), avg(x ORDER BY i) FROM (VALUES (1, 'NaN'::float8), (2, 1e308), (3, 1e308)) v(i, x);
SELECT sum(x ORDER BY i) FROM (VALUES (1, 1e308::float8), (2, 1e308), (3, 'NaN')) v(i, x);
SELECT i, sum(x) OVER w, avg(x) OVER w, variance(x) OVER w FROM (VALUES (1, '-Infinity'::float8), (2, 1e308), (3, 1e308)) v(i, x) WINDOW w AS (ORDER BY i);
SELECT i, sum(x) OVER w FROM (VALUES (1, 'NaN'::float8), (2, 1e308), (3, 1e308)) v(i, x) WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
SELECT i, sum(x) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING) FROM (VALUES (1, 1e308::float8), (2, 1e308), (3, 'Infinity')) v(i, x);
SELECT i, sum(x) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM (VALUES (1, 'Infinity'::float8), (2, 1e308), (3, 1e308)) v(i, x);
-- float8_accum's sum of squared differences overflows too: avg fails
-- where sum does not.
SELECT sum(x), count(x) FROM (VALUES (1e200::float8), (-1e200)) v(x);
SELECT avg(x) FROM (VALUES (1e200::float8), (-1e200)) v(x);
SELECT i, avg(x) OVER (ORDER BY i) FROM (VALUES (1, 1e200::float8), (2, -1e200)) v(i, x);
SELECT i, sum(x) OVER (ORDER BY i), avg(x) OVER (ORDER BY i) FROM (VALUES (1, 1e200::float8), (2, -1e200)) v(i, x) WHERE i = 1;
SELECT avg(x::real) FROM (VALUES (3e38::float8), (-3e38)) v(x);
SELECT i, var_pop(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1, 1e154::float8), (2, -1e154), (3, 1)) v(i, x);
SELECT i, var_pop(x) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM (VALUES (1, 'NaN'::float8), (2, 1e154), (3, -1e154)) v(i, x);
-- Infinite and NaN inputs alone.
SELECT i, sum(x) OVER w, avg(x) OVER w, stddev(x) OVER w, var_pop(x) OVER w
  FROM (VALUES (1, 1::float8), (2, 'Infinity'), (3, '-Infinity'), (4, 2), (5, 'NaN'), (6, 3)) v(i, x)
  WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
SELECT sum(r), avg(r) FROM (VALUES ('Infinity'::real), (3e38)) v(r);
SELECT i, sum(r) OVER (ORDER BY i) FROM (VALUES (1, 3e38::real), (2, 'Infinity'), (3, 3e38)) v(i, r);
-- Grouped: one group's overflow fails the query.
SELECT id % 2 AS g, sum(x) FROM f95 GROUP BY 1 ORDER BY 1;
SELECT id % 2 AS g, sum(x) FROM f95 WHERE id > 1 GROUP BY 1 ORDER BY 1;
SELECT sum(DISTINCT x) FROM f95;
DROP TABLE f95;
