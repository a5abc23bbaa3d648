package functions

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/weirdb/weir/internal/pgerr"
)

// This file translates PostgreSQL's advanced regular expressions (AREs)
// and their option letters into Go's RE2 syntax, or, for what RE2 cannot
// run (back references, lookaround, word boundaries over the locale's
// word characters), into regexp2's. What Go spells differently is
// rewritten; what neither can express with the same meaning (basic and
// extended REs) is refused, never approximated.

// reOpts are the options of a regular expression: the flags argument of
// the regexp_* functions, or the operator's case sensitivity.
type reOpts struct {
	icase bool
	// global is g (regexp_replace, regexp_matches).
	global bool
	// dotNL: '.' and negated bracket expressions match a newline (not
	// n, p); lineAnchors: ^ and $ match at line boundaries (n, w).
	dotNL, lineAnchors bool
	// expanded is x: white space and # comments in the pattern are
	// ignored; literal is q: the pattern is a literal string.
	expanded, literal bool
	// cLocale: character classes and case-insensitive matching are the
	// C locale's (ASCII), as under COLLATE "C", not C.UTF-8's.
	cLocale bool
	// asciiWords: \y and \Y become RE2's \b and \B, which are right
	// on ASCII text only (asciiFast).
	asciiWords bool
}

// parseREOpts reads a flags argument as PostgreSQL does: the last of c
// and i wins, as does the last of n (m), p, w and s. b and e (basic and
// extended REs) are refused.
func parseREOpts(flags string) (reOpts, error) {
	o := reOpts{dotNL: true}
	for _, f := range flags {
		switch f {
		case cLocaleFlag:
			o.cLocale = true
		case 'g':
			o.global = true
		default:
			if !o.apply(f) {
				return o, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", f)
			}
		}
		if f == 'b' || f == 'e' {
			return o, pgerr.New(pgerr.FeatureNotSupported, "regular expression option \"%c\" (basic or extended syntax) is not supported", f)
		}
	}
	return o, nil
}

// apply sets the option letter f (all of the flags' but g; b and e are
// accepted here and refused by the callers), reporting false for
// another letter.
func (o *reOpts) apply(f rune) bool {
	switch f {
	case 'i':
		o.icase = true
	case 'c':
		o.icase = false
	case 'n', 'm':
		o.dotNL, o.lineAnchors = false, true
	case 'p':
		o.dotNL, o.lineAnchors = false, false
	case 'w':
		o.dotNL, o.lineAnchors = true, true
	case 's':
		o.dotNL, o.lineAnchors = true, false
	case 'x':
		o.expanded = true
	case 't':
		o.expanded = false
	case 'q':
		o.literal = true
	case 'b', 'e':
	default:
		return false
	}
	return true
}

// embeddedOptions strips the options an ARE may begin with, (?letters),
// applying them to o as PostgreSQL does; an unknown letter or a missing
// ) is 2201B, b and e are refused (0A000).
func embeddedOptions(p string, o *reOpts) (string, error) {
	if !strings.HasPrefix(p, "(?") || len(p) < 3 || !(p[2] >= 'a' && p[2] <= 'z' || p[2] >= 'A' && p[2] <= 'Z') {
		return p, nil
	}
	for i := 2; i < len(p); i++ {
		switch f := rune(p[i]); {
		case f == ')':
			return p[i+1:], nil
		case f == 'b' || f == 'e':
			return p, pgerr.New(pgerr.FeatureNotSupported, "regular expression option \"%c\" (basic or extended syntax) is not supported", f)
		case !o.apply(f):
			return p, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid embedded option")
		}
	}
	return p, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid embedded option")
}

// cLocaleFlag, first in a flags argument, makes parseREOpts set cLocale:
// reFlags puts it there for a call under a C collation (InCLocale). No
// user's flags can hold it, as weir refuses NUL in text.
const cLocaleFlag = 0

// reFlags is flags as parseREOpts should read them for a call in ctx.
func reFlags(ctx *Context, flags string) string {
	if ctx.inCLocale() {
		return string(rune(cLocaleFlag)) + flags
	}
	return flags
}

// regexCache holds compiled regular expressions by options and pattern.
var regexCache sync.Map

type regexKey struct {
	p string
	o reOpts
}

