package planner

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// streamCatalog is the binder's test catalog plus relations that only
// stream plans care about: an append-only table and a source.
func streamCatalog() *fakeCatalog {
	c := newFakeCatalog()
	add := func(r *catalog.Relation) {
		r.OID = r.ID + catalog.FirstUserOID
		r.Schema = "public"
		c.rels[r.Name] = r
	}
	add(&catalog.Relation{ID: 20, Name: "events", Kind: catalog.KindTable, PK: []int{3}, With: map[string]string{"append_only": "true"},
		Cols: []catalog.Column{col("k", types.TInt4), col("v", types.TInt8), col("s", types.TText),
			{Name: "_row_id", T: types.TInt8, Hidden: true}}})
	add(&catalog.Relation{ID: 21, Name: "emp", Kind: catalog.KindTable, PK: []int{0}, Cols: []catalog.Column{
		{Name: "id", T: types.TInt4, NotNull: true}, col("dept", types.TText), col("salary", types.TInt8)}})
	add(&catalog.Relation{ID: 22, Name: "bids", Kind: catalog.KindSource, PK: []int{2}, Cols: []catalog.Column{
		col("auction", types.TInt8), col("price", types.TInt8), {Name: "_row_id", T: types.TInt8, Hidden: true}}})
	add(&catalog.Relation{ID: 23, Name: "clicks", Kind: catalog.KindSource, PK: []int{3}, Cols: []catalog.Column{
		col("usr", types.TText), col("ts", types.TTimestamp), col("day", types.TDate), {Name: "_row_id", T: types.TInt8, Hidden: true}}})
	// Orders and their payments, append-only with watermarks on ts, for
	// interval joins.
	for i, name := range []string{"orders", "payments"} {
		ref := [...]string{"cust", "oid"}[i]
		add(&catalog.Relation{ID: 24 + uint32(i), Name: name, Kind: catalog.KindTable, PK: []int{4},
			With: map[string]string{"append_only": "true", WithWatermarkColumn: "ts", WithWatermarkExpr: "ts - pg_cast('5 seconds', 'interval')"},
			Cols: []catalog.Column{col("id", types.TInt8), col(ref, types.TInt8), col("ts", types.TTimestamp), col("amt", types.TInt8),
				{Name: "_row_id", T: types.TInt8, Hidden: true}}})
	}
	return c
}

// parseQuery parses SQL with the real front end, falling back to the
// binder's test parser while the front end cannot parse it.
func parseQuery(text string) (*sql.Query, error) {
	if st, err := sql.Parse(text); err == nil {
		if q, ok := st.(*sql.Query); ok {
			return q, nil
		}
	}
	return parseBridged(text)
}

// planStreamText binds text as the query of a materialized view named
// mv1 and converts it.
func planStreamText(text string) (*StreamMaterialize, *catalog.Relation, error) {
	return planStreamIn(text, streamCatalog(), false)
}

// planStreamIn is planStreamText over catalog c, for a view created
// with EMIT ON WINDOW CLOSE when eowc is set.
func planStreamIn(text string, c *fakeCatalog, eowc bool) (*StreamMaterialize, *catalog.Relation, error) {
	q, err := parseQuery(text)
	if err != nil {
		return nil, nil, err
	}
	bd, err := Bind(q, c, nil)
	if err != nil {
		return nil, nil, err
	}
	mv := &catalog.Relation{ID: 100, OID: 100 + catalog.FirstUserOID, Schema: "public", Name: "mv1", Kind: catalog.KindMView}
	if eowc {
		mv.With = map[string]string{WithEmitOnWindowClose: "true"}
	}
	next := uint32(1000)
	root, err := PlanStream(bd.Plan, mv, func() uint32 { next++; return next })
	return root, mv, err
}

