-- (x).* and (x).f of a subquery's row in views and materialized views,
-- kept up to date under DML.
CREATE TABLE rt60 (a int, b text);
CREATE VIEW v60 AS SELECT (x).f1 FROM (SELECT ROW(1, 'a'::text) AS x) s;
SELECT * FROM v60;
CREATE MATERIALIZED VIEW mv60a AS SELECT (x).* FROM (SELECT ROW(1, 'a'::text) AS x) s;
CREATE MATERIALIZED VIEW mv60b AS SELECT (x).f1 FROM (SELECT ROW(1, 'a'::text) AS x) s;
SELECT * FROM mv60a;
SELECT * FROM mv60b;
CREATE MATERIALIZED VIEW mv60c AS SELECT (x).* FROM (SELECT ROW(a, b) AS x FROM rt60) s;
CREATE MATERIALIZED VIEW mv60d AS SELECT (x).f2, (x).f1 FROM (SELECT ROW(a, b) AS x FROM rt60) s;
INSERT INTO rt60 VALUES (1, 'x'), (2, 'y');
REFRESH MATERIALIZED VIEW mv60c;
REFRESH MATERIALIZED VIEW mv60d;
SELECT * FROM mv60c ORDER BY 1;
SELECT * FROM mv60d ORDER BY 2;
UPDATE rt60 SET b = 'z' WHERE a = 1;
DELETE FROM rt60 WHERE a = 2;
INSERT INTO rt60 VALUES (3, 'w');
REFRESH MATERIALIZED VIEW mv60c;
REFRESH MATERIALIZED VIEW mv60d;
SELECT * FROM mv60c ORDER BY 1;
SELECT * FROM mv60d ORDER BY 2;
DROP MATERIALIZED VIEW mv60a, mv60b, mv60c, mv60d;
DROP VIEW v60;
DROP TABLE rt60;
-- pg_get_viewdef(text [, pretty]), to_regclass and to_regtype.
CREATE TABLE tv60 (a int, b text);
CREATE VIEW vv60 AS SELECT a FROM tv60;
SELECT pg_get_viewdef('vv60');
SELECT pg_get_viewdef('vv60', true);
SELECT pg_get_viewdef('public.vv60');
SELECT pg_get_viewdef('nosuch60');
SELECT to_regclass('tv60'), to_regclass('nosuch60'), to_regclass('public.tv60'), to_regclass('1259');
SELECT to_regclass('pg_class'), to_regclass(NULL);
SELECT to_regtype('integer'), to_regtype('int4'), to_regtype('nosuch60'), to_regtype('text[]');
SELECT to_regclass('tv60')::oid = 'tv60'::regclass::oid;
SELECT relname FROM pg_class WHERE oid = to_regclass('tv60');
SELECT count(*) FROM pg_class WHERE oid = to_regclass('nosuch60');
DROP VIEW vv60;
DROP TABLE tv60;
-- enum_range is of the enum's array type; pg_typeof of a domain value
-- names the domain.
CREATE TYPE mood60 AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE em60 (k int, m mood60);
INSERT INTO em60 VALUES (1, 'ok'), (2, 'sad'), (3, 'happy');
SELECT enum_range(NULL::mood60), pg_typeof(enum_range(NULL::mood60));
SELECT enum_range('sad'::mood60, 'ok'::mood60), pg_typeof(enum_range('sad'::mood60, NULL));
SELECT 'ok'::mood60 = ANY(enum_range(NULL::mood60));
SELECT k FROM em60 WHERE m = ANY(enum_range('ok'::mood60, NULL)) ORDER BY k;
CREATE DOMAIN posint60 AS int CHECK (VALUE > 0);
SELECT pg_typeof(1::posint60), pg_typeof(CAST(2 AS posint60)), pg_typeof(1::posint60 + 1);
SELECT pg_typeof(NULL::posint60), pg_typeof('ok'::mood60);
DROP TABLE em60;
DROP DOMAIN posint60;
DROP TYPE mood60;
