package engine

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// wantNotPopulated checks that query fails as PostgreSQL's scan of an
// unpopulated materialized view does.
func wantNotPopulated(t *testing.T, err error, query, view string) {
	t.Helper()
	pe := pgerr.As(err)
	if pe == nil || pe.Code != pgerr.ObjectNotInPrerequisiteState ||
		pe.Message != `materialized view "`+view+`" has not been populated` || pe.Hint != "Use the REFRESH MATERIALIZED VIEW command." {
		t.Fatalf("%s: got %v, want 55000 for %s not populated", query, err, view)
	}
}

// TestMViewWithNoData checks CREATE MATERIALIZED VIEW ... WITH NO DATA
// and REFRESH MATERIALIZED VIEW [WITH [NO] DATA] as PostgreSQL 15 runs
// them: an unpopulated view has no job and cannot be read, REFRESH fills
// it and starts its job, and WITH NO DATA empties it again.
func TestMViewWithNoData(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS SELECT a, b FROM t WITH NO DATA")
	_, err := run(t, s, "SELECT * FROM v")
	wantNotPopulated(t, err, "SELECT * FROM v", "v")
	wantRows(t, s, "SELECT ispopulated FROM pg_matviews WHERE matviewname = 'v'", "f")
	wantRows(t, s, "SELECT relispopulated FROM pg_class WHERE relname = 'v'", "f")
	wantRows(t, s, "SELECT count(*) FROM weir.jobs WHERE name = 'v'", "0")

	// A plain view over it is created, and fails when read; a
	// materialized view over it only WITH NO DATA.
	mustRun(t, s, "CREATE VIEW pv AS SELECT * FROM v")
	_, err = run(t, s, "SELECT * FROM pv")
	wantNotPopulated(t, err, "SELECT * FROM pv", "v")
	_, err = run(t, s, "CREATE MATERIALIZED VIEW v2 AS SELECT * FROM pv")
	wantNotPopulated(t, err, "CREATE MATERIALIZED VIEW v2", "v")
	_, err = run(t, s, "CREATE TABLE c AS SELECT * FROM v")
	wantNotPopulated(t, err, "CREATE TABLE AS", "v")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v3 AS SELECT count(*) AS n FROM v WITH NO DATA")
	_, err = run(t, s, "REFRESH MATERIALIZED VIEW v3")
	wantNotPopulated(t, err, "REFRESH MATERIALIZED VIEW v3", "v")
	_, err = run(t, s, "ALTER MATERIALIZED VIEW v RESUME")
	wantNotPopulated(t, err, "RESUME of an unpopulated view", "v")
	// An index on it is built by the REFRESH.
	mustRun(t, s, "CREATE INDEX v_b ON v (b)")

	_, err = run(t, s, "REFRESH MATERIALIZED VIEW CONCURRENTLY v")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported || pe.Message != "CONCURRENTLY cannot be used when the materialized view is not populated" {
		t.Fatalf("REFRESH CONCURRENTLY of an unpopulated view: %v", err)
	}
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v")
	wantRows(t, s, "SELECT * FROM v ORDER BY a", "1 x", "2 y")
	wantRows(t, s, "SELECT * FROM pv ORDER BY a", "1 x", "2 y")
	wantRows(t, s, "SELECT ispopulated FROM pg_matviews WHERE matviewname = 'v'", "t")
	wantRows(t, s, "SELECT a FROM v WHERE b = 'y'", "2")
	wantRows(t, s, "SELECT name FROM weir.jobs WHERE name IN ('v', 'v_b') ORDER BY 1", "v", "v_b")
	// Its job follows the table from now on.
	mustRun(t, s, "INSERT INTO t VALUES (3, 'z')")
	wantRows(t, s, "SELECT * FROM v ORDER BY a", "1 x", "2 y", "3 z")
	wantRows(t, s, "SELECT a FROM v WHERE b = 'z'", "3")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v3")
	wantRows(t, s, "SELECT n FROM v3", "3")
	// A populated view's REFRESH waits for what was written before.
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v WITH DATA")

	// WITH NO DATA is refused while another job reads the view, and
	// empties it once none does.
	_, err = run(t, s, "REFRESH MATERIALIZED VIEW v WITH NO DATA")
	if pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Fatalf("REFRESH WITH NO DATA of a view another view reads: %v", err)
	}
	mustRun(t, s, "DROP MATERIALIZED VIEW v3")
	_, err = run(t, s, "REFRESH MATERIALIZED VIEW CONCURRENTLY v WITH NO DATA")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.SyntaxError || pe.Message != "CONCURRENTLY and WITH NO DATA options cannot be used together" {
		t.Fatalf("REFRESH CONCURRENTLY ... WITH NO DATA: %v", err)
	}
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v WITH NO DATA")
	_, err = run(t, s, "SELECT * FROM v")
	wantNotPopulated(t, err, "SELECT * FROM v after WITH NO DATA", "v")
	wantRows(t, s, "SELECT ispopulated FROM pg_matviews WHERE matviewname = 'v'", "f")
	wantRows(t, s, "SELECT count(*) FROM weir.jobs WHERE name IN ('v', 'v_b')", "0")
	mustRun(t, s, "INSERT INTO t VALUES (4, 'w')")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v")
	wantRows(t, s, "SELECT * FROM v ORDER BY a", "1 x", "2 y", "3 z", "4 w")
	wantRows(t, s, "SELECT a FROM v WHERE b = 'w'", "4")

	// Only the owner refreshes.
	mustRun(t, s, "CREATE ROLE r")
	mustRun(t, s, "GRANT SELECT ON v TO r")
	mustRun(t, s, "SET ROLE r")
	_, err = run(t, s, "REFRESH MATERIALIZED VIEW v WITH NO DATA")
	if pgerr.CodeOf(err) != pgerr.InsufficientPrivilege {
		t.Fatalf("REFRESH by another role: %v", err)
	}
	mustRun(t, s, "RESET ROLE")
	mustRun(t, s, "DROP MATERIALIZED VIEW v CASCADE")
}

