-- FETCH FIRST ... WITH TIES, PostgreSQL 15's regular expression
-- functions, array containment and overlap, and pg_settings' columns.

-- FETCH FIRST n ROWS WITH TIES: the rows tying with the last one pass.
CREATE TABLE ft (a int, b text);
INSERT INTO ft VALUES (1, 'a'), (2, 'b'), (2, 'c'), (3, 'd'), (3, 'e'), (3, 'f'), (NULL, 'g');
SELECT * FROM ft ORDER BY a, b FETCH FIRST 2 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST 2 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH NEXT 4 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST ROW WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST ROWS WITH TIES;
SELECT a FROM ft ORDER BY a OFFSET 1 ROWS FETCH NEXT 1 ROW WITH TIES;
SELECT a FROM ft ORDER BY a OFFSET 5 FETCH FIRST 2 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST 0 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST 2.5 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a DESC NULLS LAST FETCH FIRST 4 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a NULLS FIRST FETCH FIRST 1 ROW WITH TIES;
SELECT a, count(*) FROM ft GROUP BY a ORDER BY count(*) DESC FETCH FIRST 1 ROW WITH TIES;
SELECT a FROM ft UNION ALL SELECT 3 ORDER BY 1 FETCH FIRST 4 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST (SELECT 1) ROWS WITH TIES;
SELECT b FROM (SELECT b FROM ft ORDER BY a FETCH FIRST 3 ROWS WITH TIES) s ORDER BY b;
SELECT DISTINCT ON (a) a, b FROM ft ORDER BY a, b DESC FETCH FIRST 2 ROWS WITH TIES;
SELECT * FROM ft FETCH FIRST 2 ROWS WITH TIES;
SELECT * FROM nosuch FETCH FIRST 2 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST NULL ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST (NULL) ROWS WITH TIES;
SELECT a FROM ft ORDER BY a FETCH FIRST -1 ROWS WITH TIES;
SELECT a FROM ft ORDER BY a LIMIT 2 WITH TIES;
PREPARE ties(int) AS SELECT a FROM ft ORDER BY a FETCH FIRST $1 ROWS WITH TIES;
EXECUTE ties(3);
EXECUTE ties(NULL);
DEALLOCATE ties;
CREATE MATERIALIZED VIEW ftm AS SELECT a, b FROM ft ORDER BY a FETCH FIRST 2 ROWS WITH TIES;
SELECT * FROM ftm ORDER BY a, b;
CREATE MATERIALIZED VIEW ftm2 AS SELECT a FROM ft ORDER BY a DESC FETCH FIRST 1 ROW WITH TIES;
SELECT * FROM ftm2;
CREATE MATERIALIZED VIEW ftm3 AS SELECT b FROM ft ORDER BY a FETCH FIRST 3 ROWS WITH TIES;
SELECT * FROM ftm3 ORDER BY b;

-- regexp_matches: set-returning, g for every match, the groups as text[].
SELECT regexp_matches('foobarbequebaz', '(bar)(beque)');
SELECT regexp_matches('foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g');
SELECT regexp_matches('abc', 'x');
SELECT regexp_matches('abc', 'b');
SELECT regexp_matches('abc', '(x)?b');
SELECT regexp_matches('ab', '(a)(b)(c)?');
SELECT regexp_matches('aAbB', 'a', 'gi');
SELECT regexp_matches(NULL, 'a');
SELECT regexp_matches('abc', '', 'g');
SELECT regexp_matches('aaa', 'a*', 'g');
SELECT regexp_matches('abab', '(a)(b)\1');
SELECT regexp_matches('abc', 'b', 'z');
SELECT * FROM regexp_matches('a1b2c3', '([a-z])(\d)', 'g') AS m;
SELECT regexp_matches('a1b2', '[a-z]\d', 'g'), 1 AS one;
SELECT regexp_replace('aaa', 'a*', 'X', 'g'), regexp_replace('abc', 'b*', 'X', 'g');

