-- Expression and partial indexes: built over the rows there, kept by
-- every write, unique ones enforced, shown as PostgreSQL shows them.
CREATE TABLE users (id int PRIMARY KEY, email text, name text, active bool, score int);
INSERT INTO users VALUES (1, 'Ann@X.org', 'ann', true, 10), (2, 'bob@x.org', 'Bob', false, 20), (3, 'CAT@x.org', 'cat', true, NULL);
CREATE UNIQUE INDEX users_email_lower ON users ((lower(email)));
CREATE INDEX ON users (upper(name));
CREATE INDEX ON users ((score * 2), id DESC);
CREATE INDEX ON users (name) WHERE active;
CREATE INDEX ON users ((coalesce(score, 0))) WHERE score > 5 AND name <> 'x';
-- Enforcement, with PostgreSQL's DETAIL.
INSERT INTO users VALUES (4, 'ann@x.ORG', 'ann2', false, 1);
INSERT INTO users VALUES (4, 'dan@x.org', 'dan', false, 1), (5, 'DAN@x.org', 'dan2', false, 1);
INSERT INTO users VALUES (4, NULL, 'n1', false, 1), (5, NULL, 'n2', false, 1);
UPDATE users SET email = 'BOB@X.ORG' WHERE id = 1;
UPDATE users SET email = 'Bob@x.org' WHERE id = 2;
UPDATE users SET email = upper(email) WHERE id IN (1, 3);
SELECT id, email FROM users ORDER BY id;
DELETE FROM users WHERE id = 2;
INSERT INTO users VALUES (6, 'bob@X.org', 'bob again', true, 30);
COPY users FROM stdin;
7	eve@x.org	eve	t	70
8	EVE@x.org	eve2	f	80
\.
COPY users FROM stdin;
7	eve@x.org	eve	t	70
\.
BEGIN;
INSERT INTO users VALUES (9, 'fay@x.org', 'fay', true, 1);
INSERT INTO users VALUES (10, 'FAY@x.org', 'fay2', true, 1);
ROLLBACK;
BEGIN;
DELETE FROM users WHERE id = 7;
INSERT INTO users VALUES (11, 'EVE@X.ORG', 'eve moved', true, 5);
COMMIT;
SELECT * FROM users ORDER BY id;
-- One active row per user: a unique partial index.
CREATE TABLE sessions (id int PRIMARY KEY, uid int, active bool);
INSERT INTO sessions VALUES (1, 1, true), (2, 1, false), (3, 1, false), (4, 2, true);
CREATE UNIQUE INDEX one_active ON sessions (uid) WHERE active;
INSERT INTO sessions VALUES (5, 1, true);
INSERT INTO sessions VALUES (5, 1, false);
UPDATE sessions SET active = true WHERE id = 2;
UPDATE sessions SET active = false WHERE id = 1;
UPDATE sessions SET active = true WHERE id = 2;
UPDATE sessions SET uid = 2 WHERE id = 2;
UPDATE sessions SET active = NULL WHERE id = 4;
UPDATE sessions SET uid = 2 WHERE id = 2;
SELECT * FROM sessions ORDER BY id;
-- CREATE UNIQUE INDEX over duplicates.
CREATE UNIQUE INDEX sessions_dup ON sessions (uid) WHERE NOT active;
CREATE UNIQUE INDEX ON users ((lower(name)));
CREATE UNIQUE INDEX ON users ((score > 0), (lower(email)));
-- ON CONFLICT inferring them.
INSERT INTO users VALUES (12, 'ANN@x.org', 'dup', true, 0) ON CONFLICT ((lower(email))) DO NOTHING;
INSERT INTO users VALUES (12, 'ANN@x.org', 'dup', true, 0) ON CONFLICT (lower(email)) DO UPDATE SET name = excluded.name || ' (was ' || users.name || ')';
INSERT INTO users VALUES (13, 'gus@x.org', 'gus', true, 0) ON CONFLICT ((lower(email))) DO UPDATE SET name = 'never';
INSERT INTO users VALUES (14, 'x', 'x', true, 0) ON CONFLICT (email) DO NOTHING;
INSERT INTO users VALUES (14, 'x', 'x', true, 0) ON CONFLICT ((upper(email))) DO NOTHING;
INSERT INTO sessions VALUES (6, 1, true) ON CONFLICT (uid) WHERE active DO UPDATE SET id = sessions.id * 100;
INSERT INTO sessions VALUES (7, 3, true) ON CONFLICT (uid) WHERE active DO NOTHING;
INSERT INTO sessions VALUES (8, 1, true) ON CONFLICT (uid) DO NOTHING;
INSERT INTO sessions VALUES (8, 1, true) ON CONFLICT DO NOTHING;
INSERT INTO sessions VALUES (8, 1, false) ON CONFLICT DO NOTHING;
SELECT * FROM users ORDER BY id;
SELECT * FROM sessions ORDER BY id;
-- Refused: functions that are not immutable, aggregates, subqueries.
CREATE INDEX ON users ((random()));
CREATE INDEX ON users ((now()));
CREATE INDEX ON users (id) WHERE score > random() * 10;
CREATE INDEX ON users ((concat(name, email)));
CREATE INDEX ON users ((count(*)));
CREATE INDEX ON users (id) WHERE (SELECT true);
CREATE INDEX ON users (id) WHERE score;
CREATE INDEX ON users ((nosuch(name)));
CREATE INDEX ON users (score + 1);
-- Catalog.
SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('users', 'sessions') ORDER BY indexname;
SELECT c.relname, i.indnatts, i.indkey, i.indisunique, i.indexprs IS NOT NULL AS has_exprs, i.indpred IS NOT NULL AS has_pred
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'users'::regclass ORDER BY c.relname;
SELECT pg_get_indexdef('users_expr_id_idx'::regclass, 1, true), pg_get_indexdef('users_expr_id_idx'::regclass, 2, true);
SELECT pg_get_indexdef('users_email_lower'::regclass, 0, true), pg_get_indexdef('users_name_idx'::regclass, 0, false);
SELECT pg_get_indexdef('users_coalesce_idx'::regclass, 0, true);
\d users
\d sessions
\d users_email_lower
\d one_active
-- Renames follow, DROP INDEX removes.
ALTER TABLE users RENAME COLUMN email TO mail;
ALTER TABLE sessions RENAME COLUMN active TO live;
\d users
\d sessions
INSERT INTO users VALUES (20, 'GUS@x.org', 'gus2', true, 0);
INSERT INTO users VALUES (21, 'gus@X.org', 'gus3', true, 0);
INSERT INTO sessions VALUES (9, 2, true);
INSERT INTO sessions VALUES (10, 9, true) ON CONFLICT (uid) WHERE live DO NOTHING;
DROP INDEX users_email_lower;
INSERT INTO users VALUES (21, 'gus@X.org', 'gus3', true, 0);
DROP INDEX one_active;
INSERT INTO sessions VALUES (11, 2, true);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('users', 'sessions') ORDER BY indexname;
-- DROP COLUMN takes the indexes reading it along.
ALTER TABLE users DROP COLUMN score;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'users' ORDER BY indexname;
-- A renamed table (one without a primary key, whose index weir names
-- after the table).
CREATE TABLE tags (label text, kind int);
INSERT INTO tags VALUES ('Red', 1), ('blue', 2);
CREATE UNIQUE INDEX tags_label ON tags ((lower(label))) WHERE kind > 0;
CREATE INDEX tags_kind ON tags ((kind % 10), label);
ALTER TABLE tags RENAME TO labels;
ALTER TABLE labels RENAME COLUMN label TO name;
\d labels
INSERT INTO labels VALUES ('RED', 3);
INSERT INTO labels VALUES ('RED', -3);
INSERT INTO labels VALUES ('green', 4) ON CONFLICT ((lower(name))) WHERE kind > 0 DO NOTHING;
INSERT INTO labels VALUES ('GREEN', 4) ON CONFLICT ((lower(name))) WHERE kind > 0 AND name <> '' DO UPDATE SET kind = labels.kind + 100;
SELECT * FROM labels ORDER BY name, kind;
ALTER TABLE labels DROP COLUMN kind;
\d labels
