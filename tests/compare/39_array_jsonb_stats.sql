-- Array searches and shapes (docs §9.19): NULLs are found as IS NOT
-- DISTINCT FROM finds them; an empty array has no dimensions.
SELECT array_position(ARRAY[1,2,3,2], 2), array_position(ARRAY[1,2,3,2], 2, 3), array_position(ARRAY[1,2,3,2], 2, -5), array_position(ARRAY[1,2,3,2], 2, 10);
SELECT array_position(ARRAY[1,NULL,3], NULL), array_position(NULL::int[], 1), array_position(ARRAY[1,2], NULL), array_position('{}'::int[], 1);
SELECT array_position(ARRAY[1,2], 1, NULL);
SELECT array_position(NULL::int[], 1, NULL);
SELECT array_position(ARRAY['a','b','c'], 'c'), array_position(ARRAY[1.5, 2.50]::numeric[], 2.5), array_position(ARRAY['NaN'::float8, 1], 'NaN');
SELECT array_positions(ARRAY[1,2,1,NULL,1], 1), array_positions(ARRAY[1,NULL,NULL], NULL), array_positions(ARRAY[1], 5), array_positions(NULL::int[], 1), array_positions('{}'::text[], 'a');
SELECT array_replace(ARRAY[1,2,5,4], 5, 3), array_replace(ARRAY[1,NULL,3], NULL, 9), array_replace(ARRAY[1,2,1], 1, NULL), array_replace(NULL::int[], 1, 2), array_replace('{}'::int[], 1, 2);
SELECT array_replace(ARRAY['a','b'], 'a', 'z'), array_replace(ARRAY[true,false], true, NULL);
SELECT array_ndims(ARRAY[1,2,3]), array_ndims('{}'::int[]), array_dims(ARRAY[1,2,3]), array_dims('{}'::int[]), array_dims(NULL::int[]), array_ndims(NULL::text[]);
SELECT array_upper(ARRAY[1,2,3], 1), array_lower(ARRAY[1,2,3], 1), array_length(ARRAY[1,2,3], 1), array_length(ARRAY[1,2,3], 2), array_length('{}'::int[], 1), array_lower('{}'::int[], 1), cardinality('{}'::int[]);
SELECT array_remove(ARRAY[1,2,2,3], 2), array_remove(ARRAY[1,NULL,2], NULL), array_remove(NULL::int[], 1), array_remove(ARRAY['a','b'], 'c');
SELECT array_position(ARRAY[1,2], 'x');
SELECT array_positions(ARRAY[1,2], 1, 2);
SELECT array_dims(ARRAY['2024-01-01'::date]), pg_typeof(array_dims(ARRAY[1])), pg_typeof(array_positions(ARRAY[1], 1));
CREATE TABLE arr (id int PRIMARY KEY, a int[], t text[]);
INSERT INTO arr VALUES (1, '{3,1,3,NULL}', '{x,y}'), (2, '{}', '{}'), (3, NULL, NULL), (4, '{NULL}', '{NULL,x}');
SELECT id, array_position(a, 3), array_position(a, 3, 2), array_positions(a, 3), array_positions(a, NULL), array_replace(a, 3, 0),
  array_remove(a, NULL), array_dims(a), array_ndims(t), array_position(t, 'x') FROM arr ORDER BY id;
CREATE MATERIALIZED VIEW arrm AS SELECT id, array_positions(a, 3) AS p, array_replace(t, 'x', 'z') AS r, array_dims(a) AS d FROM arr;
SELECT * FROM arrm ORDER BY id;
UPDATE arr SET a = '{3,3,3}' WHERE id = 2;
REFRESH MATERIALIZED VIEW arrm;
SELECT * FROM arrm ORDER BY id;

-- text ^@ text is starts_with, an operator of the Op precedence.
SELECT 'abc' ^@ 'ab', 'abc' ^@ 'b', 'abc' ^@ '', NULL ^@ 'a', 'a' || 'bc' ^@ 'ab', starts_with('abc', 'ab'), starts_with('', ''), starts_with(NULL, 'a');
SELECT 1 ^@ 2;
SELECT 'abc'::text ^@ 'ab'::varchar, 'abc'::char(5) ^@ 'ab';
SELECT sha224('abc'), sha256(''::bytea), sha384('\x00ff'::bytea), sha512('a'::bytea), sha256(NULL);
SELECT sha256('abc'::text);
SELECT md5('abc'::bytea), encode(sha256('abc'), 'hex');
SELECT 'abc' ^@ 'a' = true, ('abc' ^@ 'a') IS TRUE, 'b' || 'a' ^@ 'ba';

