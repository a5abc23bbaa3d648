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
