-- PostgreSQL forms weir once refused as syntax errors and now runs as
-- PostgreSQL does: WITH ORDINALITY, FROM ONLY, LATERAL before a
-- function, row_to_json/to_json/to_jsonb of a whole row, a whole row
-- cast to text, (t).col, FOR NO KEY UPDATE / FOR KEY SHARE, ORDER BY
-- ... USING, WITHOUT OIDS, CREATE/DROP GROUP, DROP INDEX CONCURRENTLY,
-- TRUNCATE ONLY, WITH DATA, CREATE TABLE (LIKE other [INCLUDING
-- DEFAULTS]), SET ROLE / RESET ROLE (current_user changes, session_user
-- does not; only members may; transactions undo it), ROWS FROM and
-- unnest of several arrays, the array operators @>, <@ and &&, and
-- REFRESH MATERIALIZED VIEW.
CREATE TABLE t (a int PRIMARY KEY, b text, c numeric);
INSERT INTO t VALUES (1, 'one', 1.5), (2, 'two, "2"', NULL), (3, NULL, 0);
SELECT * FROM unnest(ARRAY[10, 20, 30]) WITH ORDINALITY;
SELECT * FROM unnest(ARRAY['x', 'y']) WITH ORDINALITY AS u(v, n);
SELECT x FROM unnest(array[1,2]) WITH ORDINALITY AS u(x, n);
SELECT n, g FROM generate_series(5, 7) WITH ORDINALITY AS g(g, n) ORDER BY n DESC;
SELECT * FROM generate_series(1, 2) WITH ORDINALITY AS s;
SELECT * FROM json_each('{"a": 1, "b": [2]}') WITH ORDINALITY;
SELECT key, ordinality FROM jsonb_each_text('{"k": "v", "j": "w"}') WITH ORDINALITY ORDER BY 2;
SELECT * FROM json_array_elements('[1, "x", null]') WITH ORDINALITY AS e(v, i);
SELECT t.a, o.* FROM t, unnest(ARRAY['p', 'q']) WITH ORDINALITY o ORDER BY 1, 3;
SELECT * FROM generate_series(1, 2) WITH ORDINALITY AS g(a, b, c);
SELECT * FROM ONLY t ORDER BY a;
SELECT * FROM t CROSS JOIN LATERAL generate_series(1, 2) g ORDER BY a, g;
SELECT row_to_json(t) FROM t ORDER BY a;
SELECT to_json(t) FROM t ORDER BY a;
SELECT to_jsonb(t) FROM t ORDER BY a;
SELECT to_json(x) FROM (SELECT a, b AS "B" FROM t) x ORDER BY 1::text;
SELECT row_to_json(ROW(1, 'a'));
SELECT t::text FROM t ORDER BY a;
SELECT t.*::text FROM t ORDER BY a;
SELECT (t).b, (t).a FROM t ORDER BY a;
SELECT a FROM t ORDER BY a FOR NO KEY UPDATE;
SELECT a FROM t ORDER BY a FOR KEY SHARE;
SELECT a, b FROM t ORDER BY a USING >;
SELECT a FROM t ORDER BY c USING <, a;
CREATE TABLE wo (x int) WITHOUT OIDS;
INSERT INTO wo VALUES (1);
TABLE wo;
CREATE TABLE ctas AS SELECT a, b FROM t WITH DATA;
SELECT * FROM ctas ORDER BY a;
CREATE INDEX t_b ON t (b);
DROP INDEX CONCURRENTLY IF EXISTS t_b;
TRUNCATE TABLE ONLY wo;
TABLE wo;
CREATE GROUP grp;
SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = 'grp';
DROP GROUP grp;
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;
COMMIT PREPARED 'nosuch';
ROLLBACK PREPARED 'nosuch';
CREATE TABLE src (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', v numeric(5,2) DEFAULT 1.5, c varchar(3) COLLATE "C");
CREATE TABLE l1 (LIKE src);
\d l1
CREATE TABLE l2 (pre int, LIKE src INCLUDING DEFAULTS EXCLUDING CONSTRAINTS, post text);
\d l2
INSERT INTO l2 (pre, post) VALUES (1, 'p');
SELECT * FROM l2;
INSERT INTO l1 (id) VALUES (7);
CREATE TABLE l3 (LIKE nosuch);
CREATE TABLE l4 (LIKE src INCLUDING STORAGE INCLUDING STATISTICS INCLUDING COMPRESSION);
SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = 'l4' ORDER BY ordinal_position;
CREATE TABLE l5 (id int, LIKE src);
CREATE VIEW vsrc AS SELECT id, name || '!' AS n FROM src;
CREATE TABLE l6 (LIKE vsrc);
\d l6
CREATE TABLE secret (x int);
INSERT INTO secret VALUES (1);
CREATE ROLE r_reader;
CREATE ROLE r_member LOGIN;
GRANT r_reader TO r_member;
CREATE ROLE r_other;
GRANT SELECT ON secret TO r_reader;
GRANT CREATE ON SCHEMA public TO r_reader;
SELECT current_user, session_user, current_role;
SHOW role;
SET ROLE r_member;
SELECT current_user, session_user, current_role;
SHOW role;
SHOW is_superuser;
SELECT * FROM secret;
SET ROLE r_reader;
SELECT * FROM secret;
SET ROLE r_other;
SET ROLE root;
RESET ROLE;
SELECT current_user;
SET ROLE r_member;
SET ROLE r_reader;
SELECT current_user;
SET ROLE NONE;
SELECT current_user;
BEGIN;
SET ROLE r_other;
SELECT current_user;
ROLLBACK;
SELECT current_user;
BEGIN;
SET LOCAL ROLE r_other;
SELECT current_user;
COMMIT;
SELECT current_user;
BEGIN;
SET ROLE r_other;
COMMIT;
SELECT current_user;
RESET ALL;
SELECT current_user;
SET ROLE nosuch;
SET role = 'r_reader';
SELECT current_user, current_setting('role');
SELECT set_config('role', 'r_other', false);
SELECT current_user;
\c - r_member
SET ROLE r_other;
SET ROLE root;
SET ROLE r_reader;
SELECT current_user, session_user;
RESET ROLE;
CREATE TABLE owned_by_member (y int);
\c - root
SELECT tableowner FROM pg_tables WHERE tablename = 'owned_by_member';
SET ROLE r_other;
SELECT current_user;
SELECT * FROM secret;
RESET ROLE;
DROP TABLE owned_by_member;
REVOKE SELECT ON secret FROM r_reader;
REVOKE CREATE ON SCHEMA public FROM r_reader;
DROP ROLE r_member, r_reader, r_other;
DROP TABLE secret;
SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS r(x, y);
SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a', 'b', 'c']));
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['x', 'y', 'z']) AS u(n, s);
SELECT * FROM unnest(ARRAY[1, 2], ARRAY['x']) AS u(n, s) ORDER BY n DESC;
SELECT u.s FROM unnest(ARRAY[1, 2], ARRAY['x', 'y']) u(n, s) WHERE u.n = 2;
SELECT count(*) FROM ROWS FROM (generate_series(1, 4), generate_series(1, 2)) r(a, b) WHERE b IS NULL;
SELECT ARRAY[1, 2] @> ARRAY[1], ARRAY[1, 2] @> ARRAY[3], ARRAY[1] <@ ARRAY[1, 2, 3], ARRAY[1, 4] <@ ARRAY[1, 2];
SELECT '{1,2}'::int[] && '{2}'::int[], '{1,2}'::int[] && '{3}'::int[], ARRAY['a', 'b'] && ARRAY['b'];
SELECT ARRAY[1, NULL] @> ARRAY[NULL::int], ARRAY[1, NULL] @> ARRAY[1], ARRAY[NULL::int] && ARRAY[NULL::int];
SELECT ARRAY[]::int[] @> ARRAY[]::int[], ARRAY[]::int[] && ARRAY[1], ARRAY[1] @> NULL::int[];
SELECT 'x' WHERE ARRAY[1, 2] && ARRAY[2] AND ARRAY['q'] <@ ARRAY['q', 'r'];
SELECT 1 && 2;
CREATE TABLE rt (k int, v int);
CREATE MATERIALIZED VIEW rmv AS SELECT k, sum(v) AS s FROM rt GROUP BY k;
INSERT INTO rt VALUES (1, 10), (1, 5), (2, 7);
REFRESH MATERIALIZED VIEW rmv;
SELECT * FROM rmv ORDER BY k;
INSERT INTO rt VALUES (2, 1);
REFRESH MATERIALIZED VIEW public.rmv WITH DATA;
SELECT * FROM rmv ORDER BY k;
REFRESH MATERIALIZED VIEW nosuch;
REFRESH MATERIALIZED VIEW rt;
DROP MATERIALIZED VIEW rmv;
DROP TABLE rt;