-- jsonb_set, jsonb_insert, jsonb_set_lax and the delete operators
-- (docs §9.16): a path step into a scalar leaves the document; only
-- the last step creates; an array index may count from the end.
SELECT jsonb_set('{"a":1,"b":[1,2]}', '{a}', '"x"'), jsonb_set('{"a":1}', '{c}', '3'), jsonb_set('{"a":1}', '{c}', '3', false);
SELECT jsonb_set('{"a":{"b":1}}', '{a,b}', '[1]'), jsonb_set('{"a":{"b":1}}', '{a,c}', 'null'), jsonb_set('{"a":{"b":1}}', '{x,c}', '1');
SELECT jsonb_set('[1,2,3]', '{0}', '9'), jsonb_set('[1,2,3]', '{-1}', '9'), jsonb_set('[1,2,3]', '{5}', '9'), jsonb_set('[1,2,3]', '{-5}', '9'), jsonb_set('[1,2,3]', '{-5}', '9', false), jsonb_set('[1,2,3]', '{5}', '9', false);
SELECT jsonb_set('[]', '{0}', '1'), jsonb_set('{}', '{a}', '1'), jsonb_set('{}', '{a}', '1', false), jsonb_set('[]', '{3}', '1', false), jsonb_set('{}', '{a,b}', '1');
SELECT jsonb_set('{"a":1}', '{}', '2'), jsonb_set('{"a":1}', '{a,b}', '2'), jsonb_set('{"a":[1,{"b":2}]}', '{a,1,b}', '3'), jsonb_set('{"a":[1,{"b":2}]}', '{a,1,c}', '3');
SELECT jsonb_set('1', '{a}', '2');
SELECT jsonb_set('"x"', '{}', '2');
SELECT jsonb_set('[1]', '{x}', '2');
SELECT jsonb_set('[1]', '{" 0"}', '2'), jsonb_set('[1]', '{+0}', '2');
SELECT jsonb_set('[1]', '{"0 "}', '2');
SELECT jsonb_set('[1]', '{99999999999}', '2');
SELECT jsonb_set('{"a":1}', '{NULL}', '2');
SELECT jsonb_set('{"a":{}}', '{a,NULL}', '2');
SELECT jsonb_set('{"a":1}', '{b,NULL}', '2'), jsonb_set('{}', '{NULL}', '1', false);
SELECT jsonb_set('{"a":1}', '{a}', NULL), jsonb_set(NULL, '{a}', '1'), jsonb_set('{"a":1}', NULL, '1'), jsonb_set('{"a":1}', '{a}', '1', NULL);
SELECT jsonb_set('{"a":1}', '{a}', '2'::jsonb, true), jsonb_set('{"b":1,"a":2,"aa":3}', '{c}', '{"z":1,"y":2}');
SELECT jsonb_insert('{"a":[0,1,2]}', '{a,1}', '"new"'), jsonb_insert('{"a":[0,1,2]}', '{a,1}', '"new"', true), jsonb_insert('{"a":[0,1,2]}', '{a,-1}', '"new"', true);
SELECT jsonb_insert('{"a":1}', '{b}', '2'), jsonb_insert('[1,2]', '{10}', '3'), jsonb_insert('[1,2]', '{-10}', '3'), jsonb_insert('[]', '{0}', '1'), jsonb_insert('{}', '{a}', '1');
SELECT jsonb_insert('{"a":1}', '{a}', '2');
SELECT jsonb_insert('5', '{a}', '2');
SELECT jsonb_insert('{"a":1}', '{}', '2'), jsonb_insert('{"a":1}', '{a,b}', '2'), jsonb_insert(NULL, '{a}', '1'), jsonb_insert('[1]', '{0}', '2', NULL);
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL), jsonb_set_lax('{"a":1,"b":2}', '{a}', NULL, true, 'delete_key'), jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'return_target'), jsonb_set_lax('{"a":1}', '{a}', '5', true, 'raise_exception');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'raise_exception');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'nope');
SELECT jsonb_set_lax('{"a":1}', '{a}', '1', true, NULL);
SELECT jsonb_set_lax('{"a":1}', '{a}', '2', true, 'nope'), jsonb_set_lax(NULL, '{a}', NULL), jsonb_set_lax('{"a":1}', '{a}', NULL, NULL), jsonb_set_lax('{"a":1}', '{b}', NULL, false);
SELECT '{"a":1,"b":2}'::jsonb - 'a', '["a","b","a",1]'::jsonb - 'a', '{"a":1}'::jsonb - 'z', '{}'::jsonb - 'a', '[]'::jsonb - 'a';
SELECT '{"a":1,"b":2,"c":3}'::jsonb - '{a,c}'::text[], '["a","b",{"a":1}]'::jsonb - ARRAY['a','b'], '{"a":1}'::jsonb - '{}'::text[], '{"a":1}'::jsonb - ARRAY[NULL,'a'];
SELECT '[1,2,3]'::jsonb - 1, '[1,2,3]'::jsonb - -1, '[1,2,3]'::jsonb - 5, '[1,2,3]'::jsonb - -5, '[]'::jsonb - 0;
SELECT '{"a":1}'::jsonb - 1;
SELECT '{}'::jsonb - 0;
SELECT '1'::jsonb - 'a';
SELECT '"a"'::jsonb - 0;
SELECT 'null'::jsonb - '{a}'::text[];
SELECT '{"a":1}'::jsonb - NULL::text, '{"a":{"b":1,"c":2}}'::jsonb #- '{a,b}', '[1,[2,3]]'::jsonb #- '{1,0}', '[1,2]'::jsonb #- '{-1}', '[1,2]'::jsonb #- '{5}', '{"a":1}'::jsonb #- '{}';
SELECT '{"a":1}'::jsonb #- '{a,b}', '{}'::jsonb #- '{NULL}', '{"a":[1]}'::jsonb #- '{b,NULL}';
SELECT '[1]'::jsonb #- '{x}';
SELECT '3'::jsonb #- '{a}';
SELECT '{"a":1}'::jsonb #- '{NULL}';
SELECT '{"a":1,"b":2}'::jsonb - 'a' - 'b', '{"a":{"b":1}}'::jsonb #- '{a,b}' || '{"z":1}', pg_typeof('{"a":1}'::jsonb - 'a');
SELECT 1 #- 2;
SELECT '{"a":1}'::jsonb - 1.5;
SELECT jsonb_set('{"1":1}', '{1}', '2'), jsonb_set('{"a":[]}', '{a,0}', '1.50'), jsonb_set('{"a":[[1]]}', '{a,0,0}', '1e3'), jsonb_set('{"a":[[1]]}', '{a,-1,-1,x}', '1');
SELECT '[["a"],"a",{"a":"a"}]'::jsonb - 'a', '{"a":1,"b":2}'::jsonb - '{a,a,b}'::text[], '["a","b"]'::jsonb - '{}'::text[];
SELECT jsonb_insert('{"a":{"b":{}}}', '{a,b,c}', '"\u00e9\"x"'), jsonb_insert('{"a":[1]}', '{a,0,x}', '1'), jsonb_set('{"é":1}', '{é}', '"ü"');
SELECT jsonb_set('{"a":1}', '{a}', '{"b":[1,2,{"c":null}]}'), jsonb_set('[null]', '{0}', 'null'), jsonb_set('{"a":1}', '{""}', '1');
SELECT '{"a":[1,2,3]}'::jsonb #- '{a,-3}', '{"a":[1,2,3]}'::jsonb #- '{a,-4}', '{"a":[1,2,3]}'::jsonb #- '{a,3}', '[]'::jsonb #- '{0}';
SELECT jsonb_set('[1,2]', '{1}', '3', false), jsonb_set('[1,2]', '{-1}', '3', false), jsonb_set('[]', '{-1}', '3', false), jsonb_set('[]', '{-1}', '3');
SELECT jsonb_insert('[1,2]', '{-2}', '0'), jsonb_insert('[1,2]', '{-2}', '0', true), jsonb_insert('[1,2]', '{-3}', '0', true), jsonb_insert('[1,2]', '{2}', '0');
SELECT jsonb_set('{"a":1}', '{-2147483648}', '1'), jsonb_set('[1]', '{-2147483648}', '0'), jsonb_set('[1]', '{2147483647}', '0');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'use_json_null'), jsonb_set_lax('{"a":1}', '{b}', NULL, false, 'delete_key'), jsonb_set_lax('[1,2]', '{0}', NULL, true, 'delete_key');
SELECT jsonb_set_lax('5', '{a}', NULL, true, 'delete_key');
SELECT jsonb_set_lax('5', '{a}', NULL, true, 'return_target');
SELECT jsonb_set_lax('5', '{a}', NULL);
SELECT '{"a":1}'::jsonb - 'a'::varchar, '{"a":1}'::jsonb - 'a'::name;
CREATE TABLE docs (id int PRIMARY KEY, j jsonb);
INSERT INTO docs VALUES (1, '{"a": {"b": [1, 2]}, "c": 3}'), (2, '[1, "c", {"c": 1}]'), (3, '{}'), (4, NULL);
SELECT id, jsonb_set(j, '{a,b,0}', '"x"'), jsonb_insert(j, '{0}', '0'), j - 'c', j #- '{a,b,-1}' FROM docs WHERE id <> 2 ORDER BY id;
SELECT id, j - 'c', j - 0, j #- '{2,c}', jsonb_set(j, '{2,d}', 'true') FROM docs WHERE id = 2;
CREATE MATERIALIZED VIEW docsm AS SELECT id, j - 'c' AS d, jsonb_set(j, '{n}', to_jsonb(id)) AS s FROM docs WHERE jsonb_typeof(j) = 'object';
SELECT * FROM docsm ORDER BY id;
UPDATE docs SET j = j || '{"z": [true]}' WHERE id = 3;
DELETE FROM docs WHERE id = 1;
REFRESH MATERIALIZED VIEW docsm;
SELECT * FROM docsm ORDER BY id;

