package engine

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// TestExplainAnalyzeRows checks the actual row counts EXPLAIN ANALYZE
// prints under each node: a filter over 100 rows keeping 10, a join, a
// LIMIT that stops its input early, a correlated subquery run once per
// outer row.
func TestExplainAnalyzeRows(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b int)")
	mustRun(t, s, "CREATE TABLE u (a int PRIMARY KEY, c text)")
	mustRun(t, s, "INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 100) g")
	mustRun(t, s, "INSERT INTO u SELECT g, 'c' || g FROM generate_series(1, 20) g")

	cases := []struct{ query, want string }{
		{"SELECT a FROM t WHERE b = 3", `
Project [t.a] (actual rows=10 loops=1)
└─Filter [t.b = 3] (actual rows=10 loops=1)
  └─Scan t [a, b] (actual rows=100 loops=1)`},
		{"SELECT t.a, u.c FROM t JOIN u ON t.b = u.a", `
Project [t.a, u.c] (actual rows=90 loops=1)
└─HashJoin [inner, t.b = u.a] (actual rows=90 loops=1)  Batches: 1  Memory Usage: 7kB
  ├─Scan t [a, b] (actual rows=100 loops=1)
  └─Scan u [a, c] (actual rows=20 loops=1)`},
	}
	for _, c := range cases {
		got := strings.Join(mustRun(t, s, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) "+c.query), "\n")
		if got != strings.TrimPrefix(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.query, got, strings.TrimPrefix(c.want, "\n"))
		}
	}
}

// TestExplainAnalyzeRuns checks that EXPLAIN ANALYZE of a write really
// writes (committing in autocommit, going with the block inside one),
// that a plain EXPLAIN does not, that EXPLAIN [ANALYZE] EXECUTE runs the
// prepared statement with its arguments, and that a statement's error is
// EXPLAIN ANALYZE's.
func TestExplainAnalyzeRuns(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b int)")
	mustRun(t, s, "INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 100) g")

	mustRun(t, s, "EXPLAIN DELETE FROM t WHERE a > 90")
	wantRows(t, s, "SELECT count(*) FROM t", "100")
	wantRows(t, s, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) DELETE FROM t WHERE a > 90",
		"Delete t (actual rows=0 loops=1)",
		"└─Filter [t.a > 90] (actual rows=10 loops=1)",
		"  └─IndexScan t_pkey on t [a, b] (a > 90) (actual rows=10 loops=1)")
	wantRows(t, s, "SELECT count(*) FROM t", "90")

	mustRun(t, s, "BEGIN")
	wantRows(t, s, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) UPDATE t SET b = -1 WHERE b = 3 RETURNING a",
		"Update t [b = -1] [returning: t.a] (actual rows=9 loops=1)",
		"└─Filter [t.b = 3] (actual rows=9 loops=1)",
		"  └─Scan t [a, b] (actual rows=90 loops=1)")
	wantRows(t, s, "SELECT count(*) FROM t WHERE b = -1", "9")
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT count(*) FROM t WHERE b = -1", "0")

	mustRun(t, s, "PREPARE q(int) AS SELECT a FROM t WHERE b = $1")
	wantRows(t, s, "EXPLAIN EXECUTE q(3)",
		"Project [t.a]",
		"└─Filter [t.b = $1]",
		"  └─Scan t [a, b]")
	wantRows(t, s, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) EXECUTE q(3)",
		"Project [t.a] (actual rows=9 loops=1)",
		"└─Filter [t.b = $1] (actual rows=9 loops=1)",
		"  └─Scan t [a, b] (actual rows=90 loops=1)")
	mustRun(t, s, "PREPARE d AS DELETE FROM t WHERE a <= 10")
	mustRun(t, s, "EXPLAIN ANALYZE EXECUTE d")
	wantRows(t, s, "SELECT count(*) FROM t", "80")

	for _, c := range []struct{ query, code string }{
		{"EXPLAIN ANALYZE SELECT 1 / (a - 50) FROM t", "22012"},
		{"EXPLAIN ANALYZE INSERT INTO t VALUES (50, 0)", "23505"},
		{"EXPLAIN (TIMING ON) SELECT 1", "22023"},
		{"EXPLAIN EXECUTE nosuch", "26000"},
	} {
		_, err := run(t, s, c.query)
		if pe, ok := err.(*pgerr.Error); !ok || string(pe.Code) != c.code {
			t.Errorf("%s: got %v, want SQLSTATE %s", c.query, err, c.code)
		}
	}
	wantRows(t, s, "SELECT count(*) FROM t", "80")
}

