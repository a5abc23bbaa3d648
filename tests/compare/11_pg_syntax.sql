-- FILTER (WHERE c) decides which rows an aggregate sees; it is not a
-- CASE in the argument: aggregates that keep NULLs or count rows differ.
CREATE TABLE flt (id int PRIMARY KEY, g int, x int, s text);
INSERT INTO flt VALUES (1, 1, 10, 'a'), (2, 1, NULL, NULL), (3, 2, 30, 'c'), (4, 2, NULL, 'd');
SELECT array_agg(x) FILTER (WHERE false) AS none, array_agg(x) FILTER (WHERE true) AS all_rows,
  array_agg(x ORDER BY id) FILTER (WHERE id > 1) AS some_rows FROM flt;
SELECT count(*) FILTER (WHERE x IS NULL) AS null_rows, count(x) FILTER (WHERE id < 3) AS counted,
  count(*) FILTER (WHERE false) AS zero, count(DISTINCT g) FILTER (WHERE s IS NOT NULL) AS dg FROM flt;
SELECT count(*) FILTER (WHERE NULL) AS unknown_null, sum(x) FILTER (WHERE 'true') AS unknown_text FROM flt;
SELECT jsonb_agg(x ORDER BY id) FILTER (WHERE g = 1) AS j, jsonb_agg(x) FILTER (WHERE id > 9) AS jnone,
  jsonb_agg(s ORDER BY id) FILTER (WHERE x IS NULL) AS js,
  string_agg(s, ',' ORDER BY id) FILTER (WHERE id <> 3) AS sa FROM flt;
SELECT g, array_agg(x ORDER BY id) FILTER (WHERE x IS NULL) AS nulls, sum(x) FILTER (WHERE id > 1) AS s,
  count(*) FILTER (WHERE s > 'a') AS c, max(s) FILTER (WHERE x IS NULL) AS m
  FROM flt GROUP BY g ORDER BY g;
SELECT count(*) FILTER (WHERE x > 0) AS a, count(*) FILTER (WHERE x > 5) AS b FROM flt
  HAVING count(*) FILTER (WHERE x > 0) > 1;
SELECT array_agg(DISTINCT g) FILTER (WHERE x IS NULL) AS dnull FROM flt;
SELECT count(*) FILTER (WHERE true), sum(x) FILTER (WHERE g = 2) FROM flt;
SELECT sum(x) FILTER (WHERE 1) FROM flt;
SELECT sum(x) FILTER (WHERE count(*) > 1) FROM flt;
SELECT lower(s) FILTER (WHERE true) FROM flt;
SELECT id, sum(x) FILTER (WHERE id > 1) OVER (ORDER BY id) AS running FROM flt ORDER BY id;
-- SIMILAR TO: PostgreSQL's translation of the pattern to a regex.
SELECT 'abc' SIMILAR TO 'abc' AS a, 'abc' SIMILAR TO 'a' AS b, 'abc' SIMILAR TO '%(b|d)%' AS c,
  'abd' SIMILAR TO 'a_(c|d)' AS d, 'abc' NOT SIMILAR TO '_b_' AS e, 'a.c' SIMILAR TO 'a.c' AS f,
  'abc' SIMILAR TO 'a.c' AS g, 'aaa' SIMILAR TO 'a+' AS h, 'ab' SIMILAR TO 'a{2}' AS i,
  'a$b' SIMILAR TO 'a$b' AS j, 'a^b' SIMILAR TO 'a^b' AS k, 'x' SIMILAR TO '[a-z]' AS l;
-- A newline is a character like any other to '%', '_' and '.'.
SELECT E'a\nb' SIMILAR TO 'a%b' AS m, E'a\nb' SIMILAR TO 'a_b' AS n, E'a\nb' ~ 'a.b' AS o,
  regexp_replace(E'x\ny', '.', '-', 'g') AS p, E'a\nb' ~ '^b' AS q;
SELECT '10%' SIMILAR TO '10#%' ESCAPE '#' AS a, '10x' SIMILAR TO '10#%' ESCAPE '#' AS b,
  'a_b' SIMILAR TO 'a\_b' AS c, 'axb' SIMILAR TO 'a\_b' AS d, 'a\b' SIMILAR TO 'a\b' ESCAPE '' AS e,
  'abc' SIMILAR TO 'a' || '%' AS f, 'abc' SIMILAR TO 'abc' ESCAPE NULL AS g, NULL SIMILAR TO 'a' AS h,
  'ab' NOT SIMILAR TO 'a%' ESCAPE '!' AS i, 'abc' SIMILAR TO 'ABC' AS j;
SELECT similar_to_escape('a%b_c'), similar_to_escape('a#%b', '#'), similar_to_escape('(a|b).\$'),
  similar_to_escape('a#"b#"c', '#'), similar_to_escape('[%_]x'), similar_to_escape('x', '');
