// Package admin tests, through the real wire and pgx, the server
// administration PostgreSQL users reach for: pg_stat_activity,
// pg_cancel_backend and pg_terminate_backend between sessions, their
// permission rules, and ALTER SYSTEM with pg_reload_conf across a
// restart. The tests are written against testenv.Target, so
// WEIR_TEST_TARGET=postgres runs them against PostgreSQL 15 to check
// what they expect.
package admin

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

// connect opens a session of user on the target's database.
func connect(t *testing.T, tg testenv.Target, user string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable&application_name=admin_test", user, tg.Addr(), tg.Database()))
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func exec(t *testing.T, c *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, q := range sqls {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func pgErr(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

func code(err error) string {
	if pe := pgErr(err); pe != nil {
		return pe.Code
	}
	return ""
}

// waitFor polls cond until it holds; it fails the test only when cond
// never holds within a minute (a bound on a hang, not a speed check).
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// activity is a session's row of pg_stat_activity as another sees it.
type activity struct {
	state, query *string
	usename      string
}

func activityOf(c *pgx.Conn, pid uint32) (activity, bool, error) {
	var a activity
	err := c.QueryRow(context.Background(), "SELECT state, query, usename FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&a.state, &a.query, &a.usename)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, false, nil
	}
	return a, err == nil, err
}

// waitActive waits until pid's session runs query.
func waitActive(t *testing.T, c *pgx.Conn, pid uint32, query string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("session %d to run %q", pid, query), func() (bool, error) {
		a, ok, err := activityOf(c, pid)
		return ok && a.state != nil && *a.state == "active" && a.query != nil && *a.query == query, err
	})
}

// run starts query on c and returns the channel its error arrives on.
func run(c *pgx.Conn, query string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(context.Background(), query)
		done <- err
	}()
	return done
}

func TestStatActivityAndCancel(t *testing.T) {
	tg := testenv.StartTarget(t)
	ctx := context.Background()
	a, b := connect(t, tg, tg.User()), connect(t, tg, tg.User())
	pid := a.PgConn().PID()

	// pg_backend_pid is the BackendKeyData pid, and pg_stat_activity's.
	var own int32
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&own); err != nil || uint32(own) != pid {
		t.Fatalf("pg_backend_pid() = %d, %v; BackendKeyData pid %d", own, err, pid)
	}
	var n int
	var app string
	if err := a.QueryRow(ctx, "SELECT count(*), min(application_name) FROM pg_stat_activity WHERE pid = pg_backend_pid() AND state = 'active' AND backend_type = 'client backend'").Scan(&n, &app); err != nil || n != 1 || app != "admin_test" {
		t.Fatalf("own row: %d rows, application_name %q, %v", n, app, err)
	}

	// An idle session shows its last statement.
	exec(t, a, "SELECT 42")
	waitFor(t, "the session to be idle", func() (bool, error) {
		r, ok, err := activityOf(b, pid)
		return ok && *r.state == "idle" && *r.query == "SELECT 42", err
	})
	waitEvent := func(want string) {
		t.Helper()
		waitFor(t, "wait event "+want, func() (bool, error) {
			var typ, ev *string
			err := b.QueryRow(ctx, "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&typ, &ev)
			return typ != nil && ev != nil && *typ+"/"+*ev == want, err
		})
	}
	// An idle session waits for its client.
	waitEvent("Client/ClientRead")
	exec(t, a, "BEGIN")
	waitFor(t, "the session to be idle in a transaction", func() (bool, error) {
		r, ok, err := activityOf(b, pid)
		return ok && *r.state == "idle in transaction", err
	})
	var xactStart, backendStart *time.Time
	if err := b.QueryRow(ctx, "SELECT xact_start, backend_start FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&xactStart, &backendStart); err != nil || xactStart == nil || backendStart == nil || xactStart.Before(*backendStart) {
		t.Fatalf("xact_start %v, backend_start %v: %v", xactStart, backendStart, err)
	}
	if _, err := a.Exec(ctx, "SELECT 1/0"); code(err) != "22012" {
		t.Fatalf("division by zero: %v", err)
	}
	waitFor(t, "the session to be idle in an aborted transaction", func() (bool, error) {
		r, ok, err := activityOf(b, pid)
		return ok && *r.state == "idle in transaction (aborted)", err
	})
	exec(t, a, "ROLLBACK")

	// A running statement is active; pg_cancel_backend cancels it with
	// 57014 and the session goes on.
	const sleep = "SELECT pg_sleep(600)"
	done := run(a, sleep)
	waitActive(t, b, pid, sleep)
	waitEvent("Timeout/PgSleep")
	var ok bool
	if err := b.QueryRow(ctx, "SELECT pg_cancel_backend($1)", int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend: %v, %v", ok, err)
	}
	err := <-done
	if pe := pgErr(err); pe == nil || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
		t.Fatalf("cancelled statement: %v", err)
	}
	var one int
	if err := a.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the session after the cancel: %d, %v", one, err)
	}

	// A long join is cancelled as well.
	const join = "SELECT count(*) FROM generate_series(1, 100000) a JOIN generate_series(1, 100000) b ON a % 7 = b % 7"
	done = run(a, join)
	waitActive(t, b, pid, join)
	if err := b.QueryRow(ctx, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = $1", join).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend of the join: %v, %v", ok, err)
	}
	if err := <-done; code(err) != "57014" {
		t.Fatalf("cancelled join: %v", err)
	}
	exec(t, a, "SELECT 1")

	// A pid that is no session: false, with a warning.
	var notices []string
	c := connectNotices(t, tg, tg.User(), &notices)
	if err := c.QueryRow(ctx, "SELECT pg_cancel_backend(2147483647)").Scan(&ok); err != nil || ok {
		t.Fatalf("pg_cancel_backend of no session: %v, %v", ok, err)
	}
	if len(notices) != 1 || notices[0] != "WARNING PID 2147483647 is not a PostgreSQL backend process" {
		t.Fatalf("notices %q", notices)
	}
}

