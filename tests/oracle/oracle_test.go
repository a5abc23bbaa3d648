// Package oracle is the correctness oracle of incremental views: it drives
// random DML against tables on weir and on a real PostgreSQL 15 at once,
// and after every FLUSH each materialized view on weir must equal its
// query run by PostgreSQL over the same table contents (PostgreSQL gets
// the queries as plain views, so views on views compare too).
//
// Runs use fixed seeds plus one fresh seed, printed with any failure so
// the run can be repeated: go test ./tests/oracle/ -seed N. Each seed
// also picks the streaming parallelism of its views.
package oracle

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/tests/testenv"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "run only this seed")
	stepsFlag = flag.Int("steps", 150, "DML statements per seed")
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// schema is created on both sides.
var schema = []string{
	"CREATE TABLE t1 (id int PRIMARY KEY, k int, v int, s text)",
	"CREATE TABLE t2 (id int PRIMARY KEY, k int, w int)",
	"CREATE TABLE t3 (a int, b int)",
}

// views are materialized views on weir and plain views on PostgreSQL, in
// creation order (later ones may read earlier ones).
var views = []struct{ name, query string }{
	{"v_filter", "SELECT id, v * 2 AS v2, s FROM t1 WHERE v > 20"},
	{"v_agg", "SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi, count(s) AS ns FROM t1 GROUP BY k"},
	{"v_global", "SELECT count(*) AS n, sum(v) AS s, max(s) AS ms FROM t1"},
	{"v_distinct", "SELECT DISTINCT k FROM t2"},
	{"v_join", "SELECT t1.id, t1.v, t2.id AS id2, t2.w FROM t1 JOIN t2 ON t1.k = t2.k"},
	{"v_left", "SELECT t2.id, count(t1.id) AS n, sum(t1.v) AS s FROM t2 LEFT JOIN t1 ON t1.k = t2.k GROUP BY t2.id"},
	{"v_top", "SELECT id, v FROM t1 ORDER BY v DESC, id LIMIT 5"},
	{"v_group_top", "SELECT k, id, v FROM (SELECT k, id, v, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM t1) x WHERE rn <= 2"},
	{"v_over", "SELECT id, k, v, rank() OVER (PARTITION BY k ORDER BY v) AS r, dense_rank() OVER (PARTITION BY k ORDER BY v) AS dr, " +
		"lag(v) OVER (PARTITION BY k ORDER BY v, id) AS pv, lead(id, 1, -1) OVER (PARTITION BY k ORDER BY v, id) AS nid, " +
		"sum(v) OVER (PARTITION BY k ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2, count(*) OVER (PARTITION BY k) AS n FROM t1"},
	{"v_over_all", "SELECT id, row_number() OVER (ORDER BY v DESC, id) AS rn, max(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS mx FROM t1"},
	{"v_over_range", "SELECT id, k, v, sum(v) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) AS near, " +
		"count(*) OVER (ORDER BY v DESC RANGE BETWEEN CURRENT ROW AND 20 FOLLOWING) AS below, " +
		"sum(id) OVER (PARTITION BY k ORDER BY v::numeric / 4 RANGE BETWEEN 2.5 PRECEDING AND 1.25 PRECEDING) AS before, " +
		"first_value(id) OVER (PARTITION BY k ORDER BY id RANGE BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS fid FROM t1"},
	// Frame exclusion: the frames' sets of rows are fixed by the order
	// keys (ties broken by id where the frame counts rows).
	{"v_over_exclude", "SELECT id, k, v, sum(v) OVER (PARTITION BY k ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) AS around, " +
		"count(*) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING EXCLUDE GROUP) AS others, " +
		"max(id) OVER (PARTITION BY k ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) AS hi, " +
		"min(v) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS lo, " +
		"last_value(id) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS prev_id FROM t1"},
	{"v_nokey", "SELECT a, count(*) AS n FROM t3 GROUP BY a"},
	{"v_on_agg", "SELECT sum(n) AS total, count(*) AS groups, max(hi) AS top FROM v_agg"},
	{"v_on_join", "SELECT id2, count(*) AS n FROM v_join GROUP BY id2"},
	{"v_having", "SELECT k, sum(v) AS s FROM t1 GROUP BY k HAVING count(*) > 2"},
	// Both sides' groups with a NULL key are padded rows of their own.
	{"v_full_agg", "SELECT l.k AS lk, r.k AS rk, l.n, r.m FROM (SELECT k, count(*) AS n FROM t1 GROUP BY k) l " +
		"FULL JOIN (SELECT k, count(*) AS m FROM t2 GROUP BY k) r ON l.k = r.k"},
	// Grouping sets: one row per group of each set, the empty set's
	// even over no rows (a set listed twice gives its rows twice).
	{"v_rollup", "SELECT k, s, count(*) AS n, sum(v) AS sv, min(v) AS lo, grouping(k, s) AS g FROM t1 GROUP BY ROLLUP (k, s)"},
	{"v_cube", "SELECT a, b, count(*) AS n, grouping(b) AS gb FROM t3 GROUP BY CUBE (a, b) HAVING count(*) > 1"},
	{"v_gsets", "SELECT k, count(*) AS n, max(w) AS mw FROM t2 GROUP BY GROUPING SETS ((k), (), ())"},
	// Set-returning functions in the select list, zipped: a row gives as
	// many rows as its longest call, and they follow its updates.
	{"v_srf", "SELECT id, generate_series(1, k) AS g, unnest(ARRAY[v, id, k]) AS u, regexp_split_to_table(s, '') AS ch FROM t1"},
	{"v_srf_nested", "SELECT id, generate_series(1, generate_series(1, k)) AS g, generate_series(1, 2) AS h FROM t1"},
	{"v_srf_agg", "SELECT k, count(*) AS n, generate_series(1, count(*)::int) AS i FROM t1 GROUP BY k"},
	// Set operations that keep duplicates: each row as many times as
	// min(l, r) or max(l - r, 0) of its counts, NULLs equal; t3 has no
	// key and repeats rows.
	{"v_except_all", "SELECT k FROM t1 EXCEPT ALL SELECT k FROM t2"},
	{"v_intersect_all", "SELECT k FROM t1 INTERSECT ALL SELECT a FROM t3"},
	{"v_except_all_pairs", "SELECT a, b FROM t3 EXCEPT ALL SELECT k, v FROM t1 WHERE v < 50"},
	// NOT IN: every row while the subquery is empty, none while it
	// holds a NULL, else those of non-NULL value it lacks.
	{"v_not_in", "SELECT id, k FROM t1 WHERE k NOT IN (SELECT k FROM t2)"},
	// v and w rarely match, so this one turns on the NULLs of w, which
	// come and go with t2's rows, and on t2 being empty.
	{"v_not_in_w", "SELECT id, v FROM t1 WHERE v NOT IN (SELECT w FROM t2)"},
	{"v_ne_all", "SELECT a, b FROM t3 WHERE b <> ALL (SELECT v FROM t1 WHERE k = 1)"},
	// The other quantified comparisons: anti joins on the comparison
	// being not true (ALL) or not false (NOT ANY), semi joins on it
	// being true (ANY) or false (NOT ALL); rows compared field by field.
	{"v_lt_all", "SELECT id, v FROM t1 WHERE v < ALL (SELECT w FROM t2)"},
	{"v_not_ge_any", "SELECT a, b FROM t3 WHERE NOT (b >= ANY (SELECT v FROM t1 WHERE k = t3.a))"},
	{"v_not_le_all", "SELECT a, b FROM t3 WHERE NOT (b <= ALL (SELECT w FROM t2))"},
	{"v_row_in", "SELECT id, v FROM t1 WHERE (k, v) IN (SELECT a, b FROM t3)"},
	{"v_row_not_in", "SELECT id, k, v FROM t1 WHERE (k, v) NOT IN (SELECT a, b FROM t3)"},
	{"v_row_lt_any", "SELECT a, b FROM t3 WHERE (a, b) < ANY (SELECT k, v FROM t1 WHERE v > 50)"},
	{"v_corr_not_in", "SELECT a, b FROM t3 WHERE b NOT IN (SELECT v FROM t1 WHERE t1.k = t3.a)"},
	{"v_row_cmp", "SELECT id, k, v FROM t1 WHERE (k, v) >= (2, 40) AND ROW(k, s) IS NOT NULL"},
}

