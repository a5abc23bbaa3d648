-- Window functions: ranking, offsets, frames, aggregates over partitions.
CREATE TABLE s (id int PRIMARY KEY, g text, v int);
INSERT INTO s VALUES (1, 'a', 10), (2, 'a', 20), (3, 'a', 20), (4, 'b', 5), (5, 'b', NULL), (6, 'c', 7), (7, 'a', 30);
SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v, id) AS rn, rank() OVER (PARTITION BY g ORDER BY v) AS rk,
       dense_rank() OVER (PARTITION BY g ORDER BY v) AS drk FROM s ORDER BY id;
SELECT id, v, lag(v) OVER w AS prev, lead(v, 2) OVER w AS next2, lag(v, 1, -1) OVER w AS prev_d,
       first_value(v) OVER w AS fv, last_value(v) OVER w AS lv FROM s WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY id) AS running, avg(v) OVER (PARTITION BY g) AS gavg,
       count(*) OVER () AS total, count(v) OVER (PARTITION BY g) AS gcount FROM s ORDER BY id;
SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s3,
       min(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS mn,
       max(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS mx FROM s ORDER BY id;
SELECT id, v, percent_rank() OVER (ORDER BY v) AS pr, cume_dist() OVER (ORDER BY v) AS cd, ntile(3) OVER (ORDER BY id) AS nt
  FROM s ORDER BY id;
SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC NULLS LAST) FROM s GROUP BY g ORDER BY g;
SELECT id, row_number() OVER (ORDER BY v DESC NULLS FIRST, id) FROM s ORDER BY 2;
SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id DESC) AS rn FROM s) t WHERE rn = 1 ORDER BY g;
SELECT id, row_number() OVER (ORDER BY id) FROM s WHERE row_number() OVER (ORDER BY id) > 1;
SELECT nosuch() OVER ();
