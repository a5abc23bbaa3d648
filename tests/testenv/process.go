package testenv

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Process is a child process started by StartProcess: it leads its own
// process group, its stdout and stderr are appended to LogPath, and it is
// killed (the whole group) when the test ends.
type Process struct {
	LogPath string
	p       *proc
}

// StartProcess starts cmd as a Process whose output goes to logPath. The
// log's last lines are printed when the test fails. Errors from starting
// the command fail the test.
func StartProcess(t testing.TB, cmd *exec.Cmd, logPath string) *Process {
	t.Helper()
	p, err := startProc(cmd, logPath)
	if err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("log of %s (%s), last lines:\n%s", cmd.Path, logPath, tail(logPath, 3000))
		}
	})
	return &Process{LogPath: logPath, p: p}
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.p.cmd.Process.Pid }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool { return p.p.exited() }

// Stop sends sig to the process group and waits up to timeout for the
// process to exit; after that it kills the group and returns an error
// saying the clean stop timed out.
func (p *Process) Stop(sig syscall.Signal, timeout time.Duration) error {
	return p.p.stop(sig, timeout)
}

// Kill sends SIGKILL to the process group and waits for the exit.
func (p *Process) Kill() { p.p.kill() }

// Wait waits up to timeout for the process to exit on its own and returns
// how it ended. Errors: the timeout passed (the process keeps running).
func (p *Process) Wait(timeout time.Duration) (*Exit, error) {
	return p.p.wait(timeout)
}

// Tail returns the last n bytes of the log, for failure messages.
func (p *Process) Tail(n int) string { return tail(p.LogPath, n) }

// Exit is how a process ended.
type Exit struct {
	// Code is the exit code, or -1 when a signal ended the process.
	Code int
	// Signal is the signal that ended the process, or 0.
	Signal syscall.Signal
}

// Killed reports whether SIGKILL ended the process.
func (e *Exit) Killed() bool { return e.Signal == syscall.SIGKILL }

func (e *Exit) String() string {
	if e.Signal != 0 {
		return "killed by " + e.Signal.String()
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// wait waits up to timeout for the exit and describes it.
func (p *proc) wait(timeout time.Duration) (*Exit, error) {
	if !p.exited() { // an exited process wins over a zero timeout
		select {
		case <-p.done:
		case <-time.After(timeout):
			return nil, fmt.Errorf("process %d still running after %v", p.cmd.Process.Pid, timeout)
		}
	}
	st := p.cmd.ProcessState
	e := &Exit{Code: st.ExitCode()}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Signal = ws.Signal()
	}
	return e, nil
}

// SetArgs replaces Options.Args, the extra arguments of `weir serve`, for
// the next starts (Restart, Spawn); the running process is unaffected.
func (s *Server) SetArgs(args ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Args = args
}

// SetEnv replaces Options.Env, the extra KEY=VALUE environment entries,
// for the next starts (Restart, Spawn); the running process is
// unaffected. A test arms a fault point with SetEnv("WEIR_FAULT=...") and
// disarms it with SetEnv().
func (s *Server) SetEnv(env ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Env = env
}

// Spawn starts the server process without waiting for it to accept
// connections, for a run expected to die on its own (at a fault point
// during recovery, say); follow it with WaitExit, or WaitReady to wait
// for connections. The server must not be running.
func (s *Server) Spawn() {
	s.t.Helper()
	s.mu.Lock()
	running := s.proc != nil && !s.proc.exited()
	s.mu.Unlock()
	if running {
		s.t.Fatal("Spawn: the server is running")
	}
	p, err := startProc(s.Command(), s.LogPath)
	if err != nil {
		s.t.Fatalf("starting weir: %v", err)
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
}

// WaitReady waits until the running server accepts a PostgreSQL startup
// (up to Options.ReadyTimeout). Errors: the process exited first, or the
// timeout passed.
func (s *Server) WaitReady() error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return fmt.Errorf("the server is not running")
	}
	return WaitReady(s.Addr(), s.User(), s.Database(), s.opts.ReadyTimeout, p.exited)
}

// WaitExit waits up to timeout for the server process to exit on its own
// (for example at a fault point armed with WEIR_FAULT) and returns how it
// ended; the server then counts as stopped, and Restart starts it again.
// Errors: no process was started, or it is still running after timeout.
func (s *Server) WaitExit(timeout time.Duration) (*Exit, error) {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("the server is not running")
	}
	e, err := p.wait(timeout)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.proc == p {
		s.proc = nil
	}
	s.mu.Unlock()
	return e, nil
}

// Pid returns the running server process's id (0 when it is not
// running), for tests that read its CPU time.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Tail returns the last n bytes of the server's log.
func (s *Server) Tail(n int) string { return tail(s.LogPath, n) }
