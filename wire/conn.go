package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/weirdb/weir/internal/pgerr"
)

// Startup packet codes (Postgres protocol docs, "Message Formats").
const (
	codeCancelRequest = 80877102
	codeSSLRequest    = 80877103
	codeGSSEncRequest = 80877104
	maxStartupPacket  = 10000 // MAX_STARTUP_PACKET_LENGTH in Postgres
	startupTimeout    = time.Minute
	// endingWriteGrace is how long an ending connection (terminated, the
	// server shutting down) may still block in a socket write.
	endingWriteGrace = time.Second
	flushThreshold   = 64 << 10 // flush while streaming once this much is buffered
)

// Codes that pgerr does not (yet) name.
const (
	codeInvalidAuthorization     pgerr.Code = "28000"
	codeInvalidPassword          pgerr.Code = "28P01"
	codeDuplicateCursor          pgerr.Code = "42P03"
	codeTooManyConnections       pgerr.Code = "53300"
	codeIdleSessionTimeout       pgerr.Code = "57P05"
	codeIdleInTransactionTimeout pgerr.Code = "25P03"
)

// frame is one frontend message as read off the socket: its type byte and
// its body (without the length word). err ends the stream.
type frame struct {
	typ  byte
	body []byte
	err  error
	// then is the type byte of the message that follows, when it had
	// arrived already as this one was read (0 otherwise): a client
	// that pipelines writes them at once.
	then byte
}

// conn is one client connection. Except for cancelRunning and what
// reader.go guards, all of its state belongs to the connection goroutine.
type conn struct {
	s   *Server
	nc  net.Conn
	log *slog.Logger
	dbg bool // debug logging enabled, checked once

	pid    uint32
	secret [4]byte
	// tls is set once the connection was upgraded to TLS.
	tls bool

	// ctx lives as long as the connection; it is canceled when the client
	// goes away or the server shuts down.
	ctx    context.Context
	cancel context.CancelCauseFunc

	// current is the text of the statement the message being handled
	// runs (a Query's, or an Execute's statement's), and lostIn that of
	// the one running when the client went, which the log names.
	current, lostIn string

	// runMu guards running, the cancel function of the statement in
	// progress (nil between statements).
	runMu   sync.Mutex
	running context.CancelCauseFunc

	// fr reads the session's frames, on the connection goroutine; ri
	// interrupts its reads; watch notices a client gone while a
	// statement runs (reader.go).
	fr    frameReader
	ri    readInterrupts
	watch *goneWatch
	// readErr is the error that ended the frame stream; every later next
	// returns it.
	readErr error

	wbuf []byte
	werr error

	sess    Session
	stmts   map[string]*stmt
	portals map[string]*portal
	// skipToSync is set after an error in the extended protocol: messages
	// are discarded until the next Sync.
	skipToSync bool
	// sentFatal is set once a FATAL ErrorResponse was sent, or a
	// statement returned ErrCloseConnection; the connection then ends.
	sentFatal bool
	// ready is set when ReadyForQuery is sent and cleared when the next
	// message arrives: the idle timeouts run only in between, as
	// PostgreSQL arms them only as it sends ReadyForQuery (not between
	// the messages of an extended-protocol batch before its Sync).
	ready bool
}

// serveConn runs one connection from its startup packet to its end.
func (s *Server) serveConn(nc net.Conn) {
	defer s.untrack(nc)
	defer nc.Close()
	defer func() {
		// A panic in a handler must not take every other session down
		// with it: it ends this connection only, like net/http does.
		if r := recover(); r != nil {
			s.log.Error("panic serving connection", "panic", r, "stack", string(debug.Stack()))
		}
	}()

	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	c := &conn{
		s:       s,
		nc:      nc,
		log:     s.log.With("remote", nc.RemoteAddr().String()),
		ctx:     ctx,
		cancel:  cancel,
		stmts:   map[string]*stmt{},
		portals: map[string]*portal{},
	}
	c.dbg = c.log.Enabled(ctx, slog.LevelDebug)
	br := bufio.NewReaderSize(nc, 16<<10)

	// A socket stuck in the startup phase does not watch ctx: close it on
	// shutdown, and bound how long a client may take to start up.
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(startupTimeout))
	params, br, ok := c.startup(br)
	if !ok || !stop() {
		c.flush()
		return
	}
	c.serveSession(br, params)
}

