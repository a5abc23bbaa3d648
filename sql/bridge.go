package sql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/weirdb/weir/internal/pgerr"
)

// The dialect bridge: it rewrites a Postgres statement, on our own tokens,
// into text the TiDB parser accepts, parses that text, and post-processes
// the AST. The rewrites are a contract with the binder; doc.go lists them.

// tidbMode is the SQL mode the bridged text is written for.
var tidbMode = func() mysql.SQLMode {
	m, err := mysql.GetSQLMode("ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES")
	if err != nil {
		panic(err)
	}
	return m
}()

// TiDB parsers are not safe for concurrent use and are costly to build.
var tidbParsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(tidbMode)
	p.EnableWindowFunc(true)
	return p
}}

// quoteWords are the words TiDB reserves that Postgres lets users take as
// plain names (key, index, status, rank, ...). The bridge quotes them
// when they are not followed by "(", so `t.key` or `SELECT key FROM t`
// parse; quoting a lower-case name does not change it.
var quoteWords = func() map[string]bool {
	keep := map[string]bool{}
	// Type names are not kept: casts and typed literals are rewritten, so
	// a type word left in the text is a column name (or a function name,
	// which is never quoted).
	for _, w := range strings.Fields(`all and as asc between both by case
		check column constraint create cross current_date current_role current_time current_timestamp
		current_user default delete desc distinct else except exists false fetch for foreign from
		full grant group having ilike in inner insert intersect into is join lateral
		leading left like limit localtime localtimestamp natural not null on or order outer over
		partition primary recursive references regexp right row select set
		straight_join table tablesample then to trailing true union unique update using values
		when where window with escape of analyze`) {
		keep[w] = true
	}
	m := map[string]bool{}
	for _, k := range tidb.Keywords {
		if w := strings.ToLower(k.Word); k.Reserved && !keep[w] {
			m[w] = true
		}
	}
	return m
}()

// callSyntaxWords are the words that come before "(" in PostgreSQL's
// own query syntax (OVER (, PARTITION BY (, FILTER (, SET (a, b) =,
// ...) and that are no call's name there (bridge.parse).
var callSyntaxWords = wordSet(`over by partition filter within set rollup cube sets groups rows range`)

// maxCallQuotes bounds the names bridge.parse quotes in one statement.
const maxCallQuotes = 64

// sqlValueFuncs are SQL value functions PostgreSQL's grammar has as
// keywords (CURRENT_DATE, CURRENT_TIMESTAMP(p), ...) but pg_proc has not:
// called by a quoted or qualified name, they are a user's function or
// none (42883).
var sqlValueFuncs = wordSet(`current_date current_time current_timestamp localtime localtimestamp`)

// UserCallPrefix starts the name the bridge gives a call the user wrote
// of a name it keeps for its own calls (pg_cast, pg_array, ...: the
// dialect gate's internalFuncs): "__weir_fn_pg_cast"(1, 'text'). The
// binder takes the prefix off and resolves the rest as any function name,
// among the user's functions only, so that a missing one is 42883 with
// its argument types as in PostgreSQL.
const UserCallPrefix = "__weir_fn_"

// byWords are the words BY follows as a keyword in a query (ORDER BY,
// GROUP BY, PARTITION BY); elsewhere by is a name, which Postgres allows
// (it is an unreserved keyword) and TiDB does not unless quoted.
var byWords = map[string]bool{"order": true, "group": true, "partition": true}

// bridge holds the state of bridging one statement.
type bridge struct {
	// ctx, when set, is checked between the bridge's passes: the bridge
	// gives up once it has ended.
	ctx context.Context
	// usingOps are the string nodes pgClauses wrote for the operators of
	// ORDER BY ... USING op (sortUsing).
	usingOps map[*node]bool
	src      string
	toks     []Token
	// definition is set for a relation's stored definition: a FETCH
	// FIRST or OFFSET ... ROWS count is taken whole, as weirs before
	// the grammar's restriction (restricted.go) took it.
	definition bool
	q          *Query
	err        error
	// markers collects the parameter markers of every TiDB parse of the
	// statement (the main text, TVF arguments, RETURNING), in that order,
	// with their Postgres numbers.
	markers []markerRef
	// lastMap maps the text of the latest parse back to the source.
	lastMap *SourceMap
	// limitExprs are the LIMIT/OFFSET counts parsed apart (limitArg),
	// limitMap their texts' maps back to the source, at offsets shifted
	// past the statement's text (limitShift), which extend Query.Map.
	limitExprs []ast.ExprNode
	limitMap   SourceMap
	// shift is added to the node offsets of the parse under way.
	shift int
	// strict is set for user text, which passes the dialect gate
	// (dialect.go); text the bridge wrote itself does not.
	strict bool
}

// limitShift is where the bridged offsets of the k-th LIMIT/OFFSET count
// parsed apart start (k from 1): far past any statement's text.
func limitShift(k int) int { return k << 30 }

