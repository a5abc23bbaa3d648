-- regproc and regprocedure input reads names as PostgreSQL's
-- stringToQualifiedNameList and parseNameAndArgTypes do: quoted names
-- (blanks, "", a "(" inside quotes), blanks, qualified names, user
-- functions and built-ins, and the same errors.
CREATE FUNCTION "my func"(int) RETURNS int LANGUAGE sql RETURN $1;
CREATE FUNCTION "we""ird"(int, text) RETURNS int LANGUAGE sql RETURN $1;
CREATE FUNCTION "MyF"(x int) RETURNS int LANGUAGE sql RETURN x + 1;
CREATE FUNCTION plain(x int) RETURNS int LANGUAGE sql RETURN x + 1;
SELECT '"my func"(int)'::regprocedure, '"my func"'::regproc;
SELECT '"we""ird"(integer, text)'::regprocedure, '"we""ird"'::regproc;
SELECT '"MyF"(int)'::regprocedure, '"MyF"'::regproc, 'public."MyF"(int4)'::regprocedure;
SELECT 'myf(int)'::regprocedure;
SELECT ' plain ( integer ) '::regprocedure, 'PLAIN(int)'::regprocedure, '"public".plain'::regproc;
SELECT '"my func(int)'::regprocedure;
SELECT 'plain(int'::regprocedure;
SELECT 'nosuch(int)'::regprocedure;
SELECT '"my func"'::regproc::oid = '"my func"(int)'::regprocedure::oid;
SELECT pg_get_functiondef('"we""ird"'::regproc);
SELECT '"MyF"(int)'::regprocedure::text, 'plain'::regproc::regprocedure;
SELECT to_regproc('"my func"'), to_regprocedure('"my func"(int)'), to_regprocedure('nosuch(int)');
CREATE FUNCTION num(numeric(10,2), int[]) RETURNS int LANGUAGE sql RETURN 1;
SELECT 'pg_catalog.abs(int)'::regprocedure, 'abs(integer)'::regprocedure, 'concat("any")'::regprocedure;
SELECT 'abs'::regproc;
SELECT 'num(numeric(10,2), int[])'::regprocedure, 'num ( numeric , integer [] )'::regprocedure;
SELECT 'num(numeric,)'::regprocedure;
SELECT 'num(numeric(10,2)'::regprocedure;
SELECT 'num("numeric)'::regprocedure;
SELECT 'a.b.c.d(int)'::regprocedure;
SELECT 'nosuch.f(int)'::regprocedure;
SELECT 'nosuch.f'::regproc;
SELECT 'pg_catalog."my func"(int)'::regprocedure;
SELECT 'public."my func"'::regproc, 'public.abs'::regproc;
SELECT '"my func'::regproc;
SELECT ''::regproc;
SELECT 'f(nosuchtype)'::regprocedure;
SELECT '"my func"()'::regprocedure;
SELECT to_regproc('abs'), to_regproc('public."my func"'), to_regprocedure('"my func"(int4)'), to_regprocedure('num(numeric,int[])');
SELECT to_regprocedure('x');
SELECT 'format(text,"any")'::regprocedure;
-- A utility statement's expressions have no parameters, and a sequence
-- function's literal names a sequence that must exist (a regclass),
-- both checked when the DEFAULT, CHECK, generation or index expression
-- is set.
CREATE TABLE t1 (a int CHECK (a > $1));
CREATE TABLE t2 (a int, CONSTRAINT c CHECK (a > $1));
CREATE TABLE t3 (a int GENERATED ALWAYS AS ($1) STORED);
CREATE TABLE t4 (a int);
ALTER TABLE t4 ADD CONSTRAINT c CHECK (a > $1);
ALTER TABLE t4 ALTER COLUMN a TYPE bigint USING a + $1;
CREATE INDEX ON t4 ((a + $1));
CREATE INDEX ON t4 (a) WHERE a > $1;
CREATE DOMAIN d AS int DEFAULT $1;
CREATE DOMAIN d2 AS int CHECK (VALUE > $1);
CREATE TABLE t5 (a int DEFAULT (1 + $3) * 2);
CREATE TABLE ta (a int DEFAULT nextval('nosuch'));
CREATE TABLE tb (a int DEFAULT nextval('public.nosuch'::regclass));
CREATE TABLE tc (a int DEFAULT nextval('"NoSuch"'));
CREATE TABLE td (a int DEFAULT 1 + currval('a.b.c.d'));
CREATE SEQUENCE s;
CREATE SEQUENCE "Seq 2";
CREATE TABLE t (a int DEFAULT nextval('s'), b int DEFAULT currval('public.s'), c bigint DEFAULT nextval('"Seq 2"'::regclass), d int DEFAULT pg_catalog.nextval('S'), e serial);
CREATE TABLE t2 (a int);
ALTER TABLE t2 ALTER COLUMN a SET DEFAULT nextval('nosuch');
ALTER TABLE t2 ADD COLUMN c int DEFAULT nextval('nosuch2');
ALTER TABLE t2 ALTER COLUMN a SET DEFAULT nextval('t_e_seq');
CREATE TABLE t5 (a int DEFAULT setval('nosuch', 1));
SELECT 'nosuch'::regclass;
SELECT '"No.such"'::regclass;
SELECT 'public."No.such"'::regclass;
SELECT 'a.b.c.d'::regclass;
SELECT '"x'::regclass;
SELECT 't'::regclass, 'public.t'::regclass, '"t"'::regclass, ' t '::regclass;
INSERT INTO t DEFAULT VALUES RETURNING *;
INSERT INTO t2 DEFAULT VALUES RETURNING *;
\d t
\d t2
-- A serial column's sequence exists when the DEFAULTs are checked.
CREATE TABLE se (a int DEFAULT nextval('se_b_seq'), b serial, c int DEFAULT currval('public.se_b_seq'::regclass));
INSERT INTO se DEFAULT VALUES RETURNING *;
