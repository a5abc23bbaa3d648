package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/types"
)

// Explain prints a plan as an indented tree, one node per line, children
// below their parent (the form of RisingWave's and CockroachDB's EXPLAIN):
//
//	Project [t.a, t.b + 1]
//	└─HashJoin [inner, t.a = u.a]
//	  ├─Scan t [a, b]
//	  └─Scan u [a]
//
// Subqueries used as expressions are printed as extra children labelled
// "Subquery #n", where n is how the expression refers to them.
func Explain(p Plan) string {
	return ExplainAnnotated(p, nil)
}

// ExplainAnnotated prints the plan as Explain does, with annotate's text
// (when not empty) after each node's description, one space apart: for
// EXPLAIN ANALYZE, the node's actual rows and time. A nil annotate adds
// nothing.
func ExplainAnnotated(p Plan, annotate func(Plan) string) string {
	var sb strings.Builder
	e := &explainer{sb: &sb, annotate: annotate}
	e.node(p, "", "", true)
	return sb.String()
}

type explainer struct {
	sb       *strings.Builder
	subs     int
	annotate func(Plan) string
}

func (x *explainer) node(p Plan, first, rest string, root bool) {
	// Subqueries in this node's expressions are numbered before the line
	// is printed, so the line can refer to them.
	var subs []*Subquery
	for _, e := range planExprs(p) {
		WalkExpr(e, func(y Expr) {
			if s, ok := y.(*Subquery); ok {
				subs = append(subs, s)
			}
		})
	}
	f := &exprFormatter{subIDs: map[*Subquery]int{}}
	for _, s := range subs {
		x.subs++
		f.subIDs[s] = x.subs
	}
	x.sb.WriteString(first)
	x.sb.WriteString(f.describe(p))
	if x.annotate != nil {
		if a := x.annotate(p); a != "" {
			x.sb.WriteString(" ")
			x.sb.WriteString(a)
		}
	}
	x.sb.WriteString("\n")
	type child struct {
		label string
		p     Plan
	}
	var kids []child
	for _, in := range p.Inputs() {
		kids = append(kids, child{"", in})
	}
	for _, s := range subs {
		kind := [...]string{"scalar", "exists", "any", "all", "array", "row"}[s.Kind]
		if s.Correlated {
			kind += ", correlated"
		}
		kids = append(kids, child{fmt.Sprintf("Subquery #%d [%s]", f.subIDs[s], kind), s.Plan})
	}
	for i, k := range kids {
		last := i == len(kids)-1
		br, cont := "├─", "│ "
		if last {
			br, cont = "└─", "  "
		}
		if k.label != "" {
			x.sb.WriteString(rest + br + k.label + "\n")
			x.node(k.p, rest+cont+"└─", rest+cont+"  ", false)
			continue
		}
		x.node(k.p, rest+br, rest+cont, false)
	}
}

type exprFormatter struct {
	subIDs map[*Subquery]int
	key    bool // print column references by index, for structural keys
	// lets are the Lets around the expression being printed, innermost
	// last.
	lets []*Let
}

// letName is the name value i of l prints by.
func (f *exprFormatter) letName(l *Let, i int) string {
	if i < len(l.Names) && l.Names[i] != "" {
		return l.Names[i]
	}
	return "$" + strconv.Itoa(i+1)
}

func (f *exprFormatter) list(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = f.expr(e)
	}
	return strings.Join(parts, ", ")
}

