package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// ViewDefinition returns the query of view (or materialized view) rel as
// PostgreSQL's pg_get_viewdef prints it (get_query_def in ruleutils.c):
// its stored text bound against cat as rel was bound (cat sees the
// tables rel pins, catalog.Relation.DepCols, as they were), then printed
// with the names relations and columns have now, which current gives by
// relation id. So the definition follows every rename, as PostgreSQL's
// follows its stored query tree. Every column is qualified by its range
// variable, the select list one item a line, and the clauses laid out
// with PostgreSQL's indentation. With pretty (pg_get_viewdef(oid, true),
// psql's \d+) operators carry parentheses only where ruleutils.c's
// isSimpleNode asks for them; without it each operator, boolean and
// cast carries its own.
//
// It covers SELECTs over tables, views, materialized views, subqueries
// and functions in FROM (with WITH ORDINALITY; LATERAL when written so
// or when they read the items to their left), ROWS FROM (...) (UNNEST(a,
// b) for unnest of several arrays), VALUES lists (as a whole query too),
// LATERAL subqueries, aliased or not (with a column alias list too: FROM
// t AS x(a, b)), joined by [LEFT | RIGHT | FULL] JOIN ... ON, USING (its
// columns renamed since under their old names in column alias lists, as
// set_using_names pushes them down; a FULL JOIN's merged columns
// unqualified) or NATURAL (printed as the USING join it stands for),
// CROSS JOIN (and NATURAL without common columns, which prints as one),
// or listed with commas, nested on either side, with WHERE, GROUP BY,
// grouping sets (ROLLUP, CUBE, GROUPING SETS, GROUP BY DISTINCT) and
// GROUPING(...), HAVING, named windows (WINDOW w AS (...) read by OVER w
// or OVER (w ORDER BY ...)), DISTINCT, DISTINCT ON, ORDER BY, LIMIT,
// OFFSET and FETCH FIRST ... WITH TIES, aggregates (DISTINCT, ORDER BY,
// FILTER), window functions with or without a frame clause, subqueries
// as expressions (ARRAY(...) too), calls with named arguments, jsonb
// and array operators, subscripts, = ANY (array), EXTRACT, casts,
// CASE, COALESCE and literals, set operations nested and mixed, and WITH
// [RECURSIVE]. The FROM items of each query level are named as
// set_rtable_names names them, apart from those of the enclosing levels
// (t_1). The forms the binding does not keep (a WINDOW clause, CROSS
// JOIN, VALUES, ROWS FROM, grouping sets) are noted by the binder when
// it binds for deparsing (vdNotes). For any other shape (VALUES beside
// other queries of a set operation, row subqueries, FOR SYSTEM_TIME AS
// OF, calls of functions weir has under names of its own) it returns an
// error with SQLSTATE 0A000, and the caller shows the text as stored.
func ViewDefinition(rel *catalog.Relation, cat Catalog, current func(id uint32) (*catalog.Relation, bool), pretty bool) (text string, err error) {
	return ViewDefinitionFor(rel, cat, current, pretty, nil)
}

// ViewDefinitionFor is ViewDefinition printing a relation's name
// qualified when visible reports that the unqualified name does not find
// it (PostgreSQL's generate_relation_name: the asking session's search
// path decides). A nil visible qualifies the names of relations outside
// public that are not temporary.
func ViewDefinitionFor(rel *catalog.Relation, cat Catalog, current func(id uint32) (*catalog.Relation, bool), pretty bool, visible func(schema, name string) bool) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			text, err = "", pe
		}
	}()
	st, err := parseDefinition(rel.SQL)
	if err != nil {
		return "", err
	}
	q, ok := st.(*sql.Query)
	if !ok {
		return "", pgerr.New(pgerr.FeatureNotSupported, "the definition of \"%s\" is not a query", rel.Name)
	}
	node, ok := q.Node.(ast.ResultSetNode)
	switch q.Node.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	default:
		ok = false
	}
	if !ok {
		return "", pgerr.New(pgerr.FeatureNotSupported, "cannot deparse the definition of \"%s\"", rel.Name)
	}
	b := &binder{q: q, cat: cat, deps: map[uint32]bool{}, ctx: context.Background(), access: &[]Access{}, view: rel, aliases: map[*Scan]string{}, written: map[Expr]string{}, subAliases: map[Plan]string{}, usingJoins: map[Plan][]string{}, laterals: map[Plan]bool{},
		withs: map[Plan][]boundCTE{}, cteRefs: map[Plan][2]string{}, notes: newVDNotes()}
	plan := b.bindQuery(node, nil, &level{}, nil).plan
	var names []string
	for _, c := range rel.Cols {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	var calls map[Expr]inlinedCall
	if b.fnUses != nil {
		calls = b.fnUses.inlined
	}
	d := &viewDeparser{calls: calls, aliases: b.aliases, written: b.written, subAliases: b.subAliases, usingJoins: b.usingJoins, laterals: b.laterals, withs: b.withs, cteRefs: b.cteRefs, notes: b.notes, current: current, pretty: pretty, indent: new(int), refs: map[Plan]string{}, generated: map[*Scan]bool{}, deparsed: rel.Deparsed, forced: map[Plan]map[int]string{}, visible: visible}
	return d.query(plan, names) + ";", nil
}

// vdCol is a column of a plan node's output as the deparsed query names
// it: its text, and for a plain column of a range variable (a Var) the
// column's name, which decides whether the select list needs AS.
type vdCol struct {
	text string
	attr string
	// relabel is the base type of a table column of a domain, which
	// the column is cast to where it is an argument (deparse.go).
	relabel *types.T
	// fn marks a function call (an aggregate), which GROUP BY and ORDER
	// BY parenthesise.
	fn bool
}

// vdText accumulates deparsed text. A piece that starts a new line
// drops the blanks before it, as appendContextKeyword does.
type vdText struct{ b []byte }

func (t *vdText) add(s ...string) {
	for _, p := range s {
		if strings.HasPrefix(p, "\n") {
			for len(t.b) > 0 && t.b[len(t.b)-1] == ' ' {
				t.b = t.b[:len(t.b)-1]
			}
		}
		t.b = append(t.b, p...)
	}
}

func (t *vdText) String() string { return string(t.b) }

// viewDeparser prints a bound definition (ViewDefinition).
type viewDeparser struct {
	// outer holds the columns of the enclosing queries of a subquery
	// being printed, innermost last.
	outer [][]vdCol
	// sublink is set while a subquery used as an expression is printed:
	// its select list shows AS only for names of its own, as
	// PostgreSQL's does without colNamesVisible.
	sublink bool
	// calls are the user function calls inlined (rowDeparser.calls).
	calls      map[Expr]inlinedCall
	aliases    map[*Scan]string
	written    map[Expr]string
	subAliases map[Plan]string
	usingJoins map[Plan][]string
	laterals   map[Plan]bool
	withs      map[Plan][]boundCTE
	cteRefs    map[Plan][2]string
	notes      *vdNotes
	current    func(uint32) (*catalog.Relation, bool)
	// visible, when not nil, reports whether a relation's unqualified
	// name finds it (ViewDefinitionFor).
	visible func(schema, name string) bool
	pretty  bool
	indent  *int
	// levels holds the names given the FROM items of each enclosing
	// query level, outermost first, and refs the name of each FROM item
	// (a Scan, a subquery's or a CTE reference's plan) of the levels
	// named so far (nameLevel).
	levels [][]string
	refs   map[Plan]string
	// bindLevels holds the names the FROM items of levels would have
	// under the names their relations had when the text was bound.
	bindLevels [][]string
	// deparsed is set when the text was written by this function for a
	// rename (catalog.Relation.Deparsed): its aliases of the form t_1
	// that nameLevel would make are taken for ones it made.
	deparsed bool
	// generated marks the scans whose alias is one nameLevel made up.
	generated map[*Scan]bool
	// fromCols are the columns of the FROM clause of the query level
	// being printed, which GROUPING's arguments read.
	fromCols []vdCol
	// listing is set while aliasedFrom prints the item whose column
	// alias list it adds.
	listing bool
	// lateralDone is set while fromRight prints a function it marks
	// LATERAL itself.
	lateralDone bool
	// forced holds the names USING joins give the columns of FROM
	// items (forceUsingNames), by item and column.
	forced map[Plan]map[int]string
}

