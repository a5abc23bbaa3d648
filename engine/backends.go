package engine

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// This file is the sessions as PostgreSQL's backends: what
// pg_stat_activity shows of each, and the functions that signal one
// from another (pg_cancel_backend, pg_terminate_backend). A session's pid
// is the one the wire server sent its client in BackendKeyData, and the
// signals go through the wire server's handle on the connection
// (wire.Backend), the path a CancelRequest and a shutdown take.

// shownActivity is what pg_stat_activity shows of a session. The
// session's own goroutine writes it; any session reads it, under mu.
type shownActivity struct {
	mu    sync.Mutex
	state string // active, idle, idle in transaction, idle in transaction (aborted)
	query string
	app   string
	// queryStart, changed and xactStart are query_start, state_change
	// and xact_start (zero: NULL).
	queryStart, changed, xactStart time.Time
	// waitType and wait are what the running statement waits for
	// (empty: nothing).
	waitType, wait string
}

// maxShownQuery is the longest query text pg_stat_activity shows, in
// bytes: PostgreSQL's track_activity_query_size (1024) less its
// terminating NUL.
const maxShownQuery = 1023

// clipQuery cuts q to maxShownQuery bytes at a character boundary.
func clipQuery(q string) string {
	if len(q) <= maxShownQuery {
		return q
	}
	i := maxShownQuery
	for i > 0 && !utf8.RuneStart(q[i]) {
		i--
	}
	return q[:i]
}

// showActive records that the session runs a statement of the query
// string text.
func (s *Session) showActive(text string) {
	now := time.Now()
	app := s.get(settingsByName["application_name"])
	s.followDefaultZone()
	sh := &s.shown
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.state, sh.query, sh.app = "active", clipQuery(text), app
	sh.queryStart, sh.changed = now, now
	sh.xactStart = now
	if s.txn != 'I' && s.txnStart != 0 {
		sh.xactStart = time.UnixMicro(s.txnStart)
	}
}

// showIdle records that the session waits for its client, in the
// transaction state s.txn.
func (s *Session) showIdle() {
	state := "idle"
	switch s.txn {
	case 'T':
		state = "idle in transaction"
	case 'E':
		state = "idle in transaction (aborted)"
	}
	app := s.get(settingsByName["application_name"])
	sh := &s.shown
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.state != state {
		sh.state, sh.changed = state, time.Now()
	}
	sh.app = app
	switch {
	case s.txn == 'I':
		sh.xactStart = time.Time{}
	case s.txnStart != 0:
		sh.xactStart = time.UnixMicro(s.txnStart)
	}
}

// backendRow is the session as a row of pg_stat_activity and
// pg_stat_ssl (Visible unset).
func (s *Session) backendRow() syscat.Backend {
	b := syscat.Backend{PID: int32(s.pid), RoleOID: s.roleOID, Database: s.database, Started: s.started, ClientPort: -1}
	// Over a Unix socket client_addr is NULL and client_port -1.
	if a, ok := s.remote.(*net.TCPAddr); ok {
		b.ClientAddr, b.ClientPort = a.IP.String(), a.Port
	}
	if s.tls != nil {
		b.SSL, b.SSLVersion, b.SSLCipher, b.SSLBits = true, s.tls.Version, s.tls.Cipher, s.tls.Bits
	}
	sh := &s.shown
	sh.mu.Lock()
	defer sh.mu.Unlock()
	b.AppName, b.State, b.Query = sh.app, sh.state, sh.query
	b.XactStart, b.QueryStart, b.StateChange = sh.xactStart, sh.queryStart, sh.changed
	b.WaitEventType, b.WaitEvent = sh.waitType, sh.wait
	if sh.state != "active" {
		// An idle session waits for its client.
		b.WaitEventType, b.WaitEvent = "Client", "ClientRead"
	}
	return b
}

var _ functions.WaitReporter = (*Session)(nil)

// ReportWait implements functions.WaitReporter.
func (s *Session) ReportWait(typ, event string) func() {
	sh := &s.shown
	sh.mu.Lock()
	sh.waitType, sh.wait = typ, event
	sh.mu.Unlock()
	return func() {
		sh.mu.Lock()
		sh.waitType, sh.wait = "", ""
		sh.mu.Unlock()
	}
}

// Backends implements syscat.Provider: every client session, each
// Visible when the asking session has the privileges of its role.
func (c sessionCatalog) Backends() []syscat.Backend {
	var out []syscat.Backend
	c.e.sessions.Range(func(_, v any) bool {
		t := v.(*Session)
		b := t.backendRow()
		b.Visible = c.s.hasPrivsOfRole(t.roleOID)
		out = append(out, b)
		return true
	})
	return out
}

