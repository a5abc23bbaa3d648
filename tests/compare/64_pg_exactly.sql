-- pg_get_expr without the pretty flag puts every operator in parentheses
-- of its own, as PostgreSQL's plain deparsed form does.
CREATE TABLE e (a int CHECK (a > 0), b int DEFAULT 5, c text DEFAULT 'x', d int DEFAULT 1 + 2, f int CHECK (f > 0 AND f < 10 OR f IS NULL), g int GENERATED ALWAYS AS (a * 2) STORED, h numeric DEFAULT -1.5, j text CHECK (j <> 'q' AND length(j) < 5));
SELECT conname, pg_get_expr(conbin, conrelid), pg_get_expr(conbin, conrelid, true), pg_get_expr(conbin, conrelid, false) FROM pg_constraint WHERE conrelid = 'e'::regclass ORDER BY 1;
SELECT adnum, pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid = 'e'::regclass ORDER BY 1;
-- A referenced key updated to a value equal to it but written otherwise
-- (numeric 1.0 to 1.00) is changed: CASCADE carries the new value to the
-- referencing rows, RESTRICT and SET NULL act.
CREATE TABLE np (id numeric PRIMARY KEY);
CREATE TABLE nc (pid numeric REFERENCES np ON UPDATE CASCADE);
INSERT INTO np VALUES (1.0), (2);
INSERT INTO nc VALUES (1.000), (2.0);
UPDATE np SET id = 1.00 WHERE id = 1;
UPDATE np SET id = id WHERE id = 2;
SELECT * FROM np ORDER BY id;
SELECT * FROM nc ORDER BY pid;
CREATE TABLE nr (pid numeric REFERENCES np ON UPDATE RESTRICT);
INSERT INTO nr VALUES (1.0);
UPDATE np SET id = 1.0 WHERE id = 1;
SELECT * FROM np ORDER BY id;
CREATE TABLE nn (pid numeric REFERENCES np ON UPDATE SET NULL);
INSERT INTO nn VALUES (2);
UPDATE np SET id = 2.00 WHERE id = 2;
SELECT * FROM nn;
SELECT * FROM nc ORDER BY pid;
-- NOT VALID: CREATE TABLE's table constraints accept it (the table is
-- empty: the constraint is valid), a column constraint has none.
CREATE TABLE p2 (id int PRIMARY KEY);
CREATE TABLE c2 (a int, FOREIGN KEY (a) REFERENCES p2 NOT VALID);
CREATE TABLE c3 (a int, CONSTRAINT fk3 FOREIGN KEY (a) REFERENCES p2 ON DELETE CASCADE NOT VALID NOT DEFERRABLE);
CREATE TABLE c4 (a int, CHECK (a > 0) NOT VALID);
CREATE TABLE c5 (a int REFERENCES p2 NOT VALID);
CREATE TABLE c5 (a int CHECK (a > 0) NOT VALID);
CREATE TABLE c7 (a int);
ALTER TABLE c7 ADD COLUMN b int REFERENCES p2 NOT VALID;
ALTER TABLE c7 ADD FOREIGN KEY (a) REFERENCES p2 NOT VALID NOT VALID;
INSERT INTO c2 VALUES (1);
INSERT INTO c7 VALUES (1);
SELECT conrelid::regclass, conname, convalidated, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid IN ('c2'::regclass, 'c3'::regclass, 'c4'::regclass, 'c7'::regclass) ORDER BY 1, 2;
CREATE TABLE c8 (a int, FOREIGN KEY (a) REFERENCES p2 NOT VALID, CHECK (a < 5) NOT VALID);
\d c8
-- to_regproc, to_regprocedure, to_regnamespace and to_regrole: the
-- object a name names, NULL for none (or several functions).
CREATE SCHEMA s9;
CREATE ROLE r9;
SELECT to_regproc('now'), to_regproc('pg_catalog.now'), to_regproc('NOW'), to_regproc('"now"'), to_regproc('nosuch'), to_regproc('abs'), to_regproc('s9.now');
SELECT to_regprocedure('now()'), to_regprocedure('abs(int4)'), to_regprocedure('abs(integer)'), to_regprocedure('pg_catalog.abs( int4 )'), to_regprocedure('abs(text)'), to_regprocedure('nosuch(int)');
SELECT to_regprocedure('abs');
SELECT to_regprocedure('abs(int');
SELECT to_regprocedure('abs(nosuchtype)');
SELECT to_regproc('a.b.c.d');
SELECT to_regproc('');
SELECT to_regnamespace('public'), to_regnamespace('pg_catalog'), to_regnamespace('s9'), to_regnamespace('S9'), to_regnamespace('"S9"'), to_regnamespace(' public '), to_regnamespace('nosuch');
SELECT to_regnamespace('a.b');
SELECT to_regrole('r9'), to_regrole('R9'), to_regrole('"r9"'), to_regrole('nosuch');
SELECT to_regrole('');
SELECT to_regproc(NULL), to_regprocedure(NULL), to_regnamespace(NULL), to_regrole(NULL);
SELECT to_regnamespace('public')::oid, to_regnamespace('pg_catalog')::oid, to_regnamespace('nosuch') IS NULL, to_regrole('nosuch') IS NULL, to_regproc('now') IS NOT NULL;
SELECT pg_typeof(to_regproc('now')), pg_typeof(to_regprocedure('now()')), pg_typeof(to_regnamespace('public')), pg_typeof(to_regrole('r9'));
SELECT pg_typeof(to_regclass('pg_class')), pg_typeof(to_regtype('int')), pg_typeof('now'::regproc), pg_typeof('public'::regnamespace);
SELECT nspname FROM pg_namespace WHERE oid = to_regnamespace('s9');
SELECT rolname FROM pg_roles WHERE oid = to_regrole('r9');
-- The regnamespace and regrole casts.
SELECT 'public'::regnamespace, 's9'::regnamespace, 'pg_catalog'::regnamespace::oid, 'r9'::regrole, 'now'::regproc, 'abs(int4)'::regprocedure, 'int4'::regtype;
SELECT 'nosuch'::regnamespace;
SELECT 'nosuch'::regrole;
SELECT nspname FROM pg_namespace WHERE oid = 's9'::regnamespace;
DROP ROLE r9;
-- pg_typeof of a column of a domain type names the domain.
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE DOMAIN shorttext AS varchar(5);
CREATE SCHEMA ds;
CREATE DOMAIN ds.dom AS text;
CREATE TABLE td (p posint, q posint NOT NULL, r shorttext, s ds.dom, t int);
INSERT INTO td VALUES (1, 2, 'ab', 'x', 3);
SELECT pg_typeof(p), pg_typeof(q), pg_typeof(td.p), pg_typeof(p + 1), pg_typeof(r), pg_typeof(s), pg_typeof(t), pg_typeof((p)) FROM td;
SELECT pg_typeof(p) FROM td GROUP BY p;
SELECT pg_typeof(x.p) FROM td x;
SELECT (SELECT pg_typeof(p)) FROM td;
SELECT pg_typeof(p::int) FROM td;
-- A domain's constraint in pg_get_expr, pretty or not, and more defaults.
CREATE DOMAIN pctint AS int CHECK (VALUE > 0 AND VALUE < 100);
SELECT conname, pg_get_expr(conbin, conrelid), pg_get_expr(conbin, conrelid, true), pg_get_expr(conbin, 0) FROM pg_constraint WHERE contypid = 'pctint'::regtype;
CREATE TABLE ge (a int, b int GENERATED ALWAYS AS (a * 2 + 1) STORED, c text DEFAULT 'x' || 'y', d timestamptz DEFAULT now(), e int DEFAULT (1 + 2) * 3);
SELECT adnum, pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, false) FROM pg_attrdef WHERE adrelid = 'ge'::regclass ORDER BY 1;
