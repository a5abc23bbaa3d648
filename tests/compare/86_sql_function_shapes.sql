-- SQL function bodies of no column, and calls whose inlined body is an
-- argument as it is, or a constant, printed back by pg_get_viewdef.
CREATE FUNCTION nocol(x int) RETURNS int LANGUAGE sql AS $$ SELECT $$;
CREATE FUNCTION nocol(x int) RETURNS int LANGUAGE sql AS $$ SELECT FROM pg_class $$;
CREATE FUNCTION nocol() RETURNS int LANGUAGE sql AS $$ $$;
CREATE FUNCTION nocol() RETURNS int LANGUAGE sql AS $$ ; $$;
CREATE FUNCTION nocol(x int) RETURNS int LANGUAGE sql AS $$ SELECT x, x $$;
SELECT count(*) FROM pg_proc WHERE proname = 'nocol';
CREATE FUNCTION idf(x int) RETURNS int RETURN x;
CREATE FUNCTION add1(x int) RETURNS int RETURN x + 1;
CREATE FUNCTION k7(x int) RETURNS int RETURN 7;
CREATE VIEW v AS SELECT idf(add1(1)) AS a, idf(idf(5)) AS b, add1(idf(2)) AS c, k7(1) AS d, k7(2) AS e;
SELECT * FROM v;
SELECT pg_get_viewdef('v');
