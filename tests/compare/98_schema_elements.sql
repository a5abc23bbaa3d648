-- CREATE SCHEMA with schema elements: CREATE TABLE, VIEW, INDEX and
-- SEQUENCE and GRANT, run in PostgreSQL 15's order with the new schema
-- first in the search path and owned by its owner; a failing element
-- leaves no schema behind.
CREATE ROLE alice;
CREATE SCHEMA hollywood
    CREATE VIEW winners AS SELECT title, release FROM films WHERE awards IS NOT NULL
    CREATE INDEX films_title ON films (title)
    CREATE TABLE films (title text PRIMARY KEY, release date, awards text[])
    CREATE SEQUENCE film_ids
    GRANT SELECT ON films TO alice;
\dn hollywood
SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'hollywood' ORDER BY 1;
INSERT INTO hollywood.films VALUES ('a', '2020-01-01', '{x}'), ('b', '2021-01-01', NULL);
SELECT * FROM hollywood.winners;
SELECT pg_get_viewdef('hollywood.winners');
\dp hollywood.films
SELECT nextval('hollywood.film_ids');
CREATE SCHEMA s2 AUTHORIZATION alice CREATE TABLE t (a int) CREATE VIEW v AS SELECT a FROM t;
SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 's2' ORDER BY 1;
CREATE SCHEMA s3 CREATE TABLE public.t (a int);
SELECT nspname FROM pg_namespace WHERE nspname = 's3';
CREATE SCHEMA s3 CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE SCHEMA s3 CREATE TABLE t (a int) CREATE TABLE t (b int);
CREATE SCHEMA s3 CREATE TABLE t (a int,);
CREATE TABLE public.pt (a int);
CREATE SCHEMA s4 CREATE VIEW v AS SELECT a FROM pt CREATE INDEX ON pt (a);
CREATE SCHEMA s4 CREATE VIEW v AS SELECT a FROM pt;
SELECT pg_get_viewdef('s4.v');
DROP SCHEMA hollywood, s2, s4 CASCADE;
DROP TABLE pt;
DROP ROLE alice;
CREATE SCHEMA IF NOT EXISTS zz CREATE TABLE t (a int);
CREATE SCHEMA zz CREATE OR REPLACE VIEW v AS SELECT 1 AS a CREATE UNLOGGED TABLE u (a int) CREATE UNIQUE INDEX ON u (a);
\d zz.*
CREATE SCHEMA zz2 CREATE MATERIALIZED VIEW m AS SELECT 1 AS a;
CREATE SCHEMA zz2 CREATE TABLE t2 AS SELECT 1 AS a;
CREATE SCHEMA zz2 REVOKE ALL ON t FROM alice;
DROP SCHEMA zz CASCADE;