-- regexp_count, regexp_instr, regexp_substr and regexp_like.
SELECT regexp_count('ABCABCAXYaxy', 'A.'), regexp_count('ABCABCAXYaxy', 'A.', 1, 'i'), regexp_count('ABCABCAXYaxy', 'A.', 4);
SELECT regexp_count('abc', 'b', 10), regexp_count('abc', '', 1), regexp_count('aaa', 'a*'), regexp_count('abc', '', 4), regexp_count('abc', '', 5);
SELECT regexp_count('aaa', '^a', 2), regexp_count('a a a', '\ya', 2), regexp_count('héllo', 'l', 3);
SELECT regexp_count('abc', 'b', 0);
SELECT regexp_count('abc', 'b', 1, 'g');
SELECT regexp_count('abc', '(');
SELECT regexp_count('abc', '[a');
SELECT regexp_count('abc', 'a**');
SELECT regexp_count('abc', 'a{2,1}');
SELECT regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 0, 'i'), regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 0, 'i', 2),
	regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 1, 'i', 2), regexp_instr('ABCDEFCDEF', 'c', 1, 2, 0, 'i');
SELECT regexp_instr('abc', 'x'), regexp_instr('abc', 'b', 1, 1, 0, '', 1), regexp_instr('abc', 'b', 1, 1, 0, '', 5),
	regexp_instr('abcabc', 'b', 2, 2), regexp_instr('héllo', 'l'), regexp_instr('ab', '(x)?b', 1, 1, 0, '', 1);
SELECT regexp_instr('abc', 'b', 1, 0);
SELECT regexp_instr('abc', 'b', 1, 1, 2);
SELECT regexp_instr('abc', 'b', 1, 1, 0, '', -1);
SELECT regexp_instr('abc', 'b', 1, 1, 0, 'g');
SELECT regexp_substr('ABCDEF', 'c(.)(..)', 1, 1, 'i'), regexp_substr('ABCDEF', 'c(.)(..)', 1, 1, 'i', 2),
	regexp_substr('ABCDEF', 'x') IS NULL AS none, regexp_substr('abcabc', 'b.', 3), regexp_substr('héllo', 'l.', 1);
SELECT regexp_substr('a', '(x)?a', 1, 1, '', 1) IS NULL AS unmatched_group, regexp_substr('abc', 'b', 1, 2) IS NULL AS no_second;
SELECT regexp_substr('abc', 'b', 1, 1, 'g');
SELECT regexp_like('Hello World', 'world'), regexp_like('Hello World', 'world', 'i'), regexp_like(NULL, 'x') IS NULL AS null_in, regexp_like('abc', 'b', 'x');
SELECT regexp_like('Hello World', 'world', 'g');
SELECT regexp_count('abcabc'::varchar, 'b'::varchar), regexp_substr(b, '.'), regexp_like(b, '[a-c]') FROM ft WHERE a = 1;

-- substring with a POSIX pattern, and with a SQL pattern and an escape.
SELECT substring('foobar' FROM 'o.b'), substring('foobar' FROM 'o(.)b'), substring('foobar' FROM 'x') IS NULL AS none,
	substring('Thomas' FROM '...$'), substring('foo' FROM 'foo(bar)?') IS NULL AS unmatched_group;
SELECT substring('foobar' FROM '%#"o_b#"%' FOR '#'), substring('foobar' SIMILAR '%#"o_b#"%' ESCAPE '#'),
	substring('foobar' FROM '#"o_b#"%' FOR '#') IS NULL AS anchored, substring('foobar' FROM '%o_b%' FOR '#'),
	substring('Thomas' SIMILAR '%#"o_a#"_' ESCAPE '#'), substring('foobar', '%#"o_b#"%', '#');
SELECT substring('abcabc' SIMILAR '%#"b%#"' ESCAPE '#'), substring('abcabc' SIMILAR '%#"b%' ESCAPE '#'),
	substring('abcabc' SIMILAR 'a#"%#"c' ESCAPE '#'), substring('foobar' FROM 'o_b' FOR '') IS NULL AS none,
	substring('foobar' FROM NULL FOR '#') IS NULL AS null_pattern;
SELECT substring('foobar' SIMILAR '%#"o#"_#"b#"%' ESCAPE '#');
SELECT substring('foobar' FROM 'a' FOR 'xy');