// hasPrivsOfRole is PostgreSQL's has_privs_of_role for the session's
// role: a superuser has every role's privileges, another role those of
// itself and of the roles it inherits from.
func (s *Session) hasPrivsOfRole(oid uint32) bool {
	r := s.role()
	if r.Superuser || r.OID == oid {
		return true
	}
	for _, o := range s.eng.effectiveRoles(r) {
		if o == oid {
			return true
		}
	}
	return false
}

var _ functions.BackendController = (*Session)(nil)

// BackendPID implements functions.BackendController.
func (s *Session) BackendPID() int32 { return int32(s.pid) }

// SignalBackend implements functions.BackendController with
// PostgreSQL's pg_signal_backend rules: only a superuser signals a
// superuser's session; otherwise the caller must have the privileges of
// the session's role. weir has no predefined roles, so membership in
// pg_signal_backend, which PostgreSQL's messages mention, cannot be
// granted.
func (s *Session) SignalBackend(ctx context.Context, pid int32, terminate bool, timeout time.Duration) (bool, error) {
	var t *Session
	if pid > 0 {
		if v, ok := s.eng.sessions.Load(uint32(pid)); ok {
			t = v.(*Session)
		}
	}
	if t == nil || t.backend == nil {
		// A warning, not an error, so a loop over pg_stat_activity goes
		// on when a session ended meanwhile.
		s.notice("WARNING", "01000", fmt.Sprintf("PID %d is not a PostgreSQL backend process", pid))
		return false, nil
	}
	if tr := t.role(); tr.Superuser && !s.superuser() {
		if terminate {
			return false, pgerr.New(pgerr.InsufficientPrivilege, "must be a superuser to terminate superuser process")
		}
		return false, pgerr.New(pgerr.InsufficientPrivilege, "must be a superuser to cancel superuser query")
	}
	if !s.hasPrivsOfRole(t.roleOID) {
		if terminate {
			return false, pgerr.New(pgerr.InsufficientPrivilege, "must be a member of the role whose process is being terminated or member of pg_signal_backend")
		}
		return false, pgerr.New(pgerr.InsufficientPrivilege, "must be a member of the role whose query is being canceled or member of pg_signal_backend")
	}
	if !terminate {
		s.eng.log.Info("pg_cancel_backend", "pid", pid, "by", s.pid)
		t.backend.Cancel()
		return true, nil
	}
	s.eng.log.Info("pg_terminate_backend", "pid", pid, "by", s.pid)
	t.backend.Terminate()
	if timeout <= 0 {
		return true, nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	select {
	case <-t.closed:
		return true, nil
	case <-done:
		return false, ctxError(ctx)
	case <-timer.C:
		ms := timeout.Milliseconds()
		unit := "milliseconds"
		if ms == 1 {
			unit = "millisecond"
		}
		s.notice("WARNING", "01000", fmt.Sprintf("backend with PID %d did not terminate within %d %s", pid, ms, unit))
		return false, nil
	}
}

// ReloadConf implements functions.BackendController: pg_reload_conf()
// makes the values ALTER SYSTEM kept the defaults of every session
// (autoconf.go). As PostgreSQL grants its EXECUTE to no one but
// superusers, another role gets 42501.
func (s *Session) ReloadConf() (bool, error) {
	if !s.superuser() {
		return false, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function pg_reload_conf")
	}
	if err := s.eng.loadConf(); err != nil {
		return false, err
	}
	return true, nil
}

// notice is one notice a statement's functions raised; detail is its
// DETAIL field (empty: none).
type notice struct{ severity, code, message, detail string }

// notice queues a notice for the client; the statement sends it
// (sendNotices) before its next row or its end.
func (s *Session) notice(severity, code, message string) {
	s.notices = append(s.notices, notice{severity: severity, code: code, message: message})
}

// sendNotices sends the queued notices through io.
func (s *Session) sendNotices(io wire.ExecIO) {
	if len(s.notices) == 0 {
		return
	}
	if io != nil {
		for _, n := range s.notices {
			if nd, ok := io.(noticeDetailer); ok && n.detail != "" {
				nd.NoticeDetail(n.severity, n.code, n.message, n.detail)
				continue
			}
			io.Notice(n.severity, n.code, n.message)
		}
	}
	s.notices = s.notices[:0]
}
