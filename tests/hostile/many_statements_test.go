package hostile

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/weirdb/weir/tests/testenv"
)

// manyStatementsBytes is the size of the one Query message of
// TestManyStatementsQuery: `SELECT 1;` repeated, some 5.8 million
// statements.
const manyStatementsBytes = 50 << 20

// manyStatementsPeakMB bounds the server's peak resident set while it
// reads and splits that message: the message and its statements' places
// in it take a few hundred MB.
const manyStatementsPeakMB = 1024

// rawQuery opens a protocol-level connection to srv as root on dev,
// sends one simple Query message holding text, and returns the
// connection's frontend to read the answers with.
func rawQuery(t *testing.T, srv *testenv.Server, text string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	nc, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": srv.User(), "database": srv.Database()}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			t.Fatalf("startup: %s", e.Message)
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	fe.Send(&pgproto3.Query{String: text})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	return nc, fe
}

// TestManyStatementsQuery sends one simple Query of millions of
// `SELECT 1;` and hangs up at once. Postgres parses the whole string
// into its list of raw parse trees before running any statement, as
// weir checks the syntax of every statement first, but it stops when
// the client goes. weir used to check all of them regardless, for over a
// minute on this message, and held up its own shutdown meanwhile. Now the
// server answers a new connection, stops on SIGTERM (Server.Stop fails
// the test past 30 seconds), and its peak resident set stays within
// manyStatementsPeakMB.
func TestManyStatementsQuery(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{Args: memoryArgs()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	text := strings.Repeat("SELECT 1;", manyStatementsBytes/len("SELECT 1;"))
	resetPeak(t, srv.Pid())
	nc, _ := rawQuery(t, srv, text)
	nc.Close()

	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 on a new connection: %d, %v", one, err)
	}
	conn.Close(ctx)
	peak := procStatus(t, srv.Pid(), "VmHWM")
	t.Logf("peak RSS %d MB", peak>>20)
	if peak > manyStatementsPeakMB<<20 {
		t.Errorf("peak RSS %d MB, want at most %d MB", peak>>20, manyStatementsPeakMB)
	}
	start := time.Now()
	srv.Stop()
	t.Logf("stopped %v after SIGTERM", time.Since(start))
}
