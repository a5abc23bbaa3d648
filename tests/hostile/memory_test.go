package hostile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// budgetMB is the --memory-budget the memory tests give weir.
const budgetMB = 64

// memoryArgs are the server flags of the memory tests; WEIR_MEMORY_ARGS
// replaces them (to measure a build that predates --memory-budget, say
// with "--state-cache-mb 64").
func memoryArgs() []string {
	if a := os.Getenv("WEIR_MEMORY_ARGS"); a != "" {
		return strings.Fields(a)
	}
	return []string{"--memory-budget", strconv.Itoa(budgetMB)}
}

// procStatus returns a field of /proc/pid/status in bytes (VmHWM, the
// peak resident set since the last resetPeak, or VmRSS).
func procStatus(t testing.TB, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// loadedServer starts a weir process with args, runs setup in it, and
// restarts it with its peak resident set reset, so that the statement a
// test measures next has a fresh process and a peak of its own. The
// connection it returns is closed with the test.
func loadedServer(t *testing.T, ctx context.Context, args []string, setup ...string) (*testenv.Server, *pgx.Conn) {
	t.Helper()
	srv := testenv.Start(t, testenv.Options{Args: args, ReadyTimeout: time.Minute})
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close(ctx)
	srv.Restart()
	if conn, err = pgx.Connect(ctx, srv.ConnString()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	resetPeak(t, srv.Pid())
	return srv, conn
}

// resetPeak resets the process's peak resident set (VmHWM) to its
// current one, as `echo 5 > /proc/pid/clear_refs` does.
func resetPeak(t testing.TB, pid int) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatalf("resetting the peak RSS of pid %d: %v", pid, err)
	}
}

// memCase is one statement whose peak RSS is measured, after setup.
type memCase struct {
	name  string
	setup []string
	run   string
	// check is a query and the one value it must answer afterwards.
	check, want string
	// feeds: later cases read what this one builds, so it runs (without
	// being measured) when WEIR_MEMORY_CASE leaves it out.
	feeds bool
	// overMB is the most MB its peak may exceed the budget by
	// (TestMemoryBudgetDML).
	overMB int64
}

// memoryCases are the four workloads that used to take gigabytes under
// a 64 MB state cache: a bulk INSERT … SELECT into a table no view
// reads, the backfill of a view with one group per row, a second bulk
// insert into that view's table, and a bulk insert into one side of a
// join whose other side holds as many rows.
func memoryCases(n int) []memCase {
	return []memCase{{
		name:  "insert-select",
		setup: []string{"CREATE TABLE t (id bigint PRIMARY KEY, g bigint, v bigint)"},
		run:   fmt.Sprintf("INSERT INTO t SELECT i, i, i %% 7 FROM generate_series(1, %d) AS s(i)", n),
		check: "SELECT count(*) FROM t", want: strconv.Itoa(n), feeds: true,
	}, {
		name:  "backfill",
		run:   "CREATE MATERIALIZED VIEW mv AS SELECT g, count(*) AS c, sum(v) AS s FROM t GROUP BY g",
		check: "SELECT count(*) FROM mv", want: strconv.Itoa(n), feeds: true,
	}, {
		name:  "insert-into-view",
		run:   fmt.Sprintf("INSERT INTO t SELECT i, i, i %% 7 FROM generate_series(%d, %d) AS s(i)", n+1, 2*n),
		check: "SELECT sum(c) FROM mv", want: strconv.Itoa(2 * n),
	}, {
		name: "insert-into-join",
		setup: []string{
			"CREATE TABLE a (id bigint PRIMARY KEY, k bigint)",
			"CREATE TABLE b (id bigint PRIMARY KEY, k bigint)",
			"CREATE MATERIALIZED VIEW j AS SELECT a.id AS aid, b.id AS bid FROM a JOIN b ON a.k = b.k",
			fmt.Sprintf("INSERT INTO a SELECT i, i FROM generate_series(1, %d) AS s(i)", n),
		},
		run:   fmt.Sprintf("INSERT INTO b SELECT i, i FROM generate_series(1, %d) AS s(i)", n),
		check: "SELECT count(*) FROM j", want: strconv.Itoa(n),
	}}
}