// startup reads packets until a StartupMessage arrives. An SSLRequest is
// answered 'S' and followed by the TLS handshake when the server has a
// certificate, 'N' otherwise; GSS encryption requests get 'N'. It handles
// a CancelRequest itself and then reports false, as it does for every
// failure (after sending FATAL where the protocol allows it). It returns
// the reader to go on with, which reads through TLS after an upgrade.
func (c *conn) startup(br *bufio.Reader) (StartupParams, *bufio.Reader, bool) {
	p, ok := c.startupPackets(&br)
	return p, br, ok
}

func (c *conn) startupPackets(brp **bufio.Reader) (StartupParams, bool) {
	for {
		br := *brp
		var hdr [8]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return StartupParams{}, false
		}
		n := int(int32(binary.BigEndian.Uint32(hdr[:4])))
		if n < 8 || n > maxStartupPacket {
			c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid length of startup packet"))
			return StartupParams{}, false
		}
		code := binary.BigEndian.Uint32(hdr[4:])
		body := make([]byte, n-8)
		if _, err := io.ReadFull(br, body); err != nil {
			return StartupParams{}, false
		}
		switch code {
		case codeSSLRequest:
			if c.s.opts.TLS == nil || c.tls {
				break
			}
			if br.Buffered() > 0 {
				// Bytes sent before the server's answer would be read
				// as if they came through TLS (CVE-2021-23214).
				c.fatal(pgerr.New(pgerr.ProtocolViolation, "received unencrypted data after SSL request"))
				return StartupParams{}, false
			}
			if _, err := c.nc.Write([]byte{'S'}); err != nil {
				return StartupParams{}, false
			}
			tc := tls.Server(c.nc, c.s.opts.TLS)
			if err := tc.HandshakeContext(c.ctx); err != nil {
				c.log.Info("TLS handshake failed", "err", err)
				return StartupParams{}, false
			}
			c.nc, c.tls = tc, true
			*brp = bufio.NewReaderSize(tc, 16<<10)
			continue
		}
		switch code {
		case codeSSLRequest, codeGSSEncRequest:
			if c.dbg {
				c.log.Debug("encryption request refused", "code", code)
			}
			// Refuse encryption: the client then sends a plain
			// StartupMessage on the same socket.
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return StartupParams{}, false
			}
			continue
		case codeCancelRequest:
			if len(body) >= 8 {
				c.s.cancelRequest(binary.BigEndian.Uint32(body), body[4:])
			}
			return StartupParams{}, false
		}
		major, minor := code>>16, code&0xffff
		if major != 3 {
			c.fatal(pgerr.New(pgerr.FeatureNotSupported,
				"unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", major, minor))
			return StartupParams{}, false
		}
		var sm pgproto3.StartupMessage
		full := append(hdr[4:8:8], body...)
		if minor != 0 {
			// Decode only knows the versions pgx speaks; the body layout is
			// the same for every 3.x.
			binary.BigEndian.PutUint32(full, pgproto3.ProtocolVersion30)
		}
		if err := sm.Decode(full); err != nil {
			c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid startup packet layout: %v", err))
			return StartupParams{}, false
		}
		if minor != 0 {
			// A newer minor version is negotiated down, as Postgres does.
			c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0})
		}
		return c.startupParams(sm.Parameters)
	}
}

// startupParams validates the StartupMessage parameters.
func (c *conn) startupParams(m map[string]string) (StartupParams, bool) {
	p := StartupParams{Options: map[string]string{}}
	for k, v := range m {
		switch k {
		case "user":
			p.User = v
		case "database":
			p.Database = v
		default:
			p.Options[k] = v
		}
	}
	if p.User == "" {
		c.fatal(pgerr.New(codeInvalidAuthorization, "no PostgreSQL user name specified in startup packet"))
		return p, false
	}
	if p.Database == "" {
		p.Database = p.User
	}
	if enc, ok := p.Options["client_encoding"]; ok {
		canon, ok := clientEncoding(enc)
		if !ok {
			c.fatal(pgerr.New(pgerr.InvalidParameterValue,
				"invalid value for parameter \"client_encoding\": \"%s\"", enc).
				WithDetail("weir supports only the UTF8 client encoding."))
			return p, false
		}
		p.Options["client_encoding"] = canon
	}
	return p, true
}

