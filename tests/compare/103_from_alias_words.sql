-- PARTITION, OVER and REGEXP are names to PostgreSQL after a FROM item:
-- t PARTITION (p0) is t aliased "partition" with a column p0 (MySQL's
-- partition selection has no place in PostgreSQL's grammar).
CREATE TABLE t18 (id int, s text);
INSERT INTO t18 VALUES (1, 'a');
SELECT * FROM t18 partition (p0);
SELECT * FROM t18 AS partition (p0);
SELECT * FROM t18 AS over (p0);
SELECT partition.p0 FROM t18 partition (p0);
SELECT * FROM t18 regexp;
SELECT * FROM t18 partition WHERE partition.id = 1;
SELECT * FROM t18 x JOIN t18 partition ON x.id = partition.id;
SELECT count(*) OVER (PARTITION BY s) FROM t18 AS partition;
