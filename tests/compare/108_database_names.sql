-- A database-qualified relation name in a regclass literal, to_regclass
-- and OWNED BY must name this database, as PostgreSQL's
-- RangeVarGetRelid requires (0A000 "cross-database references are not
-- implemented"); more names are 42601. Errors in the query of EXPLAIN,
-- CREATE VIEW ... AS and CREATE TABLE ... AS are placed in the
-- statement's text.
CREATE TABLE t108 (a int);
SELECT 'dev.public.t108'::regclass;
SELECT '"dev".public.t108'::regclass;
SELECT 'nodb.public.t108'::regclass;
SELECT '"DEV".public.t108'::regclass;
SELECT 'nodb.nosch.nosuch'::regclass;
SELECT 'a.b.c.d'::regclass;
SELECT to_regclass('dev.public.t108');
SELECT to_regclass('nodb.public.t108');
SELECT to_regclass('dev.public.nosuch');
SELECT count(*) FROM pg_class WHERE oid = 'nodb.public.t108'::regclass;
CREATE SEQUENCE s108 OWNED BY nodb.public.t108.a;
CREATE SEQUENCE s108 OWNED BY x.nodb.public.t108.a;
CREATE SEQUENCE s108 OWNED BY dev.public.t108.a;
ALTER SEQUENCE s108 OWNED BY nodb.public.t108.a;
ALTER SEQUENCE s108 OWNED BY dev.public.t108.nosuch;
SELECT pg_get_serial_sequence('t108', 'a');
CREATE VIEW v108 AS SELECT * FROM nodb.public.t108;
CREATE VIEW v108 AS SELECT a FROM t108 WHERE a IN (SELECT a FROM nodb.public.t108);
CREATE MATERIALIZED VIEW m108 AS SELECT * FROM nodb.public.t108;
CREATE MATERIALIZED VIEW m108 AS SELECT nosuch FROM t108 WITH NO DATA;
CREATE TABLE c108 AS SELECT * FROM nodb.public.t108;
CREATE TABLE c108 AS SELECT * FROM public.nosuch;
EXPLAIN SELECT * FROM nodb.public.t108;
EXPLAIN SELECT * FROM t108, public.nosuch;
CREATE VIEW v108 AS SELECT 'nodb.public.t108'::regclass;
CREATE VIEW v108 AS SELECT 1 FROM t108 JOIN t108 x USING (nosuch);
\set VERBOSITY sqlstate
SELECT 'nodb.public.t108'::regclass;
ALTER SEQUENCE s108 OWNED BY nodb.public.t108.a;
\set VERBOSITY default
DROP TABLE t108;
SELECT relname FROM pg_class WHERE relname = 's108';
