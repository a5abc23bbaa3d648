package hostile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// target starts the server the tests run against: weir, or PostgreSQL
// with WEIR_TEST_TARGET=postgres.
func target(t *testing.T) testenv.Target {
	if testenv.TargetName() == "postgres" {
		return testenv.StartPostgres(t)
	}
	return testenv.Start(t, testenv.Options{})
}

// TestInvalidTextRefused: text holds neither invalid UTF-8 nor NUL.
// PostgreSQL refuses both with 22021 on every way in: parameters in text
// and in binary format, and COPY FROM STDIN (raw bytes and the \000
// escape); nothing of the refused statements is stored.
func TestInvalidTextRefused(t *testing.T) {
	srv := target(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE bytes_in (t text, v varchar(10))"); err != nil {
		t.Fatal(err)
	}
	const textOID, varcharOID = 25, 1043
	for _, c := range []struct {
		name   string
		val    string
		oid    uint32
		format int16
	}{
		{"binary text 0xff", "a\xffb", textOID, 1},
		{"binary text NUL", "a\x00b", textOID, 1},
		{"binary text truncated sequence", "a\xe2\x82", textOID, 1},
		{"binary varchar NUL", "\x00", varcharOID, 1},
		{"text-format NUL", "a\x00b", textOID, 0},
		{"text-format 0xc3 0x28", "\xc3\x28", textOID, 0},
	} {
		sql := "INSERT INTO bytes_in (t) VALUES ($1)"
		if c.oid == varcharOID {
			sql = "INSERT INTO bytes_in (v) VALUES ($1)"
		}
		_, err := conn.PgConn().ExecParams(ctx, sql, [][]byte{[]byte(c.val)}, []uint32{c.oid}, []int16{c.format}, nil).Close()
		if got := sqlstate(err); got != "22021" {
			t.Errorf("%s: got %v (SQLSTATE %q), want 22021", c.name, err, got)
		}
	}
	for _, c := range []struct{ name, data, opts string }{
		{"0xff", "ok\nb\xffd\n", ""},
		{"\\000 escape", "ok\na\\000b\n", ""},
		{"csv NUL", "ok\n\"a\x00b\"\n", "(FORMAT csv)"},
	} {
		_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(c.data), "COPY bytes_in (t) FROM STDIN "+c.opts)
		if got := sqlstate(err); got != "22021" {
			t.Errorf("COPY %s: got %v (SQLSTATE %q), want 22021", c.name, err, got)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM bytes_in").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows stored: %d, %v; want 0", n, err)
	}
	// Valid text still goes in every way.
	if _, err := conn.PgConn().ExecParams(ctx, "INSERT INTO bytes_in (t) VALUES ($1)", [][]byte{[]byte("ünï ✓")}, []uint32{textOID}, []int16{1}, nil).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("日本\n"), "COPY bytes_in (t) FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	var s string
	if err := conn.QueryRow(ctx, "SELECT string_agg(t, ',' ORDER BY t) FROM bytes_in").Scan(&s); err != nil || s != "ünï ✓,日本" {
		t.Errorf("stored: %q, %v", s, err)
	}
}
