package functions

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// String functions and operators (docs §9.4, §9.7). Lengths and positions
// count characters (runes), as Postgres does in UTF8 databases.

func dText(s string) (types.Datum, error) { return types.DString(s), nil }
func dInt(i int64) (types.Datum, error)   { return types.DInt(i), nil }

// outputValue returns d (non-NULL, of type t) as Postgres's output
// function prints it, for concat(), concat_ws() and format(): booleans are
// t and f there.
func outputValue(ctx *Context, d types.Datum, t types.T) string {
	if t.ID == types.Bool {
		if d.I != 0 {
			return "t"
		}
		return "f"
	}
	return formatValue(ctx, d, t)
}

// formatValue returns d (non-NULL, of type t) as its cast to text gives
// it, for text || anynonarray and JSON keys: booleans are true and false
// (Postgres's bool-to-text cast), every other type as its output function
// prints it.
func formatValue(ctx *Context, d types.Datum, t types.T) string {
	switch {
	case t.IsString() || t.ID == types.Unknown:
		return d.S
	case t.IsInteger() || t.ID == types.Oid:
		return strconv.FormatInt(d.I, 10)
	case t.ID == types.Bool:
		if d.I != 0 {
			return "true"
		}
		return "false"
	case t.ID == types.Numeric:
		return d.D.Text('f')
	}
	return types.FormatText(d, t, ctx.loc())
}

func runeSlice(s string, from, to int) string {
	// from and to are 0-based rune offsets, clamped by the caller.
	i, start, end := 0, len(s), len(s)
	for pos := range s {
		if i == from {
			start = pos
		}
		if i == to {
			end = pos
			break
		}
		i++
	}
	if from >= i && start == len(s) {
		return ""
	}
	return s[start:end]
}

// substring is Postgres's text_substr: characters start .. start+n-1
// (1-based; start may be below 1), n < 0 is 22011.
func substring(s string, start int64, n int64, hasLen bool) (string, error) {
	if hasLen && n < 0 {
		return "", pgerr.New("22011", "negative substring length not allowed")
	}
	l := int64(utf8.RuneCountInString(s))
	end := l + 1
	if hasLen {
		end = start + n
		if end < start { // overflow
			end = l + 1
		}
	}
	from := max(start, 1)
	if end > l+1 {
		end = l + 1
	}
	if from >= end {
		return "", nil
	}
	return runeSlice(s, int(from-1), int(end-1)), nil
}

func trimChars(s, chars string, left, right bool) string {
	set := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, set)
	}
	if right {
		s = strings.TrimRightFunc(s, set)
	}
	return s
}

func pad(s string, n int64, fill string, left bool) string {
	if n <= 0 {
		return ""
	}
	rs := []rune(s)
	if int64(len(rs)) >= n || fill == "" {
		if int64(len(rs)) > n {
			rs = rs[:n]
		}
		return string(rs)
	}
	fr := []rune(fill)
	padding := make([]rune, 0, n-int64(len(rs)))
	for i := 0; int64(len(padding)) < n-int64(len(rs)); i++ {
		padding = append(padding, fr[i%len(fr)])
	}
	if left {
		return string(padding) + s
	}
	return s + string(padding)
}

// reservedWords are the keywords quote_ident must quote (Postgres's
// reserved and type-function-name keywords that are commonly hit).
var reservedWords = map[string]bool{"all": true, "analyse": true, "analyze": true, "and": true, "any": true,
	"array": true, "as": true, "asc": true, "both": true, "case": true, "cast": true, "check": true,
	"collate": true, "column": true, "constraint": true, "create": true, "current_date": true,
	"current_role": true, "current_time": true, "current_timestamp": true, "current_user": true,
	"default": true, "desc": true, "distinct": true, "do": true, "else": true, "end": true,
	"except": true, "false": true, "fetch": true, "for": true, "foreign": true, "from": true,
	"grant": true, "group": true, "having": true, "in": true, "initially": true, "intersect": true,
	"into": true, "join": true, "leading": true, "limit": true, "localtime": true, "localtimestamp": true,
	"not": true, "null": true, "offset": true, "on": true, "only": true, "or": true, "order": true,
	"placing": true, "primary": true, "references": true, "returning": true, "select": true,
	"session_user": true, "some": true, "symmetric": true, "table": true, "then": true, "to": true,
	"trailing": true, "true": true, "union": true, "unique": true, "user": true, "using": true,
	"variadic": true, "when": true, "where": true, "window": true, "with": true, "left": true,
	"right": true, "inner": true, "outer": true, "full": true, "cross": true, "natural": true,
	"is": true, "like": true, "ilike": true, "between": true, "similar": true}

