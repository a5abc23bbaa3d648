-- Row constructors in comparisons, quantified comparisons (op ANY/ALL
-- over subqueries and arrays) and NOT IN anywhere in a query, with
-- PostgreSQL's NULL rules and errors; then materialized views over them
-- after INSERT, UPDATE and DELETE (plain views on PostgreSQL).
CREATE TABLE t (id int PRIMARY KEY, a int, b text, n numeric, arr int[]);
CREATE TABLE u (id int PRIMARY KEY, x int, y text);
INSERT INTO t VALUES (1, 1, 'a', 1.5, '{1,2}'), (2, 1, 'b', 2, '{}'), (3, 2, 'a', NULL, '{3,NULL}'),
  (4, NULL, 'a', 0, NULL), (5, 2, NULL, 2.5, '{2,2}'), (6, NULL, NULL, NULL, '{}');
INSERT INTO u VALUES (1, 1, 'a'), (2, 2, 'b'), (3, NULL, 'a'), (4, 3, NULL);

-- Row comparisons: = and <> field by field, the others in order, NULL
-- at the first pair that holds one.
SELECT id, (a, b) = (1, 'a') AS eq, (a, b) <> (1, 'a') AS ne, (a, b) < (2, 'a') AS lt,
  (a, b) <= (2, 'a') AS le, (a, b) > (1, 'a') AS gt, (a, b) >= (1, 'b') AS ge FROM t ORDER BY id;
SELECT id, (a, b, n) > (1, 'a', 1.5) AS gt, (a, b, n) >= (1, 'a', 1.5) AS ge, (a, n) < (2, 3) AS lt FROM t ORDER BY id;
SELECT (1, 2, 3) < (1, 3, NULL), (1, NULL, 3) < (2, 1, 1), (1, NULL) < (1, 2), (NULL, 1) = (NULL, 2), (NULL, 1) <> (NULL, 2);
SELECT ROW(1, 2) = ROW(1, 2), ROW(1, 'x') <> ROW(1, 'y'), ROW(1, 2.5) <= ROW(1, 2.5);
SELECT id FROM t WHERE (a, b) = (1, 'a');
SELECT id FROM t WHERE ROW(a, b) = ROW(2, 'a');
SELECT id FROM t WHERE (a, b) > (1, 'a') AND (a, b) <= (2, 'a') ORDER BY id;
SELECT id, (a, b) IS DISTINCT FROM (1, 'a') AS d, (a, b) IS NOT DISTINCT FROM (NULL, 'a') AS nd FROM t ORDER BY id;
SELECT ROW(1, 2) IS DISTINCT FROM ROW(1, NULL), (1, NULL) IS NOT DISTINCT FROM (1, NULL);
SELECT id, ROW(a, b) IS NULL AS n, ROW(a, b) IS NOT NULL AS nn, (a, b) IS NULL AS n2, NOT (a, b) IS NULL AS not_n FROM t ORDER BY id;
SELECT id FROM t WHERE (a, b) IS NOT DISTINCT FROM (NULL, NULL) OR ROW(a, b) IS NULL ORDER BY id;
SELECT id, (a, b) IN ((1, 'a'), (2, 'a')) AS i, (a, b) NOT IN ((1, 'a'), (2, 'a')) AS ni FROM t ORDER BY id;
SELECT id, CASE WHEN (a, b) = (1, 'a') THEN 'one' WHEN (a, b) IN ((2, 'a'), (2, NULL)) THEN 'two' END FROM t ORDER BY id;
SELECT count(*) FILTER (WHERE (a, b) < (2, 'z')) FROM t;
SELECT t.id, u.id FROM t JOIN u ON (t.a, t.b) = (u.x, u.y) ORDER BY 1, 2;