// vdNotes records, when a definition is bound to be deparsed, the
// forms its query wrote that the plan does not keep.
type vdNotes struct {
	// colAliases holds the column alias list written after the alias
	// of a table or subquery in FROM (FROM t AS x(a, b)), by the plan
	// the item binds to.
	colAliases map[Plan][]string
	// windows holds the windows of each Window node's calls.
	windows map[Plan]vdWindows
	// crossJoins marks the joins written CROSS JOIN.
	crossJoins map[Plan]bool
	// usingCols holds, for each USING join's projection, the join's
	// columns each USING column merges: its left and its right one.
	usingCols map[Plan][][2]int
	// groupings holds the GROUP BY list of each Agg grouping by
	// grouping sets, and groupingCalls the arguments of each
	// GROUPING(...), by the expression it binds to.
	groupings     map[Plan]*vdGrouping
	groupingCalls map[Expr][]Expr
	// values marks the plans of VALUES lists; valuesRows the query
	// nodes bound as one.
	values     map[Plan]bool
	valuesRows map[ast.Node]bool
	// rowsFrom marks the plans of ROWS FROM (...).
	rowsFrom map[Plan]bool
	// implicit maps the coercions a set operation (a VALUES list)
	// gives its queries' outputs to what they coerce, which
	// get_values_def prints without them.
	implicit map[Expr]Expr
}

// vdGrouping is a GROUP BY list with grouping sets (groupingTree), or
// with sets nil one PostgreSQL prints as a plain list: of one set, not
// empty.
type vdGrouping struct {
	sets     []vdGroupingSet
	distinct bool
}

// vdGroupingSet is one of PostgreSQL's GroupingSet nodes: kind
// "simple" (its keys), "empty", "rollup", "cube" or "sets" (its
// content).
type vdGroupingSet struct {
	kind    string
	keys    []Expr
	content []vdGroupingSet
}

func newVDNotes() *vdNotes {
	return &vdNotes{colAliases: map[Plan][]string{}, windows: map[Plan]vdWindows{}, crossJoins: map[Plan]bool{}, usingCols: map[Plan][][2]int{},
		groupings: map[Plan]*vdGrouping{}, groupingCalls: map[Expr][]Expr{},
		values: map[Plan]bool{}, valuesRows: map[ast.Node]bool{}, implicit: map[Expr]Expr{}, rowsFrom: map[Plan]bool{}}
}

// vdWindows are the windows of a query level as PostgreSQL's query
// keeps them (its windowClause): defs, the named ones first, and refs,
// the one each call of the level's Window node reads, by the call's
// index.
type vdWindows struct {
	defs []vdWindowDef
	refs []int
}

// vdWindowDef is a window as written: its name (for one of the WINDOW
// clause), the window it refers to, and the clauses it has of its own;
// key compares it with another.
type vdWindowDef struct {
	name, ref string
	partition []Expr
	order     []SortKey
	frame     *Frame
	key       string
}

// vdUnsupported aborts deparsing: the definition has a shape the deparser
// does not print.
func vdUnsupported(what string) {
	failf(pgerr.FeatureNotSupported, "cannot deparse %s", what)
}

// query prints a SELECT whose output columns are called names: a
// view's columns, which every branch of a set operation names (the
// resultDesc of get_query_def), or nil for a query nested in another,
// whose branches name their columns as they do.
func (d *viewDeparser) query(p Plan, names []string) string {
	return d.selectQuery(p, names, d.withs[p])
}

// with prints a WITH clause as get_with_clause does, each CTE's query a
// level in, and the line break before the query it belongs to.
func (d *viewDeparser) with(ctes []boundCTE) string {
	base := *d.indent
	defer func() { *d.indent = base }()
	pad := strings.Repeat(" ", base+8)
	var s vdText
	for i, c := range ctes {
		if i == 0 && c.recursive {
			s.add(" WITH RECURSIVE ")
		} else if i == 0 {
			s.add(" WITH ")
		} else {
			s.add(", ")
		}
		s.add(sql.QuoteIdent(c.name))
		if len(c.cols) > 0 {
			s.add("(" + strings.Join(quoteNames(c.cols), ", ") + ")")
		}
		*d.indent = base + 8
		q := d.query(c.plan, nil)
		s.add(" AS (", "\n"+pad, q, "\n"+pad+")")
	}
	s.add("\n" + strings.Repeat(" ", base))
	return s.String()
}

