package planner

import (
	"fmt"
	"strings"
	"testing"
)

// findJoin returns the first StreamHashJoin of the plan under n.
func findJoin(n StreamNode) *StreamHashJoin {
	if j, ok := n.(*StreamHashJoin); ok {
		return j
	}
	for _, in := range n.StreamInputs() {
		if j := findJoin(in); j != nil {
			return j
		}
	}
	return nil
}

// boundsOf prints a join's bounds as "side.col >= expr" lines, sides
// named l and r, columns by their names.
func boundsOf(j *StreamHashJoin) string {
	var out []string
	for _, b := range j.Bounds {
		out = append(out, fmt.Sprintf("%s:%s >= %s", [...]string{"l", "r"}[b.Side], b.Name, FormatExpr(b.Expr)))
	}
	return strings.Join(out, "; ")
}

// TestJoinBounds checks which conditions give bounds: comparisons of a
// column with a monotone expression of the other side's watermarked
// column, in every direction, col ± constant moved across when exact,
// and equal join keys.
func TestJoinBounds(t *testing.T) {
	useTestFrontEnd()
	const from = "select o.id, p.id as pid from orders o join payments p on p.oid = o.id and "
	for _, tc := range []struct{ cond, want string }{
		{"p.ts between o.ts and o.ts + interval '30 seconds'",
			"r:p.ts >= o.ts; l:o.ts >= p.ts - '00:00:30'::interval"},
		// Mirrored and strict forms, the constant on either side.
		{"o.ts < p.ts and o.ts + interval '1 minute' > p.ts",
			"r:p.ts >= o.ts; l:o.ts >= p.ts - '00:01:00'::interval"},
		{"p.ts - interval '10 seconds' >= o.ts",
			"r:p.ts >= o.ts + '00:00:10'::interval"},
		{"interval '10 seconds' + o.ts <= p.ts",
			"r:p.ts >= '00:00:10'::interval + o.ts"},
		{"o.ts > p.ts - interval '1 hour'",
			"l:o.ts >= p.ts - '01:00:00'::interval"},
		// A day is 24 hours on a timestamp; a month has no fixed length,
		// so p.ts <= o.ts + 1 month bounds nothing.
		{"p.ts >= o.ts and p.ts <= o.ts + interval '1 day'",
			"r:p.ts >= o.ts; l:o.ts >= p.ts - '1 day'::interval"},
		{"p.ts >= o.ts and p.ts <= o.ts + interval '1 month'",
			"r:p.ts >= o.ts"},
		// Monotone functions of the other side's column bound too.
		{"p.ts >= date_bin(interval '1 minute', o.ts, timestamp '1970-01-01')",
			"r:p.ts >= date_bin('00:01:00'::interval, o.ts, '1970-01-01'::timestamp without time zone)"},
		// Not bounds: both sides of one side, a non-monotone expression,
		// an OR, a column of another type.
		{"p.ts >= p.ts - interval '1 second'", ""},
		{"p.ts >= o.ts - interval '1 second' * o.amt", ""},
		{"(p.ts >= o.ts or p.amt > 0)", ""},
		{"p.ts::date >= o.ts::date", ""},
	} {
		root, _, err := planStreamText(from + tc.cond)
		if err != nil {
			t.Fatalf("%s: %v", tc.cond, err)
		}
		j := findJoin(root)
		if got := boundsOf(j); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.cond, got, tc.want)
		}
	}

	// Without a watermark on the other side a comparison bounds
	// nothing: u has none, so only u (the left) is cleaned.
	root, _, err := planStreamText("select u.a, p.id from u join payments p on p.ts between u.ts and u.ts + interval '30 seconds'")
	if err != nil {
		t.Fatal(err)
	}
	if got := boundsOf(findJoin(root)); got != "l:u.ts >= p.ts - '00:00:30'::interval" {
		t.Errorf("u join payments: got %s", got)
	}
	if j := findJoin(root); j.RightClean != nil || j.LeftClean == nil || j.LeftClean.Index.Name != "join_left_clean" {
		t.Errorf("u join payments: cleans %+v %+v", j.LeftClean, j.RightClean)
	}

	// Equal join keys with watermarks on both sides bound each other;
	// the state ordered by them needs no index.
	root, _, err = planStreamText("select o.id from tumble(orders, ts, interval '1 minute') o join tumble(payments, ts, interval '1 minute') p on o.window_start = p.window_start")
	if err != nil {
		t.Fatal(err)
	}
	j := findJoin(root)
	if got := boundsOf(j); got != "l:o.window_start >= p.window_start; r:p.window_start >= o.window_start" {
		t.Errorf("window_start join: got %s", got)
	}
	if j.LeftClean == nil || j.LeftClean.Index.ID != 0 || j.RightClean == nil || j.RightClean.Index.ID != 0 {
		t.Errorf("window_start join: cleans %+v %+v", j.LeftClean, j.RightClean)
	}
}

// TestIntervalJoinEOWC plans a windowed aggregation over an interval
// join in EMIT ON WINDOW CLOSE mode: the join's output carries a
// watermark on p.ts (min of the payments' watermark and the orders'),
// so the aggregation can close its windows.
func TestIntervalJoinEOWC(t *testing.T) {
	root, err := planWM(t, `select date_bin(interval '1 minute', p.ts, timestamp '1970-01-01') as w, count(*) as n, sum(p.amt) as total
		from orders o join payments p on p.oid = o.id and p.ts between o.ts and o.ts + interval '30 seconds' group by 1`, true)
	if err != nil {
		t.Fatal(err)
	}
	got := ExplainStream(root)
	checkNode(t, got, "StreamHashAgg", "emit_on_window_close")
	checkNode(t, got, "StreamHashJoin", "watermark_columns: [ts#1, ts#4]")
	checkNode(t, got, "StreamMaterialize", "append_only, watermark_columns: [w]")

	// A full join pads both sides with NULLs: no watermark, no EOWC.
	_, err = planWM(t, `select date_bin(interval '1 minute', p.ts, timestamp '1970-01-01') as w, count(*) as n
		from orders o full join payments p on p.oid = o.id and p.ts between o.ts and o.ts + interval '30 seconds' group by 1`, true)
	if err == nil || !strings.Contains(err.Error(), "EMIT ON WINDOW CLOSE") {
		t.Fatalf("EOWC over a full join: got %v", err)
	}
}