-- Rows against a subquery's rows.
SELECT id, (a, b) IN (SELECT x, y FROM u) AS i, (a, b) NOT IN (SELECT x, y FROM u) AS ni FROM t ORDER BY id;
SELECT id, (a, b) = (SELECT x, y FROM u WHERE id = 1) AS e FROM t ORDER BY id;
SELECT id, (a, n) <= (SELECT 1, 2) AS le, (a, b) = (SELECT a, b FROM t WHERE id = 99) AS none FROM t ORDER BY id;
SELECT id, (a, b) < ALL (SELECT a, b FROM t WHERE id > 4) AS lt_all, (a, b) >= ANY (SELECT a, b FROM t WHERE id < 3) AS ge_any,
  (a, b) <> ALL (SELECT a, b FROM t WHERE id IN (1, 5)) AS ne_all FROM t ORDER BY id;
SELECT id FROM t WHERE (a, b) IN (SELECT a + 1, 'a' FROM t) ORDER BY id;
SELECT id FROM t WHERE (a, b) NOT IN (SELECT a, b FROM t t2 WHERE t2.id > t.id AND t2.a IS NOT NULL AND t2.b IS NOT NULL) ORDER BY id;

-- Quantified comparisons over subqueries, every operator.
SELECT id, a = ANY (SELECT x FROM u) AS any_eq, a < ANY (SELECT x FROM u) AS any_lt, a >= ALL (SELECT x FROM u WHERE x IS NOT NULL) AS all_ge,
  a <> SOME (SELECT x FROM u) AS some_ne, a > ALL (SELECT x FROM u) AS all_gt, a <= ALL (SELECT x FROM u WHERE x > 5) AS all_empty,
  a = ALL (SELECT x FROM u WHERE x = 1) AS all_eq, a <= ANY (SELECT x FROM u WHERE x > 5) AS any_empty FROM t ORDER BY id;
SELECT id FROM t WHERE a > ALL (SELECT x FROM u WHERE u.y = t.b) ORDER BY id;
SELECT id FROM t WHERE NOT (a < ANY (SELECT x FROM u)) ORDER BY id;

-- Quantified comparisons over arrays.
SELECT id, a = ANY (arr) AS e, a <> ALL (arr) AS ne, a < ANY (arr) AS lt, a >= ALL (arr) AS ge, a != SOME (arr) AS ne2, a = ALL (arr) AS ea FROM t ORDER BY id;
SELECT id, a = ANY (ARRAY[1, 2]) AS a1, a <> ALL (ARRAY[1, 3]) AS a2, a < ANY (ARRAY[2, NULL]) AS a3, a >= ALL (ARRAY[1, 2]) AS a4,
  a > SOME (ARRAY[1]) AS a5, a <= ALL ('{}'::int[]) AS a6, a = ALL (ARRAY[1]) AS a7 FROM t ORDER BY id;
SELECT id, n < ANY (ARRAY[1, 2]) AS x1, a < ALL (ARRAY[1.5, 3]) AS x2, n > ANY (arr) AS x3, b < ALL (ARRAY['b', 'c']) AS x4, b >= ANY ('{a,b}') AS x5 FROM t ORDER BY id;
SELECT 1 < ANY ('{1,2}'), 1 = ALL ('{1,1}'), NULL::int < ALL ('{}'), NULL::int > ANY ('{}'::int[]), 2 <= ALL (NULL::int[]);
SELECT 1 = ANY (ARRAY[1, NULL]), NULL::int = ANY ('{}'), NULL::int = ANY ('{1}'), 2 = ANY (NULL::int[]);
SELECT 1 < ANY (ARRAY(SELECT a FROM t)), 3 > ALL (ARRAY(SELECT a FROM t WHERE a IS NOT NULL));

-- NOT IN outside a WHERE conjunction, and correlated.
SELECT id, a NOT IN (SELECT x FROM u) AS ni, a NOT IN (SELECT x FROM u WHERE x IS NOT NULL) AS ni2 FROM t ORDER BY id;
SELECT id FROM t WHERE a NOT IN (SELECT x FROM u WHERE x IS NOT NULL) OR b = 'b' ORDER BY id;
SELECT id, CASE WHEN a NOT IN (SELECT x FROM u WHERE x > 1) THEN 'out' ELSE 'in' END FROM t ORDER BY id;
SELECT id FROM t WHERE a NOT IN (SELECT x FROM u WHERE u.y = t.b) ORDER BY id;
SELECT id, a NOT IN (SELECT x FROM u WHERE u.y = t.b) FROM t ORDER BY id;