// quoteIdent is quote_ident: quotes unless s is a lower-case identifier
// that is not a reserved word.
func quoteIdent(s string) string {
	safe := s != "" && !reservedWords[s]
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral is quote_literal: single quotes doubled; a backslash makes
// it an E” string with backslashes doubled.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		q = "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// pgFormat implements format(): %s, %I, %L, %% with optional n$ argument
// positions and width, flag '-'.
func pgFormat(ctx *Context, f string, args []types.Datum, ts []types.T) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// Optional argument position n$.
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j < len(f) && f[j] == '$' && j > i {
			n, _ := strconv.Atoi(f[i:j])
			if n == 0 {
				return "", pgerr.New(pgerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
			}
			next = n - 1
			i = j + 1
		}
		leftAlign := false
		if i < len(f) && f[i] == '-' {
			leftAlign = true
			i++
		}
		width := 0
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			width = width*10 + int(f[i]-'0')
			i++
		}
		if i >= len(f) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier")
		}
		if next >= len(args) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "too few arguments for format()")
		}
		a, t := args[next], ts[next]
		next++
		var s string
		switch f[i] {
		case 's':
			if !a.Null {
				s = outputValue(ctx, a, t)
			}
		case 'I':
			if a.Null {
				return "", pgerr.New(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(outputValue(ctx, a, t))
		case 'L':
			if a.Null {
				s = "NULL"
			} else {
				s = quoteLiteral(outputValue(ctx, a, t))
			}
		default:
			return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", f[i]).
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if n := utf8.RuneCountInString(s); n < width {
			if leftAlign {
				s += strings.Repeat(" ", width-n)
			} else {
				s = strings.Repeat(" ", width-n) + s
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// likeEscape is like_escape(pattern, escape), what x LIKE pattern
// ESCAPE escape matches with: pattern rewritten to escape with a
// backslash, as PostgreSQL's do_like_escape rewrites it (an empty escape
// makes every backslash literal).
func likeEscape(pattern, escape string) (string, error) {
	if escape == "\\" {
		return pattern, nil
	}
	if utf8.RuneCountInString(escape) > 1 {
		return "", pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var b strings.Builder
	if escape == "" {
		return strings.ReplaceAll(pattern, "\\", "\\\\"), nil
	}
	e, _ := utf8.DecodeRuneInString(escape)
	after := false
	for _, r := range pattern {
		switch {
		case r == e && !after:
			b.WriteByte('\\')
			after = true
		case r == '\\':
			b.WriteByte('\\')
			if !after {
				b.WriteByte('\\')
			}
			after = false
		default:
			b.WriteRune(r)
			after = false
		}
	}
	return b.String(), nil
}

// likeMatch reports whether s matches the LIKE pattern p (% any string,
// _ one character, \ escapes the next character), as PostgreSQL's
// MatchText: a % searches for a place the rest of the pattern matches,
// and a search that runs out of text gives up on every earlier % too
// (likeAbort), so a pattern of many %s takes polynomial, not exponential,
// time. A pattern ending in an escape is 22025 only when the match gets
// that far, as in PostgreSQL.
func likeMatch(s, p []rune) (bool, error) {
	r, err := likeMatchText(s, p)
	return r == likeTrue, err
}

// likeResult is MatchText's result: a match, none, or none here nor
// with any later start for an enclosing % (LIKE_ABORT).
type likeResult int

const (
	likeFalse likeResult = iota
	likeTrue
	likeAbort
)

// errLikeEndsInEscape is PostgreSQL's error for a LIKE pattern ending in
// its escape character.
var errLikeEndsInEscape = pgerr.New(pgerr.InvalidEscapeSequence, "LIKE pattern must not end with escape character")

func likeMatchText(t, p []rune) (likeResult, error) {
	if len(p) == 1 && p[0] == '%' {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errLikeEndsInEscape
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			p = p[1:]
			// Any run of %s and _s is one % after as many characters
			// as there are _s.
			for len(p) > 0 && (p[0] == '%' || p[0] == '_') {
				if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t = t[1:]
				}
				p = p[1:]
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			first := p[0]
			if first == '\\' {
				if len(p) < 2 {
					return likeFalse, errLikeEndsInEscape
				}
				first = p[1]
			}
			for ; len(t) > 0; t = t[1:] {
				if t[0] != first {
					continue
				}
				if r, err := likeMatchText(t, p); r != likeFalse || err != nil {
					return r, err
				}
			}
			return likeAbort, nil
		case '_':
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

// regexpMatch is regexp_match(s, pattern, flags): the first match's
// capture groups as a text[] (an unmatched group NULL), or the whole
// match when the pattern has no groups; NULL without a match. Flag i
// ignores case; g is refused, as Postgres refuses it.
func regexpMatch(s, pat, flags string) (types.Datum, error) {
	o, err := parseREOpts(flags)
	if err != nil {
		return types.NullDatum, err
	}
	if o.global {
		return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "regexp_match() does not support the \"global\" option").
			WithHint("Use the regexp_matches function instead.")
	}
	re, err := aregexOpts(pat, o)
	if err != nil {
		return types.NullDatum, err
	}
	ms, err := re.submatches(s, 0, 1)
	if err != nil {
		return types.NullDatum, err
	}
	if len(ms) == 0 {
		return types.NullDatum, nil
	}
	return types.DString(matchArray(s, ms[0], re.groups())), nil
}

// RegexpSplit splits s at the matches of the regular expression pat as
// regexp_split_to_table and regexp_split_to_array do (PostgreSQL's
// setup_regexp_matches with ignore_degenerate): a zero-length match at
// the start or end of s, or right after the previous match, does not
// split. Flag g is refused (22023) with fn's name, as PostgreSQL does.
func RegexpSplit(s, pat, flags, fn string) ([]string, error) {
	o, err := parseREOpts(flags)
	if err != nil {
		return nil, err
	}
	if o.global {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
	}
	re, err := aregexOpts(pat, o)
	if err != nil {
		return nil, err
	}
	ms, err := re.submatches(s, 0, -1)
	if err != nil {
		return nil, err
	}
	var out []string
	start, prev := 0, 0
	for _, m := range ms {
		if m[0] < len(s) && m[1] > prev {
			out = append(out, s[start:m[0]])
			start = m[1]
		}
		prev = m[1]
	}
	return append(out, s[start:]), nil
}

// regexpReplace is regexp_replace(s, pattern, replacement, flags): \1..\9
// and \& in the replacement refer to groups; flag g replaces every match,
// i ignores case.
func regexpReplace(s, pat, rep, flags string) (string, error) {
	o, err := parseREOpts(flags)
	if err != nil {
		return "", err
	}
	global := o.global
	re, err := aregexOpts(pat, o)
	if err != nil {
		return "", err
	}
	n := 1
	if global {
		n = -1
	}
	ms, err := re.submatches(s, 0, n)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	last := 0
	for _, loc := range ms {
		out.WriteString(s[last:loc[0]])
		expandReplacement(&out, rep, s, loc)
		last = loc[1]
	}
	out.WriteString(s[last:])
	return out.String(), nil
}

// expandReplacement writes regexp_replace's replacement rep for the
// match loc of s: \1 .. \9 are the groups (empty when a group did not
// take part or does not exist), \& the whole match, \\ a backslash.
func expandReplacement(b *strings.Builder, rep, s string, loc []int) {
	group := func(k int) {
		if 2*k+1 < len(loc) && loc[2*k] >= 0 {
			b.WriteString(s[loc[2*k]:loc[2*k+1]])
		}
	}
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		switch {
		case c == '\\' && i+1 < len(rep) && rep[i+1] >= '1' && rep[i+1] <= '9':
			group(int(rep[i+1] - '0'))
			i++
		case c == '\\' && i+1 < len(rep) && rep[i+1] == '&':
			group(0)
			i++
		case c == '\\' && i+1 < len(rep) && rep[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// parseTextArray splits a text[] value in Postgres array text form into
// its elements; NULL elements come back as nil.
func parseTextArray(s string) ([]*string, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s)
	}
	body := s[1 : len(s)-1]
	var out []*string
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	for i := 0; i <= len(body); {
		var b strings.Builder
		quoted := false
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
			i++
		}
		for i < len(body) && body[i] != ',' {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
			i++
		}
		e := b.String()
		if !quoted {
			e = strings.TrimSpace(e)
		}
		if !quoted && strings.EqualFold(e, "NULL") {
			out = append(out, nil)
		} else {
			out = append(out, &e)
		}
		i++
	}
	return out, nil
}

func encodeBytes(b, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString([]byte(b)), nil
	case "base64":
		e := base64.StdEncoding.EncodeToString([]byte(b))
		var out strings.Builder
		for len(e) > 76 {
			out.WriteString(e[:76] + "\n")
			e = e[76:]
		}
		out.WriteString(e)
		return out.String(), nil
	case "escape":
		var out strings.Builder
		for i := 0; i < len(b); i++ {
			c := b[i]
			switch {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				fmt.Fprintf(&out, `\%03o`, c)
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

func decodeBytes(s, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		b, err := hex.DecodeString(s)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		return string(b), nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence")
		}
		return string(b), nil
	case "escape":
		var out []byte
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\' {
				out = append(out, '\\')
				i++
			} else if s[i] == '\\' && i+3 < len(s)+0 && i+3 <= len(s)-1+1 {
				v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
				if err != nil {
					return "", pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
				}
				out = append(out, byte(v))
				i += 3
			} else {
				out = append(out, s[i])
			}
		}
		return string(out), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

// stringOverloads lists the string functions (docs §9.4) and
// operators, the pattern matching operators (LIKE is ~~, NOT LIKE !~~,
// ILIKE ~~*, NOT ILIKE !~~*, and the POSIX regular expression operators
// ~ ~* !~ !~*), and the array functions and operators implemented here
// (docs §9.19).
func stringOverloads() []*Overload {
	var os []*Overload
	charLen := func(_ *Context, d []types.Datum) (types.Datum, error) {
		return dInt(int64(utf8.RuneCountInString(d[0].S)))
	}
	bpcharLen := func(_ *Context, d []types.Datum) (types.Datum, error) {
		return dInt(int64(utf8.RuneCountInString(types.BpcharTrim(d[0].S))))
	}
	lengthImpl := func(args []types.T, _ types.T) (Impl, bool) {
		switch args[0].ID {
		case types.Bytea:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return dInt(int64(len(d[0].S))) }}, true
		case types.Bpchar:
			return Impl{Row: bpcharLen}, true
		}
		return Impl{Row: charLen}, true
	}
	// bpcharlen and bpcharoctetlen: the character count leaves out
	// character(n)'s trailing spaces, the byte count keeps them.
	os = append(os, fn("length", lengthImpl, tI4, tText), fn("length", lengthImpl, tI4, tBytea),
		fn("length", lengthImpl, tI4, tBpc))
	charLengthImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID == types.Bpchar {
			return Impl{Row: bpcharLen}, true
		}
		return Impl{Row: charLen}, true
	}
	for _, name := range []string{"char_length", "character_length"} {
		os = append(os, fn(name, charLengthImpl, tI4, tText), fn(name, charLengthImpl, tI4, tBpc))
	}
	octetLengthImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dInt(int64(len(d[0].S))) })
	os = append(os, fn("octet_length", octetLengthImpl, tI4, tText),
		fn("octet_length", octetLengthImpl, tI4, tBytea), fn("octet_length", octetLengthImpl, tI4, tBpc))
	bitLengthImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dInt(8 * int64(len(d[0].S))) })
	os = append(os, fn("bit_length", bitLengthImpl, tI4, tText))
	lowerImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) { return dText(lowerIn(d[0].S, c.inCLocale())) })
	os = append(os, fn("lower", lowerImpl, tText, tText))
	upperImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) { return dText(upperIn(d[0].S, c.inCLocale())) })
	os = append(os, fn("upper", upperImpl, tText, tText))
	initcapImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) { return dText(initcap(d[0].S, c.inCLocale())) })
	os = append(os, fn("initcap", initcapImpl, tText, tText))
	substr := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) > 1 && args[1].ID == types.Text {
			return Impl{}, false // substring(s FROM pattern): impl_regex_fns.go
		}
		bytea := args[0].ID == types.Bytea
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			var n int64
			if len(d) > 2 {
				n = d[2].I
			}
			if bytea {
				if len(d) > 2 && n < 0 {
					return types.NullDatum, pgerr.New("22011", "negative substring length not allowed")
				}
				from, end := max(d[1].I, 1), int64(len(d[0].S))+1
				if len(d) > 2 {
					end = min(end, d[1].I+n)
				}
				if from >= end {
					return dText("")
				}
				return dText(d[0].S[from-1 : end-1])
			}
			s, err := substring(d[0].S, d[1].I, n, len(d) > 2)
			return types.DString(s), err
		}}, true
	}
	os = append(os, fn("substr", substr, tText, tText, tI4), fn("substr", substr, tText, tText, tI4, tI4),
		fn("substr", substr, tBytea, tBytea, tI4), fn("substr", substr, tBytea, tBytea, tI4, tI4))
	os = append(os, fn("substring", substr, tText, tText, tI4), fn("substring", substr, tText, tText, tI4, tI4))
	strpos := func(_ *Context, d []types.Datum) (types.Datum, error) {
		i := strings.Index(d[0].S, d[1].S)
		if i < 0 {
			return dInt(0)
		}
		return dInt(int64(utf8.RuneCountInString(d[0].S[:i])) + 1)
	}
	// position(string, substring) as in pg_proc; SQL's POSITION(sub IN s)
	// binds to position(s, sub).
	os = append(os, fn("position", row(strpos), tI4, tText, tText))
	os = append(os, fn("strpos", row(strpos), tI4, tText, tText))
	replaceImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[1].S == "" {
			return dText(d[0].S)
		}
		return dText(strings.ReplaceAll(d[0].S, d[1].S, d[2].S))
	})
	os = append(os, fn("replace", replaceImpl, tText, tText, tText, tText))
	trim := func(left, right bool) RowFn {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			chars := " "
			if len(d) > 1 {
				chars = d[1].S
			}
			return dText(trimChars(d[0].S, chars, left, right))
		}
	}
	btrimImpl := row(trim(true, true))
	os = append(os, fn("btrim", btrimImpl, tText, tText), fn("btrim", btrimImpl, tText, tText, tText))
	trimImpl := row(trim(true, true))
	os = append(os, fn("trim", trimImpl, tText, tText), fn("trim", trimImpl, tText, tText, tText))
	ltrimImpl := row(trim(true, false))
	os = append(os, fn("ltrim", ltrimImpl, tText, tText), fn("ltrim", ltrimImpl, tText, tText, tText))
	rtrimImpl := row(trim(false, true))
	os = append(os, fn("rtrim", rtrimImpl, tText, tText), fn("rtrim", rtrimImpl, tText, tText, tText))
	padFn := func(left bool) RowFn {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			fill := " "
			if len(d) > 2 {
				fill = d[2].S
			}
			// Postgres limits a value to 1 GB; check before building it
			// (characters take at most 4 bytes in UTF-8).
			if d[1].I > (1<<30)/4 {
				return types.NullDatum, pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
			}
			return dText(pad(d[0].S, d[1].I, fill, left))
		}
	}
	lpadImpl := row(padFn(true))
	os = append(os, fn("lpad", lpadImpl, tText, tText, tI4), fn("lpad", lpadImpl, tText, tText, tI4, tText))
	rpadImpl := row(padFn(false))
	os = append(os, fn("rpad", rpadImpl, tText, tText, tI4), fn("rpad", rpadImpl, tText, tText, tI4, tText))
	leftImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		rs, n := []rune(d[0].S), d[1].I
		if n < 0 {
			n = max(int64(len(rs))+n, 0)
		}
		return dText(string(rs[:min(n, int64(len(rs)))]))
	})
	os = append(os, fn("left", leftImpl, tText, tText, tI4))
	rightImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		rs, n := []rune(d[0].S), d[1].I
		if n < 0 {
			n = max(int64(len(rs))+n, 0)
		}
		n = min(n, int64(len(rs)))
		return dText(string(rs[int64(len(rs))-n:]))
	})
	os = append(os, fn("right", rightImpl, tText, tText, tI4))
	repeatImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[1].I <= 0 {
			return dText("")
		}
		if int64(len(d[0].S))*d[1].I > 1<<30 {
			return types.NullDatum, pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
		}
		return dText(strings.Repeat(d[0].S, int(d[1].I)))
	})
	os = append(os, fn("repeat", repeatImpl, tText, tText, tI4))
	reverseImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		rs := []rune(d[0].S)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return dText(string(rs))
	})
	os = append(os, fn("reverse", reverseImpl, tText, tText))
	splitPartImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		n := d[2].I
		if n == 0 {
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
		}
		var parts []string
		if d[1].S == "" {
			parts = []string{d[0].S}
			if d[0].S == "" {
				parts = nil
			}
		} else {
			parts = strings.Split(d[0].S, d[1].S)
		}
		if n < 0 {
			n = int64(len(parts)) + n + 1
		}
		if n < 1 || n > int64(len(parts)) {
			return dText("")
		}
		return dText(parts[n-1])
	})
	os = append(os, fn("split_part", splitPartImpl, tText, tText, tText, tI4))
	// num_nulls and num_nonnulls count their NULL and non-NULL
	// arguments (docs §9.2, "Comparison Functions").
	for _, name := range []string{"num_nulls", "num_nonnulls"} {
		nulls := name == "num_nulls"
		os = append(os, variadic(name, rowNS(func(_ *Context, d []types.Datum) (types.Datum, error) {
			n := 0
			for _, x := range d {
				if x.Null == nulls {
					n++
				}
			}
			return types.DInt(int64(n)), nil
		}), tI4, true, tAny))
	}
	pgConcatImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			var b strings.Builder
			for i, x := range d {
				if !x.Null {
					b.WriteString(outputValue(ctx, x, args[i]))
				}
			}
			return dText(b.String())
		}}, true
	}
	os = append(os, variadic("pg_concat", pgConcatImpl, tText, true, tAny))
	concatWsImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			var parts []string
			for i, x := range d[1:] {
				if !x.Null {
					parts = append(parts, outputValue(ctx, x, args[i+1]))
				}
			}
			return dText(strings.Join(parts, d[0].S))
		}}, true
	}
	os = append(os, variadic("concat_ws", concatWsImpl, tText, true, tText, tAny))
	// Concatenation: text || text, bytea || bytea, jsonb || jsonb, and
	// Postgres's anynonarray || text / text || anynonarray (textanycat),
	// whose non-text side is converted with its output function; the
	// array forms are listed with the array functions below.
	concatImpl := func(args []types.T, ret types.T) (Impl, bool) {
		if len(args) != 2 {
			return Impl{}, false
		}
		if ret.ID == types.Jsonb {
			return Impl{Row: jsonbConcat}, true
		}
		if ret.IsArray() {
			switch {
			case !args[1].IsArray():
				return arrayAppend(args), true
			case !args[0].IsArray():
				return arrayPrepend(args), true
			}
			return Impl{Row: arrayCat, NonStrict: true}, true
		}
		if ret.ID == types.Bytea {
			// byteacat: the raw bytes, not their text forms.
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				return types.DString(d[0].S + d[1].S), nil
			}}, true
		}
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			return dText(formatValue(ctx, d[0], args[0]) + formatValue(ctx, d[1], args[1]))
		}}, true
	}
	os = append(os, op("||", concatImpl, tText, tText, tText), op("||", concatImpl, tBytea, tBytea, tBytea),
		op("||", concatImpl, tJsonb, tJsonb, tJsonb),
		textAnyCat(concatImpl, tText, tAny), textAnyCat(concatImpl, tAny, tText),
		// text[] || text[] (array_cat) treats a NULL operand as an empty
		// array.
		nonStrict("||", concatImpl, tTArr, tTArr, tTArr))
	// array_append, array_prepend and array_cat are the || operators
	// over arrays under their function names (docs §9.19).
	arrayAppendImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return arrayAppend(args), len(args) == 2
	}
	arrayPrependImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return arrayPrepend(args), len(args) == 2
	}
	arrayCatImpl := rowNS(arrayCat)
	// trim_array(a, n): a without its last n elements; n must be between
	// 0 and a's length (2202E).
	trimArrayImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		elems, nulls, err := types.ParseTextArray(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		if n := d[1].I; n < 0 || n > int64(len(elems)) {
			return types.NullDatum, pgerr.New(pgerr.ArraySubscriptError, "number of elements to trim must be between 0 and %d", len(elems))
		}
		k := len(elems) - int(d[1].I)
		return dText(types.FormatTextArray(elems[:k], nulls[:k]))
	})
	// convert_from(bytea, encoding) and convert_to(text, encoding):
	// weir's databases are UTF8; UTF8, SQL_ASCII and LATIN1 convert.
	convertFromImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		switch normEncoding(d[1].S) {
		case "UTF8", "SQLASCII":
			if err := checkUTF8(d[0].S); err != nil {
				return types.NullDatum, err
			}
			return dText(d[0].S)
		case "LATIN1", "ISO88591":
			r := make([]rune, len(d[0].S))
			for i := 0; i < len(d[0].S); i++ {
				r[i] = rune(d[0].S[i])
			}
			return dText(string(r))
		}
		return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "invalid source encoding name \"%s\"", d[1].S)
	})
	os = append(os, fn("convert_from", convertFromImpl, tText, tBytea, tName))
	convertToImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		switch normEncoding(d[1].S) {
		case "UTF8", "SQLASCII":
			return types.DString(d[0].S), nil
		case "LATIN1", "ISO88591":
			b := make([]byte, 0, len(d[0].S))
			for _, r := range d[0].S {
				if r > 0xff {
					return types.NullDatum, pgerr.New(pgerr.UntranslatableCharacter,
						"character with byte sequence 0x%x in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\"", []byte(string(r)))
				}
				b = append(b, byte(r))
			}
			return types.DString(string(b)), nil
		}
		return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "invalid destination encoding name \"%s\"", d[1].S)
	})
	os = append(os, fn("convert_to", convertToImpl, tBytea, tText, tName))
	md5Impl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return dText(fmt.Sprintf("%x", md5.Sum([]byte(d[0].S))))
	})
	os = append(os, fn("md5", md5Impl, tText, tText), fn("md5", md5Impl, tText, tBytea))
	// sha224, sha256, sha384 and sha512 (docs §9.5): the digest of a
	// bytea, as a bytea.
	for name, sum := range map[string]func([]byte) []byte{
		"sha224": func(b []byte) []byte { s := sha256.Sum224(b); return s[:] },
		"sha256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
		"sha384": func(b []byte) []byte { s := sha512.Sum384(b); return s[:] },
		"sha512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	} {
		os = append(os, fn(name, row(func(_ *Context, d []types.Datum) (types.Datum, error) {
			return types.DString(string(sum([]byte(d[0].S)))), nil
		}), tBytea, tBytea))
	}
	asciiImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		r, _ := utf8.DecodeRuneInString(d[0].S)
		if d[0].S == "" {
			r = 0
		}
		return dInt(int64(r))
	})
	os = append(os, fn("ascii", asciiImpl, tI4, tText))
	chrImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		switch {
		case d[0].I == 0:
			return types.NullDatum, pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
		case d[0].I < 0:
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
		case d[0].I > unicode.MaxRune || (d[0].I >= 0xD800 && d[0].I <= 0xDFFF):
			return types.NullDatum, pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", d[0].I)
		}
		return dText(string(rune(d[0].I)))
	})
	os = append(os, fn("chr", chrImpl, tText, tI4))
	toHexImpl := func(args []types.T, _ types.T) (Impl, bool) {
		bits32 := args[0].ID != types.Int8
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if bits32 {
				return dText(strconv.FormatUint(uint64(uint32(d[0].I)), 16))
			}
			return dText(strconv.FormatUint(uint64(d[0].I), 16))
		}}, true
	}
	os = append(os, fn("to_hex", toHexImpl, tText, tI4), fn("to_hex", toHexImpl, tText, tI8))
	startsWith := func(_ *Context, d []types.Datum) (types.Datum, error) {
		return types.DBool(strings.HasPrefix(d[0].S, d[1].S)), nil
	}
	os = append(os, fn("starts_with", row(startsWith), tBool, tText, tText))
	likeEscapeImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		out, err := likeEscape(d[0].S, d[1].S)
		if err != nil {
			return types.Datum{}, err
		}
		return dText(out)
	})
	os = append(os, fn("like_escape", likeEscapeImpl, tText, tText, tText))
	os = append(os, fn("pg_starts_with", row(startsWith), tBool, tText, tText))
	formatImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			s, err := pgFormat(ctx, d[0].S, d[1:], args[1:])
			return types.DString(s), err
		}}, true
	}
	os = append(os, fn("format", formatImpl, tText, tText),
		variadic("format", formatImpl, tText, true, tText, tAny))
	quoteIdentImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dText(quoteIdent(d[0].S)) })
	os = append(os, fn("quote_ident", quoteIdentImpl, tText, tText))
	quoteLiteralImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dText(quoteLiteral(d[0].S)) })
	os = append(os, fn("quote_literal", quoteLiteralImpl, tText, tText))
	quoteNullableImpl := rowNS(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null {
			return dText("NULL")
		}
		return dText(quoteLiteral(d[0].S))
	})
	os = append(os, nonStrict("quote_nullable", quoteNullableImpl, tText, tText))
	regexpReplaceImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		flags := ""
		if len(d) > 3 {
			flags = d[3].S
		}
		s, err := regexpReplace(d[0].S, d[1].S, d[2].S, reFlags(c, flags))
		return types.DString(s), err
	})
	os = append(os, fn("regexp_replace", regexpReplaceImpl, tText, tText, tText, tText),
		fn("regexp_replace", regexpReplaceImpl, tText, tText, tText, tText, tText))
	regexpMatchImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		flags := ""
		if len(d) > 2 {
			flags = d[2].S
		}
		return regexpMatch(d[0].S, d[1].S, reFlags(c, flags))
	})
	os = append(os, fn("regexp_match", regexpMatchImpl, tTArr, tText, tText),
		fn("regexp_match", regexpMatchImpl, tTArr, tText, tText, tText))
	translateImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		from, to := []rune(d[1].S), []rune(d[2].S)
		return dText(strings.Map(func(r rune) rune {
			for i, f := range from {
				if f == r {
					if i < len(to) {
						return to[i]
					}
					return -1
				}
			}
			return r
		}, d[0].S))
	})
	os = append(os, fn("translate", translateImpl, tText, tText, tText, tText))
	encodeImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		s, err := encodeBytes(d[0].S, d[1].S)
		return types.DString(s), err
	})
	os = append(os, fn("encode", encodeImpl, tText, tBytea, tText))
	decodeImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		s, err := decodeBytes(d[0].S, d[1].S)
		return types.DString(s), err
	})
	os = append(os, fn("decode", decodeImpl, tBytea, tText, tText))
	pgIcaseImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dText("(?i)" + d[0].S) })
	os = append(os, fn("pg_icase", pgIcaseImpl, tText, tText))

	// LIKE and regular expressions.
	pattern := func(op string) RowFn {
		return func(ctx *Context, d []types.Datum) (types.Datum, error) {
			m, err := patternMatch(op, d[0].S, d[1].S, ctx.inCLocale())
			if err != nil {
				return types.NullDatum, err
			}
			return types.DBool(m), nil
		}
	}
	for _, name := range []string{"~~", "!~~", "~~*", "!~~*", "~*", "!~", "!~*"} {
		// bpcharlike, bpcharregexeq, ...: a character(n) value is
		// matched with its padding.
		os = append(os, op(name, row(pattern(name)), tBool, tText, tText), op(name, row(pattern(name)), tBool, tBpc, tText))
	}
	os = append(os, op("~~", row(pattern("~~")), tBool, tBytea, tBytea), op("!~~", row(pattern("!~~")), tBool, tBytea, tBytea))
	// ~ with one operand is the bitwise not (impl_bitwise.go).
	regexMatchImpl := func(args []types.T, _ types.T) (Impl, bool) { return Impl{Row: pattern("~")}, len(args) == 2 }
	os = append(os, op("~", regexMatchImpl, tBool, tText, tText), op("~", regexMatchImpl, tBool, tBpc, tText))

	// text[] functions. array_to_string(a, sep [, null_string]): NULL
	// elements are left out, or written as null_string when it is given
	// and not NULL; NULL when a or sep is.
	arrayToStringImpl := rowNS(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null || d[1].Null {
			return types.NullDatum, nil
		}
		elems, err := parseTextArray(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		var parts []string
		for _, e := range elems {
			switch {
			case e != nil:
				parts = append(parts, *e)
			case len(d) == 3 && !d[2].Null:
				parts = append(parts, d[2].S)
			}
		}
		return dText(strings.Join(parts, d[1].S))
	})
	// array_remove(a, x) (docs §9.19): a without the elements equal to
	// x (NULL removes the NULLs); NULL when a is.
	arrayRemoveImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		et := at.Elem()
		return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil {
				return types.NullDatum, err
			}
			kept := elems[:0]
			for _, e := range elems {
				same := e.Null && d[1].Null || !e.Null && !d[1].Null && types.Compare(e, d[1], et) == 0
				if !same {
					kept = append(kept, e)
				}
			}
			return types.DString(types.FormatArray(kept, et, nil)), nil
		}}, true
	}
	// string_to_array(s, sep [, null_string]) (docs §9.4): s split at
	// each sep; a NULL sep splits into characters, an empty one gives s
	// whole; pieces equal to null_string become NULL. NULL when s is.
	stringToArrayImpl := rowNS(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null {
			return types.NullDatum, nil
		}
		s := d[0].S
		var parts []string
		switch {
		case s == "":
		case d[1].Null:
			for _, r := range s {
				parts = append(parts, string(r))
			}
		case d[1].S == "":
			parts = []string{s}
		default:
			parts = strings.Split(s, d[1].S)
		}
		elems := make([]types.Datum, len(parts))
		for i, p := range parts {
			if len(d) == 3 && !d[2].Null && p == d[2].S {
				elems[i] = types.NullDatum
			} else {
				elems[i] = types.DString(p)
			}
		}
		return dText(types.FormatArray(elems, types.TText, nil))
	})
	os = append(os, nonStrict("string_to_array", stringToArrayImpl, tTArr, tText, tText),
		nonStrict("string_to_array", stringToArrayImpl, tTArr, tText, tText, tText))
	// regexp_split_to_array(s, pattern [, flags]): the pieces
	// regexp_split_to_table returns, as an array.
	regexpSplitToArrayImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		flags := ""
		if len(d) == 3 {
			flags = d[2].S
		}
		parts, err := RegexpSplit(d[0].S, d[1].S, reFlags(c, flags), "regexp_split_to_array")
		if err != nil {
			return types.NullDatum, err
		}
		elems := make([]types.Datum, len(parts))
		for i, p := range parts {
			elems[i] = types.DString(p)
		}
		return dText(types.FormatArray(elems, types.TText, nil))
	})
	os = append(os, fn("regexp_split_to_array", regexpSplitToArrayImpl, tTArr, tText, tText),
		fn("regexp_split_to_array", regexpSplitToArrayImpl, tTArr, tText, tText, tText))
	// x = ANY(text[]): true if an element equals x, NULL if none does
	// but one is NULL, false otherwise (docs §9.24.3); false over an
	// empty array even for a NULL x, as pg_any below.
	anyEqImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[1].ID == types.TextArray {
			return Impl{Row: anyEqText, NonStrict: true}, true
		}
		at := args[1]
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			return quantifiedArray(ctx, d[0], d[1], at, "=", false)
		}}, true
	}
	// x op ANY (array) and x op ALL (array), the operator named by the
	// second argument (= <> < <= > >=), x of the element type
	// (quantifiedArray).
	quantifiedImpl := func(all bool) ImplFactory {
		return func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) != 3 || !args[2].IsArray() {
				return Impl{}, false
			}
			at := args[2]
			return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
				if d[1].Null {
					return types.NullDatum, nil
				}
				return quantifiedArray(ctx, d[0], d[2], at, d[1].S, all)
			}}, true
		}
	}
	// x[i]: the i-th element (from 1), NULL outside the array.
	subscriptImpl := func(_ []types.T, ret types.T) (Impl, bool) {
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			elems, err := parseTextArray(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			if d[1].I < 1 || d[1].I > int64(len(elems)) || elems[d[1].I-1] == nil {
				return types.NullDatum, nil
			}
			if ret.ID == types.Text || ret.ID == types.Unknown {
				return dText(*elems[d[1].I-1])
			}
			return types.ParseText(*elems[d[1].I-1], ret, ctx.loc())
		}}, true
	}
	// array_fill(value, dims [, lower bounds]): a one-dimensional array
	// of dims[1] copies of value. weir's arrays are one-dimensional and
	// start at 1: other shapes are 0A000.
	arrayFillImpl := func(args []types.T, ret types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[1].Null || (len(d) > 2 && d[2].Null) {
				return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "dimension array or low bound array cannot be null")
			}
			dims, dn, err := types.ParseTextArray(d[1].S)
			if err != nil {
				return types.NullDatum, err
			}
			if len(d) > 2 {
				lbs, ln, err := types.ParseTextArray(d[2].S)
				if err != nil {
					return types.NullDatum, err
				}
				if len(lbs) != len(dims) {
					return types.NullDatum, pgerr.New("2202E", "wrong number of array subscripts").
						WithDetail("Low bound array has different size than dimensions array.")
				}
				for i := range lbs {
					if ln[i] {
						return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
					}
					if lbs[i] != "1" {
						return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
					}
				}
			}
			if len(dims) == 0 {
				return dText("{}")
			}
			if len(dims) > 1 {
				return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
			}
			if dn[0] {
				return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
			}
			n, err := strconv.Atoi(dims[0])
			if err != nil {
				return types.NullDatum, err
			}
			if n <= 0 {
				return dText("{}")
			}
			if n > 1<<20 {
				return types.NullDatum, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", 1<<20)
			}
			elems := make([]types.Datum, n)
			for i := range elems {
				elems[i] = d[0]
			}
			return types.DString(types.FormatArray(elems, args[0], nil)), nil
		}}, true
	}
	// x[lo:hi]: the elements lo to hi (from 1), clamped to the array; a
	// missing bound (NULL) is the array's end; an empty range is '{}'.
	sliceImpl := func(_ []types.T, ret types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			elems, nulls, err := types.ParseTextArray(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			lo, hi := int64(1), int64(len(elems))
			if !d[1].Null {
				lo = max(lo, d[1].I)
			}
			if !d[2].Null {
				hi = min(hi, d[2].I)
			}
			if lo > hi {
				return dText("{}")
			}
			return dText(types.FormatTextArray(elems[lo-1:hi], nulls[lo-1:hi]))
		}}, true
	}
	arrLen := func(upper bool) RowFn {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			elems, err := parseTextArray(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			if len(elems) == 0 || d[1].I != 1 {
				return types.NullDatum, nil
			}
			if upper {
				return dInt(int64(len(elems)))
			}
			return dInt(1)
		}
	}
	pgArrayElemImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 || args[0].IsArray() {
			return Impl{}, false
		}
		et := args[0]
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			// The element as FormatArray writes it: quoted when it must
			// be, NULL unquoted.
			var loc *time.Location
			if ctx != nil {
				loc = ctx.Location
			}
			s := types.FormatArray([]types.Datum{d[0]}, et, loc)
			return dText(s[1 : len(s)-1])
		}}, true
	}
	os = append(os, nonStrict("pg_array_elem", pgArrayElemImpl, tText, tAny))
	cardinalityImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		elems, err := parseTextArray(d[0].S)
		return types.DInt(int64(len(elems))), err
	})
	// The array functions and operators, one overload per array type.
	for _, at := range types.ArrayTypes() {
		a, e := at.ID, at.Elem().ID
		os = append(os, fn("array_to_string", arrayToStringImpl, tText, a, tText),
			nonStrict("array_to_string", arrayToStringImpl, tText, a, tText, tText),
			fn("array_upper", row(arrLen(true)), tI4, a, tI4), fn("array_lower", row(arrLen(false)), tI4, a, tI4),
			fn("array_length", row(arrLen(true)), tI4, a, tI4), fn("cardinality", cardinalityImpl, tI4, a),
			nonStrict("array_remove", arrayRemoveImpl, a, a, e),
			fn("pg_subscript", subscriptImpl, e, a, tI4),     // x[i]
			nonStrict("pg_slice", sliceImpl, a, a, tI4, tI4), // x[lo:hi]
			nonStrict("array_fill", arrayFillImpl, a, e, types.Int4Array),
			nonStrict("array_fill", arrayFillImpl, a, e, types.Int4Array, types.Int4Array),
			fn("trim_array", trimArrayImpl, a, a, tI4))
		// array_append, array_prepend and array_cat: the functions of
		// the || operators over arrays, as lenient with NULLs.
		app, pre := nonStrict("array_append", arrayAppendImpl, a, a, e), nonStrict("array_prepend", arrayPrependImpl, a, e, a)
		app.Polymorphic, pre.Polymorphic = true, true
		os = append(os, app, pre, nonStrict("array_cat", arrayCatImpl, a, a, a))
		// x = ANY(array): the binder casts x to the element type (to
		// text for text[]); x op ANY/ALL (array) with the operator
		// named by the middle argument.
		os = append(os, nonStrict("pg_any_eq", anyEqImpl, tBool, e, a),
			nonStrict("pg_any", quantifiedImpl(false), tBool, e, tText, a),
			nonStrict("pg_all", quantifiedImpl(true), tBool, e, tText, a))
		// anyarray || anyelement and anyelement || anyarray; a NULL
		// element is appended as NULL, a NULL array is empty.
		app, pre = nonStrict("||", concatImpl, a, a, e), nonStrict("||", concatImpl, a, e, a)
		app.Polymorphic, pre.Polymorphic = true, true
		os = append(os, app, pre)
		if a != tTArr {
			os = append(os, nonStrict("||", concatImpl, a, a, a))
		}
	}
	return os
}

