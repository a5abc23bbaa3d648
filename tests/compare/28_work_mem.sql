-- work_mem: SET takes PostgreSQL's numbers and units and SHOW prints the
-- value in the largest unit that divides it.
SHOW work_mem;
SET work_mem = 1024;
SHOW work_mem;
SET work_mem = '1GB';
SHOW work_mem;
SET work_mem = '1536kB';
SHOW work_mem;
SET work_mem = '10 MB';
SHOW work_mem;
SET work_mem = '1.5MB';
SHOW work_mem;
SET work_mem = '0.1GB';
SHOW work_mem;
SET work_mem = '65537B';
SHOW work_mem;
SET work_mem = '1e3';
SHOW work_mem;
SET work_mem = 2147483647;
SHOW work_mem;
SET work_mem = 63;
SET work_mem = '65000B';
SET work_mem = -1;
SET work_mem = 'abc';
SET work_mem = '100 tb';
SET work_mem = '3000000000';
SET work_mem = '2TB';
SHOW work_mem;
RESET work_mem;
SHOW work_mem;
-- Sorts far beyond a 64kB work_mem spill to disk; the orderings below
-- decide every row's place, so the output is PostgreSQL's.
SET work_mem = '64kB';
SHOW work_mem;
CREATE TABLE s (g int, t text, n numeric, ts timestamp, k int);
INSERT INTO s SELECT g,
  CASE WHEN g % 17 = 0 THEN NULL ELSE md5(g::text) END,
  CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7919 % 10007) / 100.0 END,
  timestamp '2020-01-01' + (g * 7919 % 30011) * interval '37 minutes',
  g % 7
FROM generate_series(1, 15000) g;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY t, g) x;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY t DESC, g) x;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY t NULLS FIRST, g DESC) x;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY t DESC NULLS LAST, g) x;
SELECT count(*), md5(string_agg(g::text || ':' || coalesce(n::text, '-'), ',')) FROM (SELECT g, n FROM s ORDER BY n DESC, g) x;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY n NULLS FIRST, ts DESC, g) x;
SELECT count(*), md5(string_agg(ts::text, ',')) FROM (SELECT ts FROM s ORDER BY ts, g) x;
SELECT count(*), md5(string_agg(g::text, ',')) FROM (SELECT g FROM s ORDER BY k DESC, ts, g) x;
-- Whole rows out of the middle and the ends of spilled sorts.
SELECT * FROM s ORDER BY t, g LIMIT 5;
SELECT * FROM s ORDER BY t DESC, g OFFSET 29995;
SELECT * FROM s ORDER BY n DESC NULLS LAST, g LIMIT 4 OFFSET 15000;
SELECT g, ts FROM s ORDER BY ts DESC, g LIMIT 3 OFFSET 20000;
-- Top-N: a LIMIT right above a sort keeps the best rows in a heap, whose
-- order for equal keys is PostgreSQL's own.
SELECT g, k FROM s ORDER BY k LIMIT 12;
SELECT g, k FROM s ORDER BY k DESC LIMIT 9 OFFSET 3;
SELECT g, g % 3 AS m FROM generate_series(1, 1000) g ORDER BY g % 3 LIMIT 10;
SELECT g, t IS NULL AS nul FROM s ORDER BY t IS NULL DESC LIMIT 8;
-- Window functions over partitions and orders of the whole table.
SELECT count(*), md5(string_agg(concat_ws(':', g, rn, rk, sm, lg), ',')) FROM (
  SELECT g,
    row_number() OVER (PARTITION BY k ORDER BY t NULLS FIRST, g) AS rn,
    rank() OVER (ORDER BY n DESC NULLS LAST) AS rk,
    sum(n) OVER (PARTITION BY k ORDER BY ts, g) AS sm,
    lag(t) OVER (PARTITION BY k ORDER BY g DESC) AS lg
  FROM s ORDER BY g) x;
SELECT g, k, row_number() OVER w, first_value(g) OVER w
FROM s WINDOW w AS (PARTITION BY k ORDER BY ts DESC, g) ORDER BY ts DESC, g LIMIT 6;
-- WITH RECURSIVE: working tables of 20,000 rows, beyond work_mem.
WITH RECURSIVE r(n, g, t) AS (
  SELECT 1, g, md5(g::text) FROM generate_series(1, 10000) g
  UNION ALL
  SELECT n + 1, g, md5(t) FROM r WHERE n < 4
) SELECT n, count(*), md5(string_agg(t, ',' ORDER BY g)) FROM r GROUP BY n ORDER BY n;
WITH RECURSIVE r(n, g) AS (
  SELECT 1, g FROM generate_series(1, 10000) g
  UNION
  SELECT n + 1, g % 5000 FROM r WHERE n < 3
) SELECT n, count(*), sum(g) FROM r GROUP BY n ORDER BY n;
RESET work_mem;
