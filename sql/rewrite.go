package sql

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/internal/pgerr"
)

// level rewrites one nesting level of the token tree: first the contents
// of every parenthesised or bracketed group, then the forms at this level,
// in an order that respects Postgres's precedence (postfix casts and
// subscripts bind before operators; IS DISTINCT FROM binds after
// comparisons).
func (b *bridge) level(seq []*node) []*node {
	substringSimilar(seq)
	for i, n := range seq {
		if n.isOp("=>") || n.isOp(":=") || n.kind == nLeaf && n.tok.Kind == TIdent && n.word() == "variadic" {
			// Not after a parameter name in a call's arguments; VARIADIC
			// (a reserved word) not before an ordinary call's last one.
			b.fail(b.syntaxError(n.off))
		}
		if n.kind == nGroup && !at(seq, i-1).isWord("operator") {
			if n.isParen() && namedCallable(at(seq, i-1)) {
				n.kids = b.namedArgs(n.kids)
			}
			n.kids = b.level(n.kids)
		}
	}
	seq = b.catalogNames(seq)
	seq = b.pgClauses(seq)
	seq = rowStars(seq)
	seq = currentOf(seq)
	seq = starCalls(seq)
	seq = b.normalize(seq)
	seq = b.groupingSets(seq)
	seq = emptyTargets(seq)
	seq = b.distinctOn(seq)
	seq = b.typedLiterals(seq)
	seq = b.calls(seq)
	seq = b.subscripts(seq)
	seq = b.casts(seq)
	seq = b.collates(seq)
	seq = b.limits(seq)
	seq = b.atTimeZone(seq)
	seq = b.jsonOps(seq)
	seq = b.powers(seq)
	seq = b.regexOps(seq)
	seq = b.genericOps(seq)
	seq = b.similarTo(seq)
	seq = b.likeEscape(seq)
	seq = b.anyOps(seq)
	seq = b.distinctFrom(seq)
	seq = b.betweenSymmetric(seq)
	seq = b.nullsOrder(seq)
	seq = b.sortUsing(seq)
	seq = b.fromItems(seq)
	seq = b.values(seq)
	seq = b.frameOffsets(seq)
	seq = b.setOpPrecedence(seq)
	return seq
}

// relationWords are the words a relation's name follows (FROM in a
// query's FROM list).
var relationWords = wordSet(`from join straight_join into update only table lateral using`)

// fromListEnds end a FROM list, after which a comma separates no
// relations.
var fromListEnds = wordSet(`where group having window order limit offset fetch for union intersect except returning
	set select values`)

// catalogNames takes the database off the names PostgreSQL qualifies
// with one, which TiDB's grammar has not got: a function's
// db.schema.f(...), a relation's db.schema.t and a column's
// db.schema.t.col (db.schema.t.*). The binder checks the database
// (Query.Catalogs). A name of more parts is 42601 as PostgreSQL words
// it, "improper qualified name (too many dotted names)".
func (b *bridge) catalogNames(seq []*node) []*node {
	// fromList: in a query's FROM list (not EXTRACT's, SUBSTRING's or
	// IS DISTINCT FROM's FROM).
	fromList, query := false, false
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if w := n.word(); w != "" {
			switch {
			case w == "select" || w == "delete":
				query, fromList = true, false
			case w == "from" && query && !at(seq, i-1).isWord("distinct"):
				fromList = true
			case fromListEnds[w]:
				fromList = false
			}
		}
		if !n.isName() || at(seq, i-1).isOp(".") || at(seq, i-1).isOp("::") {
			continue
		}
		parts := []*node{n}
		j := i + 1
		for at(seq, j).isOp(".") && (at(seq, j+1).isName() || at(seq, j+1).isOp("*")) {
			parts = append(parts, seq[j+1])
			j += 2
			if parts[len(parts)-1].isOp("*") {
				break
			}
		}
		if len(parts) < 3 {
			continue
		}
		prev := at(seq, i-1)
		relation := !at(seq, j).isParen() && ((prev.isOp(",") || prev.isWord("from")) && fromList ||
			relationWords[prev.word()] && !prev.isWord("from"))
		most := 3 // db.schema.f(), db.schema.t
		if !at(seq, j).isParen() && !relation {
			most = 4 // db.schema.t.col
		}
		names := make([]string, len(parts))
		for k, p := range parts {
			if p.isOp("*") {
				names[k] = "*"
			} else {
				names[k] = p.nameVal()
			}
		}
		name := strings.Join(names, ".")
		if len(parts) > most {
			b.fail(pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", name).WithPosition(charPos(b.src, n.off)))
		}
		if len(parts) < most {
			i = j - 1
			continue
		}
		if b.q != nil {
			b.q.Catalogs = append(b.q.Catalogs, CatalogRef{Database: n.nameVal(), Name: name, Relation: relation, Pos: b.queryPos(n.off)})
		}
		// The name stands where the database did: errors about it point
		// there, as PostgreSQL's do.
		parts[1].off, parts[1].tok.Off = n.off, n.off
		seq = splice(seq, i, i+2)
		i = j - 3
	}
	return seq
}

// substringSimilar rewrites substring(x SIMILAR p ESCAPE e) into
// substring(x, p, e), as PostgreSQL's grammar does (TiDB's takes the
// FROM p FOR e spelling only).
func substringSimilar(seq []*node) {
	for i, n := range seq {
		g := at(seq, i+1)
		if !n.isWord("substring") || !g.isParen() || at(seq, i-1).isOp(".") && !at(seq, i-2).isWord("pg_catalog") {
			continue
		}
		sim, esc := -1, -1
		for k, kid := range g.kids {
			switch {
			case kid.isWord("similar") && sim < 0 && k > 0:
				sim = k
			case kid.isWord("escape") && sim >= 0 && esc < 0 && k > sim+1:
				esc = k
			}
		}
		if sim < 0 || esc < 0 || esc == len(g.kids)-1 {
			continue
		}
		for _, k := range []int{sim, esc} {
			kid := g.kids[k]
			kid.tok = Token{Kind: TOp, Val: ",", Off: kid.tok.Off, End: kid.tok.End}
		}
	}
}

// noteLockClause records that the locking clause starting at FOR node n
// was written as clause (Query.LockClauses).
func (b *bridge) noteLockClause(n *node, clause string) {
	if b.q == nil {
		return
	}
	if b.q.LockClauses == nil {
		b.q.LockClauses = map[int]string{}
	}
	b.q.LockClauses[b.queryPos(n.off)] = clause
}

// queryPos is the character position of the byte offset off of src
// counted from the query's first token, as SourceMap.Pos gives it: in
// CREATE VIEW v AS SELECT ... the query does not start the statement.
func (b *bridge) queryPos(off int) int {
	base := b.toks[0].Off
	return charPos(b.src[base:], off-base)
}

// SortUsingFn is the call the bridge writes for ORDER BY x USING op with
// an operator other than < and >: SortUsingFn('op', x), which the binder
// refuses.
const SortUsingFn = "pg_sort_using"

// sortUsingOp reports whether n is an operator after ORDER BY ... USING
// that is not < or > (which are ASC and DESC).
func sortUsingOp(n *node) bool {
	return n != nil && n.kind == nLeaf && n.tok.Kind == TOp && !n.isOp("<") && !n.isOp(">") &&
		!n.isOp("(") && !n.isOp(",") && !n.isOp(";") && !n.isOp(")")
}

// aliasWords are words of notOperands that PostgreSQL takes as a table
// alias after a FROM item (ColId): t PARTITION (p0) is t aliased
// "partition" with a column p0, not MySQL's partition selection.
var aliasWords = wordSet(`over partition regexp`)

// sortUsing writes ORDER BY x USING op, whose op pgClauses made a
// string, as SortUsingFn('op', x): the binder refuses it once x binds.
func (b *bridge) sortUsing(seq []*node) []*node {
	for i := 1; i+1 < len(seq); i++ {
		if !seq[i].isWord("using") || !b.usingOps[seq[i+1]] {
			continue
		}
		s := i
		for s > 0 && !seq[s-1].isOp(",") && !seq[s-1].isWord("by") {
			s--
		}
		if s == i {
			continue
		}
		op := seq[i+1]
		key := append([]*node{}, seq[s:i]...)
		repl := synth(SortUsingFn+"(", []*node{op, leafOp(",", op.off), group(key, seq[s].off)}, ")", seq[s].off)
		seq = splice(seq, s, i+2, repl)
		i = s
	}
	return seq
}

// pgClauses rewrites PostgreSQL forms TiDB lacks into the forms of the
// same meaning it has: FOR NO KEY UPDATE is FOR UPDATE and FOR KEY SHARE
// FOR SHARE (weir locks no rows either way); ORDER BY x USING < is ASC
// and USING > DESC; (x).y, a field of a whole row, is x.y, and (x).*
// x.* (weir has no composite types, so x is a range variable).
func (b *bridge) pgClauses(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		switch {
		case n.isWord("for") && at(seq, i+1).isWord("no") && at(seq, i+2).isWord("key") && at(seq, i+3).isWord("update"):
			b.noteLockClause(n, "FOR NO KEY UPDATE")
			seq = splice(seq, i+1, i+3)
		case n.isWord("for") && at(seq, i+1).isWord("key") && at(seq, i+2).isWord("share"):
			b.noteLockClause(n, "FOR KEY SHARE")
			seq = splice(seq, i+1, i+2)
		case n.isWord("for") && at(seq, i+1).isWord("update"):
			b.noteLockClause(n, "FOR UPDATE")
		case n.isWord("for") && at(seq, i+1).isWord("share"):
			b.noteLockClause(n, "FOR SHARE")
		case n.isWord("using") && (at(seq, i+1).isOp("<") || at(seq, i+1).isOp(">")):
			dir := "asc"
			if seq[i+1].isOp(">") {
				dir = "desc"
			}
			seq = splice(seq, i, i+2, textNode(dir, n.off))
		case b.strict && n.isWord("using") && sortUsingOp(at(seq, i+1)):
			// ORDER BY x USING op, op neither < nor >: the operator
			// becomes a string here, out of the operator passes' reach,
			// and sortUsing makes the call once x is rewritten.
			op := seq[i+1]
			lit := textNode(quoteString(op.tok.Val), op.off)
			if b.usingOps == nil {
				b.usingOps = map[*node]bool{}
			}
			b.usingOps[lit] = true
			seq[i+1] = lit
		case n.isParen() && len(n.kids) == 1 && n.kids[0].isName() && (n.kids[0].tok.Kind != TIdent || !boundaryWords[n.kids[0].word()] && !literalWords[n.kids[0].word()]) &&
			(!at(seq, i-1).isName() || boundaryWords[seq[i-1].word()]) &&
			at(seq, i+1).isOp(".") && (at(seq, i+2).isName() || at(seq, i+2).isOp("*")):
			if b.q != nil {
				if b.q.FieldRefs == nil {
					b.q.FieldRefs = map[int]bool{}
				}
				b.q.FieldRefs[b.queryPos(n.kids[0].off)] = true
				if at(seq, i+2).isOp("*") {
					if b.q.FieldStars == nil {
						b.q.FieldStars = map[string]int{}
					}
					b.q.FieldStars[n.kids[0].nameVal()] = charPos(b.src, n.kids[0].off)
				}
			}
			seq = splice(seq, i, i+1, n.kids[0])
		case n.isParen() && len(n.kids) > 0 && !callEnd(seq, i) && !at(seq, i-1).isWord("over") &&
			at(seq, i+1).isOp(".") && (at(seq, i+2).isName() || at(seq, i+2).isOp("*")) && !at(seq, i+3).isOp("."):
			// (expr).field, a field selection from any other value:
			// pg_field((expr), 'field'), which the binder takes from a
			// row or refuses as PostgreSQL does (42809); (expr).* is
			// pg_field((expr), '*').
			f := at(seq, i+2)
			name := &node{kind: nLeaf, tok: Token{Kind: TString, Val: f.nameVal(), Off: f.off, End: f.tok.End}, off: f.off}
			seq = splice(seq, i, i+3, synth("pg_field(", []*node{n, leafOp(",", f.off), name}, ")", n.off))
		}
	}
	return seq
}

// literalWords are the keywords that are constants: (null).x is no
// whole-row reference.
var literalWords = wordSet(`null true false`)

