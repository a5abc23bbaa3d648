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

// TestJSONPathDatetime checks .datetime(): the type each ISO format
// gives, templates, the errors silent suppresses and the one it does not,
// and comparisons that need a time zone.
func TestJSONPathDatetime(t *testing.T) {
	ist, err := loadZone("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target, path string
		silent, tz   bool
		want         string // the items joined by "|", or the SQLSTATE of the error
	}{
		{`["2020-01-02", "12:34:56", "12:34:56.5+05:30", "2020-01-02 12:34:56", "2020-01-02T12:34:56-08"]`, `$[*].datetime().type()`, false, false,
			`"date"|"time without time zone"|"time with time zone"|"timestamp without time zone"|"timestamp with time zone"`},
		{`"2020-01-02 12:34:56+3"`, `$.datetime()`, false, false, `"2020-01-02T12:34:56+03:00"`},
		{`"12:34:56.5+05:30"`, `$.datetime()`, false, false, `"12:34:56.5+05:30"`},
		{`"2020-02-30"`, `$.datetime()`, false, false, `22031`},
		{`"2020-02-30"`, `$.datetime()`, true, false, ``},
		{`"10.03.2017 12:34:56.789"`, `$.datetime("dd.mm.yyyy HH24:MI:SS.FF1")`, false, false, `"2017-03-10T12:34:56.8"`},
		{`"10-13-2017"`, `$.datetime("dd-mm-yyyy")`, false, false, `22008`},
		{`"ab-03-2017"`, `$.datetime("dd-mm-yyyy")`, false, false, `22007`},
		{`"10-03-2017"`, `$.datetime("dd-mm-yyyy x")`, true, false, `22007`},
		{`"00:34 PM"`, `$.datetime("HH12:MI AM")`, false, false, `22007`},
		{`"12:34 +25"`, `$.datetime("HH24:MI TZH")`, false, false, `22009`},
		{`[5, "2017-03-10"]`, `$[*].datetime()`, true, false, ``},
		{`["2017-03-10", 5]`, `$[*].datetime()`, true, false, `"2017-03-10"`},
		{`"2017-03-10"`, `$.datetime() ? (@ > "2017-03-09 23:00:00+00".datetime())`, true, false, `0A000`},
		{`"2017-03-10"`, `$.datetime() ? (@ < "2017-03-09 23:00:00+00".datetime())`, false, true, `"2017-03-10"`},
		{`"2017-03-10"`, `$.datetime() ? (@ == "2017-03-09 18:30:00+00".datetime())`, false, true, `"2017-03-10"`},
		{`"12:35:00"`, `$.datetime() ? (@ == "12:35:00+05:30".datetime())`, false, true, `"12:35:00"`},
		{`"12:35:00"`, `$.datetime() ? (@ == "12:35:00+00".datetime())`, false, false, `0A000`},
		{`["2017-03-10", "12:00:00"]`, `$[*].datetime() ? (@ == "2017-03-10 00:00:00".datetime())`, false, false, `"2017-03-10"`},
	} {
		var items []string
		var err error
		if c.tz {
			items, _, err = JSONPathRunTz(ist, 1700000000000000, c.target, c.path, `{}`, c.silent)
		} else {
			items, _, err = JSONPathRun(c.target, c.path, `{}`, c.silent)
		}
		got := strings.Join(items, "|")
		if err != nil {
			got = string(pgerr.CodeOf(err))
		}
		if got != c.want {
			t.Errorf("%s over %s: got %q, want %q", c.path, c.target, got, c.want)
		}
	}
}