func (f *exprFormatter) sortKeys(ks []SortKey) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		s := f.expr(k.Expr)
		if k.Desc {
			s += " DESC"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				s += " NULLS FIRST"
			} else {
				s += " NULLS LAST"
			}
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func (f *exprFormatter) describe(p Plan) string {
	switch n := p.(type) {
	case *Scan:
		var cols []string
		for i, c := range n.Out {
			if i < len(n.Cols) && n.Cols[i] < len(n.Rel.Cols) && n.Rel.Cols[n.Cols[i]].Dropped {
				// Read as the row is stored, never shown.
				continue
			}
			cols = append(cols, c.Name)
		}
		if n.Sample != nil {
			// PostgreSQL's "Sampling:" line, after the columns.
			s := fmt.Sprintf("SampleScan %s [%s] (Sampling: %s (%s)", n.Rel.Name, strings.Join(cols, ", "), n.Sample.Method, f.expr(n.Sample.Percent))
			if n.Sample.Seed != nil {
				s += " REPEATABLE (" + f.expr(n.Sample.Seed) + ")"
			}
			return s + ")"
		}
		return fmt.Sprintf("Scan %s [%s]", n.Rel.Name, strings.Join(cols, ", "))
	case *IndexScan:
		var cols []string
		for _, c := range n.Out {
			cols = append(cols, c.Name)
		}
		var conds []string
		for i, e := range n.Eq {
			conds = append(conds, n.Index.Cols[i].Name+" = "+f.expr(e))
		}
		if k := len(n.Eq); n.In != nil {
			conds = append(conds, n.Index.Cols[k].Name+" IN ("+f.list(n.In)+")")
		} else if n.Lo != nil || n.Hi != nil {
			name := n.Index.Cols[k].Name
			if n.Lo != nil {
				op := " > "
				if n.Lo.Inclusive {
					op = " >= "
				}
				conds = append(conds, name+op+f.expr(n.Lo.Value))
			}
			if n.Hi != nil {
				op := " < "
				if n.Hi.Inclusive {
					op = " <= "
				}
				conds = append(conds, name+op+f.expr(n.Hi.Value))
			}
		}
		kind := "IndexScan"
		if n.Covering != nil {
			kind = "IndexOnlyScan"
		}
		return fmt.Sprintf("%s %s on %s [%s] (%s)", kind, n.Index.Name, n.Rel.Name, strings.Join(cols, ", "), strings.Join(conds, " AND "))
	case *SystemScan:
		if n.Seq != nil {
			return fmt.Sprintf("SequenceScan %s", n.SeqName)
		}
		return fmt.Sprintf("SystemScan %s.%s", n.Schema_, n.Name)
	case *Values:
		var rows []string
		for _, r := range n.Rows {
			rows = append(rows, "("+f.list(r)+")")
		}
		return fmt.Sprintf("Values [%s]", strings.Join(rows, ", "))
	case *Filter:
		return fmt.Sprintf("Filter [%s]", f.expr(n.Cond))
	case *Project:
		parts := make([]string, len(n.Exprs))
		for i, e := range n.Exprs {
			s := f.expr(e)
			if name := n.Out[i].Name; name != s && !strings.HasSuffix(s, "."+name) {
				s += " AS " + name
			}
			parts[i] = s
		}
		return fmt.Sprintf("Project [%s]", strings.Join(parts, ", "))
	case *Agg:
		var aggs []string
		for _, a := range n.Aggs {
			aggs = append(aggs, f.agg(a))
		}
		if len(n.GroupBy) == 0 {
			return fmt.Sprintf("Agg [%s]", strings.Join(aggs, ", "))
		}
		return fmt.Sprintf("HashAgg [group: %s; aggs: %s]", f.list(n.GroupBy), strings.Join(aggs, ", "))
	case *Join:
		kind := [...]string{"inner", "left", "right", "full", "semi", "anti"}[n.Kind]
		parts := []string{kind}
		for i := range n.LeftKeys {
			parts = append(parts, f.expr(n.LeftKeys[i])+" = "+f.expr(n.RightKeys[i]))
		}
		if n.Cond != nil {
			parts = append(parts, "cond: "+f.expr(n.Cond))
		}
		name := "HashJoin"
		switch {
		case n.Lateral:
			name = "LateralJoin"
		case len(n.LeftKeys) == 0:
			name = "NestedLoopJoin"
		}
		return fmt.Sprintf("%s [%s]", name, strings.Join(parts, ", "))
	case *Sort:
		return fmt.Sprintf("Sort [%s]", f.sortKeys(n.Keys))
	case *Limit:
		var parts []string
		if n.Limit != nil {
			parts = append(parts, "limit: "+f.expr(n.Limit))
		}
		if n.Offset != nil {
			parts = append(parts, "offset: "+f.expr(n.Offset))
		}
		if n.Ties != nil {
			parts = append(parts, "with ties")
		}
		return fmt.Sprintf("Limit [%s]", strings.Join(parts, ", "))
	case *Distinct:
		if len(n.On) > 0 {
			return fmt.Sprintf("Distinct [on: %s]", f.list(n.On))
		}
		return "Distinct"
	case *SetOp:
		s := [...]string{"Union", "Intersect", "Except"}[n.Kind]
		if n.All {
			s += " [all]"
		}
		return s
	case *RecursiveUnion:
		s := "RecursiveUnion " + n.Name
		if n.All {
			s += " [all]"
		}
		return s
	case *WorkTableScan:
		return "WorkTableScan " + n.Name
	case *Window:
		var calls []string
		for _, c := range n.Calls {
			calls = append(calls, f.window(c))
		}
		return fmt.Sprintf("Window [%s]", strings.Join(calls, ", "))
	case *TableFunc:
		if n.Ordinality {
			return fmt.Sprintf("TableFunc %s(%s) WITH ORDINALITY", n.Fn, f.list(n.Args))
		}
		return fmt.Sprintf("TableFunc %s(%s)", n.Fn, f.list(n.Args))
	case *HopWindow:
		return "HopWindow [" + describeHop(n.Input.Schema(), n.TimeCol, n.Slide, n.Size, n.Offset) + "]"
	case *SessionWindow:
		return "SessionWindow [" + describeSession(n.Input.Schema(), n.Keys, n.TimeCol, n.Gap) + "]"
	case *ProjectSet:
		var calls []string
		for _, c := range n.Calls {
			calls = append(calls, fmt.Sprintf("%s(%s)", c.Fn, f.list(c.Args)))
		}
		return fmt.Sprintf("ProjectSet [%s]", strings.Join(calls, ", "))
	case *Expand:
		return "Expand [sets: " + describeSets(n.Input.Schema(), n.Keys, n.Sets) + "]"
	case *Insert:
		return "Insert " + n.Rel.Name + f.returning(n.Returning)
	case *Update:
		var sets []string
		for i, e := range n.Set {
			if e != nil {
				sets = append(sets, n.Rel.Cols[i].Name+" = "+f.expr(e))
			}
		}
		return fmt.Sprintf("Update %s [%s]%s", n.Rel.Name, strings.Join(sets, ", "), f.returning(n.Returning))
	case *Delete:
		return "Delete " + n.Rel.Name + f.returning(n.Returning)
	}
	return fmt.Sprintf("%T", p)
}

