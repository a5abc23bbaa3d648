package wire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"log/slog"
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

// Options configures a Server.
type Options struct {
	// Logger receives connection events; per-message traces are logged at
	// debug level. Nil means slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes bounds the body of one frontend message in bytes;
	// larger messages are refused with SQLSTATE 54000 and the connection is
	// closed. Zero means DefaultMaxMessageBytes.
	MaxMessageBytes int
}

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
// ErrServerClosed) or Accept fails with a permanent error (returned as is).
// Serve closes ln when it returns.
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
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Temporary failures such as EMFILE: back off as
				// net/http does rather than spin or give up.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
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
// reachable for CancelRequest.
func (s *Server) register(c *conn) error {
	if _, err := rand.Read(c.secret[:]); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		s.nextPID++
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
)
