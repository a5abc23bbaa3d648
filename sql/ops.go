package sql

import "github.com/weirdb/weir/internal/pgerr"

// PostgreSQL's grammar gives every operator that is not + - * / % ^ or a
// comparison one precedence, "Op" (gram.y: %left Op OPERATOR), below
// + and - and above the comparisons, all left-associative: 4 | 1 & 2 is
// (4 | 1) & 2, 'a' || 1 + 1 is 'a' || 2, 1 | 2 << 1 is (1 | 2) << 1.
// TiDB ranks || & | << >> apart and reads # as a comment, so genericOps
// writes each such operator with its operands parenthesised as
// PostgreSQL groups them:
//
//	a # b          ((a) ^ (b))        TiDB's ^ is XOR; the binder binds it as #
//	a || b         ((a) || (b))       likewise & | << >>
//	a && b         pg_array_overlap((a), (b))   TiDB's && is AND
//	a ^@ b         pg_starts_with((a), (b))
//	a #- b         pg_json_delete_path((a), (b))
//	~ a            (~ (a))            bitwise not (the binary ~ is rewrite 11)
//	@ a            pg_op('@', (a))    abs(a), labelled and printed as @ a
//	|/ a           pg_op('|/', (a))   sqrt(a) of a double precision a
//	||/ a          pg_op('||/', (a))  cbrt(a) likewise
//
// A prefix operator in a binary one's place, or the reverse, names no
// operator PostgreSQL has: 42883. Any other operator PostgreSQL's lexer
// forms (<=>, !, `, ...) is one weir has not got; it is grouped the same
// way and written pg_op('<=>', (a), (b)), which the binder refuses with
// the operands' types (42883, "operator does not exist: integer <=>
// integer"), after the names around it are resolved, as PostgreSQL does.

// binaryOps are the binary operators of precedence Op.
var binaryOps = map[string]bool{"||": true, "&": true, "|": true, "#": true, "<<": true, ">>": true, "&&": true,
	"^@": true, "#-": true}

// prefixOps are the prefix operators of precedence Op.
var prefixOps = map[string]bool{"~": true, "@": true, "|/": true, "||/": true}

// binaryOnly are operators PostgreSQL has only between two operands
// (besides binaryOps); in a prefix place they name no operator.
var binaryOnly = wordSet(`~~ !~~ ~~* !~~* !~ ~* !~* -> ->> #> #>> @> <@ ? ?| ?& @? @@`)

// tighterOps are the operators that bind tighter than Op and so belong
// to its operands.
var tighterOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, ".": true}

// opStops end an operand of an Op operator: keywords of lower precedence
// and clause keywords.
var opStops = func() map[string]bool {
	m := wordSet(`like ilike similar to between in escape when then else isnull notnull regexp not is`)
	for w := range boundaryWords {
		m[w] = true
	}
	for w := range notOperands {
		m[w] = true
	}
	m["not regexp"], m["not like"], m["not ilike"] = true, true, true
	// The pattern operators regexOps leaves, as text, to anyOps.
	for op := range regexOps {
		m[op] = true
	}
	delete(m, "case")
	return m
}()

// endsOperand reports whether n can end an operand, so that an operator
// after it is binary.
func endsOperand(n *node) bool {
	switch {
	case n == nil:
		return false
	case n.kind == nGroup || n.kind == nSynth:
		return true
	case n.kind == nText:
		return !opStops[n.text] && n.text != "select"
	case n.tok.Kind == TOp:
		return false
	case n.tok.Kind == TIdent:
		return n.tok.Val == "end" || !opStops[n.tok.Val]
	}
	return true
}

// stopsOperand reports whether n ends the scan of an Op operand.
func stopsOperand(n *node) bool {
	switch {
	case n.kind == nLeaf && n.tok.Kind == TOp:
		return !tighterOps[n.tok.Val] && !prefixOps[n.tok.Val]
	case n.kind == nLeaf && n.tok.Kind == TIdent:
		return opStops[n.tok.Val]
	case n.kind == nText:
		return opStops[n.text]
	}
	return false
}

