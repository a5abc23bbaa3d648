package durability

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// TestKillDuringAlterType SIGKILLs the server while ALTER TABLE ...
// ALTER COLUMN ... TYPE rewrites 100,000 rows: before the rewrite
// commits, the table comes back as it was; in the middle of moving the
// committed rows into the table, it comes back converted, whole.
func TestKillDuringAlterType(t *testing.T) {
	for _, tc := range []struct {
		point     string
		converted bool
	}{
		{fault.AlterRewritten, false},
		{fault.SpillMove + ":2", true},
	} {
		t.Run(tc.point, func(t *testing.T) {
			srv := testenv.Start(t, testenv.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			conn := connect(t, ctx, srv)
			exec1(t, ctx, conn, "CREATE TABLE big (id int PRIMARY KEY, v text, pad text)")
			exec1(t, ctx, conn, "INSERT INTO big SELECT g, (g % 1000)::text, repeat('x', 40) FROM generate_series(1, 100000) g")
			srv.SetEnv("WEIR_FAULT=" + tc.point)
			srv.Restart()
			conn = connect(t, ctx, srv)
			_, err := conn.Exec(ctx, "ALTER TABLE big ALTER COLUMN v TYPE bigint USING v::bigint * 2")
			if err == nil {
				t.Fatal("ALTER TABLE succeeded although the server was killed during it")
			}
			if _, err := srv.WaitExit(time.Minute); err != nil {
				t.Fatalf("the server did not die at the fault point: %v", err)
			}
			srv.SetEnv()
			srv.Restart()
			conn = connect(t, ctx, srv)
			var typ string
			var n, sum int64
			if err := conn.QueryRow(ctx, "SELECT pg_typeof(v)::text, count(*), sum(v::bigint) FROM big GROUP BY 1").Scan(&typ, &n, &sum); err != nil {
				t.Fatalf("reading the table after the restart: %v", err)
			}
			want := int64(49950000) // the sum of g % 1000 over 1..100000
			wantType := "text"
			if tc.converted {
				want, wantType = 2*want, "bigint"
			}
			if typ != wantType || n != 100000 || sum != want {
				t.Fatalf("after the restart v is %s with %d rows summing to %d; want %s, 100000, %d", typ, n, sum, wantType, want)
			}
			exec1(t, ctx, conn, "INSERT INTO big VALUES (0, '7', '')")
			var v int64
			if err := conn.QueryRow(ctx, "SELECT v::bigint FROM big WHERE id = 0").Scan(&v); err != nil || v != 7 {
				t.Fatalf("a row written after the restart reads %d, %v", v, err)
			}
		})
	}
}

// TestKillDuringAlterTypeIndexes SIGKILLs the server at each phase of an
// ALTER COLUMN ... TYPE of a column with an index and a UNIQUE
// constraint, which the ALTER drops and builds again: whether the table
// comes back converted or as it was, both indexes are back, the
// constraint rejects a duplicate, and reads through an index return what
// a scan of the table does.
func TestKillDuringAlterTypeIndexes(t *testing.T) {
	const n = 30000
	for _, tc := range []struct {
		point     string
		converted bool
	}{
		{fault.AlterIndexesDropped, false},
		{fault.AlterRewritten, false},
		{fault.SpillMove, true},
		{fault.AlterCommitted, true},
		{fault.AlterIndexRebuilt, true},
	} {
		t.Run(tc.point, func(t *testing.T) {
			srv := testenv.Start(t, testenv.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			conn := connect(t, ctx, srv)
			exec1(t, ctx, conn, "CREATE TABLE big (id int PRIMARY KEY, v text UNIQUE, pad text)")
			exec1(t, ctx, conn, "CREATE INDEX big_v_pad ON big (v, pad)")
			exec1(t, ctx, conn, fmt.Sprintf("INSERT INTO big SELECT g, g::text, repeat('x', 40) FROM generate_series(1, %d) g", n))
			const indexes = "SELECT indexname || ': ' || indexdef FROM pg_indexes WHERE tablename = 'big' ORDER BY 1"
			before := column(t, ctx, conn, indexes)
			if len(before) != 3 {
				t.Fatalf("before the ALTER the indexes are %q, want the primary key's, big_v_key and big_v_pad", before)
			}
			srv.SetEnv("WEIR_FAULT=" + tc.point)
			srv.Restart()
			conn = connect(t, ctx, srv)
			if _, err := conn.Exec(ctx, "ALTER TABLE big ALTER COLUMN v TYPE bigint USING v::bigint * 2"); err == nil {
				t.Fatal("ALTER TABLE succeeded although the server was killed during it")
			}
			if _, err := srv.WaitExit(time.Minute); err != nil {
				t.Fatalf("the server did not die at the fault point: %v", err)
			}
			srv.SetEnv()
			srv.Restart()
			conn = connect(t, ctx, srv)

			var typ string
			var count, sum int64
			if err := conn.QueryRow(ctx, "SELECT pg_typeof(v)::text, count(*), sum(v::bigint) FROM big GROUP BY 1").Scan(&typ, &count, &sum); err != nil {
				t.Fatalf("reading the table after the restart: %v", err)
			}
			want, wantType, factor := int64(n*(n+1)/2), "text", int64(1)
			// Seq-scan forms of the column, which no index serves.
			scanned := "v || ''"
			if tc.converted {
				want, wantType, factor, scanned = 2*want, "bigint", 2, "v + 0"
			}
			if typ != wantType || count != n || sum != want {
				t.Fatalf("after the restart v is %s with %d rows summing to %d; want %s, %d, %d", typ, count, sum, wantType, n, want)
			}
			if after := column(t, ctx, conn, indexes); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("after the restart the indexes are\n%q\nwant\n%q", after, before)
			}
			if con := column(t, ctx, conn, "SELECT conname || ' ' || contype FROM pg_constraint WHERE conrelid = 'big'::regclass ORDER BY 1"); fmt.Sprint(con) != "[big_pkey p big_v_key u]" {
				t.Fatalf("after the restart the constraints are %q", con)
			}

			// The constraint holds the converted keys: 7 (or 14) is taken.
			_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO big VALUES (0, '%d', '')", 7*factor))
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "23505" || pgErr.ConstraintName != "big_v_key" {
				t.Fatalf("a duplicate of v: got %v, want 23505 on big_v_key", err)
			}
			exec1(t, ctx, conn, fmt.Sprintf("INSERT INTO big VALUES (0, '%d', 'y')", (n+1)*factor))

			for _, q := range []struct{ indexed, scan string }{
				{fmt.Sprintf("SELECT id, pad FROM big WHERE v = '%d'", 4321*factor), fmt.Sprintf("SELECT id, pad FROM big WHERE %s = '%d'", scanned, 4321*factor)},
				{fmt.Sprintf("SELECT id, pad FROM big WHERE v = '%d'", (n+1)*factor), fmt.Sprintf("SELECT id, pad FROM big WHERE %s = '%d'", scanned, (n+1)*factor)},
				{fmt.Sprintf("SELECT count(*), sum(id) FROM big WHERE v >= '%d'", 29000*factor), fmt.Sprintf("SELECT count(*), sum(id) FROM big WHERE %s >= '%d'", scanned, 29000*factor)},
			} {
				plan := strings.Join(column(t, ctx, conn, "EXPLAIN "+q.indexed), "\n")
				if !indexScan.MatchString(plan) {
					t.Fatalf("%s does not read an index of v:\n%s", q.indexed, plan)
				}
				got, want := column(t, ctx, conn, q.indexed), column(t, ctx, conn, q.scan)
				if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s returns %q; the scan of the table %q", q.indexed, got, want)
				}
			}
		})
	}
}

// indexScan matches an EXPLAIN line reading one of big's indexes of v.
var indexScan = regexp.MustCompile(`Index\w*Scan big_v_\w+ on big`)

// column returns the rows of query, each row's columns joined by " ".
func column(t *testing.T, ctx context.Context, conn *pgx.Conn, query string) []string {
	t.Helper()
	rs, err := conn.Query(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		vals, err := rs.Values()
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