// selectQuery prints a SELECT (or a set operation) and with, the WITH
// clause it has.
func (d *viewDeparser) selectQuery(p Plan, names []string, with []boundCTE) string {
	// The level of the query's body: its clauses' keywords step back
	// from it, CASE lines indent from it.
	base := *d.indent
	defer func() { *d.indent = base }()
	*d.indent += 8
	sublink := d.sublink
	d.sublink = false
	own := names == nil
	if own {
		for _, c := range p.Schema() {
			if !c.Hidden {
				names = append(names, c.Name)
			}
		}
	}
	if d.notes.values[p] {
		return d.valuesQuery(p, names)
	}
	visible := -1
	if pr, ok := p.(*Project); ok && isPrefixProject(pr) {
		// The projection that drops ORDER BY's hidden columns.
		visible = len(pr.Exprs)
		p = pr.Input
	}
	var lim *Limit
	var sort *Sort
	distinct := false
	if l, ok := p.(*Limit); ok {
		lim, p = l, l.Input
	}
	var distinctOn []Expr
	if dd, ok := p.(*Distinct); ok && dd.On != nil {
		distinctOn, p = dd.On, dd.Input
	}
	if s, ok := p.(*Sort); ok {
		sort, p = s, s.Input
	}
	if so, ok := asSetOp(p); ok {
		if lim != nil && len(lim.Ties) > 0 {
			vdUnsupported("WITH TIES over a set operation")
		}
		if visible >= 0 && visible < len(so.Out) {
			vdUnsupported("hidden columns of a set operation")
		}
		*d.indent = base
		prefix := ""
		if with != nil {
			prefix = d.with(with)
		}
		return prefix + d.setOp(so, names, own, !sublink, sort, lim)
	}
	if dd, ok := p.(*Distinct); ok {
		distinct, p = true, dd.Input
	}
	proj, ok := p.(*Project)
	if !ok {
		vdUnsupported(fmt.Sprintf("a query of the form %T", p))
	}
	if visible < 0 {
		visible = len(proj.Exprs)
	}
	p = proj.Input
	var win *Window
	if w, ok := p.(*Window); ok {
		win, p = w, w.Input
	}
	var having, where Expr
	var agg *Agg
	if f, ok := p.(*Filter); ok {
		if a, ok := f.Input.(*Agg); ok {
			having, p = f.Cond, a
		}
	}
	// pre computes the keys of an aggregation over grouping sets
	// (groupingPlan) after its input's columns.
	var pre *Project
	if a, ok := p.(*Agg); ok {
		agg, p = a, a.Input
		if e, ok := p.(*Expand); ok {
			pre, _ = e.Input.(*Project)
			if pre == nil {
				vdUnsupported("grouping sets over this input")
			}
			p = pre.Input
		}
	}
	if f, ok := p.(*Filter); ok {
		where, p = f.Cond, f.Input
	}
	var from string
	var cols []vdCol
	noFrom := false
	if v, ok := p.(*Values); ok && len(v.Rows) == 1 && len(v.Rows[0]) == 0 && len(v.Out) == 0 {
		// SELECT without FROM.
		noFrom = true
	}
	var s vdText
	var level, bindLevel []string
	if !noFrom {
		level, bindLevel = d.nameLevel(p)
	}
	d.levels, d.bindLevels = append(d.levels, level), append(d.bindLevels, bindLevel)
	defer func() { d.levels, d.bindLevels = d.levels[:len(d.levels)-1], d.bindLevels[:len(d.bindLevels)-1] }()
	if with != nil {
		*d.indent = base
		s.add(d.with(with))
		*d.indent = base + 8
	}
	if !noFrom {
		from, cols = d.from(p)
	}
	env := cols
	savedFrom := d.fromCols
	d.fromCols = cols
	defer func() { d.fromCols = savedFrom }()
	var groupBy []string
	if agg != nil {
		env = nil
		for _, k := range agg.GroupBy {
			if pre != nil {
				r, ok := k.(*ColRef)
				if !ok || r.Idx >= len(pre.Exprs) {
					// The grouping set's number, which only
					// GROUPING(...) reads.
					env = append(env, vdCol{text: "?grouping set?"})
					continue
				}
				k = pre.Exprs[r.Idx]
			}
			c := d.col(k, cols)
			env = append(env, c)
			groupBy = append(groupBy, d.sortExpr(k, cols))
		}
		if g := d.notes.groupings[agg]; g != nil && g.sets != nil {
			groupBy = []string{d.groupingSets(g, cols)}
		} else if g != nil && g.distinct && len(groupBy) > 0 {
			groupBy[0] = "DISTINCT " + groupBy[0]
		}
		for _, a := range agg.Aggs {
			env = append(env, vdCol{text: d.agg(a, cols), fn: true})
		}
	}
	var wins vdWindows
	var winEnv []vdCol
	if win != nil {
		wins, winEnv = d.notes.windows[win], env
		for i, c := range win.Calls {
			env = append(env, vdCol{text: d.window(c, env, wins, i), fn: true})
		}
	}
	if visible > len(names) {
		vdUnsupported("a select list longer than the view's columns")
	}
	s.add(" SELECT")
	if distinct {
		s.add(" DISTINCT")
	}
	if distinctOn != nil {
		keys := make([]string, len(distinctOn))
		for i, k := range distinctOn {
			r, ok := k.(*ColRef)
			if !ok || r.Idx >= len(proj.Exprs) {
				vdUnsupported("a DISTINCT ON key")
			}
			keys[i] = d.sortExpr(proj.Exprs[r.Idx], env)
		}
		s.add(" DISTINCT ON (" + strings.Join(keys, ", ") + ")")
	}
	for i, e := range proj.Exprs[:visible] {
		c := d.col(e, env)
		switch {
		case strings.HasPrefix(c.text, "\n"):
			// CASE starts its own line.
			if i > 0 {
				s.add(",")
			}
		case i > 0:
			s.add(",", d.keyword("", -8, 8, 4))
		default:
			s.add(" ")
		}
		s.add(c.text)
		switch {
		case c.attr != "" && c.attr == names[i]:
		case c.attr == "" && sublink && names[i] == "?column?":
		default:
			s.add(" AS " + quoteName(names[i]))
		}
	}
	if from != "" {
		s.add(d.keyword(" FROM ", -8, 8, 2), from)
	}
	if where != nil {
		s.add(d.keyword(" WHERE ", -8, 8, 1), d.expr(where, cols))
	}
	if agg != nil && len(groupBy) > 0 {
		s.add(d.keyword(" GROUP BY ", -8, 8, 1))
		for i, g := range groupBy {
			if i > 0 {
				s.add(", ")
			}
			s.add(g)
		}
	}
	if having != nil {
		s.add(d.keyword(" HAVING ", -8, 8, 0), d.expr(having, env))
	}
	first := true
	for _, w := range wins.defs {
		// get_rule_windowclause: the named windows, read or not.
		if w.name == "" {
			continue
		}
		if first {
			s.add(d.keyword(" WINDOW ", -8, 8, 1))
			first = false
		} else {
			s.add(", ")
		}
		s.add(quoteName(w.name) + " AS " + d.windowSpec(w, winEnv))
	}
	if sort != nil {
		var keys []string
		for _, k := range sort.Keys {
			r, ok := k.Expr.(*ColRef)
			if !ok {
				vdUnsupported("an ORDER BY key")
			}
			keys = append(keys, d.sortKey(SortKey{Expr: proj.Exprs[r.Idx], Desc: k.Desc, NullsFirst: k.NullsFirst}, env))
		}
		s.add(d.keyword(" ORDER BY ", -8, 8, 1))
		for i, k := range keys {
			if i > 0 {
				s.add(", ")
			}
			s.add(k)
		}
	}
	if lim != nil {
		if lim.Offset != nil {
			s.add(d.keyword(" OFFSET ", -8, 8, 0), d.int8Arg(lim.Offset))
		}
		switch {
		case lim.Limit != nil && len(lim.Ties) > 0:
			s.add(d.keyword(" FETCH FIRST ", -8, 8, 0), "(", d.int8Arg(lim.Limit), ") ROWS WITH TIES")
		case lim.Limit != nil:
			s.add(d.keyword(" LIMIT ", -8, 8, 0), d.int8Arg(lim.Limit))
		}
	}
	return s.String()
}

