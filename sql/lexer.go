package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
)

// TokKind is the lexical class of a Token.
type TokKind uint8

// Token kinds, following the Postgres lexer (scan.l) closely enough for
// the statements weir accepts.
const (
	TEOF       TokKind = iota
	TIdent             // unquoted identifier or keyword; Val folded to lower case
	TQIdent            // "quoted identifier"; Val exactly as written, "" unescaped
	TString            // '..', E'..', U&'..', $tag$..$tag$; Val is the content
	TBitString         // B'0101'; Val holds the digits
	THexString         // X'1f'; Val holds the digits
	TNumber            // 1, 1.5, .5, 1e10; Val as written
	TParam             // $1; Val holds the digits
	TOp                // operators and punctuation: ( ) [ ] , ; . :: <= ||; Val as written
)

// Token is one lexical token. Off and End are byte offsets into the lexed
// text (Text = text[Off:End]).
type Token struct {
	Kind TokKind
	Val  string
	Off  int
	End  int
	// Err is a problem with the token's content (a bad escape in E'..')
	// that does not stop lexing; the parser reports it when it uses the
	// token.
	Err *pgerr.Error
}

// Lex splits text into tokens, skipping whitespace and comments. The last
// token is always TEOF at len(text). Unterminated quotes, quoted
// identifiers, dollar quotes and comments are 42601 errors positioned at
// their start, with Postgres's messages.
func Lex(text string) ([]Token, error) {
	lx := lexer{s: text}
	// About one token per four bytes of text (a list of short literals
	// and commas): one allocation instead of doubling a slice of
	// pointerful tokens a dozen times over a long statement.
	toks := make([]Token, 0, len(text)/4+1)
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.Kind == TEOF {
			return toks, nil
		}
	}
}

type lexer struct {
	s   string
	pos int
}

// charPos converts byte offset off of text to Postgres's 1-based character
// position.
func charPos(text string, off int) int {
	if off > len(text) {
		off = len(text)
	}
	return utf8.RuneCountInString(text[:off]) + 1
}

func (lx *lexer) errAt(off int, format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, format, args...).WithPosition(charPos(lx.s, off))
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// lowerASCII folds ASCII letters only, as Postgres does for identifiers
// in multi-byte encodings.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// opChars are the characters of Postgres's operators (scan.l op_chars).
const opChars = "~!@#^&|`?+-*/%<>="

// scanOp returns the length of the operator starting at s[0], by
// Postgres's rule (scan.l, {operator}): the longest run of opChars, cut
// before any "/*" or "--" in it, then, when longer than one character
// and ending in + or -, shortened while it does so unless it holds one of
// ~ ! @ # ^ & | ` ? % (so a=-1 is a = -1 but @-1 is the operator @-).
func scanOp(s string) int {
	n := 0
	for n < len(s) && strings.IndexByte(opChars, s[n]) >= 0 {
		n++
	}
	if i := strings.Index(s[:n], "/*"); i >= 0 {
		n = i
	}
	if i := strings.Index(s[:n], "--"); i >= 0 {
		n = i
	}
	if n > 1 && (s[n-1] == '+' || s[n-1] == '-') && !strings.ContainsAny(s[:n], "~!@#^&|`?%") {
		for n > 1 && (s[n-1] == '+' || s[n-1] == '-') {
			n--
		}
	}
	return n
}

