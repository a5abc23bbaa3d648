-- Window functions over partitions far beyond a 64kB work_mem: each
-- partition is spooled to disk and read back where its frames need it.
-- Where a function depends on the order of peers, the ORDER BY decides
-- every row's place; the others read peer groups, which do not depend
-- on it.
SET work_mem = '64kB';
CREATE TABLE w (g int, a int, t text, n numeric, ts timestamp, p int);
INSERT INTO w SELECT g,
  CASE WHEN g % 23 = 0 THEN NULL ELSE g * 7919 % 101 END,
  repeat(md5(g::text), 4),
  CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7919 % 10007) / 100.0 END,
  timestamp '2020-01-01' + (g * 7919 % 30011) * interval '37 minutes',
  g % 3
FROM generate_series(1, 12000) g;
-- Ranking over one partition of every row.
SELECT count(*), md5(string_agg(concat_ws(':', g, rn, rk, dr, pr, cd, nt), ',' ORDER BY g)) FROM (
  SELECT g, row_number() OVER (ORDER BY a, g) AS rn, rank() OVER (ORDER BY a) AS rk,
    dense_rank() OVER (ORDER BY a DESC NULLS LAST) AS dr, percent_rank() OVER (ORDER BY a) AS pr,
    cume_dist() OVER (ORDER BY a NULLS FIRST) AS cd, ntile(7) OVER (ORDER BY t) AS nt
  FROM w) x;
-- lag and lead, with constant and varying offsets.
SELECT count(*), md5(string_agg(concat_ws(':', g, l1, l2, l3, l4), ',' ORDER BY g)) FROM (
  SELECT g, lag(t) OVER o AS l1, lag(g, g % 50, -1) OVER o AS l2, lead(a, 3) OVER o AS l3,
    lead(n, g % 7) OVER o AS l4
  FROM w WINDOW o AS (ORDER BY ts, g)) x;
-- first_value, last_value and nth_value over ROWS, RANGE and GROUPS frames.
SELECT count(*), md5(string_agg(concat_ws(':', g, f1, f2, f3, f4, f5), ',' ORDER BY g)) FROM (
  SELECT g,
    first_value(t) OVER (ORDER BY g ROWS BETWEEN 100 PRECEDING AND 50 FOLLOWING) AS f1,
    last_value(g) OVER (ORDER BY a, g ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS f2,
    nth_value(g, 5) OVER (ORDER BY g RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS f3,
    last_value(g) OVER (ORDER BY g DESC GROUPS BETWEEN 3 PRECEDING AND 2 PRECEDING) AS f4,
    first_value(ts) OVER (ORDER BY ts, g ROWS BETWEEN 5 FOLLOWING AND 9 FOLLOWING EXCLUDE CURRENT ROW) AS f5
  FROM w) x;
-- Aggregates over moving frames of each kind, over fewer rows (still
-- far beyond work_mem): PostgreSQL restarts most of them at every row,
-- reading its frame from disk again.
SELECT count(*), md5(string_agg(concat_ws(':', g, s1, s2, s3, s4, s5, s6, s7), ',' ORDER BY g)) FROM (
  SELECT g,
    sum(a) OVER (ORDER BY g ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS s1,
    count(t) OVER (ORDER BY a RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS s2,
    sum(n) OVER (ORDER BY a GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s3,
    max(t) OVER (ORDER BY a DESC RANGE BETWEEN CURRENT ROW AND 4 FOLLOWING) AS s4,
    min(ts) OVER (ORDER BY ts RANGE BETWEEN '1 day' PRECEDING AND '2 hours' FOLLOWING) AS s5,
    sum(n) OVER (ORDER BY n NULLS FIRST RANGE BETWEEN 0.5 PRECEDING AND 1.5 FOLLOWING) AS s6,
    avg(a) OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND 20 FOLLOWING) AS s7
  FROM w WHERE g <= 2500) x;
-- Frames with exclusions, and the default frames.
SELECT count(*), md5(string_agg(concat_ws(':', g, e1, e2, e3, e4, d1, d2, d3), ',' ORDER BY g)) FROM (
  SELECT g,
    sum(a) OVER (ORDER BY g ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING EXCLUDE CURRENT ROW) AS e1,
    count(*) OVER (ORDER BY a GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) AS e2,
    sum(n) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) AS e3,
    max(g) OVER (ORDER BY a RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE TIES) - g AS e4,
    sum(n) OVER (ORDER BY a) AS d1, count(*) OVER () AS d2, max(t) OVER (ORDER BY ts DESC) AS d3
  FROM w WHERE g <= 2500) x;
-- Three partitions, each beyond work_mem.
SELECT count(*), md5(string_agg(concat_ws(':', g, rn, s, lv, ld), ',' ORDER BY g)) FROM (
  SELECT g, row_number() OVER (PARTITION BY p ORDER BY t) AS rn,
    sum(a) OVER (PARTITION BY p ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING) AS s,
    last_value(t) OVER (PARTITION BY p ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv,
    lead(g, 2) OVER (PARTITION BY p ORDER BY ts DESC, g) AS ld
  FROM w) x;
-- Whole rows from the middle and the end of spilled partitions.
SELECT g, a, left(t, 8) AS t, row_number() OVER o, lag(g) OVER o, sum(a) OVER (o ROWS 2 PRECEDING)
FROM w WINDOW o AS (ORDER BY t) ORDER BY t OFFSET 6000 LIMIT 5;
SELECT g, p, left(t, 8) AS t, count(*) OVER (PARTITION BY p), cume_dist() OVER (PARTITION BY p ORDER BY a)
FROM w ORDER BY g DESC LIMIT 5;
-- An error in the middle of a spilled partition.
SELECT sum(v) FROM (SELECT nth_value(g, CASE WHEN g = 9000 THEN 0 ELSE 2 END) OVER (ORDER BY g) AS v FROM w) x;
SELECT sum(v) FROM (SELECT lag(g, CASE WHEN g = 9000 THEN NULL ELSE 2 END) OVER (ORDER BY g) AS v FROM w) x;
RESET work_mem;