// starCalls rewrites f(*) for a function other than count, which
// PostgreSQL's grammar takes for any function and TiDB's only for
// count, into pg_star_call('f') ('schema.f' when qualified), which the
// binder refuses as PostgreSQL does, with the OVER or FILTER clause that
// follows. A window function without arguments before OVER is f():
// PostgreSQL runs rank(*) OVER () as rank() OVER (). Before WITHIN GROUP
// it is left to the ordered-set aggregates' rewrite.
func starCalls(seq []*node) []*node {
	for i := 1; i < len(seq); i++ {
		g := seq[i]
		if !g.isParen() || len(g.kids) != 1 || !g.kids[0].isOp("*") || at(seq, i+1).isWord("within") {
			continue // f(*) WITHIN GROUP is the ordered-set pass's
		}
		s := i - 1
		switch w := seq[s].word(); {
		case !seq[s].isName() || boundaryWords[w] || notOperands[w]:
			continue
		case w == "count" || w == "row" || w == "array":
			continue
		}
		end := i + 1
		switch {
		case at(seq, i+1).isWord("over") && zeroArgWindows[seq[s].word()]:
			g.kids = nil
			continue
		case (at(seq, i+1).isWord("over") || at(seq, i+1).isWord("filter")) && (at(seq, i+2).isParen() || at(seq, i+2).isName()):
			// No aggregate but count takes *: the call fails whatever
			// follows it.
			end = i + 3
		}
		for s >= 2 && seq[s-1].isOp(".") && seq[s-2].isName() {
			s -= 2
		}
		var name strings.Builder
		for k := s; k < i; k++ {
			if seq[k].isOp(".") {
				name.WriteByte('.')
			} else {
				name.WriteString(seq[k].nameVal())
			}
		}
		seq = splice(seq, s, end, synth("pg_star_call(", []*node{textNode(quoteString(name.String()), seq[s].off)}, ")", seq[s].off))
		i = s
	}
	return seq
}

// zeroArgWindows are the window functions without arguments, which
// PostgreSQL also runs as f(*) OVER (...).
var zeroArgWindows = wordSet(`row_number rank dense_rank percent_rank cume_dist`)

// currentOf rewrites UPDATE's and DELETE's WHERE CURRENT OF cursor into
// WHERE pg_current_of('cursor'), which the binder reads as the row the
// cursor stands on. Elsewhere the words are left to fail as PostgreSQL's
// grammar fails them, at OF.
func currentOf(seq []*node) []*node {
	dml := false
	for i := 0; i < len(seq); i++ {
		if seq[i].isWord("update") || seq[i].isWord("delete") {
			dml = true
		}
		if !dml || !seq[i].isWord("where") || !at(seq, i+1).isWord("current") || !at(seq, i+2).isWord("of") || !at(seq, i+3).isName() {
			continue
		}
		name := seq[i+3]
		call := synth("pg_current_of(", []*node{textNode(quoteString(name.nameVal()), name.off)}, ")", seq[i+1].off)
		seq = splice(seq, i+1, i+4, call)
	}
	return seq
}

// frameOffsets rewrites the offsets of a window frame clause (#29).
// Postgres takes any expression before PRECEDING or FOLLOWING, TiDB's
// grammar only a number, a parameter (whose position it loses) or
// INTERVAL expr unit, whose expr may be anything; so every offset e
// becomes interval pg_frame_offset(e) day, which the binder unwraps, and
// keeps its position. A frame clause ends its window specification, so
// only one that ends seq, or is followed by EXCLUDE, is taken for one: a
// column named rows elsewhere is left alone. The frames Postgres's
// grammar rejects fail here with its errors (42P20, positioned at the
// offending bound), not with TiDB's.
//
// TiDB has no frame exclusion: EXCLUDE NO OTHERS (the default) is
// dropped, and EXCLUDE CURRENT ROW, GROUP or TIES is carried by the
// frame's start bound, which every frame has (#29b): an offset becomes
// interval pg_frame_offset(e, 'x') day, UNBOUNDED PRECEDING and CURRENT
// ROW become interval pg_frame_bound('unbounded preceding', 'x') day
// PRECEDING, with x 'current row', 'group' or 'ties'. A frame without
// BETWEEN (ROWS e PRECEDING, which ends at the current row) carries
// 'single' the same way, before its exclusion if any ('single ties'),
// so that a view's definition prints it as written.
func (b *bridge) frameOffsets(seq []*node) []*node {
	for i, n := range seq {
		if n.kind != nLeaf || !frameWords[n.word()] {
			continue
		}
		j := i + 1
		between := at(seq, j).isWord("between")
		if between {
			j++
		}
		start, ok := frameBound(seq, j)
		end := start
		if ok && between {
			if !at(seq, start.end).isWord("and") {
				continue
			}
			end, ok = frameBound(seq, start.end+1)
		}
		if !ok || end.end < len(seq) && !seq[end.end].isWord("exclude") {
			continue
		}
		if msg, at := frameError(start, end, between); msg != "" {
			b.fail(pgerr.New(pgerr.WindowingError, "%s", msg).WithPosition(charPos(b.src, seq[at].off)))
			return seq
		}
		excl := ""
		if end.end < len(seq) {
			var err error
			if excl, err = b.frameExclusion(seq[end.end:]); err != nil {
				b.fail(err)
				return seq
			}
			seq = seq[:end.end]
		}
		if !between {
			// The binder needs to know, to print the frame as written.
			excl = strings.TrimSpace("single " + excl)
		}
		spans := [][2]int{{start.at, start.off}}
		if between {
			spans = append(spans, [2]int{end.at, end.off})
		}
		// Right to left, so the earlier span's indices stay valid.
		for k := len(spans) - 1; k >= 0; k-- {
			a, e := spans[k][0], spans[k][1]
			mark := k == 0 && excl != ""
			if e == a {
				// UNBOUNDED PRECEDING or CURRENT ROW.
				if mark {
					off := seq[a].off
					bound := textNode(quoteString(start.kind)+", "+quoteString(excl), off)
					seq = splice(seq, a, start.end, textNode("interval", off),
						synth("pg_frame_bound(", []*node{bound}, ")", off), textNode("day", off), textNode("preceding", off))
				}
				continue
			}
			if seq[a].isWord("interval") && (at(seq, a+1).isWord("pg_frame_offset") || at(seq, a+1).isWord("pg_frame_bound")) {
				// Bridged already (text parsed again): keep the keyword
				// from being quoted as a type name.
				seq[a] = textNode("interval", seq[a].off)
				continue
			}
			off := seq[a].off
			kids := append([]*node(nil), seq[a:e]...)
			if mark {
				kids = append(kids, leafOp(",", off), textNode(quoteString(excl), off))
			}
			seq = splice(seq, a, e, textNode("interval", off), synth("pg_frame_offset(", kids, ")", off), textNode("day", off))
		}
		return seq
	}
	return seq
}

// frameExclusion reads the frame exclusion clause that makes up seq
// (EXCLUDE CURRENT ROW, GROUP, TIES or NO OTHERS) and returns what it
// excludes: "current row", "group", "ties", or "" for NO OTHERS. Any
// other text is a syntax error at the first token Postgres's grammar
// (opt_window_exclusion_clause) cannot take.
func (b *bridge) frameExclusion(seq []*node) (string, error) {
	var excl string
	n := 2
	switch w := at(seq, 1).word(); {
	case w == "current" && at(seq, 2).isWord("row"):
		excl, n = "current row", 3
	case w == "group" || w == "ties":
		excl = w
	case w == "no" && at(seq, 2).isWord("others"):
		n = 3
	case w == "current" || w == "no":
		if len(seq) == 2 {
			return "", b.syntaxErrorAfter(seq[1].off)
		}
		return "", b.syntaxError(seq[2].off)
	case len(seq) == 1:
		return "", b.syntaxErrorAfter(seq[0].off)
	default:
		return "", b.syntaxError(seq[1].off)
	}
	if len(seq) > n {
		return "", b.syntaxError(seq[n].off)
	}
	return excl, nil
}

// frameBoundAt is one frame bound read by frameBound: kind is
// "unbounded preceding", "unbounded following", "current row",
// "preceding" or "following" (an offset); the bound starts at seq[at],
// its offset expression spans seq[at:off] (empty but for an offset) and
// seq[end] follows it.
type frameBoundAt struct {
	kind         string
	at, off, end int
}

// frameBound reads one frame bound at seq[i:].
func frameBound(seq []*node, i int) (frameBoundAt, bool) {
	if at(seq, i).isWord("current") && at(seq, i+1).isWord("row") {
		return frameBoundAt{"current row", i, i, i + 2}, true
	}
	if w := at(seq, i+1).word(); at(seq, i).isWord("unbounded") && (w == "preceding" || w == "following") {
		return frameBoundAt{"unbounded " + w, i, i, i + 2}, true
	}
	for k := i; k < len(seq); k++ {
		if w := seq[k].word(); w == "preceding" || w == "following" {
			return frameBoundAt{w, i, k, k + 1}, k > i
		}
	}
	return frameBoundAt{}, false
}

// frameError returns the error Postgres's grammar (gram.y, frame_extent)
// gives a frame from start to end (a single bound, which ends at the
// current row, when !between) and the index of the bound it points at.
func frameError(start, end frameBoundAt, between bool) (string, int) {
	switch {
	case start.kind == "unbounded following":
		return "frame start cannot be UNBOUNDED FOLLOWING", start.at
	case !between && start.kind == "following":
		return "frame starting from following row cannot end with current row", start.at
	case !between:
	case end.kind == "unbounded preceding":
		return "frame end cannot be UNBOUNDED PRECEDING", end.at
	case start.kind == "current row" && end.kind == "preceding":
		return "frame starting from current row cannot have preceding rows", end.at
	case start.kind == "following" && (end.kind == "preceding" || end.kind == "current row"):
		return "frame starting from following row cannot have preceding rows", end.at
	}
	return "", 0
}

// distinctOn rewrites SELECT DISTINCT ON (k1, k2) list into SELECT
// DISTINCT pg_distinct_on(k1, k2), list (doc.go #27): the binder takes
// the first select field back out as the DISTINCT ON keys.
func (b *bridge) distinctOn(seq []*node) []*node {
	for i := 0; i+3 < len(seq); i++ {
		if !seq[i].isWord("select") || !seq[i+1].isWord("distinct") || !seq[i+2].isWord("on") || !seq[i+3].isParen() {
			continue
		}
		g := seq[i+3]
		if len(g.kids) == 0 {
			b.fail(b.syntaxError(g.off))
			return seq
		}
		call := synth("pg_distinct_on(", g.kids, ")", seq[i+2].off)
		seq = splice(seq, i+2, i+4, call, leafOp(",", g.off))
	}
	return seq
}

// rowStars rewrites t.* among the fields of ROW(...) into pg_row_star(t)
// (doc.go #39), which the binder expands into t's columns as PostgreSQL
// does (TiDB's grammar has no * there), and ROW(x) and ROW() into
// pg_row1(x) and pg_row1().
func rowStars(seq []*node) []*node {
	for i := 0; i+1 < len(seq); i++ {
		if !seq[i].isWord("row") || !seq[i+1].isParen() || at(seq, i-1).isOp(".") {
			continue
		}
		kids := seq[i+1].kids
		for j := 0; j+2 < len(kids); j++ {
			if !kids[j].isName() || !kids[j+1].isOp(".") || !kids[j+2].isOp("*") ||
				(j > 0 && !kids[j-1].isOp(",")) || (j+3 < len(kids) && !kids[j+3].isOp(",")) {
				continue
			}
			kids = splice(kids, j, j+3, synth("pg_row_star(", []*node{kids[j]}, ")", kids[j].off))
		}
		seq[i+1].kids = kids
		single := true
		for _, k := range kids {
			if k.isOp(",") {
				single = false
			}
		}
		if single {
			// TiDB's ROW takes two fields or more.
			seq = splice(seq, i, i+2, synth("pg_row1(", kids, ")", seq[i].off))
		}
	}
	return seq
}

// splice replaces seq[i:j] with repl.
func splice(seq []*node, i, j int, repl ...*node) []*node {
	out := make([]*node, 0, len(seq)-(j-i)+len(repl))
	out = append(out, seq[:i]...)
	out = append(out, repl...)
	return append(out, seq[j:]...)
}

// synth returns an atom node open + kids + close standing at off.
func synth(open string, kids []*node, close string, off int) *node {
	return &node{kind: nSynth, open: open, kids: kids, close: close, off: off}
}

func group(kids []*node, off int) *node {
	return &node{kind: nGroup, open: "(", close: ")", kids: kids, off: off}
}

func leafOp(op string, off int) *node {
	return &node{kind: nLeaf, tok: Token{Kind: TOp, Val: op, Off: off, End: off}, off: off}
}

// notFunctions are words that may stand before a parenthesised group
// without being a function name.
var notFunctions = wordSet(`in exists and or not select from where as on using values over any all some then else
	when case by join is like ilike between distinct with union intersect except into returning set lateral filter
	within lateral table only having symmetric asymmetric`)

