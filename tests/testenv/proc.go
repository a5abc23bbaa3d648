package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// proc is one started server process. The process leads its own process
// group so that signals reach the children it forks (PostgreSQL's
// backends) and nothing else.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, valid after done
}

// startProc starts cmd in a new process group with stdout and stderr
// appended to logPath.
func startProc(cmd *exec.Cmd, logPath string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stdout = logf
	cmd.Stderr = logf
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group led by the process.
func (p *proc) signal(sig syscall.Signal) {
	if p.exited() {
		return
	}
	// The negative pid addresses the process group this process leads.
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil {
		p.cmd.Process.Signal(sig)
	}
}

// stop sends sig and waits up to timeout for the exit; it then kills the
// group with SIGKILL and reports that the clean stop timed out.
func (p *proc) stop(sig syscall.Signal, timeout time.Duration) error {
	p.signal(sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
	}
	p.kill()
	return fmt.Errorf("process %d did not exit within %v of %v; killed", p.cmd.Process.Pid, timeout, sig)
}

// kill sends SIGKILL to the group and waits until every process of the
// group is gone: the leader (reaped here) and its children (PostgreSQL's
// backends, which are not ours to reap). A backend still dying holds the
// cluster's shared memory, and a restart would then refuse to start.
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
	pgid := -p.cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pgid, syscall.SIGKILL) == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// exitCode returns the exit code after exit, or -1 when killed by a signal.
func (p *proc) exitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// WaitReady polls addr until a PostgreSQL startup as user on database
// succeeds (the server answers ReadyForQuery), the process exits, or the
// timeout passes. A server that is still starting answers with an error
// (SQLSTATE 57P03) or refuses the connection; both are retried.
func WaitReady(addr, user, database string, timeout time.Duration, exited func() bool) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if exited != nil && exited() {
			return fmt.Errorf("server exited before accepting connections (last probe: %v)", last)
		}
		last = probe(addr, user, database)
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server at %s not ready after %v: %v", addr, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// probe performs one protocol-level startup and terminates the session.
func probe(addr, user, database string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": user, "database": database},
	})
	if err := fe.Flush(); err != nil {
		return err
	}
	for {
		m, err := fe.Receive()
		if err != nil {
			return err
		}
		switch m := m.(type) {
		case *pgproto3.ReadyForQuery:
			fe.Send(&pgproto3.Terminate{})
			fe.Flush()
			return nil
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("startup failed: %s (SQLSTATE %s)", m.Message, m.Code)
		case *pgproto3.AuthenticationCleartextPassword, *pgproto3.AuthenticationMD5Password, *pgproto3.AuthenticationSASL:
			return errors.New("server asks for a password; tests expect trust authentication")
		}
	}
}

// tail returns the last n bytes of the file at path, for failure reports.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}
