package functions

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

func TestJSONPathRun(t *testing.T) {
	for _, c := range []struct {
		target, path, vars string
		silent             bool
		want               string // the items joined by "|", or the SQLSTATE of the error
	}{
		{`{"a":[1,2,3,4,5]}`, `$.a[*] ? (@ >= $min && @ <= $max)`, `{"min":2, "max":4}`, false, `2|3|4`},
		{`{"a": 1}`, `lax $.b`, `{}`, false, ``},
		{`{"a": 1}`, `strict $.b`, `{}`, false, `2203A`},
		{`{"a": 1}`, `strict $.b`, `{}`, true, ``},
		{`[1,2]`, `strict $[5]`, `{}`, false, `22033`},
		{`[1,2]`, `lax $[5 to 9]`, `{}`, false, ``},
		{`1`, `lax $[0]`, `{}`, false, `1`},
		{`[8.5]`, `$[0] / 2`, `{}`, false, `4.2500000000000000`},
		{`0`, `1 / $`, `{}`, false, `22012`},
		{`[1,2]`, `$ + 1`, `{}`, false, `22038`},
		{`[1, "a", null]`, `$[*] ? (@ == null)`, `{}`, false, `null`},
		{`[-1, 2, 7, "foo"]`, `$[*] ? ((@ > 0) is unknown)`, `{}`, false, `"foo"`},
		{`{"a":{"b":[1,{"c":2}]}}`, `$.**{3}`, `{}`, false, `1|{"c": 2}`},
		{`{"x": "20", "y": 32}`, `$.keyvalue().key`, `{}`, false, `"x"|"y"`},
		{`{"len": "1.9"}`, `$.len.double() * 2`, `{}`, false, `3.8`},
		{`{"a": 1}`, `$ ? (@.a == $x)`, `{}`, true, `42704`},
		{`["abc", "aBc"]`, `$[*] ? (@ like_regex "^ab" flag "i")`, `{}`, false, `"abc"|"aBc"`},
	} {
		items, _, err := JSONPathRun(c.target, c.path, c.vars, c.silent)
		got := strings.Join(items, "|")
		if err != nil {
			got = string(pgerr.CodeOf(err))
		}
		if got != c.want {
			t.Errorf("%s over %s: got %q, want %q", c.path, c.target, got, c.want)
		}
	}
}
