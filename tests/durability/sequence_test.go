package durability

import (
	"context"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/testenv"
)

// TestSequenceNeverRepeatsAfterKill hands out values of a serial and an
// identity column (inserted, and taken by nextval alone) and of a
// sequence made by CREATE SEQUENCE, SIGKILLs the server and checks that
// every value handed out afterwards is above all of them: a crash may
// skip values, never repeat one. It kills the server three times,
// including right after a setval and an ALTER SEQUENCE ... RESTART, and
// once before the created sequence has handed out any value (it then
// starts at its START).
func TestSequenceNeverRepeatsAfterKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target := testenv.StartTarget(t)
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL)")
	exec1(t, ctx, conn, "CREATE TABLE u (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)")
	exec1(t, ctx, conn, "CREATE SEQUENCE s AS integer START WITH 50")
	target.Kill()
	target.Restart()
	conn = connect(t, ctx, target)
	var first int64
	if err := conn.QueryRow(ctx, "SELECT nextval('s')").Scan(&first); err != nil || first != 50 {
		t.Fatalf("first nextval('s') after a restart: %d, %v; want 50", first, err)
	}
	var maxT, maxU, maxS int64 = 0, 0, 50
	take := func(round int) {
		t.Helper()
		for i := 0; i < 40; i++ {
			var sv int64
			if err := conn.QueryRow(ctx, "SELECT nextval('s')").Scan(&sv); err != nil {
				t.Fatal(err)
			}
			if sv <= maxS {
				t.Fatalf("round %d: sequence s gave %d after %d was handed out", round, sv, maxS)
			}
			maxS = sv
			var id int64
			if err := conn.QueryRow(ctx, "INSERT INTO t (v) VALUES ('x') RETURNING id").Scan(&id); err != nil {
				t.Fatal(err)
			}
			if id <= maxT {
				t.Fatalf("round %d: serial value %d after %d was handed out", round, id, maxT)
			}
			maxT = id
			if err := conn.QueryRow(ctx, "SELECT nextval('t_id_seq')").Scan(&id); err != nil {
				t.Fatal(err)
			}
			if id <= maxT {
				t.Fatalf("round %d: nextval gave %d after %d was handed out", round, id, maxT)
			}
			maxT = id
			if err := conn.QueryRow(ctx, "INSERT INTO u (v) VALUES ('y') RETURNING id").Scan(&id); err != nil {
				t.Fatal(err)
			}
			if id <= maxU {
				t.Fatalf("round %d: identity value %d after %d was handed out", round, id, maxU)
			}
			maxU = id
		}
	}
	for round := 1; round <= 3; round++ {
		take(round)
		if round == 2 {
			var v int64
			if err := conn.QueryRow(ctx, "SELECT setval('u_id_seq', 1000)").Scan(&v); err != nil || v != 1000 {
				t.Fatalf("setval: %d, %v", v, err)
			}
			maxU = 1000
		}
		if round == 3 {
			exec1(t, ctx, conn, "ALTER SEQUENCE s RESTART WITH 5000")
			maxS = 4999
		}
		target.Kill()
		target.Restart()
		conn = connect(t, ctx, target)
	}
	take(4)
	if maxS < 5000+40-1 {
		t.Fatalf("sequence s ends at %d after the restart at 5000 and 40 values", maxS)
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 160 {
		t.Fatalf("t has %d rows (%v), want 160", n, err)
	}
}
