-- uuid: every input form uuid_in accepts and the ones it refuses,
-- lower-case hyphenated output, bytewise ordering, keys, joins, grouping,
-- casts, arrays and gen_random_uuid.
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS plain,
       'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid AS upper,
       '{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}'::uuid AS braces,
       'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid AS bare;
SELECT 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'::uuid AS every_four,
       '{a0eebc999c0b4ef8bb6d6bb9bd380a11}'::uuid AS bare_braces,
       'a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11'::uuid AS eight,
       'A0eeBC99-9c0B-4Ef8-bB6d-6Bb9Bd380A11'::uuid AS mixed;
SELECT '00000000-0000-0000-0000-000000000000'::uuid AS nil, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid AS max;
-- Refused: wrong length, bad digits, hyphens in the wrong place,
-- unbalanced braces, white space.
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1'::uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111'::uuid;
SELECT 'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-'::uuid;
SELECT '-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid;
SELECT '{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}'::uuid;
SELECT ' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 '::uuid;
SELECT ''::uuid;
SELECT '{}'::uuid;
SELECT 'a0eebc99 9c0b 4ef8 bb6d 6bb9bd380a11'::uuid;
SELECT uuid 'not-a-uuid';
-- Casts: to and from text and varchar; none from integers or bytea.
SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::text::uuid AS from_text,
       ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)::text AS to_text,
       CAST('A0EEBC999C0B4EF8BB6D6BB9BD380A11'::varchar AS uuid) AS from_varchar,
       CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS varchar(8)) AS to_varchar8;
