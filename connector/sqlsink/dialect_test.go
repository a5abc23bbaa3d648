package sqlsink

import (
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Literal writes every weir type in a form each target reads back as
// the same value (the mapping of docs/sinks.md).
func TestLiteral(t *testing.T) {
	for _, c := range []struct {
		t        types.T
		text     string // the value, as weir reads it
		pg, my   string
		myFailed pgerr.Code
	}{
		{t: types.TBool, text: "true", pg: "true", my: "1"},
		{t: types.TBool, text: "false", pg: "false", my: "0"},
		{t: types.TInt2, text: "-7", pg: "-7", my: "-7"},
		{t: types.TInt4, text: "2147483647", pg: "2147483647", my: "2147483647"},
		{t: types.TInt8, text: "-9223372036854775808", pg: "-9223372036854775808", my: "-9223372036854775808"},
		{t: types.TFloat4, text: "1.5", pg: "'1.5'", my: "1.5"},
		{t: types.TFloat8, text: "1e-07", pg: "'1e-07'", my: "1e-07"},
		{t: types.TFloat8, text: "NaN", pg: "'NaN'", myFailed: pgerr.NumericValueOutOfRange},
		{t: types.TNumeric, text: "123.4500", pg: "'123.4500'", my: "123.4500"},
		{t: types.TText, text: "it's \\ é", pg: "'it''s \\ é'", my: "_utf8mb4'it''s \\ é'"},
		{t: types.TVarchar, text: "", pg: "''", my: "_utf8mb4''"},
		{t: types.TBytea, text: "\\x00ff", pg: "'\\x00ff'", my: "X'00ff'"},
		{t: types.TDate, text: "2024-02-29", pg: "'2024-02-29'", my: "'2024-02-29'"},
		{t: types.TTime, text: "13:14:15.5", pg: "'13:14:15.5'", my: "'13:14:15.5'"},
		{t: types.TTimestamp, text: "2024-02-29 13:14:15.123456", pg: "'2024-02-29 13:14:15.123456'", my: "'2024-02-29 13:14:15.123456'"},
		{t: types.TTimestamptz, text: "2024-02-29 13:14:15+02", pg: "'2024-02-29 11:14:15+00'", my: "'2024-02-29 11:14:15'"},
		{t: types.TTimestamp, text: "infinity", pg: "'infinity'", myFailed: pgerr.DatetimeFieldOverflow},
		{t: types.TInterval, text: "1 day 02:00:00", pg: "'1 day 02:00:00'", my: "_utf8mb4'1 day 02:00:00'"},
		{t: types.TJsonb, text: `{"a": [1, "x"]}`, pg: `'{"a": [1, "x"]}'`, my: `_utf8mb4'{"a": [1, "x"]}'`},
	} {
		d, err := types.ParseText(c.text, c.t, time.UTC)
		if err != nil {
			t.Fatalf("%s %q: %v", c.t, c.text, err)
		}
		if got, err := Postgres.Literal(nil, d, c.t); err != nil || string(got) != c.pg {
			t.Errorf("postgres %s %q: %s, %v; want %s", c.t, c.text, got, err, c.pg)
		}
		got, err := MySQL.Literal(nil, d, c.t)
		if c.myFailed != "" {
			if pgerr.CodeOf(err) != c.myFailed {
				t.Errorf("mysql %s %q: %s, %v; want error %s", c.t, c.text, got, err, c.myFailed)
			}
			continue
		}
		if err != nil || string(got) != c.my {
			t.Errorf("mysql %s %q: %s, %v; want %s", c.t, c.text, got, err, c.my)
		}
	}
	for _, k := range []Kind{Postgres, MySQL} {
		if got, _ := k.Literal(nil, types.NullDatum, types.TInt4); string(got) != "NULL" {
			t.Errorf("%s NULL: %s", k, got)
		}
	}
	if _, err := Postgres.Literal(nil, types.DString("a\x00b"), types.TText); pgerr.CodeOf(err) != pgerr.CharacterNotInRepertoire {
		t.Errorf("postgres text with NUL: %v, want 22021", err)
	}
}

// Every weir type a table can hold has a target type in each kind.
func TestCompatibleCoversTypes(t *testing.T) {
	for _, ty := range []types.T{types.TBool, types.TInt2, types.TInt4, types.TInt8, types.TFloat4, types.TFloat8,
		types.TNumeric, types.TVarchar, types.TText, types.TBytea, types.TDate, types.TTime, types.TTimestamp,
		types.TTimestamptz, types.TInterval, types.TJsonb} {
		for _, k := range []Kind{Postgres, MySQL} {
			if len(Compatible(k, ty)) == 0 {
				t.Errorf("%s has no %s column type for %s", k, k, ty)
			}
		}
	}
}
