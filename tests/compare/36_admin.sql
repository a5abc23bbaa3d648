-- The server administration functions and ALTER SYSTEM, as far as their
-- output does not depend on other sessions or the clock: the session's
-- own row of pg_stat_activity, pg_cancel_backend and
-- pg_terminate_backend on pids that are no backend (a warning and
-- false), and ALTER SYSTEM's errors. Nothing is left set: the script
-- ends with ALTER SYSTEM RESET ALL and a reload.
SELECT pg_typeof(pg_backend_pid());
SELECT * FROM pg_stat_activity WHERE false;
SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT datname, usename, state, query, backend_type, wait_event_type, wait_event,
       leader_pid, client_hostname, backend_xid, query_id
  FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT xact_start = query_start AS same_start, state_change >= query_start AS changed_since,
       backend_start <= query_start AS started_before, client_port > 0 AS tcp
  FROM pg_stat_activity WHERE pid = pg_backend_pid();
BEGIN;
SELECT state, xact_start < query_start AS block_older FROM pg_stat_activity WHERE pid = pg_backend_pid();
COMMIT;
-- No backend has these pids.
SELECT pg_cancel_backend(0);
SELECT pg_cancel_backend(-5);
SELECT pg_cancel_backend(2147483647);
SELECT pg_cancel_backend(NULL);
SELECT pg_terminate_backend(2147483647);
SELECT pg_terminate_backend(2147483647, 100);
SELECT pg_terminate_backend(2147483647, -1);
SELECT pg_terminate_backend(NULL, 10);
SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE false;
SELECT pg_cancel_backend('x');
SELECT pg_terminate_backend(1, 2, 3);
-- ALTER SYSTEM: refused in a transaction block, explicit or implicit.
BEGIN;
ALTER SYSTEM SET work_mem = '8MB';
ROLLBACK;
BEGIN;
ALTER SYSTEM RESET ALL;
ROLLBACK;
SELECT 1 \; ALTER SYSTEM SET work_mem = '8MB';
-- Its values are checked as SET checks them.
ALTER SYSTEM SET nosuch = 1;
ALTER SYSTEM RESET nosuch;
ALTER SYSTEM SET work_mem = 'abc';
ALTER SYSTEM SET work_mem = 10;
ALTER SYSTEM SET statement_timeout = 'x';
ALTER SYSTEM SET statement_timeout = -1;
ALTER SYSTEM SET statement_timeout = '-1s';
ALTER SYSTEM SET statement_timeout = '5 foo';
ALTER SYSTEM SET statement_timeout = '3000000000';
ALTER SYSTEM SET transaction_isolation = 'serializable';
ALTER SYSTEM SET server_version = '1';
ALTER SYSTEM SET is_superuser = on;
ALTER SYSTEM SET work_mem = '4MB', '5MB';
SET work_mem = '4MB', '5MB';
ALTER SYSTEM SET search_path = a, b;
ALTER SYSTEM RESET search_path;
-- A value kept is no session's until a reload.
ALTER SYSTEM SET work_mem = '8MB';
ALTER SYSTEM SET statement_timeout TO '5min';
SHOW work_mem;
SHOW statement_timeout;
ALTER SYSTEM SET statement_timeout TO DEFAULT;
ALTER SYSTEM RESET work_mem;
ALTER SYSTEM SET application_name = 'x';
ALTER SYSTEM RESET ALL;
SELECT pg_reload_conf();
SHOW work_mem;
ALTER SYSTEM SET role = 'root';
