-- jsonb of SQL arrays: JSON arrays, as in the json functions.
SELECT to_jsonb(array[1,2]);
SELECT to_jsonb(array['a', null, 'b"c']);
SELECT to_jsonb('{}'::int[]);
SELECT to_jsonb(array[1.50, 2]::numeric[]);
SELECT to_jsonb(array[true, false]);
SELECT to_jsonb(array['2024-02-29'::date]);
SELECT to_jsonb(array['{"x": 1}'::jsonb, '[2]']);
SELECT jsonb_build_object('a', array[1,2]);
SELECT jsonb_build_object('a', array[1,2], 'b', null::int[]);
SELECT jsonb_build_array(array['a',null]);
SELECT jsonb_build_array(1, array[2.5::float8], 'x');
CREATE TABLE ja (id int, a int[]);
INSERT INTO ja VALUES (1, array[1,2]), (2, array[3]), (3, null);
SELECT jsonb_agg(a ORDER BY id) FROM ja;
SELECT jsonb_agg(a ORDER BY id) FILTER (WHERE id < 3) FROM ja;
SELECT jsonb_object_agg('k', array[1.5]);
SELECT jsonb_object_agg(id, a ORDER BY id) FROM ja;
SELECT json_agg(a ORDER BY id) FROM ja;
-- jsonb numbers are numerics: no negative zero.
SELECT to_jsonb(-0.0::float8);
SELECT to_jsonb(-0.0::float4), to_jsonb(-0.0::numeric), to_json(-0.0::float8);
SELECT to_jsonb(array[-0.0::float8, 1.5]);
SELECT '-0'::jsonb, '-0.0'::jsonb, '[-0, 1]'::jsonb;
-- The sequence functions take a regclass; defaults print as regclass.
CREATE SEQUENCE q1;
CREATE SEQUENCE "Q2";
SELECT nextval('q1'::regclass), currval('q1'::regclass);
SELECT setval('q1'::regclass, 10), nextval('q1');
SELECT setval('public.q1'::regclass, 20, false), nextval('Q1'::regclass);
SELECT nextval('"Q2"'::regclass), nextval('public."Q2"');
CREATE TABLE sd (id serial, a int DEFAULT nextval('public.q1'), b int DEFAULT nextval('q1'::regclass),
  c bigint DEFAULT nextval('"Q2"'), d int DEFAULT nextval('sd_id_seq'::regclass));
\d sd
INSERT INTO sd DEFAULT VALUES;
SELECT * FROM sd;
SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'sd' ORDER BY ordinal_position;
DROP SEQUENCE q1;
DROP SEQUENCE q1 CASCADE;
\d sd
-- SET names a column, never a table.
CREATE TABLE us (a int, us int);
INSERT INTO us VALUES (1, 2);
UPDATE us SET us.a = 3;
UPDATE us x SET x.a = 3;
UPDATE us x SET us.a = 3;
UPDATE us SET public.a = 3;
UPDATE us SET a = 4 WHERE us.a = 1;
SELECT * FROM us;
-- jsonb key existence: ?, ?| and ?&.
SELECT '{"a": 1, "b": null}'::jsonb ? 'a', '{"a": 1}'::jsonb ? 'x', '["a", 1]'::jsonb ? 'a', '"a"'::jsonb ? 'a', '[1]'::jsonb ? '1';
SELECT '{"a": 1}'::jsonb ?| array['x', 'a'], '{"a": 1}'::jsonb ?| array['x'], '{"a": 1}'::jsonb ?| '{}';
SELECT '{"a": 1, "b": 2}'::jsonb ?& array['a', 'b'], '{"a": 1}'::jsonb ?& array['a', 'b'], '{"a": 1}'::jsonb ?& '{}';
SELECT '{"a": 1}'::jsonb ?| array['a', null], '{"a": 1}'::jsonb ?& array['a', null];
SELECT '{"a": {"b": 1}}'::jsonb -> 'a' ? 'b', NOT '{"a": 1}'::jsonb ? 'a';
CREATE TABLE jk (id int, j jsonb);
INSERT INTO jk VALUES (1, '{"a": 1}'), (2, '{"b": 2}'), (3, '["a", "b"]'), (4, null);
SELECT id FROM jk WHERE j ? 'a' ORDER BY id;
SELECT id, j ?| array['b'] AS anyb, j ?& array['a', 'b'] AS allab FROM jk ORDER BY id;
-- Keys must be scalars.
SELECT jsonb_build_object(array[1], 2);
SELECT jsonb_build_object('{"a": 1}'::jsonb, 2);
SELECT jsonb_object_agg(array[1], 2);
SELECT json_build_object(array[1], 2);
-- A regclass that is not a literal: the sequence's OID.
CREATE SEQUENCE q3;
SELECT nextval(oid), currval(oid), setval(oid, 50), setval(oid, 60, false) FROM pg_class WHERE relname = 'q3';
SELECT nextval(('q3'::regclass)), nextval('q3'::text);
SELECT nextval(s) FROM (VALUES ('q3')) v(s);