// valuesQuery prints p, a VALUES list whose columns are called names,
// as get_basic_select_query does: its rows (get_values_def), or, when
// names are not the list's own (column1, column2, ...), a SELECT of its
// columns under those names from the list as a FROM item.
func (d *viewDeparser) valuesQuery(p Plan, names []string) string {
	// The types a projection over the rows gives the columns of
	// unknown type, which PostgreSQL gives the constants themselves.
	var resolved []types.T
	if pr, ok := p.(*Project); ok {
		if _, isSet := asSetOp(pr.Input); isSet {
			resolved = make([]types.T, len(pr.Exprs))
			for j, e := range pr.Exprs {
				if c, ok := e.(*Cast); ok {
					if r, ok := c.Arg.(*ColRef); ok && r.Idx == j {
						resolved[j] = c.T
						continue
					}
				}
				if r, ok := e.(*ColRef); !ok || r.Idx != j {
					vdUnsupported("this VALUES list")
				}
			}
			p = pr.Input
		}
	}
	var rows []string
	var walk func(p Plan)
	walk = func(p Plan) {
		if so, ok := p.(*SetOp); ok && so.Kind == Union && so.All {
			walk(so.Left)
			walk(so.Right)
			return
		}
		pr, ok := p.(*Project)
		if !ok {
			vdUnsupported("this VALUES row")
		}
		if v, ok := pr.Input.(*Values); !ok || len(v.Rows) != 1 || len(v.Rows[0]) != 0 {
			vdUnsupported("this VALUES row")
		}
		parts := make([]string, len(pr.Exprs))
		for j, e := range pr.Exprs {
			if orig, ok := d.notes.implicit[e]; ok && orig.Type().ID != types.Unknown {
				e = orig
			}
			if k, ok := e.(*Const); ok && k.T.ID == types.Unknown && j < len(resolved) && resolved[j].ID != 0 {
				c := &Const{V: k.V, T: resolved[j]}
				if !c.V.Null {
					c.V = types.DString(k.V.S)
				}
				e = c
			}
			parts[j] = d.expr(e, nil)
		}
		rows = append(rows, "("+strings.Join(parts, ",")+")")
	}
	walk(p)
	list := "VALUES " + strings.Join(rows, ", ")
	own := true
	for j, n := range names {
		if n != fmt.Sprintf("column%d", j+1) {
			own = false
		}
	}
	if own {
		return " " + list
	}
	var s vdText
	s.add(" SELECT")
	for j, n := range names {
		col := fmt.Sprintf("column%d", j+1)
		if j > 0 {
			s.add(",", d.keyword("", -8, 8, 4))
		} else {
			s.add(" ")
		}
		s.add(`"*VALUES*".` + col)
		if n != col {
			s.add(" AS " + quoteName(n))
		}
	}
	s.add(d.keyword(" FROM ", -8, 8, 2), "("+list+`) "*VALUES*"`)
	return s.String()
}

// setOp prints a set operation with its ORDER BY and LIMIT as
// get_select_query_def does: the tree of operations (setOpTree), then
// ORDER BY by column number. names are the view's columns, which every
// branch shows, unless own (the branches show their own); visible is
// get_setop_query's colNamesVisible.
func (d *viewDeparser) setOp(so *SetOp, names []string, own, visible bool, sort *Sort, lim *Limit) string {
	base := *d.indent
	var s vdText
	d.setOpTree(&s, so, names, own, visible)
	*d.indent = base + 8
	defer func() { *d.indent = base }()
	if sort != nil {
		var keys []string
		for _, k := range sort.Keys {
			r, ok := k.Expr.(*ColRef)
			if !ok {
				vdUnsupported("an ORDER BY key")
			}
			t := fmt.Sprint(r.Idx + 1)
			if k.Desc {
				t += " DESC"
				if !k.NullsFirst {
					t += " NULLS LAST"
				}
			} else if k.NullsFirst {
				t += " NULLS FIRST"
			}
			keys = append(keys, t)
		}
		s.add(d.keyword(" ORDER BY ", -8, 8, 1), strings.Join(keys, ", "))
	}
	if lim != nil {
		if lim.Offset != nil {
			s.add(d.keyword(" OFFSET ", -8, 8, 0), d.int8Arg(lim.Offset))
		}
		if lim.Limit != nil {
			s.add(d.keyword(" LIMIT ", -8, 8, 0), d.int8Arg(lim.Limit))
		}
	}
	return s.String()
}

// setOpTree prints p, a set operation or one of its queries, as
// get_setop_query does: a query in parentheses when it has its own WITH,
// ORDER BY or LIMIT; a left operand that is a set operation of another
// kind (or ALL-ness) in parentheses a level in, and a right operand that
// is a set operation always; the operator's word on a line of its own.
// Only the leftmost query names its columns visibly.
func (d *viewDeparser) setOpTree(s *vdText, p Plan, names []string, own, visible bool) {
	op, ok := asSetOp(p)
	if !ok {
		paren := d.withs[p] != nil || hasSortOrLimit(p)
		leafNames := names
		if own {
			leafNames = nil
		}
		if paren {
			s.add("(")
		}
		d.sublink = !visible
		s.add(d.query(p, leafNames))
		if paren {
			s.add(")")
		}
		return
	}
	paren, sub := false, 0
	if l, ok := asSetOp(op.Left); ok {
		paren = l.Kind != op.Kind || l.All != op.All
	}
	if paren {
		sub = 8
		s.add("(", d.keyword("", sub, 0, 0))
	}
	d.setOpTree(s, op.Left, names, own, visible)
	if paren {
		s.add(d.keyword(") ", -sub, 0, 0))
	} else {
		s.add(d.keyword("", 0, 0, 0))
	}
	s.add([...]string{Union: "UNION ", Intersect: "INTERSECT ", Except: "EXCEPT "}[op.Kind])
	if op.All {
		s.add("ALL ")
	}
	_, paren = asSetOp(op.Right)
	sub = 0
	if paren {
		s.add("(")
		sub = 8
	}
	s.add(d.keyword("", sub, 0, 0))
	d.setOpTree(s, op.Right, names, own, false)
	*d.indent -= sub
	if paren {
		s.add(d.keyword(")", 0, 0, 0))
	}
}

// asSetOp returns p as a set operation: a recursive CTE's query is the
// UNION [ALL] of its two terms.
func asSetOp(p Plan) (*SetOp, bool) {
	switch n := p.(type) {
	case *SetOp:
		return n, true
	case *RecursiveUnion:
		return &SetOp{Kind: Union, All: n.All, Left: n.NonRecursive, Right: n.Recursive, Out: n.Out}, true
	}
	return nil, false
}

// hasSortOrLimit reports whether the query p has an ORDER BY or a
// LIMIT (or OFFSET) of its own.
func hasSortOrLimit(p Plan) bool {
	if pr, ok := p.(*Project); ok && isPrefixProject(pr) {
		p = pr.Input
	}
	switch p.(type) {
	case *Sort, *Limit:
		return true
	}
	return false
}

// isPrefixProject reports whether pr, above ORDER BY or LIMIT, passes on
// a prefix of its input's columns unchanged.
func isPrefixProject(pr *Project) bool {
	switch pr.Input.(type) {
	case *Sort, *Limit, *Distinct:
	default:
		return false
	}
	in := pr.Input.Schema()
	if len(pr.Exprs) >= len(in) {
		return false
	}
	for i, e := range pr.Exprs {
		if r, ok := e.(*ColRef); !ok || r.Idx != i {
			return false
		}
	}
	return true
}

// keyword is ruleutils.c's appendContextKeyword in its indenting form:
// the trailing blanks dropped by the caller's text, a line break, the
// indentation (the level changed by before, plus extra) and word, after
// which the level changes by after.
func (d *viewDeparser) keyword(word string, before, after, extra int) string {
	*d.indent += before
	s := "\n" + strings.Repeat(" ", max(*d.indent+extra, 0)) + word
	*d.indent += after
	return s
}

// from prints a FROM item and returns the columns of its output row.
func (d *viewDeparser) from(p Plan) (string, []vdCol) {
	if aliases, ok := d.notes.colAliases[p]; ok || d.forced[p] != nil {
		return d.aliasedFrom(p, aliases)
	}
	return d.fromItem(p)
}

// forceUsingNames gives the columns a USING join (its projection n over
// join j) merges the USING names, as set_using_names pushes them down to
// the join's inputs: a table or subquery column renamed since then
// prints under its old name, in a column alias list.
func (d *viewDeparser) forceUsingNames(n *Project, j *Join, names []string) {
	nl := len(j.Left.Schema())
	for i, lr := range d.notes.usingCols[n] {
		if i >= len(names) {
			break
		}
		d.forceName(j.Left, lr[0], names[i])
		d.forceName(j.Right, lr[1]-nl, names[i])
	}
}