SELECT 'x' || 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS cat,
       length('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::text) AS len,
       upper('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::text) AS up;
SELECT pg_typeof('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), format_type(2950, NULL), format_type(2951, NULL);
SELECT oid, typname, typlen, typcategory, typarray FROM pg_type WHERE typname IN ('uuid', '_uuid') ORDER BY oid;
SELECT CAST(1 AS uuid);
SELECT CAST('\x00'::bytea AS uuid);
SELECT CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS int);
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::text;
SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid = 'a0eebc999c0b4ef8bb6d6bb9bd380a11' AS eq,
       '00000000-0000-0000-0000-000000000001'::uuid < '00000000-0000-0000-0000-000000000002' AS lt,
       'ffffffff-0000-0000-0000-000000000000'::uuid > '0fffffff-ffff-ffff-ffff-ffffffffffff' AS gt,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid <> 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' AS ne;
-- A uuid primary key, ordering (bytewise, as memcmp), conflicts.
CREATE TABLE u (id uuid PRIMARY KEY, name text, ref uuid);
\d u
INSERT INTO u VALUES
  ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a', NULL),
  ('{00000000-0000-0000-0000-0000000000ff}', 'small', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  ('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'max', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  ('7fffffff-ffff-ffff-ffff-ffffffffffff', 'mid', '00000000-0000-0000-0000-0000000000ff'),
  ('80000000-0000-0000-0000-000000000000', 'mid2', NULL),
  ('0a0eebc9-99c0-b4ef-8bb6-d6bb9bd380a1', 'shifted', NULL);
INSERT INTO u VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'dup', NULL);
INSERT INTO u VALUES ('bad', 'bad', NULL);
INSERT INTO u VALUES ('a0eebc999c0b4ef8bb6d6bb9bd380a11', 'upserted', NULL)
  ON CONFLICT (id) DO UPDATE SET name = excluded.name;
INSERT INTO u VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ignored', NULL) ON CONFLICT DO NOTHING;
SELECT id, name FROM u ORDER BY id;
SELECT id, name FROM u ORDER BY id DESC;
SELECT name FROM u WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
SELECT name FROM u WHERE id = '{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}';
SELECT name FROM u WHERE id > '7fffffff-ffff-ffff-ffff-ffffffffffff' ORDER BY id;
SELECT name FROM u WHERE id BETWEEN '00000000-0000-0000-0000-000000000000' AND '80000000-0000-0000-0000-000000000000' ORDER BY name;
SELECT name FROM u WHERE id IN ('80000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff') ORDER BY name;
SELECT name FROM u WHERE id = 'nope';
UPDATE u SET ref = id WHERE name = 'mid2' RETURNING id, ref, id = ref AS same;
DELETE FROM u WHERE id = '0a0eebc9-99c0-b4ef-8bb6-d6bb9bd380a1' RETURNING name;
-- Joins, grouping, DISTINCT, set operations, count over uuids.
SELECT a.name, b.name AS refers_to FROM u a JOIN u b ON a.ref = b.id ORDER BY a.name;
SELECT a.name FROM u a LEFT JOIN u b ON a.ref = b.id WHERE b.id IS NULL ORDER BY a.name;
SELECT ref, count(*) FROM u GROUP BY ref ORDER BY ref NULLS FIRST;
SELECT DISTINCT ref FROM u ORDER BY ref;
SELECT count(DISTINCT ref), count(ref), count(*) FROM u;
SELECT id FROM u WHERE name IN ('a', 'max') UNION SELECT ref FROM u WHERE ref IS NOT NULL ORDER BY 1;
SELECT id FROM u INTERSECT SELECT ref FROM u ORDER BY 1;
SELECT id FROM u EXCEPT SELECT ref FROM u ORDER BY 1;
SELECT min(id) FROM u;
SELECT max(ref) FROM u;
-- A uuid column in an index, a table without a key, text columns taking
-- uuids by assignment.
CREATE TABLE ev (id uuid, at int, note text);
CREATE INDEX ev_id ON ev (id);
INSERT INTO ev VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1, 'x'),
  ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 2, 'y'),
  ('80000000-0000-0000-0000-000000000000', 3, 'z'), (NULL, 4, 'n');
SELECT id, string_agg(note, ',' ORDER BY at) AS notes, sum(at) FROM ev GROUP BY id ORDER BY id;
SELECT id, at FROM ev WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' ORDER BY at;
SELECT u.name, ev.at FROM u JOIN ev USING (id) ORDER BY ev.at;
CREATE TABLE t (s text, v varchar(40));
INSERT INTO t SELECT id, id FROM u WHERE name = 'upserted';
SELECT s, v FROM t;
INSERT INTO ev (id) SELECT s FROM t;
INSERT INTO ev (id) SELECT s::uuid FROM t;
SELECT count(*) FROM ev WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11';
-- Arrays of uuid.
SELECT ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL, '{00000000-0000-0000-0000-0000000000ff}'] AS arr;
SELECT '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11,a0eebc999c0b4ef8bb6d6bb9bd380a11}'::uuid[] AS arr;
SELECT '{nope}'::uuid[];
SELECT array_agg(id ORDER BY id) FROM u;
SELECT pg_typeof(array_agg(id)) FROM u;
SELECT name FROM u WHERE id = ANY ('{80000000-0000-0000-0000-000000000000,ffffffff-ffff-ffff-ffff-ffffffffffff}'::uuid[]) ORDER BY name;
-- gen_random_uuid: a version 4, RFC 4122 variant uuid per call.
SELECT gen_random_uuid() IS NOT NULL AS not_null, length(gen_random_uuid()::text) AS len,
       substring(gen_random_uuid()::text, 15, 1) AS version,
       substring(gen_random_uuid()::text, 20, 1) IN ('8', '9', 'a', 'b') AS variant,
       pg_typeof(gen_random_uuid());
SELECT gen_random_uuid() = gen_random_uuid() AS same;
SELECT count(DISTINCT g) AS distinct_per_row FROM (SELECT gen_random_uuid() AS g FROM generate_series(1, 100)) s;
SELECT count(*) FROM (SELECT gen_random_uuid()::text AS g FROM generate_series(1, 50)) s
  WHERE g ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';
CREATE TABLE g (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, n int);
INSERT INTO g (n) SELECT i FROM generate_series(1, 20) i;
SELECT count(*), count(DISTINCT id), min(n), max(n) FROM g;
SELECT gen_random_uuid(1);
-- Type resolution with untyped literals, PREPARE, COPY, the catalog.
SELECT COALESCE(ref, '00000000-0000-0000-0000-000000000000') AS c, pg_typeof(COALESCE(ref, '00000000-0000-0000-0000-000000000000'))
  FROM u WHERE name = 'a' OR name = 'upserted';