-- sha224, sha256, sha384 and sha512 of a bytea.
SELECT sha224('abc'), sha256(''::bytea), sha384('\x00ff'::bytea), sha512('a'::bytea), sha256(NULL);
SELECT sha256('abc'::text);
SELECT md5('abc'::bytea), encode(sha256('abc'), 'hex');
SELECT id, encode(sha224(convert_to(t::text, 'UTF8')), 'hex') FROM arr ORDER BY id;

-- corr, covar_pop, covar_samp and the regr_* aggregates: f(Y, X) over
-- double precision, rows with a NULL left out.
CREATE TABLE s (g int, y float8, x float8, i int, n numeric);
INSERT INTO s VALUES (1, 1, 2, 1, 1.5), (1, 2, 4.5, 2, 2.5), (1, 3.25, 5, 3, 3.5), (1, NULL, 7, 4, 4.5), (1, 8, NULL, 5, NULL),
  (2, 5, 5, 6, 1), (3, 1, 2, 7, 2), (3, 1, 3, 8, 3), (4, 2, 1, 9, 4), (4, 3, 1, 10, 5), (5, NULL, NULL, 11, 6);
SELECT g, corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_count(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM s GROUP BY g ORDER BY g;
SELECT g, regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x) FROM s GROUP BY g ORDER BY g;
SELECT corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_count(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM s;
SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x) FROM s;
SELECT corr(i, n), regr_slope(n, i), covar_samp(i, i), regr_count(i, n), pg_typeof(regr_count(i, n)), pg_typeof(corr(i, n)) FROM s;
SELECT corr(y, x), regr_count(y, x), regr_sxx(y, x), covar_samp(y, x) FROM s WHERE false;
SELECT g, corr(y, x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), regr_count(y, x) OVER (PARTITION BY g) FROM s ORDER BY i;
SELECT corr(DISTINCT y, x), regr_count(y, x) FILTER (WHERE g > 2), regr_sxy(y, x) FILTER (WHERE g = 5) FROM s;
SELECT corr(1, 2), regr_r2(1, 2), regr_slope(2, 1);
SELECT regr_r2(y, x) FROM (VALUES (1::float8, 1::float8), (1, 2)) v(y, x);
SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), corr(y, x) FROM (VALUES ('Infinity'::float8, 1::float8), (1, 2)) v(y, x);
SELECT regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x) FROM (VALUES (1::float8, 'NaN'::float8)) v(y, x);
SELECT regr_count(y, x), regr_sxx(y,x) FROM (VALUES (1::float8, 'Infinity'::float8), (2, 'Infinity')) v(y, x);
SELECT regr_sxx(y, x) FROM (VALUES (1e308::float8, 1e308::float8), (-1e308, -1e308)) v(y, x);
SELECT corr(y, x) FROM (VALUES (1e300::float8, 1e300::float8), (-1e300, 2)) v(y, x);
SELECT corr('a', 1);
SELECT corr(y) FROM s;
SELECT regr_count(y, x, 1) FROM s;

