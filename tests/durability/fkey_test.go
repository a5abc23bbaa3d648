package durability

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// TestKillDuringCascade SIGKILLs the server while a DELETE of 20,000
// referenced rows cascades to their 60,000 referencing rows, whose
// changes outgrow the statement's share of a small memory budget and go
// through spill areas: killed while the committed areas move into the
// tables, the server comes back with the whole cascade, and the
// materialized view over the referencing table agrees with the table.
func TestKillDuringCascade(t *testing.T) {
	const parents, perParent, deleted = 40000, 3, 20000
	for _, point := range []string{fault.SpillMove} {
		t.Run(point, func(t *testing.T) {
			srv := testenv.Start(t, testenv.Options{Args: []string{"--memory-budget", "24"}})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			conn := connect(t, ctx, srv)
			// Long keys: a move's batches hold deletes, which are keys.
			exec1(t, ctx, conn, "CREATE TABLE p (id text PRIMARY KEY, pad text)")
			exec1(t, ctx, conn, "CREATE TABLE c (id text PRIMARY KEY, pid text REFERENCES p ON DELETE CASCADE, v int)")
			exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW cv AS SELECT count(*) AS n, sum(v) AS s FROM c")
			exec1(t, ctx, conn, fmt.Sprintf("INSERT INTO p SELECT lpad(g::text, 60, '0'), 'p' FROM generate_series(1, %d) g", parents))
			exec1(t, ctx, conn, fmt.Sprintf("INSERT INTO c SELECT lpad(g::text, 60, 'c'), lpad(((g - 1) / %d + 1)::text, 60, '0'), g %% 7 FROM generate_series(1, %d) g", perParent, parents*perParent))
			srv.SetEnv("WEIR_FAULT=" + point)
			srv.Restart()
			conn = connect(t, ctx, srv)
			_, err := conn.Exec(ctx, fmt.Sprintf("DELETE FROM p WHERE id <= lpad('%d', 60, '0')", deleted))
			if err == nil && point == fault.SpillMove {
				t.Fatal("the DELETE succeeded although the server was to be killed moving its spill areas")
			}
			if _, err := srv.WaitExit(time.Minute); err != nil {
				t.Fatalf("the server did not die at the fault point: %v", err)
			}
			srv.SetEnv()
			srv.Restart()
			conn = connect(t, ctx, srv)
			var np, nc, orphans, mvN, mvS, sum int64
			if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM c), (SELECT coalesce(sum(v), 0) FROM c)").Scan(&np, &nc, &sum); err != nil {
				t.Fatalf("counting after the restart: %v", err)
			}
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM c WHERE pid NOT IN (SELECT id FROM p)").Scan(&orphans); err != nil {
				t.Fatalf("looking for orphans: %v", err)
			}
			if err := conn.QueryRow(ctx, "SELECT n, coalesce(s, 0) FROM cv").Scan(&mvN, &mvS); err != nil {
				t.Fatalf("reading the view: %v", err)
			}
			whole := np == parents && nc == parents*perParent
			cascaded := np == parents-deleted && nc == (parents-deleted)*perParent
			if !whole && !cascaded || orphans != 0 {
				t.Fatalf("after the restart p has %d rows and c %d (%d orphans); want all of them or the cascade whole", np, nc, orphans)
			}
			if point == fault.SpillMove && !cascaded {
				t.Fatalf("killed after the commit, the cascade is lost: p has %d rows, c %d", np, nc)
			}
			if mvN != nc || mvS != sum {
				t.Fatalf("the view counts %d rows summing to %d; c has %d summing to %d", mvN, mvS, nc, sum)
			}
			// The constraint still holds after the restart.
			if _, err := conn.Exec(ctx, "INSERT INTO c VALUES ('x', 'x', 0)"); err == nil {
				t.Fatal("a row referencing no key was accepted after the restart")
			}
		})
	}
}
