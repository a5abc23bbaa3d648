-- json keeps its text as written (key order, duplicate keys, spaces);
-- jsonb normalizes it. The builders write json as PostgreSQL's json.c.
SELECT '{"b": 1,  "a":2, "a":3}'::json AS j, '{"b": 1,  "a":2, "a":3}'::jsonb AS jb,
  '  [1,2]  '::json AS padded, '"\u0000"'::json AS nul;
SELECT json_build_object('a', 1, 'b', '2026-12-02'::date) AS o, json_build_array(1, 'x', NULL) AS a,
  json_build_object() AS eo, json_build_array() AS ea;
SELECT json_object('{a,1,b,2}') AS o1, json_object('{a,b}', '{1,NULL}') AS o2,
  jsonb_object('{b,1,a,null}') AS o3, jsonb_object('{a,a}', '{1,2}') AS o4;
SELECT to_json('2024-02-29 13:45:06.5'::timestamp) AS ts, to_json('2024-02-29 13:45:06.5+00'::timestamptz) AS tz,
  to_json('2024-02-29 13:45:06.5+05:30'::timestamptz) AS tz2, to_json('infinity'::timestamp) AS inf,
  to_json(array[1,2]) AS arr, to_json('a"b\c' || chr(10) || chr(1)) AS esc;
SELECT to_json('NaN'::numeric) AS nan, to_json(1.50::numeric) AS num, to_json(2.5::float4) AS f4,
  to_json('Infinity'::float8) AS finf, to_json('1 day'::interval) AS iv, to_json('\x41'::bytea) AS ba,
  to_json('13:45'::time) AS t, to_json(true) AS b, to_json(NULL::text) AS n;
SELECT to_jsonb('2024-02-29 13:45:06.5'::timestamp) AS ts, to_jsonb('2024-01-01'::date) AS d;
SELECT json_build_object(1, 2, true, false) AS keys,
  json_build_array(array['a','b'], '{"x":1}'::json, '{"y": 2}'::jsonb) AS nested;
SELECT '{"a":1, "a":2}'::json::jsonb AS to_jsonb, '{"b": 1}'::jsonb::json AS to_json,
  json_typeof('[1]') AS t1, json_typeof(' {"a": null} ') AS t2;
SELECT '{"a":1, "a": [2, 3 ] }'::json -> 'a' AS last, '{"a":1, "a": [2, 3 ] }'::json #> '{a,1}' AS path,
  '[1, "x\\ny" ]'::json ->> 1 AS txt, '[1,2]'::json -> -1 AS neg, '{"a":null}'::json ->> 'a' AS null_txt,
  '{"a":null}'::json -> 'a' AS null_json, '1'::json -> 0 AS scalar, '{"a": {"b": " x "}}'::json #>> '{a,b}' AS deep;
SELECT json_build_object('a');
SELECT json_build_object(NULL, 1);
SELECT json_build_object(array[1], 1);
SELECT json_object('{a}');
SELECT json_object('{a,b}', '{1}');
SELECT json_object('{NULL,1}');
SELECT '{"a":1}'::json = '{"a":1}'::json;
SELECT '{x'::json;
CREATE TABLE docs (id int PRIMARY KEY, j json, b jsonb);
INSERT INTO docs VALUES (1, '{"z": 1, "a" : [1,2]}', '{"z": 1, "a" : [1,2]}'), (2, '[1, 2 ]', NULL);
INSERT INTO docs (id, b) VALUES (3, '{"a":1}'::json);
INSERT INTO docs (id, j) VALUES (4, '{"a":1}'::jsonb);
SELECT * FROM docs ORDER BY id;
SELECT id, j -> 'a' AS a, j ->> 'z' AS z, j::text AS t, j::jsonb AS jb FROM docs ORDER BY id;
SELECT DISTINCT j FROM docs;
SELECT j, count(*) FROM docs GROUP BY j;
SELECT * FROM docs ORDER BY j;
CREATE TABLE jk (j json PRIMARY KEY);
-- The json aggregates.
CREATE TABLE ev (id int PRIMARY KEY, g text, k text, v int, a int[]);
INSERT INTO ev VALUES (1, 'a', 'x', 1, '{1,2}'), (2, 'a', 'y', NULL, NULL), (3, 'b', 'x', 3, '{3}'), (4, 'a', 'x', 4, '{}');
SELECT g, json_agg(v ORDER BY id) AS ja, jsonb_agg(v ORDER BY id) AS jb,
  json_object_agg(k, v ORDER BY id) AS jo, jsonb_object_agg(k, v ORDER BY id) AS jbo
  FROM ev GROUP BY g ORDER BY g;