-- Array containment and overlap for every element type.
SELECT ARRAY[1, 2] @> ARRAY[1], ARRAY[1, 2] <@ ARRAY[1], ARRAY[1, 2] && ARRAY[2, 3], ARRAY[1, 2] && ARRAY[3];
SELECT ARRAY['a', 'b'] @> ARRAY['a'], '{a,b}'::text[] <@ '{a,b,c}', '{a,b}'::text[] && '{c}';
SELECT ARRAY[1.0, 2]::numeric[] @> ARRAY[1.00]::numeric[], ARRAY[1.5::float8] @> ARRAY[1.5::float8],
	ARRAY['2020-01-01'::date] && ARRAY['2020-01-01'::date], ARRAY[true] @> ARRAY[false], ARRAY['x'::varchar] @> ARRAY['x'::varchar];
SELECT ARRAY[1, NULL] @> ARRAY[1], ARRAY[1, NULL] @> ARRAY[NULL::int], ARRAY[1] @> ARRAY[]::int[], ARRAY[]::int[] @> ARRAY[]::int[];
SELECT ARRAY[NULL::int] <@ ARRAY[NULL::int], ARRAY[1, NULL] && ARRAY[NULL, 2], ARRAY[NULL::int] && ARRAY[NULL::int];
SELECT NULL::int[] @> ARRAY[1], ARRAY[1] @> NULL, NULL::text[] && '{a}';
SELECT ARRAY[1, 2] && ARRAY[2, 3] AND true;
CREATE TABLE tg (id int, tags text[], nums numeric[]);
INSERT INTO tg VALUES (1, '{a,b}', '{1,2}'), (2, '{b,c}', '{2.0,3}'), (3, NULL, NULL), (4, '{a,NULL}', '{NULL}');
SELECT id FROM tg WHERE tags @> '{a}' ORDER BY id;
SELECT id FROM tg WHERE tags && ARRAY['c', 'a'] ORDER BY id;
SELECT id, tags <@ '{a,b,c}', nums @> '{2}' FROM tg ORDER BY id;
SELECT id FROM tg WHERE NOT (tags && '{a}') ORDER BY id;
SELECT 1 && 2;
SELECT ARRAY[1] @> ARRAY['a'];
SELECT ARRAY[1] <@ ARRAY[1.5];
SELECT '{a}' @> '{a}';
SELECT '{a}' && '{b}';
SELECT ARRAY[1]::int8[] @> ARRAY[1]::int4[];
SELECT ARRAY[1] = ARRAY[1] && ARRAY[2];
SELECT '{"a":1}'::jsonb @> '{"a":1}', '{"a":1}'::jsonb <@ '{"a":1,"b":2}';

-- pg_settings: the value in the setting's unit, its type, bounds,
-- allowed values, boot and reset values, context and category.
SELECT name, setting, unit, vartype, min_val, max_val, enumvals, boot_val, reset_val, context, category, short_desc, source
FROM pg_settings
WHERE name IN ('work_mem', 'statement_timeout', 'lock_timeout', 'idle_session_timeout', 'idle_in_transaction_session_timeout',
	'extra_float_digits', 'IntervalStyle', 'bytea_output', 'client_min_messages', 'default_transaction_isolation',
	'transaction_isolation', 'transaction_read_only', 'row_security', 'standard_conforming_strings', 'integer_datetimes',
	'max_identifier_length', 'search_path')
ORDER BY name;
SET work_mem = '64MB';
SET statement_timeout = '2s';
SELECT name, setting, unit, source, reset_val FROM pg_settings WHERE name IN ('work_mem', 'statement_timeout') ORDER BY name;
SHOW work_mem;
RESET work_mem;
RESET statement_timeout;
SELECT name, setting, source FROM pg_settings WHERE name IN ('work_mem', 'statement_timeout') ORDER BY name;
SELECT count(*) FROM pg_settings WHERE name = 'is_superuser';
SELECT setting::int * 1024 AS bytes FROM pg_settings WHERE name = 'work_mem';
\dconfig+ work_mem
\dconfig+ lock_timeout
