-- pg_get_viewdef of the shapes PostgreSQL 15 prints from its query tree
-- and weir once showed as written: column alias lists on tables and
-- subqueries and on the view itself, named windows (WINDOW w AS (...),
-- OVER w, OVER (w ORDER BY ...)), CROSS JOIN beside comma lists and
-- nested joins, GROUP BY ROLLUP, CUBE, GROUPING SETS and GROUPING(),
-- VALUES lists as a whole query and in FROM, ROWS FROM (...), unnest of
-- several arrays and functions WITH ORDINALITY, aggregates with ORDER
-- BY, USING joins whose columns were renamed since, FULL JOIN USING,
-- LATERAL before a
-- function, calls with named arguments, WITH over a set operation,
-- ARRAY(subquery), NOT LIKE and the other negated pattern matches,
-- NULLIF, GREATEST and LEAST, jsonb and array operators, subscripts
-- and = ANY (array), EXTRACT; in views and materialized views,
-- before and after renames of the columns they read, through
-- pg_get_viewdef, pg_views and pg_matviews.
CREATE TABLE t (a int, b int, c text);
CREATE VIEW c1 AS SELECT x.p, x.q FROM t AS x(p, q);
CREATE VIEW c2 AS SELECT * FROM (SELECT a, b FROM t) AS s(p, q);
CREATE VIEW c3(p, q) AS SELECT a, b FROM t;
CREATE VIEW c4 AS SELECT x.c FROM t AS x(b);
CREATE VIEW c5 AS SELECT * FROM (SELECT a, b FROM t) AS s(a);
CREATE VIEW c6 AS SELECT * FROM t AS x(a, b);
CREATE VIEW c7 AS SELECT y.p, z.c FROM t AS y(p) JOIN t AS z(q) ON y.p = z.q;
CREATE MATERIALIZED VIEW c8 AS SELECT x.p, x.q FROM t AS x(p, q);
CREATE VIEW w1 AS SELECT a, sum(b) OVER w FROM t WINDOW w AS (PARTITION BY c);
CREATE VIEW w2 AS SELECT a, sum(b) OVER (w ORDER BY a) FROM t WINDOW w AS (PARTITION BY c);
CREATE VIEW w3 AS SELECT a, sum(b) OVER w, rank() OVER w FROM t WINDOW w AS (PARTITION BY c ORDER BY a);
CREATE VIEW w4 AS SELECT a, sum(b) OVER (PARTITION BY c), max(b) OVER w2 FROM t WINDOW w AS (PARTITION BY c), w2 AS (w ORDER BY b DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), unused AS (ORDER BY a);
CREATE VIEW w5 AS SELECT c, sum(sum(b)) OVER w FROM t GROUP BY c WINDOW w AS (ORDER BY c);
CREATE VIEW w6 AS SELECT a, sum(b) OVER w AS s1, sum(b) OVER w2 AS s2, sum(b) OVER (w) AS s3 FROM t WINDOW w AS (PARTITION BY c), w2 AS (PARTITION BY c);
CREATE VIEW w7 AS SELECT a, row_number() OVER (w ORDER BY b), row_number() OVER (w ORDER BY b) AS r2 FROM t WINDOW "W x" AS (PARTITION BY a), w AS (PARTITION BY c);
CREATE MATERIALIZED VIEW w8 AS SELECT a, b, sum(b) OVER w AS s FROM t WINDOW w AS (PARTITION BY c);
CREATE TABLE u (a int, d int);
CREATE VIEW j1 AS SELECT t.a, u.d FROM t CROSS JOIN u;
CREATE VIEW j2 AS SELECT t.a, u.d FROM t, u;
CREATE VIEW j3 AS SELECT t.a, u.d, x.b FROM t CROSS JOIN u JOIN t x ON x.a = u.a;
CREATE VIEW j4 AS SELECT t.a, u.d, x.b FROM t, u CROSS JOIN t x WHERE t.a = x.a;
CREATE VIEW j5 AS SELECT t.a, g.x FROM t CROSS JOIN generate_series(1, t.b) g(x);
CREATE VIEW j6 AS SELECT t.a, s.m FROM t CROSS JOIN LATERAL (SELECT max(d) AS m FROM u WHERE u.a = t.a) s;
CREATE VIEW j7 AS SELECT t.a, u.d FROM t LEFT JOIN u ON t.a = u.a CROSS JOIN t x;
CREATE MATERIALIZED VIEW j8 AS SELECT t.a, u.d FROM t CROSS JOIN u;
CREATE VIEW j9 AS SELECT * FROM t NATURAL JOIN (SELECT 1 AS z) s;
CREATE VIEW k1 AS SELECT t.b, u.d FROM t JOIN (u CROSS JOIN t x) ON t.b = x.b;
CREATE VIEW k2 AS SELECT t.b, u.d FROM t CROSS JOIN (u JOIN t x ON u.a = x.b);
CREATE VIEW k3 AS SELECT t.b, u.d FROM t LEFT JOIN (u JOIN u x USING (a)) ON t.b = u.d;
CREATE VIEW k4 AS SELECT t.b FROM t NATURAL JOIN (SELECT 1 AS z) s CROSS JOIN u;
CREATE VIEW r1 AS SELECT a, c, sum(b) FROM t GROUP BY ROLLUP (a, c);
CREATE VIEW r2 AS SELECT a, c, sum(b) FROM t GROUP BY CUBE (a, c);
CREATE VIEW r3 AS SELECT a, c, sum(b), grouping(a, c) FROM t GROUP BY GROUPING SETS ((a, c), (a), ());
CREATE VIEW r4 AS SELECT a, b, c, count(*) FROM t GROUP BY a, ROLLUP (b, (c, a)), ();
CREATE VIEW r5 AS SELECT a, b, c, count(*) FROM t WHERE a > 0 GROUP BY GROUPING SETS (a, ROLLUP (b), CUBE (c, b), GROUPING SETS (c, ()), (a, b)) HAVING grouping(a) = 0 ORDER BY grouping(b, c), 1;
CREATE VIEW r6 AS SELECT a + 1 AS x, count(*) FROM t GROUP BY ROLLUP (a + 1);
CREATE VIEW r7 AS SELECT count(*) FROM t GROUP BY ();
CREATE VIEW r8 AS SELECT a, b, count(*) FROM t GROUP BY DISTINCT ROLLUP (a, b), ROLLUP (a, b);
CREATE VIEW r9 AS SELECT a, count(*), grouping(a) AS g FROM t GROUP BY a;
CREATE VIEW r10 AS SELECT a, count(*) FROM t GROUP BY GROUPING SETS ((a));
CREATE VIEW r11 AS SELECT a, b, count(*) FROM t GROUP BY (a, b), ROLLUP (a);
CREATE VIEW r12 AS SELECT a, b, count(*) FROM t GROUP BY DISTINCT a, b;
CREATE VIEW r13 AS SELECT a, b, count(*) FROM t GROUP BY a, GROUPING SETS ((b));
CREATE MATERIALIZED VIEW m1 AS SELECT a, c, sum(b) AS s, grouping(a, c) AS g FROM t GROUP BY ROLLUP (a, c);
CREATE VIEW v1 AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS x(n, s);
CREATE VIEW v2 AS VALUES (1, 'a'), (2.5, 'b'), (3, NULL);
CREATE VIEW v3 AS SELECT * FROM (VALUES (1), (2)) x;
CREATE VIEW v4(p, q) AS VALUES (1, 'a'::varchar), (2, 'b');
CREATE VIEW v5 AS VALUES (1);
CREATE VIEW v6 AS SELECT t.a, x.s FROM t JOIN (VALUES (1, 'one'), (2, 'two')) x(n, s) ON x.n = t.a;
CREATE VIEW v7 AS SELECT x.column1 + 1 AS y FROM (VALUES (1 + 2, now()), (-3, NULL)) x WHERE x.column1 > 0;
CREATE VIEW v8 AS VALUES (1, 'a'), (2, 'b');
ALTER VIEW v8 RENAME COLUMN column1 TO z;
CREATE VIEW v9 AS SELECT * FROM (VALUES ((SELECT max(a) FROM t)), (4)) x(m);
CREATE VIEW v10 AS SELECT 1 AS column1 UNION ALL SELECT 2;
CREATE VIEW v11 AS WITH w(k) AS (VALUES (1), (2)) SELECT k FROM w;
CREATE VIEW v12 AS SELECT * FROM (VALUES ('x'), ('y')) AS x(s);
CREATE MATERIALIZED VIEW mv1 AS SELECT t.a, x.s FROM t JOIN (VALUES (1, 'one'), (2, 'two')) x(n, s) ON x.n = t.a;
CREATE TABLE ta (a int, b int[]);
CREATE VIEW f1 AS SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS r(x, y);
CREATE VIEW f2 AS SELECT r.x FROM ROWS FROM (generate_series(1, 3), generate_series(5, 6)) AS r(x, y);
CREATE VIEW f3 AS SELECT * FROM ROWS FROM (generate_series(1, 3)) AS r(x);
CREATE VIEW f4 AS SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a', 'b', 'c']) AS u(n, s);
CREATE VIEW f5 AS SELECT ta.a, r.x, r.y FROM ta, ROWS FROM (generate_series(1, ta.a), unnest(ta.b)) AS r(x, y);
CREATE VIEW f6 AS SELECT ta.a, r.* FROM ta CROSS JOIN ROWS FROM (generate_series(1, 2), unnest(ARRAY[1.5])) r(x, y);
CREATE VIEW f7 AS SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS r;
CREATE VIEW f8 AS SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS r(x);
CREATE VIEW f9 AS SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS g(x, o), unnest(ARRAY[1, 2]) WITH ORDINALITY AS u(v, o2);
CREATE VIEW o1 AS SELECT a, string_agg(c, ',' ORDER BY b) AS s FROM t GROUP BY a;
CREATE VIEW o2 AS SELECT array_agg(a ORDER BY b DESC, c NULLS FIRST) FROM t;
CREATE VIEW o3 AS SELECT array_agg(DISTINCT a ORDER BY a) FILTER (WHERE b > 0) FROM t;
CREATE VIEW o4 AS SELECT string_agg(c, ',' ORDER BY b + 1), array_agg(a ORDER BY length(c)) FROM t;
CREATE VIEW o5 AS SELECT count(*) OVER (ORDER BY a), array_agg(b ORDER BY a) FROM t GROUP BY a;
CREATE MATERIALIZED VIEW om AS SELECT a, string_agg(c, ',' ORDER BY b) AS s FROM t GROUP BY a;
CREATE TABLE su (a int, d int);
CREATE VIEW s1 AS SELECT * FROM t JOIN su USING (a);
CREATE VIEW s2 AS SELECT t.b, su.d FROM t JOIN su x(a, d) USING (a) JOIN su ON su.a = t.a;
CREATE VIEW s3 AS SELECT a, t.b FROM t LEFT JOIN su USING (a);
CREATE VIEW s5 AS SELECT a, d FROM t NATURAL JOIN su;
CREATE VIEW s6 AS SELECT a FROM (SELECT a FROM t) s JOIN su USING (a);
CREATE VIEW s7 AS SELECT a, x.b FROM su JOIN (t JOIN t x USING (a, c)) USING (a);
CREATE VIEW s8 AS SELECT * FROM t FULL JOIN su USING (a);
CREATE VIEW s9 AS SELECT a, t.b FROM t FULL JOIN su USING (a) WHERE a > 1 ORDER BY a;
CREATE MATERIALIZED VIEW sm AS SELECT a, t.b, su.d FROM t JOIN su USING (a);
CREATE VIEW l1 AS SELECT t.a, g.x FROM t, LATERAL generate_series(1, 3) g(x);
CREATE VIEW l2 AS SELECT t.a, g.x FROM t, LATERAL generate_series(1, t.b) g(x);
CREATE VIEW l3 AS SELECT t.a, g.x FROM t JOIN LATERAL generate_series(1, 2) g(x) ON g.x = t.a;
CREATE VIEW l4 AS SELECT g.x FROM LATERAL generate_series(1, 2) g(x);
CREATE VIEW l5 AS SELECT t.a, g FROM t CROSS JOIN LATERAL unnest(ARRAY[t.a, t.b]) g;
CREATE VIEW n1 AS SELECT make_interval(days => b) AS s FROM t;
CREATE VIEW n2 AS SELECT make_interval(1, days => b, hours => a) AS s FROM t;
CREATE VIEW n3 AS SELECT make_interval(secs => 1.5) AS s, make_interval(years => a, mins => 2) AS s2 FROM t;
CREATE VIEW h1 AS WITH w AS (SELECT a FROM t) SELECT a FROM w UNION SELECT 1;
CREATE VIEW h2 AS WITH w AS (SELECT a, b FROM t WHERE b > 0), x AS (SELECT 2 AS k) SELECT a FROM w UNION ALL SELECT k FROM x EXCEPT SELECT b FROM w ORDER BY 1 LIMIT 3;
CREATE VIEW h3 AS SELECT * FROM (WITH w AS (SELECT a FROM t) SELECT a FROM w INTERSECT SELECT b FROM t) s;
CREATE VIEW h4 AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r UNION SELECT a FROM t;
CREATE VIEW y1 AS SELECT ARRAY(SELECT a FROM t ORDER BY a) AS x;
CREATE VIEW y2 AS SELECT t.a, ARRAY(SELECT t2.c FROM t t2 WHERE t2.b = t.a) AS cs FROM t;
CREATE VIEW y3 AS SELECT cardinality(ARRAY(SELECT b FROM t)) + 1 AS n;
CREATE VIEW x1 AS SELECT c NOT LIKE 'y' AS s, c NOT ILIKE 'y%' AS s2, c !~ 'z' AS s3, c !~* 'q' AS s4 FROM t;
CREATE VIEW x2 AS SELECT NULLIF(a, 1) AS x, NULLIF(c, 'q') AS y, NULLIF(b::numeric, a) AS z FROM t;
CREATE VIEW x3 AS SELECT GREATEST(a, b) AS y, LEAST(a, 2.5) AS z FROM t;
CREATE VIEW x4 AS SELECT a FROM t WHERE c NOT LIKE 'a%' AND NOT (c LIKE 'b%') AND NOT c NOT LIKE 'c';
CREATE TABLE tj (a int, j jsonb, arr int[], c text);
CREATE VIEW jk1 AS SELECT j -> 'k' AS x, j ->> 'k' AS y, j -> 'a' -> 'b' AS z, (j -> 'a') ->> 0 AS w FROM tj;
CREATE VIEW jk2 AS SELECT j #> '{a,b}' AS x, j #>> '{a}' AS y FROM tj WHERE j @> '{"a":1}' AND j ? 'a' AND j ?| ARRAY['x'] AND arr && ARRAY[1];
CREATE VIEW jk3 AS SELECT (j ->> 'n')::int + 1 AS n, j - 'a' AS d FROM tj;
CREATE VIEW jk4 AS SELECT c ^@ 'x' AS s, j #- '{a}' AS dp FROM tj;
CREATE VIEW q1 AS SELECT arr[1] AS x, arr[a] AS y, arr[1:2] AS z FROM tj;
CREATE VIEW q2 AS SELECT a = ANY (arr) AS x FROM tj WHERE a = ANY (arr) AND NOT a = ANY (ARRAY[a, 2]);
CREATE VIEW q3 AS SELECT (arr || 5)[1] AS x, arr[a + 1] + 1 AS y FROM tj;
CREATE VIEW q4 AS SELECT (a = ANY (arr)) = true AS x FROM tj;
CREATE TABLE td (a int, ts timestamp, d date, i interval, tz timestamptz);
CREATE VIEW xe AS SELECT extract(year FROM ts) AS y, EXTRACT(EPOCH FROM i) AS e, extract(dow FROM d) + 1 AS w, extract(hour FROM tz) AS h FROM td WHERE extract(month FROM ts) > 3;
CREATE MATERIALIZED VIEW fm AS SELECT ta.a, r.x, r.y FROM ta, ROWS FROM (generate_series(1, 2), unnest(ARRAY['p', 'q', 'r'])) AS r(x, y) WHERE ta.a > r.x;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
ALTER TABLE t RENAME COLUMN c TO "C d";
ALTER TABLE t RENAME COLUMN a TO aa;
ALTER TABLE ta RENAME COLUMN a TO aa;
ALTER TABLE tj RENAME COLUMN j TO "J j";
ALTER TABLE tj RENAME COLUMN arr TO "A r";
ALTER TABLE td RENAME COLUMN ts TO t2;
ALTER TABLE su RENAME COLUMN a TO "A";
ALTER TABLE ta RENAME COLUMN b TO "B b";
ALTER VIEW c3 RENAME COLUMN p TO pp;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT matviewname, definition FROM pg_matviews WHERE schemaname = 'public' ORDER BY 1;
\pset format aligned
INSERT INTO t VALUES (1, 2, 'x'), (3, 4, 'y');
REFRESH MATERIALIZED VIEW c8;
REFRESH MATERIALIZED VIEW w8;
INSERT INTO u VALUES (1, 5), (3, 6);
REFRESH MATERIALIZED VIEW j8;
REFRESH MATERIALIZED VIEW m1;
REFRESH MATERIALIZED VIEW mv1;
INSERT INTO ta VALUES (2, ARRAY[7, 8, 9]);
REFRESH MATERIALIZED VIEW fm;
REFRESH MATERIALIZED VIEW om;
INSERT INTO su VALUES (1, 10), (3, 30);
REFRESH MATERIALIZED VIEW sm;
SELECT * FROM c1 ORDER BY 1;
SELECT * FROM c4 ORDER BY 1;
SELECT * FROM c7 ORDER BY 1;
SELECT * FROM c8 ORDER BY 1;
SELECT * FROM w4 ORDER BY 1, 2;
SELECT * FROM w8 ORDER BY 1;
SELECT * FROM j5 ORDER BY 1, 2;
SELECT * FROM j6 ORDER BY 1, 2;
SELECT * FROM j8 ORDER BY 1, 2;
SELECT * FROM k3 ORDER BY 1, 2;
SELECT * FROM m1 ORDER BY 1, 2;
SELECT * FROM r5;
SELECT * FROM r11 ORDER BY 1, 2;
SELECT * FROM v2 ORDER BY 1;
SELECT * FROM v4 ORDER BY 1;
SELECT * FROM v6 ORDER BY 1;
SELECT * FROM v8 ORDER BY 1;
SELECT * FROM v9 ORDER BY 1;
SELECT * FROM mv1 ORDER BY 1;
SELECT * FROM fm ORDER BY 1, 2;
SELECT * FROM om ORDER BY 1;
SELECT * FROM sm ORDER BY 1;
SELECT * FROM s7 ORDER BY 1;
SELECT * FROM s8 ORDER BY 1;
SELECT * FROM h1 ORDER BY 1;
SELECT * FROM h4 ORDER BY 1;
SELECT * FROM y2 ORDER BY 1;
SELECT * FROM f4 ORDER BY 1;
SELECT * FROM f5 ORDER BY 1, 2;
-- A column alias list after an alias equal to the table's name, as the
-- definitions above print one.
CREATE TABLE tn (a int, b int, c text);
INSERT INTO tn VALUES (1, 2, 'x');
SELECT * FROM tn tn(x, y);
SELECT * FROM tn AS tn(x) WHERE x = 1;
SELECT tn.y FROM tn tn(x, y);
SELECT * FROM (SELECT * FROM tn) tn(p);
-- The tables renamed: the definitions name them anew, and still read
-- the same rows.
ALTER TABLE t RENAME TO t_r;
ALTER TABLE ta RENAME TO ta_r;
ALTER TABLE tj RENAME TO tj_r;
ALTER TABLE su RENAME TO su_r;
ALTER TABLE td RENAME TO td_r;
ALTER TABLE u RENAME TO u_r;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
SELECT * FROM s8 ORDER BY 1;
SELECT * FROM v6 ORDER BY 1;
SELECT * FROM m1 ORDER BY 1, 2;
SELECT * FROM r5;
SELECT * FROM w4 ORDER BY 1, 2;
SELECT * FROM f5 ORDER BY 1, 2;

-- The sequence functions' first argument is a regclass.
create sequence vsq;
create sequence "VSq";
create view vseq as select nextval('"VSq"') a, setval('public.vsq', 5) b, setval('vsq', 5000000000, false) c, currval(('v' || 'sq')::regclass) d, lastval() e;
select pg_get_viewdef('vseq');
select pg_get_viewdef('vseq', true);
drop view vseq;
