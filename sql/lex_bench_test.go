package sql

import (
	"strings"
	"testing"
)

// hugeStatements are the flat statements of many megabytes the lexer
// benchmarks take: a 5 MB IN list, a 10 MB 1+1+... chain and a 50 MB
// string literal.
func hugeStatements() []struct{ name, text string } {
	return []struct{ name, text string }{
		{"in_list_5MB", "SELECT 1 IN (" + strings.Repeat("1, ", 5<<20/3) + "1)"},
		{"plus_chain_10MB", "SELECT " + strings.Repeat("1+", 10<<20/2) + "1"},
		{"string_50MB", "SELECT '" + strings.Repeat("a", 50<<20) + "'"},
	}
}

// BenchmarkLexHuge measures Lex on hugeStatements.
func BenchmarkLexHuge(b *testing.B) {
	for _, s := range hugeStatements() {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Lex(s.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLexQuotedContent checks the content of quoted tokens on both of
// the lexer's ways through them: a literal without quotes or escapes
// inside, taken whole, and one with them, unescaped.
func TestLexQuotedContent(t *testing.T) {
	for _, c := range []struct{ text, val string }{
		{`'abc'`, "abc"},
		{`''`, ""},
		{`'a''b'`, "a'b"},
		{`'ab'''`, "ab'"},
		{"'a'\n'b'", "ab"},
		{"'a' -- c\n 'b''c'", "ab'c"},
		{`E'a\'b'`, "a'b"},
		{`E'a\\b'`, `a\b`},
		{`E'x''y\n'`, "x'y\n"},
		{`"x""y"`, `x"y`},
		{`"Ab"`, "Ab"},
		{`'é' 'f'`, "é"},
	} {
		toks, err := Lex(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if toks[0].Val != c.val {
			t.Errorf("%s: got %q, want %q", c.text, toks[0].Val, c.val)
		}
	}
	for _, text := range []string{`'abc`, `'a''`, `E'a\'`, `"x`, `'a'` + "\n" + `'b`} {
		if _, err := Lex(text); err == nil {
			t.Errorf("%s: lexed, want unterminated", text)
		}
	}
}
