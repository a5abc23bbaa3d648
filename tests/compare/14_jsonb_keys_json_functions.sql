-- jsonb compares by value: numbers numerically ('1' = '1.0'), in the
-- jsonb btree order (object > array > boolean > number > string > null,
-- a top-level empty array lowest). Grouping, DISTINCT, set operations,
-- joins and IN lists use the same equality.
SELECT '1'::jsonb = '1.0'::jsonb AS eq, '{"a":[1,2.0]}'::jsonb = '{"a":[1.0,2]}'::jsonb AS nested,
  '1'::jsonb <> '1.00'::jsonb AS ne, '2'::jsonb < '10.0'::jsonb AS lt, '[]'::jsonb < 'null'::jsonb AS empty,
  '"a"'::jsonb < '1'::jsonb AS str_num, '{"b":1}'::jsonb > '{"aa":1}'::jsonb AS keys,
  '1.0'::jsonb >= '1'::jsonb AS ge, '1.0'::jsonb <= '1'::jsonb AS le;
CREATE TABLE jk (id int PRIMARY KEY, v jsonb);
INSERT INTO jk VALUES (1, '1'), (2, '1.0'), (3, '{"a": 1}'), (4, '{"a": 1.00}'), (5, '[]'), (6, 'null'),
  (7, '"x"'), (8, '[1, 2]'), (9, 'true'), (10, '2.50'), (11, NULL);
SELECT id, v FROM jk ORDER BY v, id;
SELECT id, v FROM jk ORDER BY v DESC, id LIMIT 4;
SELECT jsonb_typeof(v) AS t, count(*), min(id) FROM jk GROUP BY v ORDER BY v;
-- Zeros of any scale or sign are one value, in hash grouping and joins.
SELECT count(*) AS n, min(d::text) AS first FROM (VALUES ('0'::jsonb), ('-0'), ('0.0'), ('-0.00')) v(d) GROUP BY d;
SELECT count(*) AS n FROM (VALUES ('[0]'::jsonb), ('[0.0]'), ('{"a": -0.0}')) v(d) GROUP BY d ORDER BY n;
SELECT count(*) AS joined FROM (VALUES ('0'::jsonb), ('0.0'), ('1')) a(d) JOIN (VALUES ('-0'::jsonb), ('1.00')) b(d) ON a.d = b.d;
SELECT count(DISTINCT v) AS distinct_values, count(*) AS n FROM (SELECT DISTINCT v FROM jk) d;
SELECT count(*) AS unioned FROM (SELECT v FROM jk UNION SELECT '1.000'::jsonb) u;
SELECT count(*) AS intersected FROM (SELECT v FROM jk INTERSECT SELECT '1.00'::jsonb) s;
SELECT count(*) AS excepted FROM (SELECT v FROM jk EXCEPT SELECT '{"a": 1.0}'::jsonb) s;
SELECT id FROM jk WHERE v IN ('1', '{"a": 1.0}', '2.5') ORDER BY id;
SELECT id FROM jk WHERE v NOT IN ('1', '{"a": 1.0}') ORDER BY id;
SELECT id FROM jk WHERE v = ANY (ARRAY['2.500'::jsonb]) ORDER BY id;
SELECT id FROM jk WHERE v IN (SELECT '1.0000'::jsonb) ORDER BY id;
SELECT id FROM jk WHERE v BETWEEN '1' AND '2.5' ORDER BY id;
SELECT a.id, b.id AS id2 FROM jk a JOIN jk b ON a.v = b.v AND a.id < b.id ORDER BY 1, 2;
SELECT id, row_number() OVER (PARTITION BY v ORDER BY id) AS rn FROM jk ORDER BY id;
SELECT max(v) FROM jk;
SELECT greatest('1'::jsonb, '2.0'::jsonb) AS g, NULLIF('1'::jsonb, '1.0'::jsonb) AS n,
  CASE '1.0'::jsonb WHEN '1' THEN 'one' ELSE 'other' END AS c;
-- json and jsonb set-returning functions of one column, in the select
-- list and in FROM: json's parts as written (an object's keys in order,
-- duplicates kept), jsonb's as it prints them.
CREATE TABLE docs (id int PRIMARY KEY, j json, jb jsonb);
INSERT INTO docs VALUES (1, '[1, "a" , {"b" :1}, null]', '{"b": [1, 2.50], "a": "x", "c": null}'),
  (2, '{"k2": 1, "k1" : "v", "k2": 2}', '[true, "s\"q", 3.0, null, []]'), (3, '[]', '{}'), (4, NULL, NULL);
