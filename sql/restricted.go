package sql

import "github.com/weirdb/weir/internal/pgerr"

// PostgreSQL's grammar takes a restricted expression in a few places
// where a full a_expr would be ambiguous with the words that follow:
//
//	DEFAULT b_expr                    a column constraint (the next
//	                                  constraint may start with NOT)
//	a BETWEEN b_expr AND a_expr       (the first AND ends the bound)
//	FETCH FIRST select_fetch_first_value ROWS
//	OFFSET select_fetch_first_value ROWS
//	                                  c_expr, or + / - before a number
//
// The bridge and the TiDB parser would take any expression there, so the
// checks below find the token where PostgreSQL's parser stops, for a
// 42601 at the same place.

// aExprWords are the keywords of a_expr's operators, which neither b_expr
// nor c_expr has at its top level. NOT, IS and the subquery quantifiers
// are judged on their own.
var aExprWords = wordSet(`and or isnull notnull like ilike similar between in at collate overlaps`)

// notLA are the words after which the lexer turns NOT into NOT_LA, the
// NOT of an infix operator (NOT LIKE, NOT IN, ...), which cannot start a
// column constraint.
var notLA = wordSet(`between in like ilike similar`)

// isWordTok reports whether t is the unquoted word w.
func isWordTok(t Token, w string) bool { return t.Kind == TIdent && t.Val == w }

// tokAt returns toks[i], or the last token (TEOF) past the end.
func tokAt(toks []Token, i int) Token {
	if i >= len(toks) {
		return toks[len(toks)-1]
	}
	return toks[i]
}

// skipGroup returns the index after the group opening at toks[i]: a
// parenthesised or bracketed list, or CASE ... END.
func skipGroup(toks []Token, i int) int {
	depth := 0
	for ; i < len(toks) && toks[i].Kind != TEOF; i++ {
		t := toks[i]
		switch {
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["), isWordTok(t, "case"):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"), isWordTok(t, "end"):
			depth--
		}
		if depth == 0 {
			return i + 1
		}
	}
	return i
}

func opensGroup(t Token) bool {
	return t.Kind == TOp && (t.Val == "(" || t.Val == "[") || isWordTok(t, "case")
}

// bExprStop returns the index of the token of toks[start:end] (or after
// it) where PostgreSQL's parser stops reading a b_expr with a syntax
// error, or -1 when the tokens are a b_expr (as far as their top level
// shows). In a column constraint (constraint set), end is where the next
// constraint starts, and a NOT after the expression starts one.
func bExprStop(toks []Token, start, end int, constraint bool) int {
	operand := true // an operand is expected next
	for k := start; k < end; {
		t := toks[k]
		switch {
		case opensGroup(t):
			k = skipGroup(toks, k)
			operand = false
			continue
		case t.Kind == TOp:
			// "." and "::" are followed by a name; every other operator
			// by an operand.
			operand = t.Val != "::" && t.Val != "."
		case t.Kind != TIdent:
			operand = false
		case aExprWords[t.Val], t.Val == "any", t.Val == "some", t.Val == "all":
			return k
		case t.Val == "not":
			if operand || !constraint || notLA[tokAt(toks, k+1).Val] && tokAt(toks, k+1).Kind == TIdent {
				return k
			}
			// NOT after an operand starts a constraint: NOT NULL or NOT
			// DEFERRABLE, which end the expression before it.
			return k + 1
		case t.Val == "is":
			n := k + 1
			if isWordTok(tokAt(toks, n), "not") {
				n++
			}
			switch {
			case isWordTok(tokAt(toks, n), "distinct"):
				k, operand = n+1, true
				if isWordTok(tokAt(toks, k), "from") {
					k++
				}
				continue
			case isWordTok(tokAt(toks, n), "document"):
				k, operand = n+1, false
				continue
			}
			return n
		default:
			operand = false
		}
		k++
	}
	return -1
}

// fetchFirstStop returns the index of the token of toks[start:end] where
// PostgreSQL's parser stops reading a select_fetch_first_value (a c_expr,
// or + or - before a numeric constant), or -1 when the tokens are one.
// The tokens must not be empty.
func fetchFirstStop(toks []Token, start, end int) int {
	t := toks[start]
	if t.Kind == TOp && (t.Val == "+" || t.Val == "-") {
		if tokAt(toks, start+1).Kind != TNumber || start+1 >= end {
			return start + 1
		}
		if start+2 < end {
			return start + 2
		}
		return -1
	}
	if t.Kind == TOp && !opensGroup(t) {
		return start
	}
	for k := start; k < end; {
		t := toks[k]
		switch {
		case opensGroup(t):
			k = skipGroup(toks, k)
			continue
		case t.Kind == TOp && t.Val != ".":
			return k
		case t.Kind == TIdent && (aExprWords[t.Val] || t.Val == "not" || t.Val == "is" || t.Val == "only" || t.Val == "with"):
			// (ONLY and WITH TIES follow ROWS, which is missing.)
			return k
		}
		k++
	}
	return -1
}

// spanToks returns the range of b.toks the nodes seq[i:j] of one query
// level were built from. j may be len(seq): the range then runs to the
// end of the level (an unmatched ")" or the end of the statement).
func (b *bridge) spanToks(seq []*node, i, j int) (int, int) {
	s := b.tokIndex(seq[i].off)
	if j < len(seq) {
		return s, b.tokIndex(seq[j].off)
	}
	depth := 0
	for k := s; k < len(b.toks); k++ {
		t := b.toks[k]
		switch {
		case t.Kind == TOp && (t.Val == "(" || t.Val == "["):
			depth++
		case t.Kind == TOp && (t.Val == ")" || t.Val == "]"):
			if depth == 0 {
				return s, k
			}
			depth--
		case t.Kind == TOp && t.Val == ";" && depth == 0:
			return s, k
		}
	}
	return s, len(b.toks)
}

// tokIndex returns the index of the first token at or after source
// offset off (len(b.toks) if none).
func (b *bridge) tokIndex(off int) int {
	for k, t := range b.toks {
		if t.Off >= off {
			return k
		}
	}
	return len(b.toks)
}

// syntaxErrorTok is the syntax error at b.toks[k], or at what follows
// the statement when k is past its last token.
func (b *bridge) syntaxErrorTok(k int) *pgerr.Error {
	if k < len(b.toks) {
		return syntaxErrorAt(b.src, b.toks[k])
	}
	return b.syntaxError(len(b.src) + 1)
}
