-- Scalar SQL functions: the body is one expression, called in queries,
-- DML and views; overloads, STRICT, result conversion, pg_proc and
-- psql's \df, and DROP with dependents.
CREATE FUNCTION add1(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + 1 $$;
CREATE FUNCTION add1(a bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT a + 100 $$;
CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql AS 'select $1 * 2';
CREATE FUNCTION mul(a int, b int) RETURNS int RETURN a * b;
CREATE FUNCTION to_num(a int) RETURNS numeric LANGUAGE sql AS $$ SELECT a $$;
CREATE FUNCTION strict_or(a int) RETURNS int LANGUAGE sql STRICT AS $$ SELECT coalesce(a, 7) $$;
CREATE FUNCTION called_or(a int) RETURNS int LANGUAGE sql CALLED ON NULL INPUT AS $$ SELECT coalesce(a, 7) $$;
CREATE FUNCTION qualified(a int) RETURNS int LANGUAGE sql AS $$ SELECT qualified.a * 3 $$;
CREATE FUNCTION greet(name text, n int) RETURNS text LANGUAGE sql STABLE RETURNS NULL ON NULL INPUT AS $$ SELECT repeat(name, n) || '!' $$;
SELECT add1(1), add1(1::bigint), twice(4), mul(3, 4), to_num(5), pg_typeof(to_num(5));
SELECT strict_or(NULL), called_or(NULL), strict_or(2), qualified(2), greet('ab', 2), greet(NULL, 2) IS NULL;
SELECT add1(2.5);
SELECT add1('41');
SELECT add1(twice(add1(1)));
SELECT nosuch(1);
-- A user function with a built-in's name and other argument types.
CREATE FUNCTION lower(int) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$;
SELECT lower('ABC'), lower(5);
-- Errors found when the function is made.
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$ SELECT 'x'::text $$;
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$ SELECT b $$;
CREATE FUNCTION bad(int) RETURNS int LANGUAGE sql AS $$ SELECT $2 $$;
CREATE FUNCTION bad(a int, a int) RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
CREATE FUNCTION bad(a int) RETURNS int AS $$ SELECT a $$;
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$ SELECT a, a $$;
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$ SELECT '7' $$;
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$ SELECT nosuch(a) $$;
CREATE FUNCTION bad(a int) RETURNS int LANGUAGE sql AS $$
  -- a comment, then a syntax error
  SELECT a +; $$;
CREATE FUNCTION add1(b int) RETURNS int LANGUAGE sql AS $$ SELECT b $$;
CREATE OR REPLACE FUNCTION add1(a int) RETURNS bigint LANGUAGE sql AS $$ SELECT a $$;
SELECT count(*) FROM pg_proc WHERE proname = 'bad';
-- Tables, DML and views.
CREATE TABLE t (k int PRIMARY KEY, v int);
INSERT INTO t VALUES (1, add1(10)), (2, twice(21)), (3, NULL);
UPDATE t SET v = add1(v) WHERE twice(k) = 4;
SELECT k, v, add1(v), strict_or(v), mul(k, v) FROM t ORDER BY k;
DELETE FROM t WHERE add1(k) = 4;
CREATE VIEW v AS SELECT k, add1(v) AS w FROM t;
SELECT * FROM v ORDER BY k;
-- A view's definition shows the calls, not the bodies inlined.
CREATE VIEW vd AS SELECT k, add1(add1(k) * 2) + 1 AS x, strict_or(v) FROM t WHERE add1(k) > 0;
SELECT pg_get_viewdef('vd');
\d+ vd
DROP VIEW vd;
CREATE OR REPLACE FUNCTION add1(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + 1000 $$;
SELECT * FROM v ORDER BY k;
-- A materialized view computes with the function, built from the rows.
CREATE MATERIALIZED VIEW mv AS SELECT add1(k) AS a, count(*) AS n FROM t GROUP BY add1(k);
SELECT * FROM mv ORDER BY a;
-- Index expressions and generated columns: PostgreSQL judges a call
-- by its body once inlined, and trusts an IMMUTABLE function whose
-- body is not.
CREATE FUNCTION vol_body_imm(a int) RETURNS int LANGUAGE sql VOLATILE AS $$ SELECT a * 2 $$;
CREATE FUNCTION imm_decl(a int) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT format('%s!', a) $$;
CREATE FUNCTION stable_now(a int) RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT now() $$;
CREATE TABLE g (k int PRIMARY KEY, d int GENERATED ALWAYS AS (vol_body_imm(k)) STORED, e int DEFAULT twice(3) CHECK (add1(e) > 0));
CREATE INDEX g_imm ON g (imm_decl(k));
CREATE INDEX g_fmt ON g (format('%s!', k));
CREATE INDEX g_now ON g (stable_now(k));
CREATE TABLE g2 (k int PRIMARY KEY, d timestamptz GENERATED ALWAYS AS (stable_now(k)) STORED);
INSERT INTO g (k) VALUES (1), (2);
SELECT * FROM g ORDER BY k;
DROP FUNCTION vol_body_imm(int);
DROP FUNCTION imm_decl(int);
DROP FUNCTION twice(int);
DROP TABLE g;
DROP FUNCTION vol_body_imm(int), imm_decl(int), stable_now(int);
-- The catalog.
SELECT proname, prolang, prosrc, prorettype::regtype, proargtypes, provolatile, proisstrict, prokind, pronargs
FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname, proargtypes::text;
SELECT pg_get_functiondef('twice'::regproc);
SELECT pg_get_functiondef('mul'::regproc);
SELECT pg_get_functiondef('greet'::regproc);
SELECT pg_get_function_arguments('greet'::regproc), pg_get_function_result('greet'::regproc);
SELECT 'add1(bigint)'::regprocedure, 'twice'::regproc;
\df add1
\df greet
-- DROP FUNCTION.
DROP FUNCTION add1;
DROP FUNCTION add1(int);
DROP MATERIALIZED VIEW mv;
DROP FUNCTION add1(int);
DROP FUNCTION nosuch(int);
DROP FUNCTION twice(text);
DROP FUNCTION add1(bigint), mul(int, int);
CREATE VIEW v2 AS SELECT k FROM v;
DROP FUNCTION add1(int) CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('v', 'v2');
SELECT add1(1);
DROP FUNCTION IF EXISTS twice(int), to_num(int);
DROP FUNCTION IF EXISTS twice(int);
\df
-- Functions in a schema of their own, and DROP SCHEMA.
CREATE SCHEMA s;
CREATE FUNCTION s.f(a int) RETURNS int LANGUAGE sql AS $$ SELECT a * 5 $$;
CREATE TABLE s.t (k int PRIMARY KEY);
SELECT s.f(2);
SELECT f(2);
SELECT public.lower('A'), nosuch.f(1);
DROP SCHEMA s;
DROP SCHEMA s CASCADE;
SELECT s.f(2);
-- EXECUTE is PUBLIC's until revoked; the owner keeps it.
CREATE FUNCTION sub1(a int) RETURNS int LANGUAGE sql AS $$ SELECT a - 1 $$;
CREATE ROLE fn_user LOGIN;
SELECT proacl FROM pg_proc WHERE proname = 'sub1';
REVOKE EXECUTE ON FUNCTION sub1(int) FROM PUBLIC;
SELECT proacl FROM pg_proc WHERE proname = 'sub1';
SET ROLE fn_user;
SELECT sub1(1);
RESET ROLE;
GRANT EXECUTE ON FUNCTION sub1(int) TO fn_user;
SELECT proacl FROM pg_proc WHERE proname = 'sub1';
SET ROLE fn_user;
SELECT sub1(1);
RESET ROLE;
GRANT SELECT ON FUNCTION sub1(int) TO fn_user;
GRANT EXECUTE ON FUNCTION sub1(text) TO fn_user;
\df+ sub1
REVOKE ALL ON FUNCTION sub1 FROM fn_user;
SELECT proacl FROM pg_proc WHERE proname = 'sub1';
DROP FUNCTION sub1(int);
DROP ROLE fn_user;
-- A RETURN body's calls are dependencies, as PostgreSQL records them.
CREATE FUNCTION g(a int) RETURNS int RETURN a * 2;
CREATE FUNCTION f(a int) RETURNS int RETURN g(a) + 1;
SELECT f(4);
DROP FUNCTION g(int);
DROP FUNCTION g(int), f(int);
-- Stored expressions print the user function calls, not their bodies.
CREATE FUNCTION norm(e text) RETURNS text LANGUAGE sql IMMUTABLE RETURN lower(trim(e));
CREATE FUNCTION five() RETURNS int LANGUAGE sql RETURN 5;
CREATE TABLE users (id int PRIMARY KEY, email text CHECK (norm(email) <> ''), k int DEFAULT five(), n text GENERATED ALWAYS AS (norm(email) || 'x') STORED);
CREATE UNIQUE INDEX ON users ((norm(email)));
CREATE INDEX users_part ON users (id) WHERE norm(email) > 'a';
\d users
SELECT pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid = 'users'::regclass ORDER BY adnum;
SELECT indexdef FROM pg_indexes WHERE tablename = 'users' ORDER BY indexname;
SELECT pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'users'::regclass AND contype = 'c';
SELECT column_default FROM information_schema.columns WHERE table_name = 'users' ORDER BY ordinal_position;
INSERT INTO users (id, email) VALUES (1, ' A@B ');
INSERT INTO users (id, email) VALUES (2, 'a@b');
INSERT INTO users (id, email) VALUES (3, ' ');
SELECT * FROM users;
DROP TABLE users;
-- Named and mixed argument notation.
CREATE FUNCTION f_named(a int, b int) RETURNS int LANGUAGE sql RETURN a - b;
SELECT f_named(b => 1, a => 10), f_named(10, b => 1), f_named(a := 7, b := 2);
SELECT f_named(10, c => 1);
SELECT f_named(b => 1, 10);
SELECT f_named(10, a => 1);
SELECT f_named(a => 1, a => 2);
SELECT f_named(a => 1);
CREATE FUNCTION f_pos(int, b int) RETURNS int LANGUAGE sql RETURN $1 * b;
SELECT f_pos(3, b => 4);
SELECT f_pos(b => 4, 3);
CREATE VIEW v_named AS SELECT f_named(b => 1, a => 10) AS x, f_named(10, b => 2) AS y;
SELECT * FROM v_named;
SELECT pg_get_viewdef('v_named');
DROP VIEW v_named;
DROP FUNCTION f_named, f_pos;
-- DROP FUNCTION ... CASCADE drops the defaults, CHECK constraints,
-- generated columns and indexes that call it.
CREATE FUNCTION seven() RETURNS int LANGUAGE sql IMMUTABLE RETURN 7;
CREATE TABLE fd (id int PRIMARY KEY, k int DEFAULT seven(), c int CHECK (c > seven()), g int GENERATED ALWAYS AS (id + seven()) STORED);
CREATE INDEX fd_idx ON fd ((id + seven()));
INSERT INTO fd (id, c) VALUES (1, 8);
DROP FUNCTION seven();
DROP FUNCTION seven() CASCADE;
\d fd
SELECT * FROM fd;
DROP TABLE fd;
-- Calls in named notation in stored expressions, and a RETURN body
-- calling another function.
CREATE FUNCTION sub2(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE RETURN a - b;
CREATE FUNCTION twice2(x int) RETURNS int RETURN sub2(b => 0, a => x) * 2;
CREATE TABLE fn2 (id int PRIMARY KEY, k int DEFAULT sub2(b => 1, a => 10), c int CHECK (sub2(c, b => 1) >= 0));
CREATE INDEX fn2_idx ON fn2 (sub2(id, b => 2));
\d fn2
\sf twice2
SELECT twice2(4);
INSERT INTO fn2 (id, c) VALUES (1, 0);
DROP TABLE fn2;
DROP FUNCTION twice2, sub2;
-- DROP FUNCTION ... CASCADE through a generated column to what reads it.
CREATE FUNCTION eight() RETURNS int LANGUAGE sql IMMUTABLE RETURN 8;
CREATE TABLE fg (id int PRIMARY KEY, g int GENERATED ALWAYS AS (id * eight()) STORED, h int DEFAULT eight());
CREATE INDEX fg_g ON fg (g);
CREATE VIEW fgv AS SELECT id, g FROM fg;
CREATE TABLE fh (id int PRIMARY KEY, h int DEFAULT eight());
INSERT INTO fg (id) VALUES (1);
DROP FUNCTION eight() CASCADE;
\d fg
\d fh
SELECT * FROM fg;
DROP TABLE fg, fh;

-- DROP SCHEMA ... CASCADE takes what uses the schema's functions in
-- other schemas, as DROP FUNCTION ... CASCADE does.
create schema fs1;
create function fs1.f(x int) returns int language sql return x + 1;
create table fs1.t (a int default fs1.f(1));
create table fpt (a int default fs1.f(2), b int check (fs1.f(b) > 0));
create view fpv as select fs1.f(a) from fpt;
create materialized view fpm as select fs1.f(a) c from fpt;
create table fgc (a int, b int generated always as (fs1.f(a)) stored);
create view fgcv as select b from fgc;
drop schema fs1;
drop schema fs1 cascade;
\d fpt
\d fgc
select * from fgcv;
drop table fpt, fgc;

-- A dropped schema's indexes go with their tables, unnamed.
create schema sx;
create table sx.t (a int primary key, b int);
create index t_b on sx.t (b);
create view sx.v as select a from sx.t;
drop schema sx;
drop schema sx cascade;
