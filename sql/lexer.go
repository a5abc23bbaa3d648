package sql

import (
	"context"
	"fmt"
	"math"
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
func Lex(text string) ([]Token, error) { return lexContext(context.Background(), text, 0) }

// lexCountBytes is the text size from which lexContext, not told how
// many tokens the text holds, counts them in a pass of its own first.
const lexCountBytes = 64 << 10

// lexContext is Lex that gives up once ctx has ended. count, when more
// than zero, is the number of tokens text holds (its TEOF included), as
// a pass before counted them: the tokens then take one allocation of
// their exact size. A long text whose tokens were not counted has them
// counted first, lexing it twice: lexing is cheap next to growing a
// slice of pointerful tokens, fifty-odd bytes each, by append, which
// copied a multi-megabyte statement's tokens half a dozen times over
// (most of the time of lexing a 5 MB IN list went to memmove, under the
// collector's write barriers), while a guess of the size from the
// text's length held hundreds of megabytes for a long string literal's
// few tokens.
func lexContext(ctx context.Context, text string, count int) ([]Token, error) {
	lx := lexer{s: text, ctx: ctx}
	switch {
	case count > 0:
	case len(text) < lexCountBytes:
		count = len(text)/4 + 1
	default:
		for {
			t, err := lx.next()
			if err != nil {
				return nil, err
			}
			count++
			if t.Kind == TEOF {
				break
			}
		}
		lx = lexer{s: text, ctx: ctx}
	}
	toks := make([]Token, 0, count)
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
	// ctx, when set, is checked every cancelEvery tokens: next fails
	// with canceled's error once it has ended.
	ctx context.Context
	n   int
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
	if lx.ctx != nil {
		if lx.n++; lx.n%cancelEvery == 0 {
			if err := canceled(lx.ctx); err != nil {
				return Token{}, err
			}
		}
	}
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
		val, perr, at := unescapeE(raw)
		t, _ := tok(TString, val)
		if perr != nil && at >= 0 {
			// raw has the text's length (a doubled quote stays two
			// bytes), so at maps back to the text after E'.
			perr = perr.WithPosition(charPos(s, start+2+at))
		}
		if perr != nil {
			t.Err = perr
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
	case (c == 'u' || c == 'U') && (strings.HasPrefix(s[start+1:], "&'") || strings.HasPrefix(s[start+1:], "&\"")):
		return lx.unicodeQuoted(start)
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
	// The content up to the first quote (or backslash of an E'..')
	// needs no unescaping: a literal without either, however long, is
	// a substring of the text, found in one scan, with no copy.
	plain := lx.pos
	for plain < len(s) && s[plain] != q && !(backslash && s[plain] == '\\') {
		if i := strings.IndexByte(s[plain:], q); !backslash {
			if i < 0 {
				plain = len(s)
			} else {
				plain += i
			}
			break
		}
		plain++
	}
	if plain < len(s) && s[plain] == q && (plain+1 >= len(s) || s[plain+1] != q) {
		if q != '\'' || quoteContinuation(s, plain+1) <= 0 {
			val := s[lx.pos:plain]
			lx.pos = plain + 1
			return val, nil
		}
	}
	var b strings.Builder
	b.Grow(plain - lx.pos)
	b.WriteString(s[lx.pos:plain])
	lx.pos = plain
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
			if next := quoteContinuation(s, lx.pos); q == '\'' && next > 0 {
				// A string continued after a newline: its content goes
				// on, escapes and all, as one literal.
				lx.pos = next + 1
				continue
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
}

// quoteContinuation returns the offset of the quote that continues a
// string literal closed just before i, -1 when none does: PostgreSQL
// joins two literals separated only by white space (and -- comments)
// holding at least one newline.
func quoteContinuation(s string, i int) int {
	newline := false
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\f':
			i++
		case c == '\n' || c == '\r':
			newline = true
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case c == '\'' && newline:
			return i
		default:
			return -1
		}
	}
	return -1
}

// unescapeE resolves the backslash escapes of an E'..' string (Postgres
// docs §4.1.2.2): \b \f \n \r \t, \ooo octal, \xhh hex, \uXXXX and
// \UXXXXXXXX code points (UTF-16 surrogate pairs joined); any other
// character after a backslash is taken literally. On an error, at is the
// byte offset in raw the error is about, as PostgreSQL's lexer positions
// it.
func unescapeE(raw string) (_ string, _ *pgerr.Error, at int) {
	if !strings.Contains(raw, "\\") {
		return raw, nil, 0
	}
	var b strings.Builder
	var first rune // the first half of a surrogate pair, awaiting the second
	near := func(msg string, i, j int) (string, *pgerr.Error, int) {
		return "", pgerr.New(pgerr.SyntaxError, "%s at or near \"%s\"", msg, raw[i:j]), i
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if first != 0 && (c != '\\' || i+1 >= len(raw) || raw[i+1] != 'u' && raw[i+1] != 'U') {
			// The character after the first half of a pair (the closing
			// quote when the string ends there, a doubled quote's
			// first).
			if strings.HasPrefix(raw[i:], "\\'") {
				return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode surrogate pair at or near \"'\""), i
			}
			_, n := utf8.DecodeRuneInString(raw[i:])
			return near("invalid Unicode surrogate pair", i, i+n)
		}
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
			j := i + 1
			for j < len(raw) && j < i+1+n && isHex(raw[j]) {
				j++
			}
			if j < i+1+n {
				return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid Unicode escape").
					WithHint("Unicode escapes must be \\uXXXX or \\UXXXXXXXX."), i - 1
			}
			v64, _ := strconv.ParseUint(raw[i+1:j], 16, 32)
			v := rune(v64)
			switch {
			case first != 0 && v >= 0xDC00 && v <= 0xDFFF:
				v = 0x10000 + (first-0xD800)<<10 + (v - 0xDC00)
				first = 0
			case first != 0 || v >= 0xDC00 && v <= 0xDFFF:
				return near("invalid Unicode surrogate pair", i-1, j)
			case v >= 0xD800 && v <= 0xDBFF:
				first = v
				i = j - 1
				continue
			case v64 == 0 || v64 > 0x10FFFF:
				return near("invalid Unicode escape value", i-1, j)
			}
			b.WriteRune(v)
			i = j - 1
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
	if first != 0 {
		// The pair's first half ends the string: Postgres stops at the
		// closing quote.
		return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode surrogate pair at or near \"'\""), len(raw)
	}
	out := b.String()
	if !utf8.ValidString(out) || strings.IndexByte(out, 0) >= 0 {
		// Postgres checks the string once unescaped and names the bad
		// sequence's bytes, without a position (at is -1); a NUL (\0,
		// \x00) is one.
		return "", invalidUTF8(out), -1
	}
	return out, nil, 0
}

