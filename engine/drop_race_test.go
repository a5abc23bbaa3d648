package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TestDropRacingCreateView runs CREATE VIEW over a materialized view in
// the window where a DROP ... CASCADE of its table has stopped the
// view's job but not yet removed it from the catalog. The new view must
// not get in there: the DROP then failed on it (2BP01) and left the
// materialized view in the catalog without a job, its rows never
// changing again, and the next CREATE MATERIALIZED VIEW over it held up
// every checkpoint until checkpoint_timeout_ms. It waits for the DROP
// (here lock_timeout ends its wait), as a DDL adding a dependent does.
func TestDropRacingCreateView(t *testing.T) {
	for _, drop := range []string{"DROP TABLE c CASCADE", "DROP MATERIALIZED VIEW m"} {
		t.Run(drop, func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			s := session(t, e)
			mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, k int, v int)")
			mustRun(t, s, "INSERT INTO c SELECT g, g % 7, g FROM generate_series(1, 300) g")
			mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS s FROM c GROUP BY k")
			other := session(t, e)
			mustRun(t, other, "SET lock_timeout = '10ms'")

			var createErr error
			ran := false
			prev := afterDropStoppedJobs
			afterDropStoppedJobs = func() {
				if !ran {
					ran = true
					_, createErr = run(t, other, "CREATE VIEW v AS SELECT * FROM m")
				}
			}
			_, dropErr := run(t, s, drop)
			afterDropStoppedJobs = prev
			if !ran {
				t.Fatal("the DROP stopped no job")
			}
			if dropErr != nil {
				t.Fatalf("%s: %v (CREATE VIEW in its window: %v)", drop, dropErr, createErr)
			}
			if pgerr.CodeOf(createErr) != pgerr.LockNotAvailable {
				t.Fatalf("CREATE VIEW while the DROP runs: got %v, want 55P03", createErr)
			}
			wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname IN ('m', 'v')", "0")
			assertViewsHaveJobs(t, e)
		})
	}
}

// TestJoblessViewInput checks what happens around a materialized view
// left without a job (as the DROP of TestDropRacingCreateView did): a
// new job reading it is refused at once (55000) instead of waiting for
// barriers its relay never sends, holding up every checkpoint and every
// write meanwhile; and REFRESH MATERIALIZED VIEW rebuilds it from its
// table's current rows, the changes it missed included.
func TestJoblessViewInput(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	// Bounds the wait of a job that never passes its barrier, so that a
	// failure of this test does not take the default ten minutes.
	mustRun(t, s, "ALTER SYSTEM SET checkpoint_timeout_ms = 3000")
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, k int, v int)")
	mustRun(t, s, "INSERT INTO c SELECT g, g % 7, g FROM generate_series(1, 300) g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS s FROM c GROUP BY k")
	rel, ok := e.cat.Lookup("public", "m")
	if !ok {
		t.Fatal("no view m")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.stopJob(ctx, rel.ID); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "INSERT INTO c SELECT g, g % 5, g FROM generate_series(301, 600) g")

	start := time.Now()
	_, err := run(t, s, "CREATE MATERIALIZED VIEW mm AS SELECT k, n FROM m WHERE n > 1")
	if pgerr.CodeOf(err) != pgerr.ObjectNotInPrerequisiteState {
		t.Fatalf("CREATE MATERIALIZED VIEW over a view without a job: got %v (after %s), want 55000", err, time.Since(start))
	}
	wantRows(t, s, "SELECT count(*) FROM pg_class WHERE relname = 'mm'", "0")

	mustRun(t, s, "REFRESH MATERIALIZED VIEW m")
	assertViewsHaveJobs(t, e)
	const query = "SELECT k, count(*), sum(v) FROM c GROUP BY k ORDER BY k"
	want := mustRun(t, s, query)
	wantRows(t, s, "SELECT k, n, s FROM m ORDER BY k", want...)
	// And it follows its table again.
	mustRun(t, s, "UPDATE c SET k = k + 1 WHERE id % 2 = 0")
	want = mustRun(t, s, query)
	wantRows(t, s, "SELECT k, n, s FROM m ORDER BY k", want...)
	mustRun(t, s, "CREATE MATERIALIZED VIEW mm AS SELECT k, n FROM m WHERE n > 1")
}

