-- pg_get_viewdef of the shapes PostgreSQL 15 prints from its query tree
-- and weir once showed as written: column alias lists on tables and
-- subqueries and on the view itself; in views and materialized views,
-- before and after renames of the columns they read, through
-- pg_get_viewdef, pg_views and pg_matviews.
CREATE TABLE t (a int, b int, c text);
CREATE VIEW c1 AS SELECT x.p, x.q FROM t AS x(p, q);
CREATE VIEW c2 AS SELECT * FROM (SELECT a, b FROM t) AS s(p, q);
CREATE VIEW c3(p, q) AS SELECT a, b FROM t;
CREATE VIEW c4 AS SELECT * FROM t AS x(b);
CREATE VIEW c5 AS SELECT * FROM (SELECT a, b FROM t) AS s(a);
CREATE VIEW c6 AS SELECT * FROM t AS x(a, b);
CREATE VIEW c7 AS SELECT y.p, z.c FROM t AS y(p) JOIN t AS z(q) ON y.p = z.q;
CREATE MATERIALIZED VIEW c8 AS SELECT x.p, x.q FROM t AS x(p, q);
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
\pset format aligned
ALTER TABLE t RENAME COLUMN c TO "C d";
ALTER TABLE t RENAME COLUMN a TO aa;
ALTER VIEW c3 RENAME COLUMN p TO pp;
\pset format unaligned
SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' ORDER BY 1;
SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT matviewname, definition FROM pg_matviews WHERE schemaname = 'public' ORDER BY 1;
\pset format aligned
INSERT INTO t VALUES (1, 2, 'x'), (3, 4, 'y');
REFRESH MATERIALIZED VIEW c8;
SELECT * FROM c1 ORDER BY 1;
SELECT * FROM c4 ORDER BY 1;
SELECT * FROM c7 ORDER BY 1;
SELECT * FROM c8 ORDER BY 1;
