-- Privileges follow the relation a name resolves to, not its spelling:
-- a quoted mixed-case name, a CTE named like a table but for case, a
-- view read with its owner's privileges (a superuser reading it too).
-- The roles are dropped at the end: they belong to the whole PostgreSQL
-- cluster.
CREATE TABLE "MixedSecret" (id int, val text);
INSERT INTO "MixedSecret" VALUES (1, 'hidden');
CREATE TABLE secret (id int, s text);
INSERT INTO secret VALUES (1, 'hidden');
CREATE TABLE open_t (id int);
INSERT INTO open_t VALUES (1);
CREATE ROLE cmp_mallory;
CREATE ROLE cmp_group;
GRANT cmp_group TO cmp_mallory;
GRANT CREATE ON SCHEMA public TO cmp_mallory;
GRANT SELECT ON open_t TO cmp_mallory;
SET ROLE cmp_mallory;
SELECT current_user;
SELECT * FROM "MixedSecret";
INSERT INTO "MixedSecret" VALUES (2, 'x');
UPDATE "MixedSecret" SET val = 'x';
DELETE FROM "MixedSecret";
WITH "SECRET" AS (SELECT 1) SELECT * FROM secret;
WITH "PG_AUTHID" AS (SELECT 1) SELECT rolname FROM pg_authid;
SELECT * FROM open_t WHERE EXISTS (SELECT 1 FROM "MixedSecret");
SELECT * FROM open_t, LATERAL (SELECT val FROM "MixedSecret") x;
CREATE VIEW mallory_v AS SELECT * FROM open_t;
SELECT * FROM mallory_v;
RESET ROLE;
REVOKE SELECT ON open_t FROM cmp_mallory;
-- The view reads with its owner's privileges, whoever reads it.
SELECT * FROM mallory_v;
GRANT SELECT ON open_t TO cmp_mallory;
SELECT * FROM mallory_v;
-- A member acts as its group, and as itself again.
SET ROLE cmp_group;
SELECT current_user;
RESET ROLE;
SET ROLE cmp_mallory;
SELECT * FROM secret;
RESET ROLE;
DROP VIEW mallory_v;
REVOKE ALL ON open_t FROM cmp_mallory;
REVOKE CREATE ON SCHEMA public FROM cmp_mallory;
DROP ROLE cmp_mallory;
DROP ROLE cmp_group;