func (b *bridge) opError(n *node) {
	b.fail(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", n.tok.Val).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.").
		WithPosition(charPos(b.src, n.off)))
}

// genericOps rewrites the Op-precedence operators of one level.
func (b *bridge) genericOps(seq []*node) []*node {
	if !b.strict {
		// Text the bridge wrote has these operators grouped already.
		return seq
	}
	for i := 0; i < len(seq); i++ {
		n := seq[i]
		if n.kind == nLeaf && n.tok.Kind == TOp && binaryOnly[n.tok.Val] && !endsOperand(at(seq, i-1)) {
			// A binary operator in a prefix place: the prefix operator
			// of that name weir has not got, named with its operand's
			// type once the operand binds (@@ version: the column
			// first).
			e := b.operandEnd(seq, i+1)
			if e == i+1 {
				b.fail(b.syntaxErrorAfter(n.off))
				return seq
			}
			right := b.lateOps(b.genericOps(append([]*node{}, seq[i+1:e]...)))
			if b.err != nil {
				return seq
			}
			repl := synth("pg_op(", []*node{textNode(quoteString(n.tok.Val), n.off), leafOp(",", n.off), group(right, n.off)}, ")", n.off)
			seq = splice(seq, i, e, repl)
			continue
		}
		unknown := n.kind == nLeaf && n.tok.Kind == TOp && !knownOps[n.tok.Val] && n.tok.Val != ":=" && n.tok.Val != "$"
		if n.kind != nLeaf || n.tok.Kind != TOp || !binaryOps[n.tok.Val] && !prefixOps[n.tok.Val] && !unknown {
			continue
		}
		binary := endsOperand(at(seq, i-1))
		if !unknown && binary != binaryOps[n.tok.Val] {
			b.opError(n)
			return seq
		}
		e := b.operandEnd(seq, i+1)
		if e == i+1 {
			b.fail(b.syntaxErrorAfter(n.off))
			return seq
		}
		right := b.genericOps(append([]*node{}, seq[i+1:e]...))
		if b.err != nil {
			return seq
		}
		// The passes after this one do not look inside the group it
		// makes: give the operands (a CASE ... END holds any expression)
		// to them now.
		right = b.lateOps(right)
		s := i
		var repl *node
		if binary {
			s = operandStart(seq, i)
			left := b.lateOps(append([]*node{}, seq[s:i]...))
			op := leafOp(n.tok.Val, n.off)
			if unknown {
				// An operator weir has not got: the binder names it
				// with its operands' types, as PostgreSQL does.
				repl = synth("pg_op(", []*node{textNode(quoteString(n.tok.Val), seq[s].off), leafOp(",", seq[s].off),
					group(left, seq[s].off), leafOp(",", n.off), group(right, n.off)}, ")", seq[s].off)
			}
			switch n.tok.Val {
			case "#":
				op = textNode("^", n.off)
			case "&&":
				// TiDB's && is AND: the array overlap is a call.
				repl = synth("pg_array_overlap(", []*node{group(left, seq[s].off), leafOp(",", n.off), group(right, n.off)}, ")", seq[s].off)
			case "^@", "#-":
				// Operators TiDB has not got: calls the binder knows.
				fn := map[string]string{"^@": "pg_starts_with(", "#-": "pg_json_delete_path("}[n.tok.Val]
				repl = synth(fn, []*node{group(left, seq[s].off), leafOp(",", n.off), group(right, n.off)}, ")", seq[s].off)
			}
			if repl == nil {
				repl = synth("(", []*node{group(left, seq[s].off), op, group(right, n.off)}, ")", seq[s].off)
			}
		} else {
			switch {
			case unknown:
				repl = synth("pg_op(", []*node{textNode(quoteString(n.tok.Val), n.off), leafOp(",", n.off), group(right, n.off)}, ")", n.off)
			case n.tok.Val == "~":
				repl = synth("(", []*node{leafOp("~", n.off), group(right, n.off)}, ")", n.off)
			case n.tok.Val == "@" || n.tok.Val == "|/" || n.tok.Val == "||/":
				// The function of the operator, which the binder
				// labels and prints as the operator.
				repl = synth("pg_op(", []*node{textNode(quoteString(n.tok.Val), n.off), leafOp(",", n.off), group(right, n.off)}, ")", n.off)
			}
		}
		seq = splice(seq, s, e, repl)
		i = s
	}
	return seq
}

