-- ALTER TABLE ... ALTER COLUMN ... TYPE and several actions in one statement.
CREATE TABLE ty1 (id int PRIMARY KEY, amount text, qty int DEFAULT 5, label text DEFAULT 'x', flag int);
INSERT INTO ty1 VALUES (1, '10.5', 1, 'a', 0), (2, '20', NULL, 'bb', 1), (3, '-3', 3, NULL, 1);
-- No assignment cast and no USING: 42804 with a hint.
ALTER TABLE ty1 ALTER COLUMN amount TYPE numeric;
ALTER TABLE ty1 ALTER COLUMN qty TYPE boolean;
ALTER TABLE ty1 ALTER COLUMN amount TYPE int[];
ALTER TABLE ty1 ALTER COLUMN nope TYPE int;
-- A failed cast changes nothing.
ALTER TABLE ty1 ALTER COLUMN amount TYPE int USING amount::int;
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING 10 / (qty - 1);
ALTER TABLE ty1 ALTER COLUMN label TYPE varchar(1);
SELECT * FROM ty1 ORDER BY id;
-- USING, SET DATA TYPE, assignment casts.
ALTER TABLE ty1 ALTER COLUMN amount TYPE numeric(6,2) USING amount::numeric;
ALTER TABLE ty1 ALTER COLUMN qty SET DATA TYPE bigint;
ALTER TABLE ty1 ALTER COLUMN label TYPE varchar(10), ALTER COLUMN label TYPE text;
ALTER TABLE ty1 ALTER flag TYPE boolean USING flag <> 0;
SELECT * FROM ty1 ORDER BY id;
SELECT pg_typeof(amount), pg_typeof(qty), pg_typeof(label), pg_typeof(flag) FROM ty1 WHERE id = 1;
SELECT amount * 2, qty + 1, label || '!', NOT flag FROM ty1 ORDER BY id;
SELECT column_name, data_type, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'ty1' ORDER BY ordinal_position;
INSERT INTO ty1 (id, amount) VALUES (4, 1.005);
INSERT INTO ty1 (id, amount, label) VALUES (5, 12345.6, 'y');
SELECT * FROM ty1 ORDER BY id;
-- The default is cast too, or the change refused.
ALTER TABLE ty1 ALTER COLUMN label TYPE int USING length(label);
ALTER TABLE ty1 ALTER COLUMN qty TYPE text;
INSERT INTO ty1 (id, amount) VALUES (6, 0);
SELECT id, qty, pg_typeof(qty) FROM ty1 WHERE id = 6;
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING qty::int;
ALTER TABLE ty1 ALTER COLUMN qty DROP DEFAULT, ALTER COLUMN qty TYPE int USING qty::int;
SELECT id, qty FROM ty1 ORDER BY id;
-- Errors in the transform expression.
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING (SELECT 1);
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING sum(qty);
ALTER TABLE ty1 ALTER COLUMN qty TYPE int[] USING ARRAY[label];
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING qty + label;
ALTER TABLE ty1 ALTER COLUMN qty TYPE int USING nosuch + 1;
ALTER TABLE ty1 ALTER COLUMN qty TYPE bigint, ALTER COLUMN qty TYPE int;
-- Columns read by views keep their type; other columns change.
CREATE VIEW ty1_v AS SELECT id, amount FROM ty1;
CREATE MATERIALIZED VIEW ty1_mv AS SELECT label, count(*) AS n FROM ty1 GROUP BY label;
ALTER TABLE ty1 ALTER COLUMN amount TYPE float8;
ALTER TABLE ty1 ALTER COLUMN label TYPE varchar(20);
ALTER TABLE ty1 ALTER COLUMN qty TYPE numeric;
SELECT * FROM ty1_v ORDER BY id;
SELECT * FROM ty1_mv ORDER BY label;
DROP VIEW ty1_v;
DROP MATERIALIZED VIEW ty1_mv;
-- An index on the column is built again.
CREATE INDEX ty1_amount ON ty1 (amount);
ALTER TABLE ty1 ALTER COLUMN amount TYPE float8;
SELECT id, amount FROM ty1 WHERE amount > 5 ORDER BY amount;
\d ty1
-- A primary key column: the rows are keyed anew; keys that meet are 23505.
CREATE TABLE ty2 (k text PRIMARY KEY, v int);
INSERT INTO ty2 VALUES ('10', 1), ('9', 2), ('010', 3), ('-1', 4);
SELECT * FROM ty2 ORDER BY k;
ALTER TABLE ty2 ALTER COLUMN k TYPE int USING k::int;
SELECT * FROM ty2 ORDER BY k;
DELETE FROM ty2 WHERE k = '010';
ALTER TABLE ty2 ALTER COLUMN k TYPE int USING k::int;
SELECT * FROM ty2 ORDER BY k;
SELECT v FROM ty2 WHERE k = 9;
INSERT INTO ty2 VALUES (9, 5);
ALTER TABLE ty2 ALTER COLUMN k TYPE json USING k::text::json;
ALTER TABLE ty2 ALTER COLUMN k TYPE text;
INSERT INTO ty2 VALUES ('abc', 6);
SELECT * FROM ty2 ORDER BY k;
-- A table without a primary key.
CREATE TABLE ty3 (a smallint, b text);
INSERT INTO ty3 VALUES (1, 'x'), (2, 'y'), (NULL, 'z');
ALTER TABLE ty3 ALTER COLUMN a TYPE bigint USING a * 1000000000;
SELECT * FROM ty3 ORDER BY a;
-- Several actions: PostgreSQL's passes, and all or nothing.
CREATE TABLE ty4 (a int PRIMARY KEY, b text, c int, d int DEFAULT 4);
INSERT INTO ty4 VALUES (1, 'one', NULL, 1), (2, 'two', 20, 2);
ALTER TABLE ty4 ADD COLUMN x int, DROP COLUMN x;
ALTER TABLE ty4 ADD COLUMN x int, ALTER COLUMN x TYPE text;
ALTER TABLE ty4 ADD COLUMN x int, RENAME COLUMN b TO bb;
ALTER TABLE ty4 ADD COLUMN x int, ADD COLUMN x int;
ALTER TABLE ty4 DROP COLUMN c, DROP COLUMN c;
ALTER TABLE ty4 ADD COLUMN e int DEFAULT 7, DROP COLUMN b, ALTER COLUMN c SET NOT NULL;
SELECT * FROM ty4 ORDER BY a;
ALTER TABLE ty4 ADD COLUMN e int DEFAULT 7, ALTER COLUMN b TYPE int USING length(b), ALTER COLUMN d TYPE int USING 1 / (d - 1);
SELECT * FROM ty4 ORDER BY a;
ALTER TABLE ty4 ADD COLUMN x int, ALTER COLUMN x SET NOT NULL;
ALTER TABLE ty4 ADD COLUMN x int DEFAULT 0, ALTER COLUMN x SET NOT NULL, ALTER COLUMN x SET DEFAULT 9;
ALTER TABLE ty4 ADD COLUMN y int DEFAULT 1, ALTER COLUMN y DROP DEFAULT;
ALTER TABLE ty4 DROP COLUMN IF EXISTS zz, ADD COLUMN IF NOT EXISTS x int, ALTER COLUMN b TYPE varchar(5);
ALTER TABLE ty4 DROP COLUMN IF EXISTS zz, ADD COLUMN x2 int, ADD COLUMN x2 int;
ALTER TABLE ty4 ALTER COLUMN b TYPE text USING c::text, DROP COLUMN c;
ALTER TABLE ty4 ALTER COLUMN a TYPE bigint, ALTER COLUMN d SET DEFAULT 40, ADD COLUMN f text DEFAULT 'f' NOT NULL;
INSERT INTO ty4 (a) VALUES (3);
SELECT * FROM ty4 ORDER BY a;
\d ty4
-- A prepared statement planned before the change.
PREPARE ty4_ins (bigint) AS INSERT INTO ty4 (a, b) VALUES ($1, 'p');
PREPARE ty4_sel AS SELECT a, b, x FROM ty4 ORDER BY a;
ALTER TABLE ty4 ALTER COLUMN x TYPE text USING 'x' || x, ALTER COLUMN x SET DEFAULT 'new';
EXECUTE ty4_ins (4);
EXECUTE ty4_sel;
-- Errors name the right relation.
ALTER TABLE IF EXISTS ty_none ALTER COLUMN a TYPE int, ADD COLUMN b int;
ALTER TABLE ty_none ALTER COLUMN a TYPE int;
CREATE VIEW ty4_v AS SELECT a FROM ty4;
ALTER TABLE ty4_v ALTER COLUMN a TYPE int;
-- A change of type under which a unique index would hold a key twice
-- fails and leaves the table as it was.
CREATE TABLE ty_ub (id int PRIMARY KEY, b numeric UNIQUE);
INSERT INTO ty_ub VALUES (1, 1.2), (2, 1.4);
ALTER TABLE ty_ub ALTER COLUMN b TYPE int;
SELECT id, b, pg_typeof(b) FROM ty_ub ORDER BY id;
INSERT INTO ty_ub VALUES (3, 1.2);
CREATE TABLE ty_uc (id int PRIMARY KEY, c text);
CREATE UNIQUE INDEX ty_uc_c_idx ON ty_uc (c);
INSERT INTO ty_uc VALUES (1, 'ab'), (2, NULL), (3, NULL), (4, 'xyz'), (5, 'cd');
ALTER TABLE ty_uc ALTER COLUMN c TYPE int USING length(c);
SELECT id, c FROM ty_uc ORDER BY id;
DELETE FROM ty_uc WHERE id = 5;
ALTER TABLE ty_uc ALTER COLUMN c TYPE int USING length(c);
INSERT INTO ty_uc VALUES (6, 3);
-- After the primary key's type changed, dropping another column keeps
-- the other indexes.
CREATE TABLE ty_g (id int PRIMARY KEY, w int UNIQUE, x int);
ALTER TABLE ty_g ALTER COLUMN id TYPE bigint;
ALTER TABLE ty_g DROP COLUMN x;
\d ty_g
INSERT INTO ty_g VALUES (1, 5), (2, 5);
CREATE TABLE ty_f2 (id int PRIMARY KEY, v int, x numeric);
CREATE INDEX ON ty_f2 (v);
ALTER TABLE ty_f2 ALTER COLUMN id TYPE bigint;
ALTER TABLE ty_f2 DROP COLUMN x, ADD COLUMN y int;
\d ty_f2