func (f *exprFormatter) returning(es []Expr) string {
	if len(es) == 0 {
		return ""
	}
	return " [returning: " + f.list(es) + "]"
}

func (f *exprFormatter) agg(a AggCall) string {
	s := a.Fn + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	if len(a.Args) == 0 && a.Fn == "count" {
		s += "*"
	}
	switch {
	case functions.IsOrderedSet(a.Fn) && len(a.Args) > 0:
		// percentile_cont(0.5) WITHIN GROUP (ORDER BY x): the last
		// argument is the ORDER BY key.
		s += f.list(a.Args[:len(a.Args)-1]) + ") WITHIN GROUP (ORDER BY " + f.sortKeys(a.OrderBy) + ")"
	case len(a.OrderBy) > 0:
		s += f.list(a.Args) + " ORDER BY " + f.sortKeys(a.OrderBy) + ")"
	default:
		s += f.list(a.Args) + ")"
	}
	if a.Filter != nil {
		s += " FILTER (WHERE " + f.expr(a.Filter) + ")"
	}
	return s
}

func (f *exprFormatter) window(c WindowCall) string {
	s := c.Fn + "(" + f.list(c.Args) + ") OVER ("
	var parts []string
	if len(c.PartitionBy) > 0 {
		parts = append(parts, "PARTITION BY "+f.list(c.PartitionBy))
	}
	if len(c.OrderBy) > 0 {
		parts = append(parts, "ORDER BY "+f.sortKeys(c.OrderBy))
	}
	if c.Frame != nil {
		bound := func(b FrameBound) string {
			switch b.Kind {
			case "preceding", "following":
				return f.expr(b.Offset) + " " + strings.ToUpper(b.Kind)
			}
			return strings.ToUpper(strings.ReplaceAll(b.Kind, "_", " "))
		}
		frame := fmt.Sprintf("%s BETWEEN %s AND %s", strings.ToUpper(c.Frame.Mode), bound(c.Frame.Start), bound(c.Frame.End))
		if x := c.Frame.Exclude; x != "" {
			frame += " EXCLUDE " + strings.ToUpper(strings.ReplaceAll(x, "_", " "))
		}
		parts = append(parts, frame)
	}
	return s + strings.Join(parts, " ") + ")"
}

