-- SQL value functions are written without parentheses, or with a
-- precision: MySQL's CURRENT_DATE() and USER() are syntax errors.
SELECT CURRENT_DATE() IS NOT NULL;
SELECT current_user();
SELECT user();
SELECT session_user();
SELECT current_role();
SELECT current_catalog();
SELECT current_timestamp();
SELECT localtime();
SELECT current_schema(), current_schemas(false);
-- The precision forms round the transaction's start time.
BEGIN;
SELECT current_timestamp(2) = date_trunc('second', now()) + round(extract(microseconds FROM now())::numeric % 1000000 / 10000) * interval '10 ms' AS r2;
SELECT current_timestamp(0) = date_trunc('second', now() + interval '500 ms') AS r0;
SELECT localtimestamp(0) = date_trunc('second', localtimestamp + interval '500 ms') AS l0,
  localtime(0) = (date_trunc('second', localtimestamp + interval '500 ms'))::time AS lt0;
SELECT pg_typeof(current_timestamp(3)), pg_typeof(localtimestamp(3)), pg_typeof(localtime(3));
COMMIT;
SELECT current_timestamp(-1);
SELECT current_timestamp(1.5);
-- BINARY 'a' is a typed literal of a type no database has; AGAINST
-- after MATCH (...) is a column label, which nothing follows.
SELECT BINARY 'a';
SELECT 'a' = BINARY 'a';
SELECT verbose 'x';
CREATE TABLE m11 (id int, s text);
SELECT MATCH (s) AGAINST ('x') FROM m11;
-- A binary operator in a prefix place is a prefix operator neither
-- server has, named once its operand binds.
SELECT @@version;
SELECT @@ 1;
SELECT ~~ 'a';
SELECT @@;
SELECT s FROM m11 WHERE @> s;
-- pg_proc has no CURRENT_DATE or CURRENT_TIMESTAMP: by a quoted or
-- qualified name they are functions that do not exist.
SELECT pg_catalog.current_date();
SELECT "current_date"();
SELECT "current_timestamp"(2);
SELECT pg_catalog.localtimestamp();
SELECT "current_user"() = current_user, pg_catalog.now() = now();
