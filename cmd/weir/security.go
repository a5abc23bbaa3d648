package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/weirdb/weir/engine"
	"github.com/weirdb/weir/wire"
)

// passwordEnv is the environment variable that may hold the bootstrap
// superuser's password instead of --init-password-file.
const passwordEnv = "WEIR_PASSWORD"

// security holds weir serve's authentication, TLS and connection flags.
type security struct {
	auth           *string
	initPassword   *string
	tlsCert        *string
	tlsKey         *string
	tlsRequired    *bool
	maxConnections *int
	reserved       *int
	connectorHosts *string
}

func securityFlags(fs *flag.FlagSet) *security {
	return &security{
		auth:           fs.String("auth", "", "client authentication: trust or password (SCRAM-SHA-256); default trust on a loopback listener, password otherwise"),
		initPassword:   fs.String("init-password-file", "", "file holding the password of the superuser "+engine.BootstrapUser+", read on first start (default: $"+passwordEnv+")"),
		tlsCert:        fs.String("tls-cert", "", "PEM certificate file for TLS (with --tls-key)"),
		tlsKey:         fs.String("tls-key", "", "PEM private key file for TLS (with --tls-cert)"),
		tlsRequired:    fs.Bool("tls-required", false, "refuse clients that do not use TLS"),
		maxConnections: fs.Int("max-connections", wire.DefaultMaxConnections, "maximum concurrent sessions; more get SQLSTATE 53300"),
		reserved:       fs.Int("superuser-reserved-connections", 3, "sessions of --max-connections kept for superusers; other roles get SQLSTATE 53300 when only these are free"),
		connectorHosts: fs.String("allowed-connector-hosts", "", "comma-separated hosts (or host:port) that sources and sinks may connect to (empty: any)"),
	}
}

// isLoopback reports whether a listen address accepts only local
// clients: a loopback IP or "localhost". An empty host listens on every
// interface.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// options turns the flags into wire options and the bootstrap password,
// refusing combinations that would expose the database: trust on a
// listener that is not loopback.
func (f *security) options(listen string) (wire.Options, string, error) {
	var o wire.Options
	loopback := isLoopback(listen)
	switch *f.auth {
	case "":
		o.Auth = wire.AuthTrust
		if !loopback {
			o.Auth = wire.AuthPassword
		}
	case "trust":
		if !loopback {
			return o, "", fmt.Errorf("--auth trust is allowed only on a loopback listener, and --listen %s accepts clients from other hosts: use --auth password (with TLS), or listen on 127.0.0.1", listen)
		}
		o.Auth = wire.AuthTrust
	case "password", "scram-sha-256":
		o.Auth = wire.AuthPassword
	default:
		return o, "", fmt.Errorf("--auth must be trust or password, not %q", *f.auth)
	}
	if *f.maxConnections <= 0 {
		return o, "", fmt.Errorf("--max-connections must be positive, not %d", *f.maxConnections)
	}
	o.MaxConnections = *f.maxConnections
	if *f.reserved < 0 || *f.reserved >= *f.maxConnections {
		return o, "", fmt.Errorf("--superuser-reserved-connections (%d) must be at least 0 and less than --max-connections (%d)", *f.reserved, *f.maxConnections)
	}
	o.SuperuserReservedConnections = *f.reserved
	if (*f.tlsCert == "") != (*f.tlsKey == "") {
		return o, "", errors.New("--tls-cert and --tls-key go together")
	}
	if *f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*f.tlsCert, *f.tlsKey)
		if err != nil {
			return o, "", fmt.Errorf("loading the TLS certificate: %v", err)
		}
		o.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if *f.tlsRequired && o.TLS == nil {
		return o, "", errors.New("--tls-required needs --tls-cert and --tls-key")
	}
	o.TLSRequired = *f.tlsRequired
	password := os.Getenv(passwordEnv)
	if *f.initPassword != "" {
		b, err := os.ReadFile(*f.initPassword)
		if err != nil {
			return o, "", fmt.Errorf("--init-password-file: %v", err)
		}
		password = strings.TrimRight(string(b), "\r\n")
		if password == "" {
			return o, "", fmt.Errorf("--init-password-file %s is empty", *f.initPassword)
		}
	}
	return o, password, nil
}

// allowedHosts returns the --allowed-connector-hosts entries.
func (f *security) allowedHosts() []string {
	var out []string
	for _, h := range strings.Split(*f.connectorHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// checkCanLogIn refuses to serve password authentication when no role
// can log in with a password: nobody could connect.
func checkCanLogIn(eng *engine.Engine, auth wire.AuthMethod) error {
	if auth != wire.AuthPassword {
		return nil
	}
	for _, r := range eng.Catalog().Roles() {
		if r.Login && r.Password != "" {
			return nil
		}
	}
	return fmt.Errorf("password authentication is on but no role has a password, so nobody could log in: give %s one on first start with --init-password-file or $%s (or set one with ALTER ROLE while running with --auth trust on loopback)",
		engine.BootstrapUser, passwordEnv)
}

// reservedSetting turns the wire server's reserved slots into the
// engine's setting, whose zero means the default: none is negative.
func reservedSetting(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
