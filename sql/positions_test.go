package sql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// posCollector lists, in visiting order, "Kind@pos" for the nodes whose
// position errors rely on: table names, target columns, ORDER BY
// positions, column references and binary operators (the operator's
// position, as PosBefore of the right operand gives it).
type posCollector struct {
	q   *Query
	out []string
}

func (c *posCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		c.out = append(c.out, fmt.Sprintf("table %s@%d", x.Name.O, c.q.Map.Pos(x.OriginTextPosition())))
	case *ast.ColumnName:
		c.out = append(c.out, fmt.Sprintf("column %s@%d", x.Name.O, c.q.Map.Pos(x.OriginTextPosition())))
	case *ast.PositionExpr:
		c.out = append(c.out, fmt.Sprintf("position %d@%d", x.N, c.q.Map.Pos(x.OriginTextPosition())))
	case *ast.ColumnNameExpr:
		c.out = append(c.out, fmt.Sprintf("ref %s@%d", x.Name.Name.O, c.q.Map.Pos(x.OriginTextPosition())))
		return n, true
	case *ast.BinaryOperationExpr:
		c.out = append(c.out, fmt.Sprintf("op %s@%d", x.Op, c.q.Map.PosBefore(x.R.OriginTextPosition())))
	}
	return n, false
}

func (c *posCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TestNodePositions checks that nodes map back to the source token they
// were parsed from, through rewrites that change the text's length.
func TestNodePositions(t *testing.T) {
	cases := []struct{ stmt, want string }{
		{`SELECT * FROM nosuch`, `table nosuch@15`},
		{`SELECT t FROM t, "U" JOIN v ON t.a = v.b`,
			`ref t@8 table t@15 table U@18 table v@27 op eq@36 ref a@32 ref b@38`},
		{`SELECT x::int + 1 FROM s.t WHERE "Key" <> 'a'::text ORDER BY 2, x`,
			`op plus@15 ref x@8 table t@24 op ne@40 ref Key@34 position 2@62 ref x@65`},
		{`SELECT id FROM e ORDER BY 5`, `ref id@8 table e@16 position 5@27`},
		{`INSERT INTO e (id, v, extra) VALUES (3, 'x', 1)`, `table e@13 column id@16 column v@20 column extra@23`},
		{`UPDATE e SET nosuch = 1 WHERE e.id = 2`, `table e@8 column nosuch@14 op eq@36 ref id@31`},
		{`SELECT (SELECT max(a) FROM u) FROM t`, `ref a@20 table u@28 table t@36`},
	}
	for _, c := range cases {
		st, err := Parse(c.stmt)
		if err != nil {
			t.Errorf("%s: %v", c.stmt, err)
			continue
		}
		q := st.(*Query)
		pc := &posCollector{q: q}
		q.Node.Accept(pc)
		if got := strings.Join(pc.out, " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.stmt, got, c.want)
		}
	}
}
