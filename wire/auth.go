package wire

import (
	"bufio"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/xdg-go/scram"
)

// AuthMethod is how clients prove who they are, named as pg_hba.conf
// names its methods.
type AuthMethod string

// Authentication methods.
const (
	// AuthTrust accepts any existing role without a password.
	AuthTrust AuthMethod = "trust"
	// AuthPassword asks for the role's password over SCRAM-SHA-256
	// (RFC 5802 and RFC 7677), as pg_hba.conf's scram-sha-256 does: the
	// password never crosses the wire and the server stores only a
	// verifier.
	AuthPassword AuthMethod = "scram-sha-256"
)

// Role is what the server needs to know about a role to let it log in.
type Role struct {
	// Superuser is reported to the client as the is_superuser parameter.
	Superuser bool
	// CanLogin is the role's LOGIN attribute; a role without it is
	// refused (28000) after authentication, as in Postgres.
	CanLogin bool
	// Verifier is the role's SCRAM-SHA-256 verifier in Postgres's format
	// (see SCRAMVerifier); empty when the role has no password, which
	// makes password authentication fail.
	Verifier string
	// ValidUntil, when not zero, is when the password stops being
	// accepted (VALID UNTIL).
	ValidUntil time.Time
}

// Roles is optionally implemented by a Handler that keeps roles. The
// server looks the StartupMessage's user up before opening a session:
// under AuthTrust an unknown role is refused with 28000 `role "x" does not
// exist`; under AuthPassword the exchange runs against a made-up verifier
// and fails with 28P01, as Postgres does, so that a client cannot learn
// which roles exist. A Handler without Roles accepts every user name.
type Roles interface {
	LookupRole(name string) (Role, bool)
}

// DefaultSCRAMIterations is the PBKDF2 iteration count of new verifiers,
// Postgres's scram_iterations default.
const DefaultSCRAMIterations = 4096

// SCRAMVerifier returns the SCRAM-SHA-256 verifier of password with the
// given salt and iteration count, in the format Postgres stores in
// pg_authid.rolpassword:
//
//	SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>
//
// The password is normalised with SASLprep as RFC 5802 asks; a password
// SASLprep refuses is used as it is, as Postgres does.
func SCRAMVerifier(password string, salt []byte, iterations int) (string, error) {
	c, err := scram.SHA256.NewClient("", password, "")
	if err != nil {
		c, _ = scram.SHA256.NewClientUnprepped("", password, "")
	}
	sc, err := c.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: iterations})
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(sc.StoredKey), b64(sc.ServerKey)), nil
}

// ParseSCRAMVerifier decodes a verifier in Postgres's format; ok is false
// when v is not one.
func ParseSCRAMVerifier(v string) (scram.StoredCredentials, bool) {
	rest, ok := strings.CutPrefix(v, "SCRAM-SHA-256$")
	if !ok {
		return scram.StoredCredentials{}, false
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return scram.StoredCredentials{}, false
	}
	iterText, saltText, ok1 := strings.Cut(params, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	iters, err := strconv.Atoi(iterText)
	if !ok1 || !ok2 || err != nil || iters <= 0 {
		return scram.StoredCredentials{}, false
	}
	dec := base64.StdEncoding.DecodeString
	salt, err1 := dec(saltText)
	stored, err2 := dec(storedText)
	server, err3 := dec(serverText)
	if err1 != nil || err2 != nil || err3 != nil || len(salt) == 0 || len(stored) != 32 || len(server) != 32 {
		return scram.StoredCredentials{}, false
	}
	return scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(salt), Iters: iters},
		StoredKey: stored, ServerKey: server}, true
}

// authenticate runs the authentication exchange for the StartupMessage's
// user and reports whether the client may go on; on failure it has sent
// FATAL. It returns the role (a superuser when the Handler keeps no
// roles).
func (c *conn) authenticate(br *bufio.Reader, p StartupParams) (Role, bool) {
	roles, keeps := c.s.h.(Roles)
	if !keeps {
		if c.s.opts.Auth == AuthPassword {
			c.fatal(pgerr.New(codeInvalidAuthorization, "password authentication is not available"))
			return Role{}, false
		}
		return Role{Superuser: true, CanLogin: true}, true
	}
	role, exists := roles.LookupRole(p.User)
	if c.s.opts.Auth == AuthPassword {
		if !c.scram(br, p.User, role, exists) {
			return Role{}, false
		}
	} else if !exists {
		c.log.Info("authentication failed", "user", p.User, "reason", "role does not exist")
		c.fatal(pgerr.New(codeInvalidAuthorization, "role \"%s\" does not exist", p.User))
		return Role{}, false
	}
	if !role.CanLogin {
		c.log.Info("authentication failed", "user", p.User, "reason", "role is not permitted to log in")
		c.fatal(pgerr.New(codeInvalidAuthorization, "role \"%s\" is not permitted to log in", p.User))
		return Role{}, false
	}
	return role, true
}