// forceName gives column idx of FROM item p the name name, in the
// table or subquery it comes from.
func (d *viewDeparser) forceName(p Plan, idx int, name string) {
	if idx < 0 {
		return
	}
	if _, ok := d.notes.colAliases[p]; ok {
		d.force(p, idx, name)
		return
	}
	switch n := p.(type) {
	case *Join:
		if nl := len(n.Left.Schema()); idx < nl {
			d.forceName(n.Left, idx, name)
		} else {
			d.forceName(n.Right, idx-nl, name)
		}
		return
	case *Project:
		if _, ok := d.usingJoins[n]; ok {
			j, isJoin := n.Input.(*Join)
			if pairs := d.notes.usingCols[n]; isJoin && idx < len(pairs) {
				d.forceName(j.Left, pairs[idx][0], name)
				d.forceName(j.Right, pairs[idx][1]-len(j.Left.Schema()), name)
			} else if r, ok := n.Exprs[idx].(*ColRef); ok && idx < len(n.Exprs) {
				d.forceName(n.Input, r.Idx, name)
			}
			return
		}
	case *Scan:
		d.force(p, idx, name)
		return
	}
	if _, ok := d.subAliases[p]; ok && !d.notes.rowsFrom[p] && d.cteRefs[p] == [2]string{} {
		d.force(p, idx, name)
	}
}

func (d *viewDeparser) force(p Plan, idx int, name string) {
	if d.forced[p] == nil {
		d.forced[p] = map[int]string{}
	}
	d.forced[p][idx] = name
}

// aliasedFrom prints p, a table or subquery in FROM with a column alias
// list, as get_from_clause_item does: the item, its alias and the
// names of all its columns (set_relation_column_names), each the
// alias written for it or else the column's name, made unique within
// the item by a suffix _1, _2, ...; for a table only when one of them
// is not the column's name.
func (d *viewDeparser) aliasedFrom(p Plan, aliases []string) (string, []vdCol) {
	item := p
	if _, isSub := d.subAliases[p]; isSub {
		// A subquery whose alias list renames none of its columns.
	} else if pr, ok := p.(*Project); ok {
		if _, isScan := pr.Input.(*Scan); isScan {
			item = pr.Input
		} else if _, isSub := d.subAliases[pr.Input]; isSub {
			item = pr.Input
		}
	}
	d.listing = true
	text, cols := d.fromItem(item)
	d.listing = false
	// real holds the name of each column of cols ("" for a hidden one)
	// as the item itself names it.
	real := make([]string, len(cols))
	scan, isScan := item.(*Scan)
	var ref string
	if isScan {
		ref = quoteName(d.refs[scan])
		rel, _ := d.current(scan.Rel.ID)
		for i, c := range scan.Cols {
			if !rel.Cols[c].Hidden {
				real[i] = rel.Cols[c].Name
			}
		}
	} else {
		ref = quoteName(d.refs[item])
		for i, c := range item.Schema() {
			if !c.Hidden {
				real[i] = c.Name
			}
		}
	}
	var names []string
	changed := !isScan && len(aliases) > 0
	k := 0
	seen := map[string]bool{}
	for i, r := range real {
		if r == "" {
			continue
		}
		name := r
		if f, ok := d.forced[p][i]; ok {
			name = f
		} else if k < len(aliases) {
			name = aliases[k]
		}
		k++
		if seen[name] {
			for j := 1; ; j++ {
				if m := fmt.Sprintf("%s_%d", name, j); !seen[m] {
					name = m
					break
				}
			}
		}
		seen[name] = true
		changed = changed || name != r
		names = append(names, name)
		cols[i] = vdCol{text: ref + "." + quoteName(name), attr: name, relabel: cols[i].relabel}
	}
	if changed {
		if isScan && !strings.HasSuffix(text, " "+ref) {
			// get_from_clause_item prints the alias before a column
			// alias list always.
			text += " " + ref
		}
		text += "(" + strings.Join(quoteNames(names), ", ") + ")"
	}
	return text, cols
}

// qualify reports whether rel's name is printed with its schema.
func (d *viewDeparser) qualify(rel *catalog.Relation) bool {
	if d.visible != nil {
		return !d.visible(rel.Schema, rel.Name)
	}
	return rel.Schema != catalog.PublicSchema && !rel.Temp
}

// fromItem prints a FROM item as from does, its column alias list
// aside.
func (d *viewDeparser) fromItem(p Plan) (string, []vdCol) {
	switch n := p.(type) {
	case *Scan:
		if n.ProcTime {
			vdUnsupported("FOR SYSTEM_TIME AS OF")
		}
		rel, ok := d.current(n.Rel.ID)
		if !ok {
			vdUnsupported("a dropped relation")
		}
		name := quoteName(rel.Name)
		if d.qualify(rel) {
			name = quoteName(rel.Schema) + "." + name
		}
		refname := d.refs[n]
		ref, text := quoteName(refname), name
		if a, ok := d.aliases[n]; (ok && a != n.Rel.Name && !d.generated[n]) || refname != rel.Name {
			text += " " + ref
		}
		if ts := n.Sample; ts != nil {
			text += " TABLESAMPLE " + ts.Method + " (" + d.sampleArg(ts.Percent) + ")"
			if ts.Seed != nil {
				text += " REPEATABLE (" + d.sampleArg(ts.Seed) + ")"
			}
		}
		cols := make([]vdCol, len(n.Cols))
		for i, c := range n.Cols {
			if c >= len(rel.Cols) {
				vdUnsupported("a column the relation no longer has")
			}
			attr := rel.Cols[c].Name
			cols[i] = vdCol{text: ref + "." + quoteName(attr), attr: attr, relabel: domainRelabel(rel.Cols[c])}
		}
		return text, cols
	case *Project:
		names, ok := d.usingJoins[n]
		j, isJoin := n.Input.(*Join)
		if !ok || !isJoin {
			break
		}
		d.forceUsingNames(n, j, names)
		text, jc := d.join(j, "USING ("+strings.Join(quoteNames(names), ", ")+")")
		for i, lr := range d.notes.usingCols[n] {
			for _, k := range lr {
				if i < len(names) && (k >= len(jc) || jc[k].attr != names[i]) {
					vdUnsupported("a USING column renamed since")
				}
			}
		}
		var cols []vdCol
		for i, e := range n.Exprs {
			if _, merged := e.(*Coalesce); merged && j.Kind == FullJoin && i < len(names) {
				// A FULL JOIN's merged column is the join's own,
				// named without a range variable (the join has none).
				cols = append(cols, vdCol{text: quoteName(names[i]), attr: names[i]})
				continue
			}
			c := d.col(e, jc)
			if i < len(names) && c.attr != names[i] {
				vdUnsupported("a USING column renamed since")
			}
			cols = append(cols, c)
		}
		return text, cols
	case *TableFunc:
		// A function in FROM: PostgreSQL prints its alias and a full
		// column alias list always.
		if !isPlainFunction(n.Fn) {
			vdUnsupported("function " + n.Fn)
		}
		args := make([]string, len(n.Args))
		for i, a := range n.Args {
			args[i] = d.expr(a, nil)
		}
		ref := quoteName(d.refs[n])
		text := n.Fn + "(" + strings.Join(args, ", ") + ")"
		if d.laterals[n] && !d.lateralDone {
			// Written LATERAL, reading the items to its left or not.
			text = "LATERAL " + text
		}
		if n.Ordinality {
			text += " WITH ORDINALITY"
		}
		var names []string
		var cols []vdCol
		for _, c := range n.Out {
			names = append(names, c.Name)
			cols = append(cols, vdCol{text: ref + "." + quoteName(c.Name), attr: c.Name})
		}
		return text + " " + ref + "(" + strings.Join(quoteNames(names), ", ") + ")", cols
	case *Join:
		if len(n.LeftKeys) > 0 {
			vdUnsupported("this join")
		}
		if n.Kind == InnerJoin && n.Cond == nil && !d.notes.crossJoins[n] {
			// A comma list: FROM a, b.
			l, lc := d.from(n.Left)
			r, rc := d.fromRight(n, lc)
			return l + "," + d.keyword("", -8, 8, 4) + r, append(lc, rc...)
		}
		return d.join(n, "")
	}
	if ref, ok := d.cteRefs[p]; ok {
		// A CTE's name: its columns are named as the CTE names them.
		refname := d.refs[p]
		text, rv := quoteName(ref[0]), quoteName(refname)
		if refname != ref[0] {
			text += " " + rv
		}
		var cols []vdCol
		for _, c := range p.Schema() {
			if c.Hidden {
				vdUnsupported("a CTE with hidden columns")
			}
			cols = append(cols, vdCol{text: rv + "." + quoteName(c.Name), attr: c.Name})
		}
		return text, cols
	}
	if d.notes.rowsFrom[p] {
		return d.rowsFrom(p)
	}
	if _, ok := d.subAliases[p]; ok {
		// A subquery: its columns are named as it named them.
		alias := d.refs[p]
		var cols []vdCol
		for _, c := range p.Schema() {
			if c.Hidden {
				continue
			}
			cols = append(cols, vdCol{text: quoteName(alias) + "." + quoteName(c.Name), attr: c.Name})
		}
		if len(cols) != len(p.Schema()) {
			vdUnsupported("a subquery with hidden columns")
		}
		text := "(" + d.query(p, nil) + ") " + quoteName(alias)
		if d.laterals[p] {
			text = "LATERAL " + text
		}
		return text, cols
	}
	vdUnsupported(fmt.Sprintf("FROM item %T", p))
	return "", nil
}

