package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// Table locks. weir's transaction blocks are optimistic (txn.go): their
// writes take no row locks and COMMIT fails with 40001 when another
// session changed a row they wrote. LOCK TABLE adds PostgreSQL's
// table-level locks on top: a block holds the modes it asked for until it
// ends, and every statement takes, for as long as it runs, the mode
// PostgreSQL's takes on the relations it uses, waiting while another
// session holds a conflicting one:
//
//   - a query takes ACCESS SHARE on each relation it reads, ROW SHARE
//     on those its FOR UPDATE / FOR SHARE clauses lock and ROW
//     EXCLUSIVE on the one it writes (COPY FROM and COPY TO too);
//   - TRUNCATE, ALTER TABLE, DROP, RENAME and ALTER ... OWNER TO take
//     ACCESS EXCLUSIVE on their relations, CREATE INDEX SHARE on its
//     table, REFRESH MATERIALIZED VIEW ACCESS EXCLUSIVE on the view
//     (EXCLUSIVE with CONCURRENTLY) and ACCESS SHARE on what it reads;
//   - COMMIT takes ROW EXCLUSIVE on each table the block wrote, before
//     it applies the writes: a block's writes reach the tables only
//     then, so that is where they wait.
//
// So while a block holds LOCK TABLE t IN ACCESS EXCLUSIVE MODE no other
// session reads t, writes it (a block that wrote t earlier waits at its
// COMMIT) or alters it; SHARE keeps every other session's writes out but
// lets readers in, and so on down PostgreSQL's conflict table. Unlike
// PostgreSQL, a block's reads and writes hold no lock past their
// statement, so DDL does not wait for blocks that merely used the table
// (their COMMIT fails with 40001 instead when the DDL changed what they
// wrote), and LOCK does not wait for them either. The streaming jobs
// (materialized views, sinks, indexes) and connectors feeding tables
// take no locks: they see the rows committed writes make, which the
// locks hold back. A wait ends with the lock, or with lock_timeout or
// statement_timeout or a cancel; NOWAIT fails at once (55P03). A wait
// that would close a cycle of sessions waiting for each other fails at
// once with 40P01, not after deadlock_timeout. ROLLBACK TO SAVEPOINT
// keeps the locks taken since the savepoint.

// lockMode is a PostgreSQL table lock mode, numbered as its LOCKMODEs.
type lockMode uint8

const (
	lockAccessShare lockMode = iota + 1
	lockRowShare
	lockRowExclusive
	lockShareUpdateExclusive
	lockShare
	lockShareRowExclusive
	lockExclusive
	lockAccessExclusive
)

// lockModeNames are LOCK TABLE's names of the modes (sql.Lock.Mode).
var lockModeNames = map[string]lockMode{
	"access share": lockAccessShare, "row share": lockRowShare, "row exclusive": lockRowExclusive,
	"share update exclusive": lockShareUpdateExclusive, "share": lockShare,
	"share row exclusive": lockShareRowExclusive, "exclusive": lockExclusive, "access exclusive": lockAccessExclusive,
}

// lockConflicts holds, for each mode, the set of modes (bit 1<<mode) it
// conflicts with: PostgreSQL's LockConflicts table.
var lockConflicts = [...]uint16{
	lockAccessShare:          1 << lockAccessExclusive,
	lockRowShare:             1<<lockExclusive | 1<<lockAccessExclusive,
	lockRowExclusive:         1<<lockShare | 1<<lockShareRowExclusive | 1<<lockExclusive | 1<<lockAccessExclusive,
	lockShareUpdateExclusive: 1<<lockShareUpdateExclusive | 1<<lockShare | 1<<lockShareRowExclusive | 1<<lockExclusive | 1<<lockAccessExclusive,
	lockShare:                1<<lockRowExclusive | 1<<lockShareUpdateExclusive | 1<<lockShareRowExclusive | 1<<lockExclusive | 1<<lockAccessExclusive,
	lockShareRowExclusive:    1<<lockRowExclusive | 1<<lockShareUpdateExclusive | 1<<lockShare | 1<<lockShareRowExclusive | 1<<lockExclusive | 1<<lockAccessExclusive,
	lockExclusive:            1<<lockRowShare | 1<<lockRowExclusive | 1<<lockShareUpdateExclusive | 1<<lockShare | 1<<lockShareRowExclusive | 1<<lockExclusive | 1<<lockAccessExclusive,
	lockAccessExclusive:      0x1fe,
}

