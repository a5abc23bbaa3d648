-- A float sum, average or variance past the type's range fails as
-- float8pl and float8_accum do; an infinite input is no overflow.
SELECT sum(x) FROM (VALUES (1e308::float8), (1e308::float8)) t(x);
SELECT avg(x) FROM (VALUES (1e308::float8), (1e308::float8)) t(x);
SELECT sum(x) FROM (VALUES ('Infinity'::float8), (1::float8)) t(x);
SELECT sum(x) FROM (VALUES (1e308::float8), (1e308::float8), ('NaN'::float8)) t(x);
SELECT sum(x) FROM (VALUES (3e38::float4), (3e38::float4)) t(x);
SELECT avg(x) FROM (VALUES (3e38::float4), (3e38::float4)) t(x);
SELECT variance(x) FROM (VALUES (1e200::float8), (-1e200::float8)) t(x);
SELECT stddev(x) FROM (VALUES (1e300::float8), (1e300::float8)) t(x);
SELECT var_pop(x) FROM (VALUES (1e154::float8), (-1e154::float8)) t(x);
-- A column default follows its sequence through a rename.
CREATE SEQUENCE s1;
CREATE TABLE t1 (id bigint DEFAULT nextval('s1'), v int, w bigint DEFAULT nextval('public.s1'::regclass));
INSERT INTO t1 (v) VALUES (1);
ALTER SEQUENCE s1 RENAME TO "S 2";
INSERT INTO t1 (v) VALUES (2);
SELECT * FROM t1 ORDER BY v;
\d t1
ALTER SEQUENCE IF EXISTS nope RENAME TO nope2;
ALTER SEQUENCE t1 RENAME TO t9;
ALTER SEQUENCE "S 2" RENAME TO t1;
CREATE TABLE "T 2" ("Col x" bigint DEFAULT nextval('"S 2"'));
DROP SEQUENCE "S 2";
-- ALTER INDEX renames an index, and any relation as ALTER TABLE does.
CREATE TABLE t3 (a int, b int);
CREATE INDEX t3_a ON t3 (a);
ALTER INDEX t3_a RENAME TO t3_a2;
ALTER INDEX IF EXISTS nope RENAME TO nope2;
ALTER INDEX nope RENAME TO nope2;
\d t3
ALTER INDEX t3 RENAME TO t4;
\d t4
SELECT 0::regclass, 0::regtype, 0::regproc;