// shifter adds by to the text offset of every positioned node.
type shifter struct{ by int }

func (v *shifter) Enter(n ast.Node) (ast.Node, bool) {
	if o := n.OriginTextPosition(); o > 0 {
		n.SetOriginTextPosition(o + v.by)
	}
	return n, false
}

func (v *shifter) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// withLimitMap returns m extended with the maps of the LIMIT/OFFSET counts
// parsed apart.
func (b *bridge) withLimitMap(m *SourceMap) *SourceMap {
	if m == nil || len(b.limitMap.outs) == 0 {
		return m
	}
	out := *m
	out.outs = append(append([]int{}, m.outs...), b.limitMap.outs...)
	out.srcs = append(append([]int{}, m.srcs...), b.limitMap.srcs...)
	return &out
}

type markerRef struct {
	m *ParamMarker
	n int
}

func (b *bridge) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// bridgeQuery bridges and parses the tokens of one query statement (no
// TEOF) whose offsets index src.
func bridgeQuery(src string, toks []Token) (*Query, error) {
	return bridgeQueryMode(context.Background(), src, toks, true, false)
}

// bridgeQueryMode is bridgeQuery; strict is false for text the bridge
// wrote itself, which skips the dialect gate, and definition is set for a
// relation's stored definition (ParseDefinition).
func bridgeQueryMode(ctx context.Context, src string, toks []Token, strict, definition bool) (*Query, error) {
	for _, t := range toks {
		if t.Err != nil {
			return nil, t.Err
		}
	}
	if len(toks) > 0 && toks[len(toks)-1].Kind == TEOF {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at end of input").WithPosition(charPos(src, len(src)))
	}
	if strict {
		if err := checkDialect(src, toks); err != nil {
			return nil, err
		}
	}
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	b := &bridge{ctx: ctx, src: src, toks: toks, strict: strict, definition: definition}
	b.q = &Query{Text: src[toks[0].Off:toks[len(toks)-1].End]}
	if !balanced(toks) {
		return nil, b.syntaxError(len(src) + 1)
	}
	seq := buildTree(toks)
	if strict {
		if err := b.checkShape(seq); err != nil {
			return nil, err
		}
		if err := b.checkTree(seq); err != nil {
			return nil, err
		}
	}
	if err := canceled(ctx); err != nil {
		return nil, err
	}
	if seq[0].isWord("table") {
		off := seq[0].off
		seq = append([]*node{textNode("select", off), textNode("*", off), textNode("from", off)}, seq[1:]...)
	}
	var returning []*node
	if w := seq[0].word(); w == "insert" || w == "update" || w == "delete" || w == "with" {
		for i, n := range seq {
			if n.isWord("returning") {
				returning = seq[i+1:]
				seq = seq[:i]
				if len(returning) == 0 {
					return nil, b.syntaxError(toks[len(toks)-1].End)
				}
				break
			}
		}
	}
	if strict {
		if c := dataModifyingCTE(seq); c != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported").
				WithPosition(charPos(b.src, c.off))
		}
	}
	// WITH ... INSERT/UPDATE/DELETE: the statement is handled without its
	// WITH clause, which goes back in where the TiDB parser takes it.
	var with []*node
	if k := dmlAfterWith(seq); k > 0 {
		with, seq = seq[:k], seq[k:]
	}
	var conflict []*node
	if seq[0].isWord("insert") {
		// INSERT INTO name [. name] AS alias: the alias is kept apart.
		if i := 2; at(seq, 1).isWord("into") && at(seq, i).isName() {
			if at(seq, i+1).isOp(".") && at(seq, i+2).isName() {
				i += 2
			}
			if at(seq, i+1).isWord("as") && at(seq, i+2).isName() {
				b.q.InsertAlias = seq[i+2].nameVal()
				seq = append(append([]*node{}, seq[:i+1]...), seq[i+3:]...)
			}
		}
		for i := 1; i+1 < len(seq); i++ {
			if seq[i].isWord("overriding") && (seq[i+1].isWord("system") || seq[i+1].isWord("user")) && at(seq, i+2).isWord("value") {
				// OVERRIDING SYSTEM | USER VALUE: kept apart for the
				// binder, cut out of the text TiDB's grammar reads.
				b.q.Overriding = strings.ToLower(seq[i+1].word())
				seq = append(append([]*node{}, seq[:i]...), seq[i+3:]...)
				continue
			}
			if seq[i].isWord("on") && seq[i+1].isWord("conflict") {
				conflict, seq = seq[i:], seq[:i]
				break
			}
		}
	}
	if seq[0].isWord("update") {
		for i, n := range seq {
			if n.isWord("set") {
				var err error
				if seq, err = b.multiAssign(seq, i); err != nil {
					return nil, err
				}
				break
			}
		}
		seq = updateFrom(seq)
	}
	if seq[0].isWord("delete") {
		seq = deleteUsing(seq)
	}
	if with != nil {
		if seq[0].isWord("insert") {
			var err error
			if seq, err = b.withInsert(with, seq); err != nil {
				return nil, err
			}
		} else {
			seq = append(append([]*node{}, with...), seq...)
		}
	}
	seq = b.level(seq)
	if b.err != nil {
		return nil, b.err
	}
	stmt, text, err := b.parse(seq)
	if err != nil {
		return nil, err
	}
	b.q.Node, b.q.Rewritten = stmt, text
	b.q.Map = b.withLimitMap(b.lastMap)
	if returning != nil {
		rs := b.level(returning)
		if b.err != nil {
			return nil, b.err
		}
		sel, _, err := b.parse(append([]*node{textNode("select", returning[0].off)}, rs...))
		if err != nil {
			return nil, err
		}
		s, ok := sel.(*ast.SelectStmt)
		if !ok || s.From != nil || s.Where != nil || s.GroupBy != nil || s.OrderBy != nil || s.Limit != nil {
			return nil, b.syntaxError(returning[0].off)
		}
		b.q.Returning = s.Fields.Fields
		b.q.ReturningMap = b.lastMap
	}
	if conflict != nil {
		if err := b.onConflict(conflict); err != nil {
			return nil, err
		}
	}
	b.finishParams()
	return b.q, nil
}

