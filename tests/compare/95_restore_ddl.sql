-- What a plain pg_dump writes and a restore needs: an index whose key is
-- a schema-qualified function call without parentheses around it (with
-- an ordering, in a partial index, and errors near it), and CREATE
-- SCHEMA ... AUTHORIZATION, the role then owning the schema. The roles
-- are dropped at the end: they belong to the whole PostgreSQL cluster.
CREATE SCHEMA s95;
CREATE FUNCTION s95.norm(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT lower(t) $$;
CREATE FUNCTION public.norm95(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(t) $$;
CREATE TABLE s95.t (id int, a text);
CREATE UNIQUE INDEX t_norm ON s95.t USING btree (s95.norm(a));
CREATE INDEX t_pub ON s95.t (public.norm95(a));
CREATE INDEX t_low ON s95.t (pg_catalog.lower(a));
CREATE INDEX t_desc ON s95.t (s95.norm(a) DESC NULLS LAST, id);
CREATE INDEX t_where ON s95.t (s95.norm(a)) WHERE s95.norm(a) <> 'x';
CREATE INDEX t_bad ON s95.t (s95.norm(a) + 1);
CREATE INDEX t_bad2 ON s95.t (s95.);
CREATE INDEX t_bad3 ON s95.t (s95.nosuch(a));
INSERT INTO s95.t VALUES (1, 'Ab'), (2, 'cd');
INSERT INTO s95.t VALUES (3, 'AB');
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 's95' ORDER BY 1;
DROP TABLE s95.t;
DROP SCHEMA s95 CASCADE;
DROP FUNCTION public.norm95(text);
CREATE ROLE cmp_fa95;
CREATE ROLE cmp_fb95;
CREATE ROLE cmp_fc95;
GRANT cmp_fc95 TO cmp_fa95;
CREATE SCHEMA fs95 AUTHORIZATION cmp_fa95;
CREATE SCHEMA AUTHORIZATION cmp_fb95;
CREATE SCHEMA IF NOT EXISTS AUTHORIZATION cmp_fb95;
CREATE SCHEMA zz95 AUTHORIZATION cmp_nosuchrole95;
CREATE SCHEMA AUTHORIZATION cmp_nosuchrole95;
CREATE SCHEMA cu95 AUTHORIZATION CURRENT_USER;
SELECT n.nspname, CASE WHEN r.rolname = current_user THEN 'me' ELSE r.rolname END AS owner FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname LIKE '%95%' ORDER BY 1;
CREATE TABLE fs95.t (a int);
GRANT CREATE ON SCHEMA fs95 TO cmp_fb95;
SET ROLE cmp_fa95;
CREATE TABLE fs95.u (a int);
INSERT INTO fs95.u VALUES (1);
SELECT * FROM fs95.u;
CREATE SCHEMA x95 AUTHORIZATION cmp_nosuchrole95;
DROP SCHEMA cmp_fb95;
DROP SCHEMA nosuch95;
DROP SCHEMA fs95 CASCADE;
RESET ROLE;
DROP ROLE cmp_fb95;
DROP SCHEMA cmp_fb95;
DROP SCHEMA cu95;
DROP ROLE cmp_fa95, cmp_fb95, cmp_fc95;
SELECT count(*) FROM pg_namespace WHERE nspname LIKE '%95%';