// textAnyCat is text || anynonarray or anynonarray || text (textanycat,
// anytextcat).
func textAnyCat(im ImplFactory, a, b types.TypeID) *Overload {
	o := op("||", im, tText, a, b)
	o.AnyNonArray = true
	return o
}

// rowConstructor implements ROW(a, b) (pg_row): a record in record_out's text form, (1,abc), its fields
// in their output forms, a NULL field empty, and a field that is
// empty or holds a quote, backslash, parenthesis, comma or white
// space quoted, quotes and backslashes doubled.
func rowConstructor(args []types.T, _ types.T) (Impl, bool) {
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		var b strings.Builder
		b.WriteByte('(')
		for i, v := range d {
			if i > 0 {
				b.WriteByte(',')
			}
			if !v.Null {
				writeRecordField(&b, types.FormatText(v, args[i], ctx.loc()))
			}
		}
		b.WriteByte(')')
		return types.DString(b.String()), nil
	}}, true
}

// arrayConstructor implements ARRAY[...] ("array"): the elements, already of the element type, in the
// array's canonical text form.
func arrayConstructor(_ []types.T, ret types.T) (Impl, bool) {
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		// Stored form: timestamptz elements in UTC (types/array.go).
		return types.DString(types.FormatArray(d, ret.Elem(), nil)), nil
	}}, true
}

