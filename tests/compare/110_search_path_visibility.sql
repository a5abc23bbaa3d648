-- A relation is visible (pg_table_is_visible, psql's \dt and \dv, an
-- unqualified regclass) only when its schema is on the search path and
-- no schema before it there has a relation of its name.
CREATE SCHEMA other;
CREATE TABLE other.zz (a int);
CREATE TABLE other.both_here (a int);
CREATE TABLE public.both_here (b int);
CREATE VIEW other.vv AS SELECT 1 AS one;
SELECT pg_table_is_visible('other.zz'::regclass) AS zz, pg_table_is_visible('other.both_here'::regclass) AS other_both, pg_table_is_visible('public.both_here'::regclass) AS public_both;
SELECT 'other.zz'::regclass, 'other.both_here'::regclass, 'public.both_here'::regclass;
\dt
\dv
SELECT * FROM zz;
SET search_path = other, public;
SELECT pg_table_is_visible('other.zz'::regclass) AS zz, pg_table_is_visible('other.both_here'::regclass) AS other_both, pg_table_is_visible('public.both_here'::regclass) AS public_both;
SELECT 'other.zz'::regclass, 'other.both_here'::regclass, 'public.both_here'::regclass;
\dt
\dv
SELECT * FROM zz;
SET search_path = public, other;
SELECT pg_table_is_visible('other.both_here'::regclass) AS other_both, pg_table_is_visible('public.both_here'::regclass) AS public_both;
SELECT 'other.both_here'::regclass, 'public.both_here'::regclass;
\dt
SET search_path = nosuchschema, other;
SELECT pg_table_is_visible('other.zz'::regclass) AS zz;
\dt
SET search_path = "$user", public;
CREATE SCHEMA root;
CREATE TABLE root.mine (a int);
SELECT pg_table_is_visible('root.mine'::regclass) AS mine;
RESET search_path;
DROP SCHEMA other CASCADE;
DROP SCHEMA root CASCADE;
DROP TABLE public.both_here;