// onConflict parses INSERT's ON CONFLICT clause (seq starts at ON): the
// target by hand, DO UPDATE's SET list and WHERE as the TiDB parser
// reads `UPDATE t SET ... WHERE ...`.
func (b *bridge) onConflict(seq []*node) error {
	oc := &OnConflict{Pos: charPos(b.src, seq[0].off)}
	i := 2
	switch {
	case at(seq, i).isParen():
		g := seq[i]
		// The target's elements: a column, a function call or an
		// expression in parentheses, separated by commas.
		var elem []*node
		take := func() error {
			switch {
			case len(elem) == 1 && elem[0].isName():
				oc.Columns = append(oc.Columns, elem[0].nameVal())
				oc.ColumnPos = append(oc.ColumnPos, charPos(b.src, g.off)) // PostgreSQL points at the list
			case len(elem) == 1 && elem[0].isParen() && len(elem[0].kids) > 0:
				p := elem[0]
				oc.Exprs = append(oc.Exprs, b.src[b.toks[p.first+1].Off:b.toks[p.last-1].End])
				oc.ExprPos = append(oc.ExprPos, charPos(b.src, b.toks[p.first+1].Off))
			case len(elem) == 2 && elem[0].isName() && elem[1].isParen():
				oc.Exprs = append(oc.Exprs, b.src[elem[0].tok.Off:b.toks[elem[1].last].End])
				oc.ExprPos = append(oc.ExprPos, charPos(b.src, elem[0].off))
			case len(elem) == 0:
				return b.syntaxError(g.off)
			case len(elem) == 1 && elem[0].isParen():
				return b.syntaxError(b.toks[elem[0].last].Off) // at the ")" of ()
			case len(elem) == 1:
				return b.syntaxError(elem[0].off)
			default:
				return b.syntaxError(elem[1].off)
			}
			elem = nil
			return nil
		}
		for _, n := range g.kids {
			if n.isOp(",") {
				if err := take(); err != nil {
					return err
				}
				continue
			}
			elem = append(elem, n)
		}
		if len(g.kids) == 0 {
			return b.syntaxError(g.off)
		}
		if err := take(); err != nil {
			return err
		}
		i++
		if at(seq, i).isWord("where") {
			j := i + 1
			for j < len(seq) && !seq[j].isWord("do") {
				j++
			}
			if j == i+1 || j == len(seq) {
				return b.syntaxError(at(seq, j).offOr(b.toks[len(b.toks)-1].End))
			}
			oc.IndexWhere = b.src[b.toks[seq[i+1].first].Off:b.toks[seq[j-1].last].End]
			oc.IndexWherePos = charPos(b.src, seq[i+1].off)
			i = j
		}
	case at(seq, i).isWord("on") && at(seq, i+1).isWord("constraint"):
		if !at(seq, i+2).isName() {
			return b.syntaxError(at(seq, i+2).offOr(b.toks[len(b.toks)-1].End))
		}
		oc.Constraint = seq[i+2].nameVal()
		i += 3
	}
	if !at(seq, i).isWord("do") {
		return b.syntaxError(at(seq, i).offOr(b.toks[len(b.toks)-1].End))
	}
	i++
	switch {
	case at(seq, i).isWord("nothing"):
		if i+1 < len(seq) {
			return b.syntaxError(seq[i+1].off)
		}
	case at(seq, i).isWord("update") && at(seq, i+1).isWord("set"):
		oc.Update = true
		off := seq[i].off
		set, err := b.multiAssign(seq[i+1:], 0)
		if err != nil {
			return err
		}
		rest := b.level(append([]*node{textNode("update", off), textNode("weir_conflict_target", off)}, set...))
		if b.err != nil {
			return b.err
		}
		stmt, _, err := b.parse(rest)
		if err != nil {
			return err
		}
		u, ok := stmt.(*ast.UpdateStmt)
		if !ok || u.Order != nil || u.Limit != nil {
			return b.syntaxError(off)
		}
		oc.Set, oc.Where = u.List, u.Where
		b.q.ConflictMap = b.lastMap
	default:
		return b.syntaxError(at(seq, i).offOr(b.toks[len(b.toks)-1].End))
	}
	b.q.OnConflict = oc
	return nil
}

