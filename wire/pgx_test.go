package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

func connectPgx(t *testing.T, ts *testServer) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://root@%s/dev?sslmode=disable", ts.addr))
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

func TestPgxQueries(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	conn := connectPgx(t, ts)
	ctx := context.Background()

	if v := conn.PgConn().ParameterStatus("session_authorization"); v != "root" {
		t.Errorf("session_authorization %q", v)
	}

	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		t.Run(mode.String(), func(t *testing.T) {
			rows, err := conn.Query(ctx, "select 4", mode)
			if err != nil {
				t.Fatal(err)
			}
			ns, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ns) != "[1 2 3 4]" {
				t.Errorf("rows %v", ns)
			}
			if tag := rows.CommandTag().String(); tag != "SELECT 4" {
				t.Errorf("tag %q", tag)
			}

			var s string
			if err := conn.QueryRow(ctx, "select $1", mode, "it's").Scan(&s); err != nil || s != "it's" {
				t.Errorf("echo: %q %v", s, err)
			}
			if mode != pgx.QueryExecModeSimpleProtocol {
				var sum int64
				if err := conn.QueryRow(ctx, "add $1 $2", mode, int64(40), int64(2)).Scan(&sum); err != nil || sum != 42 {
					t.Errorf("add: %d %v", sum, err)
				}
			}
			var a, b string
			var c *string
			if err := conn.QueryRow(ctx, "texts", mode).Scan(&a, &b, &c); err != nil || a != "héllo" || b != "" || c != nil {
				t.Errorf("texts: %q %q %v %v", a, b, c, err)
			}

			_, err = conn.Exec(ctx, "select bogus", mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42601" || pe.Position != 8 || pe.Severity != "ERROR" {
				t.Errorf("error %#v", err)
			}
			// The connection is still usable.
			var n int32
			if err := conn.QueryRow(ctx, "select 1", mode).Scan(&n); err != nil || n != 1 {
				t.Errorf("after error: %d %v", n, err)
			}
		})
	}
}

func TestPgxPreparedAndBatch(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	conn := connectPgx(t, ts)
	ctx := context.Background()

	sd, err := conn.Prepare(ctx, "three", "select 3")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.Fields) != 1 || sd.Fields[0].DataTypeOID != 23 {
		t.Errorf("description %+v", sd.Fields)
	}
	rows, _ := conn.Query(ctx, "three")
	ns, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(ns) != 3 {
		t.Errorf("prepared: %v %v", ns, err)
	}
	// The same name with another text is a duplicate on the server.
	_, err = conn.PgConn().Prepare(ctx, "three", "select 4", nil)
	if pgCode(err) != "42P05" {
		t.Errorf("duplicate prepare: %v", err)
	}
	if err := conn.Deallocate(ctx, "three"); err != nil {
		t.Fatal(err)
	}

	b := &pgx.Batch{}
	b.Queue("select 2")
	b.Queue("select $1", "x")
	b.Queue("fail exec")
	b.Queue("select 1")
	br := conn.SendBatch(ctx, b)
	r, err := br.Query()
	if err != nil {
		t.Fatal(err)
	}
	ns, err = pgx.CollectRows(r, pgx.RowTo[int32])
	if err != nil || len(ns) != 2 {
		t.Errorf("batch 1: %v %v", ns, err)
	}
	var s string
	if err := br.QueryRow().Scan(&s); err != nil || s != "x" {
		t.Errorf("batch 2: %q %v", s, err)
	}
	if _, err := br.Exec(); pgCode(err) != "22012" {
		t.Errorf("batch 3: %v", err)
	}
	if err := br.Close(); err != nil && pgCode(err) != "22012" {
		t.Errorf("batch close: %v", err)
	}
	var n int32
	if err := conn.QueryRow(ctx, "select 1").Scan(&n); err != nil || n != 1 {
		t.Errorf("after batch: %v", err)
	}
}

func TestPgxCopy(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, Options{})
	conn := connectPgx(t, ts)
	ctx := context.Background()

	// pgx's CopyFrom probes the columns, then sends binary COPY data.
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a"}, pgx.CopyFromRows([][]any{{int64(1)}, {int64(2)}, {nil}}))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	h.mu.Lock()
	if got := strings.Join(h.copied, "|"); got != "1|2|NULL" {
		t.Errorf("copied %q", got)
	}
	h.mu.Unlock()

	// Text COPY through pgconn, in and out.
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("x\ny\n"), "copy t from stdin")
	if err != nil || tag.String() != "COPY 2" {
		t.Errorf("pgconn CopyFrom: %v %v", tag, err)
	}
	var out strings.Builder
	tag, err = conn.PgConn().CopyTo(ctx, &out, "copy t to stdout")
	if err != nil || tag.String() != "COPY 3" || out.String() != "1\n2\n3\n" {
		t.Errorf("CopyTo: %q %v %v", out.String(), tag, err)
	}
}

