-- Grouping sets: ROLLUP, CUBE, GROUPING SETS and grouping(), the empty
-- set's row even over no rows, sets listed twice giving rows twice.
CREATE TABLE sales (id int PRIMARY KEY, region text, city text, item text, qty int);
INSERT INTO sales VALUES (1, 'north', 'oslo', 'pen', 3), (2, 'north', 'oslo', 'ink', 5),
  (3, 'north', 'bergen', 'pen', 2), (4, 'south', 'rome', 'pen', 7), (5, 'south', NULL, 'ink', 1),
  (6, NULL, NULL, 'pen', 4);
SELECT region, city, sum(qty) AS total, count(*) AS n, grouping(region, city) AS g
  FROM sales GROUP BY ROLLUP (region, city) ORDER BY g, region, city;
SELECT region, item, sum(qty), grouping(item), grouping(region), grouping(item, region)
  FROM sales GROUP BY CUBE (region, item) ORDER BY 4, 5, region, item;
SELECT region, item, count(*) FROM sales GROUP BY GROUPING SETS ((region), (item), ())
  ORDER BY 1, 2, 3;
SELECT region, city, item, sum(qty) FROM sales GROUP BY region, ROLLUP (city, item)
  ORDER BY 1, 2, 3, 4;
SELECT region, city, count(*) FROM sales GROUP BY ROLLUP ((region, city)) ORDER BY 1, 2, 3;
SELECT region, item, count(*) FROM sales GROUP BY GROUPING SETS (region, ROLLUP (item), ())
  ORDER BY 1, 2, 3;
SELECT region AS r, count(*) FROM sales GROUP BY ROLLUP (r) ORDER BY 1, 2;
SELECT region, count(*) FROM sales GROUP BY ROLLUP (1) ORDER BY 1, 2;
SELECT region, count(*), max(qty) FROM sales GROUP BY CUBE (region, region) ORDER BY 1, 2;
SELECT region, city FROM sales GROUP BY DISTINCT ROLLUP (region, city), ROLLUP (region)
  ORDER BY 1, 2;
SELECT region, city FROM sales GROUP BY ALL region, city ORDER BY 1, 2;
SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) HAVING grouping(region) = 1 OR sum(qty) > 8
  ORDER BY 1;
SELECT upper(region) AS u, count(*) FROM sales GROUP BY ROLLUP (upper(region)) ORDER BY 1, 2;
SELECT region, sum(qty), rank() OVER (ORDER BY sum(qty) DESC) FROM sales
  GROUP BY ROLLUP (region) ORDER BY 3, 1;
