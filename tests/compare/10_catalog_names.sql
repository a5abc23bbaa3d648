-- A user table named like a pg_catalog relation does not hide it: an
-- unqualified name is looked up in pg_catalog first unless search_path
-- names pg_catalog after public. Named like an information_schema
-- relation, it is found (information_schema is not on the search path).
CREATE TABLE pg_class (relname text, note text);
INSERT INTO public.pg_class VALUES ('mine', 'user table');
SELECT relname FROM pg_class WHERE relname = 'mine';
SELECT relname, note FROM public.pg_class;
\dt
SELECT note FROM pg_class;
SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relname = 'pg_class';
SET search_path = public, pg_catalog;
SELECT relname, note FROM pg_class;
SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relname = 'pg_class' AND pg_catalog.pg_table_is_visible(c.oid);
SET search_path = pg_catalog, public;
SELECT relname FROM pg_class WHERE relname = 'mine';
RESET search_path;
SELECT relname FROM pg_class WHERE relname = 'mine';
-- DDL on the unqualified name reaches the system catalog, which no one
-- may drop or rename, not the user table of that name.
DROP TABLE pg_class;
DROP TABLE pg_catalog.pg_class;
DROP TABLE IF EXISTS pg_class;
ALTER TABLE pg_class RENAME TO mine;
SELECT relname, note FROM public.pg_class;
SET search_path = public, pg_catalog;
ALTER TABLE pg_class RENAME TO pg_class2;
ALTER TABLE pg_class2 RENAME TO pg_class;
RESET search_path;
DROP TABLE public.pg_class;
CREATE TABLE tables (x int);
INSERT INTO tables VALUES (1);
SELECT * FROM tables;
DROP TABLE tables;
-- A regclass prints as the relation's name, schema-qualified when the
-- relation is not on the search_path; compared or cast to oid it is the OID.
CREATE TABLE rc (id int PRIMARY KEY);
CREATE SCHEMA rcs;
CREATE TABLE rcs.other (id int);
CREATE TABLE "Mixed Case" (id int);
SELECT 'rc'::regclass, 'public.rc'::regclass AS q, 'rcs.other'::regclass AS other, '"Mixed Case"'::regclass AS mixed;
SELECT ('rc'::regclass) AS paren, CAST('rc' AS regclass) AS c;
SELECT 'pg_class'::regclass AS cls, 'pg_catalog.pg_type'::regclass AS typ;
SELECT relname FROM pg_class WHERE oid = 'rc'::regclass;
SELECT 'rc'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'rc') AS same;
SELECT 'rc'::regclass::text AS t;
SELECT c.oid::regclass AS rel FROM pg_class c WHERE c.relname IN ('rc', 'other') ORDER BY c.relname;
SELECT 'nosuch'::regclass;
DROP TABLE rcs.other;
DROP SCHEMA rcs;
DROP TABLE "Mixed Case";
DROP TABLE rc;