// rowsFrom prints p, ROWS FROM (...) as the bridge writes it (a SELECT
// of its calls), as get_from_clause_item does: the calls (UNNEST(...)
// when all are unnest of one array), the alias, and the columns' names,
// which a column alias list (aliasedFrom) gives in place of its own.
func (d *viewDeparser) rowsFrom(p Plan) (string, []vdCol) {
	in := p
	for {
		pr, ok := in.(*Project)
		if !ok {
			break
		}
		for i, e := range pr.Exprs {
			if r, ok := e.(*ColRef); !ok || r.Idx != i {
				vdUnsupported("this ROWS FROM")
			}
		}
		in = pr.Input
	}
	ps, ok := in.(*ProjectSet)
	if !ok || ps.Outer {
		vdUnsupported("this ROWS FROM")
	}
	if v, ok := ps.Input.(*Values); !ok || len(v.Rows) != 1 || len(v.Rows[0]) != 0 {
		vdUnsupported("this ROWS FROM")
	}
	allUnnest := true
	var calls, unnestArgs []string
	for _, c := range ps.Calls {
		if !isPlainFunction(c.Fn) || c.Ordinality {
			vdUnsupported("function " + c.Fn)
		}
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = d.expr(a, nil)
		}
		allUnnest = allUnnest && c.Fn == "unnest" && len(c.Args) == 1
		unnestArgs = append(unnestArgs, args...)
		calls = append(calls, c.Fn+"("+strings.Join(args, ", ")+")")
	}
	text := "ROWS FROM(" + strings.Join(calls, ", ") + ")"
	switch {
	case len(calls) == 1:
		text = calls[0]
	case allUnnest:
		text = "UNNEST(" + strings.Join(unnestArgs, ", ") + ")"
	}
	ref := quoteName(d.refs[p])
	text += " " + ref
	var names []string
	var cols []vdCol
	for _, c := range p.Schema() {
		if c.Hidden {
			vdUnsupported("a ROWS FROM with hidden columns")
		}
		names = append(names, c.Name)
		cols = append(cols, vdCol{text: ref + "." + quoteName(c.Name), attr: c.Name})
	}
	if !d.listing {
		text += "(" + strings.Join(quoteNames(names), ", ") + ")"
	}
	return text, cols
}

// nameLevel gives the FROM items of the query level whose FROM clause
// is p their names, as set_rtable_names does: each its alias (a
// relation without one its current name, a CTE reference its CTE's
// name), made unique against the names of the enclosing levels and of
// the items before it in the level by a suffix _1, _2, ...; it records
// them in refs and returns them in the order of the range table (left
// to right).
func (d *viewDeparser) nameLevel(p Plan) (names, bindNames []string) {
	cur, old := newVDNamer(d.levels), newVDNamer(d.bindLevels)
	assign := func(item Plan, refname, bindRefname string) {
		refname = cur.assign(refname)
		d.refs[item] = refname
		names = append(names, refname)
		bindNames = append(bindNames, old.assign(bindRefname))
	}
	var walk func(p Plan)
	walk = func(p Plan) {
		switch n := p.(type) {
		case *Scan:
			rel, ok := d.current(n.Rel.ID)
			if !ok {
				vdUnsupported("a dropped relation")
			}
			refname, bindRefname := rel.Name, n.Rel.Name
			if a, ok := d.aliases[n]; ok && a != n.Rel.Name {
				refname, bindRefname = a, a
				if d.deparsed && a == old.unique(n.Rel.Name) {
					// The alias this function gave the relation under
					// the name it had when the text was deparsed for a
					// rename (t_1): no alias of the user's, so it
					// follows the relation's name.
					refname, bindRefname = rel.Name, n.Rel.Name
					d.generated[n] = true
				}
			}
			assign(n, refname, bindRefname)
			return
		case *Project:
			if _, ok := d.usingJoins[n]; ok {
				walk(n.Input)
				return
			}
			if _, ok := d.notes.colAliases[n]; ok && d.subAliases[n] == "" {
				if _, ok := d.cteRefs[n]; !ok {
					walk(n.Input)
					return
				}
			}
		case *Join:
			walk(n.Left)
			walk(n.Right)
			return
		}
		if ref, ok := d.cteRefs[p]; ok {
			assign(p, ref[1], ref[1])
			return
		}
		if alias, ok := d.subAliases[p]; ok {
			assign(p, alias, alias)
		}
	}
	walk(p)
	return names, bindNames
}

// vdNamer makes names unique as set_rtable_names does: a name in use
// gets the first free suffix _1, _2, ... counted per name.
type vdNamer struct{ counters map[string]int }

// newVDNamer returns a namer with the names of levels in use.
func newVDNamer(levels [][]string) *vdNamer {
	m := &vdNamer{counters: map[string]int{}}
	for _, l := range levels {
		for _, n := range l {
			m.counters[n] = 0
		}
	}
	return m
}

// unique returns the name assign would give refname.
func (m *vdNamer) unique(refname string) string {
	c, used := m.counters[refname]
	if !used {
		return refname
	}
	for {
		c++
		name := fmt.Sprintf("%s_%d", refname, c)
		if _, used := m.counters[name]; !used {
			return name
		}
	}
}

