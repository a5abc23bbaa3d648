package dialect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/weirdb/weir/tests/testenv"
)

// transcript records what a client sees of a scenario: results, errors
// and notices, in order.
type transcript struct{ lines []string }

func (tr *transcript) add(format string, args ...any) {
	tr.lines = append(tr.lines, fmt.Sprintf(format, args...))
}

func (tr *transcript) result(tag pgconn.CommandTag, err error) {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		tr.add("ok %s", tag)
	case errors.As(err, &pe):
		tr.add("error %s %s", pe.Code, pe.Message)
	default:
		tr.add("error %v", err)
	}
}

// TestPipelineTransactions runs scenarios of extended-protocol batches
// (several Bind/Execute before one Sync, pgx's SendBatch) and of SET
// LOCAL and set_config(..., true) outside a transaction block on weir and
// on PostgreSQL 15, which must tell the client the same things: a batch
// is one implicit transaction that a failure rolls back, and a local
// setting lasts until its end.
func TestPipelineTransactions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pg := testenv.StartPostgres(t)
	pg.CreateUserDB(t, "root", "dev")
	w := testenv.Start(t, testenv.Options{})

	type scenario struct {
		name string
		run  func(c *pgx.Conn, tr *transcript)
	}
	// batch sends stmts as one batch and records each result.
	batch := func(c *pgx.Conn, tr *transcript, stmts ...string) {
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s)
		}
		br := c.SendBatch(ctx, b)
		for range stmts {
			tr.result(br.Exec())
		}
		if err := br.Close(); err != nil {
			tr.add("close: %v", err)
		}
	}
	// query runs text in the extended protocol and records its rows.
	query := func(c *pgx.Conn, tr *transcript, text string) {
		rows, err := c.Query(ctx, text)
		if err != nil {
			tr.result(pgconn.CommandTag{}, err)
			return
		}
		for rows.Next() {
			vals, _ := rows.Values()
			tr.add("row %v", vals)
		}
		tr.result(rows.CommandTag(), rows.Err())
	}
	// simple runs text in the simple protocol and records its results.
	simple := func(c *pgx.Conn, tr *transcript, text string) {
		res, err := c.PgConn().Exec(ctx, text).ReadAll()
		for _, r := range res {
			for _, row := range r.Rows {
				tr.add("row %q", row)
			}
			tr.result(r.CommandTag, r.Err)
		}
		if err != nil {
			tr.result(pgconn.CommandTag{}, err)
		}
	}
	scenarios := []scenario{
		{"failed batch rolls back", func(c *pgx.Conn, tr *transcript) {
			batch(c, tr, "INSERT INTO plt VALUES (1)", "INSERT INTO plt VALUES (1)", "INSERT INTO plt VALUES (3)")
			query(c, tr, "SELECT count(*) FROM plt")
		}},
		{"batch commits at Sync", func(c *pgx.Conn, tr *transcript) {
			batch(c, tr, "INSERT INTO plt VALUES (1)", "INSERT INTO plt VALUES (2)", "SELECT count(*) FROM plt")
			query(c, tr, "SELECT id FROM plt ORDER BY id")
		}},
		{"COMMIT and ROLLBACK in a batch", func(c *pgx.Conn, tr *transcript) {
			batch(c, tr, "INSERT INTO plt VALUES (10)", "COMMIT", "INSERT INTO plt VALUES (10)")
			batch(c, tr, "INSERT INTO plt VALUES (11)", "ROLLBACK", "INSERT INTO plt VALUES (12)")
			batch(c, tr, "INSERT INTO plt VALUES (13)", "BEGIN", "INSERT INTO plt VALUES (14)")
			query(c, tr, "ROLLBACK")
			query(c, tr, "SELECT id FROM plt ORDER BY id")
		}},
		{"ROLLBACK in a Query", func(c *pgx.Conn, tr *transcript) {
			simple(c, tr, "INSERT INTO plt VALUES (20); ROLLBACK; INSERT INTO plt VALUES (21)")
			query(c, tr, "SELECT id FROM plt ORDER BY id")
		}},
		{"statements refused in a batch", func(c *pgx.Conn, tr *transcript) {
			batch(c, tr, "SELECT 1", "LOCK plt")
			batch(c, tr, "SELECT 1", "DECLARE cur CURSOR FOR SELECT 1")
			batch(c, tr, "SELECT 1", "SAVEPOINT sp")
			batch(c, tr, "SELECT 1", "DISCARD ALL")
			simple(c, tr, "SELECT 1; DISCARD ALL")
		}},
		{"set_config local outside a block", func(c *pgx.Conn, tr *transcript) {
			query(c, tr, "SELECT set_config('statement_timeout', '1234', true)")
			query(c, tr, "SELECT set_config('work_mem', '1MB', true), current_setting('work_mem')")
			query(c, tr, "SHOW work_mem")
			query(c, tr, "SHOW statement_timeout")
			simple(c, tr, "SELECT set_config('work_mem', '1MB', true), current_setting('work_mem')")
			simple(c, tr, "SHOW work_mem")
		}},
		{"local settings last until Sync", func(c *pgx.Conn, tr *transcript) {
			batch(c, tr, "SELECT set_config('work_mem', '3MB', true)", "SHOW work_mem")
			query(c, tr, "SHOW work_mem")
			batch(c, tr, "SET LOCAL work_mem = '2MB'", "SHOW work_mem")
			query(c, tr, "SHOW work_mem")
			batch(c, tr, "SELECT set_config('work_mem', '1MB', true)", "SELECT set_config('work_mem', '5MB', false)")
			query(c, tr, "SHOW work_mem")
			simple(c, tr, "RESET work_mem")
		}},
		{"SET LOCAL outside a block", func(c *pgx.Conn, tr *transcript) {
			simple(c, tr, "SET LOCAL work_mem = '2MB'")
			simple(c, tr, "SHOW work_mem")
			simple(c, tr, "SET LOCAL work_mem = '2MB'; SHOW work_mem")
			simple(c, tr, "SHOW work_mem")
			query(c, tr, "SET LOCAL work_mem = '2MB'")
			query(c, tr, "SHOW work_mem")
			simple(c, tr, "SET LOCAL TimeZone = 'Asia/Tokyo'")
			tr.add("TimeZone %s", c.PgConn().ParameterStatus("TimeZone"))
			simple(c, tr, "SELECT set_config('work_mem', '1MB', true), 1/(SELECT count(*)::int FROM plt)")
			simple(c, tr, "SHOW work_mem")
		}},
	}
	run := func(connString string, kind string) []string {
		var out []string
		for _, sc := range scenarios {
			cfg, err := pgx.ParseConfig(connString)
			if err != nil {
				t.Fatal(err)
			}
			tr := &transcript{}
			cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
				tr.add("%s %s %s", n.Severity, n.Code, n.Message)
			}
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			for _, st := range []string{"DROP TABLE IF EXISTS plt", "CREATE TABLE plt (id int PRIMARY KEY)", "SET TimeZone = 'UTC'"} {
				if _, err := c.Exec(ctx, st); err != nil {
					t.Fatalf("%s: %s: %v", kind, st, err)
				}
			}
			tr.lines = nil
			sc.run(c, tr)
			c.Close(ctx)
			out = append(out, "-- "+sc.name)
			out = append(out, tr.lines...)
		}
		return out
	}
	want := run(pg.As("root", "dev").ConnString(), "postgres")
	got := run(w.ConnString(), "weir")
	if g, p := strings.Join(got, "\n"), strings.Join(want, "\n"); g != p {
		t.Errorf("weir and PostgreSQL differ:\n--- weir\n%s\n--- postgres\n%s", g, p)
	}
}
