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