// unicodeQuoted scans a U&'..' string or a U&".." identifier starting at
// start, with an optional UESCAPE '<c>' after it, which the token then
// covers (PostgreSQL's grammar looks ahead for it the same way). Problems
// with the escapes or the UESCAPE clause are the token's Err, positioned
// as PostgreSQL positions them.
func (lx *lexer) unicodeQuoted(start int) (Token, error) {
	s := lx.s
	q := s[start+2]
	lx.pos += 2
	raw, err := lx.quoted(q, start)
	if err != nil {
		return Token{}, err
	}
	t := Token{Kind: TString, Off: start, End: lx.pos}
	if q == '"' {
		t.Kind = TQIdent
		if raw == "" {
			return Token{}, lx.errAt(start, "zero-length delimited identifier at or near \"%s\"", s[start:lx.pos])
		}
	}
	esc := byte('\\')
	if e, end, perr := lx.uescape(); perr != nil {
		t.Err = perr
		t.Val = raw
		return t, nil
	} else if end > 0 {
		esc, t.End = e, end
		lx.pos = end
	}
	val, perr, at := unescapeU(raw, esc)
	if perr != nil {
		// Like PostgreSQL, the position counts the escape's offset in
		// the content with doubled quotes undone.
		t.Err = perr.WithPosition(charPos(s, start+3+at))
		t.Val = raw
		return t, nil
	}
	t.Val = val
	return t, nil
}

