-- An untyped literal or NULL in a plain SELECT feeding INSERT takes the
-- target column's type; after a set operation or ORDER BY it is text.
CREATE TABLE nt (a int, b int, d date, v varchar(2));
INSERT INTO nt SELECT NULL, 1;
INSERT INTO nt (a) SELECT NULL;
INSERT INTO nt SELECT '7', NULL, '2020-01-02', 'ab';
INSERT INTO nt SELECT 'x', NULL;
INSERT INTO nt SELECT 1, 2, 'notadate';
INSERT INTO nt SELECT 1, 2, NULL, 'abc';
INSERT INTO nt SELECT 1, NULL UNION ALL SELECT NULL, 2;
INSERT INTO nt SELECT 1, NULL UNION SELECT NULL, NULL;
INSERT INTO nt SELECT NULL, 1 ORDER BY 1 LIMIT 1;
INSERT INTO nt WITH x AS (SELECT 3) SELECT NULL, 4 FROM x;
INSERT INTO nt VALUES (NULL, NULL), (NULL, 5);
SELECT * FROM nt ORDER BY a, b, d;