SELECT count(*), sum(qty) FROM sales WHERE false GROUP BY ROLLUP (region);
SELECT count(*) FROM sales WHERE false GROUP BY ();
SELECT count(*) FROM sales WHERE false GROUP BY GROUPING SETS ((), (), region);
SELECT count(*) FROM sales GROUP BY ();
-- The errors PostgreSQL gives, and MySQL's spelling still refused.
SELECT grouping(region) FROM sales;
SELECT region FROM sales WHERE grouping(region) = 0 GROUP BY region;
SELECT region, grouping(city) FROM sales GROUP BY region;
SELECT region, grouping(region) FROM sales GROUP BY region ORDER BY 1;
SELECT region FROM sales GROUP BY ROLLUP (region, ());
SELECT region FROM sales GROUP BY CUBE (id, region, city, item, qty, id, region, city, item, qty, id, region, city);
SELECT region, count(*) FROM sales GROUP BY region WITH ROLLUP;
-- A primary key groups its table's columns only when every set holds it.
SELECT id, region FROM sales GROUP BY ROLLUP (id);
SELECT id, region FROM sales GROUP BY GROUPING SETS ((id), (id, qty)) ORDER BY 1, 2;
-- Set-returning functions in the select list, zipped as PostgreSQL 10+
-- does: as many rows as the longest, the others NULL.
CREATE TABLE docs (id int PRIMARY KEY, body text, tags text[], n int);
INSERT INTO docs VALUES (1, 'a b c', '{x,y}', 2), (2, 'solo', '{}', 0), (3, NULL, '{p,q,r}', 1);
SELECT generate_series(1, 3);
SELECT generate_series(1, 3) AS g, 'x' AS y;
SELECT id, unnest(tags) FROM docs ORDER BY 1, 2;
SELECT id, unnest(tags), generate_series(1, n) AS g FROM docs ORDER BY 1, 2, 3;
SELECT id, regexp_split_to_table(body, ' ') AS word FROM docs ORDER BY 1, 2;
SELECT regexp_split_to_table('hello world, again', E'\\s*');
SELECT regexp_split_to_table('a,b,,c', ',');
SELECT regexp_split_to_table('abc', '');
SELECT regexp_split_to_table('abc', 'x*');
SELECT regexp_split_to_table('aXbxc', 'x', 'i');
SELECT generate_series(1, n) + 10 AS x FROM docs ORDER BY 1;
SELECT count(*), generate_series(1, 2) FROM docs;
SELECT n, generate_series(1, n) FROM docs GROUP BY n ORDER BY 1, 2;
SELECT DISTINCT unnest(tags) AS t FROM docs ORDER BY 1;
SELECT unnest(ARRAY['a', 'b']) AS u ORDER BY u DESC LIMIT 1;
SELECT generate_series(1, 3) ORDER BY 1 DESC;
SELECT * FROM regexp_split_to_table('a-b', '-') AS x;
-- An SRF in another's arguments runs a level below it.
SELECT generate_series(1, generate_series(1, 3));
SELECT generate_series(1, generate_series(1, 2)), generate_series(1, 3);
SELECT id, generate_series(1, generate_series(1, n)) AS g, unnest(tags) FROM docs ORDER BY 1, 2, 3;
SELECT unnest(ARRAY[generate_series(1, 2), 10]) AS u;
SELECT * FROM docs WHERE generate_series(1, 2) > 1;
VALUES (generate_series(1, 2));
VALUES (1), ((SELECT generate_series(1, 1)));
INSERT INTO docs (id) SELECT generate_series(10, 11);
SELECT id FROM docs WHERE id >= 10 ORDER BY 1;
UPDATE docs SET n = generate_series(1, 2);
SELECT CASE WHEN n > 1 THEN generate_series(1, 2) END FROM docs;
SELECT coalesce(generate_series(1, 2), 0);
SELECT sum(generate_series(1, 2));
SELECT regexp_split_to_table('abc', 'b', 'g');
SELECT unnest('{1,2}');
SELECT generate_series(1, 5, 0);
-- Column lists of views and materialized views.
CREATE VIEW dv (doc, words) AS SELECT id, body FROM docs;
SELECT * FROM dv ORDER BY doc;
CREATE VIEW dv2 (doc) AS SELECT id, body FROM docs;
SELECT * FROM dv2 ORDER BY doc;
CREATE VIEW dv3 (a, b, c) AS SELECT id, body FROM docs;
CREATE MATERIALIZED VIEW dmv (doc, total) AS SELECT id, n FROM docs;
SELECT * FROM dmv ORDER BY doc;
CREATE MATERIALIZED VIEW dmv2 (a, b, c) AS SELECT id, n FROM docs;
CREATE MATERIALIZED VIEW dmv3 (region, total) AS SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region);
SELECT * FROM dmv3 ORDER BY 1, 2;
CREATE MATERIALIZED VIEW dmv4 AS SELECT id, unnest(tags) AS tag FROM docs;
SELECT * FROM dmv4 ORDER BY 1, 2;
-- TRUNCATE inside a transaction block goes with the block.
CREATE TABLE tr (id int PRIMARY KEY, v int);
INSERT INTO tr VALUES (1, 10), (2, 20);
BEGIN;
TRUNCATE tr;
SELECT count(*) FROM tr;
ROLLBACK;
SELECT * FROM tr ORDER BY id;
BEGIN;
INSERT INTO tr VALUES (3, 30);
TRUNCATE tr;
INSERT INTO tr VALUES (4, 40);
COMMIT;
SELECT * FROM tr ORDER BY id;
-- DROP SCHEMA.
CREATE SCHEMA s1;
CREATE TABLE s1.t (a int);
DROP SCHEMA s1;
DROP SCHEMA s1 RESTRICT;
DROP SCHEMA pg_catalog;
DROP SCHEMA s1, nope;
CREATE SCHEMA e;
DROP SCHEMA e;
DROP SCHEMA IF EXISTS e, e2;
CREATE SCHEMA e3;
CREATE TABLE e3.x (a int);
DROP SCHEMA e3 CASCADE;
CREATE SCHEMA e4;
CREATE TABLE e4.x (a int);
CREATE VIEW e4.y AS SELECT * FROM e4.x;
DROP SCHEMA e4 CASCADE;
DROP SCHEMA s1 CASCADE;
SELECT nspname FROM pg_namespace WHERE nspname IN ('s1', 'e', 'e3', 'e4') ORDER BY 1;