// notOperands are keywords that cannot end an operand.
var notOperands = wordSet(`select from where and or not in is as on using then else when case by join like ilike
	between distinct with union intersect except into returning set having group order limit offset values
	any all some escape similar over partition straight_join regexp`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// qualLeft extends a name at seq[s] to the left over "a." prefixes.
func qualLeft(seq []*node, s int) int {
	for at(seq, s-1).isOp(".") && at(seq, s-2).isName() {
		s -= 2
	}
	return s
}

// matchCaseLeft returns the index of the CASE that the END at seq[j]
// closes, or -1.
func matchCaseLeft(seq []*node, j int) int {
	depth := 0
	for k := j; k >= 0; k-- {
		switch seq[k].word() {
		case "end":
			depth++
		case "case":
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// matchEndRight returns the index after the END closing the CASE at
// seq[i], or -1.
func matchEndRight(seq []*node, i int) int {
	depth := 0
	for k := i; k < len(seq); k++ {
		switch seq[k].word() {
		case "case":
			depth++
		case "end":
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// primaryLeft returns the start of the primary expression that ends just
// before seq[i] (a name chain, literal, parameter, group, function call,
// CASE ... END or rewritten atom), or -1.
func primaryLeft(seq []*node, i int) int {
	j := i - 1
	n := at(seq, j)
	switch {
	case n == nil:
		return -1
	case n.isParen():
		if c := windowCallLeft(seq, j); c >= 0 {
			return c
		}
		if f := at(seq, j-1); f.isName() && !(f.tok.Kind == TIdent && notFunctions[f.word()]) {
			return qualLeft(seq, j-1)
		}
		if quotedCallName(at(seq, j-1)) {
			return j - 1
		}
		return j
	case n.kind == nSynth:
		return j
	case n.kind == nLeaf:
		switch n.tok.Kind {
		case TIdent:
			if n.word() == "end" {
				return matchCaseLeft(seq, j)
			}
			if notOperands[n.word()] {
				return -1
			}
			if c := windowCallLeft(seq, j); c >= 0 {
				return c
			}
			return qualLeft(seq, j)
		case TQIdent:
			if c := windowCallLeft(seq, j); c >= 0 {
				return c
			}
			return qualLeft(seq, j)
		case TString, TNumber, TParam, TBitString, THexString:
			return j
		}
	}
	return -1
}

// windowCallLeft returns the start of the window function call whose
// window (OVER followed by a specification or a window name) ends at
// seq[j], or -1: PostgreSQL's grammar makes the whole call, OVER clause
// included, one primary, so a cast or an operator after it applies to
// the call's result.
func windowCallLeft(seq []*node, j int) int {
	if !at(seq, j-1).isWord("over") || !callEnd(seq, j-2) {
		return -1
	}
	return primaryLeft(seq, j-1)
}

// callEnd reports whether seq[k] ends a function call: the argument
// group after a function name, or a call the bridge rewrote.
func callEnd(seq []*node, k int) bool {
	n := at(seq, k)
	switch {
	case n == nil:
		return false
	case n.kind == nSynth:
		return true
	case n.isParen():
		f := at(seq, k-1)
		return f.isName() && !(f.tok.Kind == TIdent && notFunctions[f.word()]) || quotedCallName(f)
	}
	return false
}

// quotedCallName reports whether n is a function name the bridge wrote
// quoted (doc.go #26 and the WITHIN GROUP rewrite, "stddev"(x)).
func quotedCallName(n *node) bool {
	return n != nil && n.kind == nText && strings.HasPrefix(n.text, `"`)
}

// overRight returns the end of the OVER clause after the call ending
// just before seq[e], or e when none follows.
func overRight(seq []*node, e int) int {
	if at(seq, e).isWord("over") && (at(seq, e+1).isParen() || at(seq, e+1).isName()) {
		return e + 2
	}
	return e
}

// primaryRight returns the end (exclusive) of the primary expression that
// starts at seq[i], or -1. A leading sign is included; so is the OVER
// clause of a window function call.
func primaryRight(seq []*node, i int) int {
	n := at(seq, i)
	switch {
	case n == nil:
		return -1
	case quotedCallName(n) && at(seq, i+1).isParen():
		return overRight(seq, i+2)
	case n.kind == nSynth:
		return overRight(seq, i+1)
	case n.isParen():
		return i + 1
	case n.isOp("-") || n.isOp("+"):
		return primaryRight(seq, i+1)
	case n.kind == nLeaf:
		switch n.tok.Kind {
		case TIdent, TQIdent:
			if n.isWord("case") {
				return matchEndRight(seq, i)
			}
			if n.tok.Kind == TIdent && notOperands[n.word()] {
				return -1
			}
			e := i + 1
			for at(seq, e).isOp(".") && at(seq, e+1).isName() {
				e += 2
			}
			if at(seq, e).isParen() && !(n.tok.Kind == TIdent && notFunctions[n.word()]) {
				e = overRight(seq, e+1)
			}
			return e
		case TString, TNumber, TParam, TBitString, THexString:
			return i + 1
		}
	}
	return -1
}

// normalize checks the names of COLLATE clauses (collates rewrites
// them), turns OPERATOR(schema.op) into the bare
// operator and FULL [OUTER] JOIN and CROSS JOIN into STRAIGHT_JOIN.
func (b *bridge) normalize(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		switch {
		case n.isWord("operator") && at(seq, i+1).isParen():
			kids := seq[i+1].kids
			op := at(kids, len(kids)-1)
			if op != nil && op.kind == nLeaf && op.tok.Kind == TOp && (len(kids) == 1 || len(kids) == 3 && kids[0].isName() && kids[1].isOp(".")) {
				repl := leafOp(op.tok.Val, op.off)
				if b.strict && !knownOps[op.tok.Val] {
					// An operator weir has not got (ops.go): named as
					// written, at OPERATOR, as PostgreSQL reports it.
					name := op.tok.Val
					if len(kids) == 3 {
						name = kids[0].nameVal() + "." + name
					}
					repl = leafOp(name, n.off)
				}
				seq = splice(seq, i, i+2, repl)
			}
		case n.isWord("collate") && at(seq, i+1).isName():
			j, name := i+2, seq[i+1]
			if at(seq, j).isOp(".") && at(seq, j+1).isName() {
				name = seq[j+1]
				j += 2
			}
			if b.strict {
				if err := checkCollation(b.src, name, n.off); err != nil {
					b.fail(err)
					return seq
				}
			}
			// Kept for collates, once the casts it binds looser than
			// are rewritten.
			i = j - 1
		case isStringLeaf(n) && isStringLeaf(at(seq, i+1)):
			// The lexer joined the string constants PostgreSQL
			// continues (a newline between them); two left side by side
			// are a syntax error (TiDB would concatenate them).
			b.fail(syntaxErrorAt(b.src, seq[i+1].tok))
			return seq
		case n.isWord("cross") && at(seq, i+1).isWord("join"):
			// Without ON or USING, which a FULL JOIN has; TiDB's CROSS
			// JOIN reads as a comma does.
			seq = splice(seq, i, i+2, textNode("straight_join", n.off))
		case n.isWord("full") && at(seq, i+1).isWord("join"):
			seq = splice(seq, i, i+2, textNode("straight_join", n.off))
		case n.isWord("full") && at(seq, i+1).isWord("outer") && at(seq, i+2).isWord("join"):
			seq = splice(seq, i, i+3, textNode("straight_join", n.off))
		}
	}
	return seq
}

func isStringLeaf(n *node) bool { return n != nil && n.kind == nLeaf && n.tok.Kind == TString }

// limitSentinelBase is the first of the LIMIT/OFFSET values that stand
// in the bridged text for a count TiDB's grammar cannot hold (rewrite 27):
// the k-th such count (from 0) is written as limitSentinelBase+k. These
// are above the bigint range, so no count Postgres accepts collides.
const limitSentinelBase uint64 = 18446744073709550000

// limitStops end a LIMIT/OFFSET count at its level.
var limitStops = wordSet(`limit offset fetch for row rows union intersect except`)

// limitSpan returns the end of the LIMIT/OFFSET count starting at seq[i].
func limitSpan(seq []*node, i int) int {
	j := i
	for j < len(seq) && !(seq[j].kind == nLeaf && seq[j].tok.Kind == TIdent && limitStops[seq[j].word()]) && !seq[j].isOp(";") {
		j++
	}
	return j
}

// limitArg turns the LIMIT/OFFSET count seq[i:j] into what TiDB reads.
// TiDB's grammar takes only an unsigned integer or a parameter there: (5)
// and $1::bigint are written as 5 and ? (the count is a bigint either
// way); any other expression (-1, NULL, 2.5, 1 + 1, a subquery) is parsed
// now on its own and stands as a sentinel number in the text, which
// replaceLimits swaps for it after the statement is parsed.
func (b *bridge) limitArg(seq []*node, i, j int) *node {
	if j == i+1 {
		n := seq[i]
		for (n.isParen() || n.kind == nSynth && n.open == "pg_cast(") && len(n.kids) == 1 {
			n = n.kids[0]
		}
		// (A bare ? only occurs in text bridged before, parsed again.)
		if n.kind == nLeaf && (n.tok.Kind == TParam || n.isOp("?") || n.tok.Kind == TNumber && strings.Trim(n.tok.Val, "0123456789") == "") {
			return n
		}
	}
	span := append([]*node{}, seq[i:j]...)
	span = b.atTimeZone(span)
	span = b.jsonOps(span)
	span = b.powers(span)
	span = b.regexOps(span)
	span = b.genericOps(span)
	span = b.anyOps(span)
	span = b.distinctFrom(span)
	if b.err != nil {
		return textNode("0", seq[i].off)
	}
	k := uint64(len(b.limitExprs))
	b.shift = limitShift(int(k) + 1)
	stmt, _, err := b.parse(append([]*node{textNode("select", seq[i].off)}, span...))
	b.shift = 0
	if err == nil {
		for _, o := range b.lastMap.outs {
			b.limitMap.outs = append(b.limitMap.outs, o+limitShift(int(k)+1))
		}
		b.limitMap.srcs = append(b.limitMap.srcs, b.lastMap.srcs...)
	}
	if err != nil {
		b.fail(err)
		return textNode("0", seq[i].off)
	}
	sel, ok := stmt.(*ast.SelectStmt)
	if !ok || len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].Expr == nil || sel.Fields.Fields[0].AsName.O != "" ||
		sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct {
		b.fail(b.syntaxError(seq[i].off))
		return textNode("0", seq[i].off)
	}
	b.limitExprs = append(b.limitExprs, sel.Fields.Fields[0].Expr)
	return textNode(fmt.Sprint(limitSentinelBase+k), seq[i].off)
}

// replaceLimits puts the LIMIT/OFFSET expressions limitArg parsed apart
// in place of their sentinels in stmt (every TiDB parse of the statement's
// pieces, so counts nested in subqueries of other pieces are found too).
func (b *bridge) replaceLimits(stmt ast.Node) {
	if len(b.limitExprs) > 0 {
		stmt.Accept(&limitReplacer{exprs: b.limitExprs})
	}
}

type limitReplacer struct{ exprs []ast.ExprNode }

func (v *limitReplacer) swap(e ast.ExprNode) ast.ExprNode {
	l, ok := e.(*Literal)
	if !ok {
		return e
	}
	u, ok := l.Value.(uint64)
	if !ok || u < limitSentinelBase || u-limitSentinelBase >= uint64(len(v.exprs)) {
		return e
	}
	return v.exprs[u-limitSentinelBase]
}

func (v *limitReplacer) Enter(n ast.Node) (ast.Node, bool) {
	if l, ok := n.(*ast.Limit); ok {
		if l.Count != nil {
			l.Count = v.swap(l.Count)
		}
		if l.Offset != nil {
			l.Offset = v.swap(l.Offset)
		}
	}
	return n, false
}

func (v *limitReplacer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// limitCommaError is PostgreSQL's error for MySQL's LIMIT offset, count,
// which its grammar has only to refuse, at the LIMIT at off.
func limitCommaError(src string, off int) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, "LIMIT #,# syntax is not supported").
		WithHint("Use separate LIMIT and OFFSET clauses.").WithPosition(charPos(src, off))
}

// limits rewrites LIMIT ALL, OFFSET without LIMIT, OFFSET before LIMIT and
// OFFSET n ROWS FETCH FIRST m ROWS ONLY into TiDB's LIMIT m OFFSET n, and
// FETCH FIRST m ROWS WITH TIES into LIMIT e where e, parsed apart, is
// pg_with_ties(m).
func (b *bridge) limits(seq []*node) []*node {
	var count, offset []*node
	pos, posOff, found := -1, 0, false
	mark := func(i int) {
		// The offset is taken now: the clause may be all the group holds,
		// leaving nothing to read it from after the splice.
		if pos < 0 || i < pos {
			pos, posOff = i, seq[i].off
		}
		found = true
	}
	// PostgreSQL takes one LIMIT or FETCH clause and one OFFSET clause,
	// in either order (select_limit); a second one is a syntax error.
	limited, offsetted := false, false
	again := func(n *node, seen *bool) bool {
		if *seen {
			b.fail(b.syntaxError(n.off))
			return true
		}
		*seen = true
		return false
	}
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		switch {
		case (n.isWord("limit") || n.isWord("fetch") && (at(seq, i+1).isWord("first") || at(seq, i+1).isWord("next"))) && again(n, &limited):
			return seq
		case n.isWord("offset") && primaryLeft(seq, i) >= 0 && at(seq, i+1) != nil && again(n, &offsetted):
			return seq
		case n.isWord("offset") && at(seq, i+1).isWord("all") && primaryLeft(seq, i) >= 0:
			// OFFSET takes an a_expr, where ALL is a reserved word.
			b.fail(b.syntaxError(seq[i+1].off))
			return seq
		case n.isWord("limit") && at(seq, i+1).isWord("all") && at(seq, i+2).isOp(","):
			b.fail(limitCommaError(b.src, n.off))
			return seq
		case n.isWord("limit") && at(seq, i+1).isWord("all") && limitSpan(seq, i+2) > i+2:
			// ALL is the whole count.
			b.fail(b.syntaxError(seq[i+2].off))
			return seq
		case n.isWord("limit") && at(seq, i+1).isWord("all"):
			mark(i)
			seq = splice(seq, i, i+2)
			i--
		case n.isWord("limit") && limitSpan(seq, i+1) > i+1:
			mark(i)
			j := limitSpan(seq, i+1)
			for _, c := range seq[i+1 : j] {
				if c.isOp(",") {
					b.fail(limitCommaError(b.src, n.off))
					return seq
				}
			}
			count = []*node{b.limitArg(seq, i+1, j)}
			seq = splice(seq, i, j)
			i--
		case n.isWord("offset") && limitSpan(seq, i+1) > i+1 && primaryLeft(seq, i) >= 0:
			mark(i)
			j := limitSpan(seq, i+1)
			if at(seq, j).isWord("row") || at(seq, j).isWord("rows") {
				// OFFSET n ROWS takes a select_fetch_first_value; an
				// expression that is only an a_expr ends before ROWS.
				if s, e := b.spanToks(seq, i+1, j); !b.definition && fetchFirstStop(b.toks, s, e) >= 0 {
					b.fail(b.syntaxError(seq[j].off))
					return seq
				}
			}
			offset = []*node{b.limitArg(seq, i+1, j)}
			if at(seq, j).isWord("row") || at(seq, j).isWord("rows") {
				j++
			}
			seq = splice(seq, i, j)
			i--
		case n.isWord("fetch") && (at(seq, i+1).isWord("first") || at(seq, i+1).isWord("next")):
			j := i + 2
			c := []*node{textNode("1", n.off)}
			after := b.tokIndex(seq[i+1].off) + 1 // the token after the count
			if e := limitSpan(seq, j); e > j {
				// The count is a select_fetch_first_value: a c_expr, or
				// + or - before a number; anything more needs parentheses.
				s, t := b.spanToks(seq, j, e)
				if k := fetchFirstStop(b.toks, s, t); k >= 0 && !b.definition {
					b.fail(b.syntaxErrorTok(k))
					return seq
				}
				c = []*node{b.limitArg(seq, j, e)}
				j, after = e, t
			}
			if !(at(seq, j).isWord("row") || at(seq, j).isWord("rows")) {
				b.fail(b.syntaxErrorTok(after))
				return seq
			}
			if at(seq, j+1).isWord("with") && at(seq, j+2).isWord("ties") {
				if !orderedLevel(seq[:i]) {
					b.fail(pgerr.New(pgerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause"))
					return seq
				}
				mark(i)
				var kids []*node
				if e := limitSpan(seq, i+2); e > i+2 {
					kids = seq[i+2 : e]
				} else {
					kids = []*node{textNode("1", n.off)}
				}
				count = []*node{b.limitArg([]*node{synth("pg_with_ties(", kids, ")", n.off)}, 0, 1)}
				seq = splice(seq, i, j+3)
				i--
				continue
			}
			if !at(seq, j+1).isWord("only") {
				b.fail(b.syntaxErrorAfter(seq[j].off))
				return seq
			}
			mark(i)
			count = c
			seq = splice(seq, i, j+2)
			i--
		}
	}
	if !found {
		return seq
	}
	var tail []*node
	if count != nil || offset != nil {
		tail = append(tail, textNode("limit", posOff))
		if count != nil {
			tail = append(tail, count...)
		} else {
			tail = append(tail, textNode("18446744073709551615", offset[0].off))
		}
		if offset != nil {
			tail = append(tail, textNode("offset", offset[0].off))
			tail = append(tail, offset...)
		}
	}
	return splice(seq, pos, pos, tail...)
}

// orderedLevel reports whether the query level seq (the text before a
// FETCH clause) has an ORDER BY of its own or is a parenthesised query,
// which may: PostgreSQL's grammar refuses FETCH ... WITH TIES without
// one (insertSelectOptions) before any name is looked up.
func orderedLevel(seq []*node) bool {
	if len(seq) > 0 && seq[0].isParen() {
		return true
	}
	for i := range seq {
		if seq[i].isWord("order") && at(seq, i+1).isWord("by") {
			return true
		}
	}
	return false
}

// canon returns the type name pg_cast receives: types.T.String() of a
// type weir models, else the name as written, lower-cased.
func canon(spec typeSpec) string {
	if t, err := resolveType(spec); err == nil {
		return t.String()
	}
	return spec.written()
}

func castNode(kids []*node, typ string, off int) *node {
	return synth("pg_cast(", kids, ", "+quoteString(typ)+")", off)
}

// castNodeAt is castNode with the type's literal placed at typeOff, where
// the type name was written: PostgreSQL's errors about the type (one
// that does not exist) point there.
func castNodeAt(kids []*node, typ string, off, typeOff int) *node {
	n := castNode(kids, typ, off)
	n.closeOff, n.closeAt = typeOff, true
	return n
}

// typedLiterals rewrites `type 'string'` and INTERVAL 'n' [unit [TO unit]].
func (b *bridge) typedLiterals(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if b.strict && n.kind == nLeaf && n.tok.Kind == TString && n.tok.Off+1 < len(b.src) && (b.src[n.tok.Off] == 'n' || b.src[n.tok.Off] == 'N') && b.src[n.tok.Off+1] == '\'' {
			// N'abc', a national character literal: PostgreSQL's
			// lexer writes it as NCHAR 'abc', a typed literal of
			// bpchar without a length.
			seq[i] = castNode([]*node{n}, "bpchar", n.off)
			continue
		}
		if !n.isName() || at(seq, i-1).isOp(".") || at(seq, i-1).isOp("::") {
			continue
		}
		if n.isWord("interval") {
			typ, s, j := "interval", at(seq, i+1), i+2
			if g := at(seq, i+1); g.isParen() && len(g.kids) == 1 && g.kids[0].kind == nLeaf && g.kids[0].tok.Kind == TNumber {
				// INTERVAL (p) 'str': the precision of the seconds.
				typ, s, j = "interval("+g.kids[0].tok.Val+")", at(seq, i+2), i+3
			}
			if s == nil || s.kind != nLeaf || s.tok.Kind != TString {
				continue
			}
			val := s.tok.Val
			if u := at(seq, j).word(); intervalFields[u] {
				j++
				if at(seq, j).isWord("to") && intervalFields[at(seq, j+1).word()] {
					u = at(seq, j+1).word()
					j += 2
					if isNumber(strings.TrimSpace(val)) {
						val = strings.TrimSpace(val) + " " + u
					}
				} else {
					val = strings.TrimSpace(val) + " " + u
				}
			}
			lit := &node{kind: nLeaf, tok: Token{Kind: TString, Val: val, Off: s.off, End: s.tok.End}, off: s.off}
			seq = splice(seq, i, j, castNode([]*node{lit}, typ, n.off))
			continue
		}
		spec, e, ok := scanType(seq, i)
		s := at(seq, e)
		if !ok || s == nil || s.kind != nLeaf || s.tok.Kind != TString {
			continue
		}
		if _, err := resolveType(spec); err != nil && err.Code != "0A000" {
			continue
		}
		seq = splice(seq, i, e+1, castNode([]*node{s}, canon(spec), n.off))
	}
	return seq
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' && !(i == 0 && (s[i] == '-' || s[i] == '+')) {
			return false
		}
	}
	return true
}

// sessionFuncs are Postgres's parenless function-like keywords that TiDB
// needs to see as calls.
var sessionFuncs = wordSet(`current_user session_user current_schema current_catalog current_role user`)

// calls rewrites CAST, EXTRACT, ARRAY, concat, FILTER and the parenless
// session functions.
func (b *bridge) calls(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if n.isName() && n.tok.Kind == TQIdent && at(seq, i+1).isParen() && at(seq, i+2).isWord("over") && !at(seq, i-1).isOp(".") {
			seq = windowCall(seq, i, i, n)
			continue
		}
		if !n.isName() || n.tok.Kind != TIdent {
			continue
		}
		w := n.word()
		qualified := at(seq, i-1).isOp(".")
		if qualified && !(at(seq, i-2).isWord("pg_catalog") && !at(seq, i-3).isOp(".")) {
			continue
		}
		start := i
		if qualified {
			start = i - 2
		}
		g := at(seq, i+1)
		if sessionFuncs[w] && !g.isParen() && !qualified {
			// A call, so a primary for the rewrites after this one
			// (current_user::text). USER stays user(), TiDB's own, so
			// that it is labelled user.
			seq[i] = synth(w+"(", nil, ")", n.off)
			continue
		}
		if w == "array" && !qualified {
			switch {
			case g.isParen():
				seq = splice(seq, i, i+2, synth("pg_array_subquery(", []*node{g}, ")", n.off))
				continue
			case g.isBracket():
				seq = splice(seq, i, i+2, arrayNode(g, n.off))
				continue
			}
		}
		if !g.isParen() {
			continue
		}
		switch w {
		case "cast":
			k := -1
			for j, kid := range g.kids {
				if kid.isWord("as") {
					k = j
				}
			}
			if k < 1 {
				continue
			}
			spec, e, ok := scanType(g.kids, k+1)
			if !ok || e != len(g.kids) {
				continue
			}
			seq = splice(seq, start, i+2, castNodeAt(g.kids[:k], canon(spec), n.off, g.kids[k+1].off))
			i = start
			continue
		case "extract":
			if len(g.kids) < 3 || !g.kids[1].isWord("from") {
				continue
			}
			f := g.kids[0]
			var field string
			switch {
			case f.kind == nLeaf && (f.tok.Kind == TIdent || f.tok.Kind == TString || f.tok.Kind == TQIdent):
				field = strings.ToLower(f.tok.Val)
			default:
				continue
			}
			kids := append([]*node{textNode(quoteString(field), f.off), leafOp(",", f.off)}, g.kids[2:]...)
			seq = splice(seq, start, i+2, synth("pg_extract(", kids, ")", n.off))
			i = start
			continue
		case "overlay":
			// overlay(s PLACING r FROM n [FOR m]) is overlay(s, r, n[, m]).
			if g2, ok := overlayArgs(g); ok {
				seq[i+1] = g2
			}
		case "concat", "cardinality":
			// TiDB's parser has its own concat and reads cardinality as
			// a keyword.
			seq = splice(seq, start, i+1, textNode("pg_"+w, n.off))
			i = start
			// ORDER BY in the arguments: 7b, for the binder to refuse.
			aggOrder(seq[i+1])
			continue
		case "stddev", "variance", "div", "mod", "nextval", "currval", "setval", "lastval", "mode":
			// TiDB reads stddev and variance as MySQL's population forms
			// (Postgres's are the sample forms), div and mod as operators
			// (mod(a, b) is labelled mod, a % b ?column?), the
			// sequence functions as its own (taking a bare name) and mode
			// as a keyword: quoted, each is a plain call of the Postgres
			// function.
			seq = splice(seq, start, i+1, textNode(quoteIdent(w), n.off))
			i = start
		}
		if wg := at(seq, i+4); at(seq, i+2).isWord("within") && at(seq, i+3).isWord("group") && wg.isParen() {
			// f(args) WITHIN GROUP (ORDER BY k) → f(args, pg_within_group(k, 'asc')).
			// The name is quoted: TiDB's grammar would take an aggregate
			// of its own (sum, max) with its own argument count.
			for j, k := range seq[i+1].kids {
				if j == 0 && k.isWord("distinct") {
					b.fail(pgerr.New(pgerr.SyntaxError, "cannot use DISTINCT with WITHIN GROUP").WithPosition(charPos(b.src, at(seq, i+2).off)))
				}
				if k.isWord("order") && at(seq[i+1].kids, j+1).isWord("by") {
					b.fail(pgerr.New(pgerr.SyntaxError, "cannot use multiple ORDER BY clauses with WITHIN GROUP").WithPosition(charPos(b.src, at(seq, i+2).off)))
				}
			}
			if wk, ok := withinGroupArgs(seq[i+1], wg); ok {
				seq[i+1] = wk
				seq = splice(seq, i+2, i+5)
				seq = splice(seq, start, i+1, textNode(quoteIdent(w), n.off))
				i = start
				// The name is quoted now: before OVER, the call goes to
				// the binder wrapped, as any quoted name's.
				q := *n
				q.tok.Kind, q.tok.Val = TQIdent, w
				n = &q
			}
		}
		var filter *node
		if f := at(seq, i+3); at(seq, i+2).isWord("filter") && f.isParen() && len(f.kids) > 1 && f.kids[0].isWord("where") {
			if at(seq, i+4).isWord("over") {
				// A window aggregate: the condition moves into the first
				// argument, which is exact only for aggregates that skip
				// NULL inputs.
				if keepsNullAggs[w] {
					b.fail(pgerr.New(pgerr.FeatureNotSupported, "FILTER is not supported for window function %s", w).WithPosition(charPos(b.src, at(seq, i+2).off)))
				}
				seq = splice(seq, i+1, i+4, filterArgs(g, f.kids[1:]))
			} else {
				filter = group(f.kids[1:], f.off)
				seq = splice(seq, i+2, i+4)
			}
		}
		if !notFunctions[w] && !windowWords[w] {
			distinctName := w
			if aggOrder(seq[i+1]) && tidbAggregates[w] && n.tok.Kind != TQIdent {
				// With its ORDER BY as a last argument, an aggregate
				// TiDB's grammar knows (count, sum) has an argument count
				// that grammar refuses: quoted, it is a plain call, and
				// its DISTINCT an argument as for any other aggregate.
				seq = splice(seq, start, i+1, textNode(quoteIdent(w), n.off))
				i = start
				q := *n
				q.tok.Kind, q.tok.Val = TQIdent, w
				n = &q
				distinctName = ""
			}
			aggDistinct(distinctName, seq[i+1])
		}
		if filter != nil {
			// agg(args) FILTER (WHERE c) → pg_agg_filter(agg(args), (c)):
			// the binder makes c a filter on the rows the call sees.
			call := append(append([]*node{}, seq[start:i+2]...), leafOp(",", filter.off), filter)
			seq = splice(seq, start, i+2, synth("pg_agg_filter(", call, ")", n.off))
			i = start
			continue
		}
		if at(seq, i+2).isWord("over") && !notFunctions[w] && !windowWords[w] {
			seq = windowCall(seq, start, i, n)
			i = start
		}
	}
	return seq
}

// tidbWindowNames are the function names TiDB's grammar takes before
// OVER: its window functions and the aggregates of its SumExpr rule.
var tidbWindowNames = wordSet(`row_number rank dense_rank cume_dist percent_rank ntile lead lag first_value last_value
	nth_value avg bit_and bit_or bit_xor count group_concat max min sum std stddev_pop stddev_samp var_pop var_samp
	json_arrayagg json_objectagg`)

// windowCall rewrites f(args) OVER at seq[start:i+2] (name at seq[i],
// the argument group at seq[i+1]) into first_value(pg_window_call('f',
// args)) OVER when TiDB would not take f before OVER (doc.go #28): any
// aggregate or window function name TiDB does not know, a quoted name
// (also stddev and variance, quoted by #26) or a pg_catalog-qualified
// one. The binder unwraps the call.
func windowCall(seq []*node, start, i int, n *node) []*node {
	g := seq[i+1]
	name := n.tok.Val
	if n.tok.Kind == TIdent {
		name = n.word()
		if tidbWindowNames[name] && start == i && !leadLagOffsetExpr(name, g) && !hasNamedArg(g) {
			return seq
		}
	}
	if len(g.kids) == 1 && g.kids[0].isOp("*") {
		return seq // f(*) is left for TiDB to judge
	}
	kids := []*node{textNode(quoteString(name), n.off)}
	if len(g.kids) > 0 {
		kids = append(kids, leafOp(",", g.off))
		kids = append(kids, g.kids...)
	}
	return splice(seq, start, i+2, synth("first_value(pg_window_call(", kids, "))", n.off))
}

// leadLagOffsetExpr reports whether g, the arguments of lag or lead,
// has an offset TiDB's grammar does not take: it takes only an unsigned
// integer literal there, Postgres any integer expression ('1', -1,
// 1::int2, a column).
func leadLagOffsetExpr(name string, g *node) bool {
	if name != "lag" && name != "lead" {
		return false
	}
	parts := splitCommas(g.kids)
	if len(parts) < 2 {
		return false
	}
	off := parts[1]
	if len(off) != 1 || off[0].kind != nLeaf || off[0].tok.Kind != TNumber {
		return true
	}
	return strings.Trim(off[0].tok.Val, "0123456789") != ""
}

// tidbDistinctAggs are the aggregates whose DISTINCT TiDB's grammar
// takes; the others get it from the bridge as a marker argument.
var tidbDistinctAggs = wordSet(`count sum avg min max group_concat std stddev_pop stddev_samp var_pop var_samp`)

// aggDistinct rewrites agg(DISTINCT args) of an aggregate TiDB does not
// know into agg(args, pg_agg_distinct()): the marker is the last argument,
// after any pg_agg_order_by.
func aggDistinct(name string, g *node) {
	if tidbDistinctAggs[name] || !g.isParen() || len(g.kids) < 2 || !g.kids[0].isWord("distinct") || isSubquery(g.kids) {
		return
	}
	off := g.kids[0].off
	g.kids = append(g.kids[1:], leafOp(",", off), textNode("pg_agg_distinct()", off))
}

// windowWords stand before a parenthesised ORDER BY that is not an
// aggregate's.
var windowWords = wordSet(`over group window as`)

// tidbAggregates are the aggregates TiDB's grammar parses with rules of
// their own, each taking a fixed number of arguments.
var tidbAggregates = wordSet(`count sum avg min max bit_and bit_or bit_xor std stddev_pop stddev_samp var_pop var_samp variance stddev group_concat json_arrayagg json_objectagg approx_count_distinct approx_percentile`)

// aggOrder rewrites an aggregate's ORDER BY inside its argument group g:
// agg(args ORDER BY k1 DESC, k2) becomes
// agg(args, pg_agg_order_by(k1, 'desc', k2, 'asc')), and reports whether
// it did.
func aggOrder(g *node) bool {
	kids := g.kids
	j := -1
	for k := 1; k+1 < len(kids); k++ {
		if kids[k].isWord("order") && kids[k+1].isWord("by") {
			j = k
			break
		}
	}
	if j < 0 || isSubquery(kids) {
		return false
	}
	var keys []*node
	for n, key := range splitCommas(kids[j+2:]) {
		if len(key) == 0 {
			return false
		}
		dir := "asc"
		if w := key[len(key)-1].word(); w == "asc" || w == "desc" {
			dir, key = w, key[:len(key)-1]
		}
		if len(key) == 0 {
			return false // ORDER BY DESC: left for TiDB to reject
		}
		if n > 0 {
			keys = append(keys, leafOp(",", key[0].off))
		}
		keys = append(keys, key...)
		keys = append(keys, leafOp(",", key[0].off), textNode(quoteString(dir), key[0].off))
	}
	out := append(append([]*node{}, kids[:j]...), leafOp(",", kids[j].off), synth("pg_agg_order_by(", keys, ")", kids[j].off))
	g.kids = out
	return true
}

// withinGroupArgs returns the argument group g of an ordered-set
// aggregate call with its WITHIN GROUP (ORDER BY keys) clause wg appended
// as a last argument pg_within_group(k1, 'asc', k2, 'desc'), and false when
// wg is not an ORDER BY list.
func withinGroupArgs(g, wg *node) (*node, bool) {
	kids := wg.kids
	if len(kids) < 3 || !kids[0].isWord("order") || !kids[1].isWord("by") {
		return nil, false
	}
	var keys []*node
	for n, key := range splitCommas(kids[2:]) {
		if len(key) == 0 {
			return nil, false
		}
		dir := "asc"
		if w := key[len(key)-1].word(); w == "asc" || w == "desc" {
			dir, key = w, key[:len(key)-1]
		}
		if len(key) == 0 {
			return nil, false
		}
		if n > 0 {
			keys = append(keys, leafOp(",", key[0].off))
		}
		keys = append(keys, key...)
		keys = append(keys, leafOp(",", key[0].off), textNode(quoteString(dir), key[0].off))
	}
	out := *g
	out.kids = append([]*node{}, g.kids...)
	if len(out.kids) == 1 && out.kids[0].isOp("*") {
		// f(*) has no arguments (PostgreSQL's agg_star): count(*)
		// WITHIN GROUP (ORDER BY x) is resolved as count(x).
		out.kids = nil
	}
	if len(out.kids) > 0 {
		out.kids = append(out.kids, leafOp(",", wg.off))
	}
	out.kids = append(out.kids, synth("pg_within_group(", keys, ")", wg.off))
	return &out, true
}

// arrayNode turns the brackets of ARRAY[...] into pg_array(...), also the
// inner brackets of a multi-dimensional ARRAY[[1, 2], [3, 4]]. off is
// where the constructor starts, as Postgres reports it: the ARRAY
// keyword, or an inner bracket.
func arrayNode(g *node, off int) *node {
	kids := make([]*node, len(g.kids))
	for i, k := range g.kids {
		if k.isBracket() && (i == 0 || g.kids[i-1].isOp(",")) {
			k = arrayNode(k, k.off)
		}
		kids[i] = k
	}
	return synth("pg_array(", kids, ")", off)
}

// overlayArgs rewrites the argument group of overlay(s PLACING r FROM n
// [FOR m]) into (s, r, n[, m]); ok is false for any other form.
func overlayArgs(g *node) (*node, bool) {
	var cuts []int
	words := []string{"placing", "from", "for"}
	for j, k := range g.kids {
		if len(cuts) < len(words) && k.isWord(words[len(cuts)]) {
			cuts = append(cuts, j)
		}
	}
	if len(cuts) < 2 || cuts[0] == 0 {
		return nil, false
	}
	cuts = append(cuts, len(g.kids))
	kids := append([]*node{}, g.kids[:cuts[0]]...)
	for c := 0; c+1 < len(cuts); c++ {
		part := g.kids[cuts[c]+1 : cuts[c+1]]
		if len(part) == 0 {
			return nil, false
		}
		kids = append(kids, leafOp(",", g.kids[cuts[c]].off))
		kids = append(kids, part...)
	}
	return group(kids, g.off), true
}

// keepsNullAggs are the aggregates whose result changes when a NULL
// input is added: FILTER cannot be written as a CASE in their argument.
var keepsNullAggs = wordSet(`array_agg json_agg jsonb_agg json_object_agg jsonb_object_agg`)

// filterArgs rewrites agg(args) FILTER (WHERE cond) into the argument
// group of agg(CASE WHEN (cond) THEN first END, other args).
func filterArgs(g *node, cond []*node) *node {
	args := g.kids
	off := g.off
	var pre, tail []*node
	if len(args) > 0 && (args[0].isWord("distinct") || args[0].isWord("all")) {
		pre, args = args[:1], args[1:]
	}
	for j := 0; j+1 < len(args); j++ {
		if args[j].isWord("order") && args[j+1].isWord("by") {
			args, tail = args[:j], args[j:]
			break
		}
	}
	first, rest := args, []*node(nil)
	for j, a := range args {
		if a.isOp(",") {
			first, rest = args[:j], args[j:]
			break
		}
	}
	if len(first) == 1 && first[0].isOp("*") {
		first = []*node{textNode("1", off)}
	}
	kids := append([]*node{}, pre...)
	kids = append(kids, textNode("case", off), textNode("when", off), group(cond, off), textNode("then", off))
	kids = append(kids, first...)
	kids = append(kids, textNode("end", off))
	kids = append(kids, rest...)
	kids = append(kids, tail...)
	return group(kids, off)
}

// subscripts rewrites x[i] into pg_subscript(x, i).
func (b *bridge) subscripts(seq []*node) []*node {
	made := map[*node]bool{}
	for i := 0; i < len(seq); i++ {
		g := seq[i]
		if !g.isBracket() || len(g.kids) == 0 {
			continue
		}
		s := primaryLeft(seq, i)
		if s < 0 || at(seq, s-1).isOp("::") {
			continue
		}
		if b.strict && !subscriptable(seq, s, i, made) {
			// PostgreSQL's grammar subscripts only a column reference,
			// a parameter or a parenthesised expression: not a call,
			// a literal or CASE ... END.
			b.fail(b.syntaxError(g.off))
			continue
		}
		kids := append(append([]*node{}, seq[s:i]...), leafOp(",", g.off))
		fn := "pg_subscript("
		if c := colonIndex(g.kids); c >= 0 {
			// A slice x[lo:hi]; a missing bound is NULL.
			fn = "pg_slice("
			lo, hi := g.kids[:c], g.kids[c+1:]
			if len(lo) == 0 {
				lo = []*node{textNode("null", g.off)}
			}
			if len(hi) == 0 {
				hi = []*node{textNode("null", g.off)}
			}
			kids = append(append(append(kids, lo...), leafOp(",", g.off)), hi...)
		} else {
			kids = append(kids, g.kids...)
		}
		sub := synth(fn, kids, ")", seq[s].off)
		made[sub] = true
		seq = splice(seq, s, i+1, sub)
		i = s
	}
	return seq
}

// subscriptable reports whether the primary seq[s:i] may take a
// subscript in PostgreSQL's grammar: a column reference, a parameter, a
// parenthesised expression, or one already subscripted (in made).
func subscriptable(seq []*node, s, i int, made map[*node]bool) bool {
	n := seq[i-1]
	switch {
	case made[n]:
		return true
	case n.isParen():
		return s == i-1
	case n.kind == nLeaf && at(seq, i-2).isWord("over"):
		return false // a window name: the call is the primary
	case n.kind == nLeaf:
		return n.tok.Kind == TQIdent || n.tok.Kind == TParam || n.tok.Kind == TIdent && !n.isWord("end")
	}
	return false
}

func colonIndex(seq []*node) int {
	for i, n := range seq {
		if n.isOp(":") {
			return i
		}
	}
	return -1
}

// casts rewrites x::type into pg_cast(x, 'type'), left to right so that
// chained casts nest.
func (b *bridge) casts(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isOp("::") {
			continue
		}
		if i >= 3 && seq[i-1].isOp("*") && seq[i-2].isOp(".") && seq[i-3].isName() {
			// t.*::type casts the whole row, as t::type does.
			seq = splice(seq, i-2, i)
			i -= 2
		}
		s := primaryLeft(seq, i)
		spec, e, ok := scanType(seq, i+1)
		if s < 0 || !ok {
			continue
		}
		seq = splice(seq, s, e, castNodeAt(b.caseSpan(seq[s:i]), canon(spec), seq[s].off, seq[i+1].off))
		i = s
	}
	return seq
}

