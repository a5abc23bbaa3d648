package engine

import (
	"context"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// stmtMutex is the engine's ddlMu and writeMu: a mutex a statement can
// wait for with its context, as a PostgreSQL backend waits for a lock
// (ProcSleep) until the lock is granted, a cancel or statement_timeout
// ends the statement, or lock_timeout ends the wait. Lock, Unlock and
// TryLock are sync.Mutex's, for the engine's own work; waiters are
// served in the order they came. Its zero value is an unlocked mutex.
type stmtMutex struct {
	once sync.Once
	ch   chan struct{} // holds a token while the mutex is locked
}

func (m *stmtMutex) tokens() chan struct{} {
	m.once.Do(func() { m.ch = make(chan struct{}, 1) })
	return m.ch
}

// Lock locks m, waiting as long as it takes.
func (m *stmtMutex) Lock() { m.tokens() <- struct{}{} }

// Unlock unlocks m; it must be locked.
func (m *stmtMutex) Unlock() {
	select {
	case <-m.tokens():
	default:
		panic("engine: unlock of an unlocked stmtMutex")
	}
}

// TryLock locks m if it is free and reports whether it did.
func (m *stmtMutex) TryLock() bool {
	select {
	case m.tokens() <- struct{}{}:
		return true
	default:
		return false
	}
}

// lockContext locks m, or returns ctx's end as the statement's error
// (57014) if ctx ends first. A statement's context (withTimeout) also
// bounds the wait by the session's lock_timeout (55P03 "canceling
// statement due to lock timeout", as PostgreSQL's) and shows it in
// pg_stat_activity as wait event Lock / relation while it lasts.
func (m *stmtMutex) lockContext(ctx context.Context) error {
	if m.TryLock() {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return ctxError(ctx)
	}
	if s, ok := ctx.Value(stmtSessionKey{}).(*Session); ok {
		defer s.ReportWait("Lock", "relation")()
		if d := s.lockTimeout(); d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, d, errLockTimeout)
			defer cancel()
		}
	}
	select {
	case m.tokens() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctxError(ctx)
	}
}

// errLockTimeout is PostgreSQL's error when lock_timeout ends a wait.
var errLockTimeout = pgerr.New(pgerr.LockNotAvailable, "canceling statement due to lock timeout")

// stmtSessionKey is the context key of the session whose statement a
// context belongs to (withTimeout sets it).
type stmtSessionKey struct{}

// lockTimeout returns the session's lock_timeout (0: none).
func (s *Session) lockTimeout() time.Duration {
	st, _ := lookupSetting("lock_timeout")
	d, _ := parseDurationSetting(s.get(st))
	return d
}

// pastCancel returns ctx without its cancel and deadline, for the part
// of a statement past the point where stopping it would leave things
// half done (a job stopping, writes applied): a cancel or
// statement_timeout no longer ends it, the engine stopping its
// checkpoints still does.
func (e *Engine) pastCancel(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if e.st == nil || e.st.running == nil {
		return c, cancel
	}
	stop := context.AfterFunc(e.st.running, cancel)
	return c, func() { stop(); cancel() }
}
