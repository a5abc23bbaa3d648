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
