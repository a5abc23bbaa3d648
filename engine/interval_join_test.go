package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
)

// joinTables returns the ids and names of the state tables of the first
// join in view name's plan.
func joinTables(t *testing.T, e *Engine, name string) map[string]uint32 {
	t.Helper()
	rel, ok := e.cat.Lookup("public", name)
	if !ok {
		t.Fatalf("no view %s", name)
	}
	root, err := e.planView(rel)
	if err != nil {
		t.Fatal(err)
	}
	var find func(n planner.StreamNode) *planner.StreamHashJoin
	find = func(n planner.StreamNode) *planner.StreamHashJoin {
		if j, ok := n.(*planner.StreamHashJoin); ok {
			return j
		}
		for _, in := range n.StreamInputs() {
			if j := find(in); j != nil {
				return j
			}
		}
		return nil
	}
	j := find(root)
	if j == nil || j.LeftClean == nil || j.RightClean == nil || j.LeftClean.Index.ID == 0 || j.RightClean.Index.ID == 0 {
		t.Fatalf("view %s: no interval join cleaning both sides through index tables", name)
	}
	return map[string]uint32{"left": j.LeftState.ID, "right": j.RightState.ID, "left_clean": j.LeftClean.Index.ID, "right_clean": j.RightClean.Index.ID}
}

// committedRows counts the committed rows of state table id.
func committedRows(t *testing.T, e *Engine, id uint32) int {
	t.Helper()
	snap := e.db.NewSnapshot()
	defer snap.Close()
	n := 0
	if err := snap.ScanPrefix(storage.TablePrefix(id), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIntervalJoinStateCleaned runs interval joins of two tables with
// watermarks in the engine, on two actors, and checks that their state
// stays within the rows the watermarks have not passed while every
// order and payment goes through, across a crash and recovery, and that
// the views equal the same queries run as batch queries.
func TestIntervalJoinStateCleaned(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE orders (id int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	mustRun(t, s, "CREATE TABLE payments (id int, oid int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY")
	const inner = "SELECT o.id AS oid, p.id AS pid FROM orders o JOIN payments p ON p.oid = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '30 seconds'"
	const left = "SELECT o.id AS oid, p.id AS pid FROM orders o LEFT JOIN payments p ON p.oid = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '30 seconds'"
	mustRun(t, s, "CREATE MATERIALIZED VIEW paid WITH (streaming_parallelism = 2) AS "+inner)
	mustRun(t, s, "CREATE MATERIALIZED VIEW order_payments WITH (streaming_parallelism = 2) AS "+left)

	// Order i is placed at second i; its payment comes (i*37 mod 41) s
	// later, in time when within 30 s. Step k inserts the orders and the
	// payments of seconds [10k, 10k+10), so no row is late.
	const perStep = 10
	delay := func(i int) int { return i * 37 % 41 }
	ts := func(sec int) string {
		return fmt.Sprintf("'2024-01-01 00:00:00'::timestamp + INTERVAL '%d seconds'", sec)
	}
	payAt := map[int][]int{}
	run := func(k int) {
		var os, ps []string
		for i := k * perStep; i < (k+1)*perStep; i++ {
			os = append(os, fmt.Sprintf("(%d, %s)", i, ts(i)))
			payAt[i+delay(i)] = append(payAt[i+delay(i)], i)
		}
		for sec := k * perStep; sec < (k+1)*perStep; sec++ {
			for _, o := range payAt[sec] {
				ps = append(ps, fmt.Sprintf("(%d, %d, %s)", 1000+o, o, ts(sec)))
			}
		}
		mustRun(t, s, "INSERT INTO orders VALUES "+strings.Join(os, ", "))
		if len(ps) > 0 {
			mustRun(t, s, "INSERT INTO payments VALUES "+strings.Join(ps, ", "))
		}
	}
	// A side keeps the rows its bound has not passed: orders within 30 s
	// + the payments' 5 s lag + one step of the clock, payments within
	// the orders' 5 s lag + one step; 10 rows a second at most in all.
	const maxOrders, maxPayments = 30 + 5 + 2*perStep, 5 + 2*perStep
	check := func(when string) {
		t.Helper()
		for _, view := range []string{"paid", "order_payments"} {
			tables := joinTables(t, e, view)
			l, r := committedRows(t, e, tables["left"]), committedRows(t, e, tables["right"])
			li, ri := committedRows(t, e, tables["left_clean"]), committedRows(t, e, tables["right_clean"])
			if l > maxOrders || r > maxPayments || l != li || r != ri {
				t.Fatalf("%s, view %s: %d order rows (index %d), %d payment rows (index %d); bounds %d and %d", when, view, l, li, r, ri, maxOrders, maxPayments)
			}
			t.Logf("%s, view %s: %d order rows, %d payment rows in the join's state", when, view, l, r)
		}
		for view, q := range map[string]string{"paid": inner, "order_payments": left} {
			got := mustRun(t, s, "SELECT oid, pid FROM "+view+" ORDER BY 1, 2")
			want := mustRun(t, s, q+" ORDER BY 1, 2")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: view %s has %d rows, the batch query %d", when, view, len(got), len(want))
			}
		}
	}
	for k := 0; k < 30; k++ {
		run(k)
	}
	check("after 300 orders")
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	e.Close()

	e = openTest(t, crashed)
	defer e.Close()
	s = session(t, e)
	for k := 30; k < 60; k++ {
		run(k)
	}
	check("after a recovery and 600 orders")
	wantRows(t, s, "SELECT count(*) FROM paid", fmt.Sprint(countMatched(600, 60*perStep, delay)))
}

// countMatched counts the orders below n whose payment, sent before
// second until, came within 30 s.
func countMatched(n, until int, delay func(int) int) int {
	c := 0
	for i := 0; i < n; i++ {
		if d := delay(i); d <= 30 && i+d < until {
			c++
		}
	}
	return c
}