// scram runs SCRAM-SHA-256 for user and reports success. Every failure,
// whatever its reason, reaches the client as the same 28P01 `password
// authentication failed for user "x"`; the reason goes to the log only.
func (c *conn) scram(br *bufio.Reader, user string, role Role, exists bool) bool {
	reason := ""
	cred, ok := ParseSCRAMVerifier(role.Verifier)
	switch {
	case !exists:
		reason = "role does not exist"
	case role.Verifier == "":
		reason = "role has no password assigned"
	case !ok:
		reason = "role's password is not a SCRAM-SHA-256 verifier"
	case !role.ValidUntil.IsZero() && !c.s.now().Before(role.ValidUntil):
		reason = "role's password has expired"
	}
	if reason != "" {
		// Run the exchange against a verifier nobody knows the password
		// of, so the client cannot tell this failure from a wrong
		// password.
		var salt [16]byte
		rand.Read(salt[:])
		v, _ := SCRAMVerifier(rand.Text(), salt[:], DefaultSCRAMIterations)
		cred, _ = ParseSCRAMVerifier(v)
	}
	fail := func(why string) bool {
		if reason == "" {
			reason = why
		}
		c.log.Warn("password authentication failed", "user", user, "reason", reason)
		c.fatal(pgerr.New(codeInvalidPassword, "password authentication failed for user \"%s\"", user))
		return false
	}
	srv, err := scram.SHA256.NewServer(func(string) (scram.StoredCredentials, error) { return cred, nil })
	if err != nil {
		return fail(err.Error())
	}
	// Over TLS, SCRAM-SHA-256-PLUS binds the exchange to the server's
	// certificate (tls-server-end-point, RFC 5929), as Postgres offers it,
	// so a man in the middle holding another certificate cannot relay it.
	mechs := []string{"SCRAM-SHA-256"}
	conv := srv.NewConversation()
	if cb, ok := c.channelBinding(); ok {
		mechs = []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}
		conv = srv.NewConversationWithChannelBinding(cb)
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechs})
	if c.flush() != nil {
		return false
	}
	body, ok := c.readAuthMessage(br)
	if !ok {
		return false
	}
	var init pgproto3.SASLInitialResponse
	if err := init.Decode(body); err != nil {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "malformed SASL message"))
		return false
	}
	if !slices.Contains(mechs, init.AuthMechanism) {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism"))
		return false
	}
	first, err := conv.Step(string(init.Data))
	if err != nil {
		return fail("malformed SCRAM message")
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(first)})
	if c.flush() != nil {
		return false
	}
	if body, ok = c.readAuthMessage(br); !ok {
		return false
	}
	var resp pgproto3.SASLResponse
	if err := resp.Decode(body); err != nil {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "malformed SASL message"))
		return false
	}
	final, err := conv.Step(string(resp.Data))
	if err != nil || !conv.Valid() || reason != "" {
		return fail("wrong password")
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(final)})
	return true
}

// channelBinding returns the tls-server-end-point binding of the
// certificate the connection was served with.
func (c *conn) channelBinding() (scram.ChannelBinding, bool) {
	_, ok := c.nc.(*tls.Conn)
	if !ok || len(c.s.opts.TLS.Certificates) == 0 {
		return scram.ChannelBinding{}, false
	}
	cert := c.s.opts.TLS.Certificates[0]
	leaf := cert.Leaf
	if leaf == nil && len(cert.Certificate) > 0 {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return scram.ChannelBinding{}, false
		}
	}
	if leaf == nil {
		return scram.ChannelBinding{}, false
	}
	cb, err := scram.NewTLSServerEndpointBinding(&tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}})
	return cb, err == nil
}

// readAuthMessage reads one PasswordMessage-family message ('p') during
// authentication, before the session's frame reader runs. A client that hangs
// up instead (as psql does when it first learns that a password is
// needed) ends the connection quietly.
func (c *conn) readAuthMessage(br *bufio.Reader) ([]byte, bool) {
	var hdr [5]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[1:]))) - 4
	if hdr[0] != 'p' {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "expected SASL response, got message type %d", hdr[0]))
		return nil, false
	}
	if n < 0 || n > maxStartupPacket {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid SASL response length"))
		return nil, false
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, false
	}
	return body, true
}