// collates rewrites x COLLATE name into pg_collate(x, 'name'), placed at
// the COLLATE keyword (where PostgreSQL's errors about it point); x is
// the primary before it, casts included. A clause without one is
// dropped (Query.Collated).
func (b *bridge) collates(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if !n.isWord("collate") || !at(seq, i+1).isName() {
			continue
		}
		j, name := i+2, seq[i+1]
		if at(seq, j).isOp(".") && at(seq, j+1).isName() {
			name = seq[j+1]
			j += 2
		}
		s := primaryLeft(seq, i)
		if s < 0 {
			if b.q != nil {
				b.q.Collated = true
			}
			seq = splice(seq, i, j)
			i--
			continue
		}
		seq = splice(seq, s, j, synth("pg_collate(", b.caseSpan(seq[s:i]), ", "+quoteString(name.nameVal())+")", n.off))
		i = s
	}
	return seq
}

// caseSpan returns a copy of span, an operand of a postfix or binary
// form that casts, atTimeZone, jsonOps or powers wrap into a call; when
// the operand is a CASE ... END, the expression rewrites that follow
// those forms in level are run on it first: inside the call its tokens
// are out of their reach (CASE WHEN a IS DISTINCT FROM b ... END::int).
// The rewrites leave text they have rewritten alone, so running them on
// an operand they may see again is harmless.
func (b *bridge) caseSpan(span []*node) []*node {
	span = append([]*node{}, span...)
	if len(span) < 2 || !span[0].isWord("case") {
		return span
	}
	span = b.atTimeZone(span)
	span = b.jsonOps(span)
	span = b.powers(span)
	span = b.regexOps(span)
	span = b.genericOps(span)
	span = b.similarTo(span)
	span = b.likeEscape(span)
	span = b.anyOps(span)
	span = b.distinctFrom(span)
	return b.betweenSymmetric(span)
}

