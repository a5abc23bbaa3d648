package functions

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestLikeMatchAsPostgres checks LIKE against PostgreSQL 15's answers: a
// pattern ending in its escape is an error only when the match reaches
// the escape, and many %s against a long text answer at once rather
// than backtracking through every way to place them.
func TestLikeMatchAsPostgres(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
		err  bool
	}{
		{`abc`, `abc\`, false, false},
		{`a%c`, `a\`, false, true},
		{`ab`, `%\`, false, true},
		{``, `\`, false, false},
		{`xa_b`, `%\_b`, true, false},
		{`abc`, `_%_%_`, true, false},
		{`ab`, `_%_%_`, false, false},
		{`a\b`, `a\\b`, true, false},
		{`ab`, `%_\`, false, true},
		{strings.Repeat("a", 200), strings.Repeat("%a", 60) + "b", false, false},
		{strings.Repeat("a", 200), strings.Repeat("%a", 60) + "%", true, false},
	}
	for _, c := range cases {
		got, err := PatternMatch("~~", c.s, c.p)
		if c.err {
			if pgerr.As(err) == nil || pgerr.As(err).Code != pgerr.InvalidEscapeSequence {
				t.Errorf("%q LIKE %q: got %v, %v; want 22025", c.s, c.p, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q LIKE %q: got %v, %v; want %v", c.s, c.p, got, err, c.want)
		}
	}
}