// arrayAppend is anyarray || anyelement (array_append) for argument
// types args: the element is appended, NULL as NULL; a NULL array is
// empty.
func arrayAppend(args []types.T) Impl {
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		return arrayCat(ctx, []types.Datum{d[0], types.DString(types.FormatArray(d[1:], args[1], nil))})
	}}
}

// arrayPrepend is anyelement || anyarray (array_prepend) for argument
// types args.
func arrayPrepend(args []types.T) Impl {
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		return arrayCat(ctx, []types.Datum{types.DString(types.FormatArray(d[:1], args[0], nil)), d[1]})
	}}
}

// arrayCat concatenates two text[] values; a NULL operand counts as an
// empty array, NULL || NULL is NULL (array_cat).
func arrayCat(_ *Context, d []types.Datum) (types.Datum, error) {
	switch {
	case d[0].Null:
		return d[1], nil
	case d[1].Null:
		return d[0], nil
	}
	a, an, err := types.ParseTextArray(d[0].S)
	if err != nil {
		return types.NullDatum, err
	}
	b, bn, err := types.ParseTextArray(d[1].S)
	if err != nil {
		return types.NullDatum, err
	}
	return dText(types.FormatTextArray(append(a, b...), append(an, bn...)))
}

// anyEqText is x = ANY(text[]) with x in text form: true if an element
// equals x, NULL if none does but one is NULL, false otherwise (docs
// §9.24.3).
func anyEqText(_ *Context, d []types.Datum) (types.Datum, error) {
	if d[1].Null {
		return types.NullDatum, nil
	}
	elems, err := parseTextArray(d[1].S)
	if err != nil {
		return types.NullDatum, err
	}
	if len(elems) == 0 {
		return types.DBool(false), nil
	}
	if d[0].Null {
		return types.NullDatum, nil
	}
	sawNull := false
	for _, e := range elems {
		if e == nil {
			sawNull = true
		} else if *e == d[0].S {
			return types.DBool(true), nil
		}
	}
	if sawNull {
		return types.NullDatum, nil
	}
	return types.DBool(false), nil
}

