package engine

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/wire"
)

// execCtx prepares q on s and runs it to its end under ctx, with io.
func execCtx(ctx context.Context, s wire.Session, q string, io wire.ExecIO) error {
	p, err := s.Prepare(context.Background(), q, nil)
	if err != nil {
		return err
	}
	r, err := p.Execute(ctx, nil, io)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		row, err := r.Next(ctx)
		if err != nil || row == nil {
			return err
		}
	}
}

// runBlocked runs q on s under ctx in a goroutine and returns its error,
// failing the test if it has not ended after a minute: a statement a
// cancel or timeout does not reach waits for the test's lock forever.
func runBlocked(t *testing.T, ctx context.Context, s wire.Session, q string, io wire.ExecIO) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- execCtx(ctx, s, q, io) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: still running a minute after it should have stopped", q)
		return nil
	}
}

// waitingFor waits until s's statement shows wait event typ / event in
// pg_stat_activity, and reports false if it has not after a minute.
func waitingFor(s wire.Session, typ, event string) bool {
	sh := &s.(*Session).shown
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(time.Millisecond) {
		sh.mu.Lock()
		ok := sh.waitType == typ && sh.wait == event
		sh.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// holding runs f holding mu, as a long DDL holds the engine's lock, and
// unlocks it however f ends.
func holding(mu *stmtMutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}

// lockStatements are statements of every kind that wait for the
// engine's write lock (writeMu) before they change anything.
var lockStatements = []string{
	"INSERT INTO t VALUES (3, 'c')",
	"UPDATE t SET y = 'z'",
	"DELETE FROM t",
	"TRUNCATE t",
	"SELECT count(*) FROM t",
	"CREATE TABLE t2 (x int)",
	"CREATE TABLE t3 AS SELECT * FROM t",
	"CREATE VIEW v2 AS SELECT x FROM t",
	"CREATE SCHEMA s2",
	"CREATE SEQUENCE q2",
	"ALTER TABLE t ADD COLUMN z int",
	"ALTER TABLE t ADD CONSTRAINT c CHECK (x > 0)",
	"ALTER TABLE t RENAME TO t4",
	"COMMENT ON TABLE t IS 'c'",
	"GRANT SELECT ON t TO PUBLIC",
	"DROP TABLE t",
	"DROP VIEW v",
	"DROP MATERIALIZED VIEW mv",
	"CREATE INDEX ti ON t (y)",
	"CREATE MATERIALIZED VIEW mv2 AS SELECT count(*) AS n FROM t",
	"FLUSH",
	"REFRESH MATERIALIZED VIEW mv",
}

// ddlLockStatements are statements that wait for the DDL lock (ddlMu)
// before they change anything.
var ddlLockStatements = []string{
	"DROP TABLE t",
	"DROP MATERIALIZED VIEW mv",
	"ALTER TABLE t ADD COLUMN z int",
	"ALTER TABLE t RENAME TO t4",
	"ALTER TABLE t OWNER TO root",
	"CREATE INDEX ti ON t (y)",
	"CREATE MATERIALIZED VIEW mv2 AS SELECT count(*) AS n FROM t",
	"CREATE VIEW v2 AS SELECT x FROM t",
	"CREATE SEQUENCE q2",
	"ALTER SEQUENCE q RESTART WITH 5",
	"CREATE TYPE e AS ENUM ('a')",
	"CREATE DOMAIN d AS int",
	"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
	"DROP SCHEMA s CASCADE",
	"COMMENT ON TABLE t IS 'c'",
}

// lockFixture makes table t (two rows), view v, materialized view mv,
// sequence q and schema s, and returns the query that shows them all.
func lockFixture(t *testing.T, e *Engine) string {
	t.Helper()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (x int, y text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	mustRun(t, s, "CREATE VIEW v AS SELECT x FROM t")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t")
	mustRun(t, s, "CREATE SEQUENCE q")
	mustRun(t, s, "CREATE SCHEMA s")
	return "SELECT (SELECT string_agg(x || y, ',' ORDER BY x) FROM t), (SELECT n FROM mv), " +
		"(SELECT count(*) FROM pg_class WHERE relname IN ('t', 'v', 'mv', 'q')), " +
		"(SELECT count(*) FROM pg_namespace WHERE nspname = 's'), " +
		"(SELECT count(*) FROM pg_class WHERE relname IN ('t2', 't3', 't4', 'v2', 'mv2', 'q2', 'ti')), " +
		"(SELECT count(*) FROM pg_type WHERE typname IN ('e', 'd')), " +
		"(SELECT count(*) FROM pg_proc WHERE proname = 'f'), " +
		"(SELECT count(*) FROM pg_namespace WHERE nspname = 's2'), " +
		"(SELECT count(*) FROM information_schema.columns WHERE table_name = 't'), " +
		"obj_description('t'::regclass, 'pg_class') IS NULL"
}

// lockFixtureState is what lockFixture's query shows untouched.
const lockFixtureState = "1a,2b 2 4 1 0 0 0 0 2 t"

// TestLockWaitStatementTimeout: a statement waiting for the engine's
// write lock or DDL lock, which a long DDL holds (the test holds it
// here), is stopped by its own statement_timeout with 57014, as a
// PostgreSQL backend waiting for a lock is, and changes nothing.
func TestLockWaitStatementTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	state := lockFixture(t, e)
	s := session(t, e)
	mustRun(t, s, "SET statement_timeout = 20")
	for _, c := range []struct {
		mu    *stmtMutex
		stmts []string
	}{{&e.writeMu, lockStatements}, {&e.ddlMu, ddlLockStatements}} {
		holding(c.mu, func() {
			for _, q := range c.stmts {
				err := runBlocked(t, context.Background(), s, q, &testIO{copyIn: new(string)})
				if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to statement timeout" {
					t.Errorf("%s waiting for the lock: %v, want 57014 canceling statement due to statement timeout", q, err)
				}
			}
		})
	}
	mustRun(t, s, "RESET statement_timeout")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, state, lockFixtureState)
}

