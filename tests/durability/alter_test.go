package durability

import (
	"context"
	"testing"
	"time"

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
