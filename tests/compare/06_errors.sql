-- Errors as psql prints them: severity, message, DETAIL/HINT, and the
-- LINE excerpt with a caret at the error position.
CREATE TABLE e (id int PRIMARY KEY, v text NOT NULL);
INSERT INTO e VALUES (1, 'one');
SELECT * FROM nosuch;
SELECT nosuch FROM e;
SELECT e.nosuch FROM e;
SELEC 1;
SELECT 1 +;
SELECT id, FROM e;
SELECT 'unterminated;
';
SELECT 1 / 0;
SELECT 1.0 / 0;
SELECT 'abc'::int;
SELECT '1e400'::float8;
SELECT 2147483647 + 1;
SELECT 99999::smallint;
SELECT 123.456::numeric(4,2);
SELECT '2024-02-30'::date;
SELECT 'not a date'::timestamp;
SELECT '{"a":'::jsonb;
SELECT nosuch_fn(1, 'a');
SELECT 'a'::text + 1;
SELECT * FROM e WHERE 1;
SELECT CASE WHEN true THEN 1 ELSE 'x'::text END;
INSERT INTO e VALUES (1, 'dup');
INSERT INTO e VALUES (2, NULL);
INSERT INTO e VALUES (3);
INSERT INTO e (id, v, extra) VALUES (3, 'x', 1);
INSERT INTO e VALUES (3, 'x', 'y');
UPDATE e SET nosuch = 1;
SELECT id FROM e, e AS f;
SELECT name, count(*) FROM (VALUES ('a')) v(name);
SELECT (SELECT id FROM (VALUES (1), (2)) v(id));
SELECT 1 LIMIT -1;
SELECT id FROM e ORDER BY 5;
SELECT sum(v) FROM e;
DROP TABLE nosuch;
DROP VIEW e;
SELECT *
  FROM e
 WHERE nosuch = 1;
SELECT 1; SELECT 1/0; SELECT 2;
SELECT count(*) FROM e;