// updateFrom moves the FROM list of UPDATE t SET ... FROM u WHERE ...
// behind the target table, giving TiDB's multi-table UPDATE t, u SET ...
// WHERE ...; the first table stays the one updated.
func updateFrom(seq []*node) []*node {
	set, from, end := -1, -1, len(seq)
	for i, n := range seq {
		switch {
		case set < 0 && n.isWord("set"):
			set = i
		case set >= 0 && from < 0 && n.isWord("where"):
			// No FROM list before WHERE: a FROM after it belongs to
			// the condition (IS DISTINCT FROM).
			return seq
		case set >= 0 && from < 0 && n.isWord("from") && !at(seq, i-1).isWord("distinct"):
			from = i
		case from >= 0 && n.isWord("where"):
			end = i
		}
		if end < len(seq) {
			break
		}
	}
	if set < 0 || from < 0 || from+1 >= end {
		return seq
	}
	out := append([]*node{}, seq[:set]...)
	out = append(out, leafOp(",", seq[from].off))
	out = append(out, seq[from+1:end]...)
	out = append(out, seq[set:from]...)
	return append(out, seq[end:]...)
}

// bridgeExpr bridges one scalar expression of user text as `SELECT <expr>`.
func bridgeExpr(src string, toks []Token) (*Query, error) { return bridgeExprMode(src, toks, true) }

// bridgeStoredExpr bridges an expression the bridge wrote before (a
// column DEFAULT), which skips the dialect gate.
func bridgeStoredExpr(src string, toks []Token) (*Query, error) {
	return bridgeExprMode(src, toks, false)
}

// exprLabel refuses, at the word, a word after a complete operand that
// a string follows (a REGEXP 'x'): in a select list the word would be a
// column label and the string the error, but an expression standing
// alone (a CHECK, a DEFAULT) has no label.
func exprLabel(src string, toks []Token) error {
	depth := 0
	for i, t := range toks {
		if t.Kind == TOp && (t.Val == "(" || t.Val == "[") {
			depth++
		} else if t.Kind == TOp && (t.Val == ")" || t.Val == "]") {
			depth--
		}
		if depth != 0 || i == 0 || i+1 >= len(toks) || t.Kind != TIdent || pgKeywords[t.Val] || toks[i+1].Kind != TString {
			continue
		}
		if p := toks[i-1]; operandEnds(p) && !(p.Kind == TOp && p.Val == ")" && afterOperator(toks, i-1)) {
			return syntaxErrorAt(src, t)
		}
	}
	return nil
}

func bridgeExprMode(src string, toks []Token, strict bool) (*Query, error) {
	for _, t := range toks {
		if t.Err != nil {
			return nil, t.Err
		}
	}
	if len(toks) > 0 && toks[len(toks)-1].Kind == TEOF {
		toks = toks[:len(toks)-1]
	}
	if len(toks) == 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at end of input").WithPosition(charPos(src, len(src)))
	}
	if strict {
		if err := exprLabel(src, toks); err != nil {
			return nil, err
		}
		if err := checkDialect(src, toks); err != nil {
			return nil, err
		}
	}
	b := &bridge{src: src, toks: toks, strict: strict}
	b.q = &Query{Text: src[toks[0].Off:toks[len(toks)-1].End]}
	if !balanced(toks) {
		return nil, b.syntaxError(len(src) + 1)
	}
	if strict {
		if err := b.checkTree(buildTree(toks)); err != nil {
			return nil, err
		}
	}
	seq := append([]*node{textNode("select", toks[0].Off)}, buildTree(toks)...)
	seq = b.level(seq)
	if b.err != nil {
		return nil, b.err
	}
	stmt, text, err := b.parse(seq)
	if err != nil {
		return nil, err
	}
	s, ok := stmt.(*ast.SelectStmt)
	if !ok || len(s.Fields.Fields) != 1 || s.Fields.Fields[0].AsName.O != "" || s.From != nil || s.Where != nil ||
		s.GroupBy != nil || s.Having != nil || s.OrderBy != nil || s.Limit != nil || s.Fields.Fields[0].Expr == nil || s.Distinct {
		if ok && len(s.Fields.Fields) == 1 && s.Fields.Fields[0].AsName.O != "" && len(toks) >= 2 {
			// expr label, expr AS label: no label follows an expression
			// outside a select list.
			at := toks[len(toks)-1]
			if p := toks[len(toks)-2]; p.Kind == TIdent && p.Val == "as" {
				at = p
			}
			return nil, syntaxErrorAt(src, at)
		}
		return nil, pgerr.New(pgerr.SyntaxError, "expected one expression").WithPosition(charPos(src, toks[0].Off))
	}
	b.q.Node, b.q.Rewritten = stmt, text
	b.q.Map = b.withLimitMap(b.lastMap)
	b.finishParams()
	return b.q, nil
}

