-- A view calling nextval, currval or setval on a sequence follows it
-- through ALTER SEQUENCE ... RENAME TO, as PostgreSQL's regclass
-- constant holds the sequence's oid: the view keeps working, on the
-- same sequence when another takes the old name, and \d+ and
-- pg_get_viewdef print the new name (qualified when the search path
-- does not find it). A column default follows too.
CREATE SCHEMA sc96;
CREATE SEQUENCE sq96;
CREATE SEQUENCE "Mixed 96";
CREATE SEQUENCE sc96.q96;
CREATE TABLE t96 (id bigint DEFAULT nextval('sq96'), a int);
INSERT INTO t96 (a) VALUES (1), (2);
CREATE VIEW v96a AS SELECT nextval('sq96') AS n;
CREATE VIEW v96b AS SELECT a, nextval('sq96'::regclass) AS n FROM t96;
CREATE VIEW v96c AS SELECT currval('public.sq96') AS c;
CREATE VIEW v96d AS SELECT n + 100 AS m FROM v96a;
CREATE VIEW v96e AS SELECT 'nextval(''sq96'')' AS txt, nextval('"Mixed 96"') AS n;
CREATE VIEW v96f AS SELECT setval('sc96.q96', 10) AS s;
-- A view reading the sequence as a relation too (its definition is not
-- deparsed by weir, so not printed here).
CREATE VIEW v96g AS SELECT last_value, nextval('sq96') AS n FROM sq96;
SET search_path = sc96, public;
CREATE VIEW public.v96h AS SELECT nextval('q96') AS n;
RESET search_path;
SELECT * FROM v96a;
ALTER SEQUENCE sq96 RENAME TO sq96_renamed;
ALTER SEQUENCE "Mixed 96" RENAME TO "Other 96";
ALTER SEQUENCE sc96.q96 RENAME TO q96_renamed;
INSERT INTO t96 (a) VALUES (3);
SELECT * FROM t96 ORDER BY a;
SELECT * FROM v96a;
SELECT * FROM v96b ORDER BY a;
SELECT * FROM v96c;
SELECT * FROM v96d;
SELECT * FROM v96e;
SELECT * FROM v96f;
SELECT * FROM v96g;
SELECT * FROM v96h;
\d+ v96a
\d+ v96b
\d+ v96c
\d+ v96e
\d+ v96f
\d+ v96h
SELECT pg_get_viewdef('v96b'::regclass);
\d t96
-- The old name now names another sequence; the views keep theirs.
CREATE SEQUENCE sq96;
SELECT * FROM v96a;
SELECT nextval('sq96');
ALTER SEQUENCE sq96_renamed RENAME TO sq96_again;
SELECT * FROM v96d;
SELECT pg_get_viewdef('v96a'::regclass);
DROP VIEW v96d, v96a, v96b, v96c, v96e, v96f, v96g, v96h;
DROP TABLE t96;
DROP SEQUENCE sq96, sq96_again, "Other 96";
DROP SCHEMA sc96 CASCADE;
