package engine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestTableSample: TABLESAMPLE BERNOULLI and SYSTEM keep a share of the
// rows near the percentage (over 10,000 rows, within a bound a fair
// sample leaves with probability far below 1e-9), the same rows for the
// same REPEATABLE seed, none at 0 and all at 100; the arguments are
// checked as PostgreSQL checks them.
func TestTableSample(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustRun(t, s, "INSERT INTO t SELECT g, 'x' || g FROM generate_series(1, 10000) g")
	mustRun(t, s, "CREATE TABLE h (v int)") // a generated row id as key
	mustRun(t, s, "INSERT INTO h SELECT g FROM generate_series(1, 10000) g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t WHERE id <= 5000")
	count := func(q string) int {
		t.Helper()
		rows := mustRun(t, s, q)
		if len(rows) != 1 {
			t.Fatalf("%s: %v", q, rows)
		}
		n, err := strconv.Atoi(rows[0])
		if err != nil {
			t.Fatalf("%s: %v", q, rows)
		}
		return n
	}
	// 10,000 rows at p: mean 10,000p, standard deviation at most 50;
	// 400 is eight of them.
	for _, c := range []struct {
		q    string
		want int
	}{
		{"SELECT count(*) FROM t TABLESAMPLE BERNOULLI (10)", 1000},
		{"SELECT count(*) FROM t TABLESAMPLE SYSTEM (50)", 5000},
		{"SELECT count(*) FROM t AS a TABLESAMPLE BERNOULLI (25) REPEATABLE (7)", 2500},
		{"SELECT count(*) FROM h TABLESAMPLE BERNOULLI (90) REPEATABLE (1)", 9000},
		{"SELECT count(*) FROM mv TABLESAMPLE BERNOULLI (20)", 1000},
		{"SELECT count(*) FROM t TABLESAMPLE BERNOULLI (1.5) WHERE id > 0", 150},
	} {
		if n := count(c.q); n < c.want-400 || n > c.want+400 {
			t.Errorf("%s: %d rows, want about %d", c.q, n, c.want)
		}
	}
	wantRows(t, s, "SELECT count(*) FROM t TABLESAMPLE BERNOULLI (0)", "0")
	wantRows(t, s, "SELECT count(*) FROM t TABLESAMPLE SYSTEM (0) REPEATABLE (3)", "0")
	wantRows(t, s, "SELECT count(*) FROM t TABLESAMPLE BERNOULLI (100)", "10000")
	wantRows(t, s, "SELECT count(*) FROM mv TABLESAMPLE SYSTEM (100) REPEATABLE (3)", "5000")

	// The same seed keeps the same rows; another seed others. Without
	// REPEATABLE, each execution draws its own.
	sum := func(q string) string { t.Helper(); return mustRun(t, s, q)[0] }
	const rep = "SELECT sum(id) || ' ' || count(*) FROM t TABLESAMPLE BERNOULLI (30) REPEATABLE (%s)"
	a := sum(fmt.Sprintf(rep, "42"))
	if b := sum(fmt.Sprintf(rep, "42")); a != b {
		t.Errorf("REPEATABLE (42) gave %s, then %s", a, b)
	}
	if b := sum(fmt.Sprintf(rep, "42::numeric")); a != b {
		t.Errorf("REPEATABLE (42) gave %s, REPEATABLE (42::numeric) %s", a, b)
	}
	if b := sum(fmt.Sprintf(rep, "43")); a == b {
		t.Errorf("REPEATABLE (42) and (43) both gave %s", a)
	}
	// An index on the filtered column does not bypass the sample.
	mustRun(t, s, "CREATE INDEX t_v ON t (v)")
	wantRows(t, s, "SELECT count(*) FROM t TABLESAMPLE BERNOULLI (0) WHERE v = 'x5'", "0")
	const rnd = "SELECT sum(id) FROM t TABLESAMPLE BERNOULLI (50)"
	first, same := sum(rnd), 0
	for range 3 {
		if sum(rnd) == first {
			same++
		}
	}
	if same == 3 {
		t.Errorf("four executions without REPEATABLE all kept rows summing to %s", first)
	}
	// A prepared seed and percentage.
	wantRows(t, s, "PREPARE p(real, float8) AS SELECT count(*) FROM t TABLESAMPLE BERNOULLI ($1) REPEATABLE ($2)")
	wantRows(t, s, "EXECUTE p(100, 1)", "10000")
	wantRows(t, s, "EXECUTE p(0, 1)", "0")

	for _, c := range []struct {
		q    string
		code pgerr.Code
		msg  string
	}{
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (101)", pgerr.InvalidTablesampleArgument, "sample percentage must be between 0 and 100"},
		{"SELECT * FROM t TABLESAMPLE SYSTEM (-1)", pgerr.InvalidTablesampleArgument, "sample percentage must be between 0 and 100"},
		{"SELECT * FROM t TABLESAMPLE SYSTEM ('NaN')", pgerr.InvalidTablesampleArgument, "sample percentage must be between 0 and 100"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (NULL)", pgerr.InvalidTablesampleArgument, "TABLESAMPLE parameter cannot be null"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (5) REPEATABLE (NULL)", pgerr.InvalidTablesampleRepeat, "TABLESAMPLE REPEATABLE parameter cannot be null"},
		{"SELECT * FROM t TABLESAMPLE foo (5)", pgerr.UndefinedObject, "tablesample method foo does not exist"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (5, 6)", pgerr.InvalidTablesampleArgument, "tablesample method bernoulli requires 1 argument, not 2"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI ()", pgerr.SyntaxError, `syntax error at or near ")"`},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (true)", pgerr.DatatypeMismatch, "argument of TABLESAMPLE must be type real, not type boolean"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (1) REPEATABLE (true)", pgerr.DatatypeMismatch, "argument of REPEATABLE must be type double precision, not type boolean"},
		{"SELECT * FROM t TABLESAMPLE BERNOULLI (id)", pgerr.UndefinedColumn, `column "id" does not exist`},
		{"SELECT * FROM (SELECT 1) s TABLESAMPLE BERNOULLI (5)", pgerr.SyntaxError, `syntax error at or near "TABLESAMPLE"`},
		{"SELECT * FROM generate_series(1, 3) TABLESAMPLE BERNOULLI (5)", pgerr.SyntaxError, `syntax error at or near "TABLESAMPLE"`},
		{"WITH c AS (SELECT 1) SELECT * FROM c TABLESAMPLE BERNOULLI (5)", pgerr.FeatureNotSupported, "TABLESAMPLE clause can only be applied to tables and materialized views"},
		{"CREATE MATERIALIZED VIEW bad AS SELECT * FROM t TABLESAMPLE BERNOULLI (5)", pgerr.FeatureNotSupported, "TABLESAMPLE without REPEATABLE is not supported in materialized views"},
		{"CREATE MATERIALIZED VIEW bad AS SELECT * FROM t TABLESAMPLE BERNOULLI (5) REPEATABLE (random())", pgerr.FeatureNotSupported, "must be constants"},
		{"CREATE MATERIALIZED VIEW bad AS SELECT * FROM t TABLESAMPLE BERNOULLI (500) REPEATABLE (1)", pgerr.InvalidTablesampleArgument, "sample percentage must be between 0 and 100"},
		{"CREATE MATERIALIZED VIEW bad AS SELECT * FROM t TABLESAMPLE BERNOULLI (5) REPEATABLE (NULL)", pgerr.InvalidTablesampleRepeat, "TABLESAMPLE REPEATABLE parameter cannot be null"},
	} {
		wantCode(t, s, c.q, c.code, c.msg)
	}
	mustRun(t, s, "CREATE VIEW vv AS SELECT * FROM t")
	wantCode(t, s, "SELECT * FROM vv TABLESAMPLE BERNOULLI (5)", pgerr.FeatureNotSupported, "TABLESAMPLE clause can only be applied to tables and materialized views")
}

