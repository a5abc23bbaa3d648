package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
)

// TestSequenceRowAcrossRestart: a sequence read as a relation shows
// PostgreSQL's last_value, log_cnt and is_called, counting log_cnt down
// from the 32 values a durable write covers; after a restart it shows the
// recorded limit as the last value, called, as PostgreSQL does after a
// crash, and the next value follows it.
func TestSequenceRowAcrossRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE SEQUENCE sq START 10")
	mustRun(t, s, "CREATE TABLE t (id serial PRIMARY KEY, v text)")
	wantRows(t, s, "SELECT * FROM sq", "10 0 f")
	wantRows(t, s, "SELECT * FROM t_id_seq", "1 0 f")
	wantRows(t, s, "SELECT nextval('sq'), nextval('sq')", "10 11")
	wantRows(t, s, "SELECT * FROM sq", "11 31 t")
	mustRun(t, s, "INSERT INTO t (v) VALUES ('a')")
	wantRows(t, s, "SELECT last_value, log_cnt, is_called FROM t_id_seq", "1 32 t")
	wantRows(t, s, "SELECT setval('t_id_seq', 7, false)", "7")
	wantRows(t, s, "SELECT * FROM t_id_seq", "7 0 f")
	wantCode(t, s, "INSERT INTO t_id_seq VALUES (1, 0, true)", pgerr.WrongObjectType, "cannot change sequence \"t_id_seq\"")
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM sq", "42 0 t")
	wantRows(t, s, "SELECT nextval('sq')", "43")
	wantRows(t, s, "SELECT * FROM sq", "43 32 t")
	wantRows(t, s, "SELECT * FROM t_id_seq", "6 0 t")
	wantRows(t, s, "SELECT nextval('t_id_seq')", "7")
}

// TestOwnedByAcrossRestart: a sequence OWNED BY a column, as pg_dump
// restores a serial column, and an identity column added by ALTER
// COLUMN ... ADD GENERATED keep their link and position after a restart;
// dropping the table then drops the owned sequence.
func TestOwnedByAcrossRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id integer NOT NULL, v text)")
	mustRun(t, s, "CREATE SEQUENCE public.t_id_seq AS integer START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1")
	mustRun(t, s, "ALTER SEQUENCE public.t_id_seq OWNED BY public.t.id")
	mustRun(t, s, "ALTER TABLE ONLY public.t ALTER COLUMN id SET DEFAULT nextval('public.t_id_seq'::regclass)")
	mustRun(t, s, "SELECT pg_catalog.setval('public.t_id_seq', 3, true)")
	mustRun(t, s, "CREATE TABLE i (id bigint NOT NULL, v text)")
	mustRun(t, s, "ALTER TABLE i ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME i_seq START WITH 5)")
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT pg_get_serial_sequence('t', 'id'), pg_get_serial_sequence('i', 'id')", "public.t_id_seq public.i_seq")
	wantRows(t, s, "INSERT INTO t (v) VALUES ('a') RETURNING id", "4")
	wantRows(t, s, "INSERT INTO i (v) VALUES ('a') RETURNING id", "5")
	_, err := run(t, s, "INSERT INTO i VALUES (1, 'b')")
	if pe := pgerr.As(err); pe == nil || pe.Code != "428C9" {
		t.Fatalf("a value for the ALWAYS identity column: %v, want 428C9", err)
	}
	mustRun(t, s, "DROP TABLE t")
	wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname = 't_id_seq'", "0")
}
