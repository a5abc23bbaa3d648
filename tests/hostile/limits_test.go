package hostile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// sqlstate returns the SQLSTATE of a server error ("" for nil or another
// kind of error).
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// nested returns open repeated n times, then mid, then close repeated n
// times.
func nested(open, mid, close string, n int) string {
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

// TestNestingDepth sends statements nested far past any stack: Postgres
// answers them with 54001 (stack depth limit exceeded); so must weir,
// without its server dying of a Go stack overflow, and promptly (a
// 300,000-deep CASE used to bind in time quadratic in its depth).
func TestNestingDepth(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const m = 1_000_000
	cases := []struct{ name, sql string }{
		{"parentheses", "SELECT " + nested("(", "1", ")", m)},
		{"NOT", "SELECT " + strings.Repeat("NOT ", m/5) + "true"},
		{"unary minus", "SELECT " + strings.Repeat("- ", m/5) + "1"},
		{"abs", "SELECT " + nested("abs(", "1", ")", 300_000)},
		{"1+1+...", "SELECT 1" + strings.Repeat("+1", m)},
		{"CASE", "SELECT " + nested("CASE WHEN true THEN ", "1", " END", 100_000)},
		{"scalar subqueries", "SELECT " + nested("(SELECT ", "1", ")", 100_000)},
		{"ARRAY", "SELECT " + nested("ARRAY[", "1", "]", m/5)},
	}
	for _, c := range cases {
		t0 := time.Now()
		_, err := conn.Exec(ctx, c.sql, pgx.QueryExecModeSimpleProtocol)
		t.Logf("%s: %v", c.name, time.Since(t0))
		if got := sqlstate(err); got != "54001" {
			t.Errorf("%s: got %v (SQLSTATE %q), want SQLSTATE 54001", c.name, err, got)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %s: SELECT 1 = %d, %v; the server should still answer", c.name, one, err)
		}
	}
	// The extended protocol parses in Parse, not Query.
	if _, err := conn.Exec(ctx, "SELECT "+nested("(", "$1::int", ")", m/5), 1); sqlstate(err) != "54001" {
		t.Errorf("extended protocol: got %v, want SQLSTATE 54001", err)
	}
	// Deep but within the limit still works, and so does a long
	// generated OR chain.
	var n int
	if err := conn.QueryRow(ctx, "SELECT "+nested("(", "1", ")", 1000)+strings.Repeat("+1", 999)).Scan(&n); err != nil || n != 1000 {
		t.Errorf("1000 nested parentheses + 999 terms: %d, %v; want 1000", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 10) g WHERE "+strings.Repeat("g = 3 OR ", 20_000)+"g = 4").Scan(&n); err != nil || n != 2 {
		t.Errorf("20,000-term OR: %d, %v; want 2", n, err)
	}
	if !srv.Running() {
		t.Fatal("the server exited")
	}
}

// TestTimeoutCoversParseAndBind: statement_timeout runs from the moment
// the statement arrives, so a statement that takes long to parse and bind
// is canceled there, as in Postgres, rather than only once it executes.
func TestTimeoutCoversParseAndBind(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET statement_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	// About 9,000 nested calls: within the nesting limit, and far more
	// than a millisecond's work to parse and bind.
	q := "SELECT " + nested("abs(", "1", ")", 9000)
	_, err = conn.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if got := sqlstate(err); got != "57014" {
		t.Fatalf("got %v (SQLSTATE %q), want 57014 canceling statement due to statement timeout", err, got)
	}
	if _, err := conn.Exec(ctx, "SET statement_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
		t.Fatalf("without a timeout: %d, %v; want 1", n, err)
	}
}

// manyCTEs is a WITH of n CTEs, none of them referenced, then SELECT 1.
func manyCTEs(n int) string {
	var sb strings.Builder
	sb.WriteString("WITH ")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "c%d AS (SELECT %d)", i, i)
	}
	sb.WriteString(" SELECT 1")
	return sb.String()
}

