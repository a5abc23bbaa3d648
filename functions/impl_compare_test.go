package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestJsonbCompareByValue checks the jsonb comparison operators compare
// values as PostgreSQL does, numbers numerically, not their text.
func TestJsonbCompareByValue(t *testing.T) {
	cases := []struct{ a, op, b string }{
		{"1", "=", "1.0"},
		{`{"a": 1}`, "=", `{"a": 1.00}`},
		{`[1, [2.50]]`, "=", `[1.0, [2.5]]`},
		{"2", "<", "10.0"},
		{"10", ">", "9.99"},
		{`"a"`, "<", "1"},
		{"[]", "<", "null"},
		{`{"a": 1}`, "<>", `{"a": "1"}`},
		{"1.0", "<=", "1"},
		{"1.0", ">=", "1"},
	}
	for _, c := range cases {
		im, err := Lookup(c.op, []types.T{types.TJsonb, types.TJsonb}, types.TBool)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		got, err := im.Row(nil, []types.Datum{types.DString(c.a), types.DString(c.b)})
		if err != nil {
			t.Fatalf("%s %s %s: %v", c.a, c.op, c.b, err)
		}
		if got.I != 1 {
			t.Errorf("'%s'::jsonb %s '%s'::jsonb is false, want true", c.a, c.op, c.b)
		}
	}
}
