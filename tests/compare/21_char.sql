-- character(n): blank-padded on store and cast, trailing spaces ignored
-- by comparison, hashing, grouping and keys.
CREATE TABLE ch (c char(3), d character(5), e char, f bpchar);
\d ch
INSERT INTO ch VALUES ('a', 'ab', 'x', 'f  ');
INSERT INTO ch VALUES ('abc', 'abcde', 'y', 'g');
INSERT INTO ch VALUES ('ab  ', 'a    ', 'z ', 'h');
INSERT INTO ch VALUES ('abcd', 'a', 'x', 'i');
INSERT INTO ch VALUES ('ab', 'abcdef', 'x', 'i');
INSERT INTO ch (e) VALUES ('xy');
INSERT INTO ch (c) VALUES (NULL);
SELECT c, d, e, f, '[' || c || ']' AS cat, length(c), octet_length(c), char_length(d) FROM ch ORDER BY c, d;
SELECT c, count(*) FROM ch GROUP BY c ORDER BY c;
SELECT DISTINCT e FROM ch ORDER BY e;
SELECT c FROM ch WHERE c = 'a' ORDER BY c;
SELECT c FROM ch WHERE c = 'a  ' ORDER BY c;
SELECT c FROM ch WHERE c = 'ab'::char(2) ORDER BY c;
SELECT c FROM ch WHERE c < 'abc' ORDER BY c;
SELECT c FROM ch WHERE c IN ('a', 'abc') ORDER BY c;
-- Casts: explicit truncates, padding to the length.
SELECT 'ab'::char(4) AS a, 'abcdef'::char(3) AS b, 'ab'::char AS c, 'ab'::bpchar AS d, 'ab  '::bpchar AS e;
SELECT '[' || 'ab'::char(4) || ']' AS a, ('ab'::char(4))::text AS b, ('ab'::char(4))::varchar AS c, length('ab  '::char(4)), octet_length('ab'::char(4));
SELECT 'a'::char(3) = 'a  '::char(1), 'a'::char(3) = 'a', 'a '::char(3) < 'a'::char(3), 'a'::char(3) = 'a '::text;
SELECT cast('xyz' AS character(2)), cast(12345 AS char(3)), 42::char(5), upper('ab'::char(4)) || '|';
SELECT 'ab'::char(4)::char(2), 'a'::char(2)::char(4) || '|';
SELECT pg_typeof('a'::char(3)), pg_typeof('a'::bpchar), pg_typeof('a'::char(3) || 'b');
SELECT 'abc'::char(3) LIKE 'ab%', 'a'::char(3) LIKE 'a';
CREATE TABLE bad (c char(0));
-- Keys and joins: 'a' and 'a  ' are one key.
CREATE TABLE ck (k char(4) PRIMARY KEY, v int);
INSERT INTO ck VALUES ('a', 1), ('b ', 2);
INSERT INTO ck VALUES ('a  ', 3);
INSERT INTO ck VALUES ('a', 4) ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SELECT k, v, length(k), octet_length(k) FROM ck ORDER BY k;
SELECT * FROM ck WHERE k = 'b';
UPDATE ck SET k = 'c' WHERE k = 'b  ' RETURNING k, '[' || k || ']';
DELETE FROM ck WHERE k = 'c' RETURNING *;
CREATE TABLE cj (k char(2), w text);
INSERT INTO cj VALUES ('a', 'one'), ('a ', 'two'), ('z', 'three');
SELECT ck.k, cj.k, w FROM ck JOIN cj ON ck.k = cj.k ORDER BY w;
SELECT count(DISTINCT k) FROM cj;
SELECT k, string_agg(w, ',' ORDER BY w) FROM cj GROUP BY k ORDER BY k;
SELECT k FROM cj UNION SELECT k FROM ck ORDER BY 1;
SELECT k FROM cj INTERSECT SELECT k FROM ck;
-- A two-column key and a DESC index.
CREATE TABLE cu (k char(3), j char(2), PRIMARY KEY (k, j));
INSERT INTO cu VALUES ('q', 'r');
INSERT INTO cu VALUES ('q ', 'r ');
INSERT INTO cu VALUES ('q', 's'), ('p', 'r');
CREATE INDEX cu_desc ON cu (j DESC, k);
SELECT k, j, k || j AS cat FROM cu WHERE j = 'r' ORDER BY k DESC;
SELECT bpchar 'ab' = 'ab   ', 'ab'::character varying(2)::char(4) || '|';
CREATE INDEX cj_k ON cj (k);
SELECT w FROM cj WHERE k = 'a' ORDER BY w;
-- COPY in and out.
COPY cj FROM stdin;
b	four
bb	five
\.
COPY cj TO stdout;
COPY cj FROM stdin;
bbb	six
\.
SELECT * FROM cj ORDER BY w;
-- Materialized views.
INSERT INTO cj VALUES ('a  ', 'seven');
CREATE MATERIALIZED VIEW cm AS SELECT k, count(*) AS n FROM cj GROUP BY k;
SELECT k, n, '[' || k || ']' FROM cm ORDER BY k;
\d cm
CREATE MATERIALIZED VIEW cm2 AS SELECT cj.k, ck.v FROM cj JOIN ck ON cj.k = ck.k;
SELECT * FROM cm2 ORDER BY v;
SELECT column_name, data_type, character_maximum_length FROM information_schema.columns WHERE table_name = 'ch' ORDER BY ordinal_position;
SELECT attname, format_type(atttypid, atttypmod), atttypmod FROM pg_attribute WHERE attrelid = 'ch'::regclass AND attnum > 0 ORDER BY attnum;
DROP MATERIALIZED VIEW cm2;
DROP MATERIALIZED VIEW cm;
-- Parameters, common types and functions taking text.
PREPARE pc(char(3)) AS SELECT $1 || '|' AS a, length($1), octet_length($1);
EXECUTE pc('x');
EXECUTE pc('wxyz');
SELECT coalesce(c, 'none') || '|', CASE WHEN c = 'a' THEN c ELSE 'other' END || '|' FROM ch ORDER BY c;
SELECT k FROM cj UNION ALL SELECT 'zz'::char(4) ORDER BY 1;
SELECT trim(k) || '|', rpad(k, 4, '*'), position('b' IN k), replace(k, ' ', '_') FROM cj ORDER BY w;
SELECT min(k) || '|', max(k) || '|' FROM cj;
UPDATE cj SET k = 'long' WHERE w = 'one';
UPDATE cj SET k = 'lo  ' WHERE w = 'one';
SELECT k, w FROM cj WHERE w = 'one';
-- Mixed with varchar and text, functions, aggregates and arrays.
CREATE TABLE m (c char(4), v varchar(6), t text);
INSERT INTO m VALUES ('a', 'a', 'a'), ('b ', 'b  ', 'b '), ('12', '12', '12');
SELECT c = v, c = t, v = c, t = c, c < t, c || v || '|', concat(c, '|'), format('[%s]', c) FROM m ORDER BY c;
SELECT string_agg(c, ',' ORDER BY c) || '|' FROM m WHERE c <> 'b';
SELECT c::varchar(2) || '|', c::int, c::text || '|' FROM m WHERE c <> 'b' ORDER BY c;
SELECT c FROM m WHERE c IN (SELECT t FROM m);
SELECT c FROM m WHERE c IN (SELECT c FROM m WHERE c = 'b');
SELECT max(c), min(c), count(DISTINCT c) FROM m;
INSERT INTO m (c) SELECT t || 'xyz' FROM m WHERE t = 'a';
INSERT INTO m (c) SELECT t || 'xyz' FROM m WHERE t = '12';
SELECT c, v FROM m ORDER BY c DESC NULLS LAST;
SELECT c AS k, count(*) FROM (SELECT c FROM m UNION ALL SELECT v::char(4) FROM m) z GROUP BY c ORDER BY 1;
SELECT lpad(c, 6, '*'), upper(c), left(c, 2) || '|', substr(c, 1, 3) || '|', c LIKE 'b %', c ~ '^b $', md5(c) FROM m ORDER BY c;
SELECT 'a'::char(2) IS DISTINCT FROM 'a '::char(3), nullif('a'::char(3), 'a'), greatest('a'::char(3), 'b'), coalesce(NULL::char(2), 'x') || '|';
SELECT CASE 'a'::char(3) WHEN 'a' THEN 'yes' ELSE 'no' END;
SELECT array_agg(c ORDER BY c) FROM m;
SELECT '{a,bb}'::char(3)[], ARRAY['x'::char(2), 'yy'], pg_typeof(ARRAY['x'::char(2)]), ('{a,b}'::char(2)[])[1] || '|';
CREATE TABLE ma (id int PRIMARY KEY, cs char(2)[]);
INSERT INTO ma VALUES (1, '{a,bc}'), (2, ARRAY['d']);
INSERT INTO ma VALUES (3, '{abc}');
SELECT id, cs, cs[1] || '|' FROM ma ORDER BY id;
\d ma
