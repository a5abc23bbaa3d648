package durability

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// enumRows returns the text of every row of query, each row's columns
// joined by "|", rows joined by ";".
func enumRows(t *testing.T, ctx context.Context, conn *pgx.Conn, query string) string {
	t.Helper()
	rows, err := conn.Query(ctx, query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := rows.RawValues()
		var cols []string
		for _, v := range vals {
			if v == nil {
				cols = append(cols, "NULL")
			} else {
				cols = append(cols, string(v))
			}
		}
		out = append(out, strings.Join(cols, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return strings.Join(out, ";")
}

// TestEnumViewUnderDMLAndRestart keeps materialized views grouped by and
// filtered on an enum column while rows change, a label is added before
// another and one is renamed, and checks them against the same queries
// run as batch queries, before and after a restart: the views' state
// keys the enum by its declaration order, which must survive both.
func TestEnumViewUnderDMLAndRestart(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	exec1(t, ctx, conn, "CREATE TYPE level AS ENUM ('low', 'mid', 'high')")
	exec1(t, ctx, conn, "CREATE TABLE ev (id int PRIMARY KEY, lv level, n int)")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW by_level AS SELECT lv, count(*) AS c, sum(n) AS s FROM ev GROUP BY lv")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW hot AS SELECT id, lv FROM ev WHERE lv >= 'mid'")
	exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW top_level AS SELECT max(lv) AS m, min(lv) AS l FROM ev")
	exec1(t, ctx, conn, "INSERT INTO ev SELECT g, (ARRAY['low','mid','high'])[g % 3 + 1]::level, g FROM generate_series(1, 300) g")
	exec1(t, ctx, conn, "UPDATE ev SET lv = 'high' WHERE id % 10 = 0")
	exec1(t, ctx, conn, "DELETE FROM ev WHERE id % 7 = 0")
	exec1(t, ctx, conn, "ALTER TYPE level ADD VALUE 'none' BEFORE 'low'")
	exec1(t, ctx, conn, "ALTER TYPE level ADD VALUE 'some' AFTER 'low'")
	exec1(t, ctx, conn, "UPDATE ev SET lv = 'some' WHERE id % 11 = 0")
	exec1(t, ctx, conn, "INSERT INTO ev VALUES (1000, 'none', 5), (1001, NULL, 6)")
	exec1(t, ctx, conn, "ALTER TYPE level RENAME VALUE 'high' TO 'top'")

	checks := []struct{ view, query string }{
		{"SELECT * FROM by_level ORDER BY lv", "SELECT lv, count(*), sum(n) FROM ev GROUP BY lv ORDER BY lv"},
		{"SELECT * FROM hot ORDER BY lv, id", "SELECT id, lv FROM ev WHERE lv >= 'mid' ORDER BY lv, id"},
		{"SELECT * FROM top_level", "SELECT max(lv), min(lv) FROM ev"},
	}
	verify := func(when string) {
		t.Helper()
		exec1(t, ctx, conn, "FLUSH")
		for _, c := range checks {
			got, want := enumRows(t, ctx, conn, c.view), enumRows(t, ctx, conn, c.query)
			if got != want || want == "" {
				t.Errorf("%s: %s gave\n%s\nwant\n%s", when, c.view, got, want)
			}
		}
		order := enumRows(t, ctx, conn, "SELECT lv FROM by_level ORDER BY lv")
		if order != "none;low;some;mid;top;NULL" {
			t.Errorf("%s: groups in order %q, want the declaration order none;low;some;mid;top;NULL", when, order)
		}
	}
	verify("before the restart")

	srv.Restart()
	conn = connect(t, ctx, srv)
	verify("after the restart")
	exec1(t, ctx, conn, "UPDATE ev SET lv = 'none' WHERE lv = 'top' AND id < 100")
	exec1(t, ctx, conn, "INSERT INTO ev VALUES (2000, 'some', 1)")
	verify("after changes following the restart")
	if _, err := conn.Exec(ctx, "INSERT INTO ev VALUES (3000, 'high', 1)"); err == nil || !strings.Contains(err.Error(), `invalid input value for enum level: "high"`) {
		t.Errorf("a renamed label was accepted: %v", err)
	}
}
