package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
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

// kill sends SIGKILL to the group and to every descendant of the
// process, and waits until all of them are gone: the leader (reaped here)
// and its children (PostgreSQL's backends, which are not ours to reap).
// The descendants are found by their parent pids, since PostgreSQL's
// children each call setsid() and so leave the postmaster's process
// group. A backend still alive holds the cluster's shared memory, and a
// restart would then refuse to start ("pre-existing shared memory block
// is still in use").
func (p *proc) kill() {
	kids := descendants(p.cmd.Process.Pid)
	p.signal(syscall.SIGKILL)
	for _, k := range kids {
		k.kill()
	}
	<-p.done
	pgid := -p.cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		left := syscall.Kill(pgid, syscall.SIGKILL) == nil
		for _, k := range kids {
			if k.running() {
				k.kill()
				left = true
			}
		}
		if !left {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// osProc is a process found in /proc: its pid and start time (in clock
// ticks since boot), which together name it even once the pid is reused.
type osProc struct {
	pid   int
	start string
}

// running reports whether the process is alive: not gone, not a zombie
// waiting to be reaped (which holds no memory any more), and not a later
// process with the same pid.
func (o osProc) running() bool {
	f, ok := statFields(o.pid)
	return ok && f[0] != "Z" && f[0] != "X" && len(f) > 19 && f[19] == o.start
}

// kill sends SIGKILL to the process if it is still the one found.
func (o osProc) kill() {
	if o.running() {
		_ = syscall.Kill(o.pid, syscall.SIGKILL)
	}
}

// descendants returns the processes descending from pid, by the parent
// pids in /proc (none where /proc cannot be read).
func descendants(pid int) []osProc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	start := map[int]string{}
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := statFields(c)
		if !ok || len(f) <= 19 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[c], start[c] = pp, f[19]
		}
	}
	var out []osProc
	seen := map[int]bool{pid: true}
	for changed := true; changed; {
		changed = false
		for c, pp := range parent {
			if seen[pp] && !seen[c] {
				seen[c], changed = true, true
				out = append(out, osProc{pid: c, start: start[c]})
			}
		}
	}
	return out
}

// statFields returns the fields of /proc/pid/stat after the command name
// (state first, then the parent pid; the start time is the 20th).
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	// The command name is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(string(b[i+1:]))
	return f, len(f) >= 2
}

// exitCode returns the exit code after exit, or -1 when killed by a signal.
func (p *proc) exitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}

// FreePort returns a TCP port on 127.0.0.1 that is free now and that no
// earlier call in this process returned.
//
// Ports come from below the kernel's ephemeral range (32768 and up on
// Linux), so a port handed out here is not also given to another
// process's listen on port 0 or to an outgoing connection, and a test that
// picks two ports (a broker and a metrics listener, say) never gets the
// same one twice: asking the kernel for port 0 twice in a row can return
// the same port once the first listener is closed.
func FreePort() (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	if portRand == nil {
		portRand = rand.New(rand.NewSource(time.Now().UnixNano() ^ int64(os.Getpid())<<20))
	}
	var last error
	for range 200 {
		port := freePortLow + portRand.Intn(freePortHigh-freePortLow)
		if portsGiven[port] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			last = err
			continue
		}
		l.Close()
		portsGiven[port] = true
		return port, nil
	}
	return 0, fmt.Errorf("no free port in [%d, %d): %v", freePortLow, freePortHigh, last)
}

// The range FreePort draws from: above the well-known and common service
// ports, below Linux's default ephemeral range.
const (
	freePortLow  = 20000
	freePortHigh = 32000
)

var (
	portMu     sync.Mutex
	portRand   *rand.Rand
	portsGiven = map[int]bool{}
)

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