// atTimeZone rewrites x AT TIME ZONE z into pg_at_time_zone(x, z); AT
// binds looser than :: and tighter than the arithmetic operators.
func (b *bridge) atTimeZone(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if !n.isWord("at") || !at(seq, i+1).isWord("time") || !at(seq, i+2).isWord("zone") {
			continue
		}
		s, e := primaryLeft(seq, i), primaryRight(seq, i+3)
		if s < 0 || e < 0 {
			continue
		}
		kids := append(append(b.caseSpan(seq[s:i]), leafOp(",", n.off)), b.caseSpan(seq[i+3:e])...)
		seq = splice(seq, s, e, synth("pg_at_time_zone(", kids, ")", seq[s].off))
		i = s
	}
	return seq
}

var jsonFuncs = map[string]string{
	"->": "pg_json_get", "->>": "pg_json_get_text", "#>": "pg_json_path", "#>>": "pg_json_path_text",
	"@>": "pg_json_contains", "<@": "pg_json_contained",
	"?": "pg_json_exists", "?|": "pg_json_exists_any", "?&": "pg_json_exists_all",
	"@?": "pg_jsonpath_exists", "@@": "pg_jsonpath_match",
}

// jsonOps rewrites the jsonb operators between primaries into calls.
func (b *bridge) jsonOps(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if n.kind != nLeaf || n.tok.Kind != TOp || jsonFuncs[n.tok.Val] == "" {
			continue
		}
		s, e := primaryLeft(seq, i), primaryRight(seq, i+1)
		if s < 0 || e < 0 {
			continue
		}
		l, r := b.caseSpan(seq[s:i]), b.caseSpan(seq[i+1:e])
		kids := append(append(append([]*node{}, l...), leafOp(",", n.off)), r...)
		seq = splice(seq, s, e, synth(jsonFuncs[n.tok.Val]+"(", kids, ")", seq[s].off))
		i = s
	}
	return seq
}