// skipSpace skips whitespace and comments; it fails on an unterminated
// block comment.
func (lx *lexer) skipSpace() error {
	s := lx.s
	for lx.pos < len(s) {
		c := s[lx.pos]
		switch {
		case isSpace(c):
			lx.pos++
		case c == '-' && lx.pos+1 < len(s) && s[lx.pos+1] == '-':
			for lx.pos < len(s) && s[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '/' && lx.pos+1 < len(s) && s[lx.pos+1] == '*':
			start := lx.pos
			depth := 0
			for {
				if lx.pos+1 >= len(s) {
					return lx.errAt(start, "unterminated /* comment at or near \"%s\"", s[start:])
				}
				if s[lx.pos] == '/' && s[lx.pos+1] == '*' {
					depth++
					lx.pos += 2
				} else if s[lx.pos] == '*' && s[lx.pos+1] == '/' {
					depth--
					lx.pos += 2
					if depth == 0 {
						break
					}
				} else {
					lx.pos++
				}
			}
		default:
			return nil
		}
	}
	return nil
}

func (lx *lexer) next() (Token, error) {
	if err := lx.skipSpace(); err != nil {
		return Token{}, err
	}
	s := lx.s
	start := lx.pos
	if start >= len(s) {
		return Token{Kind: TEOF, Off: len(s), End: len(s)}, nil
	}
	c := s[start]
	tok := func(k TokKind, val string) (Token, error) {
		return Token{Kind: k, Val: val, Off: start, End: lx.pos}, nil
	}
	switch {
	case (c == 'e' || c == 'E') && start+1 < len(s) && s[start+1] == '\'':
		lx.pos++
		raw, err := lx.quoted('\'', start)
		if err != nil {
			return Token{}, err
		}
		val, perr := unescapeE(raw)
		t, _ := tok(TString, val)
		if perr != nil {
			t.Err = perr.WithPosition(charPos(s, start))
		}
		return t, nil
	case (c == 'b' || c == 'B' || c == 'x' || c == 'X') && start+1 < len(s) && s[start+1] == '\'':
		lx.pos++
		raw, err := lx.quoted('\'', start)
		if err != nil {
			return Token{}, err
		}
		k := TBitString
		if c == 'x' || c == 'X' {
			k = THexString
		}
		return tok(k, raw)
	case (c == 'n' || c == 'N') && start+1 < len(s) && s[start+1] == '\'':
		// National character literal: the same as a plain string.
		lx.pos++
		raw, err := lx.quoted('\'', start)
		if err != nil {
			return Token{}, err
		}
		return tok(TString, raw)
	case (c == 'u' || c == 'U') && strings.HasPrefix(s[start+1:], "&'"):
		lx.pos += 2
		raw, err := lx.quoted('\'', start)
		if err != nil {
			return Token{}, err
		}
		val, perr := unescapeU(raw)
		t, _ := tok(TString, val)
		if perr != nil {
			t.Err = perr.WithPosition(charPos(s, start))
		}
		return t, nil
	case isIdentStart(c):
		for lx.pos < len(s) && isIdentCont(s[lx.pos]) {
			lx.pos++
		}
		return tok(TIdent, lowerASCII(s[start:lx.pos]))
	case c == '"':
		raw, err := lx.quoted('"', start)
		if err != nil {
			return Token{}, err
		}
		if raw == "" {
			return Token{}, lx.errAt(start, "zero-length delimited identifier at or near \"\"\"\"")
		}
		return tok(TQIdent, raw)
	case c == '\'':
		raw, err := lx.quoted('\'', start)
		if err != nil {
			return Token{}, err
		}
		return tok(TString, raw)
	case c == '$':
		if start+1 < len(s) && isDigit(s[start+1]) {
			lx.pos++
			for lx.pos < len(s) && isDigit(s[lx.pos]) {
				lx.pos++
			}
			if lx.pos < len(s) && isIdentStart(s[lx.pos]) {
				j := lx.pos
				for j < len(s) && isIdentCont(s[j]) {
					j++
				}
				return Token{}, lx.errAt(start, "trailing junk after parameter at or near \"%s\"", s[start:j])
			}
			return tok(TParam, s[start+1:lx.pos])
		}
		// A dollar quote: $$ or $tag$ where tag is an identifier without $.
		j := start + 1
		for j < len(s) && isIdentCont(s[j]) && s[j] != '$' {
			j++
		}
		if j < len(s) && s[j] == '$' && (j == start+1 || !isDigit(s[start+1])) {
			delim := s[start : j+1]
			k := strings.Index(s[j+1:], delim)
			if k < 0 {
				return Token{}, lx.errAt(start, "unterminated dollar-quoted string at or near \"%s\"", s[start:])
			}
			lx.pos = j + 1 + k + len(delim)
			return tok(TString, s[j+1:j+1+k])
		}
		lx.pos++
		return tok(TOp, "$")
	case isDigit(c) || (c == '.' && start+1 < len(s) && isDigit(s[start+1])):
		for lx.pos < len(s) && isDigit(s[lx.pos]) {
			lx.pos++
		}
		if lx.pos < len(s) && s[lx.pos] == '.' && !(lx.pos+1 < len(s) && s[lx.pos+1] == '.') {
			lx.pos++
			for lx.pos < len(s) && isDigit(s[lx.pos]) {
				lx.pos++
			}
		}
		if lx.pos < len(s) && (s[lx.pos] == 'e' || s[lx.pos] == 'E') {
			j := lx.pos + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				lx.pos = j
			} else if j > lx.pos+1 {
				// 1e+ (PostgreSQL 15's realfail): an exponent without digits.
				return Token{}, lx.errAt(start, "trailing junk after numeric literal at or near \"%s\"", s[start:j])
			}
		}
		if lx.pos < len(s) && isIdentStart(s[lx.pos]) {
			// PostgreSQL 15 refuses a number run into a name (123abc,
			// 0x1F, 1_000, 1e): integer_junk, numeric_junk, real_junk.
			j := lx.pos
			for j < len(s) && isIdentCont(s[j]) {
				j++
			}
			return Token{}, lx.errAt(start, "trailing junk after numeric literal at or near \"%s\"", s[start:j])
		}
		return tok(TNumber, s[start:lx.pos])
	}
	if strings.HasPrefix(s[start:], "::") || strings.HasPrefix(s[start:], ":=") {
		lx.pos += 2
		return tok(TOp, s[start:lx.pos])
	}
	if n := scanOp(s[start:]); n > 0 {
		lx.pos += n
		return tok(TOp, s[start:lx.pos])
	}
	_, n := utf8.DecodeRuneInString(s[start:])
	lx.pos += n
	return tok(TOp, s[start:lx.pos])
}

