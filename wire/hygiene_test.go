package wire

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A FunctionCall message is answered like a failed simple query: an
// error, then ReadyForQuery, so the client does not wait forever.
func TestFunctionCallGetsReadyForQuery(t *testing.T) {
	ts := startServer(t, newFakeHandler(), Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.FunctionCall{Function: 1598, ArgFormatCodes: []uint16{0}, Arguments: [][]byte{[]byte("x")}})
	expectTrace(t, c, "ErrorResponse ERROR 0A000 function call messages are not supported\nReadyForQuery I")
	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
}

// Beyond MaxConnections a client gets FATAL 53300 after its startup
// message; the server keeps serving the others and takes a new client
// once one leaves.
func TestMaxConnections(t *testing.T) {
	const max, clients = 100, 150
	ts := startServer(t, newFakeHandler(), Options{MaxConnections: max})
	var (
		mu       sync.Mutex
		accepted []*rawClient
		refused  []string
	)
	for range clients {
		c := dialRaw(t, ts.addr)
		c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters: map[string]string{"user": "root", "database": "dev"}})
		for done := false; !done; {
			switch m := c.recv().(type) {
			case *pgproto3.ReadyForQuery:
				mu.Lock()
				accepted = append(accepted, c)
				mu.Unlock()
				done = true
			case *pgproto3.ErrorResponse:
				refused = append(refused, m.Severity+" "+m.Code+" "+m.Message)
				readAllUntilEOF(t, c.nc)
				done = true
			}
		}
	}
	if len(accepted) != max || len(refused) != clients-max {
		t.Fatalf("%d accepted, %d refused; want %d and %d", len(accepted), len(refused), max, clients-max)
	}
	for _, r := range refused {
		if r != "FATAL 53300 sorry, too many clients already" {
			t.Fatalf("refusal %q", r)
		}
	}
	// Every accepted session still works.
	for _, c := range accepted {
		c.send(&pgproto3.Query{String: "select 1"})
		expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	}
	// A freed slot is taken by the next client.
	accepted[0].send(&pgproto3.Terminate{})
	readAllUntilEOF(t, accepted[0].nc)
	waitFor(t, func() bool { return ts.Sessions() == max-1 })
	c, _ := connectRaw(t, ts.addr, nil)
	c.send(&pgproto3.Query{String: "select 2"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nDataRow '2'\nCommandComplete SELECT 2\nReadyForQuery I")
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting descriptors: %v", err)
	}
	return len(ents)
}

// A client that sends Terminate in the middle of COPY FROM STDIN ends its
// session: the statement stops, the session is closed and its socket
// freed, however many clients do it.
func TestTerminateDuringCopyFreesSession(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, Options{})
	before := openFDs(t)
	const clients = 300
	for range clients {
		c, _ := connectRaw(t, ts.addr, nil)
		c.send(&pgproto3.Query{String: "copy t from stdin"})
		if m, ok := c.recv().(*pgproto3.CopyInResponse); !ok {
			t.Fatalf("got %T, want CopyInResponse", m)
		}
		c.send(&pgproto3.CopyData{Data: []byte("1\n")}, &pgproto3.Terminate{})
		c.nc.Close()
	}
	waitFor(t, func() bool {
		return ts.Sessions() == 0 && h.sessionsClosed.Load() == clients && openFDs(t) <= before
	})
	if o, c := h.resultsOpened.Load(), h.resultsClosed.Load(); o != c {
		t.Fatalf("%d results opened, %d closed", o, c)
	}
}

// idle_session_timeout ends a session that waits too long between
// statements with FATAL 57P05.
func TestIdleSessionTimeout(t *testing.T) {
	h := newFakeHandler()
	h.idle = 50 * time.Millisecond
	ts := startServer(t, h, Options{})
	c, _ := connectRaw(t, ts.addr, nil)
	expectTrace(t, c, "ErrorResponse FATAL 57P05 terminating connection due to idle-session timeout\nEOF")
	waitFor(t, func() bool { return ts.Sessions() == 0 })
}

// The idle timeouts run only once ReadyForQuery went out, as in
// PostgreSQL: a client that pauses between the messages of an
// extended-protocol batch (here after Parse and Flush) is not idle.
func TestIdleTimeoutNotWithinBatch(t *testing.T) {
	h := newFakeHandler()
	h.idle = 50 * time.Millisecond
	ts := startServer(t, h, Options{})
	// Parse comes with the StartupMessage, so the session is never idle
	// before it, however late this goroutine runs.
	c := dialRaw(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "root", "database": "dev"}},
		&pgproto3.Parse{Query: "select 1"}, &pgproto3.Flush{})
	for {
		m := c.recv()
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			t.Fatalf("startup failed: %+v", e)
		}
	}
	if m, ok := c.recv().(*pgproto3.ParseComplete); !ok {
		t.Fatalf("got %T, want ParseComplete", m)
	}
	// A pause of three idle timeouts: at least that long, however busy
	// the machine.
	time.Sleep(3 * h.idle)
	c.send(&pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expectTrace(t, c, "BindComplete\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	// After ReadyForQuery the session is idle again.
	expectTrace(t, c, "ErrorResponse FATAL 57P05 terminating connection due to idle-session timeout\nEOF")
}

// flakyListener fails its first Accept calls with EMFILE, as a process
// out of descriptors does.
type flakyListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.fails > 0 {
		l.fails--
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

// Accept errors such as EMFILE pause the accept loop instead of ending
// the server.
func TestAcceptErrorsBackOff(t *testing.T) {
	h := newFakeHandler()
	s := NewServer(h, Options{Logger: slog.New(slog.DiscardHandler)})
	ln, err := listen(t)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(&flakyListener{Listener: ln, fails: 5}) }()
	c, _ := connectRaw(t, ln.Addr().String(), nil)
	c.send(&pgproto3.Query{String: "select 1"})
	expectTrace(t, c, "RowDescription n:23/0\nDataRow '1'\nCommandComplete SELECT 1\nReadyForQuery I")
	c.send(&pgproto3.Terminate{})
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve returned %v", err)
	}
}
