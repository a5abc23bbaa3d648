package planner

import (
	"maps"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// wmCatalog is the stream test catalog plus an append-only table and a
// source with watermarks on their ts columns.
func wmCatalog() *fakeCatalog {
	c := streamCatalog()
	add := func(r *catalog.Relation) {
		r.OID = r.ID + catalog.FirstUserOID
		r.Schema = "public"
		c.rels[r.Name] = r
	}
	add(&catalog.Relation{ID: 30, Name: "clicks", Kind: catalog.KindTable, PK: []int{3},
		With: map[string]string{"append_only": "true", WithWatermarkColumn: "ts", WithWatermarkExpr: "ts - pg_cast('5 seconds', 'interval')"},
		Cols: []catalog.Column{col("uid", types.TInt4), col("ts", types.TTimestamp), col("n", types.TInt8),
			{Name: "_row_id", T: types.TInt8, Hidden: true}}})
	add(&catalog.Relation{ID: 31, Name: "taps", Kind: catalog.KindSource, PK: []int{2},
		With: map[string]string{WithWatermarkColumn: "t", WithWatermarkExpr: "t - 10", WithWatermarkIdleTimeout: "250"},
		Cols: []catalog.Column{col("k", types.TText), col("t", types.TInt8), {Name: "_row_id", T: types.TInt8, Hidden: true}}})
	return c
}

func planWM(t *testing.T, text string, eowc bool) (*StreamMaterialize, error) {
	t.Helper()
	useTestFrontEnd()
	q, err := parseQuery(text)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := Bind(q, wmCatalog(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mv := &catalog.Relation{ID: 100, Name: "mv1", Kind: catalog.KindMView, With: map[string]string{}}
	if eowc {
		mv.With[WithEmitOnWindowClose] = "true"
	}
	next := uint32(1000)
	root, err := PlanStream(bd.Plan, mv, func() uint32 { next++; return next })
	if err == nil {
		if errs := validateStream(root); len(errs) > 0 {
			t.Fatal(errs)
		}
	}
	return root, err
}

func TestRelWatermark(t *testing.T) {
	useTestFrontEnd()
	c := wmCatalog()
	w, err := RelWatermark(c.rels["clicks"])
	if err != nil {
		t.Fatal(err)
	}
	if w.Col != 1 || w.T != types.TTimestamp || w.IdleTimeoutMs != DefaultWatermarkIdleTimeoutMs || FormatExpr(w.Expr) != "clicks.ts - '00:00:05'::interval" {
		t.Fatalf("got %+v %s", w, FormatExpr(w.Expr))
	}
	w, err = RelWatermark(c.rels["taps"])
	if err != nil {
		t.Fatal(err)
	}
	if w.Col != 1 || w.IdleTimeoutMs != 250 {
		t.Fatalf("got %+v", w)
	}
	if w, err := RelWatermark(c.rels["emp"]); w != nil || err != nil {
		t.Fatalf("no watermark: got %v %v", w, err)
	}
	bad := []struct {
		col, expr, idle string
		code            pgerr.Code
	}{
		{"nope", "nope", "", pgerr.UndefinedColumn},
		{"k", "k", "", pgerr.FeatureNotSupported},
		{"ts", "uid", "", pgerr.DatatypeMismatch},
		{"ts", "ts - pg_cast('1 day', 'interval') + ", "", pgerr.SyntaxError},
		{"ts", "(select max(ts) from x)", "", pgerr.FeatureNotSupported},
		{"ts", "ts", "-1", pgerr.InvalidParameterValue},
		// Near 2^63 milliseconds overflow a time.Duration.
		{"ts", "ts", "9223372036854775000", pgerr.InvalidParameterValue},
		{"ts", "ts", "2147483648", pgerr.InvalidParameterValue},
		{"_row_id", "_row_id", "", pgerr.UndefinedColumn},
	}
	for _, b := range bad {
		rel := &catalog.Relation{Name: "x", Kind: catalog.KindTable, PK: []int{3}, With: map[string]string{WithWatermarkColumn: b.col, WithWatermarkExpr: b.expr},
			Cols: []catalog.Column{col("uid", types.TInt4), col("ts", types.TTimestamp), col("k", types.TText), {Name: "_row_id", T: types.TInt8, Hidden: true}}}
		if b.idle != "" {
			rel.With[WithWatermarkIdleTimeout] = b.idle
		}
		_, err := RelWatermark(rel)
		if pe := pgerr.As(err); pe == nil || pe.Code != b.code {
			t.Errorf("%s AS %s (idle %q): got %v, want %s", b.col, b.expr, b.idle, err, b.code)
		}
	}
	taps := *c.rels["taps"]
	taps.With = maps.Clone(taps.With)
	taps.With[WithWatermarkIdleTimeout] = "2147483647"
	if w, err := RelWatermark(&taps); err != nil || w.IdleTimeoutMs != MaxWatermarkIdleTimeoutMs {
		t.Errorf("the largest idle timeout: got %+v, %v", w, err)
	}
}

func TestStreamWatermarkColumns(t *testing.T) {
	root, err := planWM(t, `select date_bin(interval '1 minute', ts, timestamp '1970-01-01') as w, ts + interval '1 hour' as later, uid, n, ts::date as d, count(*) as c
		from clicks where n > 0 group by 1, 2, 3, 4, 5`, false)
	if err != nil {
		t.Fatal(err)
	}
	got := ExplainStream(root)
	// Every key computed from ts carries a watermark; uid and n do not.
	const dateBin = "date_bin('00:01:00'::interval, clicks.ts, '1970-01-01'::timestamp without time zone)"
	const later = "clicks.ts + '01:00:00'::interval"
	checkNode(t, got, "StreamTableScan", "watermark_columns: [ts]")
	checkNode(t, got, "StreamFilter", "watermark_columns: [ts]")
	checkNode(t, got, "StreamExchange", "watermark_columns: [ts, "+dateBin+", "+later+", clicks.ts::date]")
	checkNode(t, got, "StreamHashAgg", "watermark_columns: ["+dateBin+", "+later+", clicks.ts::date]")
	checkNode(t, got, "StreamMaterialize", "watermark_columns: [w, later, d]")
	if strings.Contains(got, "emit_on_window_close") {
		t.Errorf("EOWC without asking:\n%s", got)
	}

	// Expressions that may decrease as ts grows carry none.
	root, err = planWM(t, `select -n as m, ts - interval '1 day' * n as x, count(*) from clicks group by 1, 2`, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := ExplainStream(root); strings.Contains(nodeLine(got, "StreamHashAgg"), "watermark_columns") {
		t.Errorf("watermark on a non-monotone expression:\n%s", got)
	}

	// A source's watermark is generated by the source node.
	root, err = planWM(t, `select k, t from taps`, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := ExplainStream(root); !strings.Contains(got, "StreamSource { source: taps, columns: [k, t, _row_id], watermark: t AS taps.t - 10") ||
		!strings.Contains(got, "watermark_columns: [t]") {
		t.Errorf("source watermark missing:\n%s", got)
	}
}

func TestStreamEOWC(t *testing.T) {
	root, err := planWM(t, `select date_bin(interval '1 minute', ts, timestamp '1970-01-01') as window_start, count(*) as c, max(n) as m
		from clicks group by 1`, true)
	if err != nil {
		t.Fatal(err)
	}
	got := ExplainStream(root)
	checkNode(t, got, "StreamMaterialize", "append_only, watermark_columns: [window_start]")
	checkNode(t, got, "StreamHashAgg", "aggs: [count(*), max(clicks.n)], emit_on_window_close, state: [agg_state#1001]")
	checkNode(t, got, "StreamHashAgg", "append_only")
	// TUMBLE's window_start and window_end, HOP's too.
	for _, q := range []string{
		"select window_start, window_end, count(*) as c from tumble(clicks, ts, interval '1 minute') group by window_start, window_end",
		"select window_start, window_end, count(*) as c from hop(clicks, ts, interval '30 seconds', interval '1 minute') group by window_start, window_end",
	} {
		root, err := planWM(t, q, true)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		checkNode(t, ExplainStream(root), "StreamMaterialize", "append_only, watermark_columns: [window_start, window_end]")
	}
	for _, q := range []string{
		"select uid, count(*) from clicks group by uid",
		"select ts, n from clicks",
		"select dept, count(*) from emp group by dept",
	} {
		_, err := planWM(t, q, true)
		if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported || !strings.Contains(pe.Message, "EMIT ON WINDOW CLOSE") {
			t.Errorf("%s: got %v", q, err)
		}
	}
	// An EOWC view reads as append-only.
	mv := &catalog.Relation{Kind: catalog.KindMView, With: map[string]string{WithEmitOnWindowClose: "true"}}
	if !relAppendOnly(mv) {
		t.Error("EOWC view not append-only")
	}
}

// nodeLine returns the first line of an EXPLAIN output showing node.
func nodeLine(explain, node string) string {
	for _, l := range strings.Split(explain, "\n") {
		if strings.Contains(l, node+" {") {
			return l
		}
	}
	return ""
}

func checkNode(t *testing.T, explain, node, want string) {
	t.Helper()
	if !strings.Contains(nodeLine(explain, node), want) {
		t.Errorf("%s lacks %q:\n%s", node, want, explain)
	}
}

// TestStreamEOWCOverView plans EMIT ON WINDOW CLOSE over a view that
// passes a watermarked column through: the view records the columns that
// carry its watermarks (ViewWatermarkColumns), and a scan of it carries
// them, as a scan of the table does.
func TestStreamEOWCOverView(t *testing.T) {
	useTestFrontEnd()
	c := wmCatalog()
	plan := func(text string, mv *catalog.Relation) (*StreamMaterialize, error) {
		t.Helper()
		q, err := parseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		bd, err := Bind(q, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		next := uint32(2000)
		return PlanStream(bd.Plan, mv, func() uint32 { next++; return next })
	}
	// ts passes through; date_trunc of it keeps a watermark; n does not.
	a := &catalog.Relation{ID: 40, OID: 40 + catalog.FirstUserOID, Schema: "public", Name: "a", Kind: catalog.KindMView, With: map[string]string{}}
	root, err := plan("select n, ts, uid, date_trunc('minute', ts) as m from clicks where n > 0", a)
	if err != nil {
		t.Fatal(err)
	}
	if got := ViewWatermarkColumns(root); got != "1,3" {
		t.Fatalf("view watermark columns: got %q, want \"1,3\" (ts, m)", got)
	}
	eowc := "select window_start, uid, count(*) as c from tumble(a, ts, interval '1 minute') group by window_start, uid"
	newMV := func() *catalog.Relation {
		return &catalog.Relation{ID: 41, Name: "b", Kind: catalog.KindMView, With: map[string]string{WithEmitOnWindowClose: "true"}}
	}
	// Without the record (a view created before views passed on their
	// watermarks), as before: 0A000.
	c.rels["a"] = a
	if _, err := plan(eowc, newMV()); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Fatalf("EOWC over a view without watermark columns: got %v, want 0A000", err)
	}
	a.With[WithViewWatermarks] = ViewWatermarkColumns(root)
	b, err := plan(eowc, newMV())
	if err != nil {
		t.Fatal(err)
	}
	got := ExplainStream(b)
	checkNode(t, got, "StreamTableScan", "watermark_columns: [ts]")
	checkNode(t, got, "StreamHashAgg", "emit_on_window_close")
	checkNode(t, got, "StreamMaterialize", "append_only, watermark_columns: [window_start]")
	// The other watermark column groups too; a column without one does
	// not.
	if _, err := plan("select m, count(*) as c from a group by m", newMV()); err != nil {
		t.Errorf("EOWC by a.m: %v", err)
	}
	if _, err := plan("select uid, count(*) as c from a group by uid", newMV()); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("EOWC by a.uid: got %v, want 0A000", err)
	}
	// A bad record names no column.
	a.With[WithViewWatermarks] = "9,x,-1"
	if got := viewWatermarkCols(a); len(got) != 0 {
		t.Errorf("bad record: got columns %v", got)
	}
}
