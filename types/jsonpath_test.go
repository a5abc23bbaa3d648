package types

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// The canonical forms are PostgreSQL 15's jsonpath_out of each input.
func TestCanonicalJSONPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`$.a[*] ? (@ > 1)`, `$."a"[*]?(@ > 1)`},
		{`1 + 2`, `(1 + 2)`},
		{`(1+2).type()`, `(1 + 2).type()`},
		{`strict $.a ? (@.b == 1 && @.c == 2 && exists(@.d)) .** {2 to last}`,
			`strict $."a"?((@."b" == 1 && @."c" == 2) && exists (@."d")).**{2 to last}`},
		{`$ ? (@ like_regex "a" flag "si" || !(@ starts with "x"))`, `$?(@ like_regex "a" flag "is" || !(@ starts with "x"))`},
		{`$[1, 2 to 3, last - 1].double()`, `$[1,2 to 3,last - 1].double()`},
		{`-$.a`, `(-$."a")`},
		{`- 1.50e1`, `-15.0`},
		{`$x`, `$"x"`},
		{`1 - 2 - 3 * (4 + 5) % -6`, `((1 - 2) - (3 * (4 + 5)) % -6)`},
		{`$ ? (@ == "\u0041\n")`, `$?(@ == "A\n")`},
		{`lax $.**{last}`, `$.**{last}`},
		{`1.`, `1`},
		// PostgreSQL 15 prints $?(@ + 1.abs() > 1), which does not
		// parse; weir keeps the parentheses.
		{`$ ? ((@ + 1).abs() > 1)`, `$?((@ + 1).abs() > 1)`},
	} {
		got, err := CanonicalJSONPath(c.in)
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.in, got, err, c.want)
		}
		// The printed form is what weir keeps: it must parse to itself.
		if again, err := CanonicalJSONPath(got); err != nil || again != got {
			t.Errorf("%s printed as %q, which reads back as %q, %v", c.in, got, again, err)
		}
	}
}

func TestJSONPathSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		code pgerr.Code
		msg  string
	}{
		{`$.a +`, pgerr.SyntaxError, `syntax error at end of jsonpath input`},
		{`$ ? (@ = 1)`, pgerr.SyntaxError, `syntax error at or near "=" of jsonpath input`},
		{`x y`, pgerr.SyntaxError, `syntax error at or near " " of jsonpath input`},
		{`$ ? (@.a)`, pgerr.SyntaxError, `syntax error at or near ")" of jsonpath input`},
		{`1.a`, pgerr.SyntaxError, `trailing junk after numeric literal at or near "1.a" of jsonpath input`},
		{`@`, pgerr.SyntaxError, `@ is not allowed in root expressions`},
		{`last`, pgerr.SyntaxError, `LAST is allowed only in array subscripts`},
		{`$ ? (@ like_regex "a" flag "x")`, pgerr.FeatureNotSupported, `XQuery "x" flag (expanded regular expressions) is not implemented`},
		{``, pgerr.InvalidTextRepresentation, `invalid input syntax for type jsonpath: ""`},
	} {
		_, err := CanonicalJSONPath(c.in)
		if pgerr.CodeOf(err) != c.code || err.Error() != c.msg {
			t.Errorf("%s: got %v (%s); want %s %q", c.in, err, pgerr.CodeOf(err), c.code, c.msg)
		}
	}
}

// A jsonpath travels in the binary format as jsonpath_send writes it (a
// version byte, then the text) and is stored in rows as its canonical text.
func TestJSONPathBinaryAndRow(t *testing.T) {
	d, err := ParseText(`lax $.a ? (@ > 1)`, TJsonpath, nil)
	if err != nil || d.S != `$."a"?(@ > 1)` {
		t.Fatalf("parse: %q, %v", d.S, err)
	}
	b, err := AppendBinary(nil, d, TJsonpath)
	if err != nil || string(b) != "\x01"+d.S {
		t.Fatalf("binary: %q, %v", b, err)
	}
	back, err := ParseBinary([]byte("\x01strict $.b"), TJsonpath)
	if err != nil || back.S != `strict $."b"` {
		t.Fatalf("parse binary: %q, %v", back.S, err)
	}
	if _, err := ParseBinary([]byte("\x02$"), TJsonpath); err == nil {
		t.Fatal("a jsonpath of binary version 2 was taken")
	}
	got, err := DecodeRow(AppendRow(nil, Row{d}, []T{TJsonpath}), []T{TJsonpath})
	if err != nil || got[0].S != d.S {
		t.Fatalf("row: %v, %v", got, err)
	}
}
