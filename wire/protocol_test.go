package wire

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/internal/pgerr"
)

func expectTrace(t *testing.T, c *rawClient, want string) {
	t.Helper()
	got := c.trace()
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}

func TestStartupParameters(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c := dialRaw(t, ts.addr)
	// SSLRequest and GSSEncRequest are refused with 'N'.
	c.nc.Write(rawStartup(codeSSLRequest, nil))
	c.nc.Write(rawStartup(codeGSSEncRequest, nil))
	var nn [2]byte
	if _, err := c.nc.Read(nn[:1]); err != nil || nn[0] != 'N' {
		t.Fatalf("SSLRequest answer %q, %v", nn[0], err)
	}
	if _, err := c.nc.Read(nn[1:]); err != nil || nn[1] != 'N' {
		t.Fatalf("GSSEncRequest answer %q, %v", nn[1], err)
	}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{
		"user": "alice", "application_name": "app", "client_encoding": "unicode", "DateStyle": "ISO",
	}})
	var got []string
	for {
		m := c.recv()
		if k, ok := m.(*pgproto3.BackendKeyData); ok {
			if k.ProcessID == 0 || len(k.SecretKey) != 4 {
				t.Errorf("BackendKeyData %+v", k)
			}
			got = append(got, "BackendKeyData")
			continue
		}
		got = append(got, render(m))
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	want := []string{
		"AuthenticationOk",
		"ParameterStatus server_version=15.0",
		"ParameterStatus server_encoding=UTF8",
		"ParameterStatus DateStyle=ISO, MDY",
		"ParameterStatus TimeZone=UTC",
		"ParameterStatus integer_datetimes=on",
		"ParameterStatus standard_conforming_strings=on",
		"ParameterStatus application_name=app",
		"ParameterStatus client_encoding=UTF8",
		"ParameterStatus session_authorization=alice",
		"ParameterStatus is_superuser=on",
		"BackendKeyData",
		"ReadyForQuery I",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("startup:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ts.h.mu.Lock()
	p := ts.h.params[0]
	ts.h.mu.Unlock()
	if p.User != "alice" || p.Database != "alice" || p.Options["DateStyle"] != "ISO" || p.Options["application_name"] != "app" {
		t.Errorf("StartupParams %+v", p)
	}
}

func TestStartupRefusals(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	startup := func(version uint32, params map[string]string) []byte {
		m := &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: params}
		b, _ := m.Encode(nil)
		putVersion(b, version)
		return b
	}
	cases := []struct {
		name string
		pkt  []byte
		want string
	}{
		{"protocol 2", startup(2<<16, map[string]string{"user": "u"}), "0A000"},
		{"encoding", startup(pgproto3.ProtocolVersion30, map[string]string{"user": "u", "client_encoding": "LATIN1"}), "22023"},
		{"no user", startup(pgproto3.ProtocolVersion30, map[string]string{"database": "d"}), "28000"},
		{"bad length", []byte{0, 0, 0, 3, 0, 0, 0, 0}, "08P01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, ts.addr)
			c.nc.Write(tc.pkt)
			m := c.recv()
			e, ok := m.(*pgproto3.ErrorResponse)
			if !ok || e.Severity != "FATAL" || e.Code != tc.want {
				t.Fatalf("got %s, want FATAL %s", render(m), tc.want)
			}
			readAllUntilEOF(t, c.nc)
		})
	}

	// A newer 3.x minor version is negotiated down to 3.0.
	c := dialRaw(t, ts.addr)
	c.nc.Write(startup(3<<16|2, map[string]string{"user": "u"}))
	if m, ok := c.recv().(*pgproto3.NegotiateProtocolVersion); !ok || m.NewestMinorProtocol != 0 {
		t.Fatalf("want NegotiateProtocolVersion 0, got %#v", m)
	}
	if m := c.recv(); render(m) != "AuthenticationOk" {
		t.Fatalf("got %s", render(m))
	}
}

