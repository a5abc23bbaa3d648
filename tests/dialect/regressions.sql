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
-- exact
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
----
-- dml
CREATE TEMP TABLE tt (x int)
----
-- dml
CREATE LOCAL TEMPORARY TABLE tt (x int) ON COMMIT DROP
----
-- dml
CREATE UNLOGGED TABLE ul (x int)
----
-- dml
CREATE TEMP VIEW tv AS SELECT 1 AS x
----
-- dml
CREATE TEMP SEQUENCE ts
----
-- dml
CREATE TABLE pt (x int) PARTITION BY RANGE (x)
----
-- dml
CREATE TABLE pt (x int, y text) PARTITION BY LIST (y)
----
-- dml
CREATE TABLE it (z int) INHERITS (a)
----
-- dml
CREATE TABLE tsp (x int) TABLESPACE pg_default
----
-- dml
CREATE TABLE df (x int UNIQUE DEFERRABLE INITIALLY DEFERRED)
----
-- dml
CREATE TABLE cm (x text COMPRESSION pglz)
----
-- dml
CREATE TABLE st (x text STORAGE EXTERNAL)
----
-- dml
CREATE TABLE ctas (p, q) AS SELECT id, x FROM a
----
-- dml
CREATE TABLE ctas AS SELECT id FROM a WITH NO DATA
----
-- dml
CREATE MATERIALIZED VIEW mvnd AS SELECT id FROM a WITH NO DATA
----
-- dml
CREATE VIEW vco AS SELECT id FROM a WITH LOCAL CHECK OPTION
----
-- dml
CREATE RECURSIVE VIEW rv (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM rv WHERE n < 5
----
SELECT * INTO sinto FROM a
----
-- dml
CREATE DOMAIN pos AS int CHECK (VALUE > 0)
----
-- dml
CREATE EXTENSION IF NOT EXISTS pgcrypto
----
-- dml
CREATE OR REPLACE FUNCTION f(x int) RETURNS int LANGUAGE sql IMMUTABLE RETURN x + 1
----
-- dml
CREATE PROCEDURE p() LANGUAGE sql AS 'select 1'
----
-- dml
CREATE AGGREGATE ag (int) (sfunc = int4pl, stype = int)
----
-- dml
CREATE RULE r AS ON INSERT TO b DO INSTEAD NOTHING
----
-- dml
CREATE POLICY pol ON a USING (true)
----
-- dml
CREATE PUBLICATION pub FOR TABLE a
----
-- dml
CREATE COLLATION coll (locale = 'C')
----
-- dml
CREATE CAST (text AS int) WITH INOUT
----
-- dml
CREATE STATISTICS sta ON id, x FROM a
----
-- dml
CREATE FOREIGN DATA WRAPPER fdw
----
-- dml
CREATE TEXT SEARCH CONFIGURATION tsc (COPY = english)
----
-- dml
CREATE OPERATOR === (leftarg = int, rightarg = int, function = int4eq)
----
-- dml
CREATE TYPE mood AS ENUM ('sad', 'ok')
----
-- dml
DROP DOMAIN IF EXISTS pos
----
-- dml
DROP EXTENSION IF EXISTS pgcrypto
----
-- dml
DROP FUNCTION IF EXISTS f(int)
----
-- dml
DROP TYPE IF EXISTS mood
----
-- dml
DROP OWNED BY root
----
-- dml
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC
----
-- dml
ALTER ROLE root SET search_path = public
----
-- dml
CREATE ROLE r IN ROLE pg_monitor
----
-- dml
GRANT EXECUTE ON FUNCTION now() TO PUBLIC
----
SET ROLE NONE
----
RESET ROLE
----
SET SESSION AUTHORIZATION DEFAULT
----
SHOW SESSION AUTHORIZATION
----
SET CONSTRAINTS ALL DEFERRED
----
SET XML OPTION DOCUMENT
----
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED
----
PREPARE TRANSACTION 'x'
----
COMMIT PREPARED 'nosuch'
----
SECURITY LABEL ON TABLE a IS 'x'
----
SELECT xmlelement(name a)
----
SELECT xmlparse(content '<a/>')
----
SELECT xmlforest(1 AS a)
----
SELECT gen_random_uuid() IS NOT NULL
----
SELECT to_tsvector('a b')
----
SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a'])) AS r(x, y)
----
SELECT * FROM a CROSS JOIN LATERAL generate_series(1, a.id) g
----
SELECT id FROM a ORDER BY id FETCH FIRST 1 ROW WITH TIES
----
SELECT 'a' IS NORMALIZED
----
SELECT normalize('a', NFC)
----
SELECT (date '2020-01-01', date '2020-02-01') OVERLAPS (date '2020-01-15', date '2020-03-01')
----
SELECT x, n FROM unnest(ARRAY[5, 6]) WITH ORDINALITY AS u(x, n)
----
SELECT * FROM generate_series(1, 3) WITH ORDINALITY
----
SELECT * FROM json_each('{"a": 1}') WITH ORDINALITY
----
SELECT * FROM generate_series(1, 2) WITH ORDINALITY AS g(a, b, c)
----
SELECT * FROM ONLY a
----
SELECT row_to_json(a), to_jsonb(a), a::text, a.*::text FROM a
----
SELECT (a).id, (a).y FROM a
----
SELECT id FROM a FOR NO KEY UPDATE
----
SELECT id FROM a FOR KEY SHARE
----
SELECT id, x FROM a ORDER BY x USING >
----
-- dml
TRUNCATE ONLY b
----
-- dml
CREATE TABLE lk (LIKE a INCLUDING ALL)
----
-- dml
CREATE TABLE lk (id2 int, LIKE b INCLUDING INDEXES)
----
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['x'])
----
SELECT * FROM ROWS FROM (generate_series(1, 2)) WITH ORDINALITY
----
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['x', 'y', 'z']) AS u(n, s)
----
SELECT ARRAY[1, 2] @> ARRAY[1], ARRAY[x] <@ ARRAY[1, 10], ARRAY[id, x] && ARRAY[3] FROM a
----
SELECT id FROM a WHERE x && 3
----
REFRESH MATERIALIZED VIEW a
----
REFRESH MATERIALIZED VIEW nosuch
----
SELECT id, sum(x) OVER (ORDER BY id)::text FROM a
----
SELECT id, row_number() OVER w::text FROM a WINDOW w AS (ORDER BY id)
----
SELECT count(*) FILTER (WHERE x > 1)::int FROM a
----
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::int FROM a
----
SELECT array_agg(x) OVER (ORDER BY id)[1] FROM a
----
SELECT array_agg(x)[1] FROM a
----
SELECT (array_agg(x) OVER (ORDER BY id))[1] FROM a
----
SELECT make_interval(days => 3), make_interval(years := 1, hours => 2), make_interval(1)
----
SELECT make_interval(days => 1, 2)
----
SELECT make_interval(days => 1, days => 2)
----
SELECT make_interval(dayz => 1)
----
SELECT count(x => 1) FROM a
----
SELECT (x => 1) FROM a
----
SET SESSION AUTHORIZATION DEFAULT
----
RESET SESSION AUTHORIZATION
----
-- exact
SELECT 1 FETCH FIRST 1 + 2 ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST 1::int ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST NULL::int ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST -x ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST - (1) ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST -'1' ROWS ONLY
----
-- exact
SELECT 1 FETCH FIRST 2 ONLY
----
-- exact
SELECT 1 FETCH FIRST 1 ROWS
----
-- exact
SELECT 1 FETCH FIRST 1 + 1 ROWS WITH TIES
----
-- exact
SELECT id FROM a ORDER BY id FETCH FIRST (1 + 1) ROWS ONLY
----
-- exact
SELECT id FROM a ORDER BY id OFFSET - 1.5 ROWS FETCH NEXT + 2 ROW ONLY
----
-- exact
SELECT 1 OFFSET 1 + 1 ROWS
----
-- exact
SELECT 1 OFFSET 1::int ROWS
----
-- exact
SELECT 1 OFFSET -x ROWS
----
-- exact
SELECT 1 OFFSET ALL
----
-- exact
SELECT 1 LIMIT 1 OFFSET 1 FETCH FIRST 1 ROW ONLY
----
-- exact
SELECT 1 FETCH FIRST 1 ROW ONLY LIMIT 1
----
-- exact
SELECT 1 LIMIT 1 FETCH FIRST 1 ROW ONLY
----
-- exact
SELECT 1 FETCH FIRST 1 ROW ONLY FETCH FIRST 1 ROW ONLY
----
-- exact
SELECT 1 LIMIT 1 LIMIT 1
----
-- exact
SELECT 1 OFFSET 1 OFFSET 1
----
-- exact
SELECT 1 OFFSET 1 LIMIT 1 OFFSET 1
----
-- exact
SELECT id FROM a ORDER BY id OFFSET 1 ROWS LIMIT 2
----
-- exact
CREATE TABLE dt (a bool DEFAULT NOT true)
----
-- exact
CREATE TABLE dt (a bool DEFAULT true AND false)
----
-- exact
CREATE TABLE dt (a bool DEFAULT (true AND false) OR true)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 IS NULL)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 IS NOT NULL)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 IS TRUE)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 BETWEEN 0 AND 2)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 IN (1, 2))
----
-- exact
CREATE TABLE dt (a bool DEFAULT 'a' LIKE 'b')
----
-- exact
CREATE TABLE dt (a int DEFAULT 1 NOT LIKE 'a')
----
-- exact
CREATE TABLE dt (a bool DEFAULT 'a' SIMILAR TO 'b')
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 = ANY (ARRAY[1]))
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 ISNULL)
----
-- exact
CREATE TABLE dt (a int DEFAULT 1 NOTNULL)
----
-- exact
CREATE TABLE dt (a timestamptz DEFAULT now() AT TIME ZONE 'UTC')
----
-- exact
CREATE TABLE dt (a int DEFAULT 1 DEFAULT 2)
----
-- exact
CREATE TABLE dt (a bool DEFAULT 1 < 2 NOT NULL, b bool DEFAULT 1 IS NOT DISTINCT FROM 2, c bool DEFAULT (true AND false), d int DEFAULT - 2 ^ 3::int); DROP TABLE dt
----
-- exact
CREATE TABLE dt (a bool DEFAULT CASE WHEN true AND false THEN 1 IN (1) END); DROP TABLE dt
----
-- exact
CREATE DOMAIN dd AS int DEFAULT 1 IS NULL
----
-- exact
ALTER TABLE a ADD COLUMN q bool DEFAULT NOT true
----
-- exact
CREATE TABLE dt (a int CHECK a > 0)
----
-- exact
CREATE TABLE dt (a int, CHECK a > 0)
----
-- exact
ALTER TABLE a ADD CHECK x > 0
----
-- exact
SELECT 1 LIMIT ALL, 2
----
-- exact
SELECT * FROM (SELECT 1 LIMIT 1, 2) s
----
-- exact
SELECT 1 LIMIT ALL 2
----
-- exact
SELECT 'b' BETWEEN 'a' COLLATE "C" AND 'c'
----
-- exact
SELECT now() BETWEEN now() AT TIME ZONE 'UTC' AND now()
----
-- exact
SELECT 1 NOT BETWEEN 1 IS NULL AND 2
----
-- exact
SELECT true BETWEEN NOT false AND true
----
SELECT true BETWEEN 1 = 1 AND true, true NOT BETWEEN SYMMETRIC 1 < 2 AND false, 1 BETWEEN CASE WHEN true AND false THEN 1 ELSE 0 END AND 2
----
SELECT id FROM a WHERE x > 0 NOT BETWEEN SYMMETRIC (1 IN (1))::int AND 'z'
----
SELECT id FROM a WHERE id NOT BETWEEN SYMMETRIC CASE WHEN true AND false THEN 1 END AND 3
----
SELECT varchar(2) 'abc', interval(2) '1.234 s', numeric(3, 1) '1.25', pg_catalog.varchar(2) 'abc', "varchar"(2) 'abc', float(3) '1.5'
----
-- exact
SELECT int(4) '1'
----
-- exact
SELECT abs(1) 'x'
----
-- exact
SELECT foo(1) 'x'
----
-- exact
SELECT CURRENT_DATE()
----
-- exact
SELECT current_user()
----
-- exact
SELECT current_timestamp()
----
SELECT current_timestamp(2) IS NOT NULL, localtimestamp(0) IS NOT NULL
----
-- exact
SELECT BINARY 'a'
----
-- exact
SELECT `y` FROM a
----
-- exact
SELECT 1 <=>
----
-- exact
SELECT MATCH (y) AGAINST ('x') FROM a
----
-- exact
SELECT @@version
----
-- exact
SELECT y <=> 1 FROM a
