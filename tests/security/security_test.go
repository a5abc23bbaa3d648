// Package security tests, through the real weir binary and real clients
// (psql, pgx, raw protocol messages), what stands between the network and
// the data: SCRAM-SHA-256 passwords, TLS, privileges, the listener rules
// of weir serve, and the connection limits and cleanup that keep one
// client from exhausting the server.
package security

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// server is a weir process started with chosen flags.
type server struct {
	proc    *testenv.Process
	port    int
	metrics string
}

// startWeir runs `weir serve` on free loopback ports with extra args and
// environment, and waits until connect (a conninfo fragment for
// host/port-less pgx) succeeds.
func startWeir(t *testing.T, env []string, connect string, args ...string) *server {
	t.Helper()
	return startWeirLimited(t, 0, env, connect, args...)
}

// startWeirLimited is startWeir with the process's open-file limit set
// to nofile (0: inherited).
func startWeirLimited(t *testing.T, nofile int, env []string, connect string, args ...string) *server {
	t.Helper()
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	mport, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{port: port, metrics: net.JoinHostPort("127.0.0.1", strconv.Itoa(mport))}
	args = append([]string{"serve",
		"--listen", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		"--data-dir", filepath.Join(t.TempDir(), "data"),
		"--metrics-listen", s.metrics}, args...)
	cmd := exec.Command(testenv.Binary(t), args...)
	if nofile > 0 {
		// Run under a descriptor limit, as `ulimit -n` does.
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), testenv.Binary(t)}, args...)...)
	}
	cmd.Env = append(os.Environ(), env...)
	s.proc = testenv.StartProcess(t, cmd, filepath.Join(t.TempDir(), "weir.log"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := s.connect(connect)
		if err == nil {
			conn.Close(context.Background())
			return s
		}
		if s.proc.Exited() || time.Now().After(deadline) {
			t.Fatalf("weir did not start: %v\n%s", err, s.proc.Tail(3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

func (s *server) connect(conninfo string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d dbname=dev %s", s.port, conninfo))
}

// login connects to s as user (trust authentication), failing the test
// if it cannot; the connection closes when the test ends.
func (s *server) login(t *testing.T, user string) *pgx.Conn {
	t.Helper()
	c, err := s.connect("user=" + user + " sslmode=disable")
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// writeCerts makes a CA and a server certificate for localhost and
// 127.0.0.1 signed by it, and writes ca.pem, server.pem and server.key
// into dir. Nothing is kept beyond the test.
func writeCerts(t *testing.T, dir string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weir test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"ca.pem":     {Type: "CERTIFICATE", Bytes: caDER},
		"server.pem": {Type: "CERTIFICATE", Bytes: der},
		"server.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// psql runs psql with a conninfo string and PGPASSWORD.
func psql(password, conninfo string, args ...string) (string, error) {
	cmd := exec.Command("psql", append([]string{"-X", "-v", "ON_ERROR_STOP=1", conninfo}, args...)...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// psql connects over TLS with sslmode=verify-full against a test CA and
// authenticates with SCRAM-SHA-256; a wrong password is 28P01 and a
// plain connection is refused when TLS is required.
func TestPsqlOverTLSWithPassword(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is needed: ", err)
	}
	dir := t.TempDir()
	writeCerts(t, dir)
	ca := filepath.Join(dir, "ca.pem")
	s := startWeir(t, []string{"WEIR_PASSWORD=correct horse"},
		"user=root password='correct horse' sslmode=verify-full sslrootcert="+ca+" host=localhost",
		"--auth", "password", "--tls-required",
		"--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server.key"))
	conninfo := func(user, sslmode string) string {
		return fmt.Sprintf("host=localhost port=%d user=%s dbname=dev sslmode=%s sslrootcert=%s", s.port, user, sslmode, ca)
	}
	out, err := psql("correct horse", conninfo("root", "verify-full"),
		"-c", "CREATE USER alice WITH PASSWORD 'wonderland'", "-c", `\conninfo`)
	if err != nil {
		t.Fatalf("psql as root: %v\n%s", err, out)
	}
	if !strings.Contains(out, "SSL connection (protocol: TLSv1.3") {
		t.Fatalf("psql did not use TLS:\n%s", out)
	}
	// channel_binding=require makes psql insist on SCRAM-SHA-256-PLUS,
	// bound to the server's certificate.
	out, err = psql("wonderland", conninfo("alice", "verify-full")+" channel_binding=require", "-Atc", "SELECT current_user")
	if err != nil || strings.TrimSpace(out) != "alice" {
		t.Fatalf("psql as alice: %v\n%s", err, out)
	}
	out, err = psql("wrong", conninfo("alice", "verify-full"), "-c", "SELECT 1")
	if err == nil || !strings.Contains(out, `FATAL:  password authentication failed for user "alice"`) {
		t.Fatalf("wrong password: %v\n%s", err, out)
	}
	out, err = psql("wonderland", conninfo("alice", "disable"), "-c", "SELECT 1")
	if err == nil || !strings.Contains(out, "no encryption") {
		t.Fatalf("plain connection with --tls-required: %v\n%s", err, out)
	}
	// pgx sees the SQLSTATEs.
	_, err = s.connect("user=alice password=wrong sslmode=require")
	if code(err) != "28P01" {
		t.Fatalf("pgx, wrong password: %v", err)
	}
	_, err = s.connect("user=nobody password=x sslmode=require")
	if code(err) != "28P01" {
		t.Fatalf("pgx, unknown role: %v", err)
	}
	conn, err := s.connect("user=alice password=wonderland sslmode=verify-full sslrootcert=" + ca + " host=localhost")
	if err != nil {
		t.Fatalf("pgx verify-full: %v", err)
	}
	conn.Close(context.Background())
	if log := s.proc.Tail(1 << 16); !strings.Contains(log, `msg="password authentication failed" remote=127.0.0.1`) ||
		strings.Contains(log, "wonderland") || strings.Contains(log, "correct horse") {
		t.Fatalf("the log must record the failure and never a password:\n%s", log)
	}
}

// A role granted SELECT reads tables and views and is refused every
// write, DDL, ALTER SYSTEM and connector with 42501.
func TestReadOnlyRole(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	root := s.login(t, "root")
	ctx := context.Background()
	execAll(t, root,
		"CREATE TABLE accounts (id int PRIMARY KEY, balance int)",
		"INSERT INTO accounts VALUES (1, 100), (2, 50)",
		"CREATE VIEW rich AS SELECT id FROM accounts WHERE balance > 60",
		"CREATE MATERIALIZED VIEW total AS SELECT sum(balance) AS s FROM accounts",
		"CREATE TABLE secret (x int)",
		"CREATE ROLE reader LOGIN",
		"GRANT SELECT ON rich, total TO reader",
	)
	reader := s.login(t, "reader")
	var id, sum int
	if err := reader.QueryRow(ctx, "SELECT id FROM rich").Scan(&id); err != nil || id != 1 {
		t.Fatalf("reader reads the view: %v %d", err, id)
	}
	if err := reader.QueryRow(ctx, "SELECT s FROM total").Scan(&sum); err != nil || sum != 150 {
		t.Fatalf("reader reads the materialized view: %v %d", err, sum)
	}
	for _, q := range []string{
		"SELECT * FROM accounts",
		"SELECT * FROM secret",
		"INSERT INTO accounts VALUES (3, 1)",
		"UPDATE accounts SET balance = 0",
		"DELETE FROM accounts",
		"TRUNCATE accounts",
		"COPY accounts TO STDOUT",
		"CREATE TABLE mine (a int)",
		"CREATE VIEW mine AS SELECT 1",
		"DROP VIEW rich",
		"DROP TABLE accounts",
		"ALTER SYSTEM SET barrier_interval_ms = 10",
		"CREATE SOURCE s (a int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1') FORMAT PLAIN ENCODE JSON",
		"CREATE SINK k FROM rich WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1') FORMAT PLAIN ENCODE JSON",
		"CREATE ROLE other",
		"GRANT SELECT ON accounts TO reader",
		"SELECT rolpassword FROM pg_authid",
		"BACKUP TO '/tmp/weir-security-test-backup'",
		"ALTER MATERIALIZED VIEW total RENAME TO total2",
		"ALTER MATERIALIZED VIEW total SET PARALLELISM = 1",
		"ALTER MATERIALIZED VIEW total RESUME",
		"COMMENT ON MATERIALIZED VIEW total IS 'x'",
		"ALTER TABLE accounts RENAME TO a2",
	} {
		if _, err := reader.Exec(ctx, q); code(err) != "42501" {
			t.Errorf("%s: got %v, want 42501", q, err)
		}
	}
	// Granting INSERT lets the reader insert, and nothing more.
	if _, err := root.Exec(ctx, "GRANT INSERT ON accounts TO reader"); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Exec(ctx, "INSERT INTO accounts VALUES (3, 1)"); err != nil {
		t.Fatalf("insert after GRANT INSERT: %v", err)
	}
	if _, err := reader.Exec(ctx, "DELETE FROM accounts WHERE id = 3"); code(err) != "42501" {
		t.Fatalf("delete without the privilege: %v", err)
	}
	var priv bool
	if err := root.QueryRow(ctx, "SELECT has_table_privilege('reader', 'accounts', 'INSERT') AND NOT has_table_privilege('reader', 'accounts', 'DELETE')").Scan(&priv); err != nil || !priv {
		t.Fatalf("has_table_privilege: %v %v", err, priv)
	}
}

// weir serve refuses trust authentication on a listener that is not
// loopback, before it listens.
func TestTrustRefusedOffLoopback(t *testing.T) {
	cmd := exec.Command(testenv.Binary(t), "serve", "--listen", "0.0.0.0:0", "--auth", "trust",
		"--data-dir", filepath.Join(t.TempDir(), "data"), "--metrics-listen", "")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("weir serve exited with %v, want status 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "--auth trust is allowed only on a loopback listener") {
		t.Fatalf("message:\n%s", out)
	}
}

// With --max-connections 100, 150 clients give 100 sessions and 50
// FATAL 53300; the server keeps serving.
func TestMaxConnections(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable", "--max-connections", "100")
	var open []*pgx.Conn
	defer func() {
		for _, c := range open {
			c.Close(context.Background())
		}
	}()
	refused := 0
	for range 150 {
		c, err := s.connect("user=root sslmode=disable")
		switch {
		case err == nil:
			open = append(open, c)
		case code(err) == "53300" && strings.Contains(err.Error(), "sorry, too many clients already"):
			refused++
		default:
			t.Fatalf("connection %d: %v", len(open)+refused, err)
		}
	}
	if len(open) != 100 || refused != 50 {
		t.Fatalf("%d sessions, %d refused; want 100 and 50", len(open), refused)
	}
	var n string
	if err := open[99].QueryRow(context.Background(), "SHOW max_connections").Scan(&n); err != nil || n != "100" {
		t.Fatalf("an open session after the refusals: %v %q", err, n)
	}
	open[0].Close(context.Background())
	open = open[1:]
	c := waitConnect(t, s)
	c.Close(context.Background())
}

// The last --superuser-reserved-connections slots take only superusers,
// so another role holding every other slot does not lock the
// administrator out, as in PostgreSQL.
func TestSuperuserReservedConnections(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable", "--max-connections", "10", "--superuser-reserved-connections", "3")
	ctx := context.Background()
	root, err := s.connect("user=root sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	open := []*pgx.Conn{root}
	defer func() {
		for _, c := range open {
			c.Close(ctx)
		}
	}()
	if _, err := root.Exec(ctx, "CREATE ROLE mallory LOGIN"); err != nil {
		t.Fatal(err)
	}
	var n string
	if err := root.QueryRow(ctx, "SHOW superuser_reserved_connections").Scan(&n); err != nil || n != "3" {
		t.Fatalf("SHOW superuser_reserved_connections: %v %q", err, n)
	}
	for i := 0; i < 7; i++ {
		c, err := s.connect("user=mallory sslmode=disable")
		if i < 6 {
			if err != nil {
				t.Fatalf("mallory's session %d of %d in use: %v", i+2, 10, err)
			}
			open = append(open, c)
			continue
		}
		if err == nil {
			c.Close(ctx)
			t.Fatal("mallory took a reserved slot")
		}
		if code(err) != "53300" || !strings.Contains(err.Error(), "reserved for non-replication superuser connections") {
			t.Fatalf("mallory beyond the free slots: %v", err)
		}
	}
	for i := 0; i < 3; i++ {
		c, err := s.connect("user=root sslmode=disable")
		if err != nil {
			t.Fatalf("root in reserved slot %d: %v", i+1, err)
		}
		open = append(open, c)
	}
	if c, err := s.connect("user=root sslmode=disable"); err == nil {
		c.Close(ctx)
		t.Fatal("an eleventh session")
	} else if code(err) != "53300" || !strings.Contains(err.Error(), "too many clients") {
		t.Fatalf("root beyond max_connections: %v", err)
	}
}

// waitConnect connects as root, retrying while the server has not yet
// seen a closed session go.
func waitConnect(t *testing.T, s *server) *pgx.Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := s.connect("user=root sslmode=disable")
		if err == nil {
			return c
		}
		if code(err) != "53300" || time.Now().After(deadline) {
			t.Fatalf("connecting after a session left: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rawSession starts a session with raw protocol messages.
func rawSession(t *testing.T, addr string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "root", "database": "dev"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := m.(type) {
		case *pgproto3.ReadyForQuery:
			return nc, fe
		case *pgproto3.ErrorResponse:
			t.Fatalf("startup: %s %s", m.Code, m.Message)
		}
	}
}

// sessionsGauge reads weir_sessions from /metrics.
func (s *server) sessionsGauge(t *testing.T) int {
	t.Helper()
	// No keep-alive: a scrape must not hold a descriptor of the server
	// open while its descriptors are counted.
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get("http://" + s.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "weir_sessions "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("weir_sessions %q", v)
			}
			return n
		}
	}
	t.Fatal("no weir_sessions metric")
	return 0
}

func (s *server) fds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.proc.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// 300 clients that start COPY FROM STDIN, send a row and Terminate leave
// no session and no descriptor behind.
func TestCopyThenTerminateLeavesNothing(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	nc, fe := rawSession(t, s.addr())
	fe.Send(&pgproto3.Query{String: "CREATE TABLE sink (a int)"})
	fe.Flush()
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	fe.Send(&pgproto3.Terminate{})
	fe.Flush()
	nc.Close()
	waitFor(t, "the setup session to end", func() bool { return s.sessionsGauge(t) == 0 })
	before := s.fds(t)
	for range 300 {
		nc, fe := rawSession(t, s.addr())
		fe.Send(&pgproto3.Query{String: "COPY sink FROM STDIN"})
		fe.Flush()
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*pgproto3.CopyInResponse); !ok {
			t.Fatalf("got %T, want CopyInResponse", m)
		}
		fe.Send(&pgproto3.CopyData{Data: []byte("1\n")})
		fe.Send(&pgproto3.Terminate{})
		fe.Flush()
		nc.Close()
	}
	waitFor(t, "weir_sessions to return to 0 and the descriptors to be freed", func() bool {
		return s.sessionsGauge(t) == 0 && s.fds(t) <= before
	})
	// The server still serves, and no COPY row was committed.
	c := waitConnect(t, s)
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM sink").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after aborted copies: %v %d", err, n)
	}
}

// A FunctionCall message is answered with an error and ReadyForQuery.
func TestFunctionCallGetsReadyForQuery(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	nc, fe := rawSession(t, s.addr())
	defer nc.Close()
	fe.Send(&pgproto3.FunctionCall{Function: 1598, ResultFormatCode: 0})
	fe.Flush()
	var got []string
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			got = append(got, "ErrorResponse "+m.Code)
		case *pgproto3.ReadyForQuery:
			got = append(got, "ReadyForQuery "+string(m.TxStatus))
		default:
			got = append(got, fmt.Sprintf("%T", m))
		}
		if len(got) == 2 {
			break
		}
	}
	if strings.Join(got, ", ") != "ErrorResponse 0A000, ReadyForQuery I" {
		t.Fatalf("got %v", got)
	}
}

// waitFor polls cond until it holds; the bound only keeps a broken
// server from hanging the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// idle_session_timeout ends an idle session with FATAL 57P05, and
// idle_in_transaction_session_timeout one idle inside BEGIN with 25P03.
func TestIdleTimeouts(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	for _, c := range []struct{ setup, code string }{
		{"SET idle_session_timeout = '100ms'", "57P05"},
		{"SET idle_in_transaction_session_timeout = 100; BEGIN", "25P03"},
	} {
		nc, fe := rawSession(t, s.addr())
		fe.Send(&pgproto3.Query{String: c.setup})
		fe.Flush()
		var got []string
		for {
			m, err := fe.Receive()
			if err != nil {
				got = append(got, "EOF")
				break
			}
			switch m := m.(type) {
			case *pgproto3.ErrorResponse:
				got = append(got, m.Severity+" "+m.Code)
			case *pgproto3.ReadyForQuery:
				got = append(got, "ReadyForQuery")
			}
		}
		nc.Close()
		if want := "ReadyForQuery, FATAL " + c.code + ", EOF"; strings.Join(got, ", ") != want {
			t.Errorf("%s: got %v, want %s", c.setup, got, want)
		}
	}
	waitFor(t, "the timed-out sessions to end", func() bool { return s.sessionsGauge(t) == 0 })
}

// Out of descriptors, the server pauses accepting instead of exiting:
// with a limit of 200 open files, 250 idle sockets make accept fail with
// EMFILE; once they close, the server serves again.
func TestOutOfDescriptorsKeepsServing(t *testing.T) {
	s := startWeirLimited(t, 200, nil, "user=root sslmode=disable")
	var socks []net.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	for range 250 {
		c, err := net.DialTimeout("tcp", s.addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, c)
	}
	waitFor(t, "accept to fail with EMFILE", func() bool {
		return strings.Contains(s.proc.Tail(1<<16), "too many open files")
	})
	for _, c := range socks {
		c.Close()
	}
	socks = nil
	if s.proc.Exited() {
		t.Fatalf("weir exited:\n%s", s.proc.Tail(3000))
	}
	c := waitConnect(t, s)
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("after EMFILE: %v %d", err, n)
	}
}

// TestPrivilegesWhereNamesHide checks the places a relation's name can
// stand without the privilege check seeing it: the arguments of a
// function in FROM, a statement where a CTE elsewhere has its name, the
// target of UPDATE ... FROM and DELETE ... USING, a statement prepared
// before SET ROLE, and a view whose owner lost SELECT on what it reads.
// Each must be 42501, as in PostgreSQL.
func TestPrivilegesWhereNamesHide(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		"CREATE TABLE secret (id int, s text)",
		"INSERT INTO secret VALUES (1, 'x')",
		"CREATE TABLE pub (id int)",
		"INSERT INTO pub VALUES (1)",
		"CREATE TABLE t7 (a int)",
		"CREATE ROLE bob LOGIN",
		"GRANT SELECT ON pub, t7 TO bob",
		"GRANT CREATE ON SCHEMA public TO bob",
	)
	bob := s.login(t, "bob")
	if _, err := bob.Exec(ctx, "CREATE VIEW bv7 AS SELECT * FROM t7"); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Exec(ctx, "SELECT * FROM bv7"); err != nil {
		t.Fatalf("the owner reads its view: %v", err)
	}
	if _, err := root.Exec(ctx, "REVOKE SELECT ON t7 FROM bob"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT * FROM unnest(array(SELECT s FROM secret))",
		"SELECT * FROM pub, generate_series(1, (SELECT count(*)::int FROM secret))",
		"SELECT * FROM pub LEFT JOIN jsonb_array_elements((SELECT jsonb_agg(s) FROM secret)) ON true",
		"SELECT * FROM secret, (WITH secret AS (SELECT 1 AS z) SELECT * FROM secret) x",
		"SELECT * FROM pub WHERE EXISTS (WITH secret AS (SELECT 1) SELECT * FROM secret) AND EXISTS (SELECT * FROM secret)",
		"WITH secret AS (SELECT * FROM secret) SELECT * FROM secret",
		"INSERT INTO secret WITH secret AS (SELECT 1000 AS id, 'bob' AS s) SELECT * FROM secret",
		"UPDATE secret SET s = 'b' FROM (WITH secret AS (SELECT 1) SELECT 1) q",
		"UPDATE pub SET id = 3 FROM (SELECT 1) q",
		"WITH secret AS (SELECT 1) UPDATE secret SET s = 'b'",
		"WITH secret AS (SELECT 1) DELETE FROM secret",
		"DELETE FROM pub USING (SELECT 1) q",
		"SELECT * FROM bv7",
	} {
		if _, err := bob.Exec(ctx, q); code(err) != "42501" {
			t.Errorf("%s: got %v, want 42501", q, err)
		}
	}
	// A statement prepared as root runs as the role SET ROLE chose.
	for _, q := range []string{"PREPARE p AS SELECT * FROM secret", "PREPARE pi AS INSERT INTO secret VALUES (99, 'evil')", "SET ROLE bob"} {
		if _, err := root.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{"EXECUTE p", "EXECUTE pi"} {
		if _, err := root.Exec(ctx, q); code(err) != "42501" {
			t.Errorf("%s after SET ROLE bob: got %v, want 42501", q, err)
		}
	}
	if _, err := root.Exec(ctx, "RESET ROLE"); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Exec(ctx, "EXECUTE p"); err != nil {
		t.Errorf("EXECUTE p after RESET ROLE: %v", err)
	}
	var n int
	if err := root.QueryRow(ctx, "SELECT count(*) FROM secret").Scan(&n); err != nil || n != 1 {
		t.Errorf("secret holds %d rows (%v), want the 1 root wrote", n, err)
	}
}

// The settings a client gives at connection, as StartupMessage
// parameters or as `-c` switches of the options parameter (PGOPTIONS),
// take the same checks as SET: role only names a role the session's
// own role may SET ROLE to, and a bad value fails the connection, as in
// PostgreSQL.
func TestStartupSettingsChecked(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	root := s.login(t, "root")
	ctx := context.Background()
	execAll(t, root,
		"CREATE TABLE secret (x int)",
		"CREATE ROLE intruder LOGIN",
		"CREATE ROLE staff",
		"CREATE ROLE member LOGIN",
		"GRANT staff TO member",
		"GRANT SELECT ON secret TO staff",
	)
	for _, c := range []struct{ conninfo, code string }{
		{"user=intruder role=root", "42501"},
		{"user=intruder options='-c role=root'", "42501"},
		{"user=intruder options='--role=staff'", "42501"},
		{"user=intruder role=nosuchrole", "22023"},
		{"user=member options='-c work_mem=lots'", "22023"},
		{"user=member options='-X'", "42601"},
		{"user=member options='-c work_mem'", "42601"},
	} {
		conn, err := s.connect(c.conninfo + " sslmode=disable")
		if err == nil {
			var u string
			conn.QueryRow(ctx, "SELECT current_user").Scan(&u)
			conn.Close(ctx)
			t.Errorf("%s: connected as %s, want %s", c.conninfo, u, c.code)
			continue
		}
		if code(err) != c.code {
			t.Errorf("%s: got %v, want %s", c.conninfo, err, c.code)
		}
	}
	for _, conninfo := range []string{"user=member role=staff", "user=member options='-c role=staff -c work_mem=64kB'"} {
		conn, err := s.connect(conninfo + " sslmode=disable")
		if err != nil {
			t.Fatalf("%s: %v", conninfo, err)
		}
		var cur, sess string
		var n int
		if err := conn.QueryRow(ctx, "SELECT current_user, session_user, (SELECT count(*) FROM secret)").Scan(&cur, &sess, &n); err != nil || cur != "staff" || sess != "member" {
			t.Errorf("%s: current_user %q session_user %q: %v", conninfo, cur, sess, err)
		}
		conn.Close(ctx)
	}
	conn, err := s.connect("user=member sslmode=disable options='-c work_mem=64kB -c search_path=x,\\\\ public'")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var wm, sp string
	if err := conn.QueryRow(ctx, "SELECT current_setting('work_mem'), current_setting('search_path')").Scan(&wm, &sp); err != nil || wm != "64kB" || sp != "x, public" {
		t.Errorf("options: work_mem %q search_path %q: %v", wm, sp, err)
	}
}

// TestSessionAuthorization checks SET SESSION AUTHORIZATION as
// PostgreSQL 15 has it: only a session whose authenticated role is a
// superuser may become another role, which then is session_user and
// current_user (ending SET ROLE) and whose privileges apply, until RESET
// gives the authenticated role back; the client hears of the change
// (ParameterStatus). A plain role cannot use it, through SQL, set_config
// or its startup parameters.
func TestSessionAuthorization(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		"CREATE TABLE secret (x int)",
		"INSERT INTO secret VALUES (1)",
		"CREATE ROLE plain LOGIN",
		"CREATE ROLE other",
	)
	users := func(c *pgx.Conn) (sess, cur string) {
		t.Helper()
		if err := c.QueryRow(ctx, "SELECT session_user, current_user").Scan(&sess, &cur); err != nil {
			t.Fatal(err)
		}
		return sess, cur
	}
	countSecret := func(c *pgx.Conn) error {
		var n int
		return c.QueryRow(ctx, "SELECT count(*) FROM secret").Scan(&n)
	}

	// A superuser becomes plain, and loses what plain may not read.
	if _, err := root.Exec(ctx, "SET ROLE other"); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Exec(ctx, "SET SESSION AUTHORIZATION plain"); err != nil {
		t.Fatal(err)
	}
	if sess, cur := users(root); sess != "plain" || cur != "plain" {
		t.Errorf("after SET SESSION AUTHORIZATION plain: session_user %q current_user %q", sess, cur)
	}
	if got := root.PgConn().ParameterStatus("session_authorization"); got != "plain" {
		t.Errorf("ParameterStatus session_authorization = %q, want plain", got)
	}
	if got := root.PgConn().ParameterStatus("is_superuser"); got != "off" {
		t.Errorf("ParameterStatus is_superuser = %q, want off", got)
	}
	if err := countSecret(root); code(err) != "42501" {
		t.Errorf("plain reading secret: %v, want 42501", err)
	}
	// plain is no superuser: SET ROLE root is refused; the authenticated
	// role still allows another SET SESSION AUTHORIZATION.
	if _, err := root.Exec(ctx, "SET ROLE root"); code(err) != "42501" {
		t.Errorf("SET ROLE root as plain: %v, want 42501", err)
	}
	if _, err := root.Exec(ctx, "SET SESSION AUTHORIZATION other"); err != nil {
		t.Errorf("SET SESSION AUTHORIZATION other: %v", err)
	}
	if _, err := root.Exec(ctx, "RESET SESSION AUTHORIZATION"); err != nil {
		t.Fatal(err)
	}
	if sess, cur := users(root); sess != "root" || cur != "root" {
		t.Errorf("after RESET: session_user %q current_user %q", sess, cur)
	}
	if got := root.PgConn().ParameterStatus("session_authorization"); got != "root" {
		t.Errorf("ParameterStatus session_authorization after RESET = %q, want root", got)
	}
	if err := countSecret(root); err != nil {
		t.Errorf("root reading secret after RESET: %v", err)
	}
	// Rolled back with its transaction.
	tx, err := root.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SET SESSION AUTHORIZATION plain"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if sess, _ := users(root); sess != "root" {
		t.Errorf("after ROLLBACK: session_user %q", sess)
	}

	// A plain role may not.
	plain := s.login(t, "plain")
	for _, q := range []string{
		"SET SESSION AUTHORIZATION root",
		"SET session_authorization = root",
		"SELECT set_config('session_authorization', 'root', false)",
	} {
		if _, err := plain.Exec(ctx, q); code(err) != "42501" {
			t.Errorf("plain: %s: %v, want 42501", q, err)
		}
	}
	if sess, cur := users(plain); sess != "plain" || cur != "plain" {
		t.Errorf("plain after refusals: session_user %q current_user %q", sess, cur)
	}
	if err := countSecret(plain); code(err) != "42501" {
		t.Errorf("plain reading secret: %v, want 42501", err)
	}
	// Its own name is allowed, as DEFAULT is.
	for _, q := range []string{"SET SESSION AUTHORIZATION plain", "SET SESSION AUTHORIZATION DEFAULT"} {
		if _, err := plain.Exec(ctx, q); err != nil {
			t.Errorf("plain: %s: %v", q, err)
		}
	}

	// Startup parameters: refused for a plain role, and never a way to
	// become another role.
	for _, conninfo := range []string{
		"user=plain session_authorization=root",
		"user=plain options='-c session_authorization=root'",
	} {
		conn, err := s.connect(conninfo + " sslmode=disable")
		if err == nil {
			sess, _ := users(conn)
			conn.Close(ctx)
			t.Errorf("%s: connected with session_user %s, want 42501", conninfo, sess)
			continue
		}
		if code(err) != "42501" {
			t.Errorf("%s: got %v, want 42501", conninfo, err)
		}
	}
	conn, err := s.connect("user=root options='-c session_authorization=plain' sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if sess, cur := users(conn); sess != "root" || cur != "root" {
		t.Errorf("root with session_authorization=plain at startup: session_user %q current_user %q, want root (as PostgreSQL)", sess, cur)
	}
}

