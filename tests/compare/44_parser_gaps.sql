-- A cast after a window function call applies to the whole call, OVER
-- clause included (a window call is one primary); so does an operator.
CREATE TABLE w (x int, y int, a float8);
INSERT INTO w VALUES (1, 10, 0.5), (2, 20, 1.5), (3, 40, 2.5), (4, 70, 3.5);
SELECT x, stddev(y) OVER (ORDER BY x)::numeric(10,3) AS s FROM w ORDER BY x;
SELECT x, row_number() OVER w::text AS r FROM w WINDOW w AS (ORDER BY x DESC) ORDER BY x;
SELECT count(*) FILTER (WHERE x > 1)::int AS c FROM w;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a)::int AS p, percentile_disc(0.5) WITHIN GROUP (ORDER BY a)::text AS q FROM w;
SELECT mode() WITHIN GROUP (ORDER BY x)::text AS m, stddev(y)::numeric(10,2) AS s FROM w;
SELECT sum(y) OVER (ORDER BY x)::text || '!' AS s FROM w ORDER BY x;
SELECT count(*) FILTER (WHERE x > 1) OVER (ORDER BY x)::int AS c, sum(x) FILTER (WHERE x > 1) OVER ()::text AS t FROM w ORDER BY x;
SELECT -sum(x) OVER ()::int AS c, sum(x) OVER ()::int::text AS d, rank() OVER (ORDER BY x)::float8 / 2 AS e FROM w ORDER BY x;
SELECT string_agg(x::text, ',') OVER (ORDER BY x)::varchar(3) AS m, lag(x, 1) OVER (ORDER BY x)::text AS l FROM w ORDER BY x;
SELECT x, count(*) OVER (PARTITION BY x % 2)::int AS p FROM w ORDER BY x;
SELECT x FROM w ORDER BY sum(y) OVER (ORDER BY x)::int DESC;
SELECT sum(x) OVER () ^ 2 AS a, 2 ^ sum(x) OVER () AS b FROM w;
SELECT sum(x) OVER ()::text COLLATE "C" AS a FROM w;
SELECT row_number() OVER ()::text || 'x' AS r, 1 AS one;
SELECT x FROM w ORDER BY count(*) OVER nosuch::int DESC;
SELECT count(*) OVER (nosuch ORDER BY x) FROM w;
SELECT string_agg('over', ')') OVER "Nosuch" FROM w;
SELECT sum(x) FILTER (WHERE x > 0) OVER nosuch FROM w;
-- Subscripts: after a parenthesised window call, not after a bare call.
SELECT (array_agg(x) OVER (ORDER BY x))[2] AS s, (array_agg(x) OVER (ORDER BY x))[1:2] AS t FROM w ORDER BY x;
SELECT (array_agg(x) FILTER (WHERE x > 1))[1] AS p, array_agg(x) FILTER (WHERE x > 1)::text AS q FROM w;
SELECT array_agg(x) OVER (ORDER BY x)[2] AS s FROM w;
SELECT array_agg(x) OVER w[1] FROM w;
SELECT array_agg(x)[1] FROM w;
SELECT array_agg(x) FILTER (WHERE x > 1)[1] AS p FROM w;
SELECT array_agg(x) WITHIN GROUP (ORDER BY x)[1] FROM w;
SELECT now()[1];
SELECT ARRAY[1,2][1];
SELECT '{1,2}'[1];
SELECT CASE WHEN true THEN ARRAY[1] END[1];
-- Subscripts by type: jsonb's are a path, a scalar has none, a second
-- subscript of a one-dimensional array finds nothing.
SELECT ('{"a":{"b":[5,6]}}'::jsonb)['a']['b'][1], ('{"a":1}'::jsonb)['x'], ('[1,2]'::jsonb)[0], ('[1,2]'::jsonb)['0'], ('[1,2]'::jsonb)[-1];
SELECT ('{"a":1}'::jsonb)[1:2];
SELECT ('{"a":1}'::json)['a'];
SELECT ('{"a":1}'::jsonb)[true];
SELECT (1)[1];
SELECT ('abc'::text)[1];
SELECT ('{1,2}'::int[])[1][1], ('{1,2}'::int[])[1][NULL], (NULL::int[])[1][1], (NULL::int[])[1:2][1], ('{1,2,3}'::int[])[1:2][1:1], ('{1,2}'::int[])[2:2][1];
CREATE TABLE arr (id int, a int[], t text[], j jsonb);
INSERT INTO arr VALUES (1, '{1,2}', '{x,y}', '{"k":[1,{"z":2}]}'), (2, NULL, NULL, NULL);
SELECT id, a[1], a[2:], (a)[1], t[2], j['k'][1]['z'], j['k'][0], (a[1:2])[1], a[1][1], a[1:1][1] FROM arr ORDER BY id;
SELECT (x[1])[1] FROM (SELECT a AS x FROM arr) s;
-- Field selection from a parenthesised expression: a row's field, the
-- functional notation, or 42809.
SELECT (ROW(1,'a'::text)).f2, (ROW(1,2)).f1, ('abc').upper, ('x'::text).length AS l, (1.5).round, (x * 2).sqrt FROM w ORDER BY x;
SELECT (ROW(1,2)).f3;
SELECT (sum(x) OVER ()).a FROM w;
SELECT (array_agg(x)).a FROM w;
SELECT ('{1}'::int[]).a;
SELECT (x + 1).a FROM w;
SELECT ('a').x;
SELECT (NULL).x;
SELECT (SELECT 1).x;
SELECT (w).x FROM w ORDER BY 1 LIMIT 1;
SELECT (x).abs, (-x).abs AS m, (w).y FROM w ORDER BY 1;
SELECT (x).a FROM w;
SELECT (nosuch).a FROM w;
SELECT x.a FROM w;
-- AT TIME ZONE after a window call; its errors name pg_catalog.timezone.
SELECT sum(x) OVER () AT TIME ZONE 'UTC' FROM w;
SELECT 1 AT TIME ZONE 'UTC';
SELECT now() AT TIME ZONE 1;

