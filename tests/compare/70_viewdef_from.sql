-- pg_get_viewdef of functions in FROM (aliases, column lists, WITH
-- ORDINALITY, joined or listed with commas, reading the items to their
-- left), LATERAL subqueries, DISTINCT ON, FETCH FIRST
-- ... WITH TIES, LIMIT and OFFSET expressions and typed literals, in
-- views and materialized views; then the same after renames of the
-- tables and columns they read, through pg_views, pg_matviews,
-- information_schema.views and \d+.
CREATE TABLE t (a int, b int, c text, ts timestamp);
CREATE VIEW g1 AS SELECT x FROM generate_series(1, 3) AS g(x);
CREATE VIEW g2 AS SELECT * FROM unnest(ARRAY[1, 2]) WITH ORDINALITY AS u2(v, o);
CREATE VIEW g3 AS SELECT x, o FROM generate_series(1, 3) WITH ORDINALITY AS g(x, o);
CREATE VIEW g4 AS SELECT x FROM generate_series(1, 3) x;
CREATE VIEW g5 AS SELECT * FROM generate_series(1, 3);
CREATE VIEW g6 AS SELECT t.a, g.x FROM t JOIN generate_series(1, 10) g(x) ON g.x = t.a;
CREATE VIEW g7 AS SELECT * FROM generate_series(1, 3) WITH ORDINALITY;
CREATE VIEW g8 AS SELECT * FROM generate_series('2020-01-01'::timestamp, '2020-01-03', '1 day') d;
CREATE VIEW g9 AS SELECT * FROM regexp_split_to_table('a,b,c', ',') WITH ORDINALITY s;
CREATE VIEW h1 AS SELECT * FROM jsonb_each('{"a":1}'::jsonb) e, jsonb_array_elements('[1,2]') x(v);
CREATE VIEW h2 AS SELECT g.x, t.a FROM generate_series(1, 3) g(x), t WHERE t.a = g.x;
CREATE VIEW h3 AS SELECT * FROM generate_series(1.5, 3) g, generate_series(1, 2, 1) h;
CREATE VIEW h4 AS SELECT x FROM generate_series(1, 3) AS t(x) WHERE x IN (SELECT a FROM t);
CREATE VIEW h5 AS SELECT * FROM unnest('{1,2}'::int[]) u;
CREATE VIEW d1 AS SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC;
CREATE VIEW d2 AS SELECT DISTINCT ON (a, c) a, b FROM t ORDER BY a, c, b NULLS FIRST;
CREATE VIEW d3 AS SELECT DISTINCT ON (a + 1) a, b FROM t ORDER BY a + 1, b;
CREATE VIEW d4 AS SELECT DISTINCT ON (2) a, b FROM t ORDER BY 2, 1 LIMIT 5;
CREATE VIEW e1 AS SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS WITH TIES;
CREATE VIEW e2 AS SELECT a, b FROM t ORDER BY b DESC OFFSET 1 FETCH FIRST (1 + 2) ROWS WITH TIES;
CREATE VIEW e3 AS SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS ONLY;
CREATE VIEW e4 AS SELECT a FROM t ORDER BY a FETCH NEXT ROW WITH TIES;
CREATE VIEW e5 AS SELECT a FROM t ORDER BY a LIMIT 1 + 2 OFFSET 2 * 2;
CREATE VIEW e6 AS SELECT a FROM t UNION SELECT b FROM t ORDER BY 1 LIMIT 1 + 2 OFFSET 2 * 2;
CREATE VIEW l1 AS SELECT a, ts FROM t WHERE ts > '2021-03-04' AND ts < '2021-03-05 10:00'::timestamp AND a = ANY (ARRAY[1, 2]);
CREATE TABLE u (a int, d int);
CREATE VIEW p1 AS SELECT t.a, l.m FROM t, LATERAL (SELECT max(d) AS m FROM u WHERE u.a = t.a) l;
CREATE VIEW p2 AS SELECT t.a, g FROM t, generate_series(1, t.b) g;
CREATE VIEW p3 AS SELECT t.a, l.d FROM t LEFT JOIN LATERAL (SELECT u.d FROM u WHERE u.a = t.a ORDER BY u.d LIMIT 1) l ON true;
CREATE VIEW p4 AS SELECT t.a, l.n FROM t, LATERAL (SELECT count(*) AS n FROM u) l;
CREATE VIEW p5 AS SELECT t.a, l.m FROM t JOIN LATERAL (SELECT max(d) AS m FROM u WHERE u.a = t.a AND u.d > (SELECT min(t2.b) FROM t t2 WHERE t2.a = t.a)) l ON l.m > t.b;
CREATE MATERIALIZED VIEW md AS SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC;
CREATE MATERIALIZED VIEW ml AS SELECT a, ts FROM t WHERE ts > '2021-03-04' AND a = ANY (ARRAY[1, 2]);
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
INSERT INTO t VALUES (1, 2, 'x', '2021-03-04 12:00'), (1, 5, 'y', NULL), (2, 7, 'x', '2021-03-06'), (3, 1, 'y', NULL);
INSERT INTO u VALUES (1, 5), (2, 7), (2, 9);
REFRESH MATERIALIZED VIEW md;
REFRESH MATERIALIZED VIEW ml;
SELECT * FROM g3 ORDER BY 1;
SELECT * FROM g6 ORDER BY 1;
SELECT * FROM g8 ORDER BY 1;
SELECT * FROM d1 ORDER BY 1;
SELECT * FROM e1 ORDER BY 1;
SELECT * FROM md ORDER BY 1;
SELECT * FROM ml ORDER BY 1;
ALTER TABLE t RENAME COLUMN a TO "A a";
ALTER TABLE t RENAME COLUMN ts TO "order";
ALTER TABLE t RENAME TO "T2";
ALTER TABLE u RENAME TO uu;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' AND viewname IN ('g6', 'h4', 'd2', 'e2', 'p1', 'p2') ORDER BY 1;
SELECT matviewname, definition FROM pg_matviews WHERE schemaname = 'public' ORDER BY 1;
SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = 'public' AND table_name IN ('g3', 'h2', 'd4', 'l1') ORDER BY 1;
\pset format aligned
\d+ h4
\d+ md
INSERT INTO "T2" VALUES (4, 4, 'z', '2021-03-04 01:00');
SELECT * FROM h2 ORDER BY 1;
SELECT * FROM d3 ORDER BY 1;
SELECT * FROM e2 ORDER BY 1;
SELECT * FROM l1 ORDER BY 1;
SELECT * FROM p1 ORDER BY 1, 2;
SELECT * FROM p2 ORDER BY 1, 2;
SELECT * FROM p3 ORDER BY 1, 2;
SELECT * FROM p5 ORDER BY 1, 2;
