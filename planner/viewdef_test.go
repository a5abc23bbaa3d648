package planner

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TestViewDefinition: a view's query prints with the names its
// relations and columns have now, in PostgreSQL's layout, and a shape
// the deparser does not print (VALUES in a set operation) is 0A000.
func TestViewDefinition(t *testing.T) {
	useTestFrontEnd()
	cat := newFakeCatalog()
	view := &catalog.Relation{ID: 10, Name: "vv", Kind: catalog.KindView,
		SQL:  "select a, b as label, count(*) from t where a > 1 group by a, b order by b desc",
		Cols: []catalog.Column{col("a", types.TInt4), col("label", types.TText), col("count", types.TInt8)}}
	renamed := cat.rels["t"].Clone()
	renamed.Name, renamed.Cols[0].Name = "t2", "aa"
	current := func(id uint32) (*catalog.Relation, bool) {
		if id == renamed.ID {
			return renamed, true
		}
		for _, r := range cat.rels {
			if r.ID == id {
				return r, true
			}
		}
		return nil, false
	}
	for _, c := range []struct {
		pretty bool
		want   string
	}{
		{false, " SELECT t2.aa AS a,\n    t2.b AS label,\n    count(*) AS count\n   FROM t2\n  WHERE (t2.aa > 1)\n  GROUP BY t2.aa, t2.b\n  ORDER BY t2.b DESC;"},
		{true, " SELECT t2.aa AS a,\n    t2.b AS label,\n    count(*) AS count\n   FROM t2\n  WHERE t2.aa > 1\n  GROUP BY t2.aa, t2.b\n  ORDER BY t2.b DESC;"},
	} {
		got, err := ViewDefinition(view, cat, current, c.pretty)
		if err != nil || got != c.want {
			t.Errorf("pretty %v: got %q, %v\nwant %q", c.pretty, got, err, c.want)
		}
	}
	view.SQL = "with recursive w(a) as (select 1 union all select a + 1 from w where a < 3) select a from w"
	view.Cols = view.Cols[:1]
	want := " WITH RECURSIVE w(a) AS (\n         SELECT 1 AS \"?column?\"\n        UNION ALL\n         SELECT w_1.a + 1\n           FROM w w_1\n          WHERE w_1.a < 3\n        )\n SELECT w.a\n   FROM w;"
	if got, err := ViewDefinition(view, cat, current, true); err != nil || got != want {
		t.Errorf("WITH RECURSIVE: got %q, %v\nwant %q", got, err, want)
	}
	view.SQL = "select a, rank() over w from t window w as (order by a)"
	view.Cols = []catalog.Column{col("a", types.TInt4), col("rank", types.TInt8)}
	want = " SELECT t2.aa AS a,\n    rank() OVER w AS rank\n   FROM t2\n  WINDOW w AS (ORDER BY t2.aa);"
	if got, err := ViewDefinition(view, cat, current, true); err != nil || got != want {
		t.Errorf("WINDOW clause: got %q, %v\nwant %q", got, err, want)
	}
	view.SQL = "select a from t union all values (1)"
	view.Cols = []catalog.Column{col("a", types.TInt4)}
	if _, err := ViewDefinition(view, cat, current, false); pgerr.As(err) == nil || pgerr.As(err).Code != pgerr.FeatureNotSupported {
		t.Errorf("VALUES in a set operation: got %v, want 0A000", err)
	}
}

// TestPlanShape: plans that compute the same thing under other names
// share a shape; a different constant or column does not.
func TestPlanShape(t *testing.T) {
	useTestFrontEnd()
	shape := func(text string) string {
		t.Helper()
		q, err := parseBridged(text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Bind(q, newFakeCatalog(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return PlanShape(b.Plan)
	}
	base := shape("select a, b from t where a > 1")
	if got := shape("select x.a as k, x.b from t x where x.a > 1"); got != base {
		t.Errorf("aliases change the shape:\n%s\n%s", base, got)
	}
	for _, other := range []string{"select a, b from t where a > 2", "select a, b from t where a >= 1", "select a, c from t where a > 1", "select a, x from u where a > 1"} {
		if shape(other) == base {
			t.Errorf("%q has the shape of the base query", other)
		}
	}
}
