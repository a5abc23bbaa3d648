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