// TestMViewWithNoDataRestart checks that an unpopulated view stays so
// across a restart, and that a refreshed one comes back with its rows
// and its job.
func TestMViewWithNoDataRestart(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, g int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW u AS SELECT g, count(*) AS n FROM t GROUP BY g WITH NO DATA")
	mustRun(t, s, "CREATE MATERIALIZED VIEW r AS SELECT g, count(*) AS n FROM t GROUP BY g WITH NO DATA")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW r")
	e.Close()

	e = openTest(t, fs)
	s = session(t, e)
	_, err := run(t, s, "SELECT * FROM u")
	wantNotPopulated(t, err, "SELECT * FROM u after a restart", "u")
	wantRows(t, s, "SELECT matviewname, ispopulated FROM pg_matviews ORDER BY 1", "r t", "u f")
	wantRows(t, s, "SELECT * FROM r ORDER BY g", "1 2", "2 1")
	mustRun(t, s, "INSERT INTO t VALUES (4, 2)")
	wantRows(t, s, "SELECT * FROM r ORDER BY g", "1 2", "2 2")
	// Its parallelism is recorded for the REFRESH to plan it with.
	mustRun(t, s, "ALTER MATERIALIZED VIEW u SET PARALLELISM = 3")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW u")
	wantRows(t, s, "SELECT parallelism FROM weir.jobs WHERE name = 'u'", "3")
	e.Close()

	e = openTest(t, fs)
	s = session(t, e)
	wantRows(t, s, "SELECT * FROM u ORDER BY g", "1 2", "2 2")
	mustRun(t, s, "DELETE FROM t WHERE g = 1")
	wantRows(t, s, "SELECT * FROM u ORDER BY g", "2 2")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW u WITH NO DATA")
	e.Close()

	e = openTest(t, fs)
	s = session(t, e)
	_, err = run(t, s, "SELECT * FROM u")
	wantNotPopulated(t, err, "SELECT * FROM u after WITH NO DATA and a restart", "u")
	e.Close()
}