// TestManyCTEs sends a WITH of 20,000 CTEs (half a megabyte, which
// Postgres answers in seconds). Each CTE used to copy the scope of every
// earlier one: binding took minutes and gigabytes, and since that loop
// never looked at the statement's context, neither statement_timeout nor
// the client leaving stopped it. The statement must now either succeed
// or be canceled by its timeout, with the server's peak resident set
// far below what the copies took, and the session must answer after it.
func TestManyCTEs(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	q := manyCTEs(20_000)
	for _, timeout := range []string{"60s", "100ms"} {
		if _, err := conn.Exec(ctx, "SET statement_timeout = '"+timeout+"'"); err != nil {
			t.Fatal(err)
		}
		resetPeak(t, srv.Pid())
		var n int
		t0 := time.Now()
		err := conn.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n)
		t.Logf("statement_timeout %s: %v in %v, peak RSS %d MB", timeout, err, time.Since(t0), procStatus(t, srv.Pid(), "VmHWM")>>20)
		if got := sqlstate(err); !(err == nil && n == 1 || got == "57014") {
			t.Fatalf("statement_timeout %s: got %d, %v (SQLSTATE %q); want 1 or 57014", timeout, n, err, got)
		}
		const limit = 1 << 30
		if peak := procStatus(t, srv.Pid(), "VmHWM"); peak > limit {
			t.Errorf("statement_timeout %s: peak RSS %d MB, over %d MB", timeout, peak>>20, limit>>20)
		}
		if err := conn.QueryRow(ctx, "SELECT 2").Scan(&n); err != nil || n != 2 {
			t.Fatalf("after the statement: SELECT 2 = %d, %v", n, err)
		}
	}
}

