package engine

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// testIO is an ExecIO that collects notices.
type testIO struct {
	mu      sync.Mutex
	notices []string
	// copyIn is the data a COPY FROM STDIN reads (none: COPY fails).
	copyIn *string
}

func (t *testIO) Notice(severity, code, message string) {
	t.mu.Lock()
	t.notices = append(t.notices, message)
	t.mu.Unlock()
}
func (t *testIO) CopyIn(int16, int) (io.Reader, error) {
	if t.copyIn == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "no COPY in tests")
	}
	return strings.NewReader(*t.copyIn), nil
}
func (t *testIO) CopyOut(int16, int) (io.Writer, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "no COPY in tests")
}
func (t *testIO) ParameterStatus(string, string) {}

func openTest(t *testing.T, fs vfs.FS) *Engine {
	t.Helper()
	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// run executes one statement and returns its rows in text form, one
// string per row with values separated by spaces.
func run(t *testing.T, s wire.Session, text string) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := s.Prepare(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	r, err := p.Execute(ctx, nil, &testIO{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fields := p.Fields()
	var out []string
	for {
		row, err := r.Next(ctx)
		if err != nil {
			return nil, err
		}
		if row == nil {
			return out, nil
		}
		parts := make([]string, len(row))
		for i, d := range row {
			if d.Null {
				parts[i] = "NULL"
			} else {
				parts[i] = types.FormatText(d, fields[i].T, nil)
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
}

func mustRun(t *testing.T, s wire.Session, text string) []string {
	t.Helper()
	rows, err := run(t, s, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return rows
}

func wantRows(t *testing.T, s wire.Session, query string, want ...string) {
	t.Helper()
	got := mustRun(t, s, query)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s:\ngot  %q\nwant %q", query, got, want)
	}
}

func session(t *testing.T, e *Engine) wire.Session {
	t.Helper()
	s, err := e.NewSession(context.Background(), wire.StartupParams{User: "root", Database: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runNotices runs text, which must succeed, and returns the messages of
// the notices it sent.
func runNotices(t *testing.T, s wire.Session, text string) []string {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	tio := &testIO{}
	r, err := p.Execute(ctx, nil, tio)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	r.Close()
	return tio.notices
}

// TestViewFollowsDML checks read-your-writes: each DML statement returns
// once every view reflects it, and a failed statement changes nothing.
func TestViewFollowsDML(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, g text, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT g, sum(v) AS s FROM t GROUP BY g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW total AS SELECT sum(s) AS s FROM m")
	wantRows(t, s, "SELECT * FROM m ORDER BY g", "a 10", "b 20")
	mustRun(t, s, "UPDATE t SET g = 'a' WHERE id = 2")
	wantRows(t, s, "SELECT * FROM m ORDER BY g", "a 30")
	wantRows(t, s, "SELECT * FROM total", "30")
	if _, err := run(t, s, "INSERT INTO t VALUES (3, 'c', 1), (1, 'c', 1)"); pgerr.CodeOf(err) != pgerr.UniqueViolation {
		t.Fatalf("duplicate key: %v", err)
	}
	wantRows(t, s, "SELECT * FROM total", "30")
	if _, err := run(t, s, "DROP MATERIALIZED VIEW m"); pgerr.CodeOf(err) != pgerr.DependentObjectsStillExist {
		t.Fatalf("DROP of a view others read: %v", err)
	}
	mustRun(t, s, "DROP MATERIALIZED VIEW m CASCADE")
	mustRun(t, s, "DELETE FROM t")
	wantRows(t, s, "SELECT count(*) FROM t", "0")
}

// TestViewRecovers reopens the database after a crash (the in-memory
// file system is cloned with only what was synced): views come back with
// their state and keep following the tables.
func TestViewRecovers(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n, max(v) AS hi FROM t")
	for i := 1; i <= 20; i++ {
		mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i*i))
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM c", "20 400")
	mustRun(t, s, "DELETE FROM t WHERE v > 300")
	wantRows(t, s, "SELECT * FROM c", "17 289")
	mustRun(t, s, "FLUSH")
	rows := mustRun(t, s, "SELECT barrier_interval_ms FROM weir.checkpoint")
	if fmt.Sprint(rows) != "[1000]" {
		t.Fatalf("barrier_interval_ms = %v", rows)
	}
}

// TestStreamErrors checks that an expression error in one row gives NULL,
// keeps the job running and is counted in weir.stream_errors.
func TestStreamErrors(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, d int)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW q AS SELECT id, 10 / d AS x FROM t")
	mustRun(t, s, "INSERT INTO t VALUES (1, 2), (2, 0), (3, 5)")
	wantRows(t, s, "SELECT * FROM q ORDER BY id", "1 5", "2 NULL", "3 2")
	wantRows(t, s, "SELECT view, sqlstate, error_count FROM weir.stream_errors", "q 22012 1")
	mustRun(t, s, "INSERT INTO t VALUES (4, 10)")
	wantRows(t, s, "SELECT count(*) FROM q", "4")
}

// TestBackfillNotices checks that CREATE MATERIALIZED VIEW reports the
// progress of its backfill with NOTICEs (every round here, as the
// interval is zero) and returns with the view complete.
func TestBackfillNotices(t *testing.T) {
	defer func(d time.Duration) { backfillNoticeEvery = d }(backfillNoticeEvery)
	backfillNoticeEvery = 0
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t SELECT i FROM generate_series(1, 5000) i")
	notices := runNotices(t, s, "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM t")
	if len(notices) == 0 || !strings.Contains(notices[0], `materialized view "c": backfilled`) {
		t.Fatalf("notices: %q", notices)
	}
	wantRows(t, s, "SELECT n FROM c", "5000")
	// An index is built the same way, and its notices say index.
	notices = runNotices(t, s, "CREATE INDEX t_ix ON t (id)")
	if len(notices) == 0 || !strings.Contains(notices[0], `index "t_ix": backfilled`) {
		t.Fatalf("index notices: %q", notices)
	}
}

// TestStateTTLWithoutStateNotice checks that CREATE MATERIALIZED VIEW
// with a state_ttl says so when the view keeps no state a TTL applies to
// (a projection, a window function), and says nothing for an
// aggregation, which gets the TTL.
func TestStateTTLWithoutStateNotice(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, g int)")
	for _, c := range []struct {
		sql    string
		notice bool
	}{
		{"CREATE MATERIALIZED VIEW p WITH (state_ttl = '1 hour') AS SELECT id, g + 1 AS h FROM t", true},
		{"CREATE MATERIALIZED VIEW w WITH (state_ttl = '1 hour') AS SELECT id, row_number() OVER (PARTITION BY g ORDER BY id) FROM t", true},
		{"CREATE MATERIALIZED VIEW a WITH (state_ttl = '1 hour') AS SELECT g, count(*) FROM t GROUP BY g", false},
	} {
		notices := runNotices(t, s, c.sql)
		got := slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "state_ttl has no effect") })
		if got != c.notice {
			t.Errorf("%s: notices %q, want the state_ttl notice: %v", c.sql, notices, c.notice)
		}
	}
}

// TestCreateSourceWarnsUnreachableBroker checks that CREATE SOURCE over a
// broker that does not answer succeeds (a source may come before its
// broker) with a WARNING naming the address.
func TestCreateSourceWarnsUnreachableBroker(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	notices := runNotices(t, s, "CREATE SOURCE nowhere (a int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1') FORMAT PLAIN ENCODE JSON")
	if !slices.ContainsFunc(notices, func(n string) bool {
		return strings.Contains(n, "could not connect to the Kafka broker at 127.0.0.1:1")
	}) {
		t.Errorf("notices %q, want a warning about the unreachable broker", notices)
	}
	wantRows(t, s, "SELECT name FROM weir.sources", "nowhere")
}