// compiledRE is a compiled ARE. Offsets are byte offsets into s.
type compiledRE interface {
	// match reports whether s holds a match.
	match(s string) (bool, error)
	// submatches returns the matches in s that begin at byte offset
	// start or later, at most n of them (n < 0: all), as regexp's
	// FindAllStringSubmatchIndex returns them (a group that took no part
	// in a match is -1, -1), found as PostgreSQL's setup_regexp_matches
	// finds them: the text before start is context (for ^ and \y), and
	// each search begins where the previous match ended, or a character
	// later after an empty match, so an empty match right after a
	// non-empty one counts (where Go's regexp drops it).
	submatches(s string, start, n int) ([][]int, error)
	// groups is the number of capture groups.
	groups() int
}

// re2 is an ARE Go's regexp (RE2) runs: every pattern without back
// references. twin is the same pattern compiled by regexp2, whose search
// can start at an offset with the text before it as context: it finds
// the empty matches Go's iteration drops (when nullable, the pattern can
// match the empty string) and runs a search from an offset when the
// pattern has assertions that look behind it (contextual: ^, \b, \B).
type re2 struct {
	re                   *regexp.Regexp
	nullable, contextual bool
	twin                 *regexp2.Regexp // nil when regexp2 cannot compile the pattern
}

func (r *re2) match(s string) (bool, error) { return r.re.MatchString(s), nil }
func (r *re2) groups() int                  { return r.re.NumSubexp() }

func (r *re2) submatches(s string, start, n int) ([][]int, error) {
	if start > 0 && r.contextual && r.twin != nil {
		return regexp2Matches(r.twin, s, start, n)
	}
	sub := s[start:]
	if !r.nullable || r.twin == nil || n == 1 {
		return shiftLocs(r.re.FindAllStringSubmatchIndex(sub, n), start), nil
	}
	ms := r.re.FindAllStringSubmatchIndex(sub, -1)
	var out [][]int
	for i, m := range ms {
		out = append(out, m)
		// After a non-empty match PostgreSQL searches again at its end;
		// when that search finds an empty match there, Go has dropped
		// it (and went on a character later).
		if e := m[1]; e > m[0] && (i+1 == len(ms) || ms[i+1][0] != e) {
			at := utf8.RuneCountInString(sub[:e])
			em, err := r.twin.FindStringMatchStartingAt(sub, at)
			if err != nil {
				return nil, backrefError(err)
			}
			if em != nil && em.Index == at && em.Length == 0 {
				gs := em.Groups()
				loc := make([]int, 2*len(gs))
				for k, g := range gs {
					loc[2*k], loc[2*k+1] = e, e
					if k > 0 && len(g.Captures) == 0 {
						loc[2*k], loc[2*k+1] = -1, -1
					}
				}
				out = append(out, loc)
			}
		}
		if n >= 0 && len(out) >= n {
			out = out[:n]
			break
		}
	}
	return shiftLocs(out, start), nil
}

// shiftLocs adds by to every offset of ms that is not -1.
func shiftLocs(ms [][]int, by int) [][]int {
	if by == 0 {
		return ms
	}
	for _, m := range ms {
		for i, v := range m {
			if v >= 0 {
				m[i] = v + by
			}
		}
	}
	return ms
}

// reShape reports whether the RE2 pattern t can match the empty string
// (nullable) and whether it holds an assertion about the text before a
// position (contextual).
func reShape(t string) (nullable, contextual bool) {
	re, err := syntax.Parse(t, syntax.Perl)
	if err != nil {
		return true, true
	}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			contextual = true
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	return nullableRE(re), contextual
}

// nullableRE reports whether re can match the empty string.
func nullableRE(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || nullableRE(re.Sub[0])
	case syntax.OpPlus, syntax.OpCapture:
		return nullableRE(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullableRE(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullableRE(sub) {
				return true
			}
		}
	}
	return false
}

// backrefMatchTimeout bounds one match of a pattern with back
// references, whose backtracking engine can take exponential time.
const backrefMatchTimeout = 10 * time.Second

// backref is an ARE with back references (\1 .. \9), which RE2 cannot
// express, run by regexp2's backtracking engine in its RE2-compatible
// syntax. Like RE2 here it prefers the leftmost alternative, where
// PostgreSQL's engine prefers the longest match: whether a string
// matches is the same, the text a match spans can differ.
type backref struct{ re *regexp2.Regexp }

func (r backref) match(s string) (bool, error) {
	ok, err := r.re.MatchString(s)
	return ok, backrefError(err)
}

func (r backref) submatches(s string, start, n int) ([][]int, error) {
	return regexp2Matches(r.re, s, start, n)
}