// balanced reports whether every ( and [ in toks is closed; a statement
// that ends inside a group is a syntax error at its end, as in Postgres.
func balanced(toks []Token) bool {
	depth := 0
	for _, t := range toks {
		if t.Kind == TOp {
			switch t.Val {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			}
		}
	}
	return depth <= 0
}

// finishParams gives every parameter marker its Order and fills Params.
func (b *bridge) finishParams() {
	for i, r := range b.markers {
		r.m.Order = i
		b.q.Params = append(b.q.Params, r.n)
	}
}

// syntaxError reports `syntax error at or near "tok"` for the token at
// source offset off (or at end of input).
func (b *bridge) syntaxError(off int) *pgerr.Error {
	for _, t := range b.toks {
		if t.Off >= off {
			return syntaxErrorAt(b.src, t)
		}
	}
	// The statement ended early: point at what follows it (a ';', the
	// end of the text, or the clause after an embedded query).
	end := len(b.src)
	if len(b.toks) > 0 {
		end = b.toks[len(b.toks)-1].End
	}
	lx := lexer{s: b.src, pos: end}
	t, err := lx.next()
	if err != nil || t.Kind == TEOF || t.Kind == TOp && t.Val == ";" {
		return syntaxErrorAt(b.src, Token{Kind: TEOF, Off: t.Off})
	}
	return syntaxErrorAt(b.src, t)
}

// syntaxErrorAfter reports a syntax error at the first token after the
// one at source offset off.
func (b *bridge) syntaxErrorAfter(off int) *pgerr.Error {
	for _, t := range b.toks {
		if t.Off > off {
			return syntaxErrorAt(b.src, t)
		}
	}
	return b.syntaxError(len(b.src) + 1)
}

// nextTokenOff returns the source offset of the token after the one at off.
func (b *bridge) nextTokenOff(off int) int {
	for _, t := range b.toks {
		if t.Off > off {
			return t.Off
		}
	}
	return off
}

// parse emits seq, parses it with TiDB and registers its parameter markers.
//
// A call of a function named like one of TiDB's keywords (split, region,
// file, s3) is a syntax error to TiDB's grammar, which takes only its own
// functions' keywords before "(", or it reads as a construct of TiDB's
// own. PostgreSQL reads any name but its non-unreserved keywords as a
// plain function name there. So when the parse fails inside a call
// (between its "(" and the token after its ")"), the innermost such
// call's name is written quoted wherever it is called, which TiDB reads
// as a plain call, and the text parsed again, for as long as each
// quoted name moves the error further on; the error reported is the
// furthest one. Quoting is not done up front: TiDB's own
// readings of some names (nextval, mod, count) are the ones the binder
// expects.
func (b *bridge) parse(seq []*node) (ast.StmtNode, string, error) {
	var quoted map[string]bool
	var e *emitter
	var text string
	var stmt ast.StmtNode
	var furthest error // the syntax error furthest on
	lastSrc := -1
	for {
		if err := canceled(b.ctx); err != nil {
			return nil, "", err
		}
		e = &emitter{strict: b.strict, quoted: quoted}
		e.seq(seq)
		text = e.b.String()
		if err := canceled(b.ctx); err != nil {
			return nil, "", err
		}
		var off int
		var err error
		stmt, off, err = tidbParse(text)
		if err == nil {
			break
		}
		if off < 0 {
			if furthest == nil {
				furthest = pgerr.Wrap(pgerr.InternalError, err, "parser failed")
			}
			return nil, text, furthest
		}
		src := e.srcOffset(off)
		if src <= lastSrc {
			return nil, text, furthest
		}
		furthest, lastSrc = b.syntaxError(src), src
		name, ok := e.callAround(off)
		if !ok || len(quoted) == maxCallQuotes {
			return nil, text, furthest
		}
		if quoted == nil {
			quoted = map[string]bool{}
		}
		quoted[name] = true
	}
	if err := canceled(b.ctx); err != nil {
		return nil, "", err
	}
	positionNodes(stmt, text)
	b.lastMap = &SourceMap{outs: e.outs, srcs: e.srcs, base: b.toks[0].Off, src: b.src, text: text, runes: newRuneIndex(b.src[b.toks[0].Off:])}
	var ms []*ParamMarker
	stmt.Accept(&markerVisitor{out: &ms})
	if b.shift > 0 {
		stmt.Accept(&shifter{by: b.shift})
	}
	// After the markers are collected: the LIMIT/OFFSET expressions put in
	// place hold markers of their own parse.
	b.replaceLimits(stmt)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Offset < ms[j].Offset })
	for _, m := range ms {
		b.markers = append(b.markers, markerRef{m, e.params[m.Offset]})
	}
	return stmt, text, nil
}