// TestLockWaitCancel: a cancel request (pg_cancel_backend, the
// protocol's CancelRequest, the client gone: the statement's context
// ends) stops a statement waiting for the engine's locks with 57014
// "due to user request"; pg_stat_activity shows the wait as PostgreSQL
// shows a lock wait, Lock / relation.
func TestLockWaitCancel(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	state := lockFixture(t, e)
	s := session(t, e)
	for _, c := range []struct {
		mu    *stmtMutex
		stmts []string
	}{{&e.writeMu, lockStatements}, {&e.ddlMu, ddlLockStatements}} {
		holding(c.mu, func() {
			for _, q := range c.stmts {
				ctx, cancel := context.WithCancel(context.Background())
				waited := make(chan bool, 1)
				go func() {
					waited <- waitingFor(s, "Lock", "relation")
					cancel()
				}()
				err := runBlocked(t, ctx, s, q, &testIO{copyIn: new(string)})
				cancel()
				if !<-waited {
					t.Errorf("%s: pg_stat_activity never showed it waiting for Lock / relation", q)
				}
				if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to user request" {
					t.Errorf("%s waiting for the lock: %v, want 57014 canceling statement due to user request", q, err)
				}
			}
		})
	}
	mustRun(t, s, "FLUSH")
	wantRows(t, s, state, lockFixtureState)
}

// TestLockTimeout: lock_timeout ends a wait for the engine's locks with
// PostgreSQL's 55P03 "canceling statement due to lock timeout", and a
// statement that finds the lock free is not bounded by it.
func TestLockTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	state := lockFixture(t, e)
	s := session(t, e)
	mustRun(t, s, "SET lock_timeout = 20")
	holding(&e.writeMu, func() {
		for _, q := range []string{"INSERT INTO t VALUES (3, 'c')", "TRUNCATE t", "DROP TABLE t", "CREATE TABLE t2 (x int)"} {
			err := runBlocked(t, context.Background(), s, q, &testIO{})
			if pgerr.CodeOf(err) != pgerr.LockNotAvailable || err.Error() != "canceling statement due to lock timeout" {
				t.Errorf("%s waiting for the lock: %v, want 55P03 canceling statement due to lock timeout", q, err)
			}
		}
	})
	mustRun(t, s, "FLUSH")
	wantRows(t, s, state, lockFixtureState)
	mustRun(t, s, "INSERT INTO t VALUES (3, 'c')")
	wantRows(t, s, "SELECT count(*) FROM t", "3")
}

// TestTruncateStatementTimeout: statement_timeout and a cancel stop
// TRUNCATE of a big table with 57014, every row left.
func TestTruncateStatementTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	bigTable(t, e)
	s := session(t, e)
	mustRun(t, s, "SET statement_timeout = 1")
	wantCode(t, s, "TRUNCATE big", pgerr.QueryCanceled, "canceling statement due to statement timeout")
	mustRun(t, s, "RESET statement_timeout")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := execCtx(ctx, s, "TRUNCATE big", &testIO{})
	if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to user request" {
		t.Fatalf("TRUNCATE cancelled: %v, want 57014 canceling statement due to user request", err)
	}
	wantRows(t, s, "SELECT count(*) FROM big", "100000")
}

// stallingCopyIO is an ExecIO whose COPY FROM STDIN data is first, then
// nothing: the client stops sending. Its reader, as the wire server's,
// stops when the statement's context ends, and when the context a
// statement gives WithContext ends; sent is closed once first is read.
type stallingCopyIO struct {
	testIO
	ctx   context.Context
	first string
	sent  chan struct{}
}

func (c *stallingCopyIO) CopyIn(int16, int) (io.Reader, error) {
	return &stallingReader{io: c, ctx: c.ctx, rest: c.first}, nil
}