func TestPgxCancel(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, Options{})
	conn := connectPgx(t, ts)

	// Context cancellation makes pgx send a CancelRequest.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.sleeping
		cancel()
	}()
	_, err := conn.Exec(ctx, "sleep")
	if err == nil {
		t.Fatal("sleep returned without error")
	}
	// pgx may close the connection if the cancel does not arrive in time;
	// otherwise the statement failed with 57014.
	if code := pgCode(err); code != "" && code != "57014" {
		t.Errorf("canceled sleep: %v", err)
	}

	// An explicit CancelRequest from another goroutine.
	conn2 := connectPgx(t, ts)
	go func() {
		<-h.sleeping
		if err := conn2.PgConn().CancelRequest(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	_, err = conn2.Exec(context.Background(), "sleep")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
		t.Fatalf("CancelRequest: %v", err)
	}
	var n int32
	if err := conn2.QueryRow(context.Background(), "select 1").Scan(&n); err != nil || n != 1 {
		t.Errorf("after cancel: %v", err)
	}
}

// TestPgxTypedValues reads a value of each type family in binary (pgx's
// default for known types) and in text (simple protocol).
func TestPgxTypedValues(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	conn := connectPgx(t, ts)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			var (
				b     bool
				i2    int16
				f8    float64
				num   pgtype.Numeric
				d, ts time.Time
				tstz  time.Time
				iv    pgtype.Interval
				by    []byte
				j     map[string]any
			)
			err := conn.QueryRow(context.Background(), "typed", mode).Scan(&b, &i2, &f8, &num, &d, &ts, &tstz, &iv, &by, &j)
			if err != nil {
				t.Fatal(err)
			}
			numText, _ := num.Value()
			got := fmt.Sprintf("%v %v %v %v %s %s %s %+v %x %v", b, i2, f8, numText,
				d.Format(time.DateOnly), ts.Format("2006-01-02 15:04:05.0"), tstz.UTC().Format(time.RFC3339),
				iv, by, j)
			want := "true -7 1.5 12.340 2024-02-29 2024-02-29 13:14:15.5 2024-02-29T13:14:15Z {Microseconds:7200000000 Days:1 Months:0 Valid:true} 0102 map[a:1]"
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// BenchmarkRoundTrip measures one statement round trip through the server
// (fake handler), per protocol flavour.
func BenchmarkRoundTrip(b *testing.B) {
	ts := startServer(b, newFakeHandler(), Options{})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://root@%s/dev?sslmode=disable", ts.addr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		b.Run(mode.String(), func(b *testing.B) {
			var n int32
			for b.Loop() {
				if err := conn.QueryRow(ctx, "select 1", mode).Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBackendHandle checks what NewSession gets of the connection: the
// BackendKeyData pid and the client's address, and a Backend whose
// Cancel fails the running statement with 57014 (the session goes on)
// and whose Terminate ends the session with FATAL 57P01, idle or not.
func TestBackendHandle(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, Options{})
	ctx := context.Background()
	params := func(i int) StartupParams {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.params[i]
	}

	conn := connectPgx(t, ts)
	p := params(0)
	if p.PID == 0 || p.PID != conn.PgConn().PID() || p.Backend == nil || p.RemoteAddr == nil ||
		p.RemoteAddr.String() != conn.PgConn().Conn().LocalAddr().String() {
		t.Fatalf("StartupParams: pid %d (BackendKeyData %d), backend %v, remote %v (client %v)",
			p.PID, conn.PgConn().PID(), p.Backend, p.RemoteAddr, conn.PgConn().Conn().LocalAddr())
	}
	// Cancel between statements does nothing.
	p.Backend.Cancel()
	var n int32
	if err := conn.QueryRow(ctx, "select 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after a Cancel while idle: %v", err)
	}
	go func() {
		<-h.sleeping
		p.Backend.Cancel()
	}()
	_, err := conn.Exec(ctx, "sleep")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
		t.Fatalf("Cancel: %v", err)
	}
	if err := conn.QueryRow(ctx, "select 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after Cancel: %v", err)
	}

	// Terminate of a running statement.
	go func() {
		<-h.sleeping
		p.Backend.Terminate()
	}()
	_, err = conn.Exec(ctx, "sleep")
	if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" || pe.Message != "terminating connection due to administrator command" {
		t.Fatalf("Terminate of a running statement: %v", err)
	}
	if _, err := conn.Exec(ctx, "select 1"); err == nil {
		t.Fatal("the terminated session still answers")
	}

	// Terminate of an idle session: the client reads FATAL 57P01.
	conn2 := connectPgx(t, ts)
	params(1).Backend.Terminate()
	_, err = conn2.Exec(ctx, "select 1")
	if err == nil {
		t.Fatal("the terminated idle session still answers")
	}
	if errors.As(err, &pe) && pe.Code != "57P01" {
		t.Fatalf("Terminate of an idle session: %v", err)
	}
	waitFor(t, func() bool { return h.sessionsClosed.Load() == 2 })
	// The handle outlives its connection harmlessly.
	p.Backend.Cancel()
	p.Backend.Terminate()
}