func putVersion(pkt []byte, v uint32) {
	pkt[4], pkt[5], pkt[6], pkt[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func TestNewSessionError(t *testing.T) {
	h := newFakeHandler()
	h.openFails = pgerr.New(pgerr.InvalidCatalogName, "database \"x\" does not exist")
	ts := startServer(t, h, Options{})
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u", "database": "x"}})
	expectTrace(t, c, "ErrorResponse FATAL 3D000 database \"x\" does not exist\nEOF")
}

func TestSimpleQuery(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)

	c.send(&pgproto3.Query{String: "select 2; texts;"})
	expectTrace(t, c, `
RowDescription n:23/0
DataRow '1'
DataRow '2'
CommandComplete SELECT 2
RowDescription a:25/0 b:25/0 c:25/0
DataRow 'héllo' '' NULL
CommandComplete SELECT 1
ReadyForQuery I`)

	// Empty query strings.
	c.send(&pgproto3.Query{String: " ; ;"})
	expectTrace(t, c, "EmptyQueryResponse\nReadyForQuery I")

	// The first error stops the query string; its position counts
	// characters of the whole string (the é is one character, two bytes).
	c.send(&pgproto3.Query{String: "select 1; /*é*/ select bogus; select 3"})
	expectTrace(t, c, `
RowDescription n:23/0
DataRow '1'
CommandComplete SELECT 1
ErrorResponse ERROR 42601 syntax error at or near "bogus" @24
ReadyForQuery I`)

	c.send(&pgproto3.Query{String: "select 'unterminated"})
	expectTrace(t, c, "ErrorResponse ERROR 42601 unterminated quoted string at or near \"select 'unterminated\" @1\nReadyForQuery I")

	// Errors while executing and while fetching; the session goes on.
	c.send(&pgproto3.Query{String: "fail exec"})
	expectTrace(t, c, "ErrorResponse ERROR 22012 division by zero\nReadyForQuery I")
	// The error's context goes out as the 'W' field, which psql prints
	// as CONTEXT.
	c.send(&pgproto3.Query{String: "fail exec"})
	if e, ok := c.recv().(*pgproto3.ErrorResponse); !ok || e.Where != "fake context" {
		t.Fatalf("want an ErrorResponse with Where \"fake context\", got %#v", e)
	}
	expectTrace(t, c, "ReadyForQuery I")
	c.send(&pgproto3.Query{String: "fail next"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nErrorResponse ERROR 22012 division by zero\nReadyForQuery I")

	c.send(&pgproto3.Query{String: "begin; notice; set timezone"})
	expectTrace(t, c, `
CommandComplete BEGIN
NoticeResponse NOTICE 00000 hello from the engine
CommandComplete DO
ParameterStatus TimeZone=Europe/Paris
CommandComplete SET
ReadyForQuery T`)
	c.send(&pgproto3.Query{String: "commit"})
	expectTrace(t, c, "CommandComplete COMMIT\nReadyForQuery I")
}

func TestExtendedProtocol(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)

	// Unnamed statement, describe, bind with a text parameter, execute.
	c.send(
		&pgproto3.Parse{Query: "select $1"},
		&pgproto3.Describe{ObjectType: 'S'},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("hi")}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
ParseComplete
ParameterDescription 25
RowDescription ?column?:25/0
BindComplete
RowDescription ?column?:25/0
DataRow 'hi'
CommandComplete SELECT 1
ReadyForQuery I`)

	// Named statement with binary int8 parameters and a binary result.
	be := func(i int64) []byte {
		b := make([]byte, 8)
		for k := 0; k < 8; k++ {
			b[7-k] = byte(i >> (8 * k))
		}
		return b
	}
	c.send(
		&pgproto3.Parse{Name: "add", Query: "add $1 $2"},
		&pgproto3.Bind{PreparedStatement: "add", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{be(40), be(2)}, ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	got := c.trace()
	if !strings.Contains(got, "RowDescription sum:20/1\nDataRow '"+string(be(42))+"'\nCommandComplete SELECT 1\n") {
		t.Errorf("binary add: %q", got)
	}

	// A duplicate named statement is 42P05; messages up to Sync are skipped.
	c.send(
		&pgproto3.Parse{Name: "add", Query: "select 1"},
		&pgproto3.Bind{PreparedStatement: "add"},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, "ErrorResponse ERROR 42P05 prepared statement \"add\" already exists\nReadyForQuery I")

	// Parse errors keep their position; multiple commands are refused.
	c.send(&pgproto3.Parse{Query: "  select bogus"}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 42601 syntax error at or near \"bogus\" @10\nReadyForQuery I")
	c.send(&pgproto3.Parse{Query: "select 1; select 2"}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 42601 cannot insert multiple commands into a prepared statement\nReadyForQuery I")

	// Bind revalidates the statement: its error takes BindComplete's
	// place, and the columns it now has are the portal's.
	c.send(&pgproto3.Parse{Name: "stale", Query: "stale"}, &pgproto3.Sync{})
	expectTrace(t, c, "ParseComplete\nReadyForQuery I")
	ts.h.stale.Store(1)
	c.send(&pgproto3.Bind{PreparedStatement: "stale"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 42P01 relation \"t\" does not exist\nReadyForQuery I")
	ts.h.stale.Store(2)
	c.send(&pgproto3.Bind{PreparedStatement: "stale"}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Sync{})
	expectTrace(t, c, "BindComplete\nRowDescription m:23/0\nReadyForQuery I")
	ts.h.stale.Store(0)

	// Bind errors: missing statement, wrong parameter count, bad format count.
	c.send(&pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 26000 prepared statement \"nope\" does not exist\nReadyForQuery I")
	c.send(&pgproto3.Bind{PreparedStatement: "add"}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 08P01 bind message supplies 0 parameters, but prepared statement \"add\" requires 2\nReadyForQuery I")
	c.send(&pgproto3.Bind{PreparedStatement: "add", Parameters: [][]byte{[]byte("x"), nil}}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 22P02 invalid input syntax for type bigint: \"x\"\nReadyForQuery I")
	c.send(&pgproto3.Parse{Name: "s3", Query: "select 3"},
		&pgproto3.Bind{PreparedStatement: "s3", ResultFormatCodes: []int16{0, 1}}, &pgproto3.Sync{})
	expectTrace(t, c, "ParseComplete\nErrorResponse ERROR 08P01 bind message has 2 result formats but query has 1 columns\nReadyForQuery I")

	// Execute with MaxRows suspends the portal; the next Execute goes on.
	c.send(
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s3"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
BindComplete
DataRow '1'
DataRow '2'
PortalSuspended
DataRow '3'
CommandComplete SELECT 3
ReadyForQuery I`)
	// Portals end with the implicit transaction at Sync.
	c.send(&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	expectTrace(t, c, "ErrorResponse ERROR 34000 portal \"p\" does not exist\nReadyForQuery I")

	// Describe of statements without rows, empty statements, Close.
	c.send(
		&pgproto3.Parse{Name: "n", Query: "notice"},
		&pgproto3.Describe{ObjectType: 'S', Name: "n"},
		&pgproto3.Parse{Name: "e", Query: " ; "},
		&pgproto3.Describe{ObjectType: 'S', Name: "e"},
		&pgproto3.Bind{PreparedStatement: "e"},
		&pgproto3.Execute{},
		&pgproto3.Close{ObjectType: 'S', Name: "e"},
		&pgproto3.Close{ObjectType: 'P', Name: ""},
		&pgproto3.Describe{ObjectType: 'S', Name: "e"},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
ParseComplete
ParameterDescription 
NoData
ParseComplete
ParameterDescription 
NoData
BindComplete
EmptyQueryResponse
CloseComplete
CloseComplete
ErrorResponse ERROR 26000 prepared statement "e" does not exist
ReadyForQuery I`)

	// An error while fetching skips to Sync; Flush sends what is buffered.
	c.send(&pgproto3.Parse{Name: "f", Query: "fail next"}, &pgproto3.Bind{PreparedStatement: "f"},
		&pgproto3.Execute{}, &pgproto3.Execute{}, &pgproto3.Flush{})
	for _, want := range []string{"ParseComplete", "BindComplete", "DataRow '1'", "ErrorResponse ERROR 22012 division by zero"} {
		if got := render(c.recv()); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
	c.send(&pgproto3.Sync{})
	expectTrace(t, c, "ReadyForQuery I")

	// Named portals survive Sync inside a transaction block.
	c.send(&pgproto3.Query{String: "begin"})
	expectTrace(t, c, "CommandComplete BEGIN\nReadyForQuery T")
	c.send(&pgproto3.Bind{DestinationPortal: "q", PreparedStatement: "s3"}, &pgproto3.Execute{Portal: "q", MaxRows: 1}, &pgproto3.Sync{})
	expectTrace(t, c, "BindComplete\nDataRow '1'\nPortalSuspended\nReadyForQuery T")
	c.send(&pgproto3.Execute{Portal: "q"}, &pgproto3.Execute{Portal: "q"}, &pgproto3.Sync{})
	expectTrace(t, c, "DataRow '2'\nDataRow '3'\nCommandComplete SELECT 3\nCommandComplete SELECT 0\nReadyForQuery T")
	c.send(&pgproto3.Query{String: "commit"})
	expectTrace(t, c, "CommandComplete COMMIT\nReadyForQuery I")
}

// TestPipelineTransaction checks where the server begins and ends the
// implicit transactions: an Execute followed by more messages before
// Sync begins one (PostgreSQL runs everything up to Sync as one
// transaction), which Sync commits, or rolls back when a message of the
// batch failed (the messages after the failure skipped); an Execute
// then Sync, and a single-statement Query, begin none but still end
// their statement's own at Sync or the Query's end.
func TestPipelineTransaction(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	ts.h.txnLog()

	c.send(
		&pgproto3.Parse{Query: "select 1"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, "ParseComplete\nBindComplete\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	if got := ts.h.txnLog(); got != "commit" {
		t.Errorf("Execute then Sync: %q, want commit", got)
	}

	c.send(
		&pgproto3.Parse{Query: "select 1"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
ParseComplete
BindComplete
DataRow '1'
CommandComplete SELECT 1
BindComplete
DataRow '1'
CommandComplete SELECT 1
ReadyForQuery I`)
	if got := ts.h.txnLog(); got != "pipeline commit" {
		t.Errorf("two Executes: %q, want pipeline commit", got)
	}

	c.send(
		&pgproto3.Parse{Name: "f", Query: "fail exec"},
		&pgproto3.Parse{Query: "select 1"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Bind{PreparedStatement: "f"},
		&pgproto3.Execute{},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
ParseComplete
ParseComplete
BindComplete
DataRow '1'
CommandComplete SELECT 1
BindComplete
ErrorResponse ERROR 22012 division by zero
ReadyForQuery I`)
	// BeginPipeline comes before every Execute not followed by Sync.
	if got := ts.h.txnLog(); got != "pipeline pipeline rollback" {
		t.Errorf("failing batch: %q, want pipeline pipeline rollback", got)
	}

	// A Bind error fails the batch as well.
	c.send(
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("x")}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expectTrace(t, c, `
BindComplete
DataRow '1'
CommandComplete SELECT 1
ErrorResponse ERROR 08P01 bind message supplies 1 parameters, but prepared statement "" requires 0
ReadyForQuery I`)
	if got := ts.h.txnLog(); got != "pipeline rollback" {
		t.Errorf("batch with a failing Bind: %q, want pipeline rollback", got)
	}

	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	c.send(&pgproto3.Query{String: "select 1; fail exec"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nErrorResponse ERROR 22012 division by zero\nReadyForQuery I")
	if got := ts.h.txnLog(); got != "commit query rollback" {
		t.Errorf("simple Queries: %q, want commit query rollback", got)
	}
}

func TestCopy(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)

	c.send(&pgproto3.Query{String: "copy t from stdin"})
	if got := render(c.recv()); got != "CopyInResponse 0" {
		t.Fatalf("got %s", got)
	}
	c.send(&pgproto3.CopyData{Data: []byte("a\nb")}, &pgproto3.Flush{}, &pgproto3.CopyData{Data: []byte("c\nd\n")}, &pgproto3.CopyDone{})
	expectTrace(t, c, "CommandComplete COPY 3\nReadyForQuery I")
	ts.h.mu.Lock()
	if got := strings.Join(ts.h.copied, "|"); got != "a|bc|d" {
		t.Errorf("copied %q", got)
	}
	ts.h.mu.Unlock()

	c.send(&pgproto3.Query{String: "copy t from stdin"})
	c.recv()
	c.send(&pgproto3.CopyData{Data: []byte("a\n")}, &pgproto3.CopyFail{Message: "no more"})
	expectTrace(t, c, "ErrorResponse ERROR 57014 COPY from stdin failed: no more\nReadyForQuery I")

	c.send(&pgproto3.Query{String: "copy t to stdout"})
	expectTrace(t, c, `
CopyOutResponse 0
CopyData 1
CopyData 2
CopyData 3
CopyDone
CommandComplete COPY 3
ReadyForQuery I`)

	// A failing statement leaves no copy data behind: the rest of the
	// stream is discarded until CopyDone.
	c.send(&pgproto3.Query{String: "copy t from stdin binary"})
	if got := render(c.recv()); got != "CopyInResponse 1" {
		t.Fatalf("got %s", got)
	}
	c.send(&pgproto3.CopyData{Data: []byte("not a header")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "ErrorResponse ERROR 22P03 invalid COPY file header\nReadyForQuery I")
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
}

func TestCancelRequest(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, key := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "sleep"})
	<-ts.h.sleeping

	// A wrong secret is ignored.
	bad := dialRaw(t, ts.addr)
	bad.send(&pgproto3.CancelRequest{ProcessID: key.ProcessID, SecretKey: []byte{0, 0, 0, 0}})
	readAllUntilEOF(t, bad.nc)
	select {
	case <-time.After(50 * time.Millisecond):
	}

	cr := dialRaw(t, ts.addr)
	cr.send(&pgproto3.CancelRequest{ProcessID: key.ProcessID, SecretKey: key.SecretKey})
	if b := readAllUntilEOF(t, cr.nc); len(b) != 0 {
		t.Errorf("cancel connection got %q", b)
	}
	expectTrace(t, c, "ErrorResponse ERROR 57014 canceling statement due to user request\nReadyForQuery I")
	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")

	// A COPY FROM STDIN waiting for data is canceled too; the rest of the
	// copy stream is then discarded.
	c.send(&pgproto3.Query{String: "copy t from stdin"}, &pgproto3.CopyData{Data: []byte("a\n")})
	if got := render(c.recv()); got != "CopyInResponse 0" {
		t.Fatalf("got %s", got)
	}
	cr = dialRaw(t, ts.addr)
	cr.send(&pgproto3.CancelRequest{ProcessID: key.ProcessID, SecretKey: key.SecretKey})
	readAllUntilEOF(t, cr.nc)
	// The handler's error, which names the line it stopped at (the
	// first or the second: the cancel may come before the handler read
	// the data), is what the client gets, not the cancel's bare cause.
	msg := c.recv()
	if got := render(msg); got != "ErrorResponse ERROR 57014 canceling statement due to user request" {
		t.Fatalf("got %s", got)
	}
	if e, ok := msg.(*pgproto3.ErrorResponse); !ok || !strings.HasPrefix(e.Where, "COPY t, line ") {
		t.Fatalf("the cancel's CONTEXT: %+v, want COPY t, line n", msg)
	}
	c.send(&pgproto3.CopyData{Data: []byte("b\n")}, &pgproto3.CopyDone{})
	expectTrace(t, c, "ReadyForQuery I")

	// A handler reading under a context of its own (ContextReader), as
	// the engine does for statement_timeout, is stopped by it while the
	// client sends nothing; the rest of the stream is discarded too.
	copyTimesOut(t, c)
}

// copyTimesOut runs a COPY FROM STDIN whose handler reads under a
// statement timeout of its own while the client sends nothing (the
// server interrupts its read of the socket): the COPY fails with 57014,
// the rest of its stream is discarded, and the connection goes on.
func copyTimesOut(t *testing.T, c *rawClient) {
	t.Helper()
	c.send(&pgproto3.Query{String: "copy t from stdin timing out"}, &pgproto3.CopyData{Data: []byte("a\n")})
	if got := render(c.recv()); got != "CopyInResponse 0" {
		t.Fatalf("got %s", got)
	}
	if got := render(c.recv()); got != "ErrorResponse ERROR 57014 canceling statement due to statement timeout" {
		t.Fatalf("got %s", got)
	}
	c.send(&pgproto3.CopyData{Data: []byte("b\n")}, &pgproto3.CopyDone{})
	expectTrace(t, c, "ReadyForQuery I")
	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
}

func TestDisconnectMidStatement(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "sleep"})
	<-h.sleeping
	c.nc.Close()
	waitFor(t, func() bool { return h.sessionsClosed.Load() == 1 && h.resultsClosed.Load() == 1 })

	// Terminate ends the session too, with an unfinished portal open.
	c, _ = connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Parse{Query: "select 5"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Flush{})
	c.recv()
	c.recv()
	c.recv()
	c.send(&pgproto3.Terminate{})
	readAllUntilEOF(t, c.nc)
	waitFor(t, func() bool { return h.sessionsClosed.Load() == 2 && h.resultsClosed.Load() == h.resultsOpened.Load() })
}

// TestHangUpLogsStatement checks that the log line of a session whose
// client went while a statement ran names the statement, as
// PostgreSQL's "connection to client lost" does, and that one whose
// client went between statements names none.
func TestHangUpLogsStatement(t *testing.T) {
	h := newFakeHandler()
	var log lockedBuffer
	ts := startServer(t, h, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	c, _ := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "sleep"})
	<-h.sleeping
	c.nc.Close()
	waitFor(t, func() bool { return strings.Contains(log.String(), "session ended") })
	if got := log.String(); !strings.Contains(got, `cause="client connection lost" statement=sleep`) {
		t.Fatalf("log of a client gone mid-statement:\n%s\nwant the cause and statement=sleep", got)
	}

	log.Reset()
	c, _ = connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	c.nc.Close()
	waitFor(t, func() bool { return strings.Contains(log.String(), "session ended") })
	if got := log.String(); strings.Contains(got, "statement=") {
		t.Fatalf("log of a client gone between statements names one:\n%s", got)
	}
}

// lockedBuffer is a bytes.Buffer that a server's log and a test may
// use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestProtocolViolations(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{MaxMessageBytes: 1024})
	c, _ := connectRaw(t, ts.addr, nil)
	c.nc.Write([]byte{'?', 0, 0, 0, 4})
	expectTrace(t, c, "ErrorResponse FATAL 08P01 invalid frontend message type 63\nEOF")

	c, _ = connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "select 1" + strings.Repeat(" ", 2000)})
	expectTrace(t, c, "ErrorResponse FATAL 54000 message of 2009 bytes exceeds the limit of 1024 bytes\nEOF")

	// A CopyData beyond the limit fails the COPY and, the stream being
	// lost, ends the connection with FATAL: no ReadyForQuery in between,
	// as in PostgreSQL (ERROR, then FATAL "protocol synchronization was
	// lost").
	c, _ = connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "copy t from stdin"})
	if m, ok := c.recv().(*pgproto3.CopyInResponse); !ok {
		t.Fatalf("got %T, want CopyInResponse", m)
	}
	c.send(&pgproto3.CopyData{Data: make([]byte, 2000)})
	got := c.trace()
	if strings.Contains(got, "ReadyForQuery") || !strings.HasPrefix(got, "ErrorResponse ERROR 54000 ") ||
		!strings.HasSuffix(got, "\nEOF\n") || !strings.Contains(got, "\nErrorResponse FATAL ") {
		t.Errorf("oversized CopyData: trace\n%s\nwant ERROR, FATAL, EOF", got)
	}

	// Copy messages outside COPY are ignored.
	c, _ = connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{}, &pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")

	// A malformed body is a protocol violation.
	c, _ = connectRaw(t, ts.addr, nil)
	c.nc.Write([]byte{'B', 0, 0, 0, 6, 'x', 'y'})
	expectTrace(t, c, "ErrorResponse FATAL 08P01 invalid Bind message format\nEOF")
}

// serveUntilShutdown starts a server the test shuts down itself: done
// receives Serve's result.
func serveUntilShutdown(t *testing.T, h *fakeHandler) (s *Server, ln net.Listener, done chan error) {
	t.Helper()
	s = NewServer(h, Options{})
	ln, err := listen(t)
	if err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	return s, ln, done
}

func TestShutdown(t *testing.T) {
	h := newFakeHandler()
	s, ln, done := serveUntilShutdown(t, h)
	idle, _ := connectRaw(t, ln.Addr().String(), nil)
	busy, _ := connectRaw(t, ln.Addr().String(), nil)
	busy.send(&pgproto3.Query{String: "sleep"})
	<-h.sleeping

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
	const fatal = "ErrorResponse FATAL 57P01 terminating connection due to administrator command\nEOF"
	expectTrace(t, idle, fatal)
	expectTrace(t, busy, fatal)
	if h.sessionsClosed.Load() != 2 || h.resultsClosed.Load() != 1 {
		t.Errorf("sessions closed %d, results closed %d", h.sessionsClosed.Load(), h.resultsClosed.Load())
	}
}

// TestLargeResultStreams checks that rows are flushed while a long result
// is produced, before the statement ends.
func TestLargeResultStreams(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "select 100000"})
	var buf bytes.Buffer
	n := 0
	for {
		m := c.recv()
		if _, ok := m.(*pgproto3.DataRow); ok {
			n++
			continue
		}
		buf.WriteString(render(m) + "\n")
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if n != 100000 || buf.String() != "RowDescription n:23/0\nCommandComplete SELECT 100000\nReadyForQuery I\n" {
		t.Errorf("%d rows, trace %q", n, buf.String())
	}
}

// TestTypedValues checks text output of every type family through the
// types codecs, in UTC and in the session's TimeZone.
func TestTypedValues(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	var want []string
	for _, col := range typedColumns {
		want = append(want, "'"+col.out+"'")
	}
	row := "DataRow " + strings.Join(want, " ")
	c.send(&pgproto3.Query{String: "typed"})
	if got := c.trace(); !strings.Contains(got, "\n"+row+"\n") {
		t.Errorf("got\n%s\nwant row\n%s", got, row)
	}
	c.send(&pgproto3.Query{String: "set timezone; typed"})
	paris := strings.Replace(row, "13:14:15+00", "14:14:15+01", 1)
	if got := c.trace(); !strings.Contains(got, "\n"+paris+"\n") {
		t.Errorf("got\n%s\nwant row\n%s", got, paris)
	}
}

// TestShutdownBlockedWrite: a session whose result streams into a client
// that stopped reading is blocked in its socket write; the server's
// shutdown (as pg_terminate_backend) still ends it, after a grace,
// instead of waiting for the client forever.
func TestShutdownBlockedWrite(t *testing.T) {
	h := newFakeHandler()
	s, ln, done := serveUntilShutdown(t, h)
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	nc, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "root", "database": "dev"}})
	for {
		if _, ok := c.recv().(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	c.send(&pgproto3.Query{String: "select 1000000"}) // 18 MB of rows
	for {
		// Rows stream; from the first on, the client reads no more.
		if _, ok := c.recv().(*pgproto3.DataRow); ok {
			break
		}
	}
	time.Sleep(300 * time.Millisecond) // the socket's buffers fill up

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a session blocked in a write: %v", err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
	if h.sessionsClosed.Load() != 1 || h.resultsClosed.Load() != 1 {
		t.Errorf("sessions closed %d, results closed %d", h.sessionsClosed.Load(), h.resultsClosed.Load())
	}
}
