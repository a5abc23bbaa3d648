package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// testServer runs a Server on a random loopback port.
type testServer struct {
	*Server
	h    *fakeHandler
	addr string
	done chan error
}

func startServer(t testing.TB, h *fakeHandler, opts Options) *testServer {
	t.Helper()
	if opts.Logger == nil {
		level := slog.LevelWarn
		if os.Getenv("WIRE_DEBUG") != "" {
			level = slog.LevelDebug
		}
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	var handler Handler = h
	if h.roles != nil {
		handler = rolesFake{h}
	}
	s := NewServer(handler, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, h: h, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { ts.done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ts.done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if o, c := h.sessionsOpened.Load(), h.sessionsClosed.Load(); o != c {
			t.Errorf("%d sessions opened, %d closed", o, c)
		}
		if o, c := h.resultsOpened.Load(), h.resultsClosed.Load(); o != c {
			t.Errorf("%d results opened, %d closed", o, c)
		}
	})
	return ts
}

func (ts *testServer) port() string {
	_, p, _ := net.SplitHostPort(ts.addr)
	return p
}

// rawClient speaks the protocol message by message.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// connectRaw dials and completes the startup, returning the client and
// its BackendKeyData.
func connectRaw(t testing.TB, addr string, params map[string]string) (*rawClient, *pgproto3.BackendKeyData) {
	t.Helper()
	c := dialRaw(t, addr)
	if params == nil {
		params = map[string]string{"user": "root", "database": "dev"}
	}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: params})
	var key *pgproto3.BackendKeyData
	for {
		switch m := c.recv().(type) {
		case *pgproto3.BackendKeyData:
			key = &pgproto3.BackendKeyData{ProcessID: m.ProcessID, SecretKey: append([]byte(nil), m.SecretKey...)}
		case *pgproto3.ReadyForQuery:
			return c, key
		case *pgproto3.ErrorResponse:
			t.Fatalf("startup failed: %+v", m)
		}
	}
}

func (c *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) recv() pgproto3.BackendMessage {
	c.t.Helper()
	m, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	return m
}

// trace receives messages up to and including ReadyForQuery (or until the
// connection closes) and renders them one per line.
func (c *rawClient) trace() string {
	c.t.Helper()
	var b strings.Builder
	for {
		m, err := c.fe.Receive()
		if err != nil {
			b.WriteString("EOF\n")
			return b.String()
		}
		b.WriteString(render(m))
		b.WriteByte('\n')
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return b.String()
		}
	}
}

// render prints a backend message compactly for trace comparisons.
func render(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var parts []string
		for _, f := range m.Fields {
			parts = append(parts, string(f.Name)+":"+itoa(int64(f.DataTypeOID))+"/"+itoa(int64(f.Format)))
		}
		return "RowDescription " + strings.Join(parts, " ")
	case *pgproto3.DataRow:
		var parts []string
		for _, v := range m.Values {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, "'"+string(v)+"'")
			}
		}
		return "DataRow " + strings.Join(parts, " ")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		s := "ErrorResponse " + m.Severity + " " + m.Code + " " + m.Message
		if m.Position > 0 {
			s += " @" + itoa(int64(m.Position))
		}
		return s
	case *pgproto3.NoticeResponse:
		return "NoticeResponse " + m.Severity + " " + m.Code + " " + m.Message
	case *pgproto3.ParameterDescription:
		var parts []string
		for _, o := range m.ParameterOIDs {
			parts = append(parts, itoa(int64(o)))
		}
		return "ParameterDescription " + strings.Join(parts, " ")
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name + "=" + m.Value
	case *pgproto3.CopyData:
		return "CopyData " + strings.TrimSuffix(string(m.Data), "\n")
	case *pgproto3.CopyInResponse:
		return "CopyInResponse " + itoa(int64(m.OverallFormat))
	case *pgproto3.CopyOutResponse:
		return "CopyOutResponse " + itoa(int64(m.OverallFormat))
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// rawStartup writes a startup-phase packet: length, code, body.
func rawStartup(code uint32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	b = binary.BigEndian.AppendUint32(b, code)
	return append(b, body...)
}

// readAllUntilEOF drains the connection for tests that expect it to close.
func readAllUntilEOF(t testing.TB, nc net.Conn) []byte {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(nc)
	if err != nil {
		t.Fatalf("connection did not close: %v", err)
	}
	return b
}

func listen(t testing.TB) (net.Listener, error) {
	t.Helper()
	return net.Listen("tcp", "127.0.0.1:0")
}