// connectNotices is connect, collecting the notices the session gets.
func connectNotices(t *testing.T, tg testenv.Target, user string, notices *[]string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, tg.Addr(), tg.Database()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { *notices = append(*notices, n.Severity+" "+n.Message) }
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func TestTerminateBackend(t *testing.T) {
	tg := testenv.StartTarget(t)
	ctx := context.Background()
	a, b, idle := connect(t, tg, tg.User()), connect(t, tg, tg.User()), connect(t, tg, tg.User())
	pid := a.PgConn().PID()

	const sleep = "SELECT pg_sleep(600)"
	done := run(a, sleep)
	waitActive(t, b, pid, sleep)
	// With a timeout it returns once the session is gone.
	var ok bool
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend($1, 60000)", int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v, %v", ok, err)
	}
	err := <-done
	if pe := pgErr(err); pe == nil || pe.Code != "57P01" || pe.Severity != "FATAL" || pe.Message != "terminating connection due to administrator command" {
		t.Fatalf("terminated statement: %v", err)
	}
	if _, err := a.Exec(ctx, "SELECT 1"); err == nil || !a.IsClosed() {
		t.Fatalf("the terminated session still answers (closed %v): %v", a.IsClosed(), err)
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the terminated session's rows: %d, %v", n, err)
	}

	// An idle session is ended as well: its next statement finds the
	// connection closed.
	idlePID := idle.PgConn().PID()
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(idlePID)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend of an idle session: %v, %v", ok, err)
	}
	waitFor(t, "the idle session to end", func() (bool, error) {
		var n int
		err := b.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int32(idlePID)).Scan(&n)
		return n == 0, err
	})
	if _, err := idle.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("the terminated idle session still answers")
	}

	// A session may terminate itself: the statement ends with FATAL.
	_, err = b.Exec(ctx, "SELECT pg_terminate_backend(pg_backend_pid())")
	if pe := pgErr(err); pe == nil || pe.Code != "57P01" {
		t.Fatalf("terminating oneself: %v", err)
	}
}

