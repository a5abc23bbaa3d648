-- Ordered-set aggregates: percentile_cont, percentile_disc and mode with
-- WITHIN GROUP (ORDER BY ...), in batch SELECT with and without GROUP BY.
CREATE TABLE os (g int, x float8, i int, iv interval, t text, n numeric, d date);
INSERT INTO os VALUES
  (1, 1.0, 1, '1 day', 'b', 1.5, '2024-01-03'),
  (1, 2.0, 2, '2 days', 'a', 2.5, '2024-01-01'),
  (1, 4.0, 2, '1 mon', 'c', NULL, '2024-01-02'),
  (1, NULL, NULL, NULL, NULL, 4.5, NULL),
  (2, 10.0, 7, '3 hours', 'x', 10, '2023-12-31'),
  (2, 20.0, 7, '-1 day', 'x', 20, '2023-12-30'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 5.5, 3, '10 min', 'y', 5.5, '2020-02-29');

SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC) AS p FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(0) WITHIN GROUP (ORDER BY x), percentile_cont(1) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(0.3) WITHIN GROUP (ORDER BY iv) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(ARRAY[0, 0.25, 0.5, 1]) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(ARRAY[0.5, NULL]) WITHIN GROUP (ORDER BY iv) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_disc(0) WITHIN GROUP (ORDER BY t), percentile_disc(1) WITHIN GROUP (ORDER BY t DESC) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.5) WITHIN GROUP (ORDER BY d) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_disc(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY i) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY t) FROM os GROUP BY g ORDER BY g;
SELECT g, mode() WITHIN GROUP (ORDER BY i) FROM os GROUP BY g ORDER BY g;
SELECT g, mode() WITHIN GROUP (ORDER BY t DESC), mode() WITHIN GROUP (ORDER BY t) FROM os GROUP BY g ORDER BY g;
SELECT mode() WITHIN GROUP (ORDER BY i), mode() WITHIN GROUP (ORDER BY i DESC) FROM os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x), count(*) FROM os;
SELECT g, percentile_cont(0.333) WITHIN GROUP (ORDER BY i), percentile_disc(0.34) WITHIN GROUP (ORDER BY x NULLS FIRST) FROM os GROUP BY g ORDER BY g;
SELECT percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY iv DESC), percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY iv) FROM os;
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY g), mode() WITHIN GROUP (ORDER BY d) FROM os GROUP BY ROLLUP (g) ORDER BY g;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v), mode() WITHIN GROUP (ORDER BY v)
  FROM (VALUES ('{1,2}'::int[]), ('{1,3}'), ('{1,2}')) t(v);

-- NULL fractions, empty input.
SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_disc(NULL::float8[]) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY t) FROM os WHERE false;
SELECT percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY x) FROM os WHERE false;
SELECT percentile_cont(ARRAY[]::float8[]) WITHIN GROUP (ORDER BY x) FROM os;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE x > 1) FROM os GROUP BY g ORDER BY g;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) + 1 AS p1 FROM os GROUP BY g HAVING percentile_disc(0.5) WITHIN GROUP (ORDER BY i) > 1 ORDER BY g;

-- Errors.
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_disc(-0.25) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM os WHERE false;
SELECT percentile_cont(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM os;
SELECT percentile_cont(0.5) FROM os;
SELECT mode(i) FROM os;
SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM os;
SELECT string_agg(t) WITHIN GROUP (ORDER BY t) FROM os;
SELECT percentile_cont(DISTINCT 0.5) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_cont(0.5 ORDER BY x) WITHIN GROUP (ORDER BY x) FROM os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x, i) FROM os;
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY sum(x)) FROM os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) OVER () FROM os;
SELECT mode() WITHIN GROUP (ORDER BY v) FROM (VALUES ('{"a":1}'::json)) t(v);
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM (VALUES ('{"a":1}'::json)) t(v);
SELECT mode() WITHIN GROUP (ORDER BY v) FROM (VALUES ('{"a":1}'::jsonb), ('{"a":1}'::jsonb), ('[2]'::jsonb)) t(v);