// TestJSONNestingDepth sends jsonb and jsonpath values nested far past
// any stack. A jsonpath nested a million parentheses deep overflowed the
// Go stack of its parser, which killed the server; PostgreSQL refuses
// such a path when its parser's stack is full (42601 memory exhausted)
// and a path or a jsonb value whose evaluation would recurse too deep
// with 54001. The server must answer each with PostgreSQL's SQLSTATE
// and stay up. WEIR_TEST_TARGET=postgres runs it against PostgreSQL.
func TestJSONNestingDepth(t *testing.T) {
	srv := target(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const m = 1_000_000
	path := func(p string) string { return "SELECT jsonb_path_query('[1]', '" + p + "'::jsonpath)" }
	cases := []struct{ name, sql, code string }{
		{"jsonpath parentheses", path(nested("(", "$", ")", m)), "42601"},
		{"jsonpath unary minus", path(strings.Repeat("-", m) + "1"), "42601"},
		{"jsonpath NOT", path("$ ? (" + nested("!(", "@ == 1", ")", m/10) + ")"), "42601"},
		{"jsonpath filters", path("$" + nested(" ? (@", " == 1", ")", m/10)), "42601"},
		{"jsonpath subscripts", path("$" + nested("[$", "", "]", m/10)), "42601"},
		{"jsonpath accessors", path("$" + strings.Repeat(".a", 2*m)), "54001"},
		{"jsonpath 1+1+...", path("1" + strings.Repeat("+1", m)), "54001"},
		{"jsonb arrays", "SELECT jsonb_typeof('" + nested("[", "1", "]", m) + "'::jsonb)", "54001"},
		{"jsonb objects", "SELECT jsonb_typeof('" + nested(`{"a":`, "1", "}", m) + "'::jsonb)", "54001"},
		{"json arrays", "SELECT json_typeof('" + nested("[", "1", "]", m) + "'::json)", "54001"},
	}
	for _, c := range cases {
		_, err := conn.Exec(ctx, c.sql, pgx.QueryExecModeSimpleProtocol)
		if got := sqlstate(err); got != c.code {
			t.Errorf("%s: got %v (SQLSTATE %q), want SQLSTATE %s", c.name, err, got, c.code)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %s: SELECT 1 = %d, %v; the server should still answer", c.name, one, err)
		}
	}
	// Within the limits, nesting still works.
	var s string
	if err := conn.QueryRow(ctx, path(nested("(", "$[0]", ")", 1000)+strings.Repeat("+1", 999)+" + "+strings.Repeat("-", 999)+"1")).Scan(&s); err != nil || s != "999" {
		t.Errorf("1000 nested parentheses, 999 terms and 999 signs: %q, %v; want 999", s, err)
	}
}

// TestNestingDepthMemory sends statements of 6 to 23 MB nested two to
// ten million deep to a server with a 64 MB --memory-budget: each must be
// refused with 54001 while the server's peak resident set stays below
// 400 MB (the budget and generous room for the runtime). The nesting
// used to be measured only once every token of the statement was held,
// some sixty bytes per byte of text: 750 MB to 1.4 GB and seconds of the
// collector's time for a statement refused in its first kilobytes.
func TestNestingDepthMemory(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{Args: memoryArgs()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const m = 10_000_000
	for _, c := range []struct{ name, sql string }{
		{"parentheses", "SELECT " + nested("(", "1", ")", m)},
		{"NOT", "SELECT " + strings.Repeat("NOT ", m/2) + "true"},
		{"casts", "SELECT 1" + strings.Repeat("::int", m/2)},
		// Chains of postfix subscripts and field selections nest too,
		// one level a link; their parse held a gigabyte and ran on
		// past statement_timeout.
		{"subscripts", "SELECT (ARRAY[1])" + strings.Repeat("[1]", m/5)},
		{"fields", "SELECT (ROW(1))" + strings.Repeat(".f1", m/5)},
	} {
		resetPeak(t, srv.Pid())
		_, err := conn.Exec(ctx, c.sql, pgx.QueryExecModeSimpleProtocol)
		peak := procStatus(t, srv.Pid(), "VmHWM")
		t.Logf("%s (%d MB): peak RSS %d MB", c.name, len(c.sql)>>20, peak>>20)
		if got := sqlstate(err); got != "54001" {
			t.Errorf("%s: got %v (SQLSTATE %q), want SQLSTATE 54001", c.name, err, got)
		}
		const limit = 400 << 20
		if peak > limit {
			t.Errorf("%s: peak RSS %d MB, over %d MB with --memory-budget %d", c.name, peak>>20, limit>>20, budgetMB)
		}
	}
}

// cteChain is a WITH of n+1 CTEs, each but the first reading the one
// before, and a SELECT of the last.
func cteChain(n int) string {
	var sb strings.Builder
	sb.WriteString("WITH c0 AS (SELECT 1 AS x)")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, ", c%d AS (SELECT x FROM c%d)", i, i-1)
	}
	fmt.Fprintf(&sb, " SELECT x FROM c%d", n)
	return sb.String()
}

// TestQueryNestingDepth sends a chain of CTEs each reading the one
// before: nothing is nested in the text, but binding it nests a query
// per link, and 200,000 links overflowed the binder's Go stack, which
// killed the server. Past the binder's limit of nested queries the
// statement is refused with 54001 and the server answers on; a chain
// within the limit still works.
func TestQueryNestingDepth(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, cteChain(5000), pgx.QueryExecModeSimpleProtocol)
	if got := sqlstate(err); got != "54001" {
		t.Errorf("a chain of 5,000 CTEs: got %v (SQLSTATE %q), want SQLSTATE 54001", err, got)
	}
	var x int
	if err := conn.QueryRow(ctx, cteChain(500), pgx.QueryExecModeSimpleProtocol).Scan(&x); err != nil || x != 1 {
		t.Errorf("a chain of 500 CTEs: %d, %v; want 1", x, err)
	}
	if !srv.Running() {
		t.Fatal("the server exited")
	}
}
