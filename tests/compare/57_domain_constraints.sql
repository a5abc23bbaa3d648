-- Domain constraints are enforced wherever a value becomes of the
-- domain type, and psql's \dD shows them.
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE DOMAIN code AS text NOT NULL CONSTRAINT code_len CHECK (length(VALUE) = 3) DEFAULT 'abc';
SELECT '5'::posint, CAST(7 AS posint);
SELECT '-1'::posint;
SELECT CAST(0 AS posint);
SELECT NULL::posint IS NULL;
SELECT NULL::code;
SELECT 'abcd'::code;
SELECT x::posint FROM (VALUES (3), (2), (-4)) v(x);
-- Nested domains check every level.
CREATE DOMAIN small AS posint CHECK (VALUE < 10);
SELECT 5::small;
SELECT 12::small;
SELECT (-2)::small;
-- Columns.
CREATE TABLE t (id int PRIMARY KEY, p posint, c code, s small);
INSERT INTO t VALUES (1, 1, 'xyz', 1);
INSERT INTO t VALUES (2, -1, 'xyz', 1);
INSERT INTO t VALUES (2, 1, NULL, 1);
INSERT INTO t VALUES (2, 1, 'toolong', 1);
INSERT INTO t VALUES (2, 1, 'xyz', 11);
INSERT INTO t VALUES (2, 1, 'xyz', 0);
INSERT INTO t (id, p) VALUES (2, 2);
INSERT INTO t (id, p, c) VALUES (3, 3, DEFAULT);
INSERT INTO t SELECT 4, x, 'qqq', 2 FROM (VALUES (-9)) v(x);
INSERT INTO t SELECT 4, x, 'qqq', 2 FROM (VALUES (9)) v(x);
UPDATE t SET p = 0 WHERE id = 1;
UPDATE t SET c = NULL WHERE id = 1;
UPDATE t SET p = p + 10 WHERE id = 1;
INSERT INTO t VALUES (1, 1, 'xyz', 1) ON CONFLICT (id) DO UPDATE SET p = -5;
INSERT INTO t VALUES (1, 1, 'xyz', 1) ON CONFLICT (id) DO UPDATE SET s = 50;
INSERT INTO t VALUES (1, 1, 'xyz', 1) ON CONFLICT (id) DO UPDATE SET p = 42;
SELECT * FROM t ORDER BY id;
\d t
PREPARE ins(int, int) AS INSERT INTO t (id, p, c) VALUES ($1, $2, 'ppp');
EXECUTE ins(10, -10);
EXECUTE ins(10, 10);
COPY t (id, p, c) FROM stdin;
20	-20	abc
\.
COPY t (id, p, c) FROM stdin;
21	21	\N
\.
COPY t (id, p) FROM stdin;
22	22
\.
SELECT * FROM t ORDER BY id;
-- ALTER DOMAIN validates the stored values, unless NOT VALID.
ALTER DOMAIN posint ADD CONSTRAINT posint_big CHECK (VALUE > 5);
ALTER DOMAIN posint ADD CONSTRAINT posint_big CHECK (VALUE > 5) NOT VALID;
SELECT 3::posint;
SELECT 6::posint;
SELECT 3::small;
ALTER DOMAIN posint VALIDATE CONSTRAINT posint_big;
CREATE DOMAIN opt AS int;
CREATE TABLE u (a opt);
INSERT INTO u VALUES (NULL), (1);
ALTER DOMAIN opt SET NOT NULL;
ALTER DOMAIN opt ADD CONSTRAINT opt_pos CHECK (VALUE > 1);
DELETE FROM u WHERE a IS NULL;
ALTER DOMAIN opt SET NOT NULL;
INSERT INTO u VALUES (NULL);
ALTER DOMAIN opt ADD CHECK (VALUE <> 7);
INSERT INTO u VALUES (7);
ALTER DOMAIN opt DROP CONSTRAINT opt_check;
INSERT INTO u VALUES (7);
ALTER DOMAIN opt DROP NOT NULL;
INSERT INTO u VALUES (NULL);
SELECT * FROM u ORDER BY a;
ALTER DOMAIN opt ADD CONSTRAINT opt_nn NOT NULL;
CREATE DOMAIN bad AS int CHECK (VALUE > 0) NOT VALID;
CREATE DOMAIN bad AS int CHECK (VALUE);
CREATE DOMAIN bad AS int CHECK (nosuch > 0);
CREATE DOMAIN bad AS int DEFAULT 'abc';
ALTER DOMAIN opt SET DEFAULT 'x';
ALTER DOMAIN opt SET DEFAULT 3;
INSERT INTO u DEFAULT VALUES;
ALTER DOMAIN opt DROP DEFAULT;
-- A parameter of a domain type, a column added to a table with rows.
PREPARE p(posint) AS SELECT $1 + 1;
EXECUTE p(-1);
EXECUTE p(1);
CREATE DOMAIN withdef AS int DEFAULT 42 CHECK (VALUE > 0);
CREATE TABLE a (id int);
ALTER TABLE a ADD COLUMN e posint DEFAULT -1;
INSERT INTO a (id) VALUES (1);
ALTER TABLE a DROP COLUMN e;
ALTER TABLE a ADD COLUMN x posint DEFAULT -1;
ALTER TABLE a ADD COLUMN y code;
ALTER TABLE a ADD COLUMN w withdef;
UPDATE a SET w = w - 100 FROM u WHERE a.id = u.a;
UPDATE a SET w = w + 100 FROM u WHERE a.id = u.a;
SELECT * FROM a;
-- Domains over an enum.
CREATE TYPE level AS ENUM ('low', 'mid', 'high');
CREATE DOMAIN notlow AS level CHECK (VALUE <> 'low');
SELECT 'mid'::notlow, 'low'::notlow;
-- The constraints in pg_constraint and psql's \dD.
SELECT c.conname, c.contype, c.convalidated, t.typname, c.conrelid
  FROM pg_constraint c JOIN pg_type t ON t.oid = c.contypid
  JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname = 'public' ORDER BY 1;
