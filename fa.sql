\timing on
BEGIN;
DECLARE c CURSOR FOR SELECT g, g * 2 FROM generate_series(1, 1000000) g;
\o /dev/null
FETCH ALL FROM c;
\o
COMMIT;