SELECT CASE WHEN true THEN 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid ELSE 'ffffffff-ffff-ffff-ffff-ffffffffffff' END AS c;
SELECT id FROM u WHERE name = 'max' UNION ALL SELECT '{11111111-1111-1111-1111-111111111111}' ORDER BY 1;
SELECT NULLIF('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11') AS n,
       GREATEST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 'ffffffff-0000-0000-0000-000000000000') AS g,
       LEAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '0fffffff-0000-0000-0000-000000000000') AS l;
PREPARE byid(uuid) AS SELECT name FROM u WHERE id = $1;
EXECUTE byid('A0EEBC999C0B4EF8BB6D6BB9BD380A11');
EXECUTE byid('not a uuid');
DEALLOCATE byid;
CREATE TABLE cp (k uuid, n int, tags uuid[], PRIMARY KEY (k, n));
COPY cp FROM stdin;
a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11	1	{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}
{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}	2	{}
00000000000000000000000000000001	1	\N
\.
COPY cp FROM stdin;
zz	3	\N
\.
INSERT INTO cp VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1, NULL);
SELECT k, n, tags, cardinality(tags) FROM cp ORDER BY k DESC, n DESC;
SELECT k, count(*) FROM cp GROUP BY k ORDER BY k;
SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'cp' ORDER BY ordinal_position;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'cp'::regclass AND attnum > 0 ORDER BY attnum;
\d cp
-- Changing a column's type to and from uuid.
CREATE TABLE at (s text, v varchar(40));
INSERT INTO at VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{00000000-0000-0000-0000-0000000000ff}');
ALTER TABLE at ALTER COLUMN s TYPE uuid;
ALTER TABLE at ALTER COLUMN s TYPE uuid USING s::uuid;
ALTER TABLE at ALTER COLUMN v TYPE uuid USING v::uuid;
SELECT s, v, pg_typeof(s) FROM at;
ALTER TABLE at ALTER COLUMN v TYPE text;
SELECT s, v, pg_typeof(v) FROM at;
ALTER TABLE at ALTER COLUMN v TYPE int USING 1;
ALTER TABLE at ALTER COLUMN s TYPE int;
INSERT INTO at VALUES ('bad', 1);
-- A materialized view grouped by a uuid, and one joining on it.
CREATE MATERIALIZED VIEW ev_by_id AS SELECT id, count(*) AS n, sum(at) AS s FROM ev GROUP BY id;
CREATE MATERIALIZED VIEW ev_named AS SELECT u.name, ev.id, ev.at FROM ev JOIN u USING (id);
INSERT INTO ev VALUES ('80000000-0000-0000-0000-000000000000', 10, 'w'), ('{7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF}', 11, 'v');
DELETE FROM ev WHERE at = 1;
REFRESH MATERIALIZED VIEW ev_by_id;
REFRESH MATERIALIZED VIEW ev_named;
SELECT * FROM ev_by_id ORDER BY id;
SELECT * FROM ev_named ORDER BY at;
-- A uuid column added to a table with rows and filled per row.
CREATE TABLE fill (n int PRIMARY KEY);
INSERT INTO fill SELECT generate_series(1, 10);
ALTER TABLE fill ADD COLUMN id uuid;
UPDATE fill SET id = gen_random_uuid() WHERE n > 2;
SELECT count(id), count(DISTINCT id), count(*) FILTER (WHERE substring(id::text, 15, 1) = '4') AS v4 FROM fill;
\d g
\d fill
-- A text primary key turned into uuid: spellings of one uuid meet.
CREATE TABLE pkc (id text PRIMARY KEY, n int);
INSERT INTO pkc VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 1), ('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 2), ('00000000000000000000000000000001', 3);
ALTER TABLE pkc ALTER COLUMN id TYPE uuid USING id::uuid;
DELETE FROM pkc WHERE n = 2;
ALTER TABLE pkc ALTER COLUMN id TYPE uuid USING id::uuid;
SELECT * FROM pkc ORDER BY id;
INSERT INTO pkc VALUES ('a0eebc999c0b4ef8bb6d6bb9bd380a11', 4);