func TestSignalPermissions(t *testing.T) {
	tg := testenv.StartTarget(t)
	ctx := context.Background()
	root := connect(t, tg, tg.User())
	exec(t, root, "CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN")
	alice, bob, bob2 := connect(t, tg, "alice"), connect(t, tg, "bob"), connect(t, tg, "bob")
	bobPID, rootPID := bob.PgConn().PID(), root.PgConn().PID()

	const sleep = "SELECT pg_sleep(600)"
	done := run(bob, sleep)
	waitActive(t, root, bobPID, sleep)

	// Another role's session: its query is hidden, and so is the rest
	// but its identity.
	var state, query, addr *string
	var usename, app string
	if err := alice.QueryRow(ctx, "SELECT state, query, client_addr::text, usename, application_name FROM pg_stat_activity WHERE pid = $1", int32(bobPID)).Scan(&state, &query, &addr, &usename, &app); err != nil {
		t.Fatal(err)
	}
	if state != nil || addr != nil || query == nil || *query != "<insufficient privilege>" || usename != "bob" || app != "admin_test" {
		t.Fatalf("alice sees bob's session as state %v, query %v, client_addr %v, usename %q, application_name %q", state, query, addr, usename, app)
	}

	// Signalling it is refused.
	for _, c := range []struct{ q, msg string }{
		{"SELECT pg_cancel_backend($1)", "must be a member of the role whose query is being canceled or member of pg_signal_backend"},
		{"SELECT pg_terminate_backend($1)", "must be a member of the role whose process is being terminated or member of pg_signal_backend"},
	} {
		_, err := alice.Exec(ctx, c.q, int32(bobPID))
		if pe := pgErr(err); pe == nil || pe.Code != "42501" || pe.Message != c.msg {
			t.Errorf("alice: %s: %v", c.q, err)
		}
	}
	// A superuser's session only a superuser signals.
	for _, c := range []struct{ q, msg string }{
		{"SELECT pg_cancel_backend($1)", "must be a superuser to cancel superuser query"},
		{"SELECT pg_terminate_backend($1)", "must be a superuser to terminate superuser process"},
	} {
		_, err := alice.Exec(ctx, c.q, int32(rootPID))
		if pe := pgErr(err); pe == nil || pe.Code != "42501" || pe.Message != c.msg {
			t.Errorf("alice: %s of root: %v", c.q, err)
		}
	}
	// The server's configuration is a superuser's.
	for _, c := range []struct{ q, msg string }{
		{"ALTER SYSTEM SET work_mem = '8MB'", `permission denied to set parameter "work_mem"`},
		{"ALTER SYSTEM RESET ALL", "permission denied to perform ALTER SYSTEM RESET ALL"},
		{"SELECT pg_reload_conf()", "permission denied for function pg_reload_conf"},
	} {
		_, err := alice.Exec(ctx, c.q)
		if pe := pgErr(err); pe == nil || pe.Code != "42501" || pe.Message != c.msg {
			t.Errorf("alice: %s: %v", c.q, err)
		}
	}

	// Once a member of bob, alice sees and cancels bob's statement.
	exec(t, root, "GRANT bob TO alice")
	if err := alice.QueryRow(ctx, "SELECT query FROM pg_stat_activity WHERE pid = $1", int32(bobPID)).Scan(&query); err != nil || query == nil || *query != sleep {
		t.Fatalf("alice, a member of bob, sees bob's query as %v: %v", query, err)
	}
	var ok bool
	if err := alice.QueryRow(ctx, "SELECT pg_cancel_backend($1)", int32(bobPID)).Scan(&ok); err != nil || !ok {
		t.Fatalf("alice, a member of bob, cancels: %v, %v", ok, err)
	}
	if err := <-done; code(err) != "57014" {
		t.Fatalf("bob's cancelled statement: %v", err)
	}

	// A role signals its own sessions.
	done = run(bob, sleep)
	waitActive(t, bob2, bobPID, sleep)
	if err := bob2.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(bobPID)).Scan(&ok); err != nil || !ok {
		t.Fatalf("bob terminates his own session: %v, %v", ok, err)
	}
	if err := <-done; code(err) != "57P01" {
		t.Fatalf("bob's terminated statement: %v", err)
	}
}