// FormatExpr prints a bound expression in SQL-like form, for EXPLAIN and
// for naming the columns of intermediate plan nodes.
func FormatExpr(e Expr) string {
	f := &exprFormatter{}
	return f.expr(e)
}

// FormatAgg prints an aggregate call.
func FormatAgg(a AggCall) string { return (&exprFormatter{}).agg(a) }

// FormatWindowCall prints a window function call.
func FormatWindowCall(c WindowCall) string { return (&exprFormatter{}).window(c) }

// exprKey is a structural key of e: equal keys mean the same computation
// over the same input columns.
func exprKey(e Expr) string {
	f := &exprFormatter{key: true}
	return f.expr(e) + "::" + e.Type().String()
}

var infixOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "=": true, "<>": true,
	"<": true, "<=": true, ">": true, ">=": true, "||": true, "~~": true, "~~*": true, "~": true,
	"~*": true, "&": true, "|": true, "<<": true, ">>": true, "->": true, "->>": true, "#>": true,
	"#>>": true, "@>": true, "#": true,
}

// sub prints e as an operand, parenthesised when it is itself an operator.
func (f *exprFormatter) sub(e Expr) string {
	s := f.expr(e)
	switch x := e.(type) {
	case *Call:
		if infixOps[x.Fn] {
			return "(" + s + ")"
		}
	case *And, *Or, *Not, *IsNull, *IsBool, *InList:
		return "(" + s + ")"
	case *Subquery:
		if x.Kind == SubAny || x.Kind == SubAll || x.Kind == SubRow {
			return "(" + s + ")"
		}
	}
	return s
}

// subArg prints the left operand of a quantified or row comparison: its
// argument, or its row as ROW(a, b).
func (f *exprFormatter) subArg(n *Subquery) string {
	if n.Row != nil {
		return "ROW(" + f.list(n.Row) + ")"
	}
	return f.sub(n.Arg)
}

