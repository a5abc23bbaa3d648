package security

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A role that may not read a pipeline sees nothing of it: neither its
// relations in information_schema nor its jobs' state and row counts in
// the weir schema, and it cannot force checkpoints with FLUSH; a role
// granted SELECT sees what it may read.
func TestOthersPipelinesStayHidden(t *testing.T) {
	s := startWeir(t, nil, "user=root sslmode=disable")
	ctx := context.Background()
	root := s.login(t, "root")
	execAll(t, root,
		"CREATE TABLE payroll (id int PRIMARY KEY, salary int)",
		"CREATE MATERIALIZED VIEW payroll_total AS SELECT sum(salary) AS total FROM payroll",
		"INSERT INTO payroll VALUES (1, 100)",
		"CREATE TABLE notices (id int, body text)",
		"CREATE MATERIALIZED VIEW notice_count AS SELECT count(*) AS n FROM notices",
		"CREATE ROLE mallory LOGIN",
		"GRANT SELECT ON notices, notice_count TO mallory",
		"FLUSH",
	)
	mallory := s.login(t, "mallory")
	list := func(c *pgx.Conn, q string) string {
		t.Helper()
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		vs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return strings.Join(vs, ",")
	}
	for _, c := range []struct{ q, root, mallory string }{
		{"SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
			"notice_count,notices,payroll,payroll_total", "notice_count,notices"},
		{"SELECT DISTINCT table_name::text FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1",
			"notices,payroll", "notices"},
		{"SELECT name FROM weir.jobs ORDER BY 1", "notice_count,payroll_total", "notice_count"},
		{"SELECT DISTINCT job FROM weir.operators ORDER BY 1", "notice_count,payroll_total", "notice_count"},
		{"SELECT DISTINCT job FROM weir.state_tables ORDER BY 1", "notice_count,payroll_total", "notice_count"},
	} {
		if got := list(root, c.q); got != c.root {
			t.Errorf("root: %s: %q, want %q", c.q, got, c.root)
		}
		if got := list(mallory, c.q); got != c.mallory {
			t.Errorf("mallory: %s: %q, want %q", c.q, got, c.mallory)
		}
	}
	wantDenied(t, mallory, "EXPLAIN MATERIALIZED VIEW payroll_total", "permission denied for materialized view payroll_total")
	wantDenied(t, mallory, "FLUSH", "must be superuser to do FLUSH")
	if _, err := mallory.Exec(ctx, "EXPLAIN MATERIALIZED VIEW notice_count"); err != nil {
		t.Errorf("mallory explains a view she may read: %v", err)
	}
}
