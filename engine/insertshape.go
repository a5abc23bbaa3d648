package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// A single-row INSERT ... VALUES sent through the simple query protocol
// (pgbench's, and most applications' autocommit writes) is parsed and
// bound once per shape: its text with each VALUES item that is an
// unsigned integer literal lifted out as a parameter. The statement
// parsed and bound is that template (a cachedQuery), and each statement
// of the shape runs it with its own integers as the parameters' values;
// parsing through the dialect bridge and binding were a tenth of the
// server's CPU for such an INSERT.
//
// The template is used only where the result is the literal
// statement's: every lifted item is a whole VALUES item of the one row
// (not an operand: -1 stays in the text), and its parameter takes the
// type of its column, which must be smallint, integer or bigint, the
// integer being in that type's range. A literal integer is then
// assigned to its column exactly as the parameter's value is. Anything
// else (a statement not of that form, another column type, an integer
// out of its column's range, a template that does not bind) takes the
// ordinary path, which reports the statement's own errors at their
// positions.
//
// The shapes are the session's. A shape is bound again (or found not
// to qualify any more) once the catalog or search_path has changed
// since it was bound; the current role's privileges are checked at
// every run, as for any statement (queryPrepared.execute).

// maxInsertShapes bounds the shapes a session keeps; past it they are
// all dropped and the session starts over.
const maxInsertShapes = 64

// maxShapeText is the longest statement taken for a shape; longer ones
// are rarely the same shape twice.
const maxShapeText = 4 << 10

// insertShape is a template bound for a shape, or a shape found not to
// qualify (q nil) under gen and path.
type insertShape struct {
	q    *cachedQuery
	gen  uint64
	path string
}

// shapeLits is a statement's shape (its template's text) and the text
// of each integer lifted out of it, in order.
type shapeLits struct {
	template string
	lits     []string
}

// scanInsertShape returns text's shape when text is a single-row
// INSERT INTO name [(columns)] VALUES (items) of single-token items, at
// least one an unsigned integer literal, with nothing after but a
// semicolon: the template is text's tokens joined by spaces, each such
// integer replaced by $1, $2, ... in order.
func scanInsertShape(text string) (shapeLits, bool) {
	if len(text) > maxShapeText || !hasPrefixFold(strings.TrimLeft(text, " \t\r\n"), "insert") {
		return shapeLits{}, false
	}
	toks, err := sql.Lex(text)
	if err != nil {
		return shapeLits{}, false
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	var lits []string
	i := 0
	put := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	word := func(w string) bool {
		if i < len(toks) && toks[i].Kind == sql.TIdent && toks[i].Val == w {
			put(text[toks[i].Off:toks[i].End])
			i++
			return true
		}
		return false
	}
	op := func(o string) bool {
		if i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == o {
			put(o)
			i++
			return true
		}
		return false
	}
	name := func() bool {
		if i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent) && toks[i].Err == nil {
			put(text[toks[i].Off:toks[i].End])
			i++
			return true
		}
		return false
	}
	if !word("insert") || !word("into") || !name() {
		return shapeLits{}, false
	}
	for op(".") {
		if !name() {
			return shapeLits{}, false
		}
	}
	if op("(") {
		for {
			if !name() {
				return shapeLits{}, false
			}
			if op(")") {
				break
			}
			if !op(",") {
				return shapeLits{}, false
			}
		}
	}
	if !word("values") || !op("(") {
		return shapeLits{}, false
	}
	for {
		if i >= len(toks) || toks[i].Err != nil {
			return shapeLits{}, false
		}
		t := toks[i]
		switch t.Kind {
		case sql.TNumber:
			if digitsOnly(t.Val) {
				lits = append(lits, t.Val)
				put("$" + strconv.Itoa(len(lits)))
			} else {
				put(text[t.Off:t.End])
			}
		case sql.TIdent, sql.TString:
			put(text[t.Off:t.End])
		default:
			return shapeLits{}, false
		}
		i++
		if op(")") {
			break
		}
		if !op(",") {
			return shapeLits{}, false
		}
	}
	if i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == ";" {
		i++
	}
	if i >= len(toks) || toks[i].Kind != sql.TEOF || len(lits) == 0 {
		return shapeLits{}, false
	}
	return shapeLits{template: b.String(), lits: lits}, true
}

// hasPrefixFold reports whether s begins with the lower-case ASCII word
// prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// digitsOnly reports whether s is a non-empty string of ASCII digits.
func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shapeParams reads lits as the values of params, or reports false
// when a parameter is not of an integer type or its integer is out of
// that type's range.
func shapeParams(params []types.T, lits []string) ([]types.Datum, bool) {
	if len(params) != len(lits) {
		return nil, false
	}
	out := make([]types.Datum, len(lits))
	for i, t := range params {
		var bits int
		switch t {
		case types.TInt2:
			bits = 16
		case types.TInt4:
			bits = 32
		case types.TInt8:
			bits = 64
		default:
			return nil, false
		}
		v, err := strconv.ParseInt(lits[i], 10, bits)
		if err != nil {
			return nil, false
		}
		out[i] = types.DInt(v)
	}
	return out, true
}