func (r backref) groups() int { return len(r.re.GetGroupNumbers()) - 1 }

// regexp2Matches is compiledRE.submatches run by regexp2, whose
// iteration (FindNextMatch) is PostgreSQL's.
func regexp2Matches(re *regexp2.Regexp, s string, start, n int) ([][]int, error) {
	// regexp2 counts in runes: map rune offsets to byte offsets.
	var offs []int
	at := 0
	for i := range s {
		if i < start {
			at++
		}
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	var out [][]int
	m, err := re.FindStringMatchStartingAt(s, at)
	for ; m != nil && err == nil && (n < 0 || len(out) < n); m, err = re.FindNextMatch(m) {
		gs := m.Groups()
		loc := make([]int, 2*len(gs))
		for i, g := range gs {
			if i > 0 && len(g.Captures) == 0 {
				loc[2*i], loc[2*i+1] = -1, -1
				continue
			}
			loc[2*i], loc[2*i+1] = offs[g.Index], offs[g.Index+g.Length]
		}
		out = append(out, loc)
	}
	return out, backrefError(err)
}

// backrefError is regexp2's matching error as PostgreSQL words a
// pattern too costly to run.
func backrefError(err error) error {
	if err == nil {
		return nil
	}
	return pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: regular expression is too complex")
}

// aregex compiles p as an ARE matching case-insensitively when icase.
func aregex(p string, icase bool) (compiledRE, error) {
	return aregexOpts(p, reOpts{icase: icase, dotNL: true})
}

// aregexOpts compiles p as an ARE with the options o.
func aregexOpts(p string, o reOpts) (compiledRE, error) {
	key := regexKey{p: p, o: o}
	key.o.global = false
	if re, ok := regexCache.Load(key); ok {
		return re.(compiledRE), nil
	}
	var t string
	refs := false
	if !o.literal {
		var err error
		if p, err = embeddedOptions(p, &o); err != nil {
			return nil, err
		}
	}
	if o.literal {
		t = quoteRE(p, o)
	} else {
		var err error
		if t, refs, err = translateARE(p, o); err != nil {
			return nil, err
		}
	}
	// Case-insensitive matching is spelled out by translateARE, as
	// PostgreSQL's: Go's (?i) would also match the other members of a
	// character's case folding orbit ('k' the Kelvin sign, 'σ' 'ς').
	flags := ""
	if o.dotNL {
		flags += "s"
	}
	if o.lineAnchors {
		flags += "m"
	}
	if flags != "" {
		t = "(?" + flags + ")" + t
	}
	var c compiledRE
	if refs {
		re, err := regexp2.Compile(t, regexp2.RE2)
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			if strings.Contains(msg, "undefined group") {
				msg = "invalid backreference number"
			}
			return nil, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
		}
		re.MatchTimeout = backrefMatchTimeout
		c = backref{re}
	} else {
		re, err := regexp.Compile(t)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", reErrorText(err))
		}
		r := &re2{re: re}
		if r.nullable, r.contextual = reShape(t); r.nullable || r.contextual {
			if tw, err := regexp2.Compile(t, regexp2.RE2); err == nil {
				tw.MatchTimeout = backrefMatchTimeout
				r.twin = tw
			}
		}
		c = r
	}
	if refs && !o.literal && !o.asciiWords {
		// When only \y or \Y needed regexp2, ASCII text can take RE2.
		ao := o
		ao.asciiWords = true
		if _, arefs, err := translateARE(p, ao); err == nil && !arefs {
			if a, err := aregexOpts(p, ao); err == nil {
				c = asciiFast{ascii: a, full: c}
			}
		}
	}
	regexCache.Store(key, c)
	return c, nil
}

// asciiFast runs a pattern whose word constraints (\y, \Y) made it
// regexp2's on RE2 (ascii, with \b and \B) when the text is ASCII,
// where RE2's word characters are the locale's; full runs other text.
type asciiFast struct{ ascii, full compiledRE }

func (r asciiFast) pick(s string) compiledRE {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return r.full
		}
	}
	return r.ascii
}

func (r asciiFast) match(s string) (bool, error) { return r.pick(s).match(s) }
func (r asciiFast) groups() int                  { return r.full.groups() }
func (r asciiFast) submatches(s string, start, n int) ([][]int, error) {
	return r.pick(s).submatches(s, start, n)
}

