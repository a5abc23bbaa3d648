package functions

import (
	"strings"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// similarToEscape translates a SQL SIMILAR TO pattern into the POSIX
// regular expression PostgreSQL's similar_to_escape builds (regexp.c):
// the whole pattern is anchored, % and _ become .* and ., groups do not
// capture, the regex metacharacters SIMILAR TO does not have (\ . ^ $)
// are escaped, and the escape character (\ unless esc says otherwise;
// none when esc is empty) makes the next character literal, except that
// escape-double-quote separates the at most three parts of a pattern
// whose middle one substring(... SIMILAR ...) returns.
func similarToEscape(pat string, esc *string) (string, error) {
	parts, err := similarParts(pat, esc)
	if err != nil {
		return "", err
	}
	out := "^(?:" + parts[0]
	if len(parts) > 1 {
		out += "){1,1}?(" + parts[1]
	}
	if len(parts) > 2 {
		out += "){1,1}(?:" + parts[2]
	}
	return out + ")$", nil
}

// similarParts translates pat as similarToEscape does, returning the
// translations of the parts escape-double-quote separates (one, two or
// three) without anchors or the groups around them.
func similarParts(pat string, esc *string) ([]string, error) {
	e, hasEsc := '\\', true
	if esc != nil {
		switch utf8.RuneCountInString(*esc) {
		case 0:
			hasEsc = false
		case 1:
			e, _ = utf8.DecodeRuneInString(*esc)
		default:
			return nil, pgerr.New(pgerr.InvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
	}
	var parts []string
	var sb strings.Builder
	afterEscape, inClass := false, false
	nquotes := 0
	for _, c := range pat {
		switch {
		case afterEscape:
			if c == '"' && !inClass {
				if nquotes == 2 {
					return nil, pgerr.New("2200C", "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				parts = append(parts, sb.String())
				sb.Reset()
				nquotes++
			} else {
				sb.WriteByte('\\')
				sb.WriteRune(c)
			}
			afterEscape = false
		case hasEsc && c == e:
			afterEscape = true
		case inClass:
			if c == '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			sb.WriteRune(c)
			inClass = true
		case c == '%':
			sb.WriteString(".*")
		case c == '_':
			sb.WriteByte('.')
		case c == '(':
			sb.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			sb.WriteByte('\\')
			sb.WriteRune(c)
		default:
			sb.WriteRune(c)
		}
	}
	return append(parts, sb.String()), nil
}

// overlayText is overlay(s PLACING r FROM from [FOR n]) on characters:
// s's first from-1 characters, then r, then s from from+n on (n is r's
// length when absent).
func overlayText(s, r string, from, n int64) (string, error) {
	end, err := overlayEnd(from, n)
	if err != nil {
		return "", err
	}
	head, err := substring(s, 1, from-1, true)
	if err != nil {
		return "", err
	}
	tail, _ := substring(s, end, 0, false)
	return head + r + tail, nil
}

// overlayBytes is overlay on bytes (bytea).
func overlayBytes(s, r string, from, n int64) (string, error) {
	end, err := overlayEnd(from, n)
	if err != nil {
		return "", err
	}
	if from-1 < 0 {
		return "", pgerr.New("22011", "negative substring length not allowed")
	}
	head := s[:min(from-1, int64(len(s)))]
	tail := s[min(max(end, 1)-1, int64(len(s))):]
	return head + r + tail, nil
}

// overlayEnd is from+n, the first position kept after the replaced part.
func overlayEnd(from, n int64) (int64, error) {
	end := from + n
	if end > 1<<31-1 || end < -(1<<31) {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	return end, nil
}

// similarOverloads lists similar_to_escape and overlay (docs §9.4, §9.7.2).
func similarOverloads() []*Overload {
	var os []*Overload
	similarToEscapeImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		var esc *string
		if len(d) > 1 {
			esc = &d[1].S
		}
		s, err := similarToEscape(d[0].S, esc)
		if err != nil {
			return types.NullDatum, err
		}
		return dText(s)
	})
	os = append(os, fn("similar_to_escape", similarToEscapeImpl, tText, tText),
		fn("similar_to_escape", similarToEscapeImpl, tText, tText, tText))
	overlayImpl := func(args []types.T, _ types.T) (Impl, bool) {
		bytea := args[0].ID == types.Bytea
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			s, r := d[0].S, d[1].S
			var n int64
			if len(d) > 3 {
				n = d[3].I
			} else if bytea {
				n = int64(len(r))
			} else {
				n = int64(utf8.RuneCountInString(r))
			}
			var out string
			var err error
			if bytea {
				out, err = overlayBytes(s, r, d[2].I, n)
			} else {
				out, err = overlayText(s, r, d[2].I, n)
			}
			if err != nil {
				return types.NullDatum, err
			}
			return types.DString(out), nil
		}}, true
	}
	os = append(os, fn("overlay", overlayImpl, tText, tText, tText, tI4),
		fn("overlay", overlayImpl, tText, tText, tText, tI4, tI4),
		fn("overlay", overlayImpl, tBytea, tBytea, tBytea, tI4),
		fn("overlay", overlayImpl, tBytea, tBytea, tBytea, tI4, tI4))
	return os
}