// TestExplainAnalyzeSummary checks the lines TIMING and SUMMARY add:
// each node's actual time, and the planning and execution times.
func TestExplainAnalyzeSummary(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t SELECT g FROM generate_series(1, 10) g")
	node := regexp.MustCompile(`^(Project \[t\.a\]|└─Scan t \[a\]) \(actual time=\d+\.\d{3}\.\.\d+\.\d{3} rows=10 loops=1\)$`)
	planning := regexp.MustCompile(`^Planning Time: \d+\.\d{3} ms$`)
	execution := regexp.MustCompile(`^Execution Time: \d+\.\d{3} ms$`)
	got := mustRun(t, s, "EXPLAIN ANALYZE SELECT * FROM t")
	if len(got) != 4 || !node.MatchString(got[0]) || !node.MatchString(got[1]) || !planning.MatchString(got[2]) || !execution.MatchString(got[3]) {
		t.Errorf("EXPLAIN ANALYZE:\n%s", strings.Join(got, "\n"))
	}
	got = mustRun(t, s, "EXPLAIN (ANALYZE, SUMMARY OFF) SELECT * FROM t")
	if len(got) != 2 || !node.MatchString(got[0]) || !node.MatchString(got[1]) {
		t.Errorf("EXPLAIN (ANALYZE, SUMMARY OFF):\n%s", strings.Join(got, "\n"))
	}
	got = mustRun(t, s, "EXPLAIN (SUMMARY) SELECT * FROM t")
	if len(got) != 3 || got[1] != "└─Scan t [a]" || !planning.MatchString(got[2]) {
		t.Errorf("EXPLAIN (SUMMARY):\n%s", strings.Join(got, "\n"))
	}
	wantRows(t, s, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, COSTS OFF) SELECT * FROM t WHERE a > 100 AND EXISTS (SELECT 1 FROM t u WHERE u.a = t.a)",
		"Project [t.a] (actual rows=0 loops=1)",
		"└─Filter [(t.a > 100) AND EXISTS($subquery1)] (actual rows=0 loops=1)",
		"  ├─IndexScan t_pkey on t [a] (a > 100) (actual rows=0 loops=1)",
		"  └─Subquery #1 [exists, correlated]",
		"    └─Project [1 AS ?column?] (never executed)",
		"      └─Filter [u.a = outer(1).t.a] (never executed)",
		"        └─Scan t [a] (never executed)")
}

// TestExplainPreparedRebinds checks that an EXPLAIN prepared once (the
// extended protocol) and run after DDL explains the statement bound
// again: the table it reads is the new one.
func TestExplainPreparedRebinds(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	ctx := context.Background()
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t SELECT g FROM generate_series(1, 10) g")
	p, err := s.Prepare(ctx, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) SELECT * FROM t WHERE a > $1", nil)
	if err != nil {
		t.Fatal(err)
	}
	explain := func() []string {
		t.Helper()
		r, err := p.Execute(ctx, []types.Datum{types.DInt(3)}, &testIO{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []string
		for {
			row, err := r.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				return out
			}
			out = append(out, types.FormatText(row[0], types.T{ID: types.Text}, nil))
		}
	}
	if got := strings.Join(explain(), "\n"); !strings.Contains(got, "IndexScan t_pkey on t [a] (a > $1) (actual rows=7 loops=1)") {
		t.Fatalf("before DDL:\n%s", got)
	}
	mustRun(t, s, "DROP TABLE t")
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b text)")
	mustRun(t, s, "INSERT INTO t SELECT g, 'x' FROM generate_series(1, 5) g")
	if got := strings.Join(explain(), "\n"); !strings.Contains(got, "IndexScan t_pkey on t [a, b] (a > $1) (actual rows=2 loops=1)") {
		t.Fatalf("after DDL:\n%s", got)
	}
}

// TestExplainAnalyzeSpill checks the line EXPLAIN ANALYZE adds to a
// sort, a hash aggregation and a hash join, in PostgreSQL's words: how
// the sort sorted and the memory or disk it used, and the batches of the
// hash operators, which spill at a 64kB work_mem and not at 4MB.
func TestExplainAnalyzeSpill(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int, b text)")
	mustRun(t, s, "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 3000) g")
	const opts = "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) "
	cases := []struct {
		workMem, query string
		line           *regexp.Regexp
	}{
		{"4MB", "SELECT a FROM t ORDER BY b", regexp.MustCompile(`^└─Sort \[t\.b\] \(actual rows=3000 loops=1\)  Sort Method: quicksort  Memory: \d+kB$`)},
		{"64kB", "SELECT a FROM t ORDER BY b", regexp.MustCompile(`^└─Sort \[t\.b\] \(actual rows=3000 loops=1\)  Sort Method: external merge  Disk: \d+kB$`)},
		{"4MB", "SELECT b, count(*) FROM t GROUP BY b", regexp.MustCompile(`^└─HashAgg .* \(actual rows=3000 loops=1\)  Batches: 1  Memory Usage: \d+kB$`)},
		{"64kB", "SELECT b, count(*) FROM t GROUP BY b", regexp.MustCompile(`^└─HashAgg .* \(actual rows=3000 loops=1\)  Batches: \d\d+  Memory Usage: \d+kB  Disk Usage: \d+kB$`)},
		{"4MB", "SELECT count(*) FROM t JOIN t u ON t.b = u.b", regexp.MustCompile(`^  └─HashJoin .* \(actual rows=3000 loops=1\)  Batches: 1  Memory Usage: \d+kB$`)},
		{"64kB", "SELECT count(*) FROM t JOIN t u ON t.b = u.b", regexp.MustCompile(`^  └─HashJoin .* \(actual rows=3000 loops=1\)  Batches: \d\d+  Memory Usage: \d+kB  Disk Usage: \d+kB$`)},
	}
	for _, c := range cases {
		mustRun(t, s, "SET work_mem = '"+c.workMem+"'")
		got := mustRun(t, s, opts+c.query)
		found := false
		for _, l := range got {
			found = found || c.line.MatchString(l)
		}
		if !found {
			t.Errorf("work_mem %s, %s: no line matching %s in\n%s", c.workMem, c.query, c.line, strings.Join(got, "\n"))
		}
	}
	// An aggregate without GROUP BY says nothing of its one group.
	for _, l := range mustRun(t, s, opts+"SELECT count(*) FROM t") {
		if strings.Contains(l, "Batches") {
			t.Errorf("plain aggregate: %s", l)
		}
	}
}
