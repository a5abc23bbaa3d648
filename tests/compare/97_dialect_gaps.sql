-- PostgreSQL forms the TiDB parser under weir's bridge reads otherwise.
-- LIKE, ILIKE and SIMILAR TO take any expression after ESCAPE: a
-- multi-byte character, a column, NULL, an expression; more than one
-- character is 22025 (like_escape's check), and errors point at the
-- operator as PostgreSQL's do.
CREATE TABLE esc97 (a text, e text);
INSERT INTO esc97 VALUES ('a%b', 'é'), ('aéb', 'x'), ('ab', NULL), ('a_b', '');
SELECT 'aé%' LIKE 'aéé%' ESCAPE 'é', 'a%' ILIKE 'A%' ESCAPE 'é', 'a%' NOT LIKE 'a%' ESCAPE 'é';
SELECT 'a%' NOT ILIKE 'A!%' ESCAPE '!', 'a%' LIKE 'a%' ESCAPE '', 'a%' LIKE 'a%' ESCAPE NULL;
SELECT 'ax' LIKE 'axx' ESCAPE 'x' || '', 'a_' LIKE 'a$_' ESCAPE '$' AND true, 'a' LIKE 'a' ESCAPE 'x' = true;
SELECT 'a%' SIMILAR TO 'aé%' ESCAPE 'é', 'a%' NOT SIMILAR TO 'a%' ESCAPE 'é';
SELECT a, a LIKE 'a%' ESCAPE e AS l, a ILIKE 'Aé%' ESCAPE e AS i, a NOT LIKE '%' ESCAPE e AS n FROM esc97 ORDER BY a;
SELECT CASE WHEN 'a%' LIKE 'a!%' ESCAPE '!' THEN 1 END;
SELECT 'a%' LIKE 'a%' ESCAPE 'ab';
SELECT 'a%' ILIKE 'a%' ESCAPE 'éé';
SELECT 'a%' SIMILAR TO 'a%' ESCAPE 'ab';
SELECT a FROM esc97 WHERE a LIKE 'a' ESCAPE a || 'x';
SELECT 'a' LIKE 'a' ESCAPE 1;
SELECT 'a' NOT ILIKE 'a' ESCAPE 1;
SELECT 'a' NOT LIKE 1 ESCAPE 'x';
SELECT 'a' SIMILAR TO 'a' ESCAPE 1;
SELECT 'a' NOT SIMILAR TO 'a' ESCAPE 1;
SELECT 1 LIKE 'a';
SELECT 1 NOT ILIKE 'a';
SELECT 1 NOT SIMILAR TO 'a';
SELECT 1 !~~ 'a', 2;
SELECT 1 !~* 'a';
SELECT 'a' LIKE 'a' ESCAPE;
SELECT 'a' !~~* 'a' ESCAPE 'x';
CREATE VIEW esc97_v AS SELECT a, a LIKE 'aé%b' ESCAPE 'é' AS l, a ILIKE 'A%' ESCAPE e AS i,
  a NOT LIKE 'a%' ESCAPE '' AS n, a NOT ILIKE 'a%' ESCAPE e || '' AS ni, a SIMILAR TO 'a%' ESCAPE 'é' AS s FROM esc97;
SELECT pg_get_viewdef('esc97_v');
SELECT * FROM esc97_v ORDER BY a;
CREATE MATERIALIZED VIEW esc97_m AS SELECT a, a LIKE 'aé%b' ESCAPE 'é' AS l, a NOT ILIKE 'A%' ESCAPE e AS i FROM esc97;
SELECT pg_get_viewdef('esc97_m');
SELECT * FROM esc97_m ORDER BY a;
DROP TABLE esc97 CASCADE;
-- Column labels and view definitions of functions TiDB reads as
-- operators or keywords (mod, div) and of the operators the bridge
-- writes as functions (^, @, |/, ||/): PostgreSQL labels mod(a, b) mod
-- and an operator ?column?, and prints each as written.
SELECT mod(7, 3), div(7, 3), position('a' in 'ba'), substring('abc' from 2), substring('abc', 2), trim(' a '), trim(both 'x' from 'xax'), ltrim('a');
SELECT extract(year from date '2020-01-01'), overlay('abc' placing 'x' from 2), coalesce(1, 2), nullif(1, 2), greatest(1, 2), least(1, 2);
SELECT char_length('a'), character_length('a'), octet_length('a'), current_date IS NOT NULL, localtimestamp IS NOT NULL AS x;
SELECT user, current_user, session_user, current_role, current_schema, current_catalog;
SELECT user::text, current_user::text, (session_user)::text, current_schema::text, session_user || 'x';
SELECT 2 ^ 3, |/ 4, @ -1, ||/ 8, @ -1.5, 2.0 ^ 3, (2 ^ 3)::text, 7 % 3, - 1, ~ 1, 1 # 2;
SELECT mod(7, 3)::text, -mod(7, 3), (mod(7, 3)), pg_catalog.mod(7, 3), mod(7, 3) + 1, mod(-7.5, 2), x.mod, x.div FROM (SELECT mod(1, 1), div(1, 1)) x;
SELECT 'a'::text ^ 2;
SELECT @ 'a'::text;
SELECT |/ true;
SELECT 1 + ||/ 'x'::text;
SELECT mod(1);
CREATE TABLE op97 (a int, b int, n numeric, f float8);
CREATE VIEW op97_v AS SELECT mod(a, b), a % b AS p, div(n, n), power(a, b), a ^ b AS c, |/ f AS s, @ a AS ab, ||/ f AS cb,
  user, current_user AS cu, -mod(a, b) AS neg, (mod(a, b)) AS pm, current_date AS cd, current_role AS cr, session_user AS su,
  current_schema AS cs, current_catalog AS cc, (a ^ b) * 2 AS x1, 2 * a ^ b AS x2, - (|/ f) AS x3, abs(|/ f) AS x4,
  @ (a + 1) AS x5, ||/ f + 1 AS x6, (a ^ b) ^ 2 AS x7, @ - a AS x8, n ^ n AS x9, |/ a AS x10, mod(a, b) % 2 AS x11,
  current_user::text AS cut, session_user || 'x' AS sux FROM op97;
SELECT pg_get_viewdef('op97_v');
SELECT pg_get_viewdef('op97_v', true);
CREATE VIEW op97_w AS SELECT 2 ^ 3, |/ f, mod(a, 2), user FROM op97;
SELECT attname FROM pg_attribute WHERE attrelid = 'op97_w'::regclass AND attnum > 0 ORDER BY attnum;
DROP TABLE op97 CASCADE;
-- Names weir's bridge uses for its own calls are ordinary function names
-- to the user: a missing one is 42883 with its argument types, and a
-- user function may have one.
SELECT pg_cast(1, 'text');
SELECT pg_array(1, 2);
SELECT pg_slice(ARRAY[1], 1, 2);
SELECT public.pg_cast(1, 'text');
SELECT pg_catalog.pg_cast(1, 'text');
SELECT "pg_cast"(1, 'text');
SELECT PG_CAST(1);
SELECT pg_no_columns();
SELECT 1 + pg_cast(now(), 'x');
SELECT pg_op('^', 2, 3), 1;
SELECT pg_like_escape('a', 'b');
SELECT count(*) FROM (VALUES (1)) t(a) GROUP BY pg_rollup(a);
CREATE FUNCTION pg_cast(int) RETURNS int LANGUAGE sql AS 'SELECT $1 * 10';
CREATE FUNCTION public.pg_array(int, int) RETURNS int LANGUAGE sql AS 'SELECT $1 + $2';
SELECT pg_cast(5), pg_array(1, 2), public.pg_cast(6), ARRAY[1, 2], 7::text;
SELECT pg_cast('x');
SELECT pg_catalog.pg_cast(5);
CREATE VIEW int97_v AS SELECT pg_cast(5), pg_array(1, 2) AS a, 3::int AS c;
SELECT pg_get_viewdef('int97_v');
SELECT * FROM int97_v;
DROP VIEW int97_v;
DROP FUNCTION pg_cast(int);
DROP FUNCTION pg_array(int, int);
SELECT pg_cast(5);
-- A cast of a domain's value to its base type is kept in a view's and a
-- constraint's definition (PostgreSQL's RelabelType); a cast of a value
-- of the domain to the domain itself is none.
CREATE DOMAIN posint97 AS integer CHECK (VALUE > 0);
CREATE DOMAIN pstr97 AS text;
CREATE TABLE dom97 (a int, b posint97, s text, p pstr97, arr posint97[]);
INSERT INTO dom97 VALUES (1, 2, 'x', 'y', '{1,2}'), (5, 3, 'z', NULL, NULL);
CREATE VIEW dom97_v AS SELECT (a)::posint97::integer AS x, b::integer AS z, b AS w, b::posint97 AS bp, s::pstr97::text AS t,
  a::posint97::posint97 AS r, CAST(CAST(a AS posint97) AS int) AS q, p::text AS pt, p::varchar AS pv, arr::int[] AS ai,
  b::bigint AS bb, (a::posint97)::bigint AS ab FROM dom97 WHERE b::integer > 0;
