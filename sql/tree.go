package sql

// node is one element of the bridge's token tree: a token, a bracketed
// group of nodes (real parentheses or brackets from the text), or a
// synthesized node standing for rewritten text.
type node struct {
	kind nodeKind
	tok  Token // nLeaf; for nGroup the opening token
	// text is the emitted text of an nText node.
	text string
	// open and close wrap kids for nGroup ("(" ")" or "[" "]") and
	// nSynth (e.g. "pg_cast(" and ", 'integer')").
	open, close string
	kids        []*node
	// closeOff, when closeAt is set, is the source offset close stands
	// for instead of off (a cast's type, written after its operand).
	closeOff int
	closeAt  bool
	// off is the source byte offset the node stands for (for error
	// positions); first and last are the token indices it covers.
	off         int
	first, last int
}

type nodeKind uint8

const (
	nLeaf  nodeKind = iota
	nGroup          // real ( ) or [ ] group
	nSynth          // rewritten atom: open + kids + close
	nText           // rewritten text without kids
)

// buildTree nests toks[i:] (TEOF excluded) at parentheses and brackets.
// An unmatched closing token stays a leaf; an unclosed group runs to the
// end (the TiDB parser then reports the error).
func buildTree(toks []Token) []*node {
	var stack [][]*node
	var cur []*node
	var opens []*node
	for i, t := range toks {
		if t.Kind == TEOF {
			break
		}
		if t.Kind == TOp && (t.Val == "(" || t.Val == "[") {
			g := &node{kind: nGroup, tok: t, off: t.Off, first: i, open: t.Val}
			if t.Val == "(" {
				g.close = ")"
			} else {
				g.close = "]"
			}
			stack = append(stack, cur)
			opens = append(opens, g)
			cur = nil
			continue
		}
		if t.Kind == TOp && (t.Val == ")" || t.Val == "]") && len(opens) > 0 && opens[len(opens)-1].close == t.Val {
			g := opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			g.kids, g.last = cur, i
			cur = append(stack[len(stack)-1], g)
			stack = stack[:len(stack)-1]
			continue
		}
		cur = append(cur, &node{kind: nLeaf, tok: t, off: t.Off, first: i, last: i})
	}
	for len(opens) > 0 {
		g := opens[len(opens)-1]
		opens = opens[:len(opens)-1]
		g.kids = cur
		g.close = "" // unclosed: emit without the closing token
		g.last = g.first
		if len(cur) > 0 {
			g.last = cur[len(cur)-1].last
		}
		cur = append(stack[len(stack)-1], g)
		stack = stack[:len(stack)-1]
	}
	return cur
}

// word returns the lower-case word of an unquoted identifier leaf, or "".
func (n *node) word() string {
	if n != nil && n.kind == nLeaf && n.tok.Kind == TIdent {
		return n.tok.Val
	}
	if n != nil && n.kind == nText {
		return n.text // keywords the bridge wrote ("select", "regexp")
	}
	return ""
}

// offOr returns n's source offset, or def when n is nil.
func (n *node) offOr(def int) int {
	if n == nil {
		return def
	}
	return n.off
}

// isWord reports whether n is the unquoted word w.
func (n *node) isWord(w string) bool { return n.word() == w }

// isOp reports whether n is the operator or punctuation leaf op.
func (n *node) isOp(op string) bool {
	return n != nil && n.kind == nLeaf && n.tok.Kind == TOp && n.tok.Val == op
}

// isParen reports whether n is a real parenthesised group.
func (n *node) isParen() bool { return n != nil && n.kind == nGroup && n.open == "(" }

// isBracket reports whether n is a real [ ] group.
func (n *node) isBracket() bool { return n != nil && n.kind == nGroup && n.open == "[" }

// isName reports whether n is an identifier leaf (quoted or not).
func (n *node) isName() bool {
	return n != nil && n.kind == nLeaf && (n.tok.Kind == TIdent || n.tok.Kind == TQIdent)
}

// nameVal returns an identifier leaf's name (folded or exact).
func (n *node) nameVal() string { return n.tok.Val }

func at(seq []*node, i int) *node {
	if i < 0 || i >= len(seq) {
		return nil
	}
	return seq[i]
}

// splitCommas splits seq at top-level commas.
func splitCommas(seq []*node) [][]*node {
	var out [][]*node
	start := 0
	for i, n := range seq {
		if n.isOp(",") {
			out = append(out, seq[start:i])
			start = i + 1
		}
	}
	if len(seq) > 0 {
		out = append(out, seq[start:])
	}
	return out
}

func textNode(s string, off int) *node { return &node{kind: nText, text: s, off: off} }
