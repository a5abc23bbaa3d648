-- Small differences from PostgreSQL, each a case of its own.
-- ADD COLUMN with a volatile DEFAULT on a table with rows: the table is
-- rewritten, each row given a value of its own; a materialized view over
-- the table keeps working.
CREATE TABLE vd (k int PRIMARY KEY, v text);
INSERT INTO vd SELECT g, 'row ' || g FROM generate_series(1, 300) g;
CREATE MATERIALIZED VIEW vd_count AS SELECT count(*) AS n, max(v) AS mx FROM vd;
ALTER TABLE vd ADD COLUMN id uuid DEFAULT gen_random_uuid();
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids, count(id) AS non_null FROM vd;
ALTER TABLE vd ADD COLUMN r float8 DEFAULT random() NOT NULL;
SELECT count(*) AS n, count(DISTINCT r) > 250 AS mostly_distinct, min(r) >= 0 AND max(r) < 1 AS in_range FROM vd;
ALTER TABLE vd ADD COLUMN at timestamptz DEFAULT clock_timestamp();
SELECT count(at) AS non_null, min(at) <= max(at) AS ordered FROM vd;
SELECT * FROM vd_count;
INSERT INTO vd (k, v) VALUES (301, 'row 301');
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids, count(r) AS rs, count(at) AS ats FROM vd;
SELECT k, v FROM vd WHERE k IN (1, 300, 301) ORDER BY k;
\d vd
-- The default's errors refuse the statement and leave the table as it was.
ALTER TABLE vd ADD COLUMN bad int DEFAULT (random() * 0)::int / 0;
SELECT count(*) FROM information_schema.columns WHERE table_name = 'vd';
ALTER TABLE vd ADD COLUMN nn int DEFAULT (CASE WHEN random() < 2 THEN NULL ELSE 1 END) NOT NULL;
-- Together with other actions.
ALTER TABLE vd ADD COLUMN id2 uuid DEFAULT gen_random_uuid(), ADD COLUMN c int DEFAULT 7;
SELECT count(DISTINCT id2) AS distinct_ids, sum(c) AS c FROM vd;
-- A view binds its table's columns by number: after RENAME COLUMN it
-- reads the renamed column, its output column keeping the old name.
CREATE TABLE rc (a int, b text);
INSERT INTO rc VALUES (1, 'x'), (2, 'y');
CREATE VIEW rc_v AS SELECT a, b, a + 1 AS a1 FROM rc WHERE a > 0;
CREATE VIEW rc_star AS SELECT * FROM rc;
ALTER TABLE rc RENAME COLUMN a TO renamed;
SELECT * FROM rc_v ORDER BY a;
SELECT * FROM rc_star ORDER BY a;
ALTER TABLE rc RENAME COLUMN b TO "B b";
SELECT * FROM rc_v ORDER BY a;
SELECT attname FROM pg_attribute WHERE attrelid = 'rc_v'::regclass AND attnum > 0 ORDER BY attnum;
-- format_type applies the type modifier as PostgreSQL does.
SELECT format_type('numeric'::regtype, 655366) AS num, format_type('numeric'::regtype, -1) AS num_none,
       format_type('numeric'::regtype, NULL) AS num_null, format_type('varchar'::regtype, 9) AS vc,
       format_type('bpchar'::regtype, 9) AS bpc, format_type('uuid'::regtype, 5) AS uuid5,
       format_type('int4'::regtype, 7) AS int7, format_type('text'::regtype, -1) AS txt;
SELECT format_type('timestamp'::regtype, 3) AS ts, format_type('timestamptz'::regtype, 0) AS tstz,
       format_type('time'::regtype, 2) AS t, format_type('interval'::regtype, 4) AS iv,
       format_type('_numeric'::regtype, 655366) AS num_arr, format_type('_varchar'::regtype, 14) AS vc_arr,
       format_type('numeric'::regtype, 4) AS numsmall, format_type('varchar'::regtype, 3) AS vc3, format_type('bpchar'::regtype, -1) AS bpc_none;