var regexOps = map[string]string{
	"~": "regexp", "!~": "not regexp", "~*": "regexp", "!~*": "not regexp",
	"~~": "like", "!~~": "not like", "~~*": "ilike", "!~~*": "not ilike",
}

// regexOps rewrites the Postgres pattern-matching operators.
func (b *bridge) regexOps(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if n.kind != nLeaf || n.tok.Kind != TOp || regexOps[n.tok.Val] == "" || primaryLeft(seq, i) < 0 {
			continue
		}
		if quantifierAt(seq, i+1) {
			// x ~ ANY (...) is anyOps's: the operator stays, as text
			// that ends the operands of the Op operators before it.
			seq[i] = textNode(n.tok.Val, n.off)
			continue
		}
		op := n.tok.Val
		seq[i] = textNode(regexOps[op], n.off)
		if op == "~*" || op == "!~*" {
			if e := primaryRight(seq, i+1); e > i+1 {
				seq = splice(seq, i+1, e, synth("pg_icase(", seq[i+1:e], ")", seq[i+1].off))
			}
		}
	}
	return seq
}

// targetEnds are the words that may follow SELECT [ALL] when the target
// list is empty.
var targetEnds = wordSet(`from where group having window order limit offset fetch for union intersect except into`)

// emptyTargets writes an empty target list (a bare SELECT, SELECT FROM
// t, EXISTS (SELECT FROM t WHERE ...)), which TiDB's grammar lacks, as
// the single target pg_no_columns(); the binder yields no columns.
func emptyTargets(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isWord("select") || at(seq, i-1).isWord("as") {
			continue
		}
		j := i + 1
		if at(seq, j).isWord("all") {
			j++
		}
		if next := at(seq, j); next == nil || next.isOp(";") || targetEnds[next.word()] {
			seq = splice(seq, j, j, textNode("pg_no_columns()", seq[i].off))
		}
	}
	return seq
}

// similarTo rewrites a [NOT] SIMILAR TO p [ESCAPE e] into a [NOT] REGEXP
// pg_similar_to_escape((p)[, (e)]), which the binder binds as
// similar_to_escape(p[, e]), PostgreSQL's own translation of the pattern
// into a regular expression. The operands run to the next
// operator of lower precedence than SIMILAR (genericOps has already
// grouped the Op-precedence ones).
func (b *bridge) similarTo(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isWord("similar") || !at(seq, i+1).isWord("to") {
			continue
		}
		e := b.operandEnd(seq, i+2)
		if e == i+2 {
			continue // TiDB reports the syntax error
		}
		args := []*node{group(append([]*node{}, seq[i+2:e]...), seq[i+2].off)}
		if at(seq, e).isWord("escape") {
			e2 := b.operandEnd(seq, e+1)
			if e2 == e+1 {
				continue
			}
			args = append(args, leafOp(",", seq[e].off), group(append([]*node{}, seq[e+1:e2]...), seq[e+1].off))
			e = e2
		}
		seq = splice(seq, i, e, textNode("regexp", seq[i].off), synth("pg_similar_to_escape(", args, ")", patternOpOff(seq, i)))
	}
	return seq
}

// patternOpOff is the source offset of the pattern operator at seq[i]
// (LIKE, ILIKE, SIMILAR): that of NOT when NOT comes before it, as
// PostgreSQL's errors point there.
func patternOpOff(seq []*node, i int) int {
	if p := at(seq, i-1); p.isWord("not") {
		return p.off
	}
	return seq[i].off
}

// likeEscape rewrites a [NOT] LIKE|ILIKE p ESCAPE e into a [NOT]
// LIKE|ILIKE pg_like_escape((p), (e)), which the binder binds as
// PostgreSQL's grammar does, x ~~ like_escape(p, e): the escape is any
// expression (a column, NULL, a multi-byte character), where TiDB's
// grammar takes a one-byte string only; like_escape checks it (22025 for
// more than one character). The call stands at the operator's [NOT]
// LIKE, where PostgreSQL reports its errors. The operands run to the next
// operator of lower precedence than ESCAPE, as in similarTo. The
// operators ~~, !~~, ~~* and !~~* (regexOps's text) take no ESCAPE: it
// is 42601 there, as in PostgreSQL.
func (b *bridge) likeEscape(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if w := seq[i].word(); w != "like" && w != "ilike" && w != "not like" && w != "not ilike" {
			continue
		}
		if quantifierAt(seq, i+1) {
			continue // x LIKE ANY (...) takes no ESCAPE: TiDB reports it
		}
		e := b.operandEnd(seq, i+1)
		if e == i+1 || !at(seq, e).isWord("escape") {
			continue
		}
		if seq[i].kind != nLeaf {
			// PostgreSQL reads ESCAPE as a column label here.
			b.fail(b.syntaxError(at(seq, e+1).offOr(seq[e].off)))
		}
		e2 := b.operandEnd(seq, e+1)
		if e2 == e+1 {
			continue // TiDB reports the syntax error
		}
		args := []*node{group(append([]*node{}, seq[i+1:e]...), seq[i+1].off), leafOp(",", seq[e].off),
			group(append([]*node{}, seq[e+1:e2]...), seq[e+1].off)}
		seq = splice(seq, i+1, e2, synth("pg_like_escape(", args, ")", patternOpOff(seq, i)))
	}
	return seq
}

// isSubquery reports whether a group's contents are a query.
func isSubquery(kids []*node) bool {
	if len(kids) == 0 {
		return false
	}
	switch kids[0].word() {
	case "select", "with", "values", "table":
		return true
	}
	return kids[0].isParen() && isSubquery(kids[0].kids)
}

// boundaryWords end an operand scan for IS DISTINCT FROM and = ANY:
// lower-precedence operators and clause keywords.
var boundaryWords = wordSet(`and or not where on when then else select having set from by as returning distinct all
	union intersect except limit offset with using join straight_join group order window into values is
	asc desc nulls filter over partition rows range`)

// scanBack returns the start of the operand that ends before seq[i].
func scanBack(seq []*node, i int, stopCompare bool) int {
	k := i - 1
	for ; k >= 0; k-- {
		n := seq[k]
		// A CASE reached here (not skipped with its END) starts the
		// operand: CASE a IS DISTINCT FROM b WHEN ...
		if n.isOp(",") || n.isOp(";") || boundaryWords[n.word()] && n.word() != "end" || n.isWord("case") {
			break
		}
		if n.isWord("end") {
			if c := matchCaseLeft(seq, k); c >= 0 {
				k = c
				continue
			}
		}
		if stopCompare && n.kind == nLeaf && n.tok.Kind == TOp && compareOps[n.tok.Val] {
			break
		}
	}
	return k + 1
}

var compareOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// scanForward returns the end of the operand that starts at seq[i].
func scanForward(seq []*node, i int) int {
	k := i
	for ; k < len(seq); k++ {
		n := seq[k]
		if n.isOp(",") || n.isOp(";") || boundaryWords[n.word()] || n.isWord("end") || k > i && adjacent(seq[k-1], n) {
			break
		}
		if n.isWord("case") {
			if e := matchEndRight(seq, k); e > 0 {
				k = e - 1
				continue
			}
		}
	}
	return k
}

