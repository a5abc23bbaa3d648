package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/weirdb/weir/wire"
)

// servePgx serves e over the wire protocol on a local port and returns a
// pgx connection to it, in pgx's default mode: statements are prepared
// once per text (Parse) and then only bound and executed.
func servePgx(t *testing.T, e *Engine) *pgx.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := wire.NewServer(e, wire.Options{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://root@%s/dev?sslmode=disable", ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestStatementCacheFollowsCatalog runs the same statement texts through
// pgx's statement cache around DROP and CREATE: each run binds a
// statement prepared before the change, which must follow the relation
// now named, as PostgreSQL's plan cache does.
func TestStatementCacheFollowsCatalog(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	conn := servePgx(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const sel = "SELECT id FROM pv WHERE a = $1 ORDER BY id"
	const ins = "INSERT INTO pv VALUES ($1, $2)"
	ids := func() ([]int32, error) {
		rows, err := conn.Query(ctx, sel, 1)
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, pgx.RowTo[int32])
	}
	want := func(w ...int32) {
		t.Helper()
		got, err := ids()
		if err != nil || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("%s: got %v, %v; want %v", sel, got, err, w)
		}
	}
	wantErr := func(code string) {
		t.Helper()
		if _, err := ids(); pgCode(err) != code {
			t.Fatalf("%s: got error %v, want %s", sel, err, code)
		}
	}

	exec("CREATE TABLE pv (id int PRIMARY KEY, a int)")
	exec(ins, 1, 1)
	want(1)
	exec("DROP TABLE pv", pgx.QueryExecModeSimpleProtocol)
	wantErr("42P01")
	if _, err := conn.Exec(ctx, ins, 9, 9); pgCode(err) != "42P01" {
		t.Fatalf("insert into a dropped table: %v, want 42P01", err)
	}
	exec("CREATE TABLE pv (id int PRIMARY KEY, a int)", pgx.QueryExecModeSimpleProtocol)
	exec(ins, 2, 1)
	exec(ins, 3, 2)
	want(2)

	// Dropped and created again between Parse and Bind of the very same
	// prepared statement.
	if _, err := conn.Prepare(ctx, "byid", sel); err != nil {
		t.Fatal(err)
	}
	exec("DROP TABLE pv", pgx.QueryExecModeSimpleProtocol)
	exec("CREATE TABLE pv (id int PRIMARY KEY, a int)", pgx.QueryExecModeSimpleProtocol)
	exec("INSERT INTO pv VALUES (4, 1)", pgx.QueryExecModeSimpleProtocol)
	rows, err := conn.Query(ctx, "byid", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil || fmt.Sprint(got) != "[4]" {
		t.Fatalf("byid: %v, %v; want [4]", got, err)
	}

	// A different result type is refused once; pgx then drops the
	// statement from its cache and prepares it anew.
	exec("DROP TABLE pv", pgx.QueryExecModeSimpleProtocol)
	exec("CREATE TABLE pv (id bigint PRIMARY KEY, a int)", pgx.QueryExecModeSimpleProtocol)
	exec(ins, 5, 1)
	wantErr("0A000")
	want(5)

	// Inside a transaction block the failed Bind fails the block.
	exec("DROP TABLE pv", pgx.QueryExecModeSimpleProtocol)
	exec("BEGIN", pgx.QueryExecModeSimpleProtocol)
	wantErr("42P01")
	if _, err := conn.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol); pgCode(err) != "25P02" {
		t.Fatalf("after a failed Bind in a block: %v, want 25P02", err)
	}
	exec("ROLLBACK", pgx.QueryExecModeSimpleProtocol)
}

// TestParseDeclaresUnusedParameters checks that a Parse naming more
// parameter types than the text uses describes them all, as PostgreSQL
// does, and that an unused parameter of unspecified type is 42P18.
func TestParseDeclaresUnusedParameters(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	conn := servePgx(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sd, err := conn.PgConn().Prepare(ctx, "two", "SELECT $1", []uint32{23, 25}) // int4, text
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sd.ParamOIDs) != "[23 25]" {
		t.Fatalf("parameters %v, want [23 25]", sd.ParamOIDs)
	}
	res := conn.PgConn().ExecPrepared(ctx, "two", [][]byte{[]byte("7"), []byte("unused")}, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "7" {
		t.Fatalf("two: %v, %v; want 7", res.Rows, res.Err)
	}
	if _, err := conn.PgConn().Prepare(ctx, "", "SELECT $1", []uint32{23, 0}); pgCode(err) != "42P18" {
		t.Fatalf("unused parameter of no type: %v, want 42P18", err)
	}
}

// TestStatementCacheFollowsAlterType: statements pgx prepared before
// ALTER COLUMN ... TYPE run after it against the rewritten rows: a
// SELECT whose result type changed is refused once (0A000, as
// PostgreSQL's plan cache does) and then prepared anew; an INSERT
// converts its parameters to the new type.
func TestStatementCacheFollowsAlterType(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	conn := servePgx(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	simple := func(q string) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const ins = "INSERT INTO pt VALUES ($1, $2)"
	const sel = "SELECT v FROM pt WHERE id = $1"
	simple("CREATE TABLE pt (id int PRIMARY KEY, v int)")
	if _, err := conn.Exec(ctx, ins, 1, 10); err != nil {
		t.Fatal(err)
	}
	var v int32
	if err := conn.QueryRow(ctx, sel, 1).Scan(&v); err != nil || v != 10 {
		t.Fatalf("before: %d, %v", v, err)
	}
	simple("ALTER TABLE pt ALTER COLUMN v TYPE text USING 'v' || v, ALTER COLUMN id TYPE bigint")
	if _, err := conn.Exec(ctx, ins, 2, 20); err != nil {
		t.Fatalf("insert prepared before the change: %v", err)
	}
	var s string
	if err := conn.QueryRow(ctx, sel, 1).Scan(&s); pgCode(err) != "0A000" {
		t.Fatalf("select whose result type changed: %q, %v; want 0A000", s, err)
	}
	for id, want := range map[int64]string{1: "v10", 2: "20"} {
		if err := conn.QueryRow(ctx, sel, id).Scan(&s); err != nil || s != want {
			t.Fatalf("id %d after the change: %q, %v; want %q", id, s, err, want)
		}
	}
}
