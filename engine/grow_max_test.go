package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestGrowOnlyMax checks the max that keeps no table of its values
// (planner.StreamHashAgg.GrowOnly): the planner marks it only over
// counts of an append-only input grouped by the counts' keys, and every
// view, marked or not, equals its query run in batch after each
// statement. The unmarked cases retract a count without a larger one
// in the same group (a HAVING that drops it, a delete, a group key that
// is the count itself, a sum that falls): a max that ignored those
// retractions would keep a value that is gone.
func TestGrowOnlyMax(t *testing.T) {
	for _, c := range []struct {
		name, query string
		grow        bool
		dml         []string
	}{
		{"per group", "SELECT g, max(c) AS m FROM (SELECT g, k, count(*) AS c FROM a GROUP BY g, k) s GROUP BY g", true, nil},
		{"global", "SELECT max(c) AS m FROM (SELECT k, count(v) AS c FROM a GROUP BY k) s", true, nil},
		{"having", "SELECT max(c) AS m FROM (SELECT k, count(*) AS c FROM a GROUP BY k HAVING count(*) < 3) s", false, nil},
		{"filtered", "SELECT max(c) AS m FROM (SELECT k, count(*) AS c FROM a GROUP BY k) s WHERE c % 2 = 1", false, nil},
		{"grouped by the count", "SELECT c2, max(c) AS m FROM (SELECT k, count(*) AS c, count(*) AS c2 FROM a GROUP BY k) s GROUP BY c2", false, nil},
		{"grouped by another column", "SELECT v, max(c) AS m FROM (SELECT k, min(v) AS v, count(*) AS c FROM a GROUP BY k) s GROUP BY v", false, nil},
		{"sum", "SELECT max(c) AS m FROM (SELECT k, sum(v) AS c FROM a GROUP BY k) s", false, nil},
		{"retracting input", "SELECT max(c) AS m FROM (SELECT k, count(*) AS c FROM r GROUP BY k) s", false,
			[]string{"DELETE FROM r WHERE k = 1", "DELETE FROM r WHERE v < 0", "INSERT INTO r VALUES (0, 1, 1)"}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			e := openTest(t, vfs.NewMem())
			defer e.Close()
			s := session(t, e)
			mustRun(t, s, "CREATE TABLE a (g int, k int, v int) APPEND ONLY")
			mustRun(t, s, "CREATE TABLE r (g int, k int, v int)")
			plan := strings.Join(mustRun(t, s, "EXPLAIN CREATE MATERIALIZED VIEW v AS "+c.query), "\n")
			if got := strings.Contains(plan, "grow_only: [max("); got != c.grow {
				t.Fatalf("grow-only max planned: %v, want %v:\n%s", got, c.grow, plan)
			}
			mustRun(t, s, "CREATE MATERIALIZED VIEW v AS "+c.query)
			check := func(after string) {
				t.Helper()
				want := mustRun(t, s, "SELECT * FROM ("+c.query+") q ORDER BY 1")
				got := mustRun(t, s, "SELECT * FROM v ORDER BY 1")
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("after %s: the view holds %q, the query gives %q", after, got, want)
				}
			}
			stmts := []string{
				"INSERT INTO %s VALUES (1, 1, 5), (1, 1, 6), (1, 2, 7)",
				"INSERT INTO %s VALUES (1, 1, -9)",
				"INSERT INTO %s VALUES (1, 2, -1), (1, 2, -2), (2, 3, 1)",
				"INSERT INTO %s VALUES (1, 3, 4), (2, 3, 2), (2, 4, 3), (1, 1, -20)",
				"INSERT INTO %s SELECT i %% 3, i %% 5, i - 7 FROM generate_series(1, 40) i",
			}
			tbl := "a"
			if strings.Contains(c.query, " r ") {
				tbl = "r"
			}
			for _, st := range stmts {
				st = fmt.Sprintf(st, tbl)
				mustRun(t, s, st)
				check(st)
			}
			for _, st := range c.dml {
				mustRun(t, s, st)
				check(st)
			}
		})
	}
}