// uescape looks past a Unicode-escaped literal (lx.pos is just after it)
// for UESCAPE '<c>'. It returns the escape character and the end of the
// clause, end 0 when there is none; lx.pos is left where it was.
func (lx *lexer) uescape() (esc byte, end int, perr *pgerr.Error) {
	s := lx.s
	save := lx.pos
	defer func() { lx.pos = save }()
	if lx.skipSpace() != nil {
		return 0, 0, nil
	}
	kw := lx.pos
	for lx.pos < len(s) && isIdentCont(s[lx.pos]) {
		lx.pos++
	}
	if lx.pos == kw || !isIdentStart(s[kw]) || lowerASCII(s[kw:lx.pos]) != "uescape" {
		return 0, 0, nil
	}
	next, err := lx.next()
	if err != nil {
		if pe, ok := err.(*pgerr.Error); ok {
			return 0, 0, pe
		}
		return 0, 0, pgerr.New(pgerr.SyntaxError, "%v", err)
	}
	if next.Kind == TEOF {
		return 0, 0, pgerr.New(pgerr.SyntaxError, "UESCAPE must be followed by a simple string literal at end of input").
			WithPosition(charPos(s, len(s)))
	}
	text := s[next.Off:next.End]
	if next.Kind != TString || text[0] == 'u' || text[0] == 'U' || text[0] == 'n' || text[0] == 'N' {
		return 0, 0, pgerr.New(pgerr.SyntaxError, "UESCAPE must be followed by a simple string literal at or near \"%s\"", text).
			WithPosition(charPos(s, next.Off))
	}
	if next.Err != nil {
		return 0, 0, next.Err
	}
	if len(next.Val) != 1 || isHex(next.Val[0]) || strings.ContainsRune("+'\" \t\n\r\f", rune(next.Val[0])) {
		return 0, 0, pgerr.New(pgerr.SyntaxError, "invalid Unicode escape character at or near \"%s\"", text).
			WithPosition(charPos(s, next.Off))
	}
	return next.Val[0], next.End, nil
}

// unescapeU resolves the escapes of a U&'..' string or U&".." identifier
// with escape character esc (PostgreSQL's str_udeescape): esc followed by
// four hex digits, esc+ followed by six, esc doubled for itself, UTF-16
// surrogate pairs joined. On an error, at is the byte offset in raw the
// error is about.
func unescapeU(raw string, esc byte) (_ string, _ *pgerr.Error, at int) {
	if strings.IndexByte(raw, esc) < 0 {
		return raw, nil, 0
	}
	var b strings.Builder
	var first rune // the first half of a surrogate pair, awaiting the second
	invalidPair := func(i int) (string, *pgerr.Error, int) {
		return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode surrogate pair"), i
	}
	hex := func(h string) (rune, bool) {
		for k := 0; k < len(h); k++ {
			if !isHex(h[k]) {
				return 0, false
			}
		}
		v, _ := strconv.ParseUint(h, 16, 32)
		return rune(v), true
	}
	for i := 0; i < len(raw); {
		if raw[i] != esc {
			if first != 0 {
				return invalidPair(i)
			}
			b.WriteByte(raw[i])
			i++
			continue
		}
		var v rune
		var n int
		if i+1 < len(raw) && raw[i+1] == esc {
			if first != 0 {
				return invalidPair(i)
			}
			b.WriteByte(esc)
			i += 2
			continue
		} else if r, ok := hex(raw[i+1 : min(i+5, len(raw))]); ok && i+5 <= len(raw) {
			v, n = r, 5
		} else if r, ok := hex(raw[min(i+2, len(raw)):min(i+8, len(raw))]); ok && i+8 <= len(raw) && raw[i+1] == '+' {
			v, n = r, 8
		} else {
			return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape").WithHint("Unicode escapes must be \\XXXX or \\+XXXXXX."), i
		}
		if v <= 0 || v > 0x10FFFF {
			return "", pgerr.New(pgerr.SyntaxError, "invalid Unicode escape value"), i
		}
		switch {
		case first != 0 && v >= 0xDC00 && v <= 0xDFFF:
			v = 0x10000 + (first-0xD800)<<10 + (v - 0xDC00)
			first = 0
		case first != 0 || v >= 0xDC00 && v <= 0xDFFF:
			return invalidPair(i)
		case v >= 0xD800 && v <= 0xDBFF:
			first = v
			i += n
			continue
		}
		b.WriteRune(v)
		i += n
	}
	if first != 0 {
		return invalidPair(len(raw))
	}
	return b.String(), nil, 0
}

// invalidUTF8 is Postgres's error for s, which is not valid UTF-8 or
// holds a NUL: the first bad sequence's bytes, as many as its lead byte
// announces.
func invalidUTF8(s string) *pgerr.Error {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || r == 0 {
			break
		}
		i += n
	}
	n := 1
	switch c := s[i]; {
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	var hex []string
	for k := i; k < len(s) && k < i+n; k++ {
		hex = append(hex, fmt.Sprintf("0x%02x", s[k]))
	}
	return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(hex, " "))
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// ParamNumber is the number of the parameter $digits as PostgreSQL's
// scanner reads it: atol of the digits (saturating at the largest
// int64), kept in an int, so $2147483648 is parameter -2147483648 and
// $4294967297 parameter 1; a number that is not 1 to 65535 is no
// parameter and fails with 42P02 where it is bound.
func ParamNumber(digits string) int {
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		v = math.MaxInt64
	}
	return int(int32(v))
}