// anyOps rewrites `x = ANY (expr)` whose operand is not a subquery into
// pg_any_eq(x, (expr)), and the other comparisons `x op ANY|SOME|ALL
// (expr)` into pg_any(x, 'op', (expr)) / pg_all(x, 'op', (expr)). The
// pattern-matching operators (~ ~* !~ !~* ~~ !~~ ~~* !~~* and [NOT] LIKE,
// [NOT] ILIKE, which TiDB's grammar has no quantified form of) are
// written the same way with the operator's name, over a subquery too:
// pg_any(x, '~~', pg_array_subquery((subquery))), which the binder reads
// as x ~~ ANY (subquery).
func (b *bridge) anyOps(seq []*node) []*node {
	for i := 1; i < len(seq); i++ {
		n, g, op := seq[i], at(seq, i+1), seq[i-1]
		w := n.word()
		if !(w == "any" || w == "some" || w == "all") || !g.isParen() {
			continue
		}
		name, opStart := patternOpAt(seq, i-1)
		if name == "" {
			if isSubquery(g.kids) || op.kind != nLeaf || op.tok.Kind != TOp || !compareOps[op.tok.Val] {
				continue
			}
			name, opStart = op.tok.Val, i-1
		}
		s := scanBack(seq, opStart, true)
		if s >= opStart {
			continue
		}
		fn := "pg_any_eq("
		// The first comma stands for the operator: errors of the
		// comparison point there, as PostgreSQL's do.
		kids := append(append([]*node{}, seq[s:opStart]...), leafOp(",", seq[opStart].off))
		if w == "all" || name != "=" {
			fn = "pg_any("
			if w == "all" {
				fn = "pg_all("
			}
			kids = append(kids, textNode(quoteString(name), seq[opStart].off), leafOp(",", n.off))
		}
		if isSubquery(g.kids) {
			g = synth("pg_array_subquery(", []*node{g}, ")", g.off)
		}
		kids = append(kids, g)
		seq = splice(seq, s, i+2, synth(fn, kids, ")", seq[s].off))
		i = s
	}
	return seq
}

// quantifierAt reports whether seq[i] is ANY, SOME or ALL before a
// parenthesized operand: the operator before it is quantified.
func quantifierAt(seq []*node, i int) bool {
	switch at(seq, i).word() {
	case "any", "some", "all":
		return at(seq, i+1).isParen()
	}
	return false
}

// likeOps name the operators of [NOT] LIKE and [NOT] ILIKE.
var likeOps = map[string]string{"like": "~~", "not like": "!~~", "ilike": "~~*", "not ilike": "!~~*"}

// patternOpAt returns the pattern-matching operator that ends at seq[k]
// (~, !~*, ..., LIKE, NOT ILIKE, ...) by its operator name, and the
// index it starts at; "" when there is none.
func patternOpAt(seq []*node, k int) (string, int) {
	n := at(seq, k)
	switch {
	case n == nil:
		return "", k
	case n.kind == nText && regexOps[n.text] != "":
		return n.text, k
	case n.isWord("like") || n.isWord("ilike"):
		if at(seq, k-1).isWord("not") {
			return likeOps["not "+n.word()], k - 1
		}
		return likeOps[n.word()], k
	}
	return "", k
}

// powers rewrites a ^ b (Postgres's exponentiation; TiDB reads ^ as XOR)
// into power(a, b) over the adjacent primaries, left-associative.
func (b *bridge) powers(seq []*node) []*node {
	if !b.strict {
		// Text the bridge wrote has no ^ but the XOR it wrote for #.
		return seq
	}
	for i := 0; i < len(seq); i++ {
		if !seq[i].isOp("^") {
			continue
		}
		s, e := primaryLeft(seq, i), primaryRight(seq, i+1)
		if s < 0 || e < 0 {
			continue
		}
		// A unary minus or plus binds tighter than ^ (gram.y: UMINUS
		// above '^'): -2 ^ 2 is (-2) ^ 2.
		for (at(seq, s-1).isOp("-") || at(seq, s-1).isOp("+")) && !endsOperand(at(seq, s-2)) {
			s--
		}
		kids := append(append(b.caseSpan(seq[s:i]), leafOp(",", seq[i].off)), b.caseSpan(seq[i+1:e])...)
		kids = append([]*node{textNode("'^'", seq[s].off), leafOp(",", seq[s].off)}, kids...)
		seq = splice(seq, s, e, synth("pg_op(", kids, ")", seq[s].off))
		i = s
	}
	return seq
}

// distinctFrom rewrites a IS [NOT] DISTINCT FROM b into the null-safe
// comparison <=>.
func (b *bridge) distinctFrom(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isWord("is") {
			continue
		}
		j, not := i+1, false
		if at(seq, j).isWord("not") {
			j, not = j+1, true
		}
		if !at(seq, j).isWord("distinct") || !at(seq, j+1).isWord("from") {
			continue
		}
		s, e := scanBack(seq, i, false), scanForward(seq, j+2)
		if s == i || e == j+2 {
			continue
		}
		// The operands may hold IS DISTINCT FROM of their own (inside
		// CASE ... END).
		l := b.distinctFrom(append([]*node{}, seq[s:i]...))
		r := b.distinctFrom(append([]*node{}, seq[j+2:e]...))
		kids := append(append(l, textNode(") <=> (", seq[i].off)), r...)
		open, cl := "((", "))"
		if !not {
			open = "not ((" // IS DISTINCT FROM is the negated null-safe equality
		}
		seq = splice(seq, s, e, synth(open, kids, cl, seq[s].off))
		i = s
	}
	return seq
}

// betweenSymmetric rewrites x [NOT] BETWEEN SYMMETRIC lo AND hi into x
// [NOT] BETWEEN pg_between_symmetric(lo) AND hi, which the binder reads
// as Postgres does (x BETWEEN lo AND hi OR x BETWEEN hi AND lo), and
// drops ASYMMETRIC, the default. The lower bound runs to the first AND
// of its level: Postgres's grammar takes no AND inside it.
func (b *bridge) betweenSymmetric(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isWord("between") {
			continue
		}
		seq = b.betweenLower(seq, i)
		switch {
		case at(seq, i+1).isWord("asymmetric"):
			seq = splice(seq, i+1, i+2)
		case at(seq, i+1).isWord("symmetric"):
			k := betweenAnd(seq, i+2)
			if k < 0 {
				k = len(seq)
			}
			if k == i+2 {
				// No lower bound: TiDB's error is at the AND, as
				// Postgres's.
				seq = splice(seq, i+1, i+2)
				continue
			}
			// Without an AND the bound still goes into the marker, so
			// the error is at the end of the input, as Postgres's.
			seq = splice(seq, i+1, k, synth("pg_between_symmetric(", append([]*node{}, seq[i+2:k]...), ")", seq[i+1].off))
		}
	}
	return seq
}

// betweenLower checks the lower bound of the BETWEEN at seq[i], which
// PostgreSQL reads as a b_expr up to the first AND: no COLLATE, AT TIME
// ZONE, IS NULL, LIKE, ... there without parentheses. TiDB's grammar
// takes no comparison there either, which b_expr has: a bound with one
// is put in parentheses.
func (b *bridge) betweenLower(seq []*node, i int) []*node {
	s := i + 1
	if at(seq, s).isWord("symmetric") || at(seq, s).isWord("asymmetric") {
		s++
	}
	k := betweenAnd(seq, s)
	if k <= s {
		// No AND (TiDB's error is at the end, as PostgreSQL's) or no
		// bound (TiDB's error is at the AND).
		return seq
	}
	if ts, te := b.spanToks(seq, s, k); bExprStop(b.toks, ts, te, false) >= 0 {
		b.fail(b.syntaxErrorTok(bExprStop(b.toks, ts, te, false)))
		return seq
	}
	for _, n := range seq[s:k] {
		if n.kind == nLeaf && n.tok.Kind == TOp && comparisonOps[n.tok.Val] {
			return splice(seq, s, k, synth("(", append([]*node{}, seq[s:k]...), ")", seq[s].off))
		}
	}
	return seq
}

// betweenAnd returns the index of the AND ending a BETWEEN bound that
// starts at seq[s] (skipping CASE ... END), or -1.
func betweenAnd(seq []*node, s int) int {
	depth := 0
	for k := s; k < len(seq); k++ {
		switch {
		case seq[k].isWord("case"):
			depth++
		case seq[k].isWord("end") && depth > 0:
			depth--
		case seq[k].isWord("and") && depth == 0:
			return k
		}
	}
	return -1
}

// comparisonOps are the comparison operators of b_expr.
var comparisonOps = map[string]bool{"=": true, "<": true, ">": true, "<=": true, ">=": true, "<>": true, "!=": true}

// nullsOrder rewrites ORDER BY e [ASC|DESC] NULLS FIRST|LAST.
func (b *bridge) nullsOrder(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		if !seq[i].isWord("nulls") || !(at(seq, i+1).isWord("first") || at(seq, i+1).isWord("last")) {
			continue
		}
		fn := "pg_nulls_" + seq[i+1].word() + "("
		e := i
		var dir []*node
		if w := at(seq, i-1).word(); w == "asc" || w == "desc" {
			e, dir = i-1, []*node{seq[i-1]}
		}
		s := e
		for s > 0 && !seq[s-1].isOp(",") && !seq[s-1].isWord("by") {
			s--
		}
		if s == e {
			continue
		}
		repl := append([]*node{synth(fn, seq[s:e], ")", seq[s].off)}, dir...)
		seq = splice(seq, s, i+2, repl...)
		i = s
	}
	return seq
}

// fromEnd are the words that end a FROM clause.
var fromEnd = wordSet(`where group having order limit offset window union intersect except for fetch on using
	returning set values`)