// TestDropFailingLeavesViewsFailed makes a DROP fail after it stopped the
// jobs of the views it drops: a dependent appears in the catalog
// meanwhile (no statement can add one now that CREATE VIEW waits for
// the DROP; the test adds it behind the engine's back). The views stay
// in the catalog without jobs, their rows missing every later change,
// so they must not pass for running: they are FAILED with the DROP's
// error, a query of them says so, across a restart too, and RESUME
// rebuilds them.
func TestDropFailingLeavesViewsFailed(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	defer func() { e.Close() }()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE c (id int PRIMARY KEY, k int, v int)")
	mustRun(t, s, "INSERT INTO c SELECT g, g % 7, g FROM generate_series(1, 300) g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS s FROM c GROUP BY k")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mm AS SELECT k, n FROM m WHERE n > 1")
	m, _ := e.cat.Lookup("public", "m")

	ran := false
	prev := afterDropStoppedJobs
	afterDropStoppedJobs = func() {
		if ran {
			return
		}
		ran = true
		e.writeMu.Lock()
		defer e.writeMu.Unlock()
		v := &catalog.Relation{Schema: "public", Name: "v", Kind: catalog.KindView, SQL: "SELECT k FROM m",
			Deps: []uint32{m.ID}, Cols: []catalog.Column{{Name: "k", T: types.TInt4}}}
		if err := e.cat.Create(v); err != nil {
			t.Error(err)
		}
	}
	_, err := run(t, s, "DROP TABLE c CASCADE")
	afterDropStoppedJobs = prev
	if pgerr.CodeOf(err) != pgerr.DependentObjectsStillExist {
		t.Fatalf("DROP TABLE c CASCADE with a dependent added meanwhile: got %v, want 2BP01", err)
	}
	wantRows(t, s, "SELECT name, status FROM weir.jobs ORDER BY name", "m failed", "mm failed")
	mustRun(t, s, "INSERT INTO c SELECT g, g % 5, g FROM generate_series(301, 600) g")
	wantCode(t, s, "SELECT * FROM m", pgerr.ObjectNotInPrerequisiteState, "is failed")
	// A restart does not bring them back with the rows they missed.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	s = session(t, e)
	wantRows(t, s, "SELECT name, status FROM weir.jobs ORDER BY name", "m failed", "mm failed")
	wantCode(t, s, "SELECT * FROM m", pgerr.ObjectNotInPrerequisiteState, "is failed")

	mustRun(t, s, "ALTER MATERIALIZED VIEW m RESUME")
	mustRun(t, s, "ALTER MATERIALIZED VIEW mm RESUME")
	assertViewsHaveJobs(t, e)
	wantRows(t, s, "SELECT k, n, s FROM m ORDER BY k", mustRun(t, s, "SELECT k, count(*), sum(v) FROM c GROUP BY k ORDER BY k")...)
	wantRows(t, s, "SELECT k, n FROM mm ORDER BY k", mustRun(t, s, "SELECT k, count(*) FROM c GROUP BY k HAVING count(*) > 1 ORDER BY k")...)
}

// assertViewsHaveJobs fails unless every materialized view in the
// catalog has a running job.
func assertViewsHaveJobs(t *testing.T, e *Engine) {
	t.Helper()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	for _, rel := range e.cat.All() {
		if hasJob(rel) && e.st.jobs[types.JobID(rel.ID)] == nil {
			t.Errorf("%s", fmt.Sprintf("%s %q has no job", kindWords[rel.Kind], rel.Name))
		}
	}
}
