-- VARIADIC in function calls: the array supplies all of the variadic
-- arguments, also when it comes from a column and varies by row.
SELECT jsonb_extract_path('{"a":{"b":1}}', VARIADIC ARRAY['a','b']);
SELECT json_extract_path_text('{"a":{"b":1}}'::json, VARIADIC '{a,b}');
SELECT concat(VARIADIC ARRAY['a','b']);
SELECT format('%s-%s', VARIADIC ARRAY['x','y']);
SELECT jsonb_build_array(VARIADIC ARRAY[1,2]);
SELECT num_nonnulls(VARIADIC ARRAY[1,NULL]);
SELECT num_nulls(1, NULL, NULL), num_nonnulls(1, NULL, 'a');
SELECT jsonb_extract_path(from_json => '{"a":1}', VARIADIC path_elems => ARRAY['a']);
SELECT concat(VARIADIC NULL::text[]);
SELECT format('%s', VARIADIC ARRAY[]::text[]);
SELECT concat(VARIADIC ARRAY[]::text[]);
SELECT concat_ws(',', VARIADIC ARRAY[1,2,3]);
SELECT jsonb_build_object(VARIADIC ARRAY['a','1','b','2']);
SELECT jsonb_build_object(VARIADIC ARRAY['a','1','b']);
SELECT num_nulls(VARIADIC NULL::int[]);
SELECT jsonb_extract_path('{"a":1}', VARIADIC ARRAY['a']::varchar[]);
SELECT jsonb_extract_path('{"a":1}'::jsonb, VARIADIC NULL);
SELECT jsonb_extract_path('{"a":1}'::jsonb, VARIADIC NULL::text[]);
SELECT jsonb_build_object(VARIADIC ARRAY['a', 'b']), json_build_object(VARIADIC ARRAY['k', 'v']);
CREATE TABLE vt (id int, j jsonb, p text[], n int[]);
INSERT INTO vt VALUES (1, '{"a":{"b":1,"c":[5,6]}}', '{a,b}', '{1,NULL,3}'),
  (2, '{"a":{"b":1,"c":[5,6]}}', '{a,c,1}', NULL), (3, NULL, '{}', '{}'), (4, '{"a":2}', NULL, '{NULL}');
SELECT id, jsonb_extract_path(j, VARIADIC p), jsonb_extract_path_text(j, VARIADIC p) FROM vt ORDER BY id;
SELECT id, json_extract_path(j::json, VARIADIC p),
  json_extract_path_text(from_json => j::json, VARIADIC path_elems => p) FROM vt ORDER BY id;
SELECT id, concat(VARIADIC p), concat_ws('-', VARIADIC p), format('%s/%s', VARIADIC p) FROM vt WHERE id < 3 ORDER BY id;
SELECT id, num_nulls(VARIADIC n), num_nonnulls(VARIADIC n), jsonb_build_array(VARIADIC n), json_build_array(VARIADIC n)
  FROM vt ORDER BY id;
CREATE VIEW vv AS SELECT id, concat(VARIADIC p) AS c FROM vt;
SELECT * FROM vv ORDER BY id;
DROP VIEW vv;
-- A function without a variadic parameter takes the array as an ordinary
-- argument.
SELECT cardinality(VARIADIC ARRAY[1, 2]), count(VARIADIC ARRAY[1]);
SELECT array_length(VARIADIC ARRAY[1]);
SELECT sum(VARIADIC ARRAY[1]);
-- ORDER BY in the arguments of a function that is no aggregate.
SELECT lower('a' ORDER BY 1);
SELECT format(VARIADIC ARRAY['a'] ORDER BY 1);
SELECT concat(VARIADIC ARRAY['a'] ORDER BY 1);
SELECT concat('a', 'b' ORDER BY 1, 2);
SELECT count(VARIADIC ARRAY[1,2] ORDER BY 1);
SELECT jsonb_extract_path('{"a":1}', VARIADIC ARRAY['a'] ORDER BY 1);
SELECT nosuchfn(1 ORDER BY 1);
-- Errors: VARIADIC on a non-array (42804 for VARIADIC "any", else no
-- such function), on a function without a variadic parameter (42883),
-- not last or not in an ordinary call (42601).
SELECT concat(VARIADIC 1);
SELECT concat(VARIADIC NULL);
SELECT concat(VARIADIC id) FROM vt;
SELECT format('%s', VARIADIC p) FROM vt;
SELECT jsonb_extract_path('{"a":1}'::jsonb, VARIADIC 1);
SELECT abs(VARIADIC ARRAY[1]);
SELECT length(VARIADIC ARRAY['a']);
SELECT format(VARIADIC ARRAY['%s-%s','x','y']);
SELECT jsonb_extract_path('{"a":1}', VARIADIC ARRAY[1]);
SELECT jsonb_extract_path(from_json => '{"a":1}', VARIADIC path => ARRAY['a']);
SELECT jsonb_extract_path(path_elems => '{"a":1}', VARIADIC from_json => ARRAY['a']);
SELECT concat(VARIADIC ARRAY['a'], 'b');
SELECT concat('x', VARIADIC ARRAY['a'], 'b');
SELECT jsonb_extract_path('{"a":1}', VARIADIC ARRAY['a'], VARIADIC ARRAY['b']);
SELECT concat('a', VARIADIC);
SELECT VARIADIC 1;
SELECT coalesce(VARIADIC ARRAY[1]);
SELECT greatest(VARIADIC ARRAY[1,2]);
DROP TABLE vt;
-- (x).* of a column x of a scalar type: its type is not composite.
CREATE TABLE ct (x int, r text);
SELECT (x).* FROM ct;
SELECT (r).* FROM ct;
SELECT (nosuch).* FROM ct;
SELECT (x).f FROM ct;
SELECT (ct).* FROM ct;
SELECT (ct.x).* FROM ct;
SELECT (x + 1).* FROM ct;
SELECT (1).*;
SELECT ('a'::text).*;
SELECT ('a').*;
-- Parameters a simple query has not got.
SELECT $1;
SELECT 1 + $1;
SELECT x FROM ct WHERE x = $1;
INSERT INTO ct VALUES ($1, 'a');
PREPARE p AS SELECT $2::int;
PREPARE p3(int) AS SELECT $1::int;
EXECUTE p3(1, 2);
EXECUTE p3;
DEALLOCATE p3;
DROP TABLE ct;
-- $n is refused where it is met, before the rest of the statement.
CREATE TABLE pt (a int);
SELECT f($1) FROM pt;
SELECT nosuch($2, $1) FROM pt;
SELECT jsonb_extract_path('{}', VARIADIC $1);
SELECT $0;
SELECT $2, $1;
UPDATE pt SET a = $1;
DELETE FROM pt WHERE a = $1;
SELECT a FROM pt ORDER BY $1;
SELECT a FROM pt LIMIT $1;
SELECT count(*) FROM pt GROUP BY $1;
SELECT ARRAY[$1];
PREPARE p2(int) AS SELECT $2::int;
EXECUTE p2(1);
EXECUTE p2(1, 2);
DEALLOCATE p2;
DROP TABLE pt;
