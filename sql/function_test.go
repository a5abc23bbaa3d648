package sql

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestParseCreateFunction: the options come in any order, the body is
// kept as written with where it starts, and what weir has not built is
// 0A000.
func TestParseCreateFunction(t *testing.T) {
	st, err := Parse("CREATE OR REPLACE FUNCTION s.add(a int, double precision, IN b text) RETURNS bigint IMMUTABLE LANGUAGE SQL STRICT AS $f$ SELECT a + 1 $f$")
	if err != nil {
		t.Fatal(err)
	}
	f := st.(*CreateFunction)
	if !f.OrReplace || f.Name.Schema != "s" || f.Name.Name != "add" || len(f.Args) != 3 || f.Args[0].Name != "a" || f.Args[1].Name != "" ||
		f.Args[1].Type.T.String() != "double precision" || f.Args[2].Name != "b" || f.Language != "sql" || f.Volatility != 'i' || !f.Strict ||
		f.Body != " SELECT a + 1 " || f.Return {
		t.Fatalf("parsed %+v", f)
	}
	st, err = Parse("CREATE FUNCTION f(int) RETURNS int RETURN $1 * 2")
	if err != nil {
		t.Fatal(err)
	}
	if f := st.(*CreateFunction); !f.Return || f.Body != "$1 * 2" || f.Language != "sql" || f.BodyPos != 43 {
		t.Fatalf("parsed %+v", f)
	}
	st, err = Parse("CREATE FUNCTION f(int) RETURNS int LANGUAGE sql AS 'select 1'")
	if err != nil {
		t.Fatal(err)
	}
	if f := st.(*CreateFunction); f.Body != "select 1" || f.BodyPos != 53 {
		t.Fatalf("parsed %+v", f)
	}
	for q, code := range map[string]pgerr.Code{
		"CREATE FUNCTION f(int) RETURNS SETOF int LANGUAGE sql AS 'select 1'":           pgerr.FeatureNotSupported,
		"CREATE FUNCTION f(out a int) LANGUAGE sql AS 'select 1'":                       pgerr.FeatureNotSupported,
		"CREATE FUNCTION f(a int DEFAULT 1) RETURNS int LANGUAGE sql AS 'select 1'":     pgerr.FeatureNotSupported,
		"CREATE FUNCTION f(a int) RETURNS int AS 'select 1'":                            pgerr.InvalidFunctionDefinition,
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql SECURITY DEFINER AS 'x'":     pgerr.FeatureNotSupported,
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql":                             pgerr.InvalidFunctionDefinition,
		"CREATE FUNCTION f(a int) RETURNS TABLE (x int) LANGUAGE sql AS 'select 1'":     pgerr.FeatureNotSupported,
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'select 1' AS 'select 2'": pgerr.SyntaxError,
	} {
		_, err := Parse(q)
		if pgerr.As(err).Code != code {
			t.Errorf("%s: got %v (%s), want %s", q, err, pgerr.As(err).Code, code)
		}
	}
	st, err = Parse("DROP FUNCTION IF EXISTS f(a int, text), g CASCADE")
	if err != nil {
		t.Fatal(err)
	}
	d := st.(*DropFunction)
	if !d.IfExists || !d.Cascade || len(d.Funcs) != 2 || !d.Funcs[0].HasArgs || len(d.Funcs[0].Args) != 2 || d.Funcs[1].HasArgs {
		t.Fatalf("parsed %+v", d)
	}
}
