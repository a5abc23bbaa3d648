package engine

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPrunedViewsEqualTheirQueries runs views whose stream plans carry
// fewer columns than their relations (planner/stream_prune.go): a count
// over a projection that reads nothing, a join reading one column of
// each side, a HOP window and a top-N over a subset; after inserts,
// updates of pruned and kept columns and deletes, and a restart, each
// equals its query.
func TestPrunedViewsEqualTheirQueries(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (k int PRIMARY KEY, g int, ts timestamp, pad text)")
	mustRun(t, s, "CREATE TABLE u (k int PRIMARY KEY, v int, pad text)")
	views := map[string]string{
		"c":   "SELECT count(*) AS n FROM (SELECT g + 1 AS x FROM t) s",
		"j":   "SELECT t.g, u.v FROM t JOIN u ON t.k = u.k",
		"h":   "SELECT g, window_start, count(*) AS n FROM HOP(t, ts, INTERVAL '1 minute', INTERVAL '3 minutes') GROUP BY g, window_start",
		"top": "SELECT k, g FROM (SELECT k, g, pad, row_number() OVER (PARTITION BY g ORDER BY k DESC) AS r FROM t) x WHERE r <= 2",
		"lj":  "SELECT u.k, t.g FROM u LEFT JOIN t ON t.k = u.k WHERE u.v > 0",
	}
	for name, q := range views {
		mustRun(t, s, "CREATE MATERIALIZED VIEW "+name+" AS "+q)
	}
	check := func() {
		t.Helper()
		for name, q := range views {
			order := " ORDER BY 1, 2"
			if name == "c" {
				order = ""
			} else if name == "h" {
				order = " ORDER BY 1, 2, 3"
			}
			want := mustRun(t, s, "SELECT * FROM ("+q+") q"+order)
			if len(want) == 0 {
				t.Fatalf("%s: the query has no rows; the test compares nothing", name)
			}
			wantRows(t, s, "SELECT * FROM "+name+order, want...)
		}
	}
	mustRun(t, s, "INSERT INTO t VALUES (1, 1, '2024-01-01 00:00:10', 'a'), (2, 1, '2024-01-01 00:01:10', 'b'), (3, 2, '2024-01-01 00:02:30', 'c'), (4, 1, '2024-01-01 00:04:00', 'd')")
	mustRun(t, s, "INSERT INTO u VALUES (1, 10, 'x'), (3, 30, 'y'), (5, 50, 'z')")
	check()
	mustRun(t, s, "UPDATE t SET pad = 'changed' WHERE k = 1")
	mustRun(t, s, "UPDATE t SET g = 2 WHERE k = 2")
	mustRun(t, s, "UPDATE u SET pad = 'changed', v = 0 WHERE k = 3")
	mustRun(t, s, "DELETE FROM t WHERE k = 4")
	check()
	e.Close()
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t VALUES (5, 3, '2024-01-01 00:00:50', 'e')")
	mustRun(t, s, "DELETE FROM u WHERE k = 1")
	check()
}