// TestTableSampleExplain: EXPLAIN shows the sampled scan with its
// method and arguments, as PostgreSQL's "Sampling:" line does.
func TestTableSampleExplain(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	out := strings.Join(mustRun(t, s, "EXPLAIN SELECT * FROM t TABLESAMPLE BERNOULLI (10) REPEATABLE (1)"), "\n")
	if !strings.Contains(out, "SampleScan t [id, v] (Sampling: bernoulli (") || !strings.Contains(out, "REPEATABLE (") {
		t.Errorf("EXPLAIN: %s", out)
	}
	out = strings.Join(mustRun(t, s, "EXPLAIN SELECT * FROM t TABLESAMPLE SYSTEM (10)"), "\n")
	if !strings.Contains(out, "Sampling: system (") || strings.Contains(out, "REPEATABLE") {
		t.Errorf("EXPLAIN: %s", out)
	}
}

// TestTableSampleView: a view keeps its TABLESAMPLE clause, printed as
// PostgreSQL prints it.
func TestTableSampleView(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	mustRun(t, s, "INSERT INTO t SELECT g, 'x' || g FROM generate_series(1, 100) g")
	mustRun(t, s, "CREATE VIEW v0 AS SELECT id FROM t AS a TABLESAMPLE BERNOULLI (0) REPEATABLE (1)")
	mustRun(t, s, "CREATE VIEW v100 AS SELECT id FROM t TABLESAMPLE SYSTEM (100)")
	wantRows(t, s, "SELECT count(*) FROM v0", "0")
	wantRows(t, s, "SELECT count(*) FROM v100", "100")
	got := strings.Join(mustRun(t, s, "SELECT pg_get_viewdef('v0')"), "\n")
	if !strings.Contains(got, "FROM t a TABLESAMPLE bernoulli (0) REPEATABLE (1)") {
		t.Errorf("pg_get_viewdef: %q", got)
	}
}