\dD
\dD+
-- A new type goes to the first existing schema of search_path.
CREATE SCHEMA dom;
SET search_path = nosuch, dom, public;
CREATE DOMAIN inner_d AS int CHECK (VALUE <> 0);
CREATE TYPE mood AS ENUM ('sad', 'ok');
RESET search_path;
SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE t.typname IN ('inner_d', 'mood') ORDER BY 2;
SELECT 0::dom.inner_d;
\dD dom.*
DROP DOMAIN posint;
DROP TABLE t, u, a;
DROP DOMAIN posint;
CREATE DOMAIN tiny AS small CHECK (VALUE < 5);
CREATE TABLE w (x tiny);
DROP DOMAIN small;
DROP DOMAIN small CASCADE;
\d w
DROP TABLE w;
DROP DOMAIN posint, code, opt, dom.inner_d, withdef, notlow;
DROP TYPE level;
DROP TYPE dom.mood;
DROP SCHEMA dom;
-- A foreign key's actions set values of a domain type as UPDATE does.
CREATE DOMAIN refid AS int CHECK (VALUE <> 0) DEFAULT 0;
CREATE TABLE parent (id int PRIMARY KEY);
CREATE TABLE child (id int PRIMARY KEY, p refid REFERENCES parent ON DELETE SET DEFAULT ON UPDATE CASCADE);
CREATE TABLE child2 (id int PRIMARY KEY, p int NOT NULL DEFAULT 1, q refid REFERENCES parent ON DELETE SET NULL);
INSERT INTO parent VALUES (1), (2), (0);
INSERT INTO child VALUES (1, 1), (2, 2);
INSERT INTO child2 VALUES (1, 1, 2);
UPDATE parent SET id = 0 WHERE id = 2;
UPDATE parent SET id = 3 WHERE id = 2;
ALTER TABLE child2 DROP CONSTRAINT child2_q_fkey;
UPDATE parent SET id = 3 WHERE id = 2;
SELECT * FROM child ORDER BY id;
SELECT * FROM child2 ORDER BY id;
DROP TABLE child, child2, parent;
DROP DOMAIN refid;
-- A cast to a domain prints its operand in parentheses, as any cast's.
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE DOMAIN intlist AS int[];
CREATE TABLE dcast (b int, c int[], d text);
CREATE VIEW dcast_v AS SELECT b::posint AS y, c::intlist AS z, (b + 1)::posint AS w, d::varchar AS v FROM dcast;
SELECT pg_get_viewdef('dcast_v');
SELECT pg_get_viewdef('dcast_v', true);
CREATE TABLE dcast_chk (a int CHECK ((a + 1)::posint IS NOT NULL));
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'dcast_chk'::regclass;
DROP VIEW dcast_v;
DROP TABLE dcast, dcast_chk;
DROP DOMAIN posint, intlist;