// assign returns refname made unique and takes it.
func (m *vdNamer) assign(refname string) string {
	if c, used := m.counters[refname]; used {
		base := refname
		for {
			c++
			m.counters[base] = c
			refname = fmt.Sprintf("%s_%d", base, c)
			if _, used := m.counters[refname]; !used {
				break
			}
		}
	}
	m.counters[refname] = 0
	return refname
}

// fromRight prints the right FROM item of join n, whose left item has
// the columns lc. A LATERAL one (a subquery written so, or a function
// reading lc, which PostgreSQL marks LATERAL itself) sees lc as the
// columns of an enclosing query, as the binder bound it.
func (d *viewDeparser) fromRight(n *Join, lc []vdCol) (string, []vdCol) {
	right := n.Right
	if pr, ok := right.(*Project); ok && d.notes.colAliases[pr] != nil && d.subAliases[pr] == "" {
		right = pr.Input
	}
	if !n.Lateral {
		return d.from(n.Right)
	}
	// A function, or ROWS FROM (which the bridge writes LATERAL), is
	// LATERAL in PostgreSQL when it reads the items to its left.
	_, fn := n.Right.(*TableFunc)
	fn = fn || d.notes.rowsFrom[right]
	if !fn && !d.laterals[right] {
		vdUnsupported("this LATERAL item")
	}
	d.outer = append(d.outer, lc)
	d.lateralDone = fn
	text, cols := d.from(n.Right)
	d.lateralDone = false
	d.outer = d.outer[:len(d.outer)-1]
	if fn {
		text = "LATERAL " + text
	}
	return text, cols
}

// join prints a join of two FROM items: its condition after ON, or
// using, the USING clause that stands for it.
func (d *viewDeparser) join(n *Join, using string) (string, []vdCol) {
	if len(n.LeftKeys) > 0 {
		vdUnsupported("this join")
	}
	var word string
	cross := d.notes.crossJoins[n]
	switch n.Kind {
	case InnerJoin:
		word = "JOIN "
		if cross {
			word = "CROSS JOIN "
		}
	case LeftJoin:
		word = "LEFT JOIN "
	case RightJoin:
		word = "RIGHT JOIN "
	case FullJoin:
		word = "FULL JOIN "
	default:
		vdUnsupported("a semi or anti join")
	}
	l, lc := d.from(n.Left)
	kw := d.keyword(" "+word, -8, 8, 4)
	r, rc := d.fromRight(n, lc)
	if d.pretty && d.isJoin(n.Right) {
		// get_from_clause_item's need_paren_on_right: the plain form
		// has the nested join's own parentheses.
		r = "(" + r + ")"
	}
	cols := append(append([]vdCol{}, lc...), rc...)
	var tail string
	switch {
	case cross:
	case using != "":
		tail = " " + using
	case !d.pretty:
		tail = " ON (" + d.expr(n.Cond, cols) + ")"
	default:
		tail = " ON " + d.expr(n.Cond, cols)
	}
	if !d.pretty {
		return "(" + l + kw + r + tail + ")", cols
	}
	return l + kw + r + tail, cols
}

// isJoin reports whether FROM item p is a join (a JoinExpr of
// PostgreSQL's).
func (d *viewDeparser) isJoin(p Plan) bool {
	if _, ok := d.notes.colAliases[p]; ok {
		return false
	}
	switch n := p.(type) {
	case *Join:
		return true
	case *Project:
		_, ok := d.usingJoins[n]
		return ok
	}
	return false
}

// quoteNames quotes each of names (quoteName).
func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteName(n)
	}
	return out
}

// col prints e over the columns env; a column reference keeps its
// column's name.
func (d *viewDeparser) col(e Expr, env []vdCol) vdCol {
	if r, ok := e.(*ColRef); ok {
		if r.Idx >= len(env) {
			vdUnsupported("a column reference")
		}
		return env[r.Idx]
	}
	return vdCol{text: d.expr(e, env)}
}

// sortExpr prints a GROUP BY or ORDER BY expression as
// get_rule_sortgroupclause does: a column bare; other expressions
// parenthesised in the pretty form, and function calls in either.
func (d *viewDeparser) sortExpr(e Expr, env []vdCol) string {
	fn := false
	if r, ok := e.(*ColRef); ok && r.Idx < len(env) {
		if env[r.Idx].attr != "" {
			return env[r.Idx].text
		}
		fn = env[r.Idx].fn
	}
	if c, ok := e.(*Call); ok {
		if _, op := isOp(c); !op && c.Fn != "neg" {
			fn = true
		}
	}
	s := d.expr(e, env)
	if d.pretty || fn {
		return "(" + s + ")"
	}
	return s
}

// sortKey prints an ORDER BY item: its expression (sortExpr) and the
// direction and NULLS order where they are not the default.
func (d *viewDeparser) sortKey(k SortKey, env []vdCol) string {
	t := d.sortExpr(k.Expr, env)
	if k.Desc {
		t += " DESC"
		if !k.NullsFirst {
			t += " NULLS LAST"
		}
	} else if k.NullsFirst {
		t += " NULLS FIRST"
	}
	return t
}

// groupingSets prints a GROUP BY list with grouping sets as
// get_rule_groupingset does.
func (d *viewDeparser) groupingSets(g *vdGrouping, cols []vdCol) string {
	var set func(s vdGroupingSet, omitParens bool) string
	set = func(s vdGroupingSet, omitParens bool) string {
		switch s.kind {
		case "empty":
			return "()"
		case "simple":
			parts := make([]string, len(s.keys))
			for i, k := range s.keys {
				parts[i] = d.sortExpr(k, cols)
			}
			if omitParens && len(parts) == 1 {
				return parts[0]
			}
			return "(" + strings.Join(parts, ", ") + ")"
		}
		word, omitChild := map[string]string{"rollup": "ROLLUP(", "cube": "CUBE("}[s.kind], true
		if s.kind == "sets" {
			word, omitChild = "GROUPING SETS (", false
		}
		parts := make([]string, len(s.content))
		for i, c := range s.content {
			parts[i] = set(c, omitChild)
		}
		return word + strings.Join(parts, ", ") + ")"
	}
	parts := make([]string, len(g.sets))
	for i, s := range g.sets {
		parts[i] = set(s, true)
	}
	out := strings.Join(parts, ", ")
	if g.distinct {
		out = "DISTINCT " + out
	}
	return out
}

// window prints a window function call, call i of its level, with its
// OVER clause over the columns env: the name of the named window it
// reads, or the window's specification.
func (d *viewDeparser) window(c WindowCall, env []vdCol, wins vdWindows, i int) string {
	s := d.agg(AggCall{Fn: c.Fn, Args: c.Args}, env)
	if len(c.Args) == 0 && c.Fn == "count" {
		s = "count(*)"
	} else if len(c.Args) == 0 {
		s = c.Fn + "()"
	}
	if i < len(wins.refs) && wins.refs[i] >= 0 && wins.refs[i] < len(wins.defs) {
		w := wins.defs[wins.refs[i]]
		if w.name != "" {
			return s + " OVER " + quoteName(w.name)
		}
		return s + " OVER " + d.windowSpec(w, env)
	}
	return s + " OVER " + d.windowSpec(vdWindowDef{partition: c.PartitionBy, order: c.OrderBy, frame: c.Frame}, env)
}