// TestOracle runs the fixed seeds and one fresh one.
func TestOracle(t *testing.T) {
	seeds := []uint64{1, 2, 3, uint64(time.Now().UnixNano())}
	if *seedFlag != 0 {
		seeds = []uint64{*seedFlag}
	}
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	for i, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			db := fmt.Sprintf("oracle_%d", i)
			pg.RecreateDB(t, db, "root")
			runSeed(t, seed, pg.As("root", db))
		})
	}
}

type side struct {
	name string
	conn *pgx.Conn
}

func connect(t *testing.T, ctx context.Context, target testenv.Target) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, target.ConnString())
	if err != nil {
		t.Fatalf("connecting to %s: %v", target.Kind(), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func runSeed(t *testing.T, seed uint64, pgTarget testenv.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	failed := true
	defer func() {
		if failed {
			t.Logf("reproduce with: go test ./tests/oracle/ -run TestOracle -seed %d", seed)
		}
	}()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	weir := testenv.Start(t, testenv.Options{})
	w := &side{"weir", connect(t, ctx, weir)}
	p := &side{"postgres", connect(t, ctx, pgTarget)}
	par := []int{1, 2, 3, 4}[rng.IntN(4)]
	t.Logf("seed %d: streaming_parallelism %d", seed, par)
	mustExec(t, ctx, w, fmt.Sprintf("SET streaming_parallelism = %d", par))
	for _, s := range schema {
		mustExec(t, ctx, w, s)
		mustExec(t, ctx, p, s)
	}
	// Some rows exist before the views, so that the views backfill; the
	// rest arrive through the dataflow.
	for i := 0; i < 20; i++ {
		both(t, ctx, w, p, randomDML(rng))
	}
	for _, v := range views {
		mustExec(t, ctx, w, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.query)
		mustExec(t, ctx, p, "CREATE VIEW "+v.name+" AS "+v.query)
	}
	compare(t, ctx, w, p, "after creating the views")
	for i := 0; i < *stepsFlag; i++ {
		both(t, ctx, w, p, randomDML(rng))
		if rng.IntN(10) == 0 {
			mustExec(t, ctx, w, "FLUSH")
			compare(t, ctx, w, p, fmt.Sprintf("after statement %d", i+1))
		}
	}
	mustExec(t, ctx, w, "FLUSH")
	compare(t, ctx, w, p, "at the end")
	failed = t.Failed()
}

// randomDML returns one random statement over the tables; keys collide
// often so that primary key errors and updates of existing rows happen.
func randomDML(rng *rand.Rand) string {
	id := func() int { return rng.IntN(40) }
	k := func() string {
		if rng.IntN(10) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.IntN(6))
	}
	v := func() string {
		if rng.IntN(12) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.IntN(100))
	}
	s := func() string {
		if rng.IntN(8) == 0 {
			return "NULL"
		}
		return fmt.Sprintf("'s%d'", rng.IntN(10))
	}
	switch rng.IntN(12) {
	case 0, 1, 2:
		n := 1 + rng.IntN(3)
		var rows []string
		for i := 0; i < n; i++ {
			rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s)", id(), k(), v(), s()))
		}
		return "INSERT INTO t1 VALUES " + strings.Join(rows, ", ")
	case 3:
		return fmt.Sprintf("INSERT INTO t2 VALUES (%d, %s, %s)", id(), k(), v())
	case 4:
		return fmt.Sprintf("INSERT INTO t3 VALUES (%s, %s), (%s, %s)", k(), v(), k(), v())
	case 5:
		return fmt.Sprintf("UPDATE t1 SET v = %s WHERE id = %d", v(), id())
	case 6:
		return fmt.Sprintf("UPDATE t1 SET k = %s, s = %s WHERE k = %s", k(), s(), k())
	case 7:
		return fmt.Sprintf("UPDATE t1 SET id = id + 100 WHERE id = %d", id())
	case 8:
		return fmt.Sprintf("DELETE FROM t1 WHERE id = %d", id())
	case 9:
		return fmt.Sprintf("DELETE FROM t1 WHERE v < %d", rng.IntN(15))
	case 10:
		if rng.IntN(2) == 0 {
			return fmt.Sprintf("UPDATE t2 SET k = %s WHERE id = %d", k(), id())
		}
		return fmt.Sprintf("DELETE FROM t2 WHERE id = %d", id())
	default:
		return fmt.Sprintf("DELETE FROM t3 WHERE a = %s", k())
	}
}

