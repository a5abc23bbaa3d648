-- Views with INTERSECT ALL, EXCEPT ALL and NOT IN after a sequence of
-- INSERT, UPDATE and DELETE. On weir each view is a materialized view,
-- maintained incrementally; on PostgreSQL it is a plain view of the same
-- definition, computed from the tables at each SELECT.
SELECT version() LIKE '%(weir)%' AS weir \gset
\if :weir
\set view 'MATERIALIZED VIEW'
\else
\set view 'VIEW'
\endif
CREATE TABLE l (id int PRIMARY KEY, a int, b text);
CREATE TABLE r (id int PRIMARY KEY, a int, b text);
CREATE TABLE s (id int PRIMARY KEY, y bigint);
INSERT INTO l VALUES (1, 1, 'x'), (2, 1, 'x'), (3, 1, 'x'), (4, 2, 'y'), (5, NULL, NULL), (6, NULL, NULL), (7, 3, NULL);
INSERT INTO r VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 2, 'y'), (4, NULL, NULL), (5, 4, 'w');
INSERT INTO s VALUES (1, 2), (2, 40);
CREATE :view ex_all AS SELECT a, b FROM l EXCEPT ALL SELECT a, b FROM r;
CREATE :view in_all AS SELECT a, b FROM l INTERSECT ALL SELECT a, b FROM r;
CREATE :view ex_all_a AS SELECT a FROM l WHERE id > 1 EXCEPT ALL SELECT a FROM r WHERE b IS DISTINCT FROM 'w';
CREATE :view in_all_b AS SELECT b FROM l INTERSECT ALL SELECT b FROM r;
CREATE :view not_in AS SELECT id, a FROM l WHERE a NOT IN (SELECT y FROM s);
CREATE :view ne_all AS SELECT id, b FROM l WHERE b <> ALL (SELECT b FROM r WHERE a > 1) AND id < 7;
CREATE :view not_in_neg AS SELECT id FROM l WHERE NOT (a IN (SELECT a FROM r));
CREATE :view not_in_text AS SELECT id, b FROM l WHERE b NOT IN (SELECT b FROM r WHERE id > 1);
\set show 'SELECT * FROM ex_all ORDER BY 1, 2; SELECT * FROM in_all ORDER BY 1, 2; SELECT * FROM ex_all_a ORDER BY 1; SELECT * FROM in_all_b ORDER BY 1; SELECT * FROM not_in ORDER BY 1; SELECT * FROM ne_all ORDER BY 1; SELECT * FROM not_in_neg ORDER BY 1; SELECT * FROM not_in_text ORDER BY 1;'
:show
-- More copies on each side.
INSERT INTO r VALUES (6, 1, 'x'), (7, NULL, NULL), (8, 3, NULL);
INSERT INTO l VALUES (8, 2, 'y'), (9, 2, 'y'), (10, 4, 'w'), (11, NULL, 'z');
:show
-- The subquery of not_in gains a NULL: not_in is empty.
INSERT INTO s VALUES (3, NULL);
:show
-- Rows change their values, on both sides.
UPDATE l SET a = 3, b = 'w' WHERE id = 4;
UPDATE r SET a = 1, b = 'x' WHERE a IS NULL;
UPDATE s SET y = 3 WHERE y IS NULL;
:show
-- Rows go.
DELETE FROM r WHERE a = 1;
DELETE FROM l WHERE id IN (1, 5);
DELETE FROM s WHERE y = 2;
:show
-- The subqueries become empty: every row of l passes NOT IN.
DELETE FROM s;
DELETE FROM r;
:show
INSERT INTO r VALUES (20, 2, 'y'), (21, NULL, 'q');
INSERT INTO s VALUES (20, 1);
:show
DELETE FROM l;
:show
