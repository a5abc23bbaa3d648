package durability

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

// queryStrings runs a query returning one text column and returns its
// rows.
func queryStrings(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string) []string {
	t.Helper()
	rs, err := conn.Query(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out, err := pgx.CollectRows(rs, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// tempRelations lists every temporary relation in pg_class as
// schema.name, sorted.
const tempRelations = `SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relpersistence = 't' ORDER BY 1`

// TestTempTablesTwoSessions runs two sessions over the wire: each has its
// own temporary table of one name, which hides a permanent table of that
// name from it alone; neither reads or drops the other's; an abrupt
// disconnect drops the session's temporary relations (an index and a
// view with them); and those of a session still open when the server is
// killed are gone after the restart.
func TestTempTablesTwoSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv := testenv.Start(t, testenv.Options{})
	a := connect(t, ctx, srv)
	b := connect(t, ctx, srv)

	exec1(t, ctx, a, "CREATE TABLE tmp (id int PRIMARY KEY, v text)")
	exec1(t, ctx, a, "INSERT INTO tmp VALUES (0, 'permanent')")
	exec1(t, ctx, a, "CREATE TEMP TABLE tmp (id int PRIMARY KEY, v text)")
	exec1(t, ctx, a, "INSERT INTO tmp VALUES (1, 'a1'), (2, 'a2')")
	exec1(t, ctx, a, "CREATE INDEX tmp_v ON tmp (v)")
	exec1(t, ctx, a, "CREATE TEMP VIEW tmp_view AS SELECT count(*) AS n FROM tmp")

	// B does not see A's temporary table: it reads the permanent one.
	if got := queryStrings(t, ctx, b, "SELECT v FROM tmp ORDER BY id"); fmt.Sprint(got) != "[permanent]" {
		t.Fatalf("session B reads tmp as %v, want the permanent table's [permanent]", got)
	}
	if _, err := b.Exec(ctx, "SELECT * FROM tmp_view"); sqlstateOf(err) != "42P01" {
		t.Fatalf("session B reading A's temporary view: err %v, want 42P01", err)
	}
	// Nor by its schema's name, which pg_class shows to all.
	aSchema := queryStrings(t, ctx, a, "SELECT nspname::text FROM pg_namespace WHERE oid = pg_my_temp_schema()")
	if len(aSchema) != 1 || !strings.HasPrefix(aSchema[0], "pg_temp_") {
		t.Fatalf("session A's temporary schema: %v", aSchema)
	}
	for _, stmt := range []string{"SELECT * FROM %s.tmp", "DROP TABLE %s.tmp", "TRUNCATE %s.tmp", "INSERT INTO %s.tmp VALUES (9, 'b')"} {
		q := fmt.Sprintf(stmt, aSchema[0])
		if _, err := b.Exec(ctx, q); sqlstateOf(err) != "0A000" {
			t.Fatalf("session B: %s: err %v, want 0A000 (cannot access temporary tables of other sessions)", q, err)
		}
	}
	// B's own temporary table of the same name, another shape.
	exec1(t, ctx, b, "CREATE TEMP TABLE tmp (k text, n bigint)")
	exec1(t, ctx, b, "INSERT INTO tmp VALUES ('b', 10)")
	if got := queryStrings(t, ctx, b, "SELECT k || n FROM tmp"); fmt.Sprint(got) != "[b10]" {
		t.Fatalf("session B's own tmp: %v", got)
	}
	if got := queryStrings(t, ctx, a, "SELECT v FROM tmp ORDER BY id"); fmt.Sprint(got) != "[a1 a2]" {
		t.Fatalf("session A's tmp after B wrote its own: %v", got)
	}
	// Each sees its own as visible (psql's \dt), the other's not.
	visible := "SELECT n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'tmp' AND pg_table_is_visible(c.oid)"
	if got := queryStrings(t, ctx, a, visible); fmt.Sprint(got) != fmt.Sprint(aSchema) {
		t.Fatalf("session A's visible tmp is in %v, want %v", got, aSchema)
	}
	bSchema := queryStrings(t, ctx, b, "SELECT nspname::text FROM pg_namespace WHERE oid = pg_my_temp_schema()")
	if len(bSchema) != 1 || bSchema[0] == aSchema[0] {
		t.Fatalf("session B's temporary schema %v, A's %v", bSchema, aSchema)
	}
	if got := queryStrings(t, ctx, b, visible); fmt.Sprint(got) != fmt.Sprint(bSchema) {
		t.Fatalf("session B's visible tmp is in %v, want %v", got, bSchema)
	}

	// A goes away without a goodbye: its socket just closes.
	if err := a.PgConn().Conn().Close(); err != nil {
		t.Fatal(err)
	}
	wantLeft := fmt.Sprint([]string{bSchema[0] + ".tmp"})
	var left []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = queryStrings(t, ctx, b, tempRelations); fmt.Sprint(left) == wantLeft {
			break
		}
	}
	if fmt.Sprint(left) != wantLeft {
		t.Fatalf("after session A disconnected, the temporary relations are %v, want %v", left, wantLeft)
	}
	if got := queryStrings(t, ctx, b, "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE 'pg_temp%' ORDER BY 1"); fmt.Sprint(got) != fmt.Sprint(bSchema) {
		t.Fatalf("temporary schemas after A left: %v, want %v", got, bSchema)
	}
	if got := queryStrings(t, ctx, b, "SELECT v FROM public.tmp"); fmt.Sprint(got) != "[permanent]" {
		t.Fatalf("the permanent tmp after A left: %v", got)
	}
	// A new session may take A's schema number: it starts empty.
	c := connect(t, ctx, srv)
	exec1(t, ctx, c, "CREATE TEMP TABLE fresh (x int)")
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM pg_class WHERE relnamespace = pg_my_temp_schema()"); fmt.Sprint(got) != "[1]" {
		t.Fatalf("a new session's temporary schema holds %v relations, want only its own 1", got)
	}
	exec1(t, ctx, c, "DISCARD TEMP")
	if got := queryStrings(t, ctx, c, "SELECT count(*)::text FROM pg_class WHERE relname = 'fresh'"); fmt.Sprint(got) != "[0]" {
		t.Fatalf("after DISCARD TEMP pg_class still has fresh: %v", got)
	}

	// B still holds its table, with an index, when the server dies.
	exec1(t, ctx, b, "CREATE INDEX tmp_k ON tmp (k)")
	exec1(t, ctx, b, "INSERT INTO tmp SELECT 'r' || g, g FROM generate_series(1, 1000) g")
	srv.Kill()
	srv.Restart()
	d := connect(t, ctx, srv)
	if got := queryStrings(t, ctx, d, tempRelations); len(got) != 0 {
		t.Fatalf("after a kill and restart the temporary relations %v survive", got)
	}
	if got := queryStrings(t, ctx, d, "SELECT v FROM tmp"); fmt.Sprint(got) != "[permanent]" {
		t.Fatalf("after the restart tmp reads %v, want the permanent table's row", got)
	}
	if log, err := os.ReadFile(srv.LogPath); err != nil || !strings.Contains(string(log), `msg="dropped temporary relations left by the last run" count=2`) {
		t.Fatalf("the restart did not report dropping the 2 leftover temporary relations (%v):\n%s", err, srv.Tail(3000))
	}
	// The name is free for a new temporary table, which starts empty.
	exec1(t, ctx, d, "CREATE TEMP TABLE tmp (k text, n bigint)")
	if got := queryStrings(t, ctx, d, "SELECT count(*)::text FROM tmp"); fmt.Sprint(got) != "[0]" {
		t.Fatalf("a new temporary tmp after the restart holds %v rows", got)
	}
}
