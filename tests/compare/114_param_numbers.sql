-- A parameter number is read as PostgreSQL's scanner reads it (atol,
-- kept in an int), and a number no parameter can have fails at once,
-- without sizing anything by it.
SELECT $1;
SELECT $0;
SELECT $65535;
SELECT $65536;
SELECT $30000000;
SELECT $2147483647;
SELECT $2147483648;
SELECT $4294967297;
SELECT $99999999999999999999;
SELECT 1 + $2147483648 AS x;
CREATE TABLE pn (a int DEFAULT $2147483648);
CREATE TABLE pn (a int);
INSERT INTO pn VALUES ($2147483648);
SELECT count(*) FROM pn;
DROP TABLE pn;
