package functions

import (
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The regular expression functions PostgreSQL 15 added (regexp_count,
// regexp_instr, regexp_substr, regexp_like), regexp_matches (a
// set-returning function the executor runs over RegexpMatches) and
// substring's pattern forms, as regexp.c computes them: positions count
// characters from 1, a search starts at character start (the text
// before it still being context), matches are found one after another
// as setup_regexp_matches finds them, and the arguments are checked in
// PostgreSQL's order (start, n, endoption, subexpr, then the flags, then
// the pattern).

// badRegexArg is PostgreSQL's error for an out-of-range argument of the
// regexp_* functions.
func badRegexArg(name string, v int64) error {
	return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", name, v)
}

// regexNoGlobal parses flags and refuses g for function fn.
func regexNoGlobal(flags, fn string) (reOpts, error) {
	o, err := parseREOpts(flags)
	if err != nil {
		return o, err
	}
	if o.global {
		return o, pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
	}
	return o, nil
}

// charOffset returns the byte offset of the character at 0-based index
// i of s, and false when s has fewer than i characters.
func charOffset(s string, i int64) (int, bool) {
	if i <= 0 {
		return 0, true
	}
	n := int64(0)
	for off := range s {
		if n == i {
			return off, true
		}
		n++
	}
	return len(s), n == i
}

// regexSearch compiles pat with o and returns up to n (n < 0: all) of
// its matches in s from character start (1-based) on.
func regexSearch(s, pat string, o reOpts, start int64, n int) ([][]int, compiledRE, error) {
	re, err := aregexOpts(pat, o)
	if err != nil {
		return nil, nil, err
	}
	off, ok := charOffset(s, start-1)
	if !ok {
		return nil, re, nil
	}
	ms, err := re.submatches(s, off, n)
	return ms, re, err
}

// regexpCount is regexp_count(s, pattern [, start [, flags]]).
func regexpCount(s, pat string, start int64, flags string) (types.Datum, error) {
	if start <= 0 {
		return types.NullDatum, badRegexArg("start", start)
	}
	o, err := regexNoGlobal(flags, "regexp_count")
	if err != nil {
		return types.NullDatum, err
	}
	ms, _, err := regexSearch(s, pat, o, start, -1)
	if err != nil {
		return types.NullDatum, err
	}
	return types.DInt(int64(len(ms))), nil
}

// regexArgs are the optional arguments of regexp_instr and
// regexp_substr.
type regexArgs struct {
	start, n, endoption, subexpr int64
	flags                        string
}

// check validates the arguments in PostgreSQL's order and parses the
// flags.
func (a regexArgs) check(fn string) (reOpts, error) {
	switch {
	case a.start <= 0:
		return reOpts{}, badRegexArg("start", a.start)
	case a.n <= 0:
		return reOpts{}, badRegexArg("n", a.n)
	case a.endoption != 0 && a.endoption != 1:
		return reOpts{}, badRegexArg("endoption", a.endoption)
	case a.subexpr < 0:
		return reOpts{}, badRegexArg("subexpr", a.subexpr)
	}
	return regexNoGlobal(a.flags, fn)
}

// nthLoc returns the byte offsets of the n-th match's subexpr-th group
// (0: the whole match) among ms, and false when there is no such match
// or group. As in PostgreSQL, a pattern without groups counts its whole
// match as group 1.
func nthLoc(ms [][]int, re compiledRE, n, subexpr int64) (int, int, bool) {
	if n > int64(len(ms)) {
		return 0, 0, false
	}
	groups := int64(re.groups())
	if groups == 0 && subexpr == 1 {
		subexpr = 0
	}
	if subexpr > groups {
		return 0, 0, false
	}
	loc := ms[n-1]
	return loc[2*subexpr], loc[2*subexpr+1], true
}

// regexpInstr is regexp_instr: the 1-based character position where the
// n-th match (or its subexpr-th group) starts, or ends (endoption 1:
// the position after it); 0 when there is none.
func regexpInstr(s, pat string, a regexArgs) (types.Datum, error) {
	o, err := a.check("regexp_instr")
	if err != nil {
		return types.NullDatum, err
	}
	ms, re, err := regexSearch(s, pat, o, a.start, int(min(a.n, 1<<31)))
	if err != nil || re == nil {
		return types.DInt(0), err
	}
	so, eo, ok := nthLoc(ms, re, a.n, a.subexpr)
	at := so
	if a.endoption == 1 {
		at = eo
	}
	if !ok || at < 0 {
		return types.DInt(0), nil
	}
	return types.DInt(int64(utf8.RuneCountInString(s[:at])) + 1), nil
}

// regexpSubstr is regexp_substr: the text of the n-th match (or of its
// subexpr-th group); NULL when there is none.
func regexpSubstr(s, pat string, a regexArgs) (types.Datum, error) {
	o, err := a.check("regexp_substr")
	if err != nil {
		return types.NullDatum, err
	}
	ms, re, err := regexSearch(s, pat, o, a.start, int(min(a.n, 1<<31)))
	if err != nil || re == nil {
		return types.NullDatum, err
	}
	so, eo, ok := nthLoc(ms, re, a.n, a.subexpr)
	if !ok || so < 0 || eo < 0 {
		return types.NullDatum, nil
	}
	return types.DString(s[so:eo]), nil
}

// regexpLike is regexp_like(s, pattern [, flags]).
func regexpLike(s, pat, flags string) (types.Datum, error) {
	o, err := regexNoGlobal(flags, "regexp_like")
	if err != nil {
		return types.NullDatum, err
	}
	re, err := aregexOpts(pat, o)
	if err != nil {
		return types.NullDatum, err
	}
	ok, err := re.match(s)
	return types.DBool(ok), err
}

// matchArray is the text[] regexp_match and regexp_matches return for
// the match loc of s: its groups (NULL for one that took no part), or
// the whole match when the pattern has none.
func matchArray(s string, loc []int, groups int) string {
	if groups == 0 {
		return types.FormatTextArray([]string{s[loc[0]:loc[1]]}, []bool{false})
	}
	elems := make([]string, groups)
	nulls := make([]bool, groups)
	for i := range elems {
		if a := loc[2*i+2]; a >= 0 {
			elems[i] = s[a:loc[2*i+3]]
		} else {
			nulls[i] = true
		}
	}
	return types.FormatTextArray(elems, nulls)
}

// RegexpMatches returns the rows of regexp_matches(s, pattern [,
// flags]): the text[] of the first match, or with flag g of every
// match; none without a match.
func RegexpMatches(s, pat, flags string) ([]types.Datum, error) {
	o, err := parseREOpts(flags)
	if err != nil {
		return nil, err
	}
	re, err := aregexOpts(pat, o)
	if err != nil {
		return nil, err
	}
	n := 1
	if o.global {
		n = -1
	}
	ms, err := re.submatches(s, 0, n)
	if err != nil {
		return nil, err
	}
	out := make([]types.Datum, len(ms))
	for i, m := range ms {
		out[i] = types.DString(matchArray(s, m, re.groups()))
	}
	return out, nil
}

// regexSubstring is substring(s FROM pattern): the text the first
// parenthesised group matched, or the whole match when the pattern has
// no group; NULL without a match or when the group took no part.
func regexSubstring(s, pat string, cLocale bool) (types.Datum, error) {
	re, err := aregexOpts(pat, reOpts{dotNL: true, cLocale: cLocale})
	if err != nil {
		return types.NullDatum, err
	}
	ms, err := re.submatches(s, 0, 1)
	if err != nil || len(ms) == 0 {
		return types.NullDatum, err
	}
	so, eo := ms[0][0], ms[0][1]
	if re.groups() > 0 {
		so, eo = ms[0][2], ms[0][3]
	}
	if so < 0 || eo < 0 {
		return types.NullDatum, nil
	}
	return types.DString(s[so:eo]), nil
}

// similarSubstring is substring(s SIMILAR pattern ESCAPE esc) and
// substring(s, pattern, esc): NULL unless pattern matches all of s;
// then, when escape-double-quote separators split it into parts, the
// text the middle part matches, the first and last parts matching as
// little as they can (SQL's rule, which PostgreSQL's similar_to_escape
// writes as greediness quantifiers); else all of s.
func similarSubstring(s, pat string, esc *string) (types.Datum, error) {
	full, err := similarToEscape(pat, esc)
	if err != nil {
		return types.NullDatum, err
	}
	parts, _ := similarParts(pat, esc)
	if len(parts) == 2 {
		parts = append(parts, "")
	}
	re, err := aregexOpts(full, reOpts{dotNL: true})
	if err != nil {
		return types.NullDatum, err
	}
	if ok, err := re.match(s); err != nil || !ok {
		return types.NullDatum, err
	}
	if len(parts) == 1 {
		return types.DString(s), nil
	}
	anchored := func(p string) (compiledRE, error) { return aregexOpts("^(?:"+p+")$", reOpts{dotNL: true}) }
	var res [3]compiledRE
	for i, p := range parts {
		if res[i], err = anchored(p); err != nil {
			return types.NullDatum, err
		}
	}
	rest, err := anchored(parts[1] + ")(?:" + parts[2])
	if err != nil {
		return types.NullDatum, err
	}
	bounds := make([]int, 0, len(s)+1)
	for i := range s {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(s))
	for ki, k := range bounds {
		if ok, err := res[0].match(s[:k]); err != nil || !ok {
			if err != nil {
				return types.NullDatum, err
			}
			continue
		}
		if ok, err := rest.match(s[k:]); err != nil || !ok {
			if err != nil {
				return types.NullDatum, err
			}
			continue
		}
		for mi := len(bounds) - 1; mi >= ki; mi-- {
			m := bounds[mi]
			ok2, err := res[1].match(s[k:m])
			if err != nil {
				return types.NullDatum, err
			}
			if !ok2 {
				continue
			}
			if ok3, err := res[2].match(s[m:]); err != nil || ok3 {
				return types.DString(s[k:m]), err
			}
		}
	}
	return types.NullDatum, nil
}

// regexOverloads lists the regular expression functions of docs §9.7.3
// and substring(s FROM pattern [FOR escape]).
func regexOverloads() []*Overload {
	var os []*Overload
	str := func(d []types.Datum, i int) string {
		if i < len(d) {
			return d[i].S
		}
		return ""
	}
	num := func(d []types.Datum, i int, def int64) int64 {
		if i < len(d) {
			return d[i].I
		}
		return def
	}
	regexpCountImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		return regexpCount(d[0].S, d[1].S, num(d, 2, 1), reFlags(c, str(d, 3)))
	})
	os = append(os, fn("regexp_count", regexpCountImpl, tI4, tText, tText),
		fn("regexp_count", regexpCountImpl, tI4, tText, tText, tI4),
		fn("regexp_count", regexpCountImpl, tI4, tText, tText, tI4, tText))
	regexpInstrImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		return regexpInstr(d[0].S, d[1].S, regexArgs{start: num(d, 2, 1), n: num(d, 3, 1), endoption: num(d, 4, 0), flags: reFlags(c, str(d, 5)), subexpr: num(d, 6, 0)})
	})
	os = append(os, fn("regexp_instr", regexpInstrImpl, tI4, tText, tText),
		fn("regexp_instr", regexpInstrImpl, tI4, tText, tText, tI4),
		fn("regexp_instr", regexpInstrImpl, tI4, tText, tText, tI4, tI4),
		fn("regexp_instr", regexpInstrImpl, tI4, tText, tText, tI4, tI4, tI4),
		fn("regexp_instr", regexpInstrImpl, tI4, tText, tText, tI4, tI4, tI4, tText),
		fn("regexp_instr", regexpInstrImpl, tI4, tText, tText, tI4, tI4, tI4, tText, tI4))
	regexpSubstrImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		return regexpSubstr(d[0].S, d[1].S, regexArgs{start: num(d, 2, 1), n: num(d, 3, 1), flags: reFlags(c, str(d, 4)), subexpr: num(d, 5, 0)})
	})
	os = append(os, fn("regexp_substr", regexpSubstrImpl, tText, tText, tText),
		fn("regexp_substr", regexpSubstrImpl, tText, tText, tText, tI4),
		fn("regexp_substr", regexpSubstrImpl, tText, tText, tText, tI4, tI4),
		fn("regexp_substr", regexpSubstrImpl, tText, tText, tText, tI4, tI4, tText),
		fn("regexp_substr", regexpSubstrImpl, tText, tText, tText, tI4, tI4, tText, tI4))
	regexpLikeImpl := row(func(c *Context, d []types.Datum) (types.Datum, error) {
		return regexpLike(d[0].S, d[1].S, reFlags(c, str(d, 2)))
	})
	os = append(os, fn("regexp_like", regexpLikeImpl, tBool, tText, tText),
		fn("regexp_like", regexpLikeImpl, tBool, tText, tText, tText))
	// substring(s, pattern) and substring(s, pattern, escape); the
	// substring(s, from [, for]) overloads on characters are
	// impl_string.go's.
	substringImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) < 2 || args[1].ID != types.Text {
			return Impl{}, false
		}
		if len(args) == 2 {
			return Impl{Row: func(c *Context, d []types.Datum) (types.Datum, error) {
				return regexSubstring(d[0].S, d[1].S, c.inCLocale())
			}}, true
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			v, err := similarSubstring(d[0].S, d[1].S, &d[2].S)
			if pe, ok := err.(*pgerr.Error); ok {
				// PostgreSQL's substring(text, text, text) is a SQL
				// function; with constant arguments its errors come
				// from its statement.
				err = pe.WithWhere("SQL function \"substring\" statement 1")
			}
			return v, err
		}}, true
	}
	os = append(os, fn("substring", substringImpl, tText, tText, tText),
		fn("substring", substringImpl, tText, tText, tText, tText))
	return os
}