// streamToString prints the outcome of planning text for golden files:
// the view's columns, then the plan, or the error. The directive's
// "watermarks" option plans over the catalog with watermarked relations
// (wmCatalog), "eowc" also as an EMIT ON WINDOW CLOSE view.
func streamToString(text string, opts ...string) string {
	c, eowc := streamOptions(opts)
	root, mv, err := planStreamIn(text, c, eowc)
	if err != nil {
		pe := pgerr.As(err)
		s := fmt.Sprintf("error %s: %s\n", pe.Code, pe.Message)
		if pe.Hint != "" {
			s += "hint: " + pe.Hint + "\n"
		}
		return s
	}
	var cols []string
	for _, c := range mv.Cols {
		s := c.Name + ":" + c.T.String()
		if c.Hidden {
			s += " hidden"
		}
		cols = append(cols, s)
	}
	var pk []string
	for _, k := range mv.PK {
		pk = append(pk, mv.Cols[k].Name)
	}
	out := fmt.Sprintf("mv1 (%s) pk (%s)\n", strings.Join(cols, ", "), strings.Join(pk, ", "))
	for _, e := range validateStream(root) {
		out += "INVALID: " + e + "\n"
	}
	return out + ExplainStream(root)
}

// streamOptions reads the options of a stream directive: the catalog to
// plan over and whether the view is EMIT ON WINDOW CLOSE.
func streamOptions(opts []string) (*fakeCatalog, bool) {
	c, eowc := streamCatalog(), false
	for _, o := range opts {
		switch o {
		case "watermarks":
			c = wmCatalog()
		case "eowc":
			c, eowc = wmCatalog(), true
		}
	}
	return c, eowc
}

