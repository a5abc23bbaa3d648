package durability

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// TestKillDuringCreateTableAs SIGKILLs the server once CREATE TABLE AS
// has written its table's rows but before the statement completes: as
// in PostgreSQL the table does not exist after the restart, and running
// the statement again creates it whole.
func TestKillDuringCreateTableAs(t *testing.T) {
	srv := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn := connect(t, ctx, srv)
	exec1(t, ctx, conn, "CREATE TABLE big (id int, v text)")
	exec1(t, ctx, conn, "INSERT INTO big SELECT g, g::text FROM generate_series(1, 10000) g")
	srv.SetEnv("WEIR_FAULT=" + fault.CreateTableAsFilled)
	srv.Restart()
	conn = connect(t, ctx, srv)
	if _, err := conn.Exec(ctx, "CREATE TABLE big8 AS SELECT * FROM big"); err == nil {
		t.Fatal("CREATE TABLE AS succeeded although the server was killed during it")
	}
	if _, err := srv.WaitExit(time.Minute); err != nil {
		t.Fatalf("the server did not die at the fault point: %v", err)
	}
	srv.SetEnv()
	srv.Restart()
	conn = connect(t, ctx, srv)
	var gone bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('big8') IS NULL").Scan(&gone); err != nil || !gone {
		t.Fatalf("after the restart big8 exists (%v, %v); want no table", !gone, err)
	}
	exec1(t, ctx, conn, "CREATE TABLE big8 AS SELECT * FROM big")
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM big8").Scan(&n); err != nil || n != 10000 {
		t.Fatalf("big8 made again holds %d rows (%v), want 10000", n, err)
	}
}
