SELECT 5 # 3 AS x, 1 AS y
----
-- dml
DELETE FROM a WHERE id = 5 # 3
----
SELECT * FROM a STRAIGHT_JOIN b ON a.id = b.id
----
SELECT x, count(*) FROM a GROUP BY x WITH ROLLUP
----
SELECT * FROM a JOIN b
----
SELECT B'101'
----
SELECT x'FF'
----
SELECT y COLLATE "nosuchcollation" FROM a
----
SELECT * FROM a TABLESAMPLE REGIONS()
----
SELECT 1 <=> 1
----
SELECT 'a' REGEXP 'a'
----
SELECT group_concat(y) FROM a
----
SELECT 1 AS 'x'
----
SELECT SQL_NO_CACHE 1
----
-- dml
UPDATE a, b SET a.x = 1 WHERE a.id = b.id
----
SELECT 1 LIMIT 1, 2
----
SELECT `x` FROM a
----
SELECT pg_cast(1, 'text')
----
SELECT pg_nulls_first(3)
----
SELECT pg_distinct_on()
----
SELECT .5, 5., 1.e2
----
SELECT ~5
----
SELECT |/ 16
----
SELECT -2 ^ 2
----
SELECT 1 UNION SELECT 1 INTERSECT SELECT 2
----
SELECT 1 'x'
----
SELECT false 'x'
----
SELECT foo 'x'
----
SELECT 5. AS c, 1e3 AS d
----
SELECT 1 AS select, 2 AS regexp
----
SELECT x - -2 % 7 IS NOT DISTINCT FROM 007 c0 FROM a
----
SELECT ~ a.x c0 FROM a
----
SELECT 'a' || concat(a.id::text, substr(a.y, 2)) FROM a
----
SELECT (a.id) IS DISTINCT FROM CASE WHEN a.x IS DISTINCT FROM 1 THEN 3 | id ELSE 0 END FROM a
----
SELECT +abs(0)::text
----
SELECT 1e
----
SELECT 0x1F
----
SELECT $1
----
SELECT ~~5
----
SELECT STRAIGHT_JOIN (1)
----
SELECT * FROM a TABLESAMPLE REGIONS()
----
SELECT 4 | 1 & 2, 1 | 2 << 1, 'a' || 1 + 1, @ -5 + 1, |/ 16 + 9, 5 # 3
----
-- dml
PREPARE p AS SELECT 1
----
ALTER TABLE a ADD COLUMN IF NOT EXISTS id int
----
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM a
----
SELECT upper((y) COLLATE "C") || CASE WHEN 3 IS NOT DISTINCT FROM x THEN x ELSE 100 + id END c0 FROM a
----
SELECT a.id::int MOD (coalesce(-1, 100)) FROM a
----
SELECT mod(7, 3), 7 % 3
----
-- dml
UPDATE a SET x = a.x # a.x WHERE id IS DISTINCT FROM x
----
-- dml
UPDATE a SET x = 1 FROM b WHERE a.id = b.id AND a.x IS DISTINCT FROM b.x
----
SELECT CASE WHEN id IS NOT DISTINCT FROM 3 THEN 7 ELSE x << 2 END::int AS regexp FROM a
----
SELECT CASE id IS DISTINCT FROM 3 WHEN true THEN 'y' ELSE 'n' END::text, CASE WHEN x # 3 = 6 THEN x END ^ 2 FROM a
----
SELECT id IS DISTINCT FROM CASE WHEN x > 0 THEN 3 END, CASE WHEN y ~ 'o' THEN '{"a":1}' END::jsonb -> 'a' FROM a
----
-- dml
DELETE FROM a USING b WHERE a.id = b.id RETURNING *
----
-- dml
DELETE FROM a AS t USING b u WHERE t.id = u.id AND u.z IS NULL RETURNING t.id, u.z
----
-- dml
DELETE FROM a t USING b
----
DELETE t FROM a t USING b
----
SELECT 'ab'::char(3) = 'ab', length('ab '::char(4)), octet_length('ab'::char(4)), 'x'::character || 'y', 'abc'::bpchar
----
SELECT 'abcd'::char(3), CAST('a' AS character(2)) || '|', 'a '::char(2) LIKE 'a'
----
DECLARE c CURSOR FOR SELECT 1
----
DECLARE c SCROLL CURSOR FOR DELETE FROM a
----
FETCH FORWARD 2 FROM c
----
MOVE c
----
CLOSE c
----
CLOSE ALL
----
SELECT id, (x, y) < (7, 'z'), (x, y) IN ((10, 'one'), (NULL, 'two')) FROM a
----
SELECT id FROM a WHERE (x, y) IN (SELECT x, z FROM b) OR (x, n) >= ALL (SELECT x, 1.5 FROM b)
----
SELECT x < ANY (ARRAY[1, 2]), x >= ALL ('{}'::int[]), x <> SOME (ARRAY[x, NULL]) FROM a
----
SELECT (1, 2) = (1, 2, 3)
----
SELECT (1, 2) = ANY (SELECT x FROM b)
----
SELECT array_remove(ARRAY[1, 2, NULL, 2], 2), array_remove(ARRAY['a', NULL, 'b'], NULL), array_remove(NULL::int[], 1), array_remove(ARRAY[x, id, NULL], x) FROM a
----
SELECT format_type(1042, NULL), format_type(1042, -1), format_type(1014, NULL), format_type(1042, 8), format_type(23, NULL)
----
SELECT id, x FROM a ORDER BY x FETCH FIRST 2 ROWS WITH TIES
----
SELECT id FROM a FETCH FIRST 1 ROW WITH TIES
----
SELECT id FROM a ORDER BY x OFFSET 1 ROW FETCH NEXT ROW WITH TIES
----
SELECT ARRAY[x, id] && ARRAY[1, 2], ARRAY[y] @> ARRAY['a'], ARRAY[n] <@ ARRAY[1.5, 2] FROM a
----
SELECT 1 && 2
----
SELECT regexp_count('aaa', 'a*'), regexp_instr('abcabc', 'b', 2, 2), regexp_substr(y, '.'), regexp_like(y, 'O', 'i') FROM a
----
SELECT regexp_matches('a1b2', '[a-z](\d)', 'g')
----
SELECT substring('foobar' SIMILAR '%#"o_b#"%' ESCAPE '#'), substring(y FROM '(.)$') FROM a
----
SELECT count(*) FROM a FULL JOIN b ON a.x < b.x
----
SELECT count(*) FROM a FULL JOIN b ON a.x = 1 AND b.x = 1
----
SELECT count(*) FROM a FULL JOIN b ON a.x = b.x OR a.x = 2
----
SELECT count(*) FROM a FULL JOIN b ON a.x = b.x AND a.x < b.x
----
SELECT count(*) FROM a FULL JOIN b ON a.id = a.id
----
SELECT count(*) FROM a FULL JOIN b ON true
----
SELECT count(x ORDER BY x), sum(x ORDER BY x DESC), min(y ORDER BY y), count(DISTINCT x ORDER BY x) FROM a
----
SELECT bit_or(x ORDER BY id) FILTER (WHERE x > 1), avg(DISTINCT x ORDER BY x) FROM a
