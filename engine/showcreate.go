package engine

import (
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
// as it is.

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
		e.log.Debug("SHOW CREATE shows a definition as stored", "relation", rel.Name, "err", err)
		return query
	}
	return oneLine(strings.TrimSuffix(strings.TrimSpace(text), ";"))
}

// namesDiffer reports whether the query of d (its SQL) names its
// visible output columns otherwise than d names its columns: a column
// list, or a column renamed since.
func (e *Engine) namesDiffer(d *catalog.Relation) bool {
	q, err := parseQuery(d.SQL)
	if err != nil {
		return false
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
		return false
	}
	var got, want []string
	for _, c := range b.Plan.Schema() {
		if !c.Hidden {
			got = append(got, c.Name)
		}
	}
	for _, c := range d.Cols {
		if !c.Hidden {
			want = append(want, c.Name)
		}
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return true
		}
	}
	return false
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