// prepareShape returns text prepared through its shape's template, or
// nil when it is to be prepared the ordinary way. Only a session's own
// simple-query statements outside a failed transaction block come here.
func (s *Session) prepareShape(ctx context.Context, text string) wire.Prepared {
	if s.eng.noInsertShapes || s.pins != nil || s.over != nil || s.funcPins != nil || s.schemaFirst != "" {
		return nil
	}
	sh, ok := scanInsertShape(text)
	if !ok {
		return nil
	}
	gen, path := s.eng.cat.Generation(), s.searchPath()
	e, ok := s.shapes[sh.template]
	if !ok || e.gen != gen || e.path != path {
		// statement_timeout and cancellation cover the binding.
		bctx, cancel := s.withTimeout(ctx)
		e = s.bindShape(bctx, sh.template, gen, path)
		cancel()
	}
	if e.q == nil {
		return nil
	}
	params, ok := shapeParams(e.q.params, sh.lits)
	if !ok {
		return nil
	}
	return &shapePrepared{s: s, q: e.q, params: params, text: text}
}

// bindShape parses and binds template, under the catalog generation and
// search_path read before, and records it for its shape: as a template
// when it binds as an INSERT of no result whose parameters are all of
// integer types, as a shape not to use otherwise.
func (s *Session) bindShape(ctx context.Context, template string, gen uint64, path string) *insertShape {
	e := &insertShape{gen: gen, path: path}
	if stmt, err := s.parseCtx(ctx, template); err == nil {
		if st, ok := stmt.(*sql.Query); ok {
			if cq, err := s.prepareCached(ctx, st, template, nil); err == nil && cq.q.bound.Tag == "INSERT" &&
				len(cq.fields) == 0 && allIntegers(cq.params) {
				if vals := insertValues(cq.q.bound.Plan); vals != nil && len(vals.Rows) == 1 {
					e.q = cq
				}
			}
		}
	}
	if len(s.shapes) >= maxInsertShapes {
		clear(s.shapes)
	}
	if s.shapes == nil {
		s.shapes = map[string]*insertShape{}
	}
	s.shapes[template] = e
	return e
}

// allIntegers reports whether every type of ts is smallint, integer or
// bigint.
func allIntegers(ts []types.T) bool {
	for _, t := range ts {
		if t != types.TInt2 && t != types.TInt4 && t != types.TInt8 {
			return false
		}
	}
	return len(ts) > 0
}

// shapePrepared is a statement prepared through its shape's template:
// the template's query and the statement's integers as its parameters.
// It has no parameters of its own to bind.
type shapePrepared struct {
	s      *Session
	q      *cachedQuery
	params []types.Datum
	// text is the statement, prepared the ordinary way when the
	// template no longer binds when it is to run.
	text string
}

// ParamTypes is empty: the statement's integers are bound already.
func (p *shapePrepared) ParamTypes() []types.T { return nil }

// Fields are the template's result columns (none: an INSERT without
// RETURNING).
func (p *shapePrepared) Fields() []wire.Field { return p.q.fields }

// Execute runs the template with the statement's integers. A template
// that no longer binds (the catalog changed since the statement was
// prepared) hands the statement to the ordinary path, whose errors are
// the statement's, at their positions in its text.
func (p *shapePrepared) Execute(ctx context.Context, _ []types.Datum, io wire.ExecIO) (wire.Result, error) {
	if err := p.q.Revalidate(ctx); err != nil || !allIntegers(p.q.params) {
		delete(p.s.shapes, p.q.text)
		prep, err := p.s.Prepare(withNoShape(ctx), p.text, nil)
		if err != nil {
			return nil, err
		}
		if ft, ok := prep.(*failTracking); ok {
			prep = ft.Prepared
		}
		return prep.Execute(ctx, nil, io)
	}
	p.s.eng.shapeRuns.Add(1)
	return p.q.q.Execute(ctx, p.params, io)
}

// noShapeKey marks a context whose statement is prepared without its
// shape's template.
type noShapeKey struct{}

// withNoShape returns ctx marked for preparing its statement without a
// shape's template.
func withNoShape(ctx context.Context) context.Context {
	return context.WithValue(ctx, noShapeKey{}, true)
}

// noShape reports whether ctx's statement is to be prepared without a
// shape's template.
func noShape(ctx context.Context) bool {
	v, _ := ctx.Value(noShapeKey{}).(bool)
	return v
}
