package functions

import (
	"strconv"
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// callScalar looks name up for the types of args (a Go string is text,
// an int int4, a nil a NULL text), calls it as the executor does and
// prints the result as show does.
func callScalar(t *testing.T, name string, args ...any) (string, error) {
	t.Helper()
	ts := make([]types.T, len(args))
	ds := make([]types.Datum, len(args))
	null := false
	for i, a := range args {
		switch v := a.(type) {
		case string:
			ts[i], ds[i] = types.TText, types.DString(v)
		case int:
			ts[i], ds[i] = types.TInt4, types.DInt(int64(v))
		case nil:
			ts[i], ds[i], null = types.TText, types.NullDatum, true
		default:
			t.Fatalf("argument %v of type %T", a, a)
		}
	}
	var ret types.T
	for _, o := range Overloads(name) {
		if len(o.Args) == len(args) {
			ret = o.Result(ts)
		}
	}
	im, err := Lookup(name, ts, ret)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if null && !im.NonStrict {
		return "NULL", nil
	}
	d, err := im.Row(&Context{}, ds)
	return show(d, ret), err
}

// show prints a result of type t as psql does.
func show(d types.Datum, t types.T) string {
	switch {
	case d.Null:
		return "NULL"
	case t.ID == types.Bool && d.I != 0:
		return "t"
	case t.ID == types.Bool:
		return "f"
	case t.ID == types.Int4:
		return strconv.FormatInt(d.I, 10)
	}
	return d.S
}

func TestRegexFunctions(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
		want string // the result, or "error CODE: message"
	}{
		{"regexp_count", []any{"ABCABCAXYaxy", "A."}, "3"},
		{"regexp_count", []any{"ABCABCAXYaxy", "A.", 1, "i"}, "4"},
		{"regexp_count", []any{"ABCABCAXYaxy", "A.", 4}, "2"},
		// Each search starts where the previous match ended: an empty
		// match right after a non-empty one counts.
		{"regexp_count", []any{"aaa", "a*"}, "2"},
		{"regexp_count", []any{"abc", ""}, "4"},
		{"regexp_count", []any{"abc", "", 4}, "1"},
		{"regexp_count", []any{"abc", "", 5}, "0"},
		// The text before start is context for ^ and \y.
		{"regexp_count", []any{"aaa", "^a", 2}, "0"},
		{"regexp_count", []any{"a a a", `\ya`, 2}, "2"},
		{"regexp_count", []any{"héllo", "l", 3}, "2"},
		{"regexp_count", []any{"abc", "b", 0}, `error 22023: invalid value for parameter "start": 0`},
		{"regexp_count", []any{"abc", "b", 1, "g"}, `error 22023: regexp_count() does not support the "global" option`},
		{"regexp_count", []any{"abc", "("}, "error 2201B: invalid regular expression: parentheses () not balanced"},
		{"regexp_count", []any{"abc", "a**"}, "error 2201B: invalid regular expression: quantifier operand invalid"},
		{"regexp_instr", []any{"ABCDEF", "c(.)(..)", 1, 1, 0, "i"}, "3"},
		{"regexp_instr", []any{"ABCDEF", "c(.)(..)", 1, 1, 0, "i", 2}, "5"},
		{"regexp_instr", []any{"ABCDEF", "c(.)(..)", 1, 1, 1, "i", 2}, "7"},
		{"regexp_instr", []any{"ABCDEFCDEF", "c", 1, 2, 0, "i"}, "7"},
		{"regexp_instr", []any{"abc", "x"}, "0"},
		// A pattern without groups counts its match as group 1.
		{"regexp_instr", []any{"abc", "b", 1, 1, 0, "", 1}, "2"},
		{"regexp_instr", []any{"abc", "b", 1, 1, 0, "", 5}, "0"},
		{"regexp_instr", []any{"héllo", "l"}, "3"},
		{"regexp_instr", []any{"abc", "b", 1, 0}, `error 22023: invalid value for parameter "n": 0`},
		{"regexp_instr", []any{"abc", "b", 1, 1, 2}, `error 22023: invalid value for parameter "endoption": 2`},
		{"regexp_instr", []any{"abc", "b", 1, 1, 0, "", -1}, `error 22023: invalid value for parameter "subexpr": -1`},
		{"regexp_substr", []any{"ABCDEF", "c(.)(..)", 1, 1, "i"}, "CDEF"},
		{"regexp_substr", []any{"ABCDEF", "c(.)(..)", 1, 1, "i", 2}, "EF"},
		{"regexp_substr", []any{"ABCDEF", "x"}, "NULL"},
		{"regexp_substr", []any{"abcabc", "b.", 3}, "bc"},
		{"regexp_substr", []any{"a", "(x)?a", 1, 1, "", 1}, "NULL"},
		{"regexp_substr", []any{"abc", "b", 1, 1, "g"}, `error 22023: regexp_substr() does not support the "global" option`},
		{"regexp_like", []any{"Hello World", "world"}, "f"},
		{"regexp_like", []any{"Hello World", "world", "i"}, "t"},
		{"regexp_like", []any{nil, "x"}, "NULL"},
		{"regexp_like", []any{"x", "x", "g"}, `error 22023: regexp_like() does not support the "global" option`},
		{"regexp_replace", []any{"aaa", "a*", "X", "g"}, "XX"},
		{"regexp_replace", []any{"abc", "b*", "X", "g"}, "XaXXcX"},
		{"substring", []any{"foobar", "o(.)b"}, "o"},
		{"substring", []any{"foobar", "o.b"}, "oob"},
		{"substring", []any{"foo", "foo(bar)?"}, "NULL"},
		{"substring", []any{"foobar", "%#\"o_b#\"%", "#"}, "oob"},
		{"substring", []any{"foobar", "#\"o_b#\"%", "#"}, "NULL"},
		{"substring", []any{"foobar", "%o_b%", "#"}, "foobar"},
		// The first and last parts match as little as they can.
		{"substring", []any{"abcabc", "%#\"b%#\"", "#"}, "bcabc"},
		{"substring", []any{"abcabc", "%#\"b%", "#"}, "bcabc"},
		{"substring", []any{"foobar", "%#\"o#\"_#\"b#\"%", "#"}, "error 2200C: SQL regular expression may not contain more than two escape-double-quote separators"},
		{"substring", []any{"foobar", "a", "xy"}, "error 22025: invalid escape string"},
	} {
		got, err := callScalar(t, c.name, c.args...)
		if err != nil {
			pe, _ := err.(*pgerr.Error)
			got = "error " + string(pe.Code) + ": " + pe.Message
		}
		if got != c.want {
			t.Errorf("%s%v = %s, want %s", c.name, c.args, got, c.want)
		}
	}
}