func TestAlterSystemAcrossRestart(t *testing.T) {
	tg := testenv.StartTarget(t)
	ctx := context.Background()
	show := func(c *pgx.Conn, name string) string {
		t.Helper()
		var v string
		if err := c.QueryRow(ctx, "SHOW "+name).Scan(&v); err != nil {
			t.Fatalf("SHOW %s: %v", name, err)
		}
		return v
	}
	root := connect(t, tg, tg.User())
	if _, err := root.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	_, err := root.Exec(ctx, "ALTER SYSTEM SET work_mem = '8MB'")
	if pe := pgErr(err); pe == nil || pe.Code != "25001" || pe.Message != "ALTER SYSTEM cannot run inside a transaction block" {
		t.Fatalf("ALTER SYSTEM in a block: %v", err)
	}
	exec(t, root, "ROLLBACK")

	exec(t, root, "ALTER SYSTEM SET work_mem = '8MB'", "ALTER SYSTEM SET statement_timeout = '2min'")
	// Kept, not yet in effect.
	if v := show(connect(t, tg, tg.User()), "work_mem"); v != "4MB" {
		t.Fatalf("work_mem before the reload: %s", v)
	}
	own := connect(t, tg, tg.User())
	exec(t, own, "SET work_mem = '1MB'")
	exec(t, root, "SELECT pg_reload_conf()")
	// A reload makes them every session's default; a session's own SET
	// stays. (PostgreSQL's sessions take the reload at their next
	// statement, after a signal: wait for it.)
	waitFor(t, "the reload", func() (bool, error) { return show(root, "work_mem") == "8MB", nil })
	if v := show(connect(t, tg, tg.User()), "work_mem"); v != "8MB" {
		t.Fatalf("work_mem of a new session: %s", v)
	}
	if v := show(own, "work_mem"); v != "1MB" {
		t.Fatalf("work_mem of a session that set it: %s", v)
	}
	var source string
	if err := root.QueryRow(ctx, "SELECT source FROM pg_settings WHERE name = 'work_mem'").Scan(&source); err != nil || source != "configuration file" {
		t.Fatalf("pg_settings.source of work_mem: %q, %v", source, err)
	}
	exec(t, own, "RESET work_mem")
	if v := show(own, "work_mem"); v != "8MB" {
		t.Fatalf("work_mem after RESET: %s", v)
	}

	// The values survive a restart.
	tg.Restart()
	after := connect(t, tg, tg.User())
	if w, s := show(after, "work_mem"), show(after, "statement_timeout"); w != "8MB" || s != "2min" {
		t.Fatalf("after a restart: work_mem %s, statement_timeout %s", w, s)
	}

	// statement_timeout from ALTER SYSTEM applies.
	exec(t, after, "ALTER SYSTEM SET statement_timeout = '100ms'", "SELECT pg_reload_conf()")
	waitFor(t, "the reload", func() (bool, error) { return show(after, "statement_timeout") == "100ms", nil })
	_, err = connect(t, tg, tg.User()).Exec(ctx, "SELECT pg_sleep(600)")
	if pe := pgErr(err); pe == nil || pe.Code != "57014" || !strings.Contains(pe.Message, "statement timeout") {
		t.Fatalf("a statement beyond the ALTER SYSTEM statement_timeout: %v", err)
	}

	exec(t, after, "ALTER SYSTEM RESET work_mem", "ALTER SYSTEM RESET ALL", "SELECT pg_reload_conf()")
	waitFor(t, "the reload", func() (bool, error) { return show(after, "work_mem") == "4MB", nil })
	tg.Restart()
	after = connect(t, tg, tg.User())
	if w, s := show(after, "work_mem"), show(after, "statement_timeout"); w != "4MB" || s != "0" {
		t.Fatalf("after RESET ALL and a restart: work_mem %s, statement_timeout %s", w, s)
	}
}
