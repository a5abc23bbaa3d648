package engine

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// waitUntilWaiting returns once session s waits for a table lock.
func waitUntilWaiting(t *testing.T, e *Engine, s wire.Session, done <-chan error) {
	t.Helper()
	for {
		e.locks.mu.Lock()
		_, ok := e.locks.waiting[s.(*Session)]
		e.locks.mu.Unlock()
		if ok {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the statement finished without waiting for the lock: %v", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLockTableBlocksOthers: a block's LOCK ... IN ACCESS EXCLUSIVE
// MODE holds back every other session's reads, writes and DDL on the
// table until the block ends; they then run. NOWAIT fails at once.
func TestLockTableBlocksOthers(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, a, "CREATE TABLE other (k int)")
	mustRun(t, a, "INSERT INTO t VALUES (1, 1)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
	// The holder uses the table; other tables are free.
	mustRun(t, a, "UPDATE t SET v = 2 WHERE k = 1")
	mustRun(t, b, "INSERT INTO other VALUES (1)")
	mustRun(t, b, "BEGIN")
	_, err := run(t, b, "LOCK t IN ACCESS SHARE MODE NOWAIT")
	wantErrCode(t, err, pgerr.LockNotAvailable, "")
	mustRun(t, b, "ROLLBACK")
	for _, stmt := range []string{"INSERT INTO t VALUES (2, 2)", "SELECT v FROM t WHERE k = 1", "ALTER TABLE t ADD COLUMN w int", "TRUNCATE other, t"} {
		done := make(chan error, 1)
		go func() {
			_, err := run(t, b, stmt)
			done <- err
		}()
		// b waits until a's block ends, then runs.
		waitUntilWaiting(t, e, b, done)
		mustRun(t, a, "COMMIT")
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		mustRun(t, a, "BEGIN")
		mustRun(t, a, "LOCK TABLE t")
	}
	mustRun(t, a, "COMMIT")
	wantRows(t, b, "SELECT count(*) FROM t", "0")
	wantRows(t, b, "SELECT count(*) FROM other", "0")
}

// TestLockTableHoldsBackCommits: a block that wrote a table before
// another session locked it in a mode that keeps writers out waits at
// COMMIT until that lock is released, so its writes never land under
// the lock; SHARE lets readers in; lock_timeout ends a wait with 55P03.
func TestLockTableHoldsBackCommits(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, b, "BEGIN")
	mustRun(t, b, "INSERT INTO t VALUES (1, 1)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN SHARE MODE")
	done := make(chan error, 1)
	go func() {
		_, err := run(t, b, "COMMIT")
		done <- err
	}()
	waitUntilWaiting(t, e, b, done)
	wantRows(t, a, "SELECT count(*) FROM t", "0")
	mustRun(t, a, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantRows(t, b, "SELECT v FROM t", "1")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN SHARE MODE")
	wantRows(t, b, "SELECT v FROM t", "1")
	mustRun(t, b, "SET lock_timeout = '10ms'")
	_, err := run(t, b, "UPDATE t SET v = 2")
	wantErrCode(t, err, pgerr.LockNotAvailable, "UPDATE under SHARE")
	mustRun(t, a, "COMMIT")
	mustRun(t, b, "UPDATE t SET v = 2")
	wantRows(t, a, "SELECT v FROM t", "2")
}

// TestLockTableDeadlock: a LOCK that would close a cycle of sessions
// waiting for each other fails with 40P01; the other goes on once the
// failed block ends.
func TestLockTableDeadlock(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t1 (k int)")
	mustRun(t, a, "CREATE TABLE t2 (k int)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t1")
	mustRun(t, b, "BEGIN")
	mustRun(t, b, "LOCK t2")
	done := make(chan error, 1)
	go func() {
		_, err := run(t, a, "LOCK t2")
		done <- err
	}()
	waitUntilWaiting(t, e, a, done)
	_, err := run(t, b, "LOCK t1")
	wantErrCode(t, err, pgerr.DeadlockDetected, "")
	mustRun(t, b, "ROLLBACK")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustRun(t, a, "COMMIT")
}

// TestLockingClauseTakesRowShare: SELECT ... FOR UPDATE / FOR SHARE take
// PostgreSQL's ROW SHARE lock on the tables they lock rows of, which
// SHARE does not conflict with and EXCLUSIVE does.
func TestLockingClauseTakesRowShare(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, a, "INSERT INTO t VALUES (1, 1)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN SHARE MODE")
	// Under SHARE the locking clauses run (a conflict would wait until
	// lock_timeout and fail with 55P03); a write does not.
	mustRun(t, b, "SET lock_timeout = '30s'")
	wantRows(t, b, "SELECT v FROM t FOR UPDATE", "1")
	wantRows(t, b, "SELECT v FROM t FOR NO KEY UPDATE", "1")
	wantRows(t, b, "SELECT v FROM t FOR SHARE", "1")
	wantRows(t, b, "SELECT v FROM t FOR KEY SHARE", "1")
	mustRun(t, b, "SET lock_timeout = 0")
	mustRun(t, a, "COMMIT")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN EXCLUSIVE MODE")
	// EXCLUSIVE lets plain readers in but holds back the locking clause.
	wantRows(t, b, "SELECT v FROM t", "1")
	done := make(chan error, 1)
	go func() {
		_, err := run(t, b, "SELECT v FROM t FOR SHARE")
		done <- err
	}()
	waitUntilWaiting(t, e, b, done)
	mustRun(t, a, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRefreshTakesLocks: REFRESH MATERIALIZED VIEW takes ACCESS
// EXCLUSIVE on the view and ACCESS SHARE on the tables it reads, as
// PostgreSQL's does, so it waits behind a LOCK ... IN ACCESS EXCLUSIVE
// MODE of a table it reads (LOCK refuses materialized views).
func TestRefreshTakesLocks(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	a, b := session(t, e), session(t, e)
	mustRun(t, a, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	mustRun(t, a, "INSERT INTO t VALUES (1, 1)")
	mustRun(t, a, "CREATE MATERIALIZED VIEW m AS SELECT k, v FROM t WITH NO DATA")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN ACCESS EXCLUSIVE MODE")
	done := make(chan error, 1)
	go func() {
		_, err := run(t, b, "REFRESH MATERIALIZED VIEW m")
		done <- err
	}()
	waitUntilWaiting(t, e, b, done)
	mustRun(t, a, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustRun(t, b, "REFRESH MATERIALIZED VIEW m WITH NO DATA")
	// EXCLUSIVE on the table lets the refresh read it.
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "LOCK t IN EXCLUSIVE MODE")
	mustRun(t, b, "REFRESH MATERIALIZED VIEW m")
	mustRun(t, a, "COMMIT")
	wantRows(t, b, "SELECT v FROM m", "1")
}
