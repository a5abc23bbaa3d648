-- now() and 'now' are the transaction's start time: equal across the
-- statements of one transaction however long it runs, different in the
-- next; pg_sleep waits, and statement_timeout cancels it.
BEGIN;
SELECT now() AS t1 \gset
SELECT pg_sleep(0.02);
SELECT now() = :'t1'::timestamptz AS same_txn, 'now'::timestamptz = now() AS now_literal,
  current_timestamp = now() AS cur_ts, transaction_timestamp() = now() AS txn_ts,
  statement_timestamp() > now() AS stmt_later, clock_timestamp() > now() AS clock_later;
SELECT 'today'::date = current_date AS today, 'tomorrow'::date - current_date AS tomorrow,
  'now'::timestamp = localtimestamp AS local_now;
COMMIT;
SELECT pg_sleep(0.02);
SELECT now() > :'t1'::timestamptz AS next_txn_later;
BEGIN;
SELECT now() AS t2 \gset
SELECT pg_sleep(0.01);
SELECT now() = :'t2'::timestamptz AS same_again, :'t2'::timestamptz > :'t1'::timestamptz AS t2_after_t1;
ROLLBACK;
SELECT pg_sleep(0), pg_sleep(-1), pg_sleep(NULL) IS NULL AS null_sleep;
SET statement_timeout = 50;
SELECT pg_sleep(30);
RESET statement_timeout;
SELECT 1 AS after_timeout;
-- Arrays: || with an element on either side, slices.
SELECT ARRAY[1,2] || 3 AS app, 0 || ARRAY[1,2] AS pre, ARRAY['a'] || 'b'::text AS txt,
  NULL::int[] || 4 AS null_arr, ARRAY[1] || NULL::int AS null_elem, ARRAY[1,2] || ARRAY[3] AS cat;
SELECT (ARRAY[1,2,3,4])[2:3], (ARRAY[1,2,3])[:2], (ARRAY[1,2,3])[2:], (ARRAY[1,2,3])[3:1],
  (ARRAY['x','y'])[0:5], (ARRAY[1.5, 2.5])[2:2];
CREATE TABLE arr (id int PRIMARY KEY, a int[], t text[]);
INSERT INTO arr VALUES (1, ARRAY[10,20,30], ARRAY['p','q']), (2, NULL, '{}');
SELECT id, a[2:3] AS mid, a || id AS app, t || 'r'::text AS t2, cardinality(a[:1]) AS c FROM arr ORDER BY id;
SELECT array_fill(7, ARRAY[3]), array_fill('x'::text, ARRAY[2], ARRAY[1]), array_fill(1, ARRAY[0]);
-- varchar(n): an explicit cast truncates, an assignment fails.
SELECT 'abcdef'::varchar(3), CAST('abcdef' AS varchar(2)), 'ab'::varchar(5), 'abcdef'::text::varchar(4);
CREATE TABLE vc (v varchar(3));
INSERT INTO vc VALUES ('abcdef');
INSERT INTO vc VALUES ('abcdef'::varchar(3));
SELECT * FROM vc;
-- Bit aggregates.
SELECT bit_and(x), bit_or(x), bit_xor(x), bit_xor(x::int8) AS x8, bit_or(x::int2) AS o2
  FROM (VALUES (12), (10), (14), (NULL)) v(x);
SELECT bit_and(x), bit_xor(x) FROM (VALUES (NULL::int)) v(x);
-- numeric ^ and exp beyond numeric's range are 22003, not NaN.
SELECT 10::numeric ^ 200000;
SELECT exp(1000000::numeric);
SELECT length((10::numeric ^ 1000)::text), 2::numeric ^ 10 AS p;
-- convert_from and convert_to.
SELECT convert_from('\x68c3a9'::bytea, 'UTF8'), convert_from('\xe9'::bytea, 'LATIN1'),
  convert_to('hé', 'UTF8'), convert_to('hé', 'latin1');
SELECT convert_from('\xff'::bytea, 'UTF8');
SELECT convert_from('\x41'::bytea, 'nope');
-- jsonb_agg and jsonb_object_agg (listed, once without an implementation).
SELECT jsonb_agg(x ORDER BY x), jsonb_agg(t ORDER BY x), jsonb_object_agg(t, x), jsonb_agg(x) FILTER (WHERE x > 1) IS NOT NULL AS f
  FROM (VALUES (2, 'b'), (1, 'a'), (NULL, 'c'), (3, 'b')) v(x, t);
SELECT g, jsonb_agg(n ORDER BY n) FROM (VALUES (1, 1.50), (1, 2), (2, NULL)) v(g, n) GROUP BY g ORDER BY g;
SELECT jsonb_object_agg(t, x) FROM (VALUES (1, NULL::text)) v(x, t);