type markerVisitor struct{ out *[]*ParamMarker }

func (v *markerVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*ParamMarker); ok {
		*v.out = append(*v.out, m)
	}
	return n, false
}

func (v *markerVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// tidbParse parses text with the TiDB parser. On a syntax error it
// returns the byte offset in text of the offending token (len(text) at
// the end), or -1 when the parser failed in another way (a recovered
// panic).
func tidbParse(text string) (stmt ast.StmtNode, off int, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, off, err = nil, -1, fmt.Errorf("%v", r)
		}
	}()
	p := tidbParsers.Get().(*tidb.Parser)
	stmts, _, err := p.Parse(text, "", "")
	tidbParsers.Put(p)
	if err != nil {
		return nil, nearOffset(text, err.Error()), err
	}
	if len(stmts) != 1 {
		return nil, len(text), fmt.Errorf("expected one statement, got %d", len(stmts))
	}
	stmts[0].Accept(sampleUnwrapper{text: text})
	return stmts[0], 0, nil
}

// sampleUnwrapper puts back the expressions of a TABLESAMPLE clause:
// TiDB's grammar hands them to ast.NewValueExpr, which wraps an
// expression that is no literal in a Literal (literal.go), out of reach
// of the binder and of the visitors that number parameter markers. The
// grammar also places the REPEATABLE expression at the REPEATABLE
// keyword, which the unwrapper moves back to the expression's start
// (after the parenthesis) in text, the parsed text.
type sampleUnwrapper struct{ text string }

func (u sampleUnwrapper) Enter(n ast.Node) (ast.Node, bool) {
	if ts, ok := n.(*ast.TableSample); ok {
		ts.Expr = unwrapLiteral(ts.Expr)
		ts.RepeatableSeed = unwrapLiteral(ts.RepeatableSeed)
		if seed := ts.RepeatableSeed; seed != nil {
			if o := seed.OriginTextPosition(); o >= 0 && o < len(u.text) && strings.HasPrefix(strings.ToLower(u.text[o:]), "repeatable") {
				rest := strings.TrimLeft(u.text[o+len("repeatable"):], " \t\n\r")
				if rest, ok := strings.CutPrefix(rest, "("); ok {
					rest = strings.TrimLeft(rest, " \t\n\r")
					seed.SetOriginTextPosition(len(u.text) - len(rest))
				}
			}
		}
	}
	return n, false
}

func (sampleUnwrapper) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func unwrapLiteral(e ast.ExprNode) ast.ExprNode {
	if l, ok := e.(*Literal); ok {
		if x, ok := l.Value.(ast.ExprNode); ok {
			return x
		}
	}
	return e
}

// nearOffset finds where TiDB's `line L column C near "rest"` error
// points: rest is the text from the offending token on (cut at 2048 bytes,
// then followed by "(total length N)").
func nearOffset(text, msg string) int {
	i := strings.Index(msg, `near "`)
	if i < 0 {
		return len(text)
	}
	rest := msg[i+len(`near "`):]
	if j := strings.LastIndex(rest, "(total length "); j >= 0 {
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest[j+len("(total length "):]), ")")); err == nil && n <= len(text) {
			return len(text) - n
		}
	}
	for o := 0; o <= len(text); o++ {
		if strings.HasPrefix(rest, text[o:]+`"`) {
			return o
		}
	}
	return len(text)
}

// emitter writes nodes as TiDB text, remembering for each piece the
// source offset it came from and for each "?" its parameter number.
type emitter struct {
	b      strings.Builder
	outs   []int // output offsets of pieces, ascending
	srcs   []int // their source offsets
	params map[int]int
	last   string // the piece written last
	// strict quotes the words of user text that TiDB takes as keywords
	// and PostgreSQL does not (dialect.go).
	strict bool
	// quoted holds the call names to write quoted (bridge.parse); calls
	// records the calls written with their names unquoted.
	quoted map[string]bool
	calls  []emittedCall
}

// emittedCall is a function call written with its name unquoted: start
// and end are the output offsets of its name and of the end of its ")",
// group the argument list.
type emittedCall struct {
	name       string
	start, end int
	group      *node
}