-- Named argument notation (name => value, name := value) for the
-- built-in functions PostgreSQL 15 declares with parameter names, with
-- their defaults.
SELECT make_interval(days => 3), make_interval(years := 1, hours => 2), make_interval(1, days => 2);
SELECT make_interval(), make_interval(1), make_interval(1, 2, 3, 4), make_interval(weeks => 1) = make_interval(0, 0, 1);
SELECT make_interval(DAYS => 3), make_interval("days" => 3), make_interval(days => NULL), make_interval(secs => 1.5, days => '2');
SELECT make_interval(days => 3)::text, pg_catalog.make_interval(days => 3), make_interval(days => 1 + 2, hours => (SELECT 4));
SELECT make_interval(days := 3) AS x, make_interval(days => 3, secs => 2) AS y;
SELECT make_date(day => 5, month => 2, year => 2021), make_time(hour => 1, min => 2, sec => 3);
SELECT make_timestamp(2020, 1, 2, hour => 3, min => 4, sec => 5.5);
SELECT make_timestamptz(year => 2020, month => 1, mday => 2, hour => 3, min => 4, sec => 5, timezone => 'UTC');
SELECT make_timestamptz(2020, 1, 2, 3, 4, 5, timezone => 'Europe/Paris');
SELECT jsonb_set_lax('{"a":1}', '{a}', NULL, null_value_treatment => 'delete_key'), jsonb_set_lax('{"a":1}', '{a}', NULL, create_if_missing => false);
SELECT jsonb_insert(jsonb_in => '[1]', path => '{0}', replacement => '2', insert_after => true), jsonb_set(jsonb_in => '[1]', path => '{0}', replacement => '2');
SELECT make_interval(days => x) FROM w ORDER BY 1;
SELECT make_interval(days => sum(x)::int) FROM w;
PREPARE named_p(int) AS SELECT make_interval(hours => $1);
EXECUTE named_p(5);
CREATE VIEW named_v AS SELECT make_interval(days => 3) AS d, make_interval(1) AS e, make_interval(1, mins => 2) AS f;
SELECT * FROM named_v;
CREATE VIEW named_v1 AS SELECT make_interval(1, mins => 2) AS f;
CREATE VIEW named_v2 AS SELECT make_interval() AS g;
\d+ named_v1
\d+ named_v2
CREATE TABLE named_t (k int, d interval DEFAULT make_interval(days => 2));
INSERT INTO named_t (k) VALUES (1);
SELECT * FROM named_t;
\d named_t
SELECT * FROM json_each(from_json => '{"a":1,"b":[2]}') ORDER BY 1;
SELECT jsonb_array_elements(from_json => '[1,2]');
SELECT * FROM jsonb_array_elements_text(from_json := '[1,"x"]') WITH ORDINALITY;
-- Errors as PostgreSQL gives them.
SELECT * FROM json_each(js => '{}');
SELECT jsonb_array_elements(js => '[1]');
SELECT * FROM json_array_elements('[1]'::json, from_json => '[2]');
SELECT * FROM unnest(x => ARRAY[1]);
SELECT make_interval(1, years => 2);
SELECT make_interval(days => 1, 2);
SELECT make_interval(days => 1, days => 2);
SELECT make_interval(dayz => 1);
SELECT make_interval(dayz => 'x', 'y');
SELECT make_interval("Days" => 3);
SELECT make_interval(1, 2, 3, 4, 5, 6, 7.5, 8);
SELECT make_interval(days => 1.5);
SELECT make_interval(days => 'x');
SELECT make_date(year => 2020, month => 1);
SELECT make_date(year => 2020, month => 2, day => 30);
SELECT make_timestamptz(2020, 1, 2, 3, 4, 5, zone => 'Europe/Paris');
SELECT jsonb_extract_path(from_json => '{"a":1}', path_elems => '{a}');
SELECT lower(x => 'a');
SELECT count(x => 1);
SELECT sum(x => 1) OVER ();
SELECT x, row_number(x => 1) OVER () FROM w;
SELECT string_agg(x => 'a', ',') FROM w;
SELECT stddev(x => 1) OVER () FROM w;
SELECT generate_series(start => 1, stop => 2);
SELECT * FROM generate_series(start => 1, stop => 2);
SELECT coalesce(a => 1);
SELECT (a => 1);

