package engine

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// detailIO is a testIO that keeps the severity, code and DETAIL of
// every notice too.
type detailIO struct {
	testIO
	sent []notice
}

func (d *detailIO) Notice(severity, code, message string) {
	d.testIO.Notice(severity, code, message)
	d.sent = append(d.sent, notice{severity: severity, code: code, message: message})
}

func (d *detailIO) NoticeDetail(severity, code, message, detail string) {
	d.testIO.Notice(severity, code, message)
	d.sent = append(d.sent, notice{severity, code, message, detail})
}

// holdCommits keeps every checkpoint from committing until the returned
// function is called: a commit takes the stream IO lock this holds.
func holdCommits(e *Engine) (release func()) {
	e.st.ioMu.Lock()
	return e.st.ioMu.Unlock
}

// waitApplied returns once a statement's writes are in an epoch that
// has not committed (the statement passed its commit point).
func waitApplied(e *Engine) {
	for {
		e.writeMu.Lock()
		st := e.st
		applied := len(st.cur.tables) > 0 || st.sealed != nil && len(st.sealed.tables) > 0
		e.writeMu.Unlock()
		if applied {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// shownWait returns the wait event s shows in pg_stat_activity.
func shownWait(s wire.Session) string {
	sh := &s.(*Session).shown
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.wait
}

// TestCancelWhileWaitingForCheckpoint: a statement whose writes are
// applied and wait for their epoch's checkpoint has passed its commit
// point, and its writes are not durable until the checkpoint commits:
// a cancel does not end the wait (a reply then would acknowledge writes
// a crash could lose); the statement completes once the checkpoint
// commits, without a WARNING, its rows committed once.
func TestCancelWhileWaitingForCheckpoint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	// The statement commits through its checkpoint (a big one would).
	e.noRedo.Store(true)
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE u (x int)")

	release := holdCommits(e)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		tag string
		err error
	}
	dio := &detailIO{}
	done := make(chan outcome, 1)
	go func() {
		p, err := s.Prepare(ctx, "INSERT INTO u SELECT g FROM generate_series(1, 1000) g", nil)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		r, err := p.Execute(ctx, nil, dio)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		defer r.Close()
		if _, err := r.Next(ctx); err != nil {
			done <- outcome{err: err}
			return
		}
		done <- outcome{tag: r.Tag()}
	}()
	waitApplied(e)
	cancel()
	select {
	case got := <-done:
		t.Fatalf("cancelled while its checkpoint is held, the statement returned %q, %v; want it to wait for the checkpoint", got.tag, got.err)
	case <-time.After(300 * time.Millisecond):
	}
	if w := shownWait(s); w != "CheckpointDone" {
		t.Fatalf("while it waits pg_stat_activity shows the wait %q, want CheckpointDone", w)
	}
	release()
	released = true
	got := <-done
	if got.err != nil || got.tag != "INSERT 0 1000" {
		t.Fatalf("cancelled while waiting for the checkpoint: %q, %v; want INSERT 0 1000 and no error once it committed", got.tag, got.err)
	}
	if len(dio.sent) != 0 {
		t.Fatalf("notices %+v, want none", dio.sent)
	}
	// Acknowledged once its checkpoint committed: the rows are there.
	wantRows(t, s, "SELECT count(*), count(DISTINCT x) FROM u", "1000 1000")
}

// TestCancelledCommitWaitTimeout: statement_timeout during the wait of
// COMMIT does not end it either; the block's writes commit and COMMIT
// completes once its checkpoint has.
func TestCancelledCommitWaitTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	// The statement commits through its checkpoint (a big one would).
	e.noRedo.Store(true)
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE u (x int)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO u VALUES (1), (2)")
	mustRun(t, s, "SET LOCAL statement_timeout = 100")
	release := holdCommits(e)
	// The checkpoint is held well past the statement_timeout.
	go func() {
		time.Sleep(500 * time.Millisecond)
		release()
	}()
	dio := &detailIO{}
	ctx := context.Background()
	p, err := s.Prepare(ctx, "COMMIT", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Execute(ctx, nil, dio)
	if err != nil {
		t.Fatalf("COMMIT past its statement_timeout while waiting: %v, want no error", err)
	}
	r.Close()
	if len(dio.sent) != 0 {
		t.Fatalf("notices %+v, want none", dio.sent)
	}
	if st := s.TxStatus(); st != 'I' {
		t.Fatalf("after COMMIT the session is in state %c, want I", st)
	}
	wantRows(t, s, "SELECT x FROM u ORDER BY x", "1", "2")
}

// TestCancelBeforeCommitPoint: a COMMIT cancelled before its writes
// are applied fails with 57014 and stores nothing.
func TestCancelBeforeCommitPoint(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE u (x int)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO u VALUES (1), (2)")
	p, err := s.Prepare(context.Background(), "COMMIT", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Execute(ctx, nil, &testIO{})
	if pgerr.CodeOf(err) != pgerr.QueryCanceled {
		t.Fatalf("COMMIT cancelled before it applied its writes: %v, want 57014", err)
	}
	if s.TxStatus() != 'I' {
		mustRun(t, s, "ROLLBACK")
	}
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT count(*) FROM u", "0")
}