SELECT id FROM flt WHERE s SIMILAR TO '(a|c)' ORDER BY id;
SELECT count(*) FROM flt WHERE s NOT SIMILAR TO '[ab]%' AND id > 0;
SELECT 'a' SIMILAR TO 'a' ESCAPE 'xy';
SELECT similar_to_escape('a#"b#"c#"d#"e', '#');
-- overlay(s PLACING r FROM n [FOR m]) on text and bytea.
SELECT overlay('Txxxxas' PLACING 'hom' FROM 2 FOR 4) AS a, overlay('abcdef' PLACING 'XY' FROM 3) AS b,
  overlay('abcdef' PLACING 'XY' FROM 3 FOR 0) AS c, overlay('abc' PLACING 'XY' FROM 10) AS d,
  overlay('abcdef' PLACING '' FROM 2 FOR 2) AS e, overlay('abcdef' PLACING 'X' FROM 3 FOR -1) AS f,
  overlay('héllo' PLACING 'É' FROM 2 FOR 1) AS g, overlay('abc', 'Z', 2) AS h, overlay('abc', 'Z', 1, 3) AS i;
SELECT overlay('\x1234567890'::bytea PLACING '\002\003'::bytea FROM 2 FOR 3) AS a,
  overlay('\xaabbcc'::bytea PLACING '\xff'::bytea FROM 2) AS b, overlay('\xaabb'::bytea PLACING '\x00'::bytea FROM 5) AS c;
SELECT overlay(s PLACING 'Z' FROM 1) AS o FROM flt ORDER BY id;
SELECT overlay('abc' PLACING 'x' FROM 0);
SELECT overlay(NULL PLACING 'x' FROM 1) IS NULL AS n;
SELECT overlay('abc' PLACING 'x' FROM 2), 'a' SIMILAR TO 'a', 'a' NOT SIMILAR TO 'b' ESCAPE '#';
-- An empty target list: one row (or one per input row) with no columns.
SELECT;
SELECT FROM flt;
SELECT FROM flt WHERE id > 2;
SELECT ALL FROM flt WHERE id = 1;
SELECT FROM flt GROUP BY g ORDER BY g;
SELECT count(*) FROM (SELECT FROM flt) AS z;
SELECT id FROM flt WHERE EXISTS (SELECT FROM flt AS f2 WHERE f2.g = flt.g AND f2.id > flt.id) ORDER BY id;
SELECT UNION ALL SELECT;
-- partition is an unreserved keyword: a column may take it as a name,
-- and PARTITION BY still opens a window's partitioning.
CREATE TABLE parts (partition int, v int);
INSERT INTO parts VALUES (1, 10), (1, 20), (2, 5);
SELECT partition, parts.partition AS p2, sum(v) OVER (PARTITION BY partition ORDER BY v) AS running
  FROM parts ORDER BY partition, v;
-- Regular expression options: newline sensitivity (n, p, w, s), expanded
-- syntax (x), literal patterns (q), case (c after i), \y \Y \Z.
SELECT regexp_split_to_array(E'a\nb', '^', 'n')::text AS n_caret, regexp_split_to_array(E'a\nb', '^')::text AS caret;
SELECT regexp_replace(E'a\nb', 'a.b', 'X') AS dot, regexp_replace(E'a\nb', 'a.b', 'X', 'n') AS dot_n,
  regexp_replace(E'a\nb', 'a[^x]b', 'X', 'p') AS bracket_p, regexp_replace(E'a\nb', 'b$', 'X', 'w') AS dollar_w,
  regexp_replace(E'a\nb', 'a$', 'X', 'p') AS dollar_p, regexp_replace(E'a\nb', 'a$', 'X', 'n') AS dollar_n;
SELECT regexp_split_to_array('a b', ' # comment', 'x') AS x_split, regexp_replace('a b c', ' b # x', 'Z', 'x') AS x_repl,
  regexp_replace('a b c', '[ ]b', 'Z', 'x') AS x_bracket;
SELECT regexp_replace('a.b.c', '.', '-', 'gq') AS literal, regexp_replace('ABC', 'b', 'x', 'ic') AS i_then_c,
  regexp_replace('ABC', 'b', 'x', 'ci') AS c_then_i;
SELECT regexp_replace('one two', '\y', '|', 'g') AS y, regexp_replace('one two', 'o\Y', '0', 'g') AS not_y,
  regexp_replace('ab', 'b\Z', 'X') AS end_z, regexp_match('one two', '[[:alpha:]]+$')::text AS class,
  regexp_replace('one two to', '\mt', 'T', 'g') AS m_start, regexp_replace('one tone', 'e\M', 'E', 'g') AS m_end;