-- SET SESSION AUTHORIZATION: the session (its authenticated role a
-- superuser) becomes another role, session_user and current_user, with
-- that role's privileges, until RESET.
CREATE ROLE pg44_plain LOGIN;
CREATE ROLE pg44_other;
CREATE TABLE pg44_secret (v int);
INSERT INTO pg44_secret VALUES (7);
SELECT session_user, current_user;
SHOW session_authorization;
SET SESSION AUTHORIZATION pg44_plain;
SELECT session_user, current_user;
SHOW session_authorization;
SHOW SESSION AUTHORIZATION;
SHOW role;
SELECT * FROM pg44_secret;
SET ROLE root;
SET SESSION AUTHORIZATION root;
SET SESSION AUTHORIZATION DEFAULT;
SELECT session_user, current_user;
SELECT * FROM pg44_secret;
SET ROLE pg44_other;
SELECT session_user, current_user;
SET SESSION AUTHORIZATION 'pg44_plain';
SELECT session_user, current_user;
SHOW role;
RESET SESSION AUTHORIZATION;
SELECT session_user, current_user;
SELECT * FROM pg44_secret;
SET SESSION AUTHORIZATION nosuch;
SET SESSION AUTHORIZATION "PG44_PLAIN";
BEGIN;
SET SESSION AUTHORIZATION pg44_plain;
SELECT session_user, current_user;
ROLLBACK;
SELECT session_user, current_user;
BEGIN;
SET LOCAL SESSION AUTHORIZATION pg44_plain;
SELECT session_user;
COMMIT;
SELECT session_user;
SET SESSION AUTHORIZATION pg44_plain;
RESET ALL;
SELECT session_user, current_user;
SET session_authorization = pg44_other;
SET session_authorization TO DEFAULT;
RESET session_authorization;
SELECT session_user, current_user;
SET SESSION SESSION AUTHORIZATION pg44_plain;
SELECT set_config('session_authorization', 'pg44_plain', false);
SELECT session_user, current_user;
SELECT current_setting('session_authorization'), current_setting('is_superuser');
RESET SESSION AUTHORIZATION;
SELECT current_setting('is_superuser');
SET SESSION AUTHORIZATION pg44_plain;
SET SESSION AUTHORIZATION pg44_other;
SELECT session_user, current_user;
SET SESSION AUTHORIZATION DEFAULT;
-- DISCARD ALL gives the session user back; DISCARD PLANS keeps settings.
SET work_mem = '1MB';
DISCARD PLANS;
SHOW work_mem;
SET SESSION AUTHORIZATION pg44_plain;
DISCARD SEQUENCES;
SELECT session_user, current_user;
DISCARD ALL;
SELECT session_user, current_user;
SHOW work_mem;
BEGIN;
DISCARD ALL;
ROLLBACK;
DROP TABLE pg44_secret;
DROP ROLE pg44_plain;
DROP ROLE pg44_other;