SELECT format_type('interval'::regtype, 4);
SELECT format_type('interval'::regtype, 2147418115) AS iv3, format_type('interval'::regtype, 458751) AS ym,
       format_type('"char"'::regtype, 3) AS ch, format_type('name'::regtype, 3) AS nm, format_type('jsonb'::regtype, -1) AS jb,
       format_type('_uuid'::regtype, 7) AS ua, format_type('character varying(3)'::regtype, NULL) AS vc_named,
       format_type('pg_catalog.int8'::regtype, NULL) AS i8, format_type(0, NULL) AS zero;
SELECT 'no_such_type'::regtype;
SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
  WHERE a.attrelid = 'vd'::regclass AND a.attnum > 0 ORDER BY a.attnum;
CREATE TABLE ft (n numeric(10,2), v varchar(5), c char(3), ts timestamp(3), u uuid, a numeric(4)[], iv interval(3), i8 int8, b bool);
SELECT a.attname, a.atttypmod, format_type(a.atttypid, a.atttypmod), a.attalign, a.attlen, a.attbyval FROM pg_attribute a
  WHERE a.attrelid = 'ft'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT typname, typlen, typbyval, typalign, typstorage FROM pg_type
  WHERE typname IN ('bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bpchar',
                    'bytea', 'uuid', 'date', 'time', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb',
                    '_text', '_uuid', '_bpchar', 'oid', 'name', 'char', 'unknown')
  ORDER BY typname;
-- FULL JOIN with constant booleans beside the equality.
CREATE TABLE fj1 (a int, x text);
CREATE TABLE fj2 (a int, y text);
INSERT INTO fj1 VALUES (1, 'one'), (2, 'two'), (NULL, 'null');
INSERT INTO fj2 VALUES (2, 'deux'), (3, 'trois');
SELECT * FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a OR false ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a AND true ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON false OR fj1.a = fj2.a ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON true AND fj1.a = fj2.a AND NOT false ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON (fj1.a = fj2.a OR false) AND (true OR fj1.x = 'z') ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a OR fj1.x = 'z' ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a AND (false OR fj1.x <> 'two') ORDER BY 1, 3;
SELECT * FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a OR NOT true OR NULL ORDER BY 1, 3;
CREATE MATERIALIZED VIEW fj_mv AS SELECT fj1.a AS l, x, fj2.a AS r, y FROM fj1 FULL JOIN fj2 ON fj1.a = fj2.a OR false;
SELECT * FROM fj_mv ORDER BY 1, 3;
-- LEFT JOIN LATERAL of a set-returning function in a materialized view:
-- rows whose function returns no rows are kept, NULL-padded.
CREATE TABLE lat (k int PRIMARY KEY, arr int[], n int);
INSERT INTO lat VALUES (1, '{10,20}', 2), (2, '{}', 0), (3, NULL, NULL), (4, '{40}', 1);
CREATE MATERIALIZED VIEW lat_u AS SELECT t.k, x FROM lat t LEFT JOIN LATERAL unnest(t.arr) AS x ON true;
CREATE MATERIALIZED VIEW lat_g AS SELECT t.k, g FROM lat t LEFT JOIN LATERAL generate_series(1, t.n) g ON true;
SELECT * FROM lat_u ORDER BY k, x;
SELECT * FROM lat_g ORDER BY k, g;
SELECT t.k, x FROM lat t LEFT JOIN LATERAL unnest(t.arr) AS x ON true ORDER BY k, x;
SELECT t.k, g FROM lat t LEFT JOIN LATERAL generate_series(1, t.n) g ON true ORDER BY k, g;
-- Changes flow through: a row gaining elements loses its NULL row, one
-- losing them gains it, a deleted row takes its rows along (REFRESH
-- makes PostgreSQL's views catch up; weir's are already there).
UPDATE lat SET arr = '{5}', n = 1 WHERE k = 2;
UPDATE lat SET arr = '{}', n = 0 WHERE k = 1;
DELETE FROM lat WHERE k = 3;
INSERT INTO lat VALUES (5, NULL, -1), (6, '{60,61,62}', 3);
UPDATE lat SET k = 7 WHERE k = 4;
REFRESH MATERIALIZED VIEW lat_u;
REFRESH MATERIALIZED VIEW lat_g;
SELECT * FROM lat_u ORDER BY k, x;
SELECT * FROM lat_g ORDER BY k, g;
SELECT count(*) FROM lat t LEFT JOIN LATERAL unnest(t.arr) AS x ON true;