-- In a materialized view the aggregates keep their state under
-- inserts, deletes and updates.
CREATE TABLE t (g int, y float8, x float8);
INSERT INTO t VALUES (1, 1, 2), (1, 2, 4), (1, 3, 5), (2, 4, 4), (2, NULL, 1), (3, 7, 7);
CREATE MATERIALIZED VIEW tm AS SELECT g, regr_count(y, x) AS c, round(corr(y, x)::numeric, 10) AS r, round(regr_slope(y, x)::numeric, 10) AS s,
  round(regr_intercept(y, x)::numeric, 10) AS i, round(covar_samp(y, x)::numeric, 10) AS cs, round(regr_sxx(y, x)::numeric, 10) AS sxx, regr_avgy(y, x) AS ay FROM t GROUP BY g;
SELECT * FROM tm ORDER BY g;
INSERT INTO t VALUES (1, 10, 3), (2, 5, 6), (3, 8, 9);
DELETE FROM t WHERE y = 2;
UPDATE t SET x = 3 WHERE g = 3 AND y = 7;
REFRESH MATERIALIZED VIEW tm;
SELECT * FROM tm ORDER BY g;
DELETE FROM t WHERE g = 2;
REFRESH MATERIALIZED VIEW tm;
CREATE MATERIALIZED VIEW tm2 AS SELECT regr_count(y, x) AS c, regr_avgx(y, x) AS ax, covar_pop(y, x) IS NULL AS nul FROM t;
SELECT * FROM tm2;
DELETE FROM t;
REFRESH MATERIALIZED VIEW tm2;
REFRESH MATERIALIZED VIEW tm;
SELECT * FROM tm2;
SELECT * FROM tm;
CREATE TABLE w (g int, i int, y float8, x float8);
INSERT INTO w VALUES (1, 1, 1, 2), (1, 2, 2, 4), (1, 3, 3, 5), (2, 4, 4, 4), (2, 5, 1, 1);
CREATE MATERIALIZED VIEW wm AS SELECT i, regr_count(y, x) OVER (PARTITION BY g) AS c,
  round(CAST(regr_slope(y, x) OVER (PARTITION BY g ORDER BY i) AS numeric), 8) AS s FROM w;
