-- pg_get_viewdef of more view shapes: IN lists, LIKE, BETWEEN, casts,
-- literals, simple CASE, IS DISTINCT FROM, aggregates, outer joins, set
-- operations, window functions, subqueries in FROM and as expressions,
-- USING joins, WITH;
-- then
-- the same after renames of the columns and tables they read.
CREATE TABLE t (a int, b int, c text, d date, n numeric(10,2), ts timestamp);
CREATE TABLE u (a int, d int);
CREATE VIEW x1 AS SELECT a FROM t WHERE a IN (1, 2, 3) AND c LIKE 'a%' AND b BETWEEN 1 AND 5 AND c <> 'z';
CREATE VIEW x2 AS SELECT upper(c) AS uc, length(c), c || 'x' AS cc, -a AS na, a % 2 AS m, abs(b) FROM t;
CREATE VIEW x3 AS SELECT a::text AS at, b::bigint, n * 2 AS n2, d + 1 AS d1, ts::date AS td FROM t WHERE d > '2020-01-01' AND n > 1.5;
CREATE VIEW x4 AS SELECT a, b FROM t WHERE a IS NOT NULL OR (b > 1 AND c IS NULL) OR NOT (a = 2);
CREATE VIEW x5 AS SELECT a, avg(b) AS ab, min(c), count(a) AS ca FROM t GROUP BY a ORDER BY count(a) DESC, a;
CREATE VIEW x6 AS SELECT t.a, u.d FROM t RIGHT JOIN u ON t.a = u.a AND t.b > u.d FULL JOIN u u2 ON u2.a = t.a;
CREATE VIEW x7 AS SELECT a, b FROM t WHERE c = ANY (ARRAY['a', 'b']) ORDER BY a LIMIT 10;
CREATE VIEW x8 AS SELECT a + b * 2 - 1 AS e, (a + b) * 2 AS f, a::numeric / 3 AS g FROM t;
CREATE VIEW x9 AS SELECT a, CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END AS w FROM t;
CREATE VIEW x10 AS SELECT sum(b) AS s FROM t;
CREATE VIEW x11 AS SELECT 1 AS one, 'x'::varchar(5) AS v, now() AS nw, current_date AS cd;
CREATE VIEW x12 AS SELECT a FROM t WHERE b > 0 GROUP BY a HAVING sum(b) > 10 AND count(*) < 5;
CREATE VIEW x13 AS SELECT count(*) FILTER (WHERE a > 1) AS c1, string_agg(c, ',') AS sa, bool_and(a > 0) AS ba FROM t;
CREATE VIEW x14 AS SELECT a FROM t WHERE c ILIKE '%x%' OR c ~ '^a' OR c IS DISTINCT FROM 'q';
CREATE VIEW y1 AS SELECT a, b FROM t UNION SELECT a, d FROM u;
CREATE VIEW y2 AS SELECT a AS x FROM t WHERE b > 1 UNION ALL SELECT a FROM u UNION ALL SELECT 5 ORDER BY 1 LIMIT 4;
CREATE VIEW y3 AS SELECT a, sum(b) OVER (PARTITION BY c ORDER BY b) AS s, row_number() OVER () AS rn, rank() OVER (ORDER BY a DESC) FROM t;
CREATE VIEW y4 AS SELECT s.a, s.n FROM (SELECT a, count(*) AS n FROM t GROUP BY a) s WHERE s.n > 1;
CREATE VIEW y7 AS SELECT a FROM t UNION SELECT a FROM u ORDER BY a DESC;
CREATE VIEW y8 AS SELECT * FROM (SELECT a FROM t UNION SELECT a FROM u) s;
CREATE VIEW y9 AS SELECT a, 'x' AS k FROM t UNION ALL SELECT d, 'y' FROM u;
CREATE VIEW z0 AS SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE d > 0) AND EXISTS (SELECT 1 FROM u WHERE u.a = t.b);
CREATE VIEW z1 AS SELECT a, (SELECT max(d) FROM u WHERE u.a = t.a) AS m FROM t WHERE b NOT IN (SELECT d FROM u) OR a > ALL (SELECT d FROM u);
CREATE VIEW z2 AS SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > (SELECT count(*) FROM u WHERE u.a = t.a);
CREATE TABLE w (a int, e int);
CREATE VIEW j1 AS SELECT a, d, e FROM u JOIN w USING (a);
CREATE VIEW j2 AS SELECT a, u.d, w.e FROM u LEFT JOIN w USING (a) RIGHT JOIN u u2 USING (a) WHERE e > 0;
CREATE VIEW c1 AS WITH w1 AS (SELECT a, b FROM t WHERE b > 0), w2 AS (SELECT a FROM u) SELECT w1.a, w2.a AS a2 FROM w1 JOIN w2 ON w1.a = w2.a;
CREATE VIEW c2 AS WITH w1(x, y) AS (SELECT a, b FROM t) SELECT x, y FROM w1 WHERE y > 1;
CREATE VIEW c3 AS SELECT * FROM (WITH w1 AS (SELECT a FROM t) SELECT w1.a FROM w1) s;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
ALTER TABLE t RENAME COLUMN a TO "A a";
ALTER TABLE t RENAME COLUMN c TO "select";
ALTER TABLE u RENAME TO "U2";
ALTER TABLE t RENAME TO tab;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
INSERT INTO tab VALUES (1, 2, 'abc', '2021-01-01', 3.5, '2021-01-01 10:00'), (2, 7, 'x', '2019-05-05', 1, NULL);
INSERT INTO "U2" VALUES (1, 1), (3, 4);
SELECT * FROM x1 ORDER BY 1;
SELECT * FROM x4 ORDER BY 1;
SELECT * FROM x5;
SELECT * FROM x6 ORDER BY 1, 2;
SELECT * FROM x9 ORDER BY 1;
SELECT * FROM x14 ORDER BY 1;
SELECT * FROM y1 ORDER BY 1, 2;
SELECT * FROM y3 ORDER BY 1;
SELECT * FROM y4 ORDER BY 1;
SELECT * FROM y8 ORDER BY 1;
SELECT * FROM z0 ORDER BY 1;
SELECT * FROM z1 ORDER BY 1;
SELECT * FROM z2 ORDER BY 1;
SELECT * FROM j1 ORDER BY 1;
SELECT * FROM c1 ORDER BY 1;
SELECT * FROM c2 ORDER BY 1;