// pg_stat_ssl shows a session over TLS with its protocol version and
// cipher, as psql users check it, and a plain session with ssl false;
// another role sees neither, as in PostgreSQL.
func TestStatSSL(t *testing.T) {
	dir := t.TempDir()
	writeCerts(t, dir)
	ca := filepath.Join(dir, "ca.pem")
	s := startWeir(t, nil, "user=root sslmode=disable",
		"--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server.key"))
	ctx := context.Background()
	tc, err := s.connect("user=root sslmode=verify-full host=localhost sslrootcert=" + ca)
	if err != nil {
		t.Fatalf("connect over TLS: %v", err)
	}
	defer tc.Close(ctx)
	const mine = "SELECT ssl, version, cipher, bits FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
	var ssl bool
	var version, cipher *string
	var bits *int32
	if err := tc.QueryRow(ctx, mine).Scan(&ssl, &version, &cipher, &bits); err != nil {
		t.Fatalf("%s: %v", mine, err)
	}
	if !ssl || version == nil || *version != "TLSv1.3" || cipher == nil || !strings.HasPrefix(*cipher, "TLS_") || bits == nil || *bits < 128 {
		t.Fatalf("over TLS: ssl %v version %v cipher %v bits %v", ssl, deref(version), deref(cipher), bits)
	}
	plain := s.login(t, "root")
	if err := plain.QueryRow(ctx, mine).Scan(&ssl, &version, &cipher, &bits); err != nil {
		t.Fatalf("%s: %v", mine, err)
	}
	if ssl || version != nil || cipher != nil || bits != nil {
		t.Fatalf("plain: ssl %v version %v cipher %v bits %v", ssl, deref(version), deref(cipher), bits)
	}
	var n int
	if err := plain.QueryRow(ctx, "SELECT count(*) FROM pg_stat_ssl WHERE ssl AND client_dn IS NULL AND client_serial IS NULL").Scan(&n); err != nil || n != 1 {
		t.Fatalf("root sees %d sessions over TLS (%v), want 1", n, err)
	}
	if _, err := plain.Exec(ctx, "CREATE ROLE bob LOGIN"); err != nil {
		t.Fatal(err)
	}
	bob := s.login(t, "bob")
	rows, err := bob.Query(ctx, "SELECT pid = pg_backend_pid() FROM pg_stat_ssl")
	if err != nil {
		t.Fatal(err)
	}
	own, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil || len(own) != 1 || !own[0] {
		t.Fatalf("bob sees pg_stat_ssl rows %v (%v), want only his own", own, err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}