// String is the mode as PostgreSQL's messages name it (AccessShareLock).
func (m lockMode) String() string {
	return [...]string{"", "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
		"ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock"}[m]
}

// lockWait is what a waiting session waits for.
type lockWait struct {
	rel  *catalog.Relation
	mode lockMode
}

// heldModes are the modes (bit 1<<mode) a session holds on a relation:
// until its block ends, and until its statement ends.
type heldModes struct {
	block, stmt uint16
}

// tableLocks is the engine's table of held locks. Its zero value is
// ready to use.
type tableLocks struct {
	mu sync.Mutex
	// held maps a relation id to the sessions holding locks on it and
	// the modes each holds.
	held map[uint32]map[*Session]*heldModes
	// waiting is what each waiting session waits for.
	waiting map[*Session]lockWait
	// changed is closed, and replaced, whenever locks are released.
	changed chan struct{}
}

// blockers returns the sessions other than s holding a mode on rel that
// conflicts with mode. Called with mu held.
func (t *tableLocks) blockers(s *Session, relID uint32, mode lockMode) []*Session {
	var out []*Session
	for o, h := range t.held[relID] {
		if o != s && (h.block|h.stmt)&lockConflicts[mode] != 0 {
			out = append(out, o)
		}
	}
	return out
}

// cycle returns the chain of waits by which the sessions of from,
// following what each waits for, come back to s: s waiting would then
// be a deadlock. nil when none does. Called with mu held.
func (t *tableLocks) cycle(s *Session, from []*Session) []*Session {
	seen := map[*Session]bool{}
	var walk func(o *Session) []*Session
	walk = func(o *Session) []*Session {
		if o == s {
			return []*Session{s}
		}
		if seen[o] {
			return nil
		}
		seen[o] = true
		w, ok := t.waiting[o]
		if !ok {
			return nil
		}
		for _, b := range t.blockers(o, w.rel.ID, w.mode) {
			if c := walk(b); c != nil {
				return append([]*Session{o}, c...)
			}
		}
		return nil
	}
	for _, o := range from {
		if c := walk(o); c != nil {
			return c
		}
	}
	return nil
}

// acquire takes mode on rel for s, until its block ends (block) or its
// statement does, waiting while other sessions hold a conflicting mode:
// 55P03 at once with nowait, or when lock_timeout passes; 40P01 when the
// wait would be a deadlock; the cause of ctx's end (statement_timeout, a
// cancel) when it ends first.
func (s *Session) acquire(ctx context.Context, rel *catalog.Relation, mode lockMode, nowait, block bool) error {
	t := &s.eng.locks
	var timeout <-chan time.Time
	var done func()
	defer func() {
		if done != nil {
			done()
		}
	}()
	for {
		t.mu.Lock()
		blockers := t.blockers(s, rel.ID, mode)
		if len(blockers) == 0 {
			if t.held == nil {
				t.held = map[uint32]map[*Session]*heldModes{}
			}
			if t.held[rel.ID] == nil {
				t.held[rel.ID] = map[*Session]*heldModes{}
			}
			h := t.held[rel.ID][s]
			if h == nil {
				h = &heldModes{}
				t.held[rel.ID][s] = h
			}
			if block {
				h.block |= 1 << mode
			} else {
				h.stmt |= 1 << mode
			}
			delete(t.waiting, s)
			t.mu.Unlock()
			return nil
		}
		if nowait {
			t.mu.Unlock()
			return pgerr.New(pgerr.LockNotAvailable, "could not obtain lock on relation \"%s\"", rel.Name)
		}
		if c := t.cycle(s, blockers); c != nil {
			// c runs from a session s waits for back to s.
			line := func(o *Session, w lockWait, by *Session) string {
				return fmt.Sprintf("Process %d waits for %s on relation %d of database %d; blocked by process %d.", o.pid, w.mode, w.rel.OID, syscat.DatabaseOID, by.pid)
			}
			lines := []string{line(s, lockWait{rel: rel, mode: mode}, c[0])}
			for i := 0; i+1 < len(c); i++ {
				lines = append(lines, line(c[i], t.waiting[c[i]], c[i+1]))
			}
			t.mu.Unlock()
			s.eng.log.Warn("deadlock detected", "pid", s.pid, "detail", strings.Join(lines, " "))
			return pgerr.New(pgerr.DeadlockDetected, "deadlock detected").WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("See server log for query details.")
		}
		if t.waiting == nil {
			t.waiting = map[*Session]lockWait{}
		}
		t.waiting[s] = lockWait{rel: rel, mode: mode}
		if t.changed == nil {
			t.changed = make(chan struct{})
		}
		ch := t.changed
		t.mu.Unlock()
		if done == nil {
			// The first wait: lock_timeout counts from here.
			done = s.ReportWait("Lock", "relation")
			if d := s.lockTimeout(); d > 0 {
				tm := time.NewTimer(d)
				defer tm.Stop()
				timeout = tm.C
			}
		}
		var err error
		select {
		case <-ch:
			continue
		case <-timeout:
			err = errLockTimeout
		case <-ctx.Done():
			err = ctxError(ctx)
		}
		t.mu.Lock()
		delete(t.waiting, s)
		t.mu.Unlock()
		return err
	}
}

