package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// rolesFake is a fakeHandler that keeps roles.
type rolesFake struct{ *fakeHandler }

func (h rolesFake) LookupRole(name string) (Role, bool) {
	r, ok := h.roles[name]
	return r, ok
}

func verifier(t *testing.T, password string) string {
	t.Helper()
	v, err := SCRAMVerifier(password, []byte("0123456789abcdef"), DefaultSCRAMIterations)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The verifier is Postgres's, byte for byte: this one was made by
// PostgreSQL 15.18 for the password "secret" (CREATE ROLE v PASSWORD
// 'secret'; SELECT rolpassword FROM pg_authid), and SCRAMVerifier must
// give the same text for the same salt and iteration count.
func TestSCRAMVerifierFormat(t *testing.T) {
	const pg = "SCRAM-SHA-256$4096:z4RfvvduZaMA5uTbhw1f7g==$xDPOYzkYIsOq7PZvWBbstyWLJK2DOhltPx7ujyDvpJE=:nphksIWl/dR/DXsUmRn8sMin2NRtNiCpZcUBwE9QokU="
	salt, _ := base64.StdEncoding.DecodeString("z4RfvvduZaMA5uTbhw1f7g==")
	v, err := SCRAMVerifier("secret", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if v != pg {
		t.Fatalf("verifier\n%s\nwant\n%s", v, pg)
	}
	cred, ok := ParseSCRAMVerifier(v)
	if !ok || cred.Iters != 4096 || cred.Salt != string(salt) {
		t.Fatalf("ParseSCRAMVerifier(%q) = %+v, %v", v, cred, ok)
	}
	for _, bad := range []string{"", "secret", "md5abc", "SCRAM-SHA-256$x:c2FsdA==$a:b", "SCRAM-SHA-256$4096:c2FsdA==$YQ==:YQ=="} {
		if _, ok := ParseSCRAMVerifier(bad); ok {
			t.Errorf("ParseSCRAMVerifier(%q) accepted", bad)
		}
	}
}

func connectErr(ts *testServer, conninfo string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	host, port, _ := net.SplitHostPort(ts.addr)
	return pgx.Connect(ctx, fmt.Sprintf("host=%s port=%s dbname=dev %s", host, port, conninfo))
}

// Password authentication runs SCRAM-SHA-256 the way libpq and pgx
// expect; every failure is 28P01 with the same message, and a role
// without LOGIN is refused after it (28000).
func TestSCRAMAuthentication(t *testing.T) {
	h := newFakeHandler()
	h.roles = map[string]Role{
		"alice":   {CanLogin: true, Verifier: verifier(t, "wonderland")},
		"nologin": {CanLogin: false, Verifier: verifier(t, "x")},
		"nopass":  {CanLogin: true},
		"expired": {CanLogin: true, Verifier: verifier(t, "x"), ValidUntil: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	ts := startServer(t, h, Options{Auth: AuthPassword})
	conn, err := connectErr(ts, "user=alice password=wonderland sslmode=disable")
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	var one int
	if err := conn.QueryRow(context.Background(), "select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("select 1: %v %d", err, one)
	}
	conn.Close(context.Background())
	for _, c := range []struct{ conninfo, code, msg string }{
		{"user=alice password=wrong", "28P01", `password authentication failed for user "alice"`},
		{"user=nobody password=x", "28P01", `password authentication failed for user "nobody"`},
		{"user=nopass password=x", "28P01", `password authentication failed for user "nopass"`},
		{"user=expired password=x", "28P01", `password authentication failed for user "expired"`},
		{"user=nologin password=x", "28000", `role "nologin" is not permitted to log in`},
	} {
		_, err := connectErr(ts, c.conninfo+" sslmode=disable")
		if pgCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %s %s", c.conninfo, err, c.code, c.msg)
		}
	}
}

// Under trust, an existing role logs in without a password and an
// unknown one gets 28000.
func TestTrustNeedsAnExistingRole(t *testing.T) {
	h := newFakeHandler()
	h.roles = map[string]Role{"root": {CanLogin: true, Superuser: true}, "reader": {CanLogin: true}}
	ts := startServer(t, h, Options{})
	c, _ := connectRaw(t, ts.addr, map[string]string{"user": "reader", "database": "dev"})
	c.send(&pgproto3.Terminate{})
	_, err := connectErr(ts, "user=evil sslmode=disable")
	if pgCode(err) != "28000" || !strings.Contains(err.Error(), `role "evil" does not exist`) {
		t.Fatalf("unknown role: %v", err)
	}
}

// testCerts makes a CA and a server certificate for 127.0.0.1 and
// localhost signed by it, both only in memory.
func testCerts(t *testing.T) (ca *x509.CertPool, server tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weir test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
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
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca = x509.NewCertPool()
	ca.AddCert(caCert)
	return ca, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// SSLRequest is answered 'S' and the session runs over TLS; with
// TLSRequired a plain connection is refused with 28000.
func TestTLS(t *testing.T) {
	ca, cert := testCerts(t)
	h := newFakeHandler()
	h.roles = map[string]Role{"alice": {CanLogin: true, Verifier: verifier(t, "wonderland")}}
	ts := startServer(t, h, Options{Auth: AuthPassword, TLSRequired: true,
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	host, port, _ := net.SplitHostPort(ts.addr)
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s user=alice password=wonderland dbname=dev sslmode=verify-full channel_binding=require", host, port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig.RootCAs = ca
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("verify-full: %v", err)
	}
	tc, ok := conn.PgConn().Conn().(*tls.Conn)
	if !ok {
		t.Fatalf("connection is %T, not TLS", conn.PgConn().Conn())
	}
	// The handler learns the version and cipher the client sees, in
	// OpenSSL's names (pg_stat_ssl).
	st := tc.ConnectionState()
	conn.Close(ctx)
	h.mu.Lock()
	got := h.params[len(h.params)-1].TLS
	h.mu.Unlock()
	if got == nil || got.Version != "TLSv1.3" || st.Version != tls.VersionTLS13 ||
		got.Cipher != tls.CipherSuiteName(st.CipherSuite) || got.Bits < 128 {
		t.Fatalf("StartupParams.TLS = %+v for a client on %s", got, tls.CipherSuiteName(st.CipherSuite))
	}
	_, err = connectErr(ts, "user=alice password=wonderland sslmode=disable")
	if pgCode(err) != "28000" || !strings.Contains(err.Error(), "no encryption") {
		t.Fatalf("plain connection with TLS required: %v", err)
	}
}

// A session over TLS 1.2 sees OpenSSL's name of its cipher, as
// PostgreSQL's pg_stat_ssl shows it, not the IANA name crypto/tls gives;
// a plain session has no TLS state.
func TestTLSInfoNames(t *testing.T) {
	ca, cert := testCerts(t)
	h := newFakeHandler()
	ts := startServer(t, h, Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	host, port, _ := net.SplitHostPort(ts.addr)
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s user=alice dbname=dev sslmode=verify-full", host, port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig.RootCAs = ca
	cfg.TLSConfig.MaxVersion = tls.VersionTLS12
	cfg.TLSConfig.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("TLS 1.2: %v", err)
	}
	conn.Close(ctx)
	plain, err := connectErr(ts, "user=alice sslmode=disable")
	if err != nil {
		t.Fatalf("plain: %v", err)
	}
	plain.Close(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.params) != 2 {
		t.Fatalf("%d sessions, want 2", len(h.params))
	}
	if got := h.params[0].TLS; got == nil || *got != (TLSInfo{Version: "TLSv1.2", Cipher: "ECDHE-ECDSA-AES256-GCM-SHA384", Bits: 256}) {
		t.Errorf("TLS 1.2 session: %+v", got)
	}
	if got := h.params[1].TLS; got != nil {
		t.Errorf("plain session: %+v", got)
	}
}

// Every suite crypto/tls implements has OpenSSL's name and strength:
// TLS 1.3's names are IANA's, the others never are.
func TestCipherSuitesNamed(t *testing.T) {
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		got, ok := cipherSuites[cs.ID]
		tls13 := len(cs.SupportedVersions) == 1 && cs.SupportedVersions[0] == tls.VersionTLS13
		switch {
		case !ok:
			t.Errorf("%s has no OpenSSL name", cs.Name)
		case tls13 != (got.name == cs.Name):
			t.Errorf("%s is named %s", cs.Name, got.name)
		case got.bits != 112 && got.bits != 128 && got.bits != 256:
			t.Errorf("%s has %d bits", cs.Name, got.bits)
		}
	}
}

// connectRawTLS is connectRaw over TLS (SSLRequest, then the handshake).
func connectRawTLS(t *testing.T, addr string) *rawClient {
	t.Helper()
	c := dialRaw(t, addr)
	c.send(&pgproto3.SSLRequest{})
	var b [1]byte
	if _, err := io.ReadFull(c.nc, b[:]); err != nil || b[0] != 'S' {
		t.Fatalf("SSLRequest answered %q, %v", b[:], err)
	}
	tc := tls.Client(c.nc, &tls.Config{InsecureSkipVerify: true})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	c.nc, c.fe = tc, pgproto3.NewFrontend(tc, tc)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "root", "database": "dev"}})
	for {
		switch m := c.recv().(type) {
		case *pgproto3.ReadyForQuery:
			return c
		case *pgproto3.ErrorResponse:
			t.Fatalf("startup failed: %+v", m)
		}
	}
}

// Over TLS, a read the server interrupts (a COPY whose statement times
// out while the client sends nothing) leaves the stream readable, and a
// client that hangs up while a statement runs cancels it.
func TestTLSReadInterrupted(t *testing.T) {
	_, cert := testCerts(t)
	h := newFakeHandler()
	ts := startServer(t, h, Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	c := connectRawTLS(t, ts.addr)
	copyTimesOut(t, c)

	c.send(&pgproto3.Query{String: "sleep"})
	<-h.sleeping
	c.nc.Close()
	waitFor(t, func() bool { return h.sessionsClosed.Load() == 1 && h.resultsClosed.Load() == h.resultsOpened.Load() })
}
