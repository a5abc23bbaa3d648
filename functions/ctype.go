package functions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run gen_ctype.go

// Character classification and case mapping follow the database's
// LC_CTYPE, C.UTF-8 (glibc's), as PostgreSQL's do in a UTF-8 database
// created with --lc-ctype=C.UTF-8: upper, lower and initcap map each
// character by its simple Unicode case mapping (towupper, towlower:
// unicode.ToUpper and unicode.ToLower give the same), so 'ß' keeps its
// case; ILIKE compares lower() of both sides; the character classes of
// regular expressions ([[:alpha:]], \w, \d, \s, ...) are glibc's
// (ctype_tables.go). Collation stays C: text sorts by its bytes.

// lowerIn is lower(): every character by its simple lower-case
// mapping, or only ASCII letters under LC_CTYPE C (cLocale).
func lowerIn(s string, cLocale bool) string {
	if cLocale {
		return strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, s)
	}
	// strings.ToLower maps by unicode.ToLower, with a fast path for
	// ASCII.
	return strings.ToLower(s)
}

// upperIn is upper(): every character by its simple upper-case
// mapping, or only ASCII letters under LC_CTYPE C (cLocale).
func upperIn(s string, cLocale bool) string {
	if cLocale {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, s)
	}
	return strings.ToUpper(s)
}

// isAlnum is iswalnum in C.UTF-8: alpha (which holds the digits of
// other scripts) or an ASCII digit.
func isAlnum(r rune) bool { return r >= '0' && r <= '9' || unicode.Is(ctypeAlpha, r) }

// initcap upper-cases the first character of every run of alphanumeric
// characters and lower-cases the rest, as PostgreSQL's str_initcap does:
// a character begins a word when the one before it, once mapped, is not
// alphanumeric (iswalnum); other characters separate words and are
// mapped too (to upper case, a no-op for most). Under LC_CTYPE C
// (cLocale) only ASCII letters and digits are alphanumeric and only
// ASCII letters change case.
func initcap(s string, cLocale bool) string {
	var b strings.Builder
	b.Grow(len(s))
	wasAlnum := false
	for _, r := range s {
		switch {
		case cLocale && r >= utf8.RuneSelf:
			wasAlnum = false
		case cLocale:
			if wasAlnum && r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			} else if !wasAlnum && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			wasAlnum = r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		default:
			if wasAlnum {
				r = unicode.ToLower(r)
			} else {
				r = unicode.ToUpper(r)
			}
			wasAlnum = isAlnum(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ctypeClasses are the tables of the character classes a regular
// expression may name in brackets ([[:alpha:]]), by name, as PostgreSQL's
// cclasscvec builds them: the locale's for alpha, upper, lower, space,
// punct, print and graph, fixed ASCII (and C1 control) sets for digit,
// xdigit, blank and cntrl whatever the locale; alnum and word are
// unions; ascii is Go's own.
var ctypeClasses = map[string][]*unicode.RangeTable{
	"alpha": {ctypeAlpha}, "upper": {ctypeUpper}, "lower": {ctypeLower}, "digit": {ctypeDigit},
	"space": {ctypeSpace}, "punct": {ctypePunct}, "print": {ctypePrint}, "graph": {ctypeGraph},
	"cntrl": {ctypeCntrl}, "xdigit": {ctypeXdigit}, "blank": {ctypeBlank},
	"alnum": {ctypeAlpha, ctypeDigit}, "word": {ctypeAlpha, ctypeDigit, wordUnderscore},
}

// The classes PostgreSQL fixes whatever the locale, and '_' (which \w
// adds to alnum).
var (
	ctypeDigit     = &unicode.RangeTable{R16: []unicode.Range16{{'0', '9', 1}}}
	ctypeXdigit    = &unicode.RangeTable{R16: []unicode.Range16{{'0', '9', 1}, {'A', 'F', 1}, {'a', 'f', 1}}}
	ctypeBlank     = &unicode.RangeTable{R16: []unicode.Range16{{'\t', '\t', 1}, {' ', ' ', 1}}}
	ctypeCntrl     = &unicode.RangeTable{R16: []unicode.Range16{{0, 0x1F, 1}, {0x7F, 0x9F, 1}}}
	wordUnderscore = &unicode.RangeTable{R16: []unicode.Range16{{'_', '_', 1}}}
)

// classRanges writes the members of the tables ts as the body of an RE2
// bracket expression (ranges of \x{...}, possibly overlapping).
func classRanges(b *strings.Builder, ts ...*unicode.RangeTable) {
	for _, t := range ts {
		for _, r := range t.R16 {
			writeRange(b, rune(r.Lo), rune(r.Hi))
		}
		for _, r := range t.R32 {
			writeRange(b, rune(r.Lo), rune(r.Hi))
		}
	}
}

func writeRange(b *strings.Builder, lo, hi rune) {
	if lo == hi {
		fmt.Fprintf(b, `\x{%X}`, lo)
		return
	}
	fmt.Fprintf(b, `\x{%X}-\x{%X}`, lo, hi)
}

// classComplement writes, as classRanges does, the characters that are
// in none of the tables ts.
func classComplement(b *strings.Builder, ts ...*unicode.RangeTable) {
	var rs [][2]rune
	for _, t := range ts {
		for _, r := range t.R16 {
			rs = append(rs, [2]rune{rune(r.Lo), rune(r.Hi)})
		}
		for _, r := range t.R32 {
			rs = append(rs, [2]rune{rune(r.Lo), rune(r.Hi)})
		}
	}
	slices.SortFunc(rs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	next := rune(0)
	for _, r := range rs {
		if r[0] > next {
			writeRange(b, next, r[0]-1)
		}
		next = max(next, r[1]+1)
	}
	if next <= unicode.MaxRune {
		writeRange(b, next, unicode.MaxRune)
	}
}

// classTables returns the tables of the character class name (as
// ctypeClasses), or its C locale's form when cLocale: the ASCII members
// of alpha, upper, lower, space, punct, print, graph, alnum and word.
func classTables(name string, cLocale bool) ([]*unicode.RangeTable, bool) {
	if cLocale {
		ts, ok := asciiClasses()[name]
		return ts, ok
	}
	ts, ok := ctypeClasses[name]
	return ts, ok
}

// asciiClasses are the C locale's classes, built once from ctypeClasses.
var asciiClasses = sync.OnceValue(func() map[string][]*unicode.RangeTable {
	m := map[string][]*unicode.RangeTable{}
	for name, ts := range ctypeClasses {
		switch name {
		case "digit", "xdigit", "blank", "cntrl":
			m[name] = ts
			continue
		}
		t := &unicode.RangeTable{}
		for _, x := range ts {
			for _, r := range x.R16 {
				if r.Lo <= unicode.MaxASCII {
					t.R16 = append(t.R16, unicode.Range16{Lo: r.Lo, Hi: min(r.Hi, unicode.MaxASCII), Stride: 1})
				}
			}
		}
		m[name] = []*unicode.RangeTable{t}
	}
	return m
})
