package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestProcTime: proctime() in a view's select list is the time of the
// checkpoint epoch a row is processed in (the barrier that opened it),
// read from no clock: the rows of one statement, processed in one
// epoch, share it; a later statement's rows are never earlier; none is
// after the statement returned. Anywhere else in a view it is 0A000; a
// plain query reads the clock.
func TestProcTime(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "SET streaming_parallelism = 1")
	mustRun(t, s, "CREATE TABLE ev (id int) APPEND ONLY")
	mustRun(t, s, "CREATE MATERIALIZED VIEW p AS SELECT id, proctime() AS at FROM ev")
	mustRun(t, s, "INSERT INTO ev SELECT g FROM generate_series(1, 3000) g")
	mustRun(t, s, "CREATE TABLE marks (n int, at timestamptz)")
	mustRun(t, s, "INSERT INTO marks VALUES (1, clock_timestamp())")
	mustRun(t, s, "INSERT INTO ev SELECT g FROM generate_series(3001, 3010) g")
	mustRun(t, s, "INSERT INTO marks VALUES (2, clock_timestamp())")
	wantRows(t, s, `SELECT count(DISTINCT at) FILTER (WHERE id <= 3000), count(DISTINCT at) FILTER (WHERE id > 3000),
		max(at) FILTER (WHERE id <= 3000) <= min(at) FILTER (WHERE id > 3000),
		max(at) FILTER (WHERE id <= 3000) <= (SELECT at FROM marks WHERE n = 1),
		max(at) <= (SELECT at FROM marks WHERE n = 2) FROM p`, "1 1 t t t")
	wantCode(t, s, "CREATE MATERIALIZED VIEW bad AS SELECT id FROM ev WHERE proctime() > '2000-01-01'", pgerr.FeatureNotSupported, "only in a select list")
	wantCode(t, s, "CREATE MATERIALIZED VIEW bad AS SELECT count(*) FROM ev GROUP BY date_bin('1 second', proctime(), '2000-01-01')", pgerr.FeatureNotSupported, "only in a select list")
	// A table with updates and deletes: a retraction would carry
	// another time than the row it retracts.
	mustRun(t, s, "CREATE TABLE pt (id int PRIMARY KEY, v int)")
	wantCode(t, s, "CREATE MATERIALIZED VIEW bad AS SELECT p, count(*) FROM (SELECT v, proctime() AS p FROM pt) s GROUP BY p", pgerr.FeatureNotSupported, "only appends")
	wantCode(t, s, "CREATE MATERIALIZED VIEW bad AS SELECT id, proctime() FROM pt", pgerr.FeatureNotSupported, "only appends")
	wantRows(t, s, "SELECT proctime() >= now(), pg_typeof(proctime())", "t timestamp with time zone")
}