SELECT id, json_array_elements(j) FROM docs WHERE id IN (1, 3) ORDER BY id;
SELECT id, json_array_elements_text(j) AS t FROM docs WHERE id = 1;
SELECT id, json_object_keys(j) FROM docs WHERE id = 2;
SELECT id, jsonb_object_keys(jb) FROM docs WHERE id IN (1, 3) ORDER BY id;
SELECT id, jsonb_array_elements(jb) AS e, jsonb_array_elements_text(jb) AS t FROM docs WHERE id = 2;
SELECT id, json_array_length(j) FROM docs WHERE id IN (1, 3) ORDER BY id;
SELECT * FROM jsonb_array_elements('[1, [2], {"a": 1.50}]');
SELECT * FROM json_array_elements_text('["a\\nb", 1, null]') AS x;
SELECT k FROM json_object_keys('{"z": 1, "a": 2}') AS k;
SELECT * FROM jsonb_object_keys('{"zz": 1, "a": 2, "b": 3}');
-- json_object_agg and jsonb_object_agg take keys of any scalar type, as
-- to_json writes them; json has no equality, so a deduplicating set
-- operation over it is 42883.
SELECT json_array_length('[1, [2, 3], {"a": [4]}]'), json_array_length('[]'), jsonb_array_length('[1, 2]');
SELECT json_object_agg(k, v) AS ints, jsonb_object_agg(k, v) AS ints_b FROM (VALUES (2, 'b'), (1, 'a')) t(k, v);
SELECT json_object_agg(k, v ORDER BY k) AS nums, jsonb_object_agg(k, v) AS nums_b FROM (VALUES (1.50, true), (2, false)) t(k, v);
SELECT json_object_agg(k, 1) AS bools, jsonb_object_agg(k, 1) AS bools_b FROM (VALUES (true), (false)) b(k);
SELECT json_object_agg(d, 1), jsonb_object_agg(ts, 2) FROM (VALUES ('2024-02-29'::date, '2024-02-29 13:45:06.5'::timestamp)) t(d, ts);
SELECT json_object_agg(ARRAY[1], 1);
SELECT jsonb_object_agg(k, v) FROM (VALUES (1.50, 'a'), (NULL, 'b')) t(k, v);
SELECT j FROM docs UNION SELECT '1'::json;
SELECT j FROM docs UNION ALL SELECT '1'::json ORDER BY 1;
SELECT count(*) FROM (SELECT j FROM docs UNION ALL SELECT '1'::json) u;
SELECT j FROM docs EXCEPT SELECT '1'::json;
SELECT 1 AS k, j FROM docs INTERSECT ALL SELECT 1, j FROM docs;
-- string_to_array, regexp_split_to_array and array_to_string with their
-- NULL forms.
SELECT string_to_array('a,b,,c', ','), string_to_array('a,b,,c', ',', ''), string_to_array('abc', NULL),
  string_to_array(NULL, ','), string_to_array('', ','), string_to_array('abc', ''), string_to_array('a,b', ',', NULL),
  string_to_array('a b', ' ', 'b'), string_to_array('x', NULL, 'x');
SELECT regexp_split_to_array('a1b22c', '\d+'), regexp_split_to_array('', 'x'), regexp_split_to_array('abc', ''),
  regexp_split_to_array('aXbxc', 'x', 'i'), regexp_split_to_array('a b', NULL), regexp_split_to_array('a,"b', ',');
SELECT regexp_split_to_array('abc', 'b', 'g');
SELECT array_to_string(ARRAY[1, NULL, 3], ',', '*'), array_to_string(ARRAY[1, NULL, 3], ','),
  array_to_string(ARRAY['a', NULL], '-', NULL), array_to_string(NULL::int[], ',', '*'), array_to_string(ARRAY['x'], NULL, '*');
-- json[b]_each[_text] in FROM: key and value columns, json's pairs as
-- written, jsonb's in storage order.
SELECT * FROM jsonb_each('1');
SELECT * FROM jsonb_each('[1]');
SELECT * FROM jsonb_each_text('"x"');
SELECT * FROM json_each('1');
SELECT * FROM json_each('[1]');
SELECT * FROM json_each_text('[1]');
SELECT * FROM json_each_text('null');
SELECT * FROM json_each('{"a b":1, "c":"x,y", "d":null, "e":[1, 2], "":"", "a b": {"z" : 1}}');
SELECT * FROM json_each_text('{"a b":1, "c":"x,y", "d":null, "e":[1, 2], "":"", "\u00e9\n": "\"q\""}') AS t(k, v);
SELECT * FROM jsonb_each('{"b": 1.50, "a": [1, 2], "c": null, "aa": "s"}') e;
SELECT e.key, e.value FROM jsonb_each_text('{"b": 1.50, "a": [1, 2], "c": null, "aa": "s"}') e ORDER BY e.key DESC;
SELECT key FROM jsonb_each('{}');
SELECT * FROM jsonb_each(NULL);
SELECT pg_typeof(value), pg_typeof(key) FROM json_each('{"a":1}');
SELECT d.id, e.key, e.value FROM docs d CROSS JOIN jsonb_each('{"b": 2, "a": 1}') e WHERE d.id < 3 ORDER BY 1, 2;
-- NaN and infinities are not JSON numbers: jsonb holds them as strings.
SELECT to_jsonb('NaN'::numeric) AS nan, jsonb_agg(x) AS agg, jsonb_build_array('Infinity'::float8, '-Infinity'::numeric) AS arr,
  jsonb_build_object('a', 'NaN'::float4) AS obj FROM (VALUES ('NaN'::numeric), (1.50)) t(x);
SELECT json_object_agg('a', 1), jsonb_object_agg('k', 'v'), json_object_agg('x', NULL);
SELECT json_object_agg(k, v) FROM (VALUES ('2024-02-29 13:45:06.5+00'::timestamptz, 1)) t(k, v);
SELECT jsonb_object_agg(k, v) FROM (VALUES ('1 day'::interval, 'NaN'::numeric)) t(k, v);
SELECT json_object_agg(k, v) FROM (VALUES ('{"a":1}'::jsonb, 1)) t(k, v);
SELECT json_object_agg(k, v) FROM (VALUES ('NaN'::float8, 1), ('-0'::float8, 2)) t(k, v);
SELECT * FROM json_array_elements(NULL);
SELECT jsonb_array_elements_text(NULL), 1;
SELECT x.* FROM json_object_keys('{"a":1}') x;
SELECT json_array_length(NULL), json_array_length('  [ ]  ');
