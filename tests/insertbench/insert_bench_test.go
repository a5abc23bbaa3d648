package insertbench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// views are weir's three views over t; summaries the statements that
// create PostgreSQL's trigger-kept equivalents. check pairs a query on
// each side that must give the same rows.
var (
	views = []string{
		"CREATE MATERIALIZED VIEW v_total AS SELECT count(*) AS n, sum(v) AS s FROM t",
		"CREATE MATERIALIZED VIEW v_group AS SELECT id % 100 AS g, count(*) AS n, sum(v) AS s FROM t GROUP BY id % 100",
		"CREATE MATERIALIZED VIEW v_by_v AS SELECT v, count(*) AS n, max(id) AS m FROM t GROUP BY v",
	}
	summaries = []string{
		"CREATE TABLE v_total (n bigint, s bigint)",
		"INSERT INTO v_total VALUES (0, NULL)",
		"CREATE TABLE v_group (g bigint PRIMARY KEY, n bigint, s bigint)",
		"CREATE TABLE v_by_v (v int PRIMARY KEY, n bigint, m bigint)",
		`CREATE FUNCTION keep_summaries() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			UPDATE v_total SET n = n + 1, s = coalesce(s, 0) + NEW.v;
			INSERT INTO v_group VALUES (NEW.id % 100, 1, NEW.v)
				ON CONFLICT (g) DO UPDATE SET n = v_group.n + 1, s = v_group.s + EXCLUDED.s;
			INSERT INTO v_by_v VALUES (NEW.v, 1, NEW.id)
				ON CONFLICT (v) DO UPDATE SET n = v_by_v.n + 1, m = greatest(v_by_v.m, EXCLUDED.m);
			RETURN NEW;
		END $$`,
		"CREATE TRIGGER keep_summaries AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION keep_summaries()",
	}
	checks = []string{
		"SELECT n, s FROM v_total",
		"SELECT g, n, s FROM v_group ORDER BY g",
		"SELECT v, n, m FROM v_by_v ORDER BY v",
	}
)

// BenchmarkSingleSessionInsert runs b.N single-row autocommit INSERTs
// from one session (simple query protocol, as pgbench sends them) into
// weir and into PostgreSQL, and reports for each the INSERTs per second,
// the mean latency, and the server's CPU time per INSERT (PostgreSQL's
// summed over the postmaster and its children); the ratio is weir's
// INSERTs per second over PostgreSQL's. Each side first runs a warm-up
// of its own (the first INSERTs after the views are created pay their
// first checkpoints and the servers' caches filling), then the two take
// turns, a chunk of INSERTs at a time, so that a shared machine's load
// weighs on both alike.
//
//	go test ./tests/insertbench -run '^$' -bench . -benchtime 20000x
func BenchmarkSingleSessionInsert(b *testing.B) {
	w := testenv.Start(b, testenv.Options{})
	pg := testenv.StartPostgres(b)
	pg.Settings = []string{"fsync=on", "synchronous_commit=on"}
	pg.Restart()

	weirConn := connect(b, w.ConnString())
	pgConn := connect(b, pg.ConnString())
	exec(b, weirConn, append([]string{"CREATE TABLE t (id bigint PRIMARY KEY, v int)"}, views...)...)
	exec(b, pgConn, append([]string{"CREATE TABLE t (id bigint PRIMARY KEY, v int)"}, summaries...)...)

	const warmUp, chunk = 1000, 1000
	weir := &side{conn: weirConn, cpu: func() time.Duration { c, _ := testenv.ProcessCPU(w.Pid()); return c }}
	postgres := &side{conn: pgConn, cpu: func() time.Duration { return testenv.TreeCPU(pg.Pid()) }}
	n := b.N
	weir.run(b, min(warmUp, n))
	postgres.run(b, min(warmUp, n))
	weir.wall, weir.used, postgres.wall, postgres.used = 0, 0, 0, 0
	b.ResetTimer()
	for done := 0; done < n; done += chunk {
		weir.run(b, min(chunk, n-done))
		postgres.run(b, min(chunk, n-done))
	}
	b.StopTimer()

	for _, q := range checks {
		if got, want := rows(b, weirConn, q), rows(b, pgConn, q); got != want {
			b.Fatalf("%s: weir's view and PostgreSQL's summary differ after %d INSERTs:\nweir:\n%s\npostgres:\n%s", q, weir.next, got, want)
		}
	}
	weirRate, pgRate := float64(n)/weir.wall.Seconds(), float64(n)/postgres.wall.Seconds()
	weirCPU, pgCPU := weir.used, postgres.used
	b.ReportMetric(weirRate, "weir-inserts/s")
	b.ReportMetric(pgRate, "pg-inserts/s")
	b.ReportMetric(weirRate/pgRate, "ratio")
	b.ReportMetric(float64(weirCPU.Microseconds())/float64(n), "weir-cpu-µs/insert")
	b.ReportMetric(float64(pgCPU.Microseconds())/float64(n), "pg-cpu-µs/insert")
	b.Logf("%d INSERTs: weir %.0f/s (%.2f ms, %.0f µs CPU each), PostgreSQL %.0f/s (%.2f ms, %.0f µs CPU each), ratio %.2f",
		n, weirRate, 1000/weirRate, float64(weirCPU.Microseconds())/float64(n),
		pgRate, 1000/pgRate, float64(pgCPU.Microseconds())/float64(n), weirRate/pgRate)
}

// side is one server's session in the benchmark: the last id it
// inserted, and the wall and server CPU time its timed INSERTs took.
type side struct {
	conn       *pgx.Conn
	cpu        func() time.Duration
	next       int
	wall, used time.Duration
}

// run issues n INSERTs and adds their wall and server CPU time.
func (s *side) run(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	cpu0 := s.cpu()
	start := time.Now()
	for range n {
		s.next++
		i := s.next
		if _, err := s.conn.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i%37), pgx.QueryExecModeSimpleProtocol); err != nil {
			b.Fatalf("INSERT %d: %v", i, err)
		}
	}
	s.wall += time.Since(start)
	s.used += s.cpu() - cpu0
}

func connect(b *testing.B, url string) *pgx.Conn {
	b.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(b *testing.B, c *pgx.Conn, stmts ...string) {
	b.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(context.Background(), s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
}

// rows returns q's result as sorted text lines.
func rows(b *testing.B, c *pgx.Conn, q string) string {
	b.Helper()
	out, err := testenv.TextRows(context.Background(), c, q)
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	return strings.Join(out, "\n")
}