// releaseLocks releases every lock s holds.
func (s *Session) releaseLocks() { s.release(true, true) }

// releaseBlockLocks releases the locks s holds until its block ends.
func (s *Session) releaseBlockLocks() { s.release(true, false) }

// endStatementLocks releases the locks s took for its statement.
func (s *Session) endStatementLocks() { s.release(false, true) }

// release releases the locks s holds until its block ends (block) and
// those it took for its statement (stmt).
func (s *Session) release(block, stmt bool) {
	t := &s.eng.locks
	t.mu.Lock()
	defer t.mu.Unlock()
	released := false
	for id, holders := range t.held {
		h, ok := holders[s]
		if !ok {
			continue
		}
		if block && h.block != 0 {
			h.block, released = 0, true
		}
		if stmt && h.stmt != 0 {
			h.stmt, released = 0, true
		}
		if h.block == 0 && h.stmt == 0 {
			delete(holders, s)
		}
		if len(holders) == 0 {
			delete(t.held, id)
		}
	}
	if released && t.changed != nil {
		close(t.changed)
		t.changed = nil
	}
}

// lockAccesses takes the locks a query's accesses call for: ROW
// EXCLUSIVE on what it writes, ROW SHARE on what its locking clauses
// (FOR UPDATE, FOR SHARE ...) lock, ACCESS SHARE on what it reads. The
// engine's own bindings take none.
func (s *Session) lockAccesses(ctx context.Context, acc []planner.Access) error {
	if s.internal {
		return nil
	}
	for _, a := range acc {
		if a.Rel == nil {
			continue
		}
		mode := lockAccessShare
		switch {
		case a.RowLock:
			mode = lockRowShare
		case a.Priv&(catalog.PrivInsert|catalog.PrivUpdate|catalog.PrivDelete) != 0:
			mode = lockRowExclusive
		}
		if err := s.acquire(ctx, a.Rel, mode, false, false); err != nil {
			return err
		}
	}
	return nil
}

// utilityLocks returns the relations a utility statement changes and
// the mode it takes on them: ACCESS EXCLUSIVE for TRUNCATE, ALTER TABLE,
// DROP, RENAME, OWNER TO and REFRESH (EXCLUSIVE for REFRESH ...
// CONCURRENTLY), SHARE for CREATE INDEX's table.
func (s *Session) utilityLocks(stmt sql.Stmt) ([]sql.ObjectName, lockMode) {
	switch st := stmt.(type) {
	case *sql.Truncate:
		return st.Names, lockAccessExclusive
	case *sql.AlterTable:
		return []sql.ObjectName{st.Name}, lockAccessExclusive
	case *sql.Drop:
		if _, ok := dropKinds[st.Kind]; ok {
			return st.Names, lockAccessExclusive
		}
	case *sql.Rename:
		return []sql.ObjectName{st.Name}, lockAccessExclusive
	case *sql.AlterOwner:
		if st.Kind != "schema" && st.Kind != "function" {
			return []sql.ObjectName{st.Name}, lockAccessExclusive
		}
	case *sql.CreateIndex:
		return []sql.ObjectName{st.Rel}, lockShare
	case *sql.Refresh:
		if st.Concurrently {
			return []sql.ObjectName{st.Name}, lockExclusive
		}
		return []sql.ObjectName{st.Name}, lockAccessExclusive
	}
	return nil, 0
}