// clientEncoding returns the canonical name of a client_encoding value the
// server accepts. Postgres compares encoding names ignoring case and
// non-alphanumeric characters. SQL_ASCII is accepted too because it is what
// libpq's "auto" picks under the C locale, and ASCII is a subset of UTF-8.
func clientEncoding(v string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(v) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	switch b.String() {
	case "utf8", "unicode":
		return "UTF8", true
	case "sqlascii":
		return "SQL_ASCII", true
	}
	return "", false
}

// serveSession authenticates the client, opens its Session and runs the
// message loop until the client leaves.
func (c *conn) serveSession(br *bufio.Reader, p StartupParams) {
	if err := c.s.register(c); err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			c.log.Warn("connection refused", "err", pe.Message, "code", string(pe.Code))
			c.fatal(pe)
		} else {
			c.fatal(pgerr.Wrap(pgerr.InternalError, err, "cannot create cancel key"))
		}
		return
	}
	defer c.s.unregister(c)

	if c.s.opts.TLSRequired && !c.tls {
		c.log.Info("connection refused", "user", p.User, "reason", "no encryption")
		c.fatal(pgerr.New(codeInvalidAuthorization,
			"no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", no encryption",
			remoteHost(c.nc), p.User, p.Database).WithHint("The server requires TLS: connect with sslmode=require or stronger."))
		return
	}
	role, ok := c.authenticate(br, p)
	c.nc.SetDeadline(time.Time{})
	if !ok {
		return
	}
	if r := c.s.opts.SuperuserReservedConnections; r > 0 && !role.Superuser && c.s.Sessions() > c.s.opts.MaxConnections-r {
		c.log.Warn("connection refused", "user", p.User, "reason", "only reserved slots free")
		c.fatal(errReservedSlots)
		return
	}

	p.PID, p.RemoteAddr, p.Backend = c.pid, c.nc.RemoteAddr(), backendHandle{c}
	if tc, ok := c.nc.(*tls.Conn); ok {
		p.TLS = tlsInfo(tc.ConnectionState())
	}
	sess, err := c.s.h.NewSession(c.ctx, p)
	if err != nil {
		pe := *pgerr.As(err)
		pe.Severity = "FATAL"
		c.fatal(&pe)
		return
	}
	c.sess = sess
	c.log = c.log.With("pid", c.pid, "user", p.User, "database", p.Database)
	c.log.Info("session started")
	defer func() {
		c.closeAllPortals()
		c.sess.Close()
		if cause := context.Cause(c.ctx); cause != nil && c.lostIn != "" {
			// As PostgreSQL logs the statement of a connection lost.
			c.log.Info("session ended", "cause", cause, "statement", logText(c.lostIn))
		} else if cause != nil {
			c.log.Info("session ended", "cause", cause)
		} else {
			c.log.Info("session ended")
		}
	}()

	c.send(&pgproto3.AuthenticationOk{})
	own := map[string]string{
		"application_name":      p.Options["application_name"],
		"client_encoding":       "UTF8",
		"session_authorization": p.User,
		"is_superuser":          onOff(role.Superuser),
	}
	if enc, ok := p.Options["client_encoding"]; ok {
		own["client_encoding"] = enc
	}
	for _, kv := range c.s.h.ServerParams() {
		if _, mine := own[kv[0]]; !mine {
			c.send(&pgproto3.ParameterStatus{Name: kv[0], Value: kv[1]})
		}
	}
	for _, k := range []string{"application_name", "client_encoding", "session_authorization", "is_superuser"} {
		c.send(&pgproto3.ParameterStatus{Name: k, Value: own[k]})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	if c.flush() != nil {
		return
	}

	c.fr = frameReader{br: br, max: c.s.opts.MaxMessageBytes}
	c.ri.nc = c.nc
	c.watch = newGoneWatch(c)
	defer context.AfterFunc(c.ctx, func() {
		c.ri.stopAll()
		// An ending connection has only its error left to send: a write
		// blocked by a client that does not read (a result streaming
		// into a full socket) gives up after a grace, as a PostgreSQL
		// backend blocked in a send dies at once on pg_terminate_backend.
		c.nc.SetWriteDeadline(time.Now().Add(endingWriteGrace))
	})()
	defer c.watch.stop()
	c.loop()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// remoteHost is the client's address without its port.
func remoteHost(nc net.Conn) string {
	h, _, err := net.SplitHostPort(nc.RemoteAddr().String())
	if err != nil {
		return nc.RemoteAddr().String()
	}
	return h
}

// next returns the next frame; an error means the connection must end.
func (c *conn) next() (frame, error) {
	return c.nextCtx(nil)
}

// nextCtx is next that also gives up when stmt (if not nil), the context
// of the running statement, is canceled; it then returns the statement's
// error and the connection goes on.
func (c *conn) nextCtx(stmt context.Context) (frame, error) {
	return c.read(stmt, time.Time{}, nil)
}

// read reads the next frame on the connection goroutine. It gives up
// when the connection's context ends (with its cause), when stmt (if not
// nil) is canceled (with the statement's error), and when deadline (if
// not zero) passes (with idle).
func (c *conn) read(stmt context.Context, deadline time.Time, idle error) (frame, error) {
	if c.readErr != nil {
		return frame{}, c.readErr
	}
	for {
		if c.ctx.Err() != nil {
			return frame{}, context.Cause(c.ctx)
		}
		if stmt != nil && stmt.Err() != nil {
			return frame{}, stmtErr(stmt, stmt.Err())
		}
		end := c.ri.begin(stmt, deadline)
		f, err := c.fr.read()
		end()
		if isDeadline(err) {
			if !deadline.IsZero() && !time.Now().Before(deadline) && c.ctx.Err() == nil {
				return frame{}, idle
			}
			continue // the checks above say why, or it was meant for an earlier read
		}
		if err != nil {
			f.err = err
			// The client is gone: whatever runs (a COPY) must stop now.
			c.cancel(errClientGone)
		}
		if f.err != nil {
			c.readErr = f.err
		} else if f.typ == 'X' {
			// The stream ends with Terminate: whoever asks for the next
			// frame, the message loop or a COPY in progress, must learn
			// that the client is gone rather than wait forever.
			c.readErr = errTerminated
		}
		if c.dbg && f.err == nil {
			c.log.Debug("frontend message", "type", msgName(f.typ), "bytes", len(f.body))
		}
		return f, f.err
	}
}

// nextIdle is next between statements, once ReadyForQuery went out: a
// session that implements IdleTimeouts is ended with FATAL 57P05 (idle
// outside a transaction block) or 25P03 (idle inside one) once it waited
// that long, as Postgres does for idle_session_timeout and
// idle_in_transaction_session_timeout.
func (c *conn) nextIdle() (frame, error) {
	it, ok := c.sess.(IdleTimeouts)
	if !ok || c.readErr != nil || !c.ready {
		return c.next()
	}
	d, cause := it.IdleSessionTimeout(), errIdleSessionTimeout
	if c.sess.TxStatus() != 'I' {
		d, cause = it.IdleInTransactionTimeout(), errIdleInTransactionTimeout
	}
	if d <= 0 {
		return c.next()
	}
	f, err := c.read(nil, time.Now().Add(d), cause)
	if err == cause {
		c.log.Info("session timed out", "idle", d.String())
	}
	return f, err
}

// loop is the connection's message loop.
func (c *conn) loop() {
	for {
		f, err := c.nextIdle()
		c.ready = false
		if err != nil {
			var pe *pgerr.Error
			if errors.As(err, &pe) && pe != errClientGone {
				c.fatal(pe)
			}
			return
		}
		// The connection goroutine does not read while it handles a
		// message: the watch notices meanwhile a client that hangs up.
		c.watch.start()
		ok := c.dispatch(f)
		c.watch.stop()
		if c.current != "" && context.Cause(c.ctx) == errClientGone {
			c.lostIn = c.current
		}
		c.current = ""
		if !ok || c.werr != nil || c.sentFatal {
			return
		}
	}
}

// dispatch handles one frame and reports whether the session goes on.
func (c *conn) dispatch(f frame) bool {
	if c.skipToSync && f.typ != 'S' && f.typ != 'X' {
		if c.dbg {
			c.log.Debug("discarded until Sync", "type", msgName(f.typ))
		}
		return true
	}
	var err error
	switch f.typ {
	case 'Q':
		var m pgproto3.Query
		if err = m.Decode(f.body); err == nil {
			return c.simpleQuery(m.String)
		}
	case 'P':
		var m pgproto3.Parse
		if err = m.Decode(f.body); err == nil {
			c.extended(c.parse(&m))
			return true
		}
	case 'B':
		var m pgproto3.Bind
		if err = m.Decode(f.body); err == nil {
			c.extended(c.bind(&m))
			return true
		}
	case 'D':
		var m pgproto3.Describe
		if err = m.Decode(f.body); err == nil {
			c.extended(c.describe(&m))
			return true
		}
	case 'E':
		var m pgproto3.Execute
		if err = m.Decode(f.body); err == nil {
			c.extended(c.execute(m.Portal, m.MaxRows, f.then == 'S'))
			return !c.fatalSent()
		}
	case 'C':
		var m pgproto3.Close
		if err = m.Decode(f.body); err == nil {
			c.extended(c.closeMsg(&m))
			return true
		}
	case 'S':
		ok := !c.skipToSync
		c.skipToSync = false
		c.sync(ok)
		return c.flush() == nil
	case 'H':
		return c.flush() == nil
	case 'X':
		return false
	case 'd', 'c', 'f':
		// Copy messages outside COPY are ignored, as the protocol says.
		return true
	case 'F':
		// FunctionCall is a cycle of its own, like a simple Query: its
		// answer (here an error) is followed by ReadyForQuery.
		c.sendError(pgerr.New(pgerr.FeatureNotSupported, "function call messages are not supported").
			WithHint("Call the function in a SELECT statement."), 0)
		c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
		return c.flush() == nil
	default:
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid frontend message type %d", f.typ))
		return false
	}
	c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid %s message format", msgName(f.typ)))
	return false
}

// extended reports err (if any) for an extended-protocol message and makes
// the connection skip messages until Sync.
func (c *conn) extended(err error) {
	if err == nil {
		return
	}
	c.sendError(err, 0)
	c.skipToSync = true
}

// sync ends an extended-protocol batch, ok false when one of its
// messages failed. Outside a transaction block the implicit transaction
// ends here (committed, or undone after a failure), and with it every
// portal (Postgres drops portals at transaction end).
func (c *conn) sync(ok bool) {
	if it, is := c.sess.(ImplicitTransaction); is {
		if c.endImplicit(it, ok, true) {
			return
		}
	}
	tx := c.sess.TxStatus()
	if tx == 'I' {
		c.closeAllPortals()
	}
	c.send(&pgproto3.ReadyForQuery{TxStatus: tx})
}

// endImplicit ends the session's implicit transaction (ok false: undo
// it) as a statement runs: a cancel stops its wait for the commit. opened
// is false when no implicit transaction was begun (a Query of one
// statement), whose end has no commit to wait for. A
// commit's error is sent to the client; it reports true when the
// connection must end (sentFatal is then set).
func (c *conn) endImplicit(it ImplicitTransaction, ok, opened bool) bool {
	ctx := c.ctx
	if opened {
		// Its commit may wait: a CancelRequest cancels it.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(c.ctx)
		defer cancel(nil)
		c.setRunning(cancel)
	}
	err := it.EndImplicit(ctx, ok)
	if opened {
		c.setRunning(nil)
	}
	switch {
	case err == nil || !ok || c.sentFatal:
	case errors.Is(err, ErrCloseConnection):
		c.sentFatal = true
		c.flush()
	default:
		c.sendError(stmtErr(ctx, err), 0)
	}
	return c.sentFatal
}

// maxLoggedText is the most of a statement's text a log line holds.
const maxLoggedText = 1024

// logText returns a statement's text for a log line: at most
// maxLoggedText bytes of it, cut at a character's start and marked.
func logText(text string) string {
	if len(text) <= maxLoggedText {
		return text
	}
	cut := maxLoggedText
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}

// send buffers a backend message.
func (c *conn) send(m pgproto3.BackendMessage) {
	if c.werr != nil {
		return
	}
	if _, ok := m.(*pgproto3.ReadyForQuery); ok {
		c.ready = true
	}
	b, err := m.Encode(c.wbuf)
	if err != nil {
		c.werr = err
		return
	}
	c.wbuf = b
}

// flush writes the buffered messages to the socket.
func (c *conn) flush() error {
	if c.werr != nil {
		return c.werr
	}
	if len(c.wbuf) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.wbuf)
	if cap(c.wbuf) > 4*flushThreshold {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
	if err != nil {
		c.werr = err
		c.cancel(errClientGone)
	}
	return err
}

// maybeFlush flushes once enough output is buffered, so long results
// stream instead of piling up in memory.
func (c *conn) maybeFlush() error {
	if len(c.wbuf) >= flushThreshold {
		return c.flush()
	}
	return c.werr
}

// sendError sends err as an ErrorResponse. base is the 1-based character
// position of the statement text within what the client sent, minus one;
// a statement error's Position is shifted by it.
func (c *conn) sendError(err error, base int) {
	pe := pgerr.As(err)
	sev := pe.Severity
	if sev == "" {
		sev = "ERROR"
	}
	pos := 0
	if pe.Position > 0 {
		pos = pe.Position + base
	}
	if sev == "FATAL" || sev == "PANIC" {
		c.sentFatal = true
	}
	if pe.Code == pgerr.InternalError {
		c.log.Error("internal error", "err", err)
	} else if c.dbg {
		c.log.Debug("error response", "code", string(pe.Code), "message", pe.Message)
	}
	c.send(&pgproto3.ErrorResponse{
		Severity:            sev,
		SeverityUnlocalized: sev,
		Code:                string(pe.Code),
		Message:             pe.Message,
		Detail:              pe.Detail,
		Hint:                pe.Hint,
		Where:               pe.Where,
		Position:            int32(pos),
		SchemaName:          pe.SchemaName,
		TableName:           pe.TableName,
		ColumnName:          pe.ColumnName,
		ConstraintName:      pe.ConstraintName,
	})
	// Postgres flushes every error at once, so a client waiting for a
	// Flush response (or one that is about to be dropped) sees it.
	c.flush()
}

// fatal sends err with severity FATAL and flushes; the caller then ends
// the connection.
func (c *conn) fatal(err *pgerr.Error) {
	pe := *err
	pe.Severity = "FATAL"
	c.sendError(&pe, 0)
	c.flush()
}

// fatalSent reports whether a FATAL error went out, after which the
// connection must close.
func (c *conn) fatalSent() bool { return c.sentFatal }

// setRunning records cancel as the running statement's cancel function.
func (c *conn) setRunning(cancel context.CancelCauseFunc) {
	c.runMu.Lock()
	c.running = cancel
	c.runMu.Unlock()
}

// cancelRunning cancels the running statement, if any, with cause.
func (c *conn) cancelRunning(cause error) {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	if c.running != nil {
		c.running(cause)
	}
}

// backendHandle is the Backend of a connection.
type backendHandle struct{ c *conn }

// Cancel implements Backend.
func (b backendHandle) Cancel() {
	b.c.s.log.Debug("statement cancelled by another session", "pid", b.c.pid)
	b.c.cancelRunning(errQueryCanceled)
}

// Terminate implements Backend: the connection's context ends with the
// cause Shutdown gives every connection, so an idle session and a
// running statement end alike, with FATAL 57P01.
func (b backendHandle) Terminate() {
	b.c.s.log.Info("session terminated by another session", "pid", b.c.pid)
	b.c.cancel(errAdminShutdown)
}

// msgName names a frontend message type for logs.
func msgName(t byte) string {
	switch t {
	case 'Q':
		return "Query"
	case 'P':
		return "Parse"
	case 'B':
		return "Bind"
	case 'D':
		return "Describe"
	case 'E':
		return "Execute"
	case 'C':
		return "Close"
	case 'S':
		return "Sync"
	case 'H':
		return "Flush"
	case 'X':
		return "Terminate"
	case 'd':
		return "CopyData"
	case 'c':
		return "CopyDone"
	case 'f':
		return "CopyFail"
	case 'F':
		return "FunctionCall"
	case 'p':
		return "PasswordMessage"
	}
	return fmt.Sprintf("0x%02x", t)
}
