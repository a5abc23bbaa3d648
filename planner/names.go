package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/sql"
)

// colName names an output column the way Postgres's FigureColname does:
// a column reference by its name, a function call by the function's name,
// a cast by its argument's name or else the type's internal name, CASE as
// "case", EXISTS as "exists", ARRAY as "array", a scalar subquery by its
// own column's name, and anything else "?column?".
func (b *binder) colName(n ast.ExprNode) string {
	name, _ := b.figureColname(n)
	if name == "" {
		return "?column?"
	}
	return name
}

// figureColname returns a name and its strength (2: a real name, 1: a
// type name from a cast, 0: none), as FigureColnameInternal in Postgres's
// parse_target.c.
func (b *binder) figureColname(n ast.ExprNode) (string, int) {
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return b.figureColname(n.Expr)
	case *ast.ColumnNameExpr:
		return n.Name.Name.O, 2
	case *sql.Literal:
		// TRUE and FALSE are constants of their own since PostgreSQL 15
		// (no longer casts to bool): ?column?.
		return "", 0
	case *ast.AggregateFuncExpr:
		return aggFuncName(n.F), 2
	case *ast.WindowFuncExpr:
		name, _, _ := windowTarget(n)
		return name, 2
	case *ast.CaseExpr:
		// Postgres names CASE after its ELSE result when that has a
		// name of its own.
		if n.ElseClause != nil {
			if name, s := b.figureColname(n.ElseClause); s > 1 {
				return name, s
			}
		}
		return "case", 1
	case *ast.RowExpr:
		return "row", 2
	case *ast.ExistsSubqueryExpr:
		if n.Not {
			return "", 0
		}
		return "exists", 2
	case *ast.SubqueryExpr:
		return b.subqueryColname(n.Query)
	case *ast.FuncCallExpr:
		switch n.FnName.L {
		case "pg_cast":
			if len(n.Args) == 2 {
				if name, s := b.figureColname(n.Args[0]); s == 2 {
					return name, 2
				}
				text := castTypeText(n)
				if reg := lenientTypeName(text); reg != "" {
					return reg, 1
				}
				// Postgres names x::t[] after t, the type name's last part.
				if elem, ok := strings.CutSuffix(strings.TrimSpace(text), "[]"); ok {
					text = elem
				}
				if u, ok := b.userType(text); ok && u.Kind == 'd' {
					return u.Name, 1
				}
				return pgTypeName(b.lookupType(text, n)), 1
			}
		case "pg_extract":
			return "extract", 2
		case "pg_field":
			// (x).f is named after the field.
			if len(n.Args) == 2 {
				if l, ok := n.Args[1].(*sql.Literal); ok {
					if f, ok := l.Value.(string); ok {
						return f, 2
					}
				}
			}
		case "pg_array", "pg_array_subquery":
			return "array", 2
		case "pg_op":
			// An operator (^, @, |/, ||/) names no column.
			return "", 0
		case "pg_concat":
			return "concat", 2
		case "pg_cardinality":
			return "cardinality", 2
		case "trim":
			// Postgres names TRIM after the function it becomes.
			if len(n.Args) == 3 {
				if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
					return trimFunc(d.Direction), 2
				}
			}
			return "btrim", 2
		case "pg_at_time_zone":
			return "timezone", 2
		case "pg_agg_filter":
			// agg(...) FILTER (WHERE c) is named after agg.
			if len(n.Args) > 0 {
				return b.figureColname(n.Args[0])
			}
		case "pg_row1":
			return "row", 2
		case "pg_subscript", "pg_slice", "pg_collate":
			if len(n.Args) > 0 {
				return b.figureColname(n.Args[0])
			}
		case "concat", "pg_json_get", "pg_json_get_text", "pg_json_path", "pg_json_path_text",
			"pg_json_contains", "pg_json_contained", "pg_array_overlap", "pg_json_delete_path", "pg_starts_with", "pg_jsonpath_exists", "pg_jsonpath_match", "pg_json_exists", "pg_json_exists_any", "pg_json_exists_all", "pg_any_eq", "pg_any", "pg_all", "pg_icase", "pg_nulls_first", "pg_nulls_last":
			return "", 0
		}
		// A quoted name keeps its case (the bridge folds the others).
		return strings.TrimPrefix(n.FnName.O, sql.UserCallPrefix), 2
	}
	return "", 0
}

// subqueryColname names a scalar subquery after its single output column.
func (b *binder) subqueryColname(q ast.ResultSetNode) (string, int) {
	var sel *ast.SelectStmt
	switch q := q.(type) {
	case *ast.SelectStmt:
		sel = q
	case *ast.SetOprStmt:
		if q.SelectList != nil && len(q.SelectList.Selects) > 0 {
			sel, _ = q.SelectList.Selects[0].(*ast.SelectStmt)
		}
	}
	if sel == nil || sel.Fields == nil || len(sel.Fields.Fields) == 0 {
		return "", 0
	}
	f := sel.Fields.Fields[0]
	if f.AsName.O != "" {
		return f.AsName.O, 2
	}
	if f.WildCard != nil || f.Expr == nil {
		return "", 0
	}
	name := b.colName(f.Expr)
	return name, 2
}
