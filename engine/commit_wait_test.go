package engine

import (
	"context"
	"strings"
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
// point, so a cancel stops the wait with a WARNING and the statement
// completes (as PostgreSQL's commit waiting for synchronous
// replication); the rows commit with the checkpoint, once, and the
// session is usable at once.
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
	got := <-done
	if got.err != nil || got.tag != "INSERT 0 1000" {
		t.Fatalf("cancelled while waiting for the checkpoint: %q, %v; want INSERT 0 1000 and no error", got.tag, got.err)
	}
	if len(dio.sent) != 1 {
		t.Fatalf("notices %+v, want one WARNING", dio.sent)
	}
	w := dio.sent[0]
	if w.severity != "WARNING" || w.code != "01000" || w.message != "canceling wait for checkpoint due to user request" ||
		!strings.Contains(w.detail, "when the checkpoint of epoch ") && !strings.Contains(w.detail, "when the next checkpoint commits") ||
		!strings.Contains(w.detail, "lost if that checkpoint fails") {
		// The epoch has a number once a barrier sealed it; the cancel
		// may come before.
		t.Fatalf("notice %+v, want the WARNING canceling the wait, naming the checkpoint in its DETAIL", w)
	}
	if w := shownWait(s); w != "" {
		t.Fatalf("after the statement pg_stat_activity shows the wait %q", w)
	}
	// The session is free while the checkpoint is still held; the rows
	// are not visible before it commits, as the DETAIL says.
	wantRows(t, s, "SELECT count(*) FROM u", "0")
	release()
	released = true
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT count(*), count(DISTINCT x) FROM u", "1000 1000")
}

// TestCancelledCommitWaitTimeout: statement_timeout during the wait of
// COMMIT names itself in the WARNING, and the block's writes commit.
func TestCancelledCommitWaitTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	// The statement commits through its checkpoint (a big one would).
	e.noRedo.Store(true)
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE u (x int)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO u VALUES (1), (2)")
	mustRun(t, s, "SET LOCAL statement_timeout = 200")
	release := holdCommits(e)
	// COMMIT cannot return before its statement_timeout: the checkpoint
	// is held until then.
	dio := &detailIO{}
	ctx := context.Background()
	p, err := s.Prepare(ctx, "COMMIT", nil)
	if err != nil {
		release()
		t.Fatal(err)
	}
	r, err := p.Execute(ctx, nil, dio)
	release()
	if err != nil {
		t.Fatalf("COMMIT cancelled by statement_timeout while waiting: %v, want no error", err)
	}
	r.Close()
	if len(dio.sent) != 1 || dio.sent[0].message != "canceling wait for checkpoint due to statement timeout" {
		t.Fatalf("notices %+v, want the WARNING canceling the wait due to statement timeout", dio.sent)
	}
	if st := s.TxStatus(); st != 'I' {
		t.Fatalf("after COMMIT the session is in state %c, want I", st)
	}
	mustRun(t, s, "FLUSH")
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