func (f *exprFormatter) expr(e Expr) string {
	switch n := e.(type) {
	case nil:
		return "<nil>"
	case *ColRef:
		if f.key || n.Name == "" {
			return "#" + strconv.Itoa(n.Idx)
		}
		return n.Name
	case *OuterRef:
		if f.key || n.Name == "" {
			return fmt.Sprintf("outer(%d)#%d", n.Depth, n.Idx)
		}
		return fmt.Sprintf("outer(%d).%s", n.Depth, n.Name)
	case *Const:
		return formatConst(n)
	case *Param:
		return "$" + strconv.Itoa(n.N)
	case *Call:
		if n.Fn == "neg" && len(n.Args) == 1 {
			return "-" + f.sub(n.Args[0])
		}
		if infixOps[n.Fn] && len(n.Args) == 2 {
			return f.sub(n.Args[0]) + " " + n.Fn + " " + f.sub(n.Args[1])
		}
		return n.Fn + "(" + f.list(n.Args) + ")"
	case *Cast:
		s := f.sub(n.Arg)
		if _, ok := n.Arg.(*Cast); ok {
			s = "(" + s + ")"
		}
		return s + "::" + n.T.String()
	case *And:
		return f.join(n.Args, " AND ")
	case *Or:
		return f.join(n.Args, " OR ")
	case *Not:
		return "NOT " + f.sub(n.Arg)
	case *IsNull:
		if n.Not {
			return f.sub(n.Arg) + " IS NOT NULL"
		}
		return f.sub(n.Arg) + " IS NULL"
	case *IsBool:
		s := f.sub(n.Arg) + " IS "
		if n.Not {
			s += "NOT "
		}
		return s + strings.ToUpper(n.Want)
	case *Case:
		s := "CASE"
		for _, w := range n.Whens {
			s += " WHEN " + f.expr(w.Cond) + " THEN " + f.expr(w.Then)
		}
		if n.Else != nil {
			s += " ELSE " + f.expr(n.Else)
		}
		return s + " END"
	case *Coalesce:
		return "COALESCE(" + f.list(n.Args) + ")"
	case *InList:
		op := " IN "
		if n.Not {
			op = " NOT IN "
		}
		return f.sub(n.Arg) + op + "(" + f.list(n.List) + ")"
	case *Subquery:
		id := "?"
		if k, ok := f.subIDs[n]; ok {
			id = strconv.Itoa(k)
		} else if f.key {
			id = fmt.Sprintf("%p", n)
		}
		ref := "$subquery" + id
		switch n.Kind {
		case SubExists:
			return "EXISTS(" + ref + ")"
		case SubAny:
			return f.subArg(n) + " " + n.Op + " ANY(" + ref + ")"
		case SubAll:
			return f.subArg(n) + " " + n.Op + " ALL(" + ref + ")"
		case SubRow:
			return f.subArg(n) + " " + n.Op + " " + ref
		case SubArray:
			return "ARRAY(" + ref + ")"
		}
		return ref
	case *Let:
		// A Let prints as LET name = value, ... IN body; a structural
		// key numbers the values by nesting, not by ID or name, so that
		// equal computations have equal keys.
		vals := make([]string, len(n.Vals))
		for i, v := range n.Vals {
			vals[i] = f.expr(v)
			if !f.key {
				vals[i] = f.letName(n, i) + " = " + vals[i]
			}
		}
		f.lets = append(f.lets, n)
		body := f.expr(n.Body)
		f.lets = f.lets[:len(f.lets)-1]
		if len(n.Vals) == 0 && !f.key {
			return body
		}
		return "(LET " + strings.Join(vals, ", ") + " IN " + body + ")"
	case *LetRef:
		for i := len(f.lets) - 1; i >= 0; i-- {
			if l := f.lets[i]; l.ID == n.ID {
				if f.key {
					return fmt.Sprintf("$let%d.%d", i, n.Idx)
				}
				return f.letName(l, n.Idx)
			}
		}
		return fmt.Sprintf("$let.%d", n.Idx)
	}
	return fmt.Sprintf("%T", e)
}

func (f *exprFormatter) join(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = f.sub(e)
	}
	return strings.Join(parts, sep)
}

// formatConst prints a constant; types other than the literal defaults
// carry a ::type suffix.
func formatConst(c *Const) string {
	if c.V.Null {
		if c.T.ID == types.Unknown {
			return "NULL"
		}
		return "NULL::" + c.T.String()
	}
	var s string
	switch c.T.Family() {
	case types.FamBool:
		if c.T.ID == types.Bool {
			if c.V.Bool() {
				return "true"
			}
			return "false"
		}
		s = strconv.FormatInt(c.V.I, 10)
	case types.FamInt:
		s = strconv.FormatInt(c.V.I, 10)
		if c.T.ID == types.Int4 {
			return s
		}
		if c.T.ID != types.Int2 && c.T.ID != types.Int8 && c.T.ID != types.Oid {
			s = types.FormatText(c.V, c.T, nil)
			if s == "" {
				s = strconv.FormatInt(c.V.I, 10)
			}
			s = "'" + s + "'"
		}
	case types.FamFloat:
		s = strconv.FormatFloat(c.V.F, 'g', -1, 64)
	case types.FamDecimal:
		if c.V.D != nil {
			s = c.V.D.Text('f')
		}
		if c.T == types.TNumeric {
			return s
		}
	case types.FamString:
		s = "'" + strings.ReplaceAll(c.V.S, "'", "''") + "'"
		if c.T.ID == types.Unknown || c.T.ID == types.Text {
			return s
		}
	case types.FamInterval:
		s = "'" + types.FormatInterval(c.V.Iv) + "'"
	}
	return s + "::" + c.T.String()
}