SELECT json_agg(a ORDER BY id) AS arrays, json_agg(DISTINCT g) AS groups, json_agg(id ORDER BY id) FILTER (WHERE v IS NULL) AS nulls FROM ev;
SELECT json_agg(v) AS none, json_object_agg(k, v) AS none_o FROM ev WHERE id > 9;
SELECT json_object_agg(NULL::text, v) FROM ev;
SELECT g, json_agg(j) FROM ev, docs WHERE docs.id = ev.id GROUP BY g ORDER BY g;

-- INSERT ... ON CONFLICT on the primary key; a view over the table
-- follows every change.
CREATE TABLE oc (id int PRIMARY KEY, v text, n int NOT NULL DEFAULT 0);
CREATE VIEW ocv AS SELECT count(*) AS c, sum(n) AS s, string_agg(v, ',' ORDER BY id) AS vs FROM oc;
INSERT INTO oc VALUES (1, 'a', 1), (2, 'b', 2);
INSERT INTO oc VALUES (1, 'x', 5) ON CONFLICT (id) DO NOTHING;
INSERT INTO oc VALUES (1, 'x', 5) ON CONFLICT DO NOTHING RETURNING *;
INSERT INTO oc VALUES (1, 'x', 5), (3, 'c', 3) ON CONFLICT ON CONSTRAINT oc_pkey DO NOTHING RETURNING id;
INSERT INTO oc AS t VALUES (1, 'x', 5) ON CONFLICT (id) DO UPDATE SET v = excluded.v || t.v, n = t.n + excluded.n RETURNING *;
INSERT INTO oc VALUES (2, 'y', 5) ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE oc.n > 100 RETURNING *;
INSERT INTO oc VALUES (2, 'y', 5) ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE oc.n < 100 RETURNING *;
SELECT * FROM oc ORDER BY id;
SELECT * FROM ocv;
INSERT INTO oc VALUES (4, 'd', 1), (4, 'e', 2) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
INSERT INTO oc VALUES (4, 'd', 1), (4, 'e', 2) ON CONFLICT (id) DO NOTHING;
INSERT INTO oc SELECT id + 1, 'sel', 0 FROM oc WHERE id >= 3 ON CONFLICT (id) DO UPDATE SET v = oc.v || '+' RETURNING *;
SELECT * FROM oc ORDER BY id;
INSERT INTO oc VALUES (5, 'd', 1) ON CONFLICT (v) DO NOTHING;
INSERT INTO oc VALUES (5, 'd', 1) ON CONFLICT (id, v) DO NOTHING;
INSERT INTO oc VALUES (5, 'd', 1) ON CONFLICT DO UPDATE SET v = 'z';
INSERT INTO oc VALUES (5, 'd', 1) ON CONFLICT ON CONSTRAINT nope DO NOTHING;
INSERT INTO oc VALUES (5, 'd', 1) ON CONFLICT (nope) DO NOTHING;
INSERT INTO oc VALUES (1, 'd', 1) ON CONFLICT (id) DO UPDATE SET n = NULL;
INSERT INTO oc VALUES (1, 'd', 1) ON CONFLICT (id) DO UPDATE SET nope = 1;
INSERT INTO oc VALUES (1, 'd', 1) ON CONFLICT (id) DO UPDATE SET v = excluded.nope;
BEGIN;
INSERT INTO oc VALUES (1, 'q', 1) ON CONFLICT (id) DO UPDATE SET v = 'tx';
INSERT INTO oc VALUES (9, 'q', 1) ON CONFLICT (id) DO UPDATE SET v = 'tx';
INSERT INTO oc VALUES (9, 'q', 1) ON CONFLICT (id) DO UPDATE SET v = 'tx2' RETURNING *;
SELECT * FROM ocv;
COMMIT;
BEGIN;
INSERT INTO oc VALUES (2, 'gone', 1) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
ROLLBACK;
SELECT * FROM oc ORDER BY id;
SELECT * FROM ocv;
CREATE TABLE nopk (a int, b int);
INSERT INTO nopk VALUES (1, 2) ON CONFLICT DO NOTHING;
INSERT INTO nopk VALUES (1, 2) ON CONFLICT DO NOTHING;
INSERT INTO nopk VALUES (1, 2) ON CONFLICT (a) DO NOTHING;
SELECT * FROM nopk;
INSERT INTO oc VALUES (6, 'f', 1) ON CONFLICT (id) DO UPDATE SET id = 1;
INSERT INTO oc VALUES (1, 'f', 1) ON CONFLICT (id) DO UPDATE SET id = 7 RETURNING *;
SELECT * FROM oc ORDER BY id;
SELECT * FROM ocv;

