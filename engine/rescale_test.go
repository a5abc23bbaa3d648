package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
)

// TestRescaleAtStart opens a database with Config.StreamingParallelism
// (weir serve --streaming-parallelism): every view takes the new count,
// keeps its rows, and stays equal to its query as writes go on; a reopen
// without it keeps the count recorded.
func TestRescaleAtStart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int, v int)")
	mustRun(t, s, "INSERT INTO t SELECT i, i % 7, i * 3 FROM generate_series(1, 300) AS i")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg WITH (streaming_parallelism = 3) AS SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW j WITH (streaming_parallelism = 1) AS SELECT a.k, b.k AS k2 FROM t a JOIN t b ON a.v = b.k")
	wantRows(t, s, "SELECT name, parallelism FROM weir.jobs ORDER BY name", "agg 3", "j 1")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}, StreamingParallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	s = session(t, e)
	wantRows(t, s, "SELECT name, parallelism FROM weir.jobs ORDER BY name", "agg 2", "j 2")
	mustRun(t, s, "INSERT INTO t SELECT i, i % 5, i * 2 FROM generate_series(301, 400) AS i")
	mustRun(t, s, "DELETE FROM t WHERE k % 11 = 0")
	wantRows(t, s, "SELECT count(*) FROM (SELECT * FROM agg EXCEPT SELECT g, count(*), sum(v) FROM t GROUP BY g) x", "0")
	wantRows(t, s, "SELECT (SELECT sum(n) FROM agg) = (SELECT count(*) FROM t)", "t")
	wantRows(t, s, "SELECT count(*) FROM (SELECT * FROM j EXCEPT SELECT a.k, b.k FROM t a JOIN t b ON a.v = b.k) x", "0")
	wantRows(t, s, "SELECT (SELECT count(*) FROM j) = (SELECT count(*) FROM t a JOIN t b ON a.v = b.k)", "t")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT name, parallelism FROM weir.jobs ORDER BY name", "agg 2", "j 2")
	wantRows(t, s, "SELECT (SELECT sum(n) FROM agg) = (SELECT count(*) FROM t)", "t")
}

// TestNotCommittedKeepsRetryCode: a statement whose epoch a rescale
// discarded fails with 40001, which clients retry, not with 58030; other
// causes stay 58030.
func TestNotCommittedKeepsRetryCode(t *testing.T) {
	rescale := pgerr.New(pgerr.SerializationFailure, "materialized view v is being rescaled to 3 actors")
	if got := pgerr.CodeOf(errNotCommitted(rescale)); got != pgerr.SerializationFailure {
		t.Errorf("not committed because of a rescale: %s, want 40001", got)
	}
	if got := pgerr.CodeOf(errNotCommitted(errors.New("disk on fire"))); got != pgerr.IOError {
		t.Errorf("not committed because of an I/O failure: %s, want 58030", got)
	}
}

// TestRescaleSharedSubplan rescales a view whose join reads one
// aggregation on both sides (a shared subplan, whose fragment and its
// consumers' pair their actors): from 3 actors to 2 at start, it keeps
// its rows and stays equal to its query as writes go on.
func TestRescaleSharedSubplan(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	const q = "SELECT a.g, a.n, b.g AS h FROM (SELECT g, count(*) AS n FROM t GROUP BY g) a JOIN (SELECT g, count(*) AS n FROM t GROUP BY g) b ON a.n = b.n"
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int)")
	mustRun(t, s, "INSERT INTO t SELECT i, i % 13 FROM generate_series(1, 300) AS i")
	mustRun(t, s, "CREATE MATERIALIZED VIEW sh WITH (streaming_parallelism = 3) AS "+q)
	if plan := mustRun(t, s, "EXPLAIN MATERIALIZED VIEW sh"); !slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "StreamShare") }) {
		t.Fatalf("the view shares nothing: the test shows nothing\n%s", strings.Join(plan, "\n"))
	}
	same := func() {
		t.Helper()
		wantRows(t, s, "SELECT count(*) > 0 FROM sh", "t")
		wantRows(t, s, "SELECT count(*) FROM (SELECT * FROM sh EXCEPT ALL ("+q+")) x", "0")
		wantRows(t, s, "SELECT count(*) FROM (("+q+") EXCEPT ALL SELECT * FROM sh) x", "0")
	}
	same()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e, err := Open(Config{DataDir: "data", Storage: storage.Options{FS: fs}, StreamingParallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s = session(t, e)
	wantRows(t, s, "SELECT name, parallelism FROM weir.jobs ORDER BY name", "sh 2")
	same()
	mustRun(t, s, "INSERT INTO t SELECT i, i % 5 FROM generate_series(301, 400) AS i")
	mustRun(t, s, "DELETE FROM t WHERE k % 11 = 0")
	same()
}

// TestRescaleIsNoJobsError: a rescale restarts the jobs from the last
// checkpoint, but no job failed, so none shows it as its last_error.
func TestRescaleIsNoJobsError(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int)")
	mustRun(t, s, "INSERT INTO t SELECT i, i % 7 FROM generate_series(1, 100) AS i")
	mustRun(t, s, "CREATE MATERIALIZED VIEW agg AS SELECT g, count(*) AS n FROM t GROUP BY g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW other AS SELECT count(*) AS n FROM t")
	mustRun(t, s, "ALTER MATERIALIZED VIEW agg SET PARALLELISM = 3")
	wantRows(t, s, "SELECT name, parallelism, last_error IS NULL FROM weir.jobs ORDER BY name", "agg 3 t", "other 2 t")
	mustRun(t, s, "INSERT INTO t VALUES (101, 1)")
	wantRows(t, s, "SELECT sum(n) FROM agg", "101")
}
