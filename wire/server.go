package wire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"log/slog"
	"math"
	"net"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// DefaultMaxMessageBytes is the largest frontend message body accepted when
// Options.MaxMessageBytes is zero.
const DefaultMaxMessageBytes = 256 << 20

// ErrServerClosed is returned by Serve after Shutdown was called.
var ErrServerClosed = errors.New("wire: server closed")

// ErrCloseConnection is what a statement returns (alone or wrapped) when
// it has told its client all it will, in a notice it already sent, and
// the connection must close without an ErrorResponse or a command
// completion: PostgreSQL's answer to a terminate that arrives while a
// commit waits to be durable (a WARNING, then the connection closes,
// as its SyncRepWaitForLSN stops sending output).
var ErrCloseConnection = errors.New("wire: statement closed the connection")

// Options configures a Server.
type Options struct {
	// Logger receives connection events; per-message traces are logged at
	// debug level. Nil means slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes bounds the body of one frontend message in bytes;
	// larger messages are refused with SQLSTATE 54000 and the connection is
	// closed. Zero means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxConnections bounds the number of concurrent sessions; a client
	// beyond it gets FATAL 53300 "sorry, too many clients already" after
	// its StartupMessage, as in Postgres, and the server goes on. Zero
	// means DefaultMaxConnections.
	MaxConnections int
	// SuperuserReservedConnections is how many of MaxConnections only
	// superusers may take, as PostgreSQL's superuser_reserved_connections:
	// once fewer slots than this are free, a role that is not a superuser
	// gets FATAL 53300 after it authenticates, so an administrator can
	// still log in while other roles hold every other slot. Zero reserves
	// none; it must be less than MaxConnections.
	SuperuserReservedConnections int
	// Auth is how clients prove who they are (AuthTrust when empty).
	Auth AuthMethod
	// TLS, when not nil, lets clients upgrade with SSLRequest; the server
	// then answers 'S' and runs the handshake with crypto/tls.
	TLS *tls.Config
	// Now is the clock password expiry (VALID UNTIL) is checked against;
	// nil means time.Now.
	Now func() time.Time
	// TLSRequired refuses clients that did not upgrade to TLS (28000),
	// as a pg_hba.conf with only hostssl lines does.
	TLSRequired bool
}

// DefaultMaxConnections is Options.MaxConnections's default, Postgres's
// max_connections default.
const DefaultMaxConnections = 100

// Server accepts Postgres v3 protocol connections and runs their statements
// through a Handler. One goroutine serves each connection. A Server is safe
// for concurrent use; Serve may be called for several listeners.
type Server struct {
	h    Handler
	opts Options
	log  *slog.Logger

	// ctx is the parent of every connection's context; Shutdown cancels it
	// with an AdminShutdown cause.
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[uint32]*conn      // sessions by BackendKeyData process id
	netConns  map[net.Conn]struct{} // every open socket, for a forced close
	nextPID   uint32
	wg        sync.WaitGroup
}

// NewServer returns a server that runs statements through h.
func NewServer(h Handler, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = DefaultMaxConnections
	}
	if opts.Auth == "" {
		opts.Auth = AuthTrust
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Server{
		h:         h,
		opts:      opts,
		log:       opts.Logger,
		ctx:       ctx,
		cancel:    cancel,
		listeners: map[net.Listener]struct{}{},
		conns:     map[uint32]*conn{},
		netConns:  map[net.Conn]struct{}{},
	}
}

// Serve accepts connections on ln until Shutdown is called (it then returns
// ErrServerClosed) or ln is closed (net.ErrClosed is returned). Every other
// Accept error, such as EMFILE when the process is out of descriptors, is
// logged and retried after a growing pause (5 ms up to 1 s): the sessions
// that are open keep running and new ones are accepted once descriptors
// are free again. Serve closes ln when it returns.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// EMFILE, ENFILE, ENOBUFS, ECONNABORTED...: back off as
			// net/http does rather than spin or give up; the server
			// must outlive a burst of clients.
			if backoff == 0 {
				s.log.Warn("accepting a connection failed; retrying", "err", err)
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(backoff):
			case <-s.ctx.Done():
				return ErrServerClosed
			}
			continue
		}
		backoff = 0
		if !s.track(nc) {
			nc.Close()
			return ErrServerClosed
		}
		go s.serveConn(nc)
	}
}

// track registers a new socket; it reports false once shutdown began.
func (s *Server) track(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.netConns[nc] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(nc net.Conn) {
	s.mu.Lock()
	delete(s.netConns, nc)
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Shutdown stops accepting connections, cancels running statements, sends
// FATAL 57P01 to every session and closes it, then waits until every
// connection goroutine has returned (after Result.Close and Session.Close).
// If ctx ends first, the remaining sockets are closed forcibly and ctx's
// error is returned once the goroutines are gone.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
	s.cancel(errAdminShutdown)

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for nc := range s.netConns {
		nc.Close()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

// register assigns a process id and a random secret to c and makes it
// reachable for CancelRequest. It fails with 53300 when MaxConnections
// sessions are open.
func (s *Server) register(c *conn) error {
	if _, err := rand.Read(c.secret[:]); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) >= s.opts.MaxConnections {
		return errTooManyClients
	}
	for {
		// Pids stay positive int4s, as PostgreSQL's: pg_backend_pid()
		// and pg_stat_activity.pid are integer.
		s.nextPID++
		if s.nextPID > math.MaxInt32 {
			s.nextPID = 0
			continue
		}
		if s.nextPID == 0 {
			continue
		}
		if _, taken := s.conns[s.nextPID]; !taken {
			break
		}
	}
	c.pid = s.nextPID
	s.conns[c.pid] = c
	return nil
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[c.pid] == c {
		delete(s.conns, c.pid)
	}
}

// cancelRequest cancels the statement running on the connection with the
// given process id, if the secret matches. As in Postgres, a mismatch is
// silently ignored so that a client cannot probe for sessions.
func (s *Server) cancelRequest(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.conns[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret[:], secret) != 1 {
		s.log.Debug("cancel request for unknown session", "pid", pid)
		return
	}
	s.log.Debug("cancel request", "pid", pid)
	c.cancelRunning(errQueryCanceled)
}

// Errors the server itself produces as statement outcomes.
var (
	errQueryCanceled = pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	errAdminShutdown = &pgerr.Error{Code: pgerr.AdminShutdown, Severity: "FATAL",
		Message: "terminating connection due to administrator command"}
	errClientGone = pgerr.New(pgerr.ConnectionException, "client connection lost")
	// errTooManyClients is Postgres's answer beyond max_connections.
	errTooManyClients = &pgerr.Error{Code: codeTooManyConnections, Severity: "FATAL",
		Message: "sorry, too many clients already"}
	// errReservedSlots is Postgres's answer to a role that is not a
	// superuser when only the reserved slots are free.
	errReservedSlots = &pgerr.Error{Code: codeTooManyConnections, Severity: "FATAL",
		Message: "remaining connection slots are reserved for non-replication superuser connections"}
	errIdleSessionTimeout = &pgerr.Error{Code: codeIdleSessionTimeout, Severity: "FATAL",
		Message: "terminating connection due to idle-session timeout"}
	errIdleInTransactionTimeout = &pgerr.Error{Code: codeIdleInTransactionTimeout, Severity: "FATAL",
		Message: "terminating connection due to idle-in-transaction timeout"}
	// errTerminated ends the frame stream after a Terminate message.
	errTerminated = errors.New("client sent Terminate")
)

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// Sessions returns the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
