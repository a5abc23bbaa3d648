-- Float sums and averages of materialized views after deletes: a large
-- value deleted leaves the small ones' sum, not the rounding error left
-- by subtracting it again; rows that only come in are added one by one
-- as PostgreSQL adds them. (After a delete the sum is the remaining
-- rows' sum rounded once, which can differ from PostgreSQL's in the last
-- digit, as PostgreSQL's own depends on the order it reads the rows in.)
CREATE TABLE ft(id int PRIMARY KEY, g int, d float8, r real);
CREATE MATERIALIZED VIEW fv AS SELECT sum(d) sd, avg(d) ad, sum(r) sr, avg(r) ar, count(*) n FROM ft;
CREATE MATERIALIZED VIEW fgv AS SELECT g, sum(d) sd, avg(r) ar FROM ft GROUP BY g;
INSERT INTO ft VALUES (1, 1, 1e20, 1e20), (2, 1, 1, 1), (3, 2, 0.1, 0.5), (4, 2, 0.2, 0.25), (5, 2, 0.3, 0.125);
REFRESH MATERIALIZED VIEW fv;
REFRESH MATERIALIZED VIEW fgv;
SELECT * FROM fv;
SELECT * FROM fgv ORDER BY g;
DELETE FROM ft WHERE id = 1;
REFRESH MATERIALIZED VIEW fv;
REFRESH MATERIALIZED VIEW fgv;
SELECT * FROM fv;
SELECT * FROM fgv ORDER BY g;
DELETE FROM ft WHERE id = 5;
INSERT INTO ft VALUES (6, 1, -1e300, 2.5e30), (7, 1, 7, 7);
UPDATE ft SET d = 1e300 WHERE id = 6;
DELETE FROM ft WHERE id = 6;
REFRESH MATERIALIZED VIEW fv;
REFRESH MATERIALIZED VIEW fgv;
SELECT * FROM fv;
SELECT * FROM fgv ORDER BY g;
SELECT sum(d) sd, avg(d) ad, sum(r) sr, avg(r) ar, count(*) n FROM ft;