// operandStart returns the start of the left operand of the Op operator
// at seq[i]: it runs back over everything that binds tighter.
func operandStart(seq []*node, i int) int {
	k := i - 1
	for ; k >= 0; k-- {
		n := seq[k]
		if n.isWord("end") {
			if c := matchCaseLeft(seq, k); c >= 0 {
				k = c
				continue
			}
			break
		}
		if n.isOp(",") || n.isOp(";") || stopsOperand(n) {
			break
		}
	}
	return k + 1
}

// operandEnd returns the end of the right operand of an Op operator that
// starts at seq[i].
func (b *bridge) operandEnd(seq []*node, i int) int {
	k := i
	for ; k < len(seq); k++ {
		n := seq[k]
		if n.isWord("case") {
			if e := matchEndRight(seq, k); e > 0 {
				k = e - 1
				continue
			}
			break
		}
		if n.isWord("end") || n.isOp(",") || n.isOp(";") || stopsOperand(n) {
			break
		}
		if n.kind == nLeaf && n.tok.Kind == TOp && binaryOps[n.tok.Val] && endsOperand(at(seq, k-1)) {
			break
		}
		if k > i && adjacent(seq[k-1], n) {
			break
		}
	}
	return k
}

// setOpPrecedence groups the INTERSECT operands of a set operation, which
// PostgreSQL binds tighter than UNION and EXCEPT (TiDB reads them left to
// right): SELECT 1 UNION SELECT 1 INTERSECT SELECT 2 is SELECT 1 UNION
// (SELECT 1 INTERSECT SELECT 2). A run of INTERSECTs that starts at the
// first operand needs no group; ORDER BY, LIMIT, OFFSET and FETCH after
// the last operand stay outside, as they apply to the whole operation.
func (b *bridge) setOpPrecedence(seq []*node) []*node {
	type op struct{ at, next int } // keyword index, its operand's start
	var ops []op
	for i, n := range seq {
		if w := n.word(); n.kind == nLeaf && (w == "union" || w == "intersect" || w == "except") {
			j := i + 1
			if w := at(seq, j).word(); w == "all" || w == "distinct" {
				j++
			}
			ops = append(ops, op{i, j})
		}
	}
	if len(ops) < 2 {
		return seq
	}
	end := len(seq)
	for k := ops[len(ops)-1].next; k < len(seq); k++ {
		if w := seq[k].word(); seq[k].kind == nLeaf && (w == "order" || w == "limit" || w == "offset" || w == "fetch") {
			end = k
			break
		}
	}
	// Right to left, so earlier indices stay valid.
	for k := len(ops) - 1; k >= 1; k-- {
		if !seq[ops[k].at].isWord("intersect") {
			continue
		}
		first := k
		for first > 0 && seq[ops[first-1].at].isWord("intersect") {
			first--
		}
		if first == 0 {
			break
		}
		s := ops[first-1].next
		e := end
		if k+1 < len(ops) {
			e = ops[k+1].at
		}
		seq = splice(seq, s, e, group(append([]*node{}, seq[s:e]...), seq[s].off))
		k = first
	}
	return seq
}

// adjacent reports whether n follows the operand that ends with prev
// without an operator between: n is then a column label (~ a.x c0) or
// the grammar's problem, not part of the operand. A group after a name
// (or after a function name the bridge wrote) is a call's arguments.
func adjacent(prev, n *node) bool {
	if !endsOperand(prev) {
		return false
	}
	switch n.kind {
	case nLeaf:
		return n.tok.Kind != TOp
	case nSynth:
		return true
	case nGroup:
		return !prev.isName() && prev.kind != nText
	}
	return false
}

// lateOps runs the rewrites that come after genericOps in level on an
// operand that genericOps groups.
func (b *bridge) lateOps(seq []*node) []*node {
	seq = b.anyOps(seq)
	seq = b.distinctFrom(seq)
	return b.betweenSymmetric(seq)
}