// validateStream checks the invariants every stream plan must hold and
// returns the violations.
func validateStream(root *StreamMaterialize) []string {
	var errs []string
	bad := func(n StreamNode, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%T: %s", n, fmt.Sprintf(format, args...)))
	}
	ids := map[uint32]bool{}
	checkExprCols := func(n StreamNode, in types.Schema, e Expr) {
		WalkExpr(e, func(x Expr) {
			switch c := x.(type) {
			case *ColRef:
				if c.Idx < 0 || c.Idx >= len(in) {
					bad(n, "column %d out of range (%d)", c.Idx, len(in))
				} else if in[c.Idx].T != c.T {
					bad(n, "column %d is %s, ref says %s", c.Idx, in[c.Idx].T, c.T)
				}
			case *OuterRef, *Subquery, *Param:
				bad(n, "expression %s left in a stream plan", FormatExpr(x))
			}
		})
	}
	checkCols := func(n StreamNode, s types.Schema, idx []int, what string) {
		for _, k := range idx {
			if k < 0 || k >= len(s) {
				bad(n, "%s column %d out of range (%d)", what, k, len(s))
			}
		}
	}
	checkState := func(n StreamNode, d StateTableDesc) {
		if ids[d.ID] {
			bad(n, "state table id %d used twice", d.ID)
		}
		ids[d.ID] = true
		checkCols(n, d.Cols, d.KeyCols, "state key")
		if len(d.OrderDesc) != len(d.KeyCols) {
			bad(n, "state %s: %d order flags for %d key columns", d.Name, len(d.OrderDesc), len(d.KeyCols))
		}
		if len(d.DistKeyCols) > len(d.KeyCols) || !equalInts(d.DistKeyCols, d.KeyCols[:len(d.DistKeyCols)]) {
			bad(n, "state %s: dist key %v is not a prefix of key %v", d.Name, d.DistKeyCols, d.KeyCols)
		}
	}
	seen := map[StreamNode]bool{}
	var walk func(n StreamNode)
	walk = func(n StreamNode) {
		if seen[n] {
			// A shared subplan (StreamShare) is checked once.
			return
		}
		seen[n] = true
		b := n.Base()
		checkCols(n, b.Out, b.StreamKey, "stream key")
		if b.Dist.Kind == DistHash {
			checkCols(n, b.Out, b.Dist.Keys, "dist")
		}
		var in types.Schema
		if ins := n.StreamInputs(); len(ins) > 0 {
			in = ins[0].Base().Out
		}
		switch x := n.(type) {
		case *StreamProject:
			if len(x.Exprs) != len(b.Out) {
				bad(n, "%d exprs for %d columns", len(x.Exprs), len(b.Out))
			}
			for i, e := range x.Exprs {
				checkExprCols(n, in, e)
				if i < len(b.Out) && e.Type() != b.Out[i].T {
					bad(n, "expr %d is %s, column says %s", i, e.Type(), b.Out[i].T)
				}
			}
		case *StreamFilter:
			checkExprCols(n, in, x.Cond)
		case *StreamDynamicFilter:
			checkExprCols(n, in, x.Key)
			if x.Key.Type() != x.Bound.Type() {
				bad(n, "key is %s, bound %s", x.Key.Type(), x.Bound.Type())
			}
			checkState(n, x.State)
		case *StreamValues:
			for _, r := range x.Rows {
				if len(r) != len(b.Out) {
					bad(n, "row of %d values for %d columns", len(r), len(b.Out))
				}
			}
		case *StreamHashAgg:
			checkCols(n, in, x.GroupBy, "group")
			for _, a := range x.Aggs {
				for _, e := range a.Args {
					checkExprCols(n, in, e)
				}
			}
			if len(b.Out) != len(x.GroupBy)+len(x.Aggs) {
				bad(n, "%d columns for %d keys and %d aggs", len(b.Out), len(x.GroupBy), len(x.Aggs))
			}
			checkState(n, x.Result)
			// DISTINCT aggregates over the same arguments share one
			// table: the same description under the same ID, for calls
			// over the same argument columns.
			shared := map[uint32]int{}
			for i, d := range x.Extra {
				if j, ok := shared[d.ID]; ok {
					a, b := x.Aggs[x.ExtraFor[i]], x.Aggs[x.ExtraFor[j]]
					ka, oka := distinctShareKey(a)
					kb, okb := distinctShareKey(b)
					if !oka || !okb || ka != kb || !reflect.DeepEqual(d, x.Extra[j]) {
						bad(n, "state table id %d shared by aggregates %d and %d", d.ID, x.ExtraFor[j], x.ExtraFor[i])
					}
					continue
				}
				shared[d.ID] = i
				checkState(n, d)
			}
			if len(x.Extra) != len(x.ExtraFor) {
				bad(n, "Extra and ExtraFor differ in length")
			}
		case *StreamHashJoin:
			lo, ro := x.Left.Base().Out, x.Right.Base().Out
			checkCols(n, lo, x.LeftKeys, "left key")
			checkCols(n, ro, x.RightKeys, "right key")
			for i := range x.LeftKeys {
				if lo[x.LeftKeys[i]].T != ro[x.RightKeys[i]].T {
					bad(n, "join key %d types differ", i)
				}
			}
			both := append(append(types.Schema(nil), lo...), ro...)
			checkExprCols(n, both, x.Cond)
			if x.NullAware {
				if x.Left.Base().Dist.Kind != DistSingle || x.Right.Base().Dist.Kind != DistSingle || len(x.LeftKeys) != 1 {
					bad(n, "null-aware anti join not on one actor with one key")
				}
				checkState(n, x.CountState)
			} else if len(x.LeftKeys) > 0 && (!equalInts(x.Left.Base().Dist.Keys, x.LeftKeys) || !equalInts(x.Right.Base().Dist.Keys, x.RightKeys)) {
				bad(n, "inputs not hash-distributed by the join keys")
			}
			checkState(n, x.LeftState)
			checkState(n, x.RightState)
			ins := [2]*StreamBase{x.Left.Base(), x.Right.Base()}
			for _, jb := range x.Bounds {
				if jb.Side != 0 && jb.Side != 1 {
					bad(n, "bound of side %d", jb.Side)
					continue
				}
				me, ot := ins[jb.Side], ins[1-jb.Side]
				checkCols(n, me.Out, []int{jb.Col}, "bound")
				checkCols(n, ot.Out, []int{jb.OtherCol}, "bound's other")
				checkExprCols(n, ot.Out, jb.Expr)
				if c, ok := monotoneIn(jb.Expr); !ok || c != jb.OtherCol {
					bad(n, "bound %s is not monotone in column %d", FormatExpr(jb.Expr), jb.OtherCol)
				}
				if indexOf(ot.Watermarks, jb.OtherCol) < 0 {
					bad(n, "bound over column %d, which has no watermark", jb.OtherCol)
				}
				if jb.Col < len(me.Out) && jb.Expr.Type().ID != me.Out[jb.Col].T.ID {
					bad(n, "bound %s of type %s on a column of type %s", FormatExpr(jb.Expr), jb.Expr.Type(), me.Out[jb.Col].T)
				}
			}
			for s, c := range []*JoinClean{x.LeftClean, x.RightClean} {
				if c == nil {
					continue
				}
				found := false
				for _, jb := range x.Bounds {
					found = found || jb.Side == s && jb.Col == c.Col
				}
				if !found {
					bad(n, "side %d cleaned by column %d without a bound on it", s, c.Col)
				}
				st := []StateTableDesc{x.LeftState, x.RightState}[s]
				if c.Index.ID == 0 {
					if len(st.KeyCols) == 0 || st.KeyCols[0] != c.Col {
						bad(n, "side %d cleaned by column %d without an index, state key %v", s, c.Col, st.KeyCols)
					}
					continue
				}
				checkState(n, c.Index)
				if len(c.IndexCols) == 0 || c.IndexCols[0] != c.Col || !allIn(st.KeyCols, c.IndexCols) || len(c.Index.Cols) != len(c.IndexCols) {
					bad(n, "index %v of side %d does not lead with column %d and hold state key %v", c.IndexCols, s, c.Col, st.KeyCols)
				}
			}
		case *StreamTopN:
			checkCols(n, in, x.GroupBy, "group")
			for _, k := range x.Order {
				checkExprCols(n, in, k.Expr)
			}
			checkState(n, x.State)
		case *StreamOverWindow:
			checkCols(n, in, x.PartitionBy, "partition")
			for _, k := range x.OrderBy {
				checkExprCols(n, in, k.Expr)
			}
			for _, c := range x.Calls {
				for _, e := range c.Args {
					checkExprCols(n, in, e)
				}
				if len(c.PartitionBy) != len(x.PartitionBy) || len(c.OrderBy) != len(x.OrderBy) {
					bad(n, "call %s has another window than the node", c.Fn)
				}
			}
			if len(b.Out) != len(in)+len(x.Calls) {
				bad(n, "%d columns for %d input columns and %d calls", len(b.Out), len(in), len(x.Calls))
			}
			if d := x.Input.Base().Dist; len(x.PartitionBy) > 0 && d.Kind != DistSingle && (d.Kind != DistHash || !allIn(d.Keys, x.PartitionBy)) {
				bad(n, "input not distributed by the partition keys")
			}
			for _, d := range x.States() {
				checkState(n, d)
			}
		case *StreamUnion:
			for _, u := range x.Inputs {
				us := u.Base().Out
				if len(us) != len(b.Out) {
					bad(n, "input of %d columns for %d", len(us), len(b.Out))
					continue
				}
				for i := range us {
					if us[i].T != b.Out[i].T {
						bad(n, "input column %d is %s, union says %s", i, us[i].T, b.Out[i].T)
					}
				}
			}
		case *StreamMaterialize:
			if len(x.Cols) != len(x.Rel.Cols) {
				bad(n, "%d mapped columns for %d", len(x.Cols), len(x.Rel.Cols))
			}
			checkCols(n, in, x.Cols, "materialized")
			if !equalInts(x.Rel.PK, b.StreamKey) {
				bad(n, "pk %v differs from stream key %v", x.Rel.PK, b.StreamKey)
			}
			checkState(n, x.State)
			d := x.Input.Base().Dist
			if d.Kind != DistSingle && !(d.Kind == DistHash && len(d.Keys) > 0 && allIn(d.Keys, x.Input.Base().StreamKey)) {
				bad(n, "input not distributed by the view's key")
			}
		}
		for _, c := range n.StreamInputs() {
			walk(c)
		}
	}
	walk(root)
	return errs
}

