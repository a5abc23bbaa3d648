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