-- serial and identity columns take their values from their sequences.
CREATE TABLE s1 (id serial PRIMARY KEY, v text);
CREATE TABLE s2 (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text);
CREATE TABLE s3 (id smallint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v text);
CREATE TABLE s4 (id bigserial, v text);
\d s1
\d s2
\d s3
SELECT table_name, column_name, column_default, is_nullable FROM information_schema.columns
  WHERE table_name IN ('s1', 's2', 's3', 's4') ORDER BY table_name, ordinal_position;
INSERT INTO s1 (v) VALUES ('a'), ('b') RETURNING *;
INSERT INTO s1 VALUES (DEFAULT, 'c') RETURNING id;
INSERT INTO s1 VALUES (10, 'd');
SELECT * FROM s1 ORDER BY id;
INSERT INTO s2 (v) VALUES ('a'), ('b') RETURNING *;
INSERT INTO s2 VALUES (5, 'x');
INSERT INTO s2 (id, v) SELECT 5, 'x';
INSERT INTO s2 VALUES (DEFAULT, 'c') RETURNING *;
UPDATE s2 SET id = 7 WHERE v = 'a';
UPDATE s2 SET id = DEFAULT WHERE v = 'a' RETURNING *;
INSERT INTO s2 (v) VALUES ('z') ON CONFLICT (id) DO UPDATE SET id = 99;
INSERT INTO s3 (v) VALUES ('a');
INSERT INTO s3 VALUES (5, 'b');
INSERT INTO s3 (v) VALUES ('c') RETURNING *;
SELECT * FROM s3 ORDER BY id;
SELECT currval('s1_id_seq'), nextval('s1_id_seq'), currval('s1_id_seq');
SELECT setval('s1_id_seq', 100);
INSERT INTO s1 (v) VALUES ('e') RETURNING id;
SELECT setval('s1_id_seq', 200, false), nextval('s1_id_seq'), nextval('S1_ID_SEQ');
SELECT currval('s4_id_seq');
SELECT setval('s3_id_seq', 0);
SELECT setval('s3_id_seq', 32767);
INSERT INTO s3 (v) VALUES ('max');
INSERT INTO s4 (v) VALUES ('x') RETURNING *;
-- A rolled-back INSERT does not give its value back.
BEGIN;
INSERT INTO s4 (v) VALUES ('rolled back');
ROLLBACK;
INSERT INTO s4 (v) VALUES ('y') RETURNING *;
-- OVERRIDING SYSTEM VALUE lets a value into an ALWAYS column; USER VALUE
-- ignores the values given for identity columns.
INSERT INTO s2 OVERRIDING SYSTEM VALUE VALUES (50, 'sys') RETURNING *;
INSERT INTO s2 (id, v) OVERRIDING SYSTEM VALUE SELECT 51, 'sys2' RETURNING *;
INSERT INTO s2 OVERRIDING USER VALUE VALUES (60, 'user') RETURNING v;
INSERT INTO s3 OVERRIDING USER VALUE VALUES (70, 'user'), (71, 'user2') RETURNING v;
INSERT INTO s3 (id, v) OVERRIDING USER VALUE SELECT 72, 'user3' RETURNING v;
INSERT INTO s3 OVERRIDING SYSTEM VALUE VALUES (73, 'sys') RETURNING *;
INSERT INTO s1 OVERRIDING USER VALUE VALUES (80, 'serial') RETURNING *;
SELECT count(*) FROM s2 WHERE id IN (50, 51, 60);
SELECT count(*) FROM s3 WHERE id IN (70, 71, 72, 73);
CREATE TABLE s5 (id text GENERATED ALWAYS AS IDENTITY);
CREATE TABLE s6 (id serial DEFAULT 5);
CREATE TABLE s8 (id int GENERATED ALWAYS AS IDENTITY, k int PRIMARY KEY);
INSERT INTO s8 (k) VALUES (1), (2) ON CONFLICT (k) DO NOTHING RETURNING *;
INSERT INTO s8 (k) VALUES (2), (3) ON CONFLICT (k) DO NOTHING RETURNING *;
-- COPY fills identity and serial columns it is not given.
CREATE TABLE c1 (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, s serial, v text);
COPY c1 (v) FROM stdin;
a
b
\.
INSERT INTO c1 (v) VALUES ('c');
SELECT * FROM c1 ORDER BY id;