type stallingReader struct {
	io   *stallingCopyIO
	ctx  context.Context
	rest string
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.rest != "" {
		n := copy(p, r.rest)
		r.io.first, r.rest = "", r.rest[n:]
		return n, nil
	}
	select {
	case <-r.io.sent:
	default:
		close(r.io.sent)
	}
	<-r.ctx.Done()
	if pe, ok := context.Cause(r.ctx).(*pgerr.Error); ok {
		return 0, pe
	}
	return 0, r.ctx.Err()
}

// WithContext implements wire.ContextReader.
func (r *stallingReader) WithContext(ctx context.Context) io.Reader {
	return &stallingReader{io: r.io, ctx: ctx, rest: r.rest}
}

// TestCopyFromStdinCancel: a cancel in the middle of COPY FROM STDIN,
// or statement_timeout while the client sends nothing more, stops the
// COPY with 57014, none of the rows already sent stored. The error's
// CONTEXT names the line being read, after the 1000 sent, as
// PostgreSQL's does for a COPY stopped there (tests/dialect
// TestCopyFailContext compares that numbering with PostgreSQL's).
func TestCopyFromStdinCancel(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE c (x int)")
	ctx, cancel := context.WithCancel(context.Background())
	cio := &stallingCopyIO{ctx: ctx, first: strings.Repeat("1\n", 1000), sent: make(chan struct{})}
	go func() {
		<-cio.sent
		cancel()
	}()
	err := runBlocked(t, ctx, s, "COPY c FROM STDIN", cio)
	if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to user request" {
		t.Fatalf("COPY cancelled mid-stream: %v, want 57014 canceling statement due to user request", err)
	}
	if w := pgerr.As(err).Where; w != "COPY c, line 1001" {
		t.Errorf("COPY cancelled mid-stream: CONTEXT %q, want COPY c, line 1001", w)
	}
	mustRun(t, s, "SET statement_timeout = 20")
	cio = &stallingCopyIO{ctx: context.Background(), first: strings.Repeat("1\n", 1000), sent: make(chan struct{})}
	err = runBlocked(t, context.Background(), s, "COPY c FROM STDIN", cio)
	if pgerr.CodeOf(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to statement timeout" {
		t.Fatalf("COPY of a stalled client: %v, want 57014 canceling statement due to statement timeout", err)
	}
	if w := pgerr.As(err).Where; w != "COPY c, line 1001" {
		t.Errorf("COPY of a stalled client: CONTEXT %q, want COPY c, line 1001", w)
	}
	mustRun(t, s, "RESET statement_timeout")
	mustRun(t, s, "FLUSH")
	wantRows(t, s, "SELECT count(*) FROM c", "0")
}

// TestBigTableStatementTimeout: statement_timeout stops the statements
// that read or write every row of a big table, leaving it as it was.
func TestBigTableStatementTimeout(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	bigTable(t, e)
	s := session(t, e)
	mustRun(t, s, "CREATE DOMAIN pos AS int")
	mustRun(t, s, "CREATE TABLE dt (x pos)")
	mustRun(t, s, "INSERT INTO dt SELECT g FROM generate_series(1, 100000) g")
	mustRun(t, s, "CREATE TABLE parent (x int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO parent SELECT g FROM generate_series(1, 100000) g")
	mustRun(t, s, "SET statement_timeout = 1")
	for _, q := range []string{
		"DELETE FROM big",
		"UPDATE big SET y = 'z'",
		"TRUNCATE big",
		"ALTER TABLE big ADD CONSTRAINT c CHECK (x > 0)",
		"ALTER TABLE big ALTER COLUMN y SET NOT NULL",
		"ALTER TABLE big ADD CONSTRAINT u UNIQUE (x)",
		"ALTER TABLE big ADD CONSTRAINT f FOREIGN KEY (x) REFERENCES parent (x)",
		"ALTER DOMAIN pos ADD CONSTRAINT p CHECK (VALUE > 0)",
		"CREATE INDEX bi ON big (y)",
		"CREATE UNIQUE INDEX bu ON big (x)",
		"CREATE MATERIALIZED VIEW bm AS SELECT x, count(*) FROM big GROUP BY x",
	} {
		wantCode(t, s, q, pgerr.QueryCanceled, "canceling statement due to statement timeout")
	}
	mustRun(t, s, "RESET statement_timeout")
	wantRows(t, s, "SELECT count(*), count(*) FILTER (WHERE y = 'z') FROM big", "100000 0")
	wantRows(t, s, "SELECT count(*) FROM pg_constraint WHERE conname IN ('c', 'u', 'f', 'p')", "0")
	wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname IN ('bi', 'bu', 'bm', 'u')", "0")
	wantRows(t, s, "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'big' AND column_name = 'y'", "YES")
	// A key already there may be written again: no unique index.
	mustRun(t, s, "INSERT INTO big VALUES (1, 'again'), (0, 'no parent')")
}