// fromItems replaces table functions in FROM with placeholder tables and
// moves derived-table column alias lists into Query.Aliases.
func (b *bridge) fromItems(seq []*node) []*node {
	inFrom, itemStart, sawSelect := false, false, false
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		w := n.word()
		switch {
		case w == "select" || w == "update" || w == "delete":
			sawSelect = true
			inFrom = false
			continue
		case w == "from" && sawSelect:
			inFrom, itemStart = true, true
			continue
		case !inFrom:
			continue
		case w == "join" || w == "straight_join" || w == "lateral" || n.isOp(","):
			itemStart = true
			continue
		case w == "on" || w == "using":
			itemStart = false
			continue
		case fromEnd[w] && n.kind != nLeaf || fromEnd[w] && n.tok.Kind == TIdent:
			inFrom = false
			continue
		}
		if !itemStart {
			continue
		}
		if rowsFrom, end := b.rowsFrom(seq, i); rowsFrom != nil {
			// ROWS FROM (f(a), g(b)) runs its functions in lockstep, the
			// shorter padded with NULL, as set-returning functions in a
			// select list do: it is the derived table (SELECT f(a),
			// g(b)), named __weir_rows unless it has an alias.
			repl := []*node{rowsFrom}
			lateral := i > 0 && (seq[i-1].isOp(",") || seq[i-1].isWord("join") || seq[i-1].isWord("straight_join"))
			if lateral {
				// Its functions may read the items before it, as any
				// function in FROM: a LATERAL derived table.
				repl = append([]*node{textNode("lateral", n.off)}, repl...)
			}
			if a := at(seq, end); !a.isWord("as") && !(a.isName() && !(a.tok.Kind == TIdent && (fromEnd[a.word()] || notOperands[a.word()] || joinWords[a.word()]))) {
				repl = append(repl, &node{kind: nLeaf, tok: Token{Kind: TQIdent, Val: "__weir_rows", Off: n.off, End: n.off}, off: n.off})
			}
			seq = splice(seq, i, end, repl...)
			if lateral {
				i++
			}
			n = seq[i]
			w = ""
		}
		if w == "only" && n.tok.Kind == TIdent && at(seq, i+1).isName() && !at(seq, i+2).isParen() {
			// FROM ONLY t: weir has no inheritance, so ONLY changes
			// nothing.
			seq = splice(seq, i, i+1)
			i--
			continue
		}
		itemStart = false
		// The item's primary: a function call, a derived table or a name.
		e := i
		isCall := false
		switch {
		case n.isName():
			e = i + 1
			for at(seq, e).isOp(".") && at(seq, e+1).isName() {
				e += 2
			}
			if at(seq, e).isParen() {
				isCall = true
				e++
			}
		case n.isParen():
			e = i + 1
		default:
			continue
		}
		// FOR SYSTEM_TIME AS OF expr (a temporal join's lookup side,
		// RisingWave's and Flink's syntax) goes after the alias, as TiDB's
		// AS OF TIMESTAMP expr, which the binder reads from the table
		// name. Only a call is taken for expr (PROCTIME() is the one the
		// binder accepts).
		var asOf []*node
		if !isCall && n.isName() && at(seq, e).isWord("for") && at(seq, e+1).isWord("system_time") {
			k := e + 2
			if !at(seq, k).isWord("as") {
				b.fail(b.syntaxError(at(seq, k).offOr(len(b.src) + 1)))
				return seq
			}
			if !at(seq, k+1).isWord("of") {
				b.fail(b.syntaxError(at(seq, k+1).offOr(len(b.src) + 1)))
				return seq
			}
			if !at(seq, k+2).isName() || !at(seq, k+3).isParen() {
				b.fail(b.syntaxError(at(seq, k+2).offOr(len(b.src) + 1)))
				return seq
			}
			asOf = []*node{textNode("as", seq[e].off), textNode("of", seq[e].off), textNode("timestamp", seq[e].off), seq[k+2], seq[k+3]}
			seq = splice(seq, e, k+4)
		}
		// WITH ORDINALITY after a call: TVF.Ordinality.
		ordinality := false
		if isCall && at(seq, e).isWord("with") && at(seq, e+1).isWord("ordinality") {
			ordinality = true
			seq = splice(seq, e, e+2)
		}
		// The alias: [AS] name [(columns)].
		a := e
		alias, aliasNode := "", (*node)(nil)
		if at(seq, a).isWord("as") {
			a++
		}
		if an := at(seq, a); an.isName() && !(an.tok.Kind == TIdent && (fromEnd[an.word()] || notOperands[an.word()] && !aliasWords[an.word()] || joinWords[an.word()])) {
			alias, aliasNode = an.nameVal(), an
			a++
		} else {
			a = e
		}
		var cols []string
		colsEnd := a
		if aliasNode != nil && at(seq, a).isParen() {
			for _, part := range splitCommas(seq[a].kids) {
				if len(part) == 1 && part[0].isName() {
					cols = append(cols, part[0].nameVal())
				}
			}
			colsEnd = a + 1
		}
		if isCall {
			call := seq[e-1]
			name := seq[e-2].nameVal()
			b.q.TVFs = ensureTVFs(b.q.TVFs)
			tvf := &TVF{Name: strings.ToLower(name), Alias: alias, Columns: cols, Ordinality: ordinality}
			if len(call.kids) > 0 {
				args := splitCommas(call.kids)
				for k, arg := range args {
					if len(arg) == 0 {
						// Point at the token after the comma (or the "(")
						// that precedes the empty argument.
						off := call.off
						if k > 0 && len(args[k-1]) > 0 {
							off = b.nextTokenOff(args[k-1][len(args[k-1])-1].off)
						}
						b.fail(b.syntaxErrorAfter(off))
						return seq
					}
				}
				sel := []*node{textNode("select", call.off)}
				for k, arg := range args {
					ae := &emitter{}
					ae.seq(arg)
					tvf.ArgText = append(tvf.ArgText, ae.b.String())
					if k > 0 {
						sel = append(sel, leafOp(",", arg[0].off))
					}
					sel = append(sel, arg...)
				}
				stmt, _, err := b.parse(sel)
				if err != nil {
					b.fail(err)
					return seq
				}
				for _, f := range stmt.(*ast.SelectStmt).Fields.Fields {
					tvf.Args = append(tvf.Args, f.Expr)
				}
				tvf.Map = b.lastMap
			}
			key := fmt.Sprintf("__weir_tvf_%d", len(b.q.TVFs)+1)
			b.q.TVFs[key] = tvf
			repl := []*node{textNode(quoteIdent(key), n.off)}
			if aliasNode != nil {
				repl = append(repl, textNode("as", aliasNode.off), aliasNode)
			}
			if i > 0 && at(seq, i-1).isWord("lateral") {
				// A function in FROM sees the items before it with or
				// without LATERAL (the binder's join).
				i--
				tvf.Lateral = true
			}
			seq = splice(seq, i, colsEnd, repl...)
			i += len(repl) - 1
			continue
		}
		if cols != nil {
			if b.q.Aliases == nil {
				b.q.Aliases = map[string][]string{}
			}
			b.q.Aliases[alias] = cols
			seq = splice(seq, a, colsEnd)
		}
		if asOf != nil {
			seq = splice(seq, a, a, asOf...)
			a += len(asOf)
		} else if !b.strict && at(seq, a).isWord("as") && at(seq, a+1).isWord("of") && at(seq, a+2).isWord("timestamp") {
			// Text the bridge wrote, parsed again: its AS OF stays.
			for k := a; k < a+3; k++ {
				seq[k] = textNode(seq[k].word(), seq[k].off)
			}
			a += 3
		}
		i = a - 1
	}
	return seq
}

// rowsFrom returns, for ROWS FROM (calls) at seq[i] or unnest(a, b, ...)
// with more than one argument, the group (SELECT calls) that stands for
// it (unnest of each array for unnest) and the index after it; nil when
// seq[i] starts neither. WITH ORDINALITY after it is 0A000.
func (b *bridge) rowsFrom(seq []*node, i int) (*node, int) {
	n := seq[i]
	var calls []*node
	end := 0
	switch {
	case n.isWord("rows") && at(seq, i+1).isWord("from") && at(seq, i+2).isParen():
		calls, end = seq[i+2].kids, i+3
	case n.isName() && strings.EqualFold(n.nameVal(), "unnest") && at(seq, i+1).isParen() && len(splitCommas(seq[i+1].kids)) > 1:
		for k, arg := range splitCommas(seq[i+1].kids) {
			if k > 0 {
				calls = append(calls, leafOp(",", arg[0].off))
			}
			calls = append(calls, textNode("unnest", arg[0].off), &node{kind: nGroup, open: "(", close: ")", kids: arg, off: arg[0].off})
		}
		end = i + 2
	default:
		return nil, 0
	}
	if at(seq, end).isWord("with") && at(seq, end+1).isWord("ordinality") {
		b.fail(pgerr.New(pgerr.FeatureNotSupported, "WITH ORDINALITY over ROWS FROM or unnest of several arrays is not supported").
			WithPosition(charPos(b.src, seq[end].off)))
		return nil, 0
	}
	// Two calls of one function name two columns alike, which the
	// derived table does not tell apart: they need column aliases.
	a := end
	if at(seq, a).isWord("as") {
		a++
	}
	if !(at(seq, a).isName() && at(seq, a+1).isParen()) {
		seen := map[string]bool{}
		for _, c := range splitCommas(calls) {
			name := ""
			if len(c) > 0 {
				name = strings.ToLower(c[0].nameVal() + c[0].text)
			}
			if seen[name] {
				b.fail(pgerr.New(pgerr.FeatureNotSupported, "ROWS FROM or unnest with two calls of %s is supported only with column aliases", name).
					WithPosition(charPos(b.src, n.off)))
				return nil, 0
			}
			seen[name] = true
		}
	}
	// SQL_SMALL_RESULT, a no-op, marks the query as ROWS FROM's, so
	// that a view's definition prints it as written.
	kids := append([]*node{textNode("select sql_small_result", n.off)}, calls...)
	return &node{kind: nGroup, open: "(", close: ")", kids: kids, off: n.off}, end
}

var joinWords = wordSet(`join inner left right full cross natural straight_join outer lateral`)

func ensureTVFs(m map[string]*TVF) map[string]*TVF {
	if m == nil {
		return map[string]*TVF{}
	}
	return m
}

// values rewrites a standalone VALUES list into SELECT ... UNION ALL, and
// INSERT ... DEFAULT VALUES into INSERT ... () VALUES ().
func (b *bridge) values(seq []*node) []*node {
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if n.isWord("default") && at(seq, i+1).isWord("values") && at(seq, i+2) == nil {
			return splice(seq, i, i+2, textNode("()", n.off), textNode("values", n.off), textNode("()", n.off))
		}
		if !n.isWord("values") || !at(seq, i+1).isParen() {
			continue
		}
		if i > 0 {
			switch seq[i-1].word() {
			case "union", "intersect", "except", "all", "distinct":
			default:
				continue
			}
		}
		var out []*node
		j := i + 1
		for r := 0; ; r++ {
			row := seq[j]
			if srf := findSRF(row.kids); srf != nil {
				// The rows become select lists, where SRFs are allowed;
				// PostgreSQL refuses them in VALUES.
				b.fail(pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in VALUES").WithPosition(charPos(b.src, srf.off)))
				return seq
			}
			if r > 0 {
				out = append(out, textNode("union all", row.off))
			}
			// SQL_NO_CACHE, a no-op, marks the SELECT as a VALUES row
			// (sql/doc.go #16).
			out = append(out, textNode("select sql_no_cache", row.off))
			for c, col := range splitCommas(row.kids) {
				if len(col) == 0 {
					col = []*node{textNode("", row.off)}
				}
				if c > 0 {
					out = append(out, leafOp(",", col[0].off))
				}
				out = append(out, col...)
				if r == 0 {
					out = append(out, textNode(fmt.Sprintf("as column%d", c+1), row.off))
				}
			}
			j++
			if !(at(seq, j).isOp(",") && at(seq, j+1).isParen()) {
				break
			}
			j++
		}
		seq = splice(seq, i, j, out...)
		i += len(out) - 1
	}
	return seq
}

// syntaxFuncs are the function-like keywords of PostgreSQL's grammar
// whose arguments are an expression list: no argument there is named.
var syntaxFuncs = wordSet(`coalesce greatest least nullif extract position substring trim overlay cast treat row
	array grouping normalize collation xmlconcat xmlelement xmlexists xmlforest xmlparse xmlpi xmlroot xmlserialize`)

// namedCallable reports whether a "(" after n opens the arguments of an
// ordinary function call, where PostgreSQL takes named arguments.
func namedCallable(n *node) bool {
	switch {
	case n == nil || n.kind != nLeaf:
		return false
	case n.tok.Kind == TQIdent:
		return true
	case n.tok.Kind == TIdent:
		w := n.word()
		return !notFunctions[w] && !notOperands[w] && !syntaxFuncs[w]
	}
	return false
}

// namedArgs rewrites the arguments name => value and name := value of a
// call into pg_named_arg('name', value) (doc.go #43); the binder matches
// the names against the function's parameters. A positional argument
// after a named one and a name used twice are 42601, as PostgreSQL's
// parse analysis says.
func (b *bridge) namedArgs(kids []*node) []*node {
	all := kids
	var tail []*node
	if slices.ContainsFunc(kids, func(n *node) bool { return n.isWord("variadic") }) {
		// VARIADIC x ORDER BY k: the ORDER BY is the call's (rewrite
		// 7b), not part of x.
		for k := 1; k+1 < len(kids); k++ {
			if kids[k].isWord("order") && kids[k+1].isWord("by") {
				kids, tail = kids[:k], kids[k:]
				break
			}
		}
	}
	parts := splitCommas(kids)
	named, variadic := false, false
	seen := map[string]bool{}
	var out []*node
	for k, p := range parts {
		if k > 0 {
			out = append(out, leafOp(",", at(p, 0).offOr(0)))
		}
		if len(p) == 1 && p[0].isWord("variadic") {
			b.fail(b.syntaxErrorAfter(p[0].off))
		}
		if len(p) >= 2 && p[0].isWord("variadic") {
			// VARIADIC ends the argument list in PostgreSQL's grammar: a
			// comma after its argument is the syntax error.
			if k < len(parts)-1 {
				commas := 0
				for _, n := range kids {
					if n.isOp(",") {
						if commas == k {
							b.fail(b.syntaxError(n.off))
						}
						commas++
					}
				}
			}
			variadic = true
			p = p[1:]
			if len(p) >= 3 && p[0].isName() && (p[1].isOp("=>") || p[1].isOp(":=")) {
				p = []*node{p[0], p[1], textNode("pg_variadic", p[2].off), group(p[2:], p[2].off)}
			} else {
				p = []*node{textNode("pg_variadic", p[0].off), group(p, p[0].off)}
			}
		}
		if len(p) >= 3 && p[0].isName() && (p[1].isOp("=>") || p[1].isOp(":=")) {
			name := p[0].nameVal()
			if seen[name] {
				b.fail(pgerr.New(pgerr.SyntaxError, "argument name \"%s\" used more than once", name).WithPosition(charPos(b.src, p[0].off)))
			}
			seen[name], named = true, true
			lit := &node{kind: nLeaf, tok: Token{Kind: TString, Val: name, Off: p[0].off, End: p[0].tok.End}, off: p[0].off}
			args := append([]*node{lit, leafOp(",", p[1].off)}, p[2:]...)
			out = append(out, textNode("pg_named_arg", p[0].off), group(args, p[0].off))
			continue
		}
		if named && len(p) > 0 {
			b.fail(pgerr.New(pgerr.SyntaxError, "positional argument cannot follow named argument").WithPosition(charPos(b.src, p[0].off)))
		}
		out = append(out, p...)
	}
	if !named && !variadic {
		return all
	}
	return append(out, tail...)
}

// hasNamedArg reports whether the argument group g has a named argument
// (rewritten by namedArgs).
func hasNamedArg(g *node) bool {
	for _, k := range g.kids {
		if k.kind == nText && k.text == "pg_named_arg" {
			return true
		}
	}
	return false
}
