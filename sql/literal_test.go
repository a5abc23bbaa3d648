package sql

import (
	"fmt"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

func TestDriverLiterals(t *testing.T) {
	p := parser.New()
	mode, _ := mysql.GetSQLMode("ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES")
	p.SetSQLMode(mode)
	p.EnableWindowFunc(true)
	stmts, _, err := p.Parse(`SELECT 1, 9223372036854775808, 1.50, 1e5, 'a\b', NULL, TRUE, x'0a', ?, ?`, "", "")
	if err != nil {
		t.Fatal(err)
	}
	sel := stmts[0].(*ast.SelectStmt)
	var got []any
	for _, f := range sel.Fields.Fields {
		switch v := f.Expr.(type) {
		case *ParamMarker:
			got = append(got, v.Offset)
		case *Literal:
			got = append(got, v.Value)
		default:
			t.Fatalf("unexpected %T", f.Expr)
		}
	}
	want := []any{int64(1), uint64(9223372036854775808), DecimalText("1.50"), float64(1e5), `a\b`, nil, true, []byte{10}, 68, 71}
	for i := range want {
		if g, w := got[i], want[i]; fmtAny(g) != fmtAny(w) {
			t.Errorf("field %d: got %#v want %#v", i, g, w)
		}
	}
}

func fmtAny(v any) string { return fmt.Sprintf("%T:%v", v, v) }
