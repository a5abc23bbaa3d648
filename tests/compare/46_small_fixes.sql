-- Small differences from PostgreSQL, each a case of its own.
-- ADD COLUMN with a volatile DEFAULT on a table with rows: the table is
-- rewritten, each row given a value of its own; a materialized view over
-- the table keeps working.
CREATE TABLE vd (k int PRIMARY KEY, v text);
INSERT INTO vd SELECT g, 'row ' || g FROM generate_series(1, 300) g;
CREATE MATERIALIZED VIEW vd_count AS SELECT count(*) AS n, max(v) AS mx FROM vd;
ALTER TABLE vd ADD COLUMN id uuid DEFAULT gen_random_uuid();
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids, count(id) AS non_null FROM vd;
ALTER TABLE vd ADD COLUMN r float8 DEFAULT random() NOT NULL;
SELECT count(*) AS n, count(DISTINCT r) > 250 AS mostly_distinct, min(r) >= 0 AND max(r) < 1 AS in_range FROM vd;
ALTER TABLE vd ADD COLUMN at timestamptz DEFAULT clock_timestamp();
SELECT count(at) AS non_null, min(at) <= max(at) AS ordered FROM vd;
SELECT * FROM vd_count;
INSERT INTO vd (k, v) VALUES (301, 'row 301');
SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids, count(r) AS rs, count(at) AS ats FROM vd;
SELECT k, v FROM vd WHERE k IN (1, 300, 301) ORDER BY k;
\d vd
-- The default's errors refuse the statement and leave the table as it was.
ALTER TABLE vd ADD COLUMN bad int DEFAULT (random() * 0)::int / 0;
SELECT count(*) FROM information_schema.columns WHERE table_name = 'vd';
ALTER TABLE vd ADD COLUMN nn int DEFAULT (CASE WHEN random() < 2 THEN NULL ELSE 1 END) NOT NULL;
-- Together with other actions.
ALTER TABLE vd ADD COLUMN id2 uuid DEFAULT gen_random_uuid(), ADD COLUMN c int DEFAULT 7;
SELECT count(DISTINCT id2) AS distinct_ids, sum(c) AS c FROM vd;
