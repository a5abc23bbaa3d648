package engine

import (
	"slices"
	"strings"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
)

// SHOW CREATE VIEW | MATERIALIZED VIEW | SINK print a statement that,
// run on a database holding the relations as they are now, creates the
// same object. A definition's text is stored as written and bound at
// every start against the columns it pins (catalog.Relation.DepCols),
// so after a column of a relation it reads is renamed (or columns are
// added) the text no longer reads the same when run afresh, and a
// relation's own column renamed (or named by a column list) is not the
// name its query gives. Such a query is printed deparsed from its
// binding (planner.ViewDefinition, as pg_get_viewdef prints it) with
// today's names, its output columns aliased to the relation's own
// names: for a sink, the names it was created with and goes on
// writing, which its primary_key option names, so that option stays
// as it is. A query of a shape the deparser does not print has its
// renamed columns' words rewritten instead, when that binds afresh to
// what it read (rewrittenQuery); otherwise it is shown as stored.

// shownQuery is the query SHOW CREATE prints for view, materialized
// view or sink rel whose stored query text is query: as stored when run
// afresh it reads what rel reads under the names rel gives its columns,
// otherwise deparsed with the names relations and columns have now, on
// one line. A query of a shape the deparser does not print is shown as
// stored.
func (e *Engine) shownQuery(rel *catalog.Relation, query string) string {
	d := rel.Clone()
	d.SQL = query
	if len(rel.DepCols) == 0 && !e.namesDiffer(d) {
		return query
	}
	s := e.definitionSession(d, nil)
	cat := s.catalogView()
	if d.Temp {
		s.tempSchema = d.Schema
	} else if pc, ok := cat.(planner.PermanentCatalog); ok {
		cat = pc.Permanent()
	}
	text, err := planner.ViewDefinition(d, cat, e.cat.ByID, false)
	if err != nil {
		if q, ok := e.rewrittenQuery(d); ok {
			return q
		}
		e.log.Debug("SHOW CREATE shows a definition as stored", "relation", rel.Name, "err", err)
		return query
	}
	return oneLine(strings.TrimSuffix(strings.TrimSpace(text), ";"))
}

// rewrittenQuery is shownQuery's way with a query the deparser does not
// print: its text (d.SQL) with each word naming a column of a pinned
// relation by its pinned name, bare or qualified, renamed to the
// column's name now (not a function's name, nor a word of a string).
// It is kept only when, bound afresh (nothing pinned), it reads the same
// relations and columns (planner.PlanShape) as d does; when it names its
// output columns otherwise than d, it is read from in a subquery whose
// alias names them as d does.
func (e *Engine) rewrittenQuery(d *catalog.Relation) (string, bool) {
	renames := map[string]string{}
	for id, names := range d.DepCols {
		r, ok := e.cat.ByID(id)
		if !ok {
			return "", false
		}
		for i, n := range names {
			if i >= len(r.Cols) || r.Cols[i].Name == n {
				continue
			}
			if prev, dup := renames[n]; dup && prev != r.Cols[i].Name {
				return "", false
			}
			renames[n] = r.Cols[i].Name
		}
	}
	if len(renames) == 0 {
		return "", false
	}
	toks, err := sql.Lex(d.SQL)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	last := 0
	for k, t := range toks {
		to, ok := renames[t.Val]
		if !ok || t.Kind != sql.TIdent && t.Kind != sql.TQIdent ||
			k+1 < len(toks) && toks[k+1].Kind == sql.TOp && (toks[k+1].Val == "(" || toks[k+1].Val == ".") {
			continue
		}
		b.WriteString(d.SQL[last:t.Off])
		b.WriteString(planner.QuoteName(to))
		last = t.End
	}
	b.WriteString(d.SQL[last:])
	fresh := d.Clone()
	fresh.SQL, fresh.DepCols = b.String(), nil
	want, ok := e.definitionShape(d)
	if !ok {
		return "", false
	}
	if got, ok := e.definitionShape(fresh); !ok || got != want {
		return "", false
	}
	names, ok := e.outputNames(fresh)
	want2 := visibleNames(d)
	if !ok || len(names) != len(want2) {
		return "", false
	}
	if !slices.Equal(names, want2) {
		// Named as d names them by a column alias list.
		quoted := make([]string, len(want2))
		for i, n := range want2 {
			quoted[i] = planner.QuoteName(n)
		}
		return "SELECT * FROM (" + fresh.SQL + ") AS " + planner.QuoteName(d.Name) + " (" + strings.Join(quoted, ", ") + ")", true
	}
	return fresh.SQL, true
}

