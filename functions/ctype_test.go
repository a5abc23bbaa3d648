package functions

import (
	"testing"
	"unicode"
)

func TestCaseMapping(t *testing.T) {
	for _, c := range []struct {
		in, upper, lower, initcap string
		cLocale                   bool
	}{
		{in: "élan ÉTÉ", upper: "ÉLAN ÉTÉ", lower: "élan été", initcap: "Élan Été"},
		{in: "straße", upper: "STRAßE", lower: "straße", initcap: "Straße"},
		{in: "ǅemal ǆ", upper: "ǄEMAL Ǆ", lower: "ǆemal ǆ", initcap: "Ǆemal Ǆ"},
		{in: "İı", upper: "İI", lower: "iı", initcap: "İı"},
		{in: "x١y z²w", upper: "X١Y Z²W", lower: "x١y z²w", initcap: "X١y Z²W"},
		{in: "élan ÉTÉ", upper: "éLAN ÉTÉ", lower: "élan ÉtÉ", initcap: "éLan ÉTÉ", cLocale: true},
	} {
		if got := upperIn(c.in, c.cLocale); got != c.upper {
			t.Errorf("upper(%q, C=%v) = %q, want %q", c.in, c.cLocale, got, c.upper)
		}
		if got := lowerIn(c.in, c.cLocale); got != c.lower {
			t.Errorf("lower(%q, C=%v) = %q, want %q", c.in, c.cLocale, got, c.lower)
		}
		if got := initcap(c.in, c.cLocale); got != c.initcap {
			t.Errorf("initcap(%q, C=%v) = %q, want %q", c.in, c.cLocale, got, c.initcap)
		}
	}
}

func TestCTypeTables(t *testing.T) {
	for _, c := range []struct {
		class string
		r     rune
		in    bool
	}{
		{"alpha", 'é', true}, {"alpha", '١', true}, {"alpha", '²', false}, {"alpha", '1', false},
		{"upper", 'ǅ', true}, {"lower", 'ǅ', true}, {"lower", 'ª', true}, {"upper", 'é', false},
		{"space", '\u2003', true}, {"space", '\u00a0', false}, {"blank", '\u2003', false},
		{"cntrl", '\u0085', true}, {"digit", '٣', false}, {"punct", '¿', true}, {"punct", '$', true},
	} {
		ts, ok := classTables(c.class, false)
		if !ok {
			t.Fatalf("no class %s", c.class)
		}
		if got := unicode.IsOneOf(ts, c.r); got != c.in {
			t.Errorf("%U in [:%s:] = %v, want %v", c.r, c.class, got, c.in)
		}
	}
}

func TestRegexCType(t *testing.T) {
	for _, c := range []struct {
		s, p    string
		icase   bool
		cLocale bool
		want    bool
	}{
		{s: "é", p: `^\w$`, want: true},
		{s: "é", p: `^\w$`, cLocale: true},
		{s: "é", p: `\W`},
		{s: "é", p: `[[:alpha:]]`, want: true},
		{s: "é", p: `[[:alpha:]]`, cLocale: true},
		{s: "É", p: `[[:lower:]]`},
		{s: "É", p: `[[:lower:]]`, icase: true, want: true},
		{s: "\u2003", p: `^\s$`, want: true},
		{s: "٣", p: `\d`},
		{s: "Émile", p: `^é`, icase: true, want: true},
		{s: "Émile", p: `^é`, icase: true, cLocale: true},
		{s: "\u212a", p: `k`, icase: true},
		{s: "k", p: "\u212a", icase: true, want: true},
		{s: "ς", p: `σ`, icase: true},
		{s: "Σ", p: `ς`, icase: true, want: true},
		{s: "ǅ", p: `ǅ`, icase: true},
		{s: "ǅ", p: `[ǅ]`, icase: true},
		{s: "É", p: `[à-ê]`, icase: true, want: true},
		{s: "café", p: `caf\y`},
		{s: "cafe", p: `caf\y`},
		{s: "caf e", p: `caf\y`, want: true},
		{s: "café", p: `caf\Y`, want: true},
		{s: "café", p: `caf\y`, cLocale: true, want: true},
		{s: "un été", p: `\mété\M`, want: true},
		{s: "A", p: `\x61`, icase: true, want: true},
		{s: "A", p: `[\x41]`, icase: true, want: true},
		{s: "B", p: `[\x61-\x63]`, icase: true, want: true},
		{s: "ab", p: `\x61b`},
		{s: "É", p: `\u00e9`, icase: true, want: true},
		{s: "été", p: `[[:<:]]t`},
	} {
		re, err := aregexOpts(c.p, reOpts{icase: c.icase, cLocale: c.cLocale, dotNL: true})
		if err != nil {
			t.Fatalf("%q: %v", c.p, err)
		}
		got, err := re.match(c.s)
		if err != nil {
			t.Fatalf("%q ~ %q: %v", c.s, c.p, err)
		}
		if got != c.want {
			t.Errorf("%q ~ %q (icase %v, C %v) = %v, want %v", c.s, c.p, c.icase, c.cLocale, got, c.want)
		}
	}
}

func TestRegexICaseBackref(t *testing.T) {
	for _, c := range []struct {
		s, p string
		want bool
	}{
		{"ABab", `(ab)\1`, true},
		{"AbaB", `^(ab)\1$`, true},
		{"ÉtéÉTÉ", `^(été)\1$`, true},
		{"abac", `(ab)\1`, false},
	} {
		re, err := aregexOpts(c.p, reOpts{icase: true, dotNL: true})
		if err != nil {
			t.Fatalf("%q: %v", c.p, err)
		}
		if got, err := re.match(c.s); err != nil || got != c.want {
			t.Errorf("%q ~* %q = %v, %v; want %v", c.s, c.p, got, err, c.want)
		}
	}
}