-- Errors.
SELECT (1, 2) = (1, 2, 3);
SELECT (1, 2) < (1, 'x');
SELECT (1, 2) = 1;
SELECT 1 = (1, 2);
SELECT (1, 2) < 1;
SELECT (1, 2) = (SELECT x, y FROM u);
SELECT (a, b) = (SELECT a, b FROM t) FROM t;
SELECT (1, 2) IN (SELECT 1);
SELECT (1, 2) IN (SELECT 1, 2, 3);
SELECT (1, 2) NOT IN (SELECT 1);
SELECT (1, 2) = ANY (SELECT 1, 2, 3);
SELECT (1, 2) < ALL (SELECT a, b FROM t);
SELECT (1, 'a') IN (SELECT a, b FROM t), (1, 'a') IN (SELECT b, a FROM t);
SELECT (1, 2) IN ((1, 2), 3);
SELECT (1, 2) NOT IN ((1, 2), 3);
SELECT (1, 2) IN ((1, 2), (1, 2, 3));
SELECT (1, 2) IS NOT DISTINCT FROM (1, 'x');
SELECT 1 IN (SELECT 'x'::text);
SELECT 1 NOT IN (SELECT 'x'::text);
SELECT 1 = ANY (SELECT 'x'::text);
SELECT 1 <> ALL (SELECT 'x'::text);
SELECT 1 IN (SELECT 1, 2);
SELECT 1 < ALL (SELECT 1, 2);
SELECT 1 < ANY (1);
SELECT 1 = ANY (1);
SELECT 1 < ANY (ARRAY['x', 'y']);
SELECT 1 = ANY (ARRAY['x'::text]);
SELECT 'a' < ALL (ARRAY[1, 2]);
SELECT 1 < ANY (ARRAY(SELECT 'x'::text));
SELECT (1, 2) + 1;
SELECT (1, 2) * (1, 2);
SELECT (1, 2) + (1, 2, 3);

-- Records in a query's output: row constructors and whole-row
-- references, in record_out's text form.
CREATE TABLE w (id int PRIMARY KEY, a int, b text, n numeric);
INSERT INTO w VALUES (1, 1, 'a', 1.5), (2, NULL, 'b c', NULL), (3, 3, '', 2), (4, 4, 'x"y\z', 0), (5, 5, '(p,q)', -1), (6, NULL, NULL, NULL);
SELECT w FROM w ORDER BY id;
SELECT id, ROW(a, b) FROM w ORDER BY id;
SELECT ROW(1, 'x', NULL), (1, 'x'), ROW(ROW(1, 'a b'), 2), ROW(1.50, true, 'ab'::varchar, now() IS NULL);
SELECT x FROM (SELECT ROW(a, b) AS x, id FROM w) s ORDER BY id;
SELECT (SELECT ROW(a, b) FROM w WHERE id = 1) AS r;
SELECT w, w.id FROM w WHERE id < 3 ORDER BY w.id;
SELECT w1 FROM w w1 JOIN w w2 USING (id) WHERE w1.id < 3 ORDER BY w1.id;
SELECT ROW(a, b) FROM w WHERE id = 1 UNION ALL SELECT ROW(1, 'q');
SELECT ROW(w.*) FROM w ORDER BY id;
SELECT ROW(w.*, 42), ROW(0, w.*) FROM w ORDER BY id;
SELECT id FROM w WHERE ROW(w.*) IS NOT NULL ORDER BY id;
SELECT id FROM w WHERE ROW(w.*) = ROW(1, 1, 'a', 1.5);
SELECT ROW(x.*) FROM w x WHERE x.id = 1;
SELECT ROW(a, count(*)) FROM w GROUP BY a ORDER BY a;
SELECT ROW(a, b) FROM w GROUP BY a, b ORDER BY a, b;
SELECT w, row_number() OVER (ORDER BY id) FROM w ORDER BY id;
SELECT ROW(1), ROW(), ROW(NULL), ROW('');
SELECT ROW(1) = ROW(1), ROW(1) < ROW(2), ROW(NULL) IS NULL;
CREATE VIEW wv AS SELECT id, ROW(a, b) AS r FROM w;
CREATE MATERIALIZED VIEW wmv AS SELECT ROW(a, b) FROM w;
INSERT INTO w SELECT 9, ROW(1, 2), 'x';