// quoted scans a string or identifier quoted with q starting at lx.pos
// (the opening quote), with doubled quotes as escapes, and returns the
// content with the doubled quotes undone. In E'..' strings a backslash
// escapes the next byte, so the content is returned raw for unescapeE.
func (lx *lexer) quoted(q byte, tokStart int) (string, error) {
	s := lx.s
	backslash := q == '\'' && (s[tokStart] == 'e' || s[tokStart] == 'E')
	lx.pos++ // opening quote
	var b strings.Builder
	for {
		if lx.pos >= len(s) {
			if q == '"' {
				return "", lx.errAt(tokStart, "unterminated quoted identifier at or near \"%s\"", s[tokStart:])
			}
			return "", lx.errAt(tokStart, "unterminated quoted string at or near \"%s\"", s[tokStart:])
		}
		c := s[lx.pos]
		switch {
		case backslash && c == '\\' && lx.pos+1 < len(s):
			b.WriteByte(c)
			b.WriteByte(s[lx.pos+1])
			lx.pos += 2
		case c == q && lx.pos+1 < len(s) && s[lx.pos+1] == q:
			if backslash {
				b.WriteString("\\'")
			} else {
				b.WriteByte(q)
			}
			lx.pos += 2
		case c == q:
			lx.pos++
			return b.String(), nil
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
}

// unescapeE resolves the backslash escapes of an E'..' string (Postgres
// docs §4.1.2.2): \b \f \n \r \t, \ooo octal, \xhh hex, \uXXXX and
// \UXXXXXXXX code points; any other character after a backslash is taken
// literally.
func unescapeE(raw string) (string, *pgerr.Error) {
	if !strings.Contains(raw, "\\") {
		return raw, nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := raw[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x':
			j := i + 1
			for j < len(raw) && j < i+3 && isHex(raw[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('x')
				continue
			}
			v, _ := strconv.ParseUint(raw[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if i+1+n > len(raw) {
				return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape").WithHint("Unicode escapes must be \\uXXXX or \\UXXXXXXXX.")
			}
			h := raw[i+1 : i+1+n]
			v, err := strconv.ParseUint(h, 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) || v == 0 {
				return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape value")
			}
			b.WriteRune(rune(v))
			i += n
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(raw) && j < i+3 && raw[j] >= '0' && raw[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(raw[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			b.WriteByte(e)
		}
	}
	out := b.String()
	if !utf8.ValidString(out) {
		return "", pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
	}
	return out, nil
}

// unescapeU resolves the \XXXX and \+XXXXXX escapes of a U&'..' string
// (the default escape character only; UESCAPE is not supported).
func unescapeU(raw string) (string, *pgerr.Error) {
	if !strings.Contains(raw, "\\") {
		return raw, nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(raw) && raw[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		n, j := 4, i+1
		if j < len(raw) && raw[j] == '+' {
			n, j = 6, j+1
		}
		if j+n > len(raw) {
			return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape")
		}
		v, err := strconv.ParseUint(raw[j:j+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) || v == 0 {
			return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape value")
		}
		b.WriteRune(rune(v))
		i = j + n - 1
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