SELECT pg_get_viewdef('dom97_v');
SELECT * FROM dom97_v ORDER BY z;
SELECT b::integer, pg_typeof(b::integer), pg_typeof(b), pg_typeof(b::posint97), pg_typeof(1::posint97::int), pg_typeof(a::posint97::posint97) FROM dom97 ORDER BY 1;
ALTER TABLE dom97 ADD CONSTRAINT c1 CHECK (a::posint97::integer <> 0);
ALTER TABLE dom97 ADD CONSTRAINT c2 CHECK (b::integer < 100);
ALTER TABLE dom97 ADD CONSTRAINT c3 CHECK (p::text <> '');
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'dom97'::regclass ORDER BY 1;
CREATE MATERIALIZED VIEW dom97_m AS SELECT b::integer AS z, s::pstr97::text AS t FROM dom97;
SELECT pg_get_viewdef('dom97_m');
SELECT * FROM dom97_m ORDER BY z;
DROP TABLE dom97 CASCADE;
DROP DOMAIN posint97;
DROP DOMAIN pstr97;
-- A name qualified with the current database (dev) is the name without
-- it; another database is 0A000, and too many parts 42601.
CREATE SCHEMA s97;
CREATE FUNCTION s97.f97() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE TABLE s97.t (a int, d date);
INSERT INTO s97.t VALUES (1, '2020-01-01');
SELECT dev.s97.f97(), dev.pg_catalog.lower('A'), DEV.PG_CATALOG.UPPER('a'), "dev"."s97"."f97"();
SELECT other.s97.f97();
SELECT other.pg_catalog.lower('A');
SELECT dev.s97.nosuch();
SELECT dev.nosuch.f97();
SELECT dev.s97.f97(1);
SELECT a.b.c.d();
SELECT * FROM dev.s97.t;
SELECT * FROM other.s97.t;
SELECT dev.s97.t.a, s97.t.a, dev.s97.t.* FROM dev.s97.t;
SELECT t.a FROM dev.s97.t, dev.s97.t u JOIN dev.s97.t v ON true WHERE u.a = dev.s97.t.a;
SELECT extract(year from s97.t.d), s97.t.a IS DISTINCT FROM dev.s97.t.a FROM s97.t;
SELECT other.s97.t.a FROM s97.t;
SELECT other.s97.f97(), * FROM other.s97.t;
SELECT a.b.c.d.e FROM s97.t;
SELECT * FROM a.b.c.d;
INSERT INTO dev.s97.t VALUES (2, '2021-01-01');
INSERT INTO other.s97.t VALUES (2, '2021-01-01');
UPDATE dev.s97.t SET a = 3 WHERE a = 2;
DELETE FROM dev.s97.t USING dev.s97.t u WHERE u.a = 5;
DELETE FROM dev.s97.t WHERE a = 3;
TABLE dev.s97.t;
SELECT * FROM ONLY dev.s97.t;
SELECT (SELECT count(*) FROM dev.s97.t);
WITH w AS (SELECT * FROM dev.s97.t) SELECT w.a, z.a FROM w, dev.s97.t z;
CREATE VIEW s97.v AS SELECT dev.s97.f97() AS f, a, dev.s97.t.d FROM dev.s97.t;
SELECT pg_get_viewdef('s97.v');
SELECT * FROM s97.v;
DROP SCHEMA s97 CASCADE;
-- The same for the names statements define and drop.
CREATE TABLE other.public.x97 (a int);
DROP TABLE other.public.x97;
DROP TABLE IF EXISTS other.public.x97;
CREATE VIEW other.public.v97 AS SELECT 1;
CREATE FUNCTION other.public.f97() RETURNS int LANGUAGE sql AS 'SELECT 1';
DROP FUNCTION other.public.f97();
CREATE INDEX ON other.public.t97 (a);
ALTER TABLE other.public.t97 ADD COLUMN b int;
CREATE SEQUENCE other.public.s97;
CREATE TYPE other.public.e97 AS ENUM ('a');
CREATE DOMAIN other.public.d97 AS int;
CREATE TABLE a.b.c.d (a int);
CREATE SCHEMA s97;
CREATE TABLE dev.s97.t (a int);
CREATE VIEW dev.s97.v AS SELECT a FROM dev.s97.t;
CREATE FUNCTION dev.s97.f() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE INDEX i97 ON dev.s97.t (a);
ALTER TABLE dev.s97.t ADD COLUMN b int;
CREATE SEQUENCE dev.s97.sq;
SELECT relname FROM pg_class WHERE relnamespace = 's97'::regnamespace ORDER BY 1;
DROP FUNCTION dev.s97.f();
DROP VIEW dev.s97.v;
DROP TABLE dev.s97.t;
DROP SEQUENCE dev.s97.sq;
DROP SCHEMA s97;
-- A table column of a domain passed where its base type is wanted (an
-- operator's or a function's argument, COALESCE, a CASE result, IN) is
-- printed cast to the base type, PostgreSQL's implicit RelabelType;
-- not to "any" or polymorphic parameters (count, array_agg).
CREATE DOMAIN posint97 AS integer CHECK (VALUE > 0);
CREATE DOMAIN pstr97 AS text;
CREATE TABLE rel97 (a int, b posint97, p pstr97, arr posint97[], g int GENERATED ALWAYS AS (b * 2) STORED);
CREATE INDEX rel97_i ON rel97 ((b + 1));
SELECT indexdef FROM pg_indexes WHERE indexname = 'rel97_i';
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'rel97'::regclass;
CREATE VIEW rel97_v AS SELECT b + 1 AS v, abs(b) AS ab, b AS w, b::bigint AS bb, p || 'x' AS px, upper(p) AS up,
  array_length(arr, 1) AS al, b = 1 AS eq, b IS NULL AS n, coalesce(b, 1) AS co, CASE WHEN b > 1 THEN b END AS ca,
  b IN (1, 2) AS i, -b AS ng, p LIKE 'a%' AS lk, sum(b) OVER () AS sw FROM rel97 WHERE b > 0 AND p <> '';
SELECT pg_get_viewdef('rel97_v');
SELECT pg_get_viewdef('rel97_v', true);
CREATE VIEW rel97_w AS SELECT count(b), sum(b), max(p), string_agg(p, ','), max(b) FILTER (WHERE b > 1),
  array_agg(b ORDER BY b) FROM rel97 GROUP BY b, p HAVING b > 1 ORDER BY b;
SELECT pg_get_viewdef('rel97_w');
ALTER TABLE rel97 ADD CONSTRAINT c97 CHECK (b < 100 AND length(p) < 5 AND b IS NOT NULL);
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'c97';
INSERT INTO rel97 (a, b, p, arr) VALUES (1, 2, 'ab', '{3}');
SELECT v, ab, w, bb, px, up, al, eq, n, co, ca, i, ng, lk, sw FROM rel97_v;
DROP TABLE rel97 CASCADE;
DROP DOMAIN posint97;
DROP DOMAIN pstr97;