// normEncoding is an encoding name as PostgreSQL compares them: upper
// case, without '-' and '_'.
func normEncoding(s string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToUpper(s))
}

// checkUTF8 returns 22021 for the first invalid UTF-8 sequence in s, as
// PostgreSQL's verification does.
func checkUTF8(s string) error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || r == 0 {
			end := min(i+2, len(s))
			hex := make([]string, 0, 2)
			for _, c := range []byte(s[i:end]) {
				hex = append(hex, fmt.Sprintf("0x%02x", c))
			}
			return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(hex, " "))
		}
		i += n
	}
	return nil
}

// writeRecordField writes one non-NULL field of a record as record_out
// does.
func writeRecordField(b *strings.Builder, v string) {
	quote := v == "" || strings.ContainsAny(v, "\"\\(), \t\n\r\v\f")
	if quote {
		b.WriteByte('"')
	}
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			b.WriteByte(v[i])
		}
		b.WriteByte(v[i])
	}
	if quote {
		b.WriteByte('"')
	}
}

// IsPatternOp reports whether op names a pattern-matching operator: ~~
// !~~ ~~* !~~* (LIKE, NOT LIKE, ILIKE, NOT ILIKE) or ~ ~* !~ !~*.
func IsPatternOp(op string) bool {
	switch op {
	case "~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*":
		return true
	}
	return false
}

