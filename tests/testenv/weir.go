package testenv

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Options configure a weir server started by Start.
type Options struct {
	// DataDir is the data directory; empty means a fresh t.TempDir().
	DataDir string
	// Port to listen on; 0 picks a free one (kept across restarts).
	Port int
	// Args are extra command-line arguments appended to `weir serve ...`.
	Args []string
	// Env holds extra KEY=VALUE environment entries.
	Env []string
	// ReadyTimeout bounds the wait for the first successful startup
	// (default 30s).
	ReadyTimeout time.Duration
}

// Server is a weir server process started by Start. It listens on
// 127.0.0.1 and accepts user root on database dev with trust
// authentication. Its stderr (the structured log) goes to LogPath and is
// printed when the test fails.
type Server struct {
	t       testing.TB
	bin     string
	opts    Options
	port    int
	DataDir string
	LogPath string

	mu   sync.Mutex
	proc *proc
}

var _ Target = (*Server)(nil)

// Start builds weir if needed, starts `weir serve` and waits until it
// accepts a PostgreSQL startup. The server is killed when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	bin := Binary(t)
	if opts.DataDir == "" {
		opts.DataDir = filepath.Join(t.TempDir(), "data")
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 30 * time.Second
	}
	port := opts.Port
	if port == 0 {
		var err error
		if port, err = FreePort(); err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
	}
	s := &Server{
		t: t, bin: bin, opts: opts, port: port,
		DataDir: opts.DataDir,
		LogPath: filepath.Join(t.TempDir(), "weir.log"),
	}
	t.Cleanup(func() {
		s.mu.Lock()
		p := s.proc
		s.mu.Unlock()
		if p != nil {
			p.kill()
		}
		if t.Failed() {
			t.Logf("weir log (%s), last lines:\n%s", s.LogPath, tail(s.LogPath, 4000))
		}
	})
	if err := s.start(); err != nil {
		t.Fatalf("starting weir: %v\nlog:\n%s", err, tail(s.LogPath, 4000))
	}
	return s
}

// Command returns an unstarted `weir serve` command for this server's
// data directory and port, for tests that need to watch the process
// themselves (for example a second server that must fail on a locked
// data directory).
func (s *Server) Command(extraArgs ...string) *exec.Cmd {
	return s.CommandOn(s.port, extraArgs...)
}

// CommandOn is Command listening on another port.
func (s *Server) CommandOn(port int, extraArgs ...string) *exec.Cmd {
	args := []string{"serve",
		"--listen", net.JoinHostPort(s.Host(), strconv.Itoa(port)),
		"--data-dir", s.DataDir,
	}
	s.mu.Lock()
	extra := append(append([]string(nil), s.opts.Args...), extraArgs...)
	env := s.opts.Env
	s.mu.Unlock()
	if !slices.Contains(extra, "--cluster") {
		// A metrics listener on a free port (a cluster node has none
		// and refuses the flag).
		args = append(args, "--metrics-listen", "127.0.0.1:0")
	}
	args = append(args, extra...)
	cmd := exec.Command(s.bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	return cmd
}

func (s *Server) start() error {
	p, err := startProc(s.Command(), s.LogPath)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	if err := WaitReady(s.Addr(), s.User(), s.Database(), s.opts.ReadyTimeout, p.exited); err != nil {
		p.kill()
		return err
	}
	return nil
}

// Kind returns "weir".
func (s *Server) Kind() string { return "weir" }

// Host returns 127.0.0.1.
func (s *Server) Host() string { return "127.0.0.1" }

// Port returns the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Addr returns host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.port)) }

// User returns root, the user weir accepts.
func (s *Server) User() string { return "root" }

// Database returns dev, weir's database.
func (s *Server) Database() string { return "dev" }

// ConnString returns a postgres:// URL for root on dev without TLS.
func (s *Server) ConnString() string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", s.User(), s.Addr(), s.Database())
}

// Stop sends SIGTERM and waits for the process to exit; the test fails if
// it takes more than 30 seconds.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	if err := p.stop(syscall.SIGTERM, 30*time.Second); err != nil {
		s.t.Errorf("stopping weir: %v", err)
	}
}

// Kill sends SIGKILL and waits for the process to exit.
func (s *Server) Kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// Restart stops the server with SIGTERM if it runs and starts it again on
// the same data directory and port.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("restarting weir: %v\nlog:\n%s", err, tail(s.LogPath, 4000))
	}
}

// Running reports whether the server process is up (started and not yet
// exited).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.exited()
}
