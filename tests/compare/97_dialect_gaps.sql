-- PostgreSQL forms the TiDB parser under weir's bridge reads otherwise.
-- LIKE, ILIKE and SIMILAR TO take any expression after ESCAPE: a
-- multi-byte character, a column, NULL, an expression; more than one
-- character is 22025 (like_escape's check), and errors point at the
-- operator as PostgreSQL's do.
CREATE TABLE esc97 (a text, e text);
INSERT INTO esc97 VALUES ('a%b', 'é'), ('aéb', 'x'), ('ab', NULL), ('a_b', '');
SELECT 'aé%' LIKE 'aéé%' ESCAPE 'é', 'a%' ILIKE 'A%' ESCAPE 'é', 'a%' NOT LIKE 'a%' ESCAPE 'é';
SELECT 'a%' NOT ILIKE 'A!%' ESCAPE '!', 'a%' LIKE 'a%' ESCAPE '', 'a%' LIKE 'a%' ESCAPE NULL;
SELECT 'ax' LIKE 'axx' ESCAPE 'x' || '', 'a_' LIKE 'a$_' ESCAPE '$' AND true, 'a' LIKE 'a' ESCAPE 'x' = true;
SELECT 'a%' SIMILAR TO 'aé%' ESCAPE 'é', 'a%' NOT SIMILAR TO 'a%' ESCAPE 'é';
SELECT a, a LIKE 'a%' ESCAPE e AS l, a ILIKE 'Aé%' ESCAPE e AS i, a NOT LIKE '%' ESCAPE e AS n FROM esc97 ORDER BY a;
SELECT CASE WHEN 'a%' LIKE 'a!%' ESCAPE '!' THEN 1 END;
SELECT 'a%' LIKE 'a%' ESCAPE 'ab';
SELECT 'a%' ILIKE 'a%' ESCAPE 'éé';
SELECT 'a%' SIMILAR TO 'a%' ESCAPE 'ab';
SELECT a FROM esc97 WHERE a LIKE 'a' ESCAPE a || 'x';
SELECT 'a' LIKE 'a' ESCAPE 1;
SELECT 'a' NOT ILIKE 'a' ESCAPE 1;
SELECT 'a' NOT LIKE 1 ESCAPE 'x';
SELECT 'a' SIMILAR TO 'a' ESCAPE 1;
SELECT 'a' NOT SIMILAR TO 'a' ESCAPE 1;
SELECT 1 LIKE 'a';
SELECT 1 NOT ILIKE 'a';
SELECT 1 NOT SIMILAR TO 'a';
SELECT 1 !~~ 'a', 2;
SELECT 1 !~* 'a';
SELECT 'a' LIKE 'a' ESCAPE;
SELECT 'a' !~~* 'a' ESCAPE 'x';
CREATE VIEW esc97_v AS SELECT a, a LIKE 'aé%b' ESCAPE 'é' AS l, a ILIKE 'A%' ESCAPE e AS i,
  a NOT LIKE 'a%' ESCAPE '' AS n, a NOT ILIKE 'a%' ESCAPE e || '' AS ni, a SIMILAR TO 'a%' ESCAPE 'é' AS s FROM esc97;
SELECT pg_get_viewdef('esc97_v');
SELECT * FROM esc97_v ORDER BY a;
CREATE MATERIALIZED VIEW esc97_m AS SELECT a, a LIKE 'aé%b' ESCAPE 'é' AS l, a NOT ILIKE 'A%' ESCAPE e AS i FROM esc97;
SELECT pg_get_viewdef('esc97_m');
SELECT * FROM esc97_m ORDER BY a;
DROP TABLE esc97 CASCADE;