// reErrors are the texts of PostgreSQL's regerror for the errors Go's
// regexp reports when compiling.
var reErrors = map[syntax.ErrorCode]string{
	syntax.ErrMissingParen:          "parentheses () not balanced",
	syntax.ErrUnexpectedParen:       "parentheses () not balanced",
	syntax.ErrMissingBracket:        "brackets [] not balanced",
	syntax.ErrMissingRepeatArgument: "quantifier operand invalid",
	syntax.ErrInvalidRepeatOp:       "quantifier operand invalid",
	syntax.ErrInvalidRepeatSize:     "invalid repetition count(s)",
	syntax.ErrInvalidEscape:         "invalid escape \\ sequence",
	syntax.ErrTrailingBackslash:     "invalid escape \\ sequence",
	syntax.ErrInvalidCharRange:      "invalid character range",
	syntax.ErrInvalidCharClass:      "invalid character class",
}

// reErrorText words a compile error of Go's regexp as PostgreSQL does,
// or as Go does when PostgreSQL has no such error.
func reErrorText(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		if msg, ok := reErrors[se.Code]; ok {
			return msg
		}
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// translateARE rewrites the ARE p into RE2 syntax: \Z becomes \z; a
// negated bracket expression of a newline-sensitive pattern leaves out
// the newline; expanded syntax drops white space and comments outside
// brackets; character classes and class escapes become the locale's
// characters; with case-insensitive matching, each letter the set of its
// case mappings. refs reports what only regexp2 runs: back references
// (\1 .. \9), lookahead and lookbehind constraints ((?=, (?!, (?<=,
// (?<!), and the word constraints \y \Y \m \M [[:<:]] [[:>:]], which
// become lookaround over the locale's word characters (Go's \b knows
// ASCII's only).
func translateARE(p string, o reOpts) (t string, refs bool, err error) {
	var b strings.Builder
	w := "[" + escapeClass('w', o.cLocale) + "]"
	constraint := func(c byte) {
		if o.asciiWords && c == 'y' {
			b.WriteString(`\b`)
			return
		}
		if o.asciiWords && c == 'Y' {
			b.WriteString(`\B`)
			return
		}
		refs = true
		switch c {
		case 'y':
			b.WriteString("(?:(?<=" + w + ")(?!" + w + ")|(?<!" + w + ")(?=" + w + "))")
		case 'Y':
			b.WriteString("(?:(?<=" + w + ")(?=" + w + ")|(?<!" + w + ")(?!" + w + "))")
		case 'm':
			b.WriteString("(?<!" + w + ")(?=" + w + ")")
		case 'M':
			b.WriteString("(?<=" + w + ")(?!" + w + ")")
		}
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			switch p[i] {
			case 'y', 'Y', 'm', 'M':
				constraint(p[i])
			case 'Z':
				b.WriteString(`\z`)
			case 'x', 'u', 'U':
				r, end, ok := hexEscape(p, i)
				if !ok {
					return "", false, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: invalid escape \\ sequence")
				}
				i = end
				switch {
				case r < 0:
					b.WriteString(`[^\x00-\x{10FFFF}]`)
				case o.icase:
					writeCases(&b, r, o)
				default:
					writeRange(&b, r, r)
				}
			case 'w', 's', 'd', 'W', 'S', 'D':
				// The locale's word, space and digit characters and their
				// complements (Go's \w and \s are ASCII's). A complement
				// matches a newline even in newline-sensitive mode, as in
				// PostgreSQL.
				b.WriteByte('[')
				b.WriteString(escapeClass(p[i], o.cLocale))
				b.WriteByte(']')
			default:
				if p[i] >= '1' && p[i] <= '9' {
					refs = true
					if o.icase {
						// A back reference matches its group's text
						// in any case, as in PostgreSQL.
						b.WriteString(`(?i:\`)
						b.WriteByte(p[i])
						b.WriteByte(')')
						break
					}
				}
				b.WriteByte('\\')
				b.WriteByte(p[i])
			}
		case c == '[':
			if strings.HasPrefix(p[i:], "[[:<:]]") || strings.HasPrefix(p[i:], "[[:>:]]") {
				constraint("mM"[strings.IndexByte("<>", p[i+3])])
				i += len("[[:<:]]") - 1
				continue
			}
			j := bracketEnd(p, i)
			if j < 0 {
				// Unterminated: RE2 reports it.
				b.WriteString(p[i:])
				i = len(p)
				continue
			}
			body := bracketBody(p[i+1:j], o)
			if !o.dotNL && strings.HasPrefix(body, "^") {
				body += `\n`
			}
			b.WriteByte('[')
			b.WriteString(body)
			b.WriteByte(']')
			i = j
		case o.expanded && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
		case o.expanded && c == '#':
			for i+1 < len(p) && p[i+1] != '\n' {
				i++
			}
		case o.icase && (c >= utf8.RuneSelf || isASCIILetter(c)):
			r, n := utf8.DecodeRuneInString(p[i:])
			i += n - 1
			writeCases(&b, r, o)
		default:
			if c == '(' && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
				strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")) {
				refs = true
			}
			b.WriteByte(c)
		}
	}
	return b.String(), refs, nil
}

// escapeClass is the body of a bracket expression for the class escape
// \w, \s, \d, \W, \S or \D (c is its letter): the locale's characters
// or the others (the C locale's when cLocale).
func escapeClass(c byte, cLocale bool) string { return escapeClasses()[escapeKey{c, cLocale}] }

type escapeKey struct {
	c       byte
	cLocale bool
}

// escapeClasses are the bodies escapeClass returns, built once.
var escapeClasses = sync.OnceValue(func() map[escapeKey]string {
	m := map[escapeKey]string{}
	for _, cl := range []bool{false, true} {
		for c, name := range map[byte]string{'w': "word", 's': "space", 'd': "digit"} {
			ts, _ := classTables(name, cl)
			var b strings.Builder
			classRanges(&b, ts...)
			m[escapeKey{c, cl}] = b.String()
			b.Reset()
			classComplement(&b, ts...)
			m[escapeKey{c - 'a' + 'A', cl}] = b.String()
		}
	}
	return m
})

// bracketBody rewrites the body of a bracket expression (between [ and
// ]) for RE2: each character class ([:alpha:]) and class escape (\w,
// \s, \d, \W, \S, \D) becomes the locale's characters, as PostgreSQL's cclass
// builds them (with case-insensitive matching, [:upper:] and [:lower:]
// are [:alpha:]); the rest is kept.
func bracketBody(body string, o reOpts) string {
	var b strings.Builder
	j := 0
	if strings.HasPrefix(body, "^") {
		b.WriteByte('^')
		j++
	}
	if j < len(body) && body[j] == ']' {
		b.WriteString(`\]`)
		j++
	}
	for ; j < len(body); j++ {
		switch {
		case body[j] == '\\' && j+1 < len(body) && strings.IndexByte("wsdWSD", body[j+1]) >= 0:
			b.WriteString(escapeClass(body[j+1], o.cLocale))
			j++
		case body[j] == '\\' && j+1 < len(body) && strings.IndexByte("xuU", body[j+1]) < 0:
			b.WriteString(body[j : j+2])
			j++
		case body[j] == '[' && j+1 < len(body) && body[j+1] == ':':
			end := strings.Index(body[j+2:], ":]")
			if end < 0 {
				b.WriteString(body[j:])
				return b.String()
			}
			name := body[j+2 : j+2+end]
			if o.icase && (name == "upper" || name == "lower") {
				name = "alpha"
			}
			if ts, ok := classTables(name, o.cLocale); ok {
				classRanges(&b, ts...)
			} else {
				// ascii, or a name RE2 refuses as PostgreSQL does.
				b.WriteString(body[j : j+2+end+2])
			}
			j += 2 + end + 1
		case body[j] == '[' && j+1 < len(body) && (body[j+1] == '.' || body[j+1] == '='):
			end := strings.Index(body[j+2:], string(body[j+1])+"]")
			if end < 0 {
				b.WriteString(body[j:])
				return b.String()
			}
			b.WriteString(body[j : j+2+end+2])
			j += 2 + end + 1
		default:
			// A character (or a hexadecimal escape) alone or starting
			// a range. With case-insensitive matching a character
			// stands for its case mappings, as outside brackets, and a
			// range for itself and the case mappings of its characters.
			lo, n, ok := bracketChar(body, j)
			if !ok {
				b.WriteString(body[j:])
				return b.String()
			}
			hi, m := lo, 0
			if k := j + n; k+1 < len(body) && body[k] == '-' && body[k+1] != '[' {
				if r, n2, ok := bracketChar(body, k+1); ok {
					hi, m = r, 1+n2
				}
			}
			j += n + m - 1
			switch {
			case lo < 0 || hi < 0:
				// Beyond Unicode: matches nothing.
			case m > 0:
				writeRange(&b, lo, hi)
				if o.icase {
					rangeCases(&b, lo, hi, o)
				}
			case o.icase:
				lc, uc := reLower(lo, o), reUpper(lo, o)
				writeRange(&b, lc, lc)
				if uc != lc {
					writeRange(&b, uc, uc)
				}
			default:
				writeRange(&b, lo, lo)
			}
		}
	}
	return b.String()
}

// bracketChar reads the character of a bracket expression at body[j]:
// a character as written or a hexadecimal escape (hexEscape); n is the
// bytes it takes. ok is false for a malformed escape.
func bracketChar(body string, j int) (r rune, n int, ok bool) {
	if body[j] == '\\' && j+1 < len(body) {
		if r, end, ok := hexEscape(body, j+1); ok {
			return r, end - j + 1, true
		}
		return 0, 0, false
	}
	r, n = utf8.DecodeRuneInString(body[j:])
	return r, n, true
}

// hexEscape reads the escape whose letter is p[i] (x, u or U) as
// PostgreSQL does: \x takes every hexadecimal digit that follows, \u
// four and \U eight. end is the index of its last digit; r is -1 beyond
// Unicode (a character no text holds). ok is false when the digits are
// missing.
func hexEscape(p string, i int) (r rune, end int, ok bool) {
	want := map[byte]int{'x': 0, 'u': 4, 'U': 8}[p[i]]
	j := i + 1
	v := int64(0)
	for j < len(p) && (want == 0 || j-i-1 < want) {
		var d byte
		switch c := p[j]; {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			d = 16
		}
		if d == 16 {
			break
		}
		if v <= unicode.MaxRune {
			v = v*16 + int64(d)
		}
		j++
	}
	if j == i+1 || want > 0 && j-i-1 < want {
		return 0, 0, false
	}
	if v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return -1, j - 1, true
	}
	return rune(v), j - 1, true
}

// isASCIILetter reports whether c is an ASCII letter.
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// reLower and reUpper are the case mappings of case-insensitive
// matching: C.UTF-8's, or ASCII's in the C locale.
func reLower(r rune, o reOpts) rune {
	if o.cLocale {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func reUpper(r rune, o reOpts) rune {
	if o.cLocale {
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	return unicode.ToUpper(r)
}

// writeCases writes the literal character r of a case-insensitive
// pattern as PostgreSQL's allcases has it match: its lower- and its
// upper-case mapping (so a title-case 'ǅ' matches 'ǆ' and 'Ǆ' but not
// itself).
func writeCases(b *strings.Builder, r rune, o reOpts) {
	lc, uc := reLower(r, o), reUpper(r, o)
	if lc == uc {
		b.WriteString(regexp.QuoteMeta(string(lc)))
		return
	}
	b.WriteByte('[')
	writeRange(b, lc, lc)
	writeRange(b, uc, uc)
	b.WriteByte(']')
}

// maxCaseRange is the most characters of a bracket range whose case
// variants are added (PostgreSQL's limit).
const maxCaseRange = 100000

// rangeCases writes, for a bracket range lo-hi of a case-insensitive
// pattern, the lower- and upper-case mappings of its characters that
// fall outside it, as PostgreSQL's range does.
func rangeCases(b *strings.Builder, lo, hi rune, o reOpts) {
	if hi < lo || hi-lo >= maxCaseRange {
		return
	}
	for c := lo; c <= hi; c++ {
		for _, v := range [2]rune{reLower(c, o), reUpper(c, o)} {
			if v != c && (v < lo || v > hi) {
				writeRange(b, v, v)
			}
		}
	}
}

// quoteRE is the RE2 form of the literal pattern p (option q).
func quoteRE(p string, o reOpts) string {
	if !o.icase {
		return regexp.QuoteMeta(p)
	}
	var b strings.Builder
	for _, r := range p {
		writeCases(&b, r, o)
	}
	return b.String()
}

// bracketEnd returns the index of the ] closing the bracket expression
// that opens at p[i], or -1: a ] right after [ or [^ is a member, and
// [:class:], [.x.] and [=x=] are skipped whole.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '\\' && j+1 < len(p):
			j++
		case p[j] == '[' && j+1 < len(p) && strings.ContainsRune(":.=", rune(p[j+1])):
			end := strings.Index(p[j+2:], string(p[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += 2 + end + 1
		case p[j] == ']':
			return j
		}
	}
	return -1
}