// TestMViewWithNoDataThenPrimaryKey restores as pg_dump orders it: the
// table without its key, the view WITH NO DATA and an index on it, the
// rows, the table's primary key, and then REFRESH, which plans the view
// over the key the table has now.
func TestMViewWithNoDataThenPrimaryKey(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int NOT NULL, b text)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v (x, y) AS SELECT a, b FROM t WITH NO DATA")
	mustRun(t, s, "CREATE MATERIALIZED VIEW g AS SELECT b, count(*) AS n FROM t GROUP BY b WITH NO DATA")
	mustRun(t, s, "CREATE INDEX v_y ON v (y)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'p'), (2, 'q'), (3, 'p')")
	mustRun(t, s, "ALTER TABLE t ADD PRIMARY KEY (a)")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW g")
	wantRows(t, s, "SELECT * FROM v ORDER BY x", "1 p", "2 q", "3 p")
	wantRows(t, s, "SELECT x FROM v WHERE y = 'q'", "2")
	wantRows(t, s, "SELECT * FROM g ORDER BY b", "p 2", "q 1")
	mustRun(t, s, "UPDATE t SET b = 'q' WHERE a = 1")
	wantRows(t, s, "SELECT * FROM v ORDER BY x", "1 q", "2 q", "3 p")
	wantRows(t, s, "SELECT * FROM g ORDER BY b", "p 1", "q 2")
	e.Close()

	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "DELETE FROM t WHERE a = 2")
	wantRows(t, s, "SELECT * FROM v ORDER BY x", "1 q", "3 p")
	wantRows(t, s, "SELECT x FROM v WHERE y = 'q'", "1")
	wantRows(t, s, "SELECT * FROM g ORDER BY b", "p 1", "q 1")
}

// TestRefreshCancelledStaysUnpopulated checks that a REFRESH cancelled
// before its backfill is committed leaves the view unpopulated, without
// a job, and that a later REFRESH fills it.
func TestRefreshCancelledStaysUnpopulated(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t SELECT generate_series(1, 100)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t WITH NO DATA")
	p, err := s.Prepare(context.Background(), "REFRESH MATERIALIZED VIEW v", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Execute(ctx, nil, &testIO{}); pgerr.CodeOf(err) != pgerr.QueryCanceled {
		t.Fatalf("cancelled REFRESH: %v", err)
	}
	_, err = run(t, s, "SELECT * FROM v")
	wantNotPopulated(t, err, "SELECT after a cancelled REFRESH", "v")
	wantRows(t, s, "SELECT count(*) FROM weir.jobs WHERE name = 'v'", "0")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v")
	wantRows(t, s, "SELECT n FROM v", "100")
}

// TestSinkOverUnpopulatedView checks that a sink cannot read an
// unpopulated view, and that a view a sink reads cannot be emptied.
func TestSinkOverUnpopulatedView(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS SELECT a FROM t WITH NO DATA")
	_, err := run(t, s, "CREATE SINK k FROM v WITH (connector = 'blackhole', force_append_only = 'true')")
	wantNotPopulated(t, err, "CREATE SINK over an unpopulated view", "v")
	mustRun(t, s, "REFRESH MATERIALIZED VIEW v")
	mustRun(t, s, "CREATE SINK k FROM v WITH (connector = 'blackhole', force_append_only = 'true')")
	_, err = run(t, s, "REFRESH MATERIALIZED VIEW v WITH NO DATA")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported || pe.Message != `cannot refresh materialized view "v" WITH NO DATA: sink "k" reads it` {
		t.Fatalf("REFRESH WITH NO DATA of a view a sink reads: %v", err)
	}
	wantRows(t, s, "SELECT count(*) FROM v", "0")
}
