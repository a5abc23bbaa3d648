-- psql's \dT and \dT+ over enum types, and domains as columns.
CREATE TYPE color AS ENUM ('red', 'green', 'blue');
CREATE SCHEMA paint;
CREATE TYPE paint.finish AS ENUM ('matte', 'gloss');
CREATE TYPE color AS ENUM ('x');
\dT
\dT+
\dT paint.*
CREATE TABLE wall (id int PRIMARY KEY, c color, f paint.finish);
INSERT INTO wall VALUES (1, 'blue', 'gloss'), (2, 'red', 'matte');
SELECT * FROM wall ORDER BY c;
DROP TYPE paint.finish;
DROP TABLE wall;
DROP TYPE color, paint.finish;
\dT
DROP SCHEMA paint;