// lockUtility takes the locks of utilityLocks on the relations that
// exist (a missing one is left to the statement to report).
func (s *Session) lockUtility(ctx context.Context, stmt sql.Stmt) error {
	names, mode := s.utilityLocks(stmt)
	for _, n := range names {
		if rel, ok := s.eng.cat.Lookup(s.schemaOf(n), n.Name); ok {
			if err := s.acquire(ctx, rel, mode, false, false); err != nil {
				return err
			}
			if _, refresh := stmt.(*sql.Refresh); refresh && rel.Kind == catalog.KindMView {
				// REFRESH runs the view's query, which reads its inputs.
				if err := s.lockInputs(ctx, rel, map[uint32]bool{rel.ID: true}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// lockInputs takes ACCESS SHARE, for the statement, on the tables and
// views rel's definition reads, and on what those views read.
func (s *Session) lockInputs(ctx context.Context, rel *catalog.Relation, seen map[uint32]bool) error {
	for _, id := range rel.Deps {
		d, ok := s.eng.cat.ByID(id)
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		switch d.Kind {
		case catalog.KindTable, catalog.KindMView:
		case catalog.KindView:
			if err := s.lockInputs(ctx, d, seen); err != nil {
				return err
			}
		default:
			continue
		}
		if err := s.acquire(ctx, d, lockAccessShare, false, false); err != nil {
			return err
		}
	}
	return nil
}

// lockTable runs LOCK TABLE. Outside a transaction block it is
// PostgreSQL's 25P01. Inside one each relation must exist (42P01) and be
// a table or view (42809), the role must hold SELECT on it for ACCESS
// SHARE, INSERT, UPDATE, DELETE or TRUNCATE for ROW EXCLUSIVE, and
// UPDATE, DELETE or TRUNCATE for the other modes (42501); then the mode
// is taken on it, and on the relations a view reads, and held until the
// block ends.
func (s *Session) lockTable(ctx context.Context, st *sql.Lock) (wire.Result, error) {
	if s.txn != 'T' && !s.implicit || s.pipeline {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	mode, ok := lockModeNames[st.Mode]
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "unknown lock mode %q", st.Mode)
	}
	need := catalog.PrivUpdate | catalog.PrivDelete | catalog.PrivTruncate
	switch mode {
	case lockAccessShare:
		need = catalog.PrivSelect
	case lockRowExclusive:
		need |= catalog.PrivInsert
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	for _, n := range st.Names {
		if err := s.systemCatalogError(n); err != nil {
			return nil, err
		}
		rel, ok := s.eng.cat.Lookup(s.schemaOf(n), n.Name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", n.Name)
		}
		if rel.Kind != catalog.KindTable && rel.Kind != catalog.KindView {
			kinds := kindWords[rel.Kind] + "s"
			if rel.Kind == catalog.KindIndex {
				kinds = "indexes"
			}
			return nil, pgerr.New(pgerr.WrongObjectType, "cannot lock relation \"%s\"", rel.Name).
				WithDetail("This operation is not supported for %s.", kinds)
		}
		if !s.holdsAny(rel, need) {
			return nil, denied(rel)
		}
		if err := s.lockRelation(ctx, rel, mode, st.NoWait, map[uint32]bool{}); err != nil {
			return nil, err
		}
	}
	return done("LOCK TABLE")
}

// lockRelation takes mode on rel and, for a view, on the relations its
// definition reads, as PostgreSQL's LOCK does.
func (s *Session) lockRelation(ctx context.Context, rel *catalog.Relation, mode lockMode, nowait bool, seen map[uint32]bool) error {
	if seen[rel.ID] {
		return nil
	}
	seen[rel.ID] = true
	if err := s.acquire(ctx, rel, mode, nowait, true); err != nil {
		return err
	}
	if rel.Kind != catalog.KindView {
		return nil
	}
	for _, id := range rel.Deps {
		if d, ok := s.eng.cat.ByID(id); ok && (d.Kind == catalog.KindTable || d.Kind == catalog.KindView) {
			if err := s.lockRelation(ctx, d, mode, nowait, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsAny reports whether the session's role holds any of the
// privileges of p on rel.
func (s *Session) holdsAny(rel *catalog.Relation, p catalog.Privilege) bool {
	for bit := catalog.Privilege(1); bit != 0 && bit <= p; bit <<= 1 {
		if p&bit != 0 && s.hasPrivilege(rel, bit) {
			return true
		}
	}
	return false
}

// lockCommit takes, for a block's COMMIT, ROW EXCLUSIVE on each table it
// wrote, waiting for the sessions whose LOCK keeps writers out; they go
// with the block's own locks as it ends.
func (s *Session) lockCommit(ctx context.Context, rels map[string]*catalog.Relation) error {
	seen := map[uint32]bool{}
	for _, rel := range rels {
		if seen[rel.ID] {
			continue
		}
		seen[rel.ID] = true
		if err := s.acquire(ctx, rel, lockRowExclusive, false, true); err != nil {
			return err
		}
	}
	return nil
}
