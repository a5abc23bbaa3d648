package sql

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
)

func mustQuery(t *testing.T, text string) *Query {
	t.Helper()
	st, err := Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	q, ok := st.(*Query)
	if !ok {
		t.Fatalf("%s: got %T, want *Query", text, st)
	}
	return q
}

// TestParamOrder checks the marker contract the binder relies on: every
// marker's Order indexes Params, which holds the Postgres number.
func TestParamOrder(t *testing.T) {
	q := mustQuery(t, "SELECT $3, x FROM generate_series(1, $2) g(x) WHERE x > $1 OR x IS DISTINCT FROM $3")
	var ms []*ParamMarker
	q.Node.Accept(&markerVisitor{out: &ms})
	for _, a := range q.TVFs["__weir_tvf_1"].Args {
		a.Accept(&markerVisitor{out: &ms})
	}
	if len(ms) != 4 || len(q.Params) != 4 {
		t.Fatalf("got %d markers and params %v, want 4", len(ms), q.Params)
	}
	got := map[int]int{}
	for _, m := range ms {
		got[q.Params[m.Order]]++
	}
	if got[1] != 1 || got[2] != 1 || got[3] != 2 {
		t.Fatalf("parameter numbers by marker: %v (params %v)", got, q.Params)
	}
	// The statement's own markers are ordered by their position in the text.
	sel := q.Node.(*ast.SelectStmt)
	first := sel.Fields.Fields[0].Expr.(*ParamMarker)
	if q.Params[first.Order] != 3 {
		t.Fatalf("first field is $%d, want $3", q.Params[first.Order])
	}
}

// TestFullJoin checks that FULL JOIN reaches the binder as StraightJoin.
func TestFullJoin(t *testing.T) {
	q := mustQuery(t, "SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x")
	j := q.Node.(*ast.SelectStmt).From.TableRefs
	if !j.StraightJoin || j.On == nil {
		t.Fatalf("join %+v: want StraightJoin with ON", j)
	}
}

// TestTVFPlaceholder checks the table placeholder and the parsed arguments.
func TestTVFPlaceholder(t *testing.T) {
	q := mustQuery(t, "SELECT * FROM pg_catalog.generate_series(1, 3) AS s(n)")
	ts := q.Node.(*ast.SelectStmt).From.TableRefs.Left.(*ast.TableSource)
	name := ts.Source.(*ast.TableName).Name.O
	f := q.TVFs[name]
	if name != "__weir_tvf_1" || f == nil || f.Name != "generate_series" || ts.AsName.O != "s" || len(f.Args) != 2 {
		t.Fatalf("placeholder %q, alias %q, tvf %+v", name, ts.AsName.O, f)
	}
	if l, ok := f.Args[1].(*Literal); !ok || l.Value != int64(3) {
		t.Fatalf("second argument %#v", f.Args[1])
	}
	if len(f.Columns) != 1 || f.Columns[0] != "n" {
		t.Fatalf("columns %q", f.Columns)
	}
}

// TestStringsReachTiDBUnchanged checks rewrite 9 on the literal values.
func TestStringsReachTiDBUnchanged(t *testing.T) {
	q := mustQuery(t, `SELECT 'a\b', E'x\ty''z', $$it's$$`)
	want := []string{`a\b`, "x\ty'z", "it's"}
	for i, f := range q.Node.(*ast.SelectStmt).Fields.Fields {
		l, ok := f.Expr.(*Literal)
		if !ok || l.Value != want[i] {
			t.Errorf("field %d: %#v, want %q", i, f.Expr, want[i])
		}
	}
}

func TestErrorPositions(t *testing.T) {
	for _, c := range []struct {
		text string
		msg  string
		pos  int
	}{
		{"SELECT 1 FROM t WHERE x::int = = 2", `syntax error at or near "="`, 32},
		{"SELECT 'é' FROM t t t", `syntax error at or near "t"`, 21},
		// PostgreSQL names the bad bytes and gives no position.
		{"SELECT E'\\xff'", `invalid byte sequence for encoding "UTF8": 0xff`, 0},
		{"SELECT E'a\\xc3x'", `invalid byte sequence for encoding "UTF8": 0xc3 0x78`, 0},
		{"SELECT E'a''\\u0000'", `invalid Unicode escape value at or near "\u0000"`, 13},
		{"SELECT U&'é\\zzzz'", `invalid Unicode escape`, 12},
		{"SELECT U&'a''b\\zz'", `invalid Unicode escape`, 14},
		{"SELECT U&'\\D83D'", `invalid Unicode surrogate pair`, 16},
		{"SELECT U&'a!0062' UESCAPE 'ab'", `invalid Unicode escape character at or near "'ab'"`, 27},
		{"SELECT U&'a!0062' UESCAPE", `UESCAPE must be followed by a simple string literal at end of input`, 26},
		{"CREATE VIEW v AS SELECT a b c FROM t", `syntax error at or near "c"`, 29},
		// TiDB cuts the text of long errors at 2048 bytes and reports the
		// total length instead.
		{"SELECT 1 1, '" + strings.Repeat("é", 3000) + "' AS x", `syntax error at or near "1"`, 10},
	} {
		_, err := Parse(c.text)
		var pe *pgerr.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v", c.text, err)
			continue
		}
		if pe.Message != c.msg || pe.Position != c.pos {
			t.Errorf("%s: got %q at %d, want %q at %d", c.text, pe.Message, pe.Position, c.msg, c.pos)
		}
	}
}

// TestRebridge checks that bridged text parses again to itself: column
// DEFAULTs are stored bridged and parsed again with ParseExpr.
func TestRebridge(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	n := 0
	for _, path := range files {
		for _, c := range readGolden(t, path) {
			if c.cmd != "parse" && c.cmd != "expr" {
				continue
			}
			var texts []string
			if st, err := Parse(c.input); err == nil {
				switch s := st.(type) {
				case *Query:
					if len(s.TVFs) == 0 && s.Returning == nil && s.Aliases == nil {
						texts = append(texts, s.Rewritten)
					}
				case *CreateTable:
					for _, col := range s.Columns {
						if col.Default != "" {
							texts = append(texts, "select "+col.Default)
						}
					}
				}
			}
			for _, text := range texts {
				n++
				st, err := ParseStored(text)
				if err != nil {
					t.Errorf("%s: bridged %q does not parse: %v", path, text, err)
					continue
				}
				// Spacing around parentheses may differ.
				if got := st.(*Query).Rewritten; strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(text, " ", "") {
					t.Errorf("%s: bridged %q bridges again to %q", path, text, got)
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d bridged texts checked", n)
	}
}
