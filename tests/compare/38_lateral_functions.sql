-- A function in FROM reads the columns of the items before it, with or
-- without LATERAL, and a whole-row reference to a function returning a
-- scalar is that scalar.
CREATE TABLE lf (id int PRIMARY KEY, arr int[], j jsonb, n int);
INSERT INTO lf VALUES (1, '{1,2}', '[1, "x"]', 2), (2, '{3}', '{"a": 1, "b": [2]}', 0), (3, NULL, NULL, NULL), (4, '{}', '[]', 1);
SELECT id, x FROM lf, unnest(lf.arr) AS u(x) ORDER BY 1, 2;
SELECT id, x FROM lf, LATERAL unnest(arr) AS u(x) ORDER BY 1, 2;
SELECT id, x FROM lf CROSS JOIN unnest(arr) x ORDER BY 1, 2;
SELECT id, g FROM lf JOIN generate_series(1, lf.n) g ON true ORDER BY 1, 2;
SELECT id, g FROM lf LEFT JOIN generate_series(1, lf.n) g ON g > 1 ORDER BY 1, 2;
SELECT id, e FROM lf, jsonb_array_elements(lf.j) e WHERE jsonb_typeof(lf.j) = 'array' ORDER BY 1, 2::text;
SELECT id, k, v FROM lf, jsonb_each(CASE WHEN jsonb_typeof(j) = 'object' THEN j END) AS kv(k, v) ORDER BY 1, 2;
SELECT id, x, o FROM lf, unnest(arr) WITH ORDINALITY AS u(x, o) ORDER BY 1, 3;
SELECT id, count(*) FROM lf, unnest(arr) GROUP BY id ORDER BY 1;
SELECT id FROM lf WHERE EXISTS (SELECT 1 FROM unnest(lf.arr) x WHERE x > 1) ORDER BY 1;
SELECT id, g FROM lf RIGHT JOIN generate_series(1, lf.n) g ON true;
SELECT * FROM generate_series(1, lf.n), lf;
SELECT u FROM unnest(ARRAY[1, 2]) u(x);
SELECT e FROM jsonb_array_elements('[1, {"a": 2}]') e;
SELECT e.* FROM jsonb_array_elements('[1]') e;
SELECT kv FROM jsonb_each('{"a": 1}') kv;
SELECT o FROM unnest(ARRAY[5]) WITH ORDINALITY o(x, n);
SELECT to_json(g) FROM generate_series(1, 2) g(x);
SELECT count(*) FROM lf FULL JOIN lf l2 ON lf.id < l2.id;
SELECT count(*) FROM lf FULL JOIN lf l2 ON lf.id = l2.id AND lf.n < 2;
SELECT count(lf.id ORDER BY lf.id), sum(n ORDER BY n DESC), count(DISTINCT n ORDER BY n) FROM lf;
SELECT id, x.e FROM lf, ROWS FROM (unnest(lf.arr)) AS x(e) ORDER BY 1, 2;
SELECT id, x.e, x.f FROM lf, ROWS FROM (unnest(lf.arr), generate_series(1, lf.n)) AS x(e, f) ORDER BY 1, 2, 3;
SELECT id, u.a, u.b FROM lf, unnest(arr, ARRAY[id, id * 10]) AS u(a, b) ORDER BY 1, 2, 3;
SELECT id, s.one FROM lf, LATERAL (SELECT 1 AS one) s ORDER BY 1;
DROP TABLE lf;