// visibleNames returns the names of rel's columns queries see.
func visibleNames(rel *catalog.Relation) []string {
	var names []string
	for _, c := range rel.Cols {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// namesDiffer reports whether the query of d (its SQL) names its
// visible output columns otherwise than d names its columns: a column
// list, or a column renamed since.
func (e *Engine) namesDiffer(d *catalog.Relation) bool {
	got, ok := e.outputNames(d)
	want := visibleNames(d)
	return ok && len(got) == len(want) && !slices.Equal(got, want)
}

// outputNames returns the names of the visible output columns of the
// query of d (its SQL), bound as d is bound at start.
func (e *Engine) outputNames(d *catalog.Relation) ([]string, bool) {
	q, err := parseQuery(d.SQL)
	if err != nil {
		return nil, false
	}
	s := e.definitionSession(d, nil)
	cat := s.catalogView()
	if d.Temp {
		s.tempSchema = d.Schema
	} else if pc, ok := cat.(planner.PermanentCatalog); ok {
		cat = pc.Permanent()
	}
	b, err := planner.Bind(q, cat, nil)
	if err != nil {
		return nil, false
	}
	var names []string
	for _, c := range b.Plan.Schema() {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names, true
}

// oneLine joins the lines of deparsed SQL text: each run of blanks and
// line breaks between tokens becomes one blank; the tokens, string
// literals included, are kept byte for byte.
func oneLine(text string) string {
	toks, err := sql.Lex(text)
	if err != nil || len(toks) == 0 {
		return text
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.Off > toks[i-1].End {
			if gap := text[toks[i-1].End:t.Off]; strings.TrimSpace(gap) == "" {
				b.WriteByte(' ')
			} else {
				b.WriteString(gap)
			}
		}
		b.WriteString(text[t.Off:t.End])
	}
	return b.String()
}

// renameColumnInCreate rewrites CREATE TABLE statement text of table
// for RENAME COLUMN old TO new, within its list of columns and
// constraints: a column definition's name, the column lists of PRIMARY
// KEY, UNIQUE and FOREIGN KEY, a self-reference's REFERENCES table (col),
// and the column in CHECK and generated expressions, bare or qualified
// by the table's name. Type names (after a column's name, ::, or AS),
// constraint names, function names (before "(") and the columns of
// another table after REFERENCES are kept. The result must parse to the
// same columns with old renamed, or text is returned as it is.
func renameColumnInCreate(text, table, old, new string) string {
	before, ok := createTableColumns(text)
	if !ok {
		return text
	}
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	op := func(i int, v string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == v
	}
	word := func(i int, ws ...string) bool {
		for _, w := range ws {
			if i >= 0 && i < len(toks) && toks[i].Kind == sql.TIdent && toks[i].Val == w {
				return true
			}
		}
		return false
	}
	ident := func(i int) bool {
		return i >= 0 && i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent)
	}
	var b strings.Builder
	last := 0
	depth, started, done := 0, false, false
	itemStart := false
	skip := -1     // a token not to rewrite (a column's type name)
	otherRef := -1 // the depth of another table's REFERENCES column list, while in it
	refPending := false
	for k, t := range toks {
		if done {
			break
		}
		switch {
		case op(k, "("):
			depth++
			if depth == 1 && !started {
				started, itemStart = true, true
				continue
			}
			if refPending {
				otherRef, refPending = depth, false
			}
			continue
		case op(k, ")"):
			if depth == otherRef {
				otherRef = -1
			}
			depth--
			if started && depth == 0 {
				done = true
			}
			continue
		case op(k, ",") && depth == 1:
			itemStart, refPending = true, false
			continue
		}
		if !started {
			continue
		}
		if itemStart {
			itemStart = false
			if !word(k, "constraint", "primary", "unique", "check", "foreign", "like", "exclude") {
				// A column definition: its name, then its type.
				skip = k + 1
			}
		}
		if word(k, "references") {
			j := k + 1
			if ident(j+2) && op(j+1, ".") {
				j += 2
			}
			if !ident(j) || toks[j].Val != table {
				refPending = true
			}
			continue
		}
		if !ident(k) || t.Val != old || k == skip || otherRef >= 0 || op(k+1, "(") || op(k-1, "::") || word(k-1, "as", "constraint", "references") {
			continue
		}
		if op(k-1, ".") && (!ident(k-2) || toks[k-2].Val != table) {
			continue
		}
		if op(k-1, ".") && op(k+1, ".") {
			continue
		}
		b.WriteString(text[last:t.Off])
		b.WriteString(planner.QuoteName(new))
		last = t.End
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	out := b.String()
	after, ok := createTableColumns(out)
	if !ok || len(after) != len(before) {
		return text
	}
	for i := range before {
		want := before[i]
		if want == old {
			want = new
		}
		if after[i] != want {
			return text
		}
	}
	return out
}

// createTableColumns returns the column names, then the primary key's,
// of CREATE TABLE statement text; ok is false when it is not one.
func createTableColumns(text string) ([]string, bool) {
	stmt, err := sql.Parse(text)
	if err != nil {
		return nil, false
	}
	ct, ok := stmt.(*sql.CreateTable)
	if !ok || ct.AsQuery != nil {
		return nil, false
	}
	var names []string
	for _, c := range ct.Columns {
		names = append(names, c.Name)
	}
	names = append(names, "")
	names = append(names, ct.PrimaryKey...)
	for _, u := range ct.Uniques {
		names = append(names, "")
		names = append(names, u.Cols...)
	}
	return names, true
}

// renameReferencedColumn rewrites, in the CREATE TABLE statement text
// of a table with a foreign key to table schema.table, the column old
// of that table to new where a REFERENCES [schema.]table (cols) names
// it, and nothing else.
func renameReferencedColumn(text, schema, table, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	op := func(i int, v string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == v
	}
	ident := func(i int) bool {
		return i >= 0 && i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent)
	}
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if t.Kind != sql.TIdent || t.Val != "references" {
			continue
		}
		j := i + 1
		if ident(j+2) && op(j+1, ".") {
			if toks[j].Val != schema {
				continue
			}
			j += 2
		}
		if !ident(j) || toks[j].Val != table || !op(j+1, "(") {
			continue
		}
		for k := j + 2; k < len(toks) && !op(k, ")"); k++ {
			if ident(k) && toks[k].Val == old {
				b.WriteString(text[last:toks[k].Off])
				b.WriteString(planner.QuoteName(new))
				last = toks[k].End
			}
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