func mustExec(t *testing.T, ctx context.Context, s *side, sql string) {
	t.Helper()
	if _, err := s.conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %s: %v", s.name, sql, err)
	}
}

// both runs sql on both sides; both must succeed or fail with the same
// SQLSTATE.
func both(t *testing.T, ctx context.Context, w, p *side, sql string) {
	t.Helper()
	_, werr := w.conn.Exec(ctx, sql)
	_, perr := p.conn.Exec(ctx, sql)
	if code(werr) != code(perr) {
		t.Fatalf("%s\nweir: %v\npostgres: %v", sql, werr, perr)
	}
}

func code(err error) string {
	if err == nil {
		return ""
	}
	if pe, ok := err.(*pgconn.PgError); ok {
		return pe.Code
	}
	return err.Error()
}

// compare checks every table and view: weir's rows must equal
// PostgreSQL's, as multisets of text rows.
func compare(t *testing.T, ctx context.Context, w, p *side, when string) {
	t.Helper()
	names := []string{"t1", "t2", "t3"}
	for _, v := range views {
		names = append(names, v.name)
	}
	for _, n := range names {
		sql := "SELECT * FROM " + n
		got, err := testenv.TextRows(ctx, w.conn, sql)
		if err != nil {
			t.Fatalf("%s: weir: %s: %v", when, sql, err)
		}
		want, err := testenv.TextRows(ctx, p.conn, sql)
		if err != nil {
			t.Fatalf("%s: postgres: %s: %v", when, sql, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s differs\nweir:     %v\npostgres: %v", when, n, got, want)
		}
	}
}