-- Views, maintained incrementally on weir.
SELECT version() LIKE '%(weir)%' AS weir \gset
\if :weir
\set view 'MATERIALIZED VIEW'
\else
\set view 'VIEW'
\endif
CREATE TABLE l (id int PRIMARY KEY, a int, b text);
CREATE TABLE r (id int PRIMARY KEY, x int, y text);
INSERT INTO l VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'a'), (4, NULL, 'a'), (5, 2, NULL), (6, NULL, NULL), (7, 5, 'z');
INSERT INTO r VALUES (1, 1, 'a'), (2, 2, 'b'), (3, NULL, 'a'), (4, 3, NULL);
CREATE :view v_eq AS SELECT id FROM l WHERE (a, b) = (1, 'a') OR (a, b) >= (2, 'a');
CREATE :view v_in AS SELECT id FROM l WHERE (a, b) IN (SELECT x, y FROM r);
CREATE :view v_notin AS SELECT id FROM l WHERE (a, b) NOT IN (SELECT x, y FROM r);
CREATE :view v_lt_all AS SELECT id FROM l WHERE a < ALL (SELECT x FROM r);
CREATE :view v_ge_all AS SELECT id FROM l WHERE a >= ALL (SELECT x FROM r WHERE x IS NOT NULL);
CREATE :view v_eq_all AS SELECT id FROM l WHERE a = ALL (SELECT x FROM r WHERE y = 'a');
CREATE :view v_gt_any AS SELECT id FROM l WHERE a > ANY (SELECT x FROM r);
CREATE :view v_not_any AS SELECT id FROM l WHERE NOT (a < ANY (SELECT x FROM r));
CREATE :view v_not_all AS SELECT id FROM l WHERE NOT (a <= ALL (SELECT x FROM r));
CREATE :view v_row_lt_all AS SELECT id FROM l WHERE (a, b) < ALL (SELECT x, y FROM r WHERE x > 1);
CREATE :view v_corr AS SELECT id FROM l WHERE a NOT IN (SELECT x FROM r WHERE r.y = l.b);
CREATE :view v_corr_all AS SELECT id FROM l WHERE a > ALL (SELECT x FROM r WHERE r.y = l.b);
CREATE :view v_join AS SELECT l.id, r.id AS rid FROM l JOIN r ON (l.a, l.b) = (r.x, r.y);
CREATE :view v_distinct AS SELECT id FROM l WHERE (a, b) IS DISTINCT FROM (1, 'a') AND ROW(a, b) IS NOT NULL;
\set show 'SELECT * FROM v_eq ORDER BY 1; SELECT * FROM v_in ORDER BY 1; SELECT * FROM v_notin ORDER BY 1; SELECT * FROM v_lt_all ORDER BY 1; SELECT * FROM v_ge_all ORDER BY 1; SELECT * FROM v_eq_all ORDER BY 1; SELECT * FROM v_gt_any ORDER BY 1; SELECT * FROM v_not_any ORDER BY 1; SELECT * FROM v_not_all ORDER BY 1; SELECT * FROM v_row_lt_all ORDER BY 1; SELECT * FROM v_corr ORDER BY 1; SELECT * FROM v_corr_all ORDER BY 1; SELECT * FROM v_join ORDER BY 1, 2; SELECT * FROM v_distinct ORDER BY 1;'
:show
-- New rows on both sides.
INSERT INTO r VALUES (5, 0, 'b'), (6, 2, 'a');
INSERT INTO l VALUES (8, 0, 'b'), (9, -1, 'q');
:show
-- The subqueries lose their NULLs; a row changes.
DELETE FROM r WHERE x IS NULL;
UPDATE l SET a = 3 WHERE id = 7;
:show
-- The subqueries become empty: ALL holds, ANY fails, whatever the row.
DELETE FROM r;
:show
INSERT INTO r VALUES (10, 1, NULL);
:show