// windowSpec prints a window's specification as get_rule_windowspec
// does: the window it refers to, and the clauses of its own.
func (d *viewDeparser) windowSpec(w vdWindowDef, env []vdCol) string {
	var over []string
	if w.ref != "" {
		over = append(over, quoteName(w.ref))
	}
	c := WindowCall{PartitionBy: w.partition, OrderBy: w.order, Frame: w.frame}
	if len(c.PartitionBy) > 0 {
		parts := make([]string, len(c.PartitionBy))
		for i, e := range c.PartitionBy {
			parts[i] = d.sortExpr(e, env)
		}
		over = append(over, "PARTITION BY "+strings.Join(parts, ", "))
	}
	if len(c.OrderBy) > 0 {
		keys := make([]string, len(c.OrderBy))
		for i, k := range c.OrderBy {
			keys[i] = d.sortKey(k, env)
		}
		over = append(over, "ORDER BY "+strings.Join(keys, ", "))
	}
	if f := c.Frame; f != nil {
		over = append(over, d.frame(f))
	}
	return "(" + strings.Join(over, " ") + ")"
}

// int8Arg prints e, a frame offset, LIMIT or OFFSET coerced to bigint.
// The coercion is an implicit cast in PostgreSQL, which the pretty form
// parenthesises around an operator.
func (d *viewDeparser) int8Arg(e Expr) string {
	s := d.expr(e, nil)
	if c, ok := e.(*Cast); ok && c.Assign && d.pretty {
		if call, ok := c.Arg.(*Call); ok {
			if _, op := isOp(call); op {
				s = "(" + s + ")"
			}
		}
	}
	return s
}

// frame prints a window frame clause as get_rule_windowspec does: the
// end bound only after BETWEEN, and the exclusion unless it is EXCLUDE
// NO OTHERS.
func (d *viewDeparser) frame(f *Frame) string {
	bound := func(b FrameBound) string {
		switch b.Kind {
		case "preceding", "following":
			return d.int8Arg(b.Offset) + " " + strings.ToUpper(b.Kind)
		}
		return strings.ToUpper(strings.ReplaceAll(b.Kind, "_", " "))
	}
	s := strings.ToUpper(f.Mode) + " "
	if f.Between {
		s += "BETWEEN " + bound(f.Start) + " AND " + bound(f.End)
	} else {
		s += bound(f.Start)
	}
	if f.Exclude != "" {
		s += " EXCLUDE " + strings.ToUpper(strings.ReplaceAll(f.Exclude, "_", " "))
	}
	return s
}

// agg prints an aggregate call over the columns env.
func (d *viewDeparser) agg(a AggCall, env []vdCol) string {
	var s string
	if a.Fn == "count" && len(a.Args) == 0 {
		s = "count(*)"
	} else {
		parts := make([]string, len(a.Args))
		for i, x := range a.Args {
			parts[i] = d.exprIn(x, env, &Call{Fn: a.Fn, Args: a.Args})
		}
		dist := ""
		if a.Distinct {
			dist = "DISTINCT "
		}
		order := ""
		if len(a.OrderBy) > 0 {
			// get_agg_expr: the sort keys after the arguments.
			keys := make([]string, len(a.OrderBy))
			for i, k := range a.OrderBy {
				keys[i] = d.sortKey(k, env)
			}
			order = " ORDER BY " + strings.Join(keys, ", ")
		}
		s = a.Fn + "(" + dist + strings.Join(parts, ", ") + order + ")"
	}
	if a.Filter != nil {
		s += " FILTER (WHERE " + d.expr(a.Filter, env) + ")"
	}
	return s
}

// expr prints e over the columns env with rowDeparser's rules, after
// checking that every node of e is one it prints with the names env
// gives.
func (d *viewDeparser) expr(e Expr, env []vdCol) string { return d.exprIn(e, env, nil) }

// exprIn is expr of e, an argument of parent (nil: of none), which a
// table column of a domain prints relabelled in (rowDeparser).
func (d *viewDeparser) exprIn(e Expr, env []vdCol, parent Expr) string {
	WalkExpr(e, func(x Expr) {
		switch n := x.(type) {
		case *ColRef:
			if n.Idx >= len(env) {
				vdUnsupported("a column reference")
			}
		case *OuterRef:
			if n.Depth > len(d.outer) || n.Idx >= len(d.outer[len(d.outer)-n.Depth]) {
				vdUnsupported("an outer reference")
			}
		case *Subquery:
			if n.Row != nil || n.Kind == SubRow {
				vdUnsupported("this subquery")
			}
		case *Const, *Cast, *And, *Or, *Not, *IsNull, *IsBool, *Coalesce, *Case, *InList, *Let, *LetRef:
		case *Call:
			if _, ok := sqlValueFunctions[n.Fn]; ok && len(n.Args) == 0 {
				break
			}
			if _, op := isOp(n); op || n.Fn == "pg_any_eq" || n.Fn == "pg_subscript" || n.Fn == "pg_slice" || n.Fn == "pg_extract" {
				break
			}
			if !isPlainFunction(n.Fn) || n.Fn == "array" && len(n.Args) == 0 {
				vdUnsupported("function " + n.Fn)
			}
		default:
			vdUnsupported(fmt.Sprintf("an expression of type %T", x))
		}
	})
	texts, relabels := make([]string, len(env)), make([]*types.T, len(env))
	for i, c := range env {
		texts[i], relabels[i] = c.text, c.relabel
	}
	rd := rowDeparser{pretty: d.pretty, indent: d.indent, cols: texts, relabels: relabels, written: d.written, calls: d.calls}
	rd.outer = func(r *OuterRef) string { return d.outer[len(d.outer)-r.Depth][r.Idx].text }
	rd.special = func(x Expr) (string, bool) {
		args, ok := d.notes.groupingCalls[x]
		if !ok {
			return "", false
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = d.expr(a, d.fromCols)
		}
		return "GROUPING(" + strings.Join(parts, ", ") + ")", true
	}
	rd.sub = func(q *Subquery) string {
		d.outer = append(d.outer, env)
		defer func() { d.outer = d.outer[:len(d.outer)-1] }()
		d.sublink = true
		return d.query(q.Plan, nil)
	}
	out := rd.expr(e, parent)
	for strings.Contains(out, " \n") {
		out = strings.ReplaceAll(out, " \n", "\n")
	}
	return out
}

// isPlainFunction reports whether fn prints as PostgreSQL writes it: an
// operator, or a function whose name is an ordinary identifier (weir's
// internal functions have names PostgreSQL does not know).
func isPlainFunction(fn string) bool {
	if infixOps[fn] || fn == "neg" {
		return true
	}
	if strings.HasPrefix(fn, "pg_") || strings.ContainsAny(fn, "\x00.") {
		return false
	}
	return sql.QuoteIdent(fn) == fn
}

// QuoteName quotes an identifier as PostgreSQL's quote_identifier does
// (sql.QuoteName).
func QuoteName(s string) string { return sql.QuoteName(s) }

// quoteName quotes a column, alias or relation name as quote_identifier
// does.
func quoteName(s string) string { return sql.QuoteName(s) }

// sampleArg prints an argument of TABLESAMPLE or REPEATABLE as
// PostgreSQL's get_rule_expr does: an implicit coercion to the
// argument's type is not shown (the expression under it is
// parenthesized as any operand is).
func (d *viewDeparser) sampleArg(e Expr) string {
	if c, ok := e.(*Cast); ok && c.Assign {
		e = c.Arg
	}
	return d.expr(e, nil)
}
