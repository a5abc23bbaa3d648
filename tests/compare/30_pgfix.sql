-- Gaps against PostgreSQL 15 closed together: pattern matching with ANY/ALL,
-- cursors (WHERE CURRENT OF, rows computed as fetched), errors and notices.

-- LIKE, ILIKE and the regular-expression operators quantified over arrays
-- and subqueries, with ANY's and ALL's NULL rules.
SELECT 'abc' LIKE ANY (ARRAY['a%', 'x%']), 'abc' LIKE ALL (ARRAY['a%', 'x%']), 'abc' NOT LIKE ALL (ARRAY['x%', 'y%']);
SELECT 'ABC' ILIKE ANY (ARRAY['a%']), 'abc' NOT ILIKE ANY ('{A%,b%}'), 'abc' ~ ANY ('{^b,c$}'), 'ABC' ~* ALL ('{^a,c$}'), 'abc' !~ ALL ('{x,y}'), 'abc' !~* SOME ('{A,x}');
SELECT 'abc' ~~ ANY ('{a%}'), 'abc' !~~ ALL ('{a%}'), 'abc' ~~* ANY ('{A%}'), 'abc' !~~* ANY ('{A%}');
SELECT NULL LIKE ANY ('{a}'), 'a' LIKE ANY ('{}'), 'a' LIKE ANY (NULL::text[]), 'a' LIKE ANY ('{b,NULL}'), 'a' LIKE ALL ('{a,NULL}');
CREATE TABLE pt (id int, s text, pats text[]);
INSERT INTO pt VALUES (1, 'apple', '{a%,%e}'), (2, 'berry', '{a%}'), (3, NULL, '{%}'), (4, 'cherry', NULL);
SELECT id, s LIKE ANY (pats) AS l_any, s LIKE ALL (pats) AS l_all, s ~ ANY (ARRAY['^b', 'y$']) AS re FROM pt ORDER BY id;
SELECT id FROM pt WHERE s || 'x' LIKE ANY (ARRAY['%yx', 'ax%']) ORDER BY id;
SELECT id FROM pt WHERE s NOT LIKE ALL (ARRAY['a%', 'b%']) AND id > 0 ORDER BY id;
SELECT id, s LIKE ANY (SELECT p FROM unnest(ARRAY['a%', 'c%']) p) AS sub, s ILIKE ALL (SELECT 'B%') AS suball FROM pt ORDER BY id;
SELECT id, s ~ ANY (SELECT '^' || left(s, 1) FROM pt) FROM pt ORDER BY id;
SELECT 1 LIKE ANY (ARRAY['1']);
SELECT 'a' = ANY ('{a,b}'), 'a' < ALL ('{b,c}');
CREATE MATERIALIZED VIEW mv AS SELECT id, s LIKE ANY (pats) AS l, s !~ ALL (ARRAY['^a', 'x']) AS r FROM pt;
SELECT * FROM mv ORDER BY id;
CREATE MATERIALIZED VIEW mv2 AS SELECT id FROM pt WHERE s LIKE ANY (SELECT 'a%');
SELECT * FROM mv2 ORDER BY id;
SELECT id FROM pt WHERE NOT s LIKE ANY (SELECT 'a%') ORDER BY id;
SELECT 'ab' NOT LIKE ANY (ARRAY['a%']) OR true, 'x' LIKE ANY (ARRAY['x']) = true;
