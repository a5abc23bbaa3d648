-- Queries: aggregates, joins, subqueries, set operations, WITH, DISTINCT,
-- ORDER BY/LIMIT with NULLs, window functions.
CREATE TABLE dept (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO dept VALUES (1, 'eng'), (2, 'sales'), (3, 'ops'), (4, 'empty');
CREATE TABLE emp (id int PRIMARY KEY, name text, dept_id int, salary numeric(10,2), bonus float8, active boolean);
INSERT INTO emp VALUES (1, 'ann', 1, 100, 1.5, true), (2, 'bob', 1, 120.5, NULL, true), (3, 'cid', 2, 90, 0.5, false),
  (4, 'dee', 2, 90, 2, true), (5, 'eve', 3, NULL, NULL, NULL), (6, 'fay', NULL, 75.25, 1, true), (7, NULL, 1, 130, 3, false);
SELECT count(*), count(salary), count(DISTINCT salary), sum(salary), avg(salary), min(salary), max(salary) FROM emp;
SELECT sum(bonus), avg(bonus), stddev(salary), variance(salary), bool_and(active), bool_or(active) FROM emp;
SELECT string_agg(name, ', ' ORDER BY name DESC) AS names, array_agg(id ORDER BY id) AS ids FROM emp;
SELECT dept_id, count(*) AS n, sum(salary) AS total, round(avg(salary), 2) AS mean FROM emp GROUP BY dept_id ORDER BY dept_id NULLS FIRST;
SELECT dept_id, count(*) FROM emp GROUP BY dept_id HAVING count(*) > 1 ORDER BY 1;
SELECT e.name AS emp, d.name AS dept FROM emp e JOIN dept d ON e.dept_id = d.id ORDER BY e.id;
SELECT e.name, d.name FROM emp e LEFT JOIN dept d ON e.dept_id = d.id ORDER BY e.id;
SELECT e.name, d.name FROM emp e RIGHT JOIN dept d ON e.dept_id = d.id ORDER BY d.id, e.id;
SELECT e.name, d.name FROM emp e FULL JOIN dept d ON e.dept_id = d.id ORDER BY d.id NULLS FIRST, e.id NULLS FIRST;
SELECT count(*) FROM emp CROSS JOIN dept;
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE name <> 'eng') ORDER BY 1;
SELECT d.name, (SELECT max(salary) FROM emp e WHERE e.dept_id = d.id) AS top FROM dept d ORDER BY d.id;
SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.dept_id = d.id);
SELECT dept_id FROM emp UNION SELECT id FROM dept ORDER BY 1;
SELECT dept_id FROM emp INTERSECT SELECT id FROM dept ORDER BY 1;
SELECT id FROM dept EXCEPT SELECT dept_id FROM emp;
SELECT 1 AS a UNION ALL SELECT 1 UNION ALL SELECT 2 ORDER BY a;
WITH t AS (SELECT dept_id, sum(salary) s FROM emp GROUP BY dept_id) SELECT d.name, t.s FROM t JOIN dept d ON d.id = t.dept_id ORDER BY t.s DESC;
SELECT DISTINCT dept_id FROM emp ORDER BY dept_id;
SELECT DISTINCT ON (dept_id) dept_id, name FROM emp ORDER BY dept_id, salary DESC NULLS LAST;
SELECT id, salary FROM emp ORDER BY salary, id;
SELECT id, salary FROM emp ORDER BY salary DESC NULLS LAST, id LIMIT 3 OFFSET 1;
SELECT id, salary FROM emp ORDER BY salary NULLS FIRST, id DESC;
SELECT name, dept_id, row_number() OVER (PARTITION BY dept_id ORDER BY id) AS rn,
       rank() OVER (ORDER BY salary DESC NULLS LAST) AS rk,
       sum(salary) OVER (PARTITION BY dept_id) AS dept_total,
       lag(name) OVER (ORDER BY id) AS prev
  FROM emp ORDER BY id;
SELECT (SELECT id FROM emp);
SELECT name, count(*) FROM emp;