CREATE MATERIALIZED VIEW dm AS SELECT g, corr(DISTINCT y, x) AS c, regr_count(y, x) AS n FROM w GROUP BY g;
SELECT * FROM wm ORDER BY i;
SELECT * FROM dm ORDER BY g;
INSERT INTO w VALUES (1, 6, 9, 1), (1, 7, 9, 1);
DELETE FROM w WHERE i = 4;
REFRESH MATERIALIZED VIEW wm;
REFRESH MATERIALIZED VIEW dm;
SELECT * FROM wm ORDER BY i;
SELECT * FROM dm ORDER BY g;

-- The errors' SQLSTATEs.
\set VERBOSITY sqlstate
SELECT array_position(ARRAY[1,2], 1, NULL);
SELECT jsonb_set('1', '{a}', '2');
SELECT jsonb_set('[1]', '{x}', '2');
SELECT jsonb_set('{"a":{}}', '{a,NULL}', '2');
SELECT jsonb_insert('{"a":1}', '{a}', '2');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'raise_exception');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, true, 'nope');
SELECT '{"a":1}'::jsonb - 1;
SELECT '1'::jsonb - 'a';
SELECT '3'::jsonb #- '{a}';
SELECT 1 ^@ 2;
SELECT sha256('abc'::text);
SELECT regr_sxx(y, x) FROM (VALUES (1e308::float8, 1e308::float8), (-1e308, -1e308)) v(y, x);
SELECT corr(y) FROM s;
\set VERBOSITY default
