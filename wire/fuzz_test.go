package wire

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// encodeFrontend concatenates encoded frontend messages.
func encodeFrontend(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		b, _ = m.Encode(b)
	}
	return b
}

// FuzzServerMessages feeds arbitrary bytes as the client stream after a
// valid startup. The server must neither panic nor hang: the client stream
// ends with Terminate, the client then closes its end (a server waiting
// for the rest of an incomplete last message reads EOF), and Shutdown
// must then finish at once with every Result and Session closed.
func FuzzServerMessages(f *testing.F) {
	f.Add(encodeFrontend(&pgproto3.Query{String: "select 3; texts"}))
	f.Add(encodeFrontend(&pgproto3.Query{String: "select bogus"}, &pgproto3.Query{String: "sleep"}))
	f.Add(encodeFrontend(
		&pgproto3.Parse{Name: "a", Query: "add $1 $2"},
		&pgproto3.Describe{ObjectType: 'S', Name: "a"},
		&pgproto3.Bind{PreparedStatement: "a", ParameterFormatCodes: []int16{0}, Parameters: [][]byte{[]byte("1"), []byte("2")}, ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{MaxRows: 1},
		&pgproto3.Execute{},
		&pgproto3.Close{ObjectType: 'P'},
		&pgproto3.Sync{},
	))
	f.Add(encodeFrontend(
		&pgproto3.Parse{Query: "select 5"}, &pgproto3.Bind{DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2}, &pgproto3.Flush{},
	))
	f.Add(encodeFrontend(
		&pgproto3.Query{String: "copy t from stdin binary"},
		&pgproto3.CopyData{Data: []byte("PGCOPY\n\377\r\n\000\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff")},
		&pgproto3.CopyDone{},
		&pgproto3.Query{String: "copy t from stdin"},
		&pgproto3.CopyFail{Message: "x"},
		&pgproto3.Query{String: "copy t to stdout"},
	))
	f.Add([]byte{'Q', 0, 0, 0, 3})
	f.Add([]byte{'P', 0x7f, 0xff, 0xff, 0xff})

	startup := encodeFrontend(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters:      map[string]string{"user": "fuzz"},
	})
	terminate := encodeFrontend(&pgproto3.Terminate{})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	f.Fuzz(func(t *testing.T, data []byte) { fuzzOne(t, data, startup, terminate, logger) })
}

func fuzzOne(t *testing.T, data, startup, terminate []byte, logger *slog.Logger) {
	{
		h := newFakeHandler()
		s := NewServer(h, Options{Logger: logger, MaxMessageBytes: 1 << 16})
		client, server := tcpPair(t)
		if !s.track(server) {
			t.Fatal("server refused the connection")
		}
		go s.serveConn(server)

		// Closing the client after its last byte ends a server still
		// waiting for the rest of an incomplete message (it reads EOF)
		// without waiting for a deadline, and a statement still running
		// (the hang-up is noticed); the server's replies are drained
		// meanwhile.
		go func() {
			client.Write(startup)
			client.Write(data)
			client.Write(terminate)
			client.Close()
		}()
		io.Copy(io.Discard, client)

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("server did not stop: %v", err)
		}
		if o, c := h.sessionsOpened.Load(), h.sessionsClosed.Load(); o != c {
			t.Fatalf("%d sessions opened, %d closed", o, c)
		}
		if o, c := h.resultsOpened.Load(), h.resultsClosed.Load(); o != c {
			t.Fatalf("%d results opened, %d closed", o, c)
		}
	}
}

// tcpPair returns the two ends of a loopback TCP connection: the server
// reads the socket itself, and notices a client that hangs up by
// polling it, which a net.Pipe cannot do.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if server = <-accepted; server == nil {
		t.Fatal("accept failed")
	}
	return client, server
}