// TestTableSampleMaterializedView: a materialized view over TABLESAMPLE
// ... REPEATABLE keeps the rows a query with the same seed keeps, and
// follows the table: an inserted row appears iff it is sampled, a
// deleted one goes, an updated one changes in place.
func TestTableSampleMaterializedView(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "SET streaming_parallelism = 1")
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustRun(t, s, "INSERT INTO t SELECT g, g FROM generate_series(1, 2000) g")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m AS SELECT id, v FROM t TABLESAMPLE BERNOULLI (30) REPEATABLE (5)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW m0 AS SELECT count(*) AS n FROM t TABLESAMPLE SYSTEM (0) REPEATABLE (5)")
	const q = "SELECT count(*) || ' ' || coalesce(sum(id), 0) || ' ' || coalesce(sum(v), 0) FROM t TABLESAMPLE BERNOULLI (30) REPEATABLE (5)"
	const mq = "SELECT count(*) || ' ' || coalesce(sum(id), 0) || ' ' || coalesce(sum(v), 0) FROM m"
	same := func(when string) {
		t.Helper()
		want, got := mustRun(t, s, q)[0], mustRun(t, s, mq)[0]
		if want != got {
			t.Errorf("%s: view has %s, the query %s", when, got, want)
		}
	}
	same("created")
	n, _ := strconv.Atoi(strings.Fields(mustRun(t, s, mq)[0])[0])
	if n < 600-250 || n > 600+250 {
		t.Errorf("30%% of 2000 rows: %d", n)
	}
	mustRun(t, s, "INSERT INTO t SELECT g, g FROM generate_series(2001, 3000) g")
	same("after inserts")
	mustRun(t, s, "DELETE FROM t WHERE id % 3 = 0")
	same("after deletes")
	mustRun(t, s, "UPDATE t SET v = v + 1000000 WHERE id % 5 = 0")
	same("after updates")
	wantRows(t, s, "SELECT n FROM m0", "0")
	wantRows(t, s, "SELECT count(*) FROM m WHERE id % 3 = 0", "0")
	// After a restart the view goes on sampling the same way.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	s = session(t, e)
	mustRun(t, s, "INSERT INTO t SELECT g, g FROM generate_series(3001, 4000) g")
	same("after a restart and inserts")
	wantRows(t, s, "SELECT n FROM m0", "0")
}
