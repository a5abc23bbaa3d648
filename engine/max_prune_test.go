package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestJoinMaxPrune checks which joins of rows with their windows' maxima
// drop the rows below the highest value seen so far
// (planner/stream_maxprune.go), and that each view, dropping or not,
// equals its query run as a batch query after every statement: rows
// tied with the maximum, rows on a window's start that match the window
// before (BETWEEN includes its end), late rows the watermark drops.
func TestJoinMaxPrune(t *testing.T) {
	const q7 = `SELECT B.id, B.v, B.k, B.ts FROM ev B
		JOIN (SELECT max(v) AS maxv, window_end AS ts FROM TUMBLE(ev, ts, INTERVAL '10 seconds') GROUP BY window_end) B1
		ON B.v = B1.maxv WHERE B.ts BETWEEN B1.ts - INTERVAL '10 seconds' AND B1.ts`
	for _, c := range []struct {
		name, query string
		prune       bool
	}{
		{"q7", q7, true},
		{"narrower condition", strings.Replace(q7, "B1.ts - INTERVAL '10 seconds' AND B1.ts", "B1.ts - INTERVAL '5 seconds' AND B1.ts - INTERVAL '1 second'", 1), true},
		{"window with offset", strings.Replace(q7, "INTERVAL '10 seconds') GROUP BY", "INTERVAL '10 seconds', INTERVAL '3 seconds') GROUP BY", 1), true},
		// A row may match two windows before its own.
		{"condition wider than the window", strings.Replace(q7, "B1.ts - INTERVAL '10 seconds'", "B1.ts - INTERVAL '20 seconds'", 1), false},
		// The maximum over fewer rows than the left side's.
		{"filtered maximum", strings.Replace(q7, "GROUP BY window_end", "WHERE k <> 1 GROUP BY window_end", 1), false},
		{"maximum per window and key", strings.Replace(strings.Replace(q7, "GROUP BY window_end", "GROUP BY window_end, k", 1),
			"window_end AS ts", "window_end AS ts, k AS mk", 1), false},
		{"minimum", strings.Replace(q7, "max(v)", "min(v)", 1), false},
		{"maximum of another column", strings.Replace(q7, "max(v)", "max(k)", 1), false},
		{"another table", strings.Replace(q7, "TUMBLE(ev,", "TUMBLE(pay,", 1), false},
		{"left join", strings.Replace(strings.Replace(q7, "JOIN (", "LEFT JOIN (", 1), "ON B.v = B1.maxv WHERE", "ON B.v = B1.maxv AND", 1), false},
	} {
		for _, par := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/parallelism=%d", strings.ReplaceAll(c.name, " ", "_"), par), func(t *testing.T) {
				testJoinMaxPrune(t, c.query, c.prune, par)
			})
		}
	}
}

// testJoinMaxPrune plans query as a view at streaming parallelism par
// (with 1, one actor of the join sees every row), checks whether its
// join drops rows below the maximum (prune), and compares it with the
// batch query after each statement.
func testJoinMaxPrune(t *testing.T, query string, prune bool, par int) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, fmt.Sprintf("SET streaming_parallelism = %d", par))
	for _, tb := range []string{"ev", "pay"} {
		mustRun(t, s, "CREATE TABLE "+tb+" (id int, k int, v int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '10 seconds') APPEND ONLY")
	}
	plan := strings.Join(mustRun(t, s, "EXPLAIN CREATE MATERIALIZED VIEW m AS "+query), "\n")
	if got := strings.Contains(plan, "max_prune: [v below max per tumble(ts, 00:00:10"); got != prune {
		t.Fatalf("max prune planned: %v, want %v:\n%s", got, prune, plan)
	}
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS "+query)
	rows := 0
	for i, st := range []string{
		"INSERT INTO %s VALUES (1, 1, 5, '2026-01-01 00:00:01'), (2, 1, 3, '2026-01-01 00:00:02'), (3, 2, 7, '2026-01-01 00:00:03')",
		// On the start of the next window, at the maximum of the
		// window before.
		"INSERT INTO %s VALUES (4, 1, 7, '2026-01-01 00:00:10'), (5, 2, 9, '2026-01-01 00:00:11'), (6, 1, 7, '2026-01-01 00:00:10')",
		"INSERT INTO %s VALUES (7, 2, 4, '2026-01-01 00:00:12'), (8, 2, 9, '2026-01-01 00:00:13'), (9, 1, 3, '2026-01-01 00:00:09')",
		"INSERT INTO %s SELECT 100 + i, i %% 3, (i * 37) %% 101, TIMESTAMP '2026-01-01 00:00:05' + i * INTERVAL '250 milliseconds' FROM generate_series(1, 200) i",
		"INSERT INTO %s VALUES (10, 1, 100, '2026-01-01 00:00:40'), (11, 1, 99, '2026-01-01 00:00:40'), (12, 1, 100, '2026-01-01 00:00:50')",
		"INSERT INTO %s SELECT 400 + i, i %% 2, (i * 53) %% 97, TIMESTAMP '2026-01-01 00:00:45' + i * INTERVAL '100 milliseconds' FROM generate_series(1, 300) i",
	} {
		for _, tb := range []string{"ev", "pay"} {
			mustRun(t, s, fmt.Sprintf(st, tb))
		}
		mustRun(t, s, "FLUSH")
		want := mustRun(t, s, "SELECT * FROM ("+query+") q ORDER BY 1, 2, 3, 4")
		got := mustRun(t, s, "SELECT * FROM m ORDER BY 1, 2, 3, 4")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after statement %d: the view holds %q, the query gives %q", i+1, got, want)
		}
		rows = len(want)
	}
	if rows == 0 {
		t.Fatal("no rows: the test compares nothing")
	}
}
