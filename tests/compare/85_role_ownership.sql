-- Ownership follows the role the session acts as (SET ROLE), not the
-- role it logged in as.
CREATE ROLE ro_alice;
CREATE ROLE ro_bob;
GRANT CREATE ON SCHEMA public TO ro_alice, ro_bob;
SET ROLE ro_bob;
CREATE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 1 $$;
CREATE TYPE bobmood AS ENUM ('sad', 'ok');
CREATE DOMAIN bobdom AS int CHECK (VALUE > 0);
RESET ROLE;
SELECT proname, pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'bobf';
SELECT typname, pg_get_userbyid(typowner) FROM pg_type WHERE typname IN ('bobmood', 'bobdom', '_bobmood') ORDER BY typname;
SET ROLE ro_alice;
CREATE FUNCTION alicef() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE TYPE alicemood AS ENUM ('x');
SELECT current_user, session_user = current_user AS same;
-- ro_alice may not drop, replace or alter what ro_bob owns.
DROP FUNCTION bobf(int);
DROP FUNCTION bobf;
CREATE OR REPLACE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 2 $$;
DROP TYPE bobmood;
DROP DOMAIN bobdom;
ALTER TYPE bobmood ADD VALUE 'happy';
ALTER TYPE bobmood RENAME VALUE 'ok' TO 'fine';
ALTER TYPE bobmood RENAME TO alicemood2;
ALTER DOMAIN bobdom SET DEFAULT 1;
ALTER DOMAIN bobdom DROP CONSTRAINT bobdom_check;
ALTER TYPE bobdom ADD VALUE 'x';
ALTER DOMAIN bobmood SET DEFAULT 'ok';
SELECT bobf(1);
CREATE SEQUENCE aliceseq;
RESET ROLE;
SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'aliceseq';
DROP SEQUENCE aliceseq;
SELECT proname, pg_get_userbyid(proowner) FROM pg_proc WHERE proname IN ('alicef', 'bobf') ORDER BY proname;
SELECT typname, pg_get_userbyid(typowner) FROM pg_type WHERE typname IN ('alicemood', 'bobmood') ORDER BY typname;
\df alicef
\dT+ alicemood
-- DROP ... CASCADE by a non-owner is refused before the dependencies
-- are looked at.
CREATE TABLE t (k int PRIMARY KEY, m bobmood);
CREATE VIEW v AS SELECT bobf(k) FROM t;
SET ROLE ro_alice;
DROP FUNCTION bobf(int) CASCADE;
DROP FUNCTION bobf(int);
DROP TYPE bobmood CASCADE;
DROP TYPE bobmood;
DROP FUNCTION alicef(), bobf(int) CASCADE;
-- CREATE needs CREATE on the schema.
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM ro_alice;
SET ROLE ro_alice;
CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE TYPE m2 AS ENUM ('a');
CREATE DOMAIN d2 AS int;
-- The owner (and a member of it) and a superuser may.
RESET ROLE;
GRANT ro_bob TO ro_alice;
SET ROLE ro_alice;
ALTER TYPE bobmood ADD VALUE 'happy';
ALTER DOMAIN bobdom SET DEFAULT 1;
CREATE OR REPLACE FUNCTION bobf(a int) RETURNS int LANGUAGE sql AS $$ SELECT a + 2 $$;
SELECT proname, pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'bobf';
RESET ROLE;
REVOKE ro_bob FROM ro_alice;
-- GRANT and REVOKE on a function are the owner's: another role that
-- may call it is warned that nothing changed, one that may not is
-- refused.
SET ROLE ro_alice;
REVOKE EXECUTE ON FUNCTION bobf(int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bobf(int) TO ro_alice;
GRANT ALL ON FUNCTION bobf(int) TO ro_alice;
RESET ROLE;
SELECT proacl FROM pg_proc WHERE proname = 'bobf';
REVOKE EXECUTE ON FUNCTION bobf(int) FROM PUBLIC;
SET ROLE ro_alice;
REVOKE EXECUTE ON FUNCTION bobf(int) FROM PUBLIC;
SELECT bobf(1);
RESET ROLE;
GRANT EXECUTE ON FUNCTION bobf(int) TO PUBLIC;
-- has_function_privilege: EXECUTE is PUBLIC's until revoked, always the
-- owner's; the grant option is the owner's.
SELECT has_function_privilege('bobf(int)', 'execute'), has_function_privilege('ro_alice', 'bobf(int)', 'EXECUTE');
SELECT has_function_privilege('ro_alice', 'bobf(integer)', 'EXECUTE WITH GRANT OPTION'), has_function_privilege('ro_bob', 'bobf(int)', 'execute with grant option');
SELECT has_function_privilege('public', 'bobf(int)', 'EXECUTE'), has_function_privilege('ro_alice', 'lower(text)', 'EXECUTE');
SELECT has_function_privilege('ro_alice', 'lower(text)', 'EXECUTE WITH GRANT OPTION'), has_function_privilege('public', 'lower(text)', 'execute');
REVOKE EXECUTE ON FUNCTION bobf(int) FROM PUBLIC;
SELECT has_function_privilege('ro_alice', 'bobf(int)', 'EXECUTE'), has_function_privilege('ro_bob', 'bobf(int)', 'EXECUTE'), has_function_privilege('public', 'bobf(int)', 'EXECUTE');
GRANT EXECUTE ON FUNCTION bobf(int) TO ro_alice;
SELECT has_function_privilege('ro_alice', 'bobf(int)', 'EXECUTE'), has_function_privilege('ro_alice', 'bobf(int)', ' execute ,  update');
SET ROLE ro_alice;
SELECT has_function_privilege('bobf(int)', 'EXECUTE'), has_function_privilege('alicef()', 'EXECUTE WITH GRANT OPTION');
RESET ROLE;
SELECT has_function_privilege('ro_alice', 'nosuch(int)', 'EXECUTE');
SELECT has_function_privilege('nobody', 'bobf(int)', 'EXECUTE');
SELECT has_function_privilege('ro_alice', 'bobf(int)', 'USAGE');
SELECT has_function_privilege('nobody', 'nosuch(int)', 'USAGE');
SELECT has_function_privilege('ro_alice', 'nosuch(int)', 'USAGE');
SELECT has_function_privilege('ro_alice', 'bobf', 'EXECUTE');
SELECT has_function_privilege('ro_alice', (SELECT oid FROM pg_proc WHERE proname = 'bobf'), 'EXECUTE');
SELECT has_function_privilege((SELECT oid FROM pg_proc WHERE proname = 'alicef'), 'EXECUTE');
-- DROP ROLE names the functions and types the role owns or has
-- privileges on.
DROP ROLE ro_alice;
DROP ROLE ro_bob;
DROP VIEW v;
DROP TABLE t;
DROP FUNCTION alicef(), bobf(int);
DROP ROLE ro_alice;
DROP TYPE alicemood, bobmood;
DROP ROLE ro_bob;
DROP DOMAIN bobdom;
REVOKE CREATE ON SCHEMA public FROM ro_bob;
DROP ROLE ro_bob;
DROP ROLE ro_alice;
-- A function of another schema, by its qualified name.
CREATE SCHEMA s;
CREATE FUNCTION s.f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
SELECT 's.f(int)'::regprocedure;
SELECT has_function_privilege('s.f(int)', 'execute');
SELECT has_function_privilege('f(int)', 'execute');
CREATE ROLE ro_q;
GRANT USAGE ON SCHEMA s TO ro_q;
REVOKE ALL ON FUNCTION s.f(int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION s.f(int) TO ro_q;
DROP ROLE ro_q;
REVOKE ALL ON FUNCTION s.f(int) FROM ro_q;
REVOKE ALL ON SCHEMA s FROM ro_q;
DROP ROLE ro_q;
DROP SCHEMA s CASCADE;
-- Errors name the object as written.
CREATE ROLE ro_d;
CREATE FUNCTION df(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
CREATE TYPE dm AS ENUM ('x');
SET ROLE ro_d;
DROP FUNCTION public.df(int);
DROP FUNCTION public.df;
CREATE OR REPLACE FUNCTION public.df(a int) RETURNS int LANGUAGE sql AS $$ SELECT a $$;
DROP TYPE public.dm;
ALTER TYPE public.dm ADD VALUE 'y';
GRANT EXECUTE ON FUNCTION public.df(int) TO ro_d;
RESET ROLE;
REVOKE ALL ON FUNCTION df(int) FROM PUBLIC;
SET ROLE ro_d;
GRANT EXECUTE ON FUNCTION public.df(int) TO ro_d;
RESET ROLE;
DROP FUNCTION df(int);
DROP TYPE dm;
DROP ROLE ro_d;
