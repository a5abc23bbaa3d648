-- pg_get_viewdef, pg_views, pg_matviews and information_schema.views
-- print a view's query deparsed, with the names its relations and
-- columns have now: renames follow, and the view keeps its meaning.
CREATE TABLE t (a int, b int, c text);
CREATE TABLE u (a int, d int);
CREATE TABLE w (a int, e int);
INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (2, NULL, 'x');
INSERT INTO u VALUES (1, 100), (2, 200);
INSERT INTO w VALUES (2, 7);
CREATE VIEW v1 AS SELECT a, b AS bee, c FROM t WHERE a > 1 AND c = 'x' ORDER BY b DESC, 1;
CREATE VIEW v2 AS SELECT t.a, count(*) AS n, sum(t.b), max(c)::varchar(3) FROM t LEFT JOIN u ON t.a = u.a GROUP BY t.a HAVING count(*) > 1;
CREATE VIEW v3 AS SELECT x.a, y.d, 1 AS one, 'lit' AS s, 1.5 AS f, true, NULL::int AS nn, x.a + y.d * 2 AS e FROM t x, u y WHERE x.a = y.a OR x.b IS NULL;
CREATE VIEW v4 AS SELECT bee, a FROM v1;
CREATE VIEW v5 AS SELECT DISTINCT a FROM t LIMIT 5;
CREATE VIEW v6 AS SELECT * FROM t;
CREATE VIEW v7 AS SELECT t.a FROM t JOIN u ON true, w ORDER BY t.a DESC NULLS LAST, u.d NULLS FIRST LIMIT 3 OFFSET 2;
CREATE VIEW v8 AS SELECT t.a + 1 AS x, count(DISTINCT t.b) FILTER (WHERE t.b > 0), CASE WHEN t.a > 0 THEN 'p' ELSE 'n' END AS sg, coalesce(t.b, 0), t.c IS NOT NULL AS nn, NOT (t.a = 1 OR t.b = 2) FROM t GROUP BY t.a + 1, 3, t.c, t.b, t.a ORDER BY 1;
CREATE VIEW v9 AS SELECT t.a, u.d, w.e FROM t JOIN u ON t.a = u.a LEFT JOIN w ON w.a = u.a WHERE t.b > 0;
CREATE MATERIALIZED VIEW mv AS SELECT a, sum(b) AS s, count(*) FROM t GROUP BY a;
\pset format unaligned
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT matviewname, definition FROM pg_matviews ORDER BY 1;
SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1;
\pset format aligned
-- Column and table renames: the definitions follow.
ALTER TABLE t RENAME COLUMN a TO aa;
ALTER TABLE u RENAME COLUMN d TO dd;
ALTER TABLE u RENAME TO uu;
ALTER TABLE t RENAME COLUMN b TO c2;
ALTER TABLE t RENAME COLUMN c TO b;
ALTER TABLE t RENAME COLUMN c2 TO c;
ALTER VIEW v1 RENAME TO v1r;
\pset format unaligned
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT pg_get_viewdef('v2'::regclass), pg_get_viewdef('v2'::regclass, false);
SELECT matviewname, definition FROM pg_matviews ORDER BY 1;
\pset format aligned
\d+ v3
\d+ v4
\d+ mv
-- The views read what they read before.
SELECT * FROM v1r;
SELECT * FROM v2;
SELECT * FROM v3 ORDER BY 1, 2;
SELECT * FROM v4;
SELECT * FROM v6 ORDER BY 1, 2;
SELECT * FROM v9 ORDER BY 1, 2;
SELECT * FROM mv ORDER BY 1;
INSERT INTO t VALUES (3, 'z', 30);
SELECT * FROM mv ORDER BY 1;
SELECT * FROM v6 ORDER BY 1, 2;
-- A table named like its own column.
CREATE TABLE tt (tt int, x int);
INSERT INTO tt VALUES (5, 6);
CREATE VIEW tv AS SELECT tt FROM tt WHERE x > 0;
ALTER TABLE tt RENAME TO tt2;
SELECT * FROM tv;
SELECT pg_get_viewdef('tv'::regclass);
-- A column a view uses cannot be dropped; one it does not use can.
ALTER TABLE t DROP COLUMN aa;
ALTER TABLE t DROP COLUMN c;
ALTER TABLE w DROP COLUMN e;
ALTER TABLE uu DROP COLUMN dd;
ALTER TABLE t ADD COLUMN z int;
SELECT * FROM v6 ORDER BY 1, 2;
SELECT pg_get_viewdef('v6'::regclass, true);