// dmlCases are the workloads of one big DML statement: a bulk
// INSERT … SELECT into a table no view reads and into one a view
// aggregates, whose writes and changelog must flow through in bounded
// pieces, and a one-row INSERT that a view fans out to n groups
// (generate_series in its select list).
func dmlCases(n int) []memCase {
	return []memCase{{
		name:  "dml-insert-select",
		setup: []string{"CREATE TABLE t (g bigint PRIMARY KEY, m bigint)"},
		run:   fmt.Sprintf("INSERT INTO t SELECT g, g %% 1000 FROM generate_series(1, %d) g", n),
		check: "SELECT count(*) || ' ' || sum(m) FROM t", want: fmt.Sprintf("%d %d", n, sumMod(n, 1000)),
		overMB: 128,
	}, {
		name: "dml-into-view",
		setup: []string{
			"CREATE TABLE u (g bigint PRIMARY KEY, m bigint)",
			"CREATE MATERIALIZED VIEW uv AS SELECT m, count(*) AS c FROM u GROUP BY m",
		},
		run: fmt.Sprintf("INSERT INTO u SELECT g, g %% 1000 FROM generate_series(1, %d) g", n),
		check: "SELECT count(*) || ' ' || sum(c) || ' ' || (SELECT count(*) FROM " +
			"(SELECT m, count(*) FROM u GROUP BY m EXCEPT SELECT * FROM uv) x) FROM uv",
		want:   fmt.Sprintf("%d %d 0", min(n, 1000), n),
		overMB: 128,
	}, {
		name: "dml-fan-out",
		setup: []string{
			"CREATE TABLE f (n bigint)",
			"CREATE MATERIALIZED VIEW fv AS SELECT g, count(*) AS c FROM (SELECT generate_series(1, n) AS g FROM f) s GROUP BY g",
		},
		run:   fmt.Sprintf("INSERT INTO f VALUES (%d)", n),
		check: "SELECT count(*) || ' ' || sum(c) || ' ' || min(g) || ' ' || max(g) FROM fv", want: fmt.Sprintf("%d %d 1 %d", n, n, n),
		overMB: 256,
	}}
}

// sumMod is the sum of g % m for g in 1..n.
func sumMod(n, m int) int64 {
	var s int64
	for g := 1; g <= n; g++ {
		s += int64(g % m)
	}
	return s
}

// runMemoryCases runs memoryCases(n) on a fresh server and returns the
// peak RSS of each case's statement, in bytes, and the server's RSS once
// idle after each.
func runMemoryCases(t testing.TB, n int) (peaks, idle map[string]int64) {
	return runCases(t, memoryCases(n))
}

// runCases runs cases, in order, on a fresh server, each statement in a
// fresh process, and returns the peak RSS of each case's statement and
// the server's RSS once idle after each.
func runCases(t testing.TB, cases []memCase) (peaks, idle map[string]int64) {
	return runCasesWith(t, memoryArgs(), cases)
}

// runCasesWith is runCases on a server started with args.
func runCasesWith(t testing.TB, args []string, cases []memCase) (peaks, idle map[string]int64) {
	srv := testenv.Start(t, testenv.Options{Args: args, ReadyTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { conn.Close(ctx) }()
	peaks, idle = map[string]int64{}, map[string]int64{}
	for _, c := range cases {
		if only := os.Getenv("WEIR_MEMORY_CASE"); only != "" && !strings.Contains(c.name, only) {
			if c.feeds && !strings.Contains("insert-into-join", only) {
				// The view cases read what the earlier ones build; the
				// join builds its own tables.
				for _, s := range append(c.setup, c.run) {
					if _, err := conn.Exec(ctx, s); err != nil {
						t.Fatalf("%s: %s: %v", c.name, s, err)
					}
				}
			}
			continue
		}
		for _, s := range c.setup {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %s: %v", c.name, s, err)
			}
		}
		// Each statement starts in a fresh process, so that its peak is
		// its own and not what earlier cases left in the Go heap.
		conn.Close(ctx)
		srv.Restart()
		if conn, err = pgx.Connect(ctx, srv.ConnString()); err != nil {
			t.Fatal(err)
		}
		resetPeak(t, srv.Pid())
		if _, err := conn.Exec(ctx, c.run); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		peaks[c.name] = procStatus(t, srv.Pid(), "VmHWM")
		var got string
		if err := conn.QueryRow(ctx, "SELECT ("+c.check+")::text").Scan(&got); err != nil {
			t.Fatalf("%s: %s: %v", c.name, c.check, err)
		}
		if got != c.want {
			t.Errorf("%s: %s = %s, want %s", c.name, c.check, got, c.want)
		}
		idle[c.name] = procStatus(t, srv.Pid(), "VmRSS")
		t.Logf("%-17s peak RSS %4d MB, RSS after %4d MB", c.name, peaks[c.name]>>20, idle[c.name]>>20)
	}
	return peaks, idle
}

// TestMemoryBudget runs the four bulk workloads with 400,000 rows under
// a 64 MB --memory-budget: each statement's peak resident set must stay
// below 400 MB (the budget plus generous room for Pebble's block cache
// and memtables, the Go runtime and the garbage collector's slack),
// where an unbounded epoch took well over a gigabyte.
func TestMemoryBudget(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = 400_000
	const limit = 400 << 20
	peaks, _ := runMemoryCases(t, n)
	for name, p := range peaks {
		if p > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", name, p>>20, limit>>20, budgetMB)
		}
	}
}

