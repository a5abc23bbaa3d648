package sql

// splitTokens groups toks (ending with TEOF) into statements at top-level
// semicolons; each statement is a slice of toks without the semicolon.
// Empty statements are dropped.
func splitTokens(toks []Token) [][]Token {
	var out [][]Token
	depth, start := 0, 0
	for i, t := range toks {
		if t.Kind == TOp {
			switch t.Val {
			case "(", "[":
				depth++
			case ")", "]":
				if depth > 0 {
					depth--
				}
			}
		}
		if t.Kind == TEOF || (t.Kind == TOp && t.Val == ";" && depth == 0) {
			if i > start {
				out = append(out, toks[start:i])
			}
			start = i + 1
		}
	}
	return out
}
