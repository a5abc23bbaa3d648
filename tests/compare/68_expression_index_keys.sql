-- ALTER COLUMN ... TYPE under expression and partial indexes: each is
-- built again from its definition as pg_get_indexdef prints it, and
-- its keys are checked over the converted rows before they are written.
CREATE TABLE att (id int PRIMARY KEY, v text, n int);
INSERT INTO att VALUES (1, 'A', 1), (2, 'b', 2);
CREATE UNIQUE INDEX att_v ON att ((lower(v))) WHERE id > 0;
CREATE INDEX att_n ON att ((n + 1));
ALTER TABLE att ALTER COLUMN v TYPE varchar(20);
ALTER TABLE att ALTER COLUMN n TYPE bigint;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'att' ORDER BY 1;
INSERT INTO att VALUES (3, 'a', 3);
ALTER TABLE att ALTER COLUMN v TYPE int USING length(v);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'att' ORDER BY 1;
\d att
INSERT INTO att VALUES (3, 7, 3);
SELECT * FROM att ORDER BY id;
-- A key expression that does not bind to the new type stops the ALTER.
CREATE TABLE atw (id int PRIMARY KEY, w text);
INSERT INTO atw VALUES (1, '5');
CREATE INDEX atw_w ON atw (upper(w)) WHERE w <> '';
ALTER TABLE atw ALTER COLUMN w TYPE int USING w::int;
\d atw
SELECT * FROM atw;
-- A key expression failing on a row (a division by zero) fails the
-- statement writing it, CREATE INDEX over such a row too, as PostgreSQL's
-- index insertion does; COPY names the line.
CREATE TABLE dz (id int PRIMARY KEY, a int, b int);
INSERT INTO dz VALUES (1, 0, 1);
CREATE INDEX ON dz ((10 / a));
CREATE INDEX ON dz ((10 / a)) WHERE a <> 0;
CREATE INDEX ON dz (id) WHERE 10 / a > 1;
CREATE INDEX dz_b ON dz ((10 / b)) WHERE a > 0;
INSERT INTO dz VALUES (2, 0, 0);
INSERT INTO dz VALUES (3, 5, 0);
UPDATE dz SET a = 3 WHERE id = 1;
UPDATE dz SET b = 0 WHERE id = 1;
COPY dz FROM stdin;
4	1	0
\.
INSERT INTO dz VALUES (4, 1, 2) ON CONFLICT (id) DO UPDATE SET b = 0;
INSERT INTO dz VALUES (1, 1, 2) ON CONFLICT (id) DO UPDATE SET b = 0;
SELECT * FROM dz ORDER BY id;
BEGIN;
INSERT INTO dz VALUES (5, 0, 9);
SELECT 1;
ROLLBACK;
CREATE TABLE gz (a int, g int GENERATED ALWAYS AS (10 / a) STORED);
COPY gz (a) FROM stdin;
1
0
\.
SELECT * FROM gz;
INSERT INTO gz VALUES (0);
-- A relation of a schema off the search path keeps its schema in the
-- pretty definition.
CREATE SCHEMA other;
CREATE TABLE other.o (id int PRIMARY KEY, v text);
CREATE INDEX o_v ON other.o ((v || '!')) WHERE id > 0;
CREATE INDEX o_id ON other.o (id);
SELECT pg_get_indexdef('other.o_v'::regclass, 0, true), pg_get_indexdef('other.o_id'::regclass, 0, true);
SELECT indexdef FROM pg_indexes WHERE schemaname = 'other' ORDER BY 1;
-- INCLUDE columns name the index too; indexes on a materialized view;
-- IF NOT EXISTS; a key in parentheses that is a column; COLLATE inside
-- a key expression.
CREATE TABLE m (id int PRIMARY KEY, a text, b int);
INSERT INTO m VALUES (1, 'X', 1), (2, 'y', 2);
CREATE INDEX ON m ((lower(a))) INCLUDE (b);
CREATE MATERIALIZED VIEW mv AS SELECT id, a FROM m;
CREATE INDEX ON mv ((upper(a))) WHERE id > 0;
CREATE INDEX IF NOT EXISTS m_lower_b_idx ON m ((lower(a)));
CREATE INDEX ON m ((a)) WHERE b IS NOT NULL;
CREATE INDEX ON m ((-b), (b::numeric / 3));
CREATE INDEX ON m ((a || b COLLATE "C"));
SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('m', 'mv') ORDER BY 1;
\d m
\d mv