func TestRegexpMatches(t *testing.T) {
	for _, c := range []struct {
		s, pat, flags string
		want          string // the rows, joined by " "
	}{
		{"foobarbequebaz", "(bar)(beque)", "", "{bar,beque}"},
		{"foobarbequebazilbarfbonk", "(b[^b]+)(b[^b]+)", "g", "{bar,beque} {bazil,barf}"},
		{"abc", "x", "", ""},
		{"abc", "(x)?b", "", "{NULL}"},
		{"aAbB", "a", "gi", "{a} {A}"},
		{"abc", "", "g", `{""} {""} {""} {""}`},
		{"aaa", "a*", "g", `{aaa} {""}`},
		{"abab", `(a)(b)\1`, "", "{a,b}"},
	} {
		rows, err := RegexpMatches(c.s, c.pat, c.flags)
		if err != nil {
			t.Errorf("regexp_matches(%q, %q, %q): %v", c.s, c.pat, c.flags, err)
			continue
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.S)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("regexp_matches(%q, %q, %q) = %q, want %q", c.s, c.pat, c.flags, strings.Join(got, " "), c.want)
		}
	}
	if _, err := RegexpMatches("abc", "b", "z"); err == nil || err.(*pgerr.Error).Code != pgerr.InvalidParameterValue {
		t.Errorf("flag z: %v, want 22023", err)
	}
}