// TestMemoryBudgetDML runs the big DML statements of dmlCases with
// 1,000,000 rows under a 64 MB --memory-budget: each statement's peak
// resident set must stay below the budget plus a fixed overhead, room
// for the Go runtime's collection slack (Pebble's block cache and
// memtables are within the budget), none of which grows with the
// statement: 128 MB, and
// 256 MB for the fan-out, whose view holds a million groups of state
// (its state tables fill their share of the budget, and the garbage
// collector lets the heap grow to twice what is live). Holding a
// statement's writes and changelog until its epoch committed took 100
// to 200 bytes a row beyond that (261 MB for the plain INSERT … SELECT),
// and a row fanned out to a million groups went through as one chunk of
// a million rows.
func TestMemoryBudgetDML(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = 1_000_000
	peaks, _ := runCases(t, dmlCases(n))
	for _, c := range dmlCases(n) {
		limit := (budgetMB + c.overMB) << 20
		if p, ok := peaks[c.name]; !ok {
			if os.Getenv("WEIR_MEMORY_CASE") == "" {
				t.Errorf("%s: not measured", c.name)
			}
		} else if p > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", c.name, p>>20, limit>>20, budgetMB)
		}
	}
}

// defaultBudgetMB is weir serve's default --memory-budget.
const defaultBudgetMB = 256

// indexCases is a bulk INSERT … SELECT into a table with a secondary
// index on a wide text column: the index is a job whose state holds a
// row per inserted row, all written in the statement's epoch, so its
// state fills the budget's share and its early flushes and barrier
// carry most of it.
func indexCases(n int) []memCase {
	return []memCase{{
		name: "insert-indexed",
		setup: []string{
			"CREATE TABLE ix (a bigint PRIMARY KEY, b text, c text)",
			"CREATE INDEX ON ix (b)",
		},
		run: fmt.Sprintf("INSERT INTO ix SELECT g, repeat(md5(g::text), 8), 'x' FROM generate_series(1, %d) g", n),
		// The second lookup goes through the index.
		check:  "SELECT count(*) || ' ' || (SELECT a FROM ix WHERE b = repeat(md5('4321'), 8)) FROM ix",
		want:   fmt.Sprintf("%d 4321", n),
		overMB: 300,
	}}
}

// TestMemoryBudgetIndex inserts 200,000 rows in one statement into a
// table whose index keys are 256 bytes of text, under the default
// 256 MB --memory-budget: the peak resident set must stay below the
// budget plus 300 MB, room for the Go heap's fixed allowance beyond
// the budget (160 MiB; Pebble's block cache and memtables are within
// the budget), the runtime and the collector's overshoot. The index's state holds as
// much as its share of the budget; a soft limit of twice the budget let
// the heap double that, and its barrier copied the epoch's writes twice
// more into batches: 645 MB, where this build peaks at 410 to 460 MB.
func TestMemoryBudgetIndex(t *testing.T) {
	t.Parallel() // its own server process: the peak read is its own
	const n = 200_000
	args := []string{"--memory-budget", strconv.Itoa(defaultBudgetMB)}
	if a := os.Getenv("WEIR_MEMORY_ARGS"); a != "" {
		args = strings.Fields(a)
	}
	cases := indexCases(n)
	peaks, _ := runCasesWith(t, args, cases)
	for _, c := range cases {
		limit := (defaultBudgetMB + c.overMB) << 20
		if p, ok := peaks[c.name]; !ok {
			if os.Getenv("WEIR_MEMORY_CASE") == "" {
				t.Errorf("%s: not measured", c.name)
			}
		} else if p > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", c.name, p>>20, limit>>20, defaultBudgetMB)
		}
	}
}

// BenchmarkMemory reports the peak RSS of the four bulk workloads and
// of dmlCases with 2,000,000 rows (WEIR_MEMORY_ROWS overrides;
// WEIR_MEMORY_CASE picks the workloads whose names contain it) under a
// 64 MB --memory-budget.
// Run it once:
//
//	go test ./tests/hostile -run '^$' -bench Memory -benchtime 1x -timeout 1h
func BenchmarkMemory(b *testing.B) {
	n := 2_000_000
	if v, err := strconv.Atoi(os.Getenv("WEIR_MEMORY_ROWS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		// Each set on a server of its own: both create a table t.
		for _, cases := range [][]memCase{memoryCases(n), dmlCases(n)} {
			peaks, idle := runCases(b, cases)
			for _, c := range cases {
				if _, ok := peaks[c.name]; !ok {
					continue
				}
				b.ReportMetric(float64(peaks[c.name]>>20), "peak-MB/"+c.name)
				b.ReportMetric(float64(idle[c.name]>>20), "idle-MB/"+c.name)
			}
		}
	}
}