// callAround returns the name of the innermost call written unquoted
// that holds the output offset off, or whose ")" the token at off
// follows.
func (e *emitter) callAround(off int) (string, bool) {
	best := -1
	for i, c := range e.calls {
		if c.start <= off && off <= c.end+1 && (best < 0 || c.start >= e.calls[best].start) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return e.calls[best].name, true
}

func (e *emitter) write(s string, src int) {
	if s == "" {
		return
	}
	if e.b.Len() > 0 {
		out := e.b.String()
		last, first := out[len(out)-1], s[0]
		space := true
		switch {
		case first == ')' || first == ']' || first == ',' || first == '.' && !(len(s) > 1 && isDigit(s[1])):
			space = false
		case last == '(' || last == '[' || last == '.':
			space = false
		case first == '(' && (isIdentCont(last) || last == '"'):
			space = false
		}
		if space {
			e.b.WriteByte(' ')
		}
	}
	e.outs = append(e.outs, e.b.Len())
	e.srcs = append(e.srcs, src)
	e.b.WriteString(s)
	e.last = s
}

// SourceMap maps byte offsets of a bridged text (such as the
// OriginTextPosition of a TiDB AST node) back to the statement's original
// text: each offset maps to the source token the bridged piece holding it
// came from.
type SourceMap struct {
	outs, srcs []int // as in emitter
	base       int   // source offset of Query.Text
	src        string
	text       string // the bridged text

	// runes holds character counts for Pos; see runeCount.
	runes runeIndex
}

// Offset returns how many characters of the statement's text come before
// Query.Text: 0 for a query that is the statement, the length of
// "EXPLAIN " or "CREATE VIEW v AS " for one it embeds. Pos counts from
// Query.Text's start; an error's position counts from the statement's.
func (m *SourceMap) Offset() int {
	if m == nil || m.base <= 0 || m.base > len(m.src) {
		return 0
	}
	return utf8.RuneCountInString(m.src[:m.base])
}

// Pos returns the 1-based character position in Query.Text of the source
// token that produced the bridged byte offset off, or 0 when off lies
// outside the bridged text. Postgres's ErrorResponse Position counts
// characters the same way.
func (m *SourceMap) Pos(off int) int {
	if m == nil || off < 0 || len(m.outs) == 0 {
		return 0
	}
	i := sort.SearchInts(m.outs, off+1) - 1
	if i < 0 {
		i = 0
	}
	s := m.srcs[i] - m.base
	if s < 0 || m.base+s > len(m.src) {
		return 0
	}
	return m.runeCount(s) + 1
}

// PosBefore is Pos of the bridged token that ends just before the
// bridged byte offset off (blanks skipped): for the right operand of a
// binary operator, the operator. It returns 0 when there is none.
func (m *SourceMap) PosBefore(off int) int {
	i := m.OffBefore(off)
	if i < 0 {
		return 0
	}
	return m.Pos(i)
}

// OffBefore is the bridged byte offset of the token that ends just before
// the bridged byte offset off (blanks skipped), or -1 when there is
// none: applied twice to x = ANY's subquery it reaches the =.
func (m *SourceMap) OffBefore(off int) int {
	if m == nil || off <= 0 || off > len(m.text) {
		return -1
	}
	i := off
	for i > 0 && m.text[i-1] == ' ' {
		i--
	}
	if i == 0 {
		return -1
	}
	isWord := func(c byte) bool { return isIdentCont(c) }
	isOp := func(c byte) bool { return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0 }
	switch c := m.text[i-1]; {
	case isWord(c):
		for i > 0 && isWord(m.text[i-1]) {
			i--
		}
	case isOp(c):
		for i > 0 && isOp(m.text[i-1]) {
			i--
		}
	default:
		i--
	}
	return i
}

// srcOffset maps an output offset back to the source offset of the piece
// that holds it (the end of the statement for offsets past the text).
func (e *emitter) srcOffset(off int) int {
	if off >= e.b.Len() {
		return 1 << 40
	}
	i := sort.SearchInts(e.outs, off+1) - 1
	if i < 0 {
		return e.srcs[0]
	}
	return e.srcs[i]
}

func (e *emitter) seq(ns []*node) {
	for i, n := range ns {
		e.node(n, at(ns, i+1))
	}
}

func (e *emitter) node(n *node, next *node) {
	switch n.kind {
	case nText:
		e.write(n.text, n.off)
	case nGroup, nSynth:
		e.write(n.open, n.off)
		e.seq(n.kids)
		if n.closeAt {
			e.write(n.close, n.closeOff)
		} else {
			e.write(n.close, n.off)
		}
		for i := len(e.calls) - 1; i >= 0; i-- {
			if e.calls[i].group == n {
				e.calls[i].end = e.b.Len()
				break
			}
		}
	case nLeaf:
		t := n.tok
		switch t.Kind {
		case TIdent, TQIdent:
			if e.strict && next.isParen() && (internalFuncs[strings.ToLower(t.Val)] ||
				sqlValueFuncs[strings.ToLower(t.Val)] && (t.Kind == TQIdent || e.last == ".")) {
				// A call the user wrote of a name the bridge keeps for its
				// own calls: an ordinary function's name to the binder.
				e.write(quoteIdent(UserCallPrefix+t.Val), t.Off)
			} else if t.Kind == TQIdent {
				e.write(quoteIdent(t.Val), t.Off)
			} else if frameWords[t.Val] {
				// ROWS, RANGE and GROUPS are frame keywords only before a
				// frame bound; elsewhere they are names.
				if w := next.word(); w == "between" || w == "unbounded" || w == "current" || w == "interval" ||
					next != nil && next.kind == nLeaf && (next.tok.Kind == TNumber || next.tok.Kind == TParam) {
					e.write(t.Val, t.Off)
				} else {
					e.write(quoteIdent(t.Val), t.Off)
				}
			} else if (quoteWords[t.Val] && !next.isParen()) || (callWords[t.Val] && next.isParen()) || (e.afterAs() && labelWords[t.Val]) || (t.Val == "by" && !byWords[e.last]) ||
				(t.Val == "partition" && next.word() != "by") ||
				e.strict && (tidbOnlyWords[t.Val] && (!next.isParen() || isSubquery(next.kids)) && e.last != "tablesample" || mysqlFuncs[t.Val] && next.isParen() ||
					selectOptions[t.Val] || e.afterAs() && (t.Val == "select" || t.Val == "with" || t.Val == "values") ||
					mysqlOps[t.Val] && e.afterOperand()) {
				e.write(quoteIdent(t.Val), t.Off)
			} else if e.quoted[t.Val] && next.isParen() {
				e.write(quoteIdent(t.Val), t.Off)
			} else {
				e.write(t.Val, t.Off)
				if next.isParen() && !pgNameKeywords[t.Val] && !callSyntaxWords[t.Val] {
					c := emittedCall{name: t.Val, start: e.b.Len() - len(t.Val), end: -2, group: next}
					e.calls = append(e.calls, c)
				}
			}
		case TString:
			e.write(quoteString(t.Val), t.Off)
		case TBitString:
			e.write("b'"+t.Val+"'", t.Off)
		case THexString:
			e.write("x'"+t.Val+"'", t.Off)
		case TNumber:
			v := plainNumber(t.Val)
			if e.strict && strings.HasSuffix(v, ".") {
				// TiDB reads 5. AS c as a qualified name; (5.) is the
				// same numeric.
				v = "(" + v + ")"
			}
			e.write(v, t.Off)
		case TParam:
			n := ParamNumber(t.Val)
			if e.params == nil {
				e.params = map[int]int{}
			}
			e.write("?", t.Off)
			e.params[e.outs[len(e.outs)-1]] = n
		default:
			e.write(t.Val, t.Off)
		}
	}
}

var frameWords = map[string]bool{"rows": true, "range": true, "groups": true}

// callWords are words TiDB's grammar keeps for itself that Postgres takes
// as a function name: a call of one is written with the name quoted
// (session(t, gap), the session window of GROUP BY), which does not
// change the name.
var callWords = map[string]bool{"session": true}

// afterOperand reports whether the last piece written ends an operand
// (a name, a literal, a closing parenthesis), so that a word after it is
// no function name.
func (e *emitter) afterOperand() bool {
	if e.last == "" || pgKeywords[strings.ToLower(e.last)] {
		return false
	}
	c := e.last[len(e.last)-1]
	return isIdentCont(c) || c == ')' || c == '\'' || c == '"'
}

// afterAs reports whether the last piece written is the word AS.
func (e *emitter) afterAs() bool {
	if len(e.outs) == 0 {
		return false
	}
	last := e.b.String()[e.outs[len(e.outs)-1]:]
	return last == "as" || last == "AS"
}

// labelWords are the words TiDB reserves that Postgres accepts as a
// column label after AS (any keyword is a ColLabel there: `AS trailing`,
// `AS order`). The words that begin a query follow AS in another role
// (CREATE VIEW v AS SELECT, AS NOT MATERIALIZED) and are left alone.
var labelWords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range tidb.Keywords {
		if k.Reserved {
			m[strings.ToLower(k.Word)] = true
		}
	}
	for _, w := range []string{"select", "with", "values", "not"} {
		delete(m, w)
	}
	return m
}()

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// plainNumber writes a numeric literal with an exponent (1.0e-10, 1e20)
// as the plain decimal with the same value and display scale (Postgres's
// numeric input keeps max(0, fraction digits - exponent) digits after the
// point: 0.00000000010, 100000000000000000000.), always with a decimal
// point, so TiDB reads it as an exact decimal (a numeric in Postgres) and
// not as a float64 that would lose the scale. Other literals are kept.
func plainNumber(s string) string {
	if !strings.ContainsAny(s, "eE") {
		return s
	}
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Exponent > 100000 || d.Exponent < -100000 {
		// Let TiDB read (and Postgres-range checks reject) it as written.
		return s
	}
	if d.Exponent > 0 {
		d.Coeff.Mul(&d.Coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(d.Exponent)), nil))
		d.Exponent = 0
	}
	out := d.Text('f')
	if !strings.Contains(out, ".") {
		out += "."
	}
	return out
}
