package sql

// splitTokens groups toks (ending with TEOF) into statements at top-level
// semicolons; each statement is a slice of toks without the semicolon.
// Empty statements are dropped.
func splitTokens(toks []Token) [][]Token {
	var out [][]Token
	depth, start := 0, 0
	for i, t := range toks {
		depth = bracketDepth(t, depth)
		if t.Kind == TEOF || (t.Kind == TOp && t.Val == ";" && depth == 0) {
			if i > start {
				out = append(out, toks[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// bracketDepth is the nesting depth of parentheses and brackets after t,
// given the depth before it; a stray closing one does not go below 0.
func bracketDepth(t Token, depth int) int {
	if t.Kind != TOp {
		return depth
	}
	switch t.Val {
	case "(", "[":
		return depth + 1
	case ")", "]":
		if depth > 0 {
			return depth - 1
		}
	}
	return depth
}
