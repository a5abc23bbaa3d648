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
-- Writing without SELECT: what reads the target's rows needs SELECT.
CREATE TABLE w (id int PRIMARY KEY, b text);
INSERT INTO w VALUES (1, 'a');
GRANT INSERT, UPDATE, DELETE ON w TO cmp_mallory;
SET ROLE cmp_mallory;
INSERT INTO w VALUES (2, 'b');
UPDATE w SET b = 'c';
UPDATE w SET b = b || 'x';
UPDATE w SET b = 'c' WHERE id = 1;
UPDATE w SET b = (SELECT max(id)::text FROM open_t);
UPDATE w SET b = (SELECT max(open_t.id)::text FROM open_t WHERE open_t.id = w.id);
INSERT INTO w VALUES (1, 'd') ON CONFLICT (id) DO UPDATE SET b = w.b || 'd';
INSERT INTO w VALUES (1, 'd') ON CONFLICT (id) DO UPDATE SET b = excluded.b;
INSERT INTO w VALUES (1, 'd') ON CONFLICT (id) DO NOTHING;
INSERT INTO w VALUES (1, 'd') ON CONFLICT DO NOTHING;
INSERT INTO w VALUES (1, 'f') ON CONFLICT ON CONSTRAINT w_pkey DO UPDATE SET b = excluded.b;
INSERT INTO w VALUES (1, 'g') ON CONFLICT ON CONSTRAINT w_pkey DO UPDATE SET b = w.b || excluded.b;
INSERT INTO w VALUES (1, 'h') ON CONFLICT ON CONSTRAINT w_pkey DO NOTHING;
INSERT INTO w VALUES (3, 'e') RETURNING id;
DELETE FROM w WHERE id = 2;
DELETE FROM w;
RESET ROLE;
SELECT * FROM w ORDER BY id;
DROP VIEW mallory_v;
REVOKE ALL ON w FROM cmp_mallory;
REVOKE ALL ON open_t FROM cmp_mallory;
REVOKE CREATE ON SCHEMA public FROM cmp_mallory;
DROP ROLE cmp_mallory;
DROP ROLE cmp_group;
