-- A sequence read as a relation: its one row of last_value, log_cnt and
-- is_called, which needs SELECT on the sequence.
CREATE SEQUENCE seq1;
CREATE SEQUENCE seq2 START 10;
SELECT * FROM seq1;
SELECT last_value, is_called FROM seq2;
SELECT nextval('seq1');
SELECT * FROM seq1;
SELECT nextval('seq1'), nextval('seq1');
SELECT last_value, log_cnt, is_called FROM seq1;
SELECT s.last_value + 1 AS next FROM seq1 s;
SELECT setval('seq1', 40);
SELECT * FROM seq1;
SELECT nextval('seq1');
SELECT * FROM seq1;
SELECT setval('seq2', 5, false);
SELECT * FROM seq2;
SELECT nextval('seq2');
SELECT * FROM seq2;
SELECT * FROM public.seq2 WHERE is_called;
SELECT count(*) FROM seq1, seq2;
CREATE ROLE sc_bob;
SET ROLE sc_bob;
SELECT * FROM seq1;
RESET ROLE;
GRANT USAGE ON SEQUENCE seq1 TO sc_bob;
SET ROLE sc_bob;
SELECT last_value FROM seq1;
RESET ROLE;
GRANT SELECT ON SEQUENCE seq1 TO sc_bob;
SET ROLE sc_bob;
SELECT last_value, is_called FROM seq1;
RESET ROLE;
INSERT INTO seq1 VALUES (1, 0, true);
DROP SEQUENCE seq1, seq2;
DROP ROLE sc_bob;
-- The sequences of serial, bigserial and identity columns are relations
-- of their own, as in PostgreSQL.
CREATE TABLE t (id serial PRIMARY KEY, v text);
CREATE TABLE big (id bigserial, n int GENERATED ALWAYS AS IDENTITY);
CREATE SEQUENCE own1;
\ds
\d t
\d t_id_seq
\d big_n_seq
\d big_id_seq
SELECT relname, relkind, pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relkind = 'S' ORDER BY 1;
SELECT pg_get_serial_sequence('t', 'id'), pg_get_serial_sequence('big', 'n');
SELECT 't_id_seq'::regclass::text;
SELECT * FROM t_id_seq;
INSERT INTO t (v) VALUES ('a'), ('b');
SELECT * FROM t_id_seq;
SELECT last_value, is_called FROM big_n_seq;
UPDATE t_id_seq SET log_cnt = 0;
DELETE FROM big_n_seq;
SELECT c.relname, format_type(s.seqtypid, NULL), s.seqstart, s.seqmax FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid ORDER BY 1;
SELECT c.relname, d.deptype, r.relname AS tbl, d.refobjsubid FROM pg_depend d JOIN pg_class c ON c.oid = d.objid JOIN pg_class r ON r.oid = d.refobjid WHERE c.relkind = 'S' ORDER BY 1;
SELECT * FROM information_schema.sequences ORDER BY sequence_name;
-- Privileges on a column's sequence.
CREATE ROLE sc_eve;
GRANT SELECT ON t TO sc_eve;
SET ROLE sc_eve;
SELECT * FROM t_id_seq;
RESET ROLE;
GRANT SELECT ON SEQUENCE t_id_seq TO sc_eve;
GRANT USAGE ON SEQUENCE big_n_seq TO sc_eve;
\dp
SET ROLE sc_eve;
SELECT last_value, log_cnt, is_called FROM t_id_seq;
SELECT * FROM big_n_seq;
RESET ROLE;
REVOKE ALL ON SEQUENCE t_id_seq, big_n_seq FROM sc_eve;
REVOKE ALL ON t FROM sc_eve;
DROP ROLE sc_eve;
-- Renamed and dropped columns.
ALTER TABLE t RENAME COLUMN id TO ident;
\d t_id_seq
ALTER TABLE big DROP COLUMN id;
\ds
SELECT * FROM big_id_seq;
SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE 'big%';
-- A column's sequence named by regclass, qualified, and of a temporary
-- table.
SELECT nextval('t_id_seq'::regclass), currval('t_id_seq'::regclass);
SELECT setval('t_id_seq'::regclass, 5);
SELECT nextval('public.t_id_seq');
INSERT INTO t (v) VALUES ('c');
SELECT * FROM t ORDER BY 1;
SELECT * FROM public.t_id_seq;
SELECT 't_id_seq'::regclass = (SELECT oid FROM pg_class WHERE relname = 't_id_seq');
CREATE TEMP TABLE tt (id bigserial);
SELECT * FROM tt_id_seq;
SELECT relname, relpersistence FROM pg_class WHERE relkind = 'S' ORDER BY 1;
DROP TABLE tt;
DROP TABLE t, big;
DROP SEQUENCE own1;
\ds