// PatternMatch reports whether the text s matches the pattern p under
// the pattern-matching operator op (IsPatternOp), negated for the !
// forms. A LIKE pattern ending in an escape is 22025 (when the match
// reaches it, as in PostgreSQL) and an invalid
// regular expression 2201B, as in PostgreSQL.
func PatternMatch(op, s, p string) (bool, error) { return patternMatch(op, s, p, false) }

// patternMatch is PatternMatch, under LC_CTYPE C when cLocale.
func patternMatch(op, s, p string, cLocale bool) (bool, error) {
	neg := strings.HasPrefix(op, "!")
	icase := strings.HasSuffix(op, "*")
	if strings.Contains(op, "~~") {
		if icase {
			s, p = lowerIn(s, cLocale), lowerIn(p, cLocale)
		}
		m, err := likeMatch([]rune(s), []rune(p))
		return m != neg, err
	}
	r, err := aregexOpts(p, reOpts{icase: icase, dotNL: true, cLocale: cLocale})
	if err != nil {
		return false, err
	}
	m, err := r.match(s)
	return m != neg, err
}

// quantifiedArray is x op ANY (arr) (all false) or x op ALL (arr), arr an
// array of type at, as PostgreSQL's ExecEvalScalarArrayOp: a NULL array
// gives NULL, an empty one false (ANY) or true (ALL) even for a NULL x,
// a NULL x NULL otherwise; then ANY is true if some comparison holds,
// else NULL if an element is NULL, else false, and ALL the dual.
func quantifiedArray(ctx *Context, x, arr types.Datum, at types.T, op string, all bool) (types.Datum, error) {
	if arr.Null {
		return types.NullDatum, nil
	}
	elems, err := types.ArrayElems(arr.S, at, ctx.loc())
	if err != nil {
		return types.NullDatum, err
	}
	if len(elems) == 0 {
		return types.DBool(all), nil
	}
	if x.Null {
		return types.NullDatum, nil
	}
	sawNull := false
	for _, e := range elems {
		if e.Null {
			sawNull = true
			continue
		}
		var holds bool
		if IsPatternOp(op) {
			if holds, err = patternMatch(op, x.S, e.S, ctx.inCLocale()); err != nil {
				return types.NullDatum, err
			}
		} else {
			holds = CmpHolds(op, types.Compare(x, e, at.Elem()))
		}
		if holds != all {
			return types.DBool(!all), nil
		}
	}
	if sawNull {
		return types.NullDatum, nil
	}
	return types.DBool(all), nil
}
