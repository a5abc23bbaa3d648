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