func allIn(xs, set []int) bool {
	for _, x := range xs {
		if indexOf(set, x) < 0 {
			return false
		}
	}
	return true
}

// TestStreamPlansValid checks the invariants of every plan in the stream
// golden files, so a wrong plan fails even right after -rewrite.
func TestStreamPlansValid(t *testing.T) {
	useTestFrontEnd()
	files, err := filepath.Glob("testdata/stream_*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no stream golden files: %v", err)
	}
	n := 0
	for _, path := range files {
		for _, c := range readCases(t, path) {
			cat, eowc := streamOptions(strings.Fields(c.directive)[1:])
			root, _, err := planStreamIn(c.input, cat, eowc)
			if err != nil {
				continue
			}
			n++
			for _, e := range validateStream(root) {
				t.Errorf("%s: %s\n%s", filepath.Base(path), c.input, e)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d plans checked", n)
	}
}

// TestPlanStreamFillsRelation checks what PlanStream records in the view's
// catalog entry: the hidden key column and the primary key.
func TestPlanStreamFillsRelation(t *testing.T) {
	useTestFrontEnd()
	_, mv, err := planStreamText("select v, w from nopk")
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.Column{{Name: "v", T: types.TInt4}, {Name: "w", T: types.TText}, {Name: "_row_id", T: types.TInt8, Hidden: true}}
	if fmt.Sprint(mv.Cols) != fmt.Sprint(want) || fmt.Sprint(mv.PK) != "[2]" {
		t.Fatalf("got cols %v pk %v", mv.Cols, mv.PK)
	}
	if s := mv.VisibleSchema(); len(s) != 2 {
		t.Fatalf("visible schema %v", s)
	}
}

// TestPlanStreamAllocOrder checks that state table ids come from alloc in
// the same order on every conversion of a query (recovery replays them).
func TestPlanStreamAllocOrder(t *testing.T) {
	useTestFrontEnd()
	const q = "select t.b, count(distinct u.x), max(u.n) from t join u on t.a = u.a group by t.b"
	a, _, err := planStreamText(q)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := planStreamText(q)
	if err != nil {
		t.Fatal(err)
	}
	if ExplainStream(a) != ExplainStream(b) {
		t.Fatalf("plans differ:\n%s\n%s", ExplainStream(a), ExplainStream(b))
	}
	if !strings.Contains(ExplainStream(a), "#1001") {
		t.Fatalf("alloc not used:\n%s", ExplainStream(a))
	}
}

// TestPlanStreamDistinctOn converts a DISTINCT ON plan built by hand (the
// front end does not parse DISTINCT ON yet): one row per group, the first
// in the ORDER BY's order.
func TestPlanStreamDistinctOn(t *testing.T) {
	rel := streamCatalog().rels["t"]
	var out types.Schema
	for _, c := range rel.Cols {
		out = append(out, types.Column{Name: c.Name, T: c.T})
	}
	scan := &Scan{Rel: rel, Cols: []int{0, 1, 2, 3, 4}, Out: out}
	b := &ColRef{Idx: 1, T: types.TText, Name: "t.b"}
	e := &ColRef{Idx: 4, T: types.TFloat8, Name: "t.e"}
	p := &Distinct{On: []Expr{b}, Input: &Sort{Input: scan, Keys: []SortKey{{Expr: b}, {Expr: e, Desc: true, NullsFirst: true}}}}
	mv := &catalog.Relation{ID: 100, Name: "mv1", Kind: catalog.KindMView}
	next := uint32(0)
	root, err := PlanStream(p, mv, func() uint32 { next++; return next })
	if err != nil {
		t.Fatal(err)
	}
	if errs := validateStream(root); len(errs) > 0 {
		t.Fatal(errs)
	}
	got := ExplainStream(root)
	want := `StreamMaterialize { columns: [a, b, c, d, e], pk: [b, a], state: [materialize#100] }
└─StreamGroupTopN { group_key: [b], order: [b, e DESC], limit: 1, state: [topn#1], stream_key: [b, a] }
  └─StreamExchange { dist: HashShard(b) }
    └─StreamTableScan { table: t, columns: [a, b, c, d, e], stream_key: [a], dist: HashShard(a) }
State tables:
  materialize#100 { columns: [a, b, c, d, e], key: [b, a], dist_key: [b] }
  topn#1 { columns: [a, b, c, d, e], key: [b, e DESC, a], dist_key: [b] }
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestPlanStreamOffsetWithoutLimit checks the error for OFFSET alone, a
// plan the front end cannot produce yet.
func TestPlanStreamOffsetWithoutLimit(t *testing.T) {
	rel := streamCatalog().rels["t"]
	scan := &Scan{Rel: rel, Cols: []int{0}, Out: types.Schema{{Name: "a", T: types.TInt4}}}
	p := &Limit{Input: scan, Offset: &Const{V: types.DInt(2), T: types.TInt8}}
	_, err := PlanStream(p, &catalog.Relation{ID: 100, Name: "mv1"}, func() uint32 { return 1 })
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.FeatureNotSupported || !strings.Contains(pe.Message, "OFFSET") {
		t.Fatalf("got %v", err)
	}
}
