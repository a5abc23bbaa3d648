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
