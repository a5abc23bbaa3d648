package kafka

import (
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/types"
)

var decSchema = types.Schema{
	{Name: "id", T: types.TInt4, NotNull: true},
	{Name: "name", T: types.TText},
	{Name: "ok", T: types.TBool},
	{Name: "ts", T: types.TTimestamp},
	{Name: "code", T: types.T{ID: types.Varchar, Mod: 3 + 4}},
	{Name: "big", T: types.TInt8},
}

// fmtRow prints a row through Postgres's text output, NULL as "NULL".
func fmtRow(s types.Schema, r types.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		if d.Null {
			parts[i] = "NULL"
		} else {
			parts[i] = types.FormatText(d, s[i].T, time.UTC)
		}
	}
	return strings.Join(parts, "|")
}

func TestJSONDecoder(t *testing.T) {
	d := NewJSONDecoder(decSchema, nil)
	for _, tc := range []struct{ in, want string }{
		{`{"id": 1, "name": "a", "ok": true, "ts": "2024-01-02 03:04:05.5", "code": "abc", "big": 9007199254740993}`,
			"1|a|t|2024-01-02 03:04:05.5|abc|9007199254740993"},
		{`{"id": "2", "name": 12.50, "ok": false, "ts": 1700000000123, "extra": [1]}`,
			"2|12.50|f|2023-11-14 22:13:20.123|NULL|NULL"},
		{`{"id": 3, "name": {"x": [1, null]}, "ok": null, "ts": "2024-01-02T03:04:05Z"}`,
			`3|{"x": [1, null]}|NULL|2024-01-02 03:04:05|NULL|NULL`},
		{`{"id": 4, "name": true}`, "4|true|NULL|NULL|NULL|NULL"},
		{`not json`, "ERROR invalid JSON"},
		{`[1, 2]`, "ERROR invalid JSON"},
		{`null`, "ERROR JSON value is not an object"},
		{`{"name": "no id"}`, `ERROR missing value for NOT NULL column "id"`},
		{`{"id": null}`, `ERROR missing value for NOT NULL column "id"`},
		{`{"id": 1.5}`, `ERROR column "id": invalid input syntax for type integer`},
		{`{"id": 3000000000}`, `ERROR column "id": value "3000000000" is out of range for type integer`},
		{`{"id": "x"}`, `ERROR column "id": invalid input syntax`},
		{`{"id": 1, "ok": 1}`, `ERROR column "ok": JSON number for a boolean column`},
		{`{"id": 1, "ok": "maybe"}`, `ERROR column "ok"`},
		{`{"id": 1, "ts": "yesterday-ish"}`, `ERROR column "ts"`},
		{`{"id": 1, "code": "abcd"}`, `ERROR column "code": value too long for type character varying(3)`},
		{`{"id": {}}`, `ERROR column "id": JSON object for a integer column`},
		// Text holds no NUL and no invalid UTF-8, as in Postgres (22021);
		// encoding/json would have turned the 0xff into U+FFFD.
		{`{"id": 1, "name": "a\u0000b"}`, `ERROR column "name": invalid byte sequence for encoding "UTF8": 0x00`},
		{`{"id": 1, "code": "\u0000"}`, `ERROR column "code": invalid byte sequence for encoding "UTF8": 0x00`},
		{"{\"id\": 1, \"name\": \"a\xffb\"}", `ERROR invalid byte sequence for encoding "UTF8": 0xff`},
	} {
		row, err := d.Decode([]byte(tc.in))
		var got string
		if err != nil {
			got = "ERROR " + err.Error()
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s: got %q, want prefix %q", tc.in, got, tc.want)
			}
			continue
		}
		if got = fmtRow(decSchema, row); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestCSVDecoder(t *testing.T) {
	d := NewCSVDecoder(decSchema, 0, nil)
	for _, tc := range []struct{ in, want string }{
		{`1,"a, ""quoted""",true,2024-01-02 03:04:05,ab,7`, `1|a, "quoted"|t|2024-01-02 03:04:05|ab|7`},
		{"2,,,,,\n", "2||NULL|NULL||NULL"},
		{`1,a,t`, "ERROR invalid CSV"},
		{"1,a,t,,,\n2,b,f,,,", "ERROR invalid CSV: more than one line"},
		{`,a,t,,,`, `ERROR missing value for NOT NULL column "id"`},
		{`x,a,t,,,`, `ERROR column "id": invalid input syntax for type integer: "x"`},
		{"1,a\xffb,t,,,", `ERROR column "name": invalid byte sequence for encoding "UTF8": 0xff`},
		{"1,a\x00b,t,,,", `ERROR column "name": invalid byte sequence for encoding "UTF8": 0x00`},
		{"1,a,t,,\xe2\x82,", `ERROR column "code": invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
	} {
		row, err := d.Decode([]byte(tc.in))
		if err != nil {
			if got := "ERROR " + err.Error(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("%q: got %q, want prefix %q", tc.in, got, tc.want)
			}
			continue
		}
		if got := fmtRow(decSchema, row); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestQuickTimestamp checks the fast path of timestamps against
// types.ParseText, and that it leaves other forms to ParseText.
func TestQuickTimestamp(t *testing.T) {
	for _, s := range []string{
		"2026-01-01 00:00:01.234", "2024-02-29 23:59:59", "2024-02-29T23:59:59.123456", "1970-01-01 00:00:00",
		"0001-01-01 00:00:00", "1999-12-31 12:30:45.5",
	} {
		got, ok := quickTimestamp(s)
		want, err := types.ParseText(s, types.TTimestamp, time.UTC)
		if !ok || err != nil || got != want.I {
			t.Errorf("%s: quick %d %v, ParseText %d %v", s, got, ok, want.I, err)
		}
	}
	for _, s := range []string{"2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-01-01 24:00:00", "2024-01-01 00:00:00+02",
		"2024-01-01 00:00:00.", "2024-01-01 00:00:00.1234567", "2024-1-01 00:00:00", "today"} {
		if _, ok := quickTimestamp(s); ok {
			t.Errorf("%s: taken by the fast path", s)
		}
	}
}

// TestQuickIntMatchesParseScalar checks that JSON integers read by the
// quick path become what the input functions make of the same text, and
// that what the quick path declines is left to them.
func TestQuickIntMatchesParseScalar(t *testing.T) {
	for _, id := range []types.TypeID{types.Int2, types.Int4, types.Int8} {
		typ := types.T{ID: id}
		for _, s := range []string{"0", "-0", "7", "-7", "32767", "32768", "-32768", "-32769",
			"2147483647", "2147483648", "-2147483648", "-2147483649", "999999999999999999",
			"-999999999999999999", "9223372036854775807", "9223372036854775808", "1.5", "1e3", "-", ""} {
			got, ok := quickInt([]byte(s), id)
			want, err := parseScalar(s, typ, time.UTC)
			switch {
			case ok && (err != nil || want.I != got):
				t.Errorf("%s %q: quick path gave %d, the input function %v (%v)", typ, s, got, want, err)
			case !ok && err == nil && len(s) <= 18:
				t.Errorf("%s %q: quick path declined a value the input function takes", typ, s)
			}
		}
	}
	if _, ok := quickInt([]byte("12"), types.Float8); ok {
		t.Error("quick path took a number for a float column")
	}
}

// TestUUIDColumns checks a uuid column of a JSON or CSV source takes
// every input form uuid_in accepts and refuses the rest (a malformed
// record), and that the JSON encoder writes a uuid's text form.
func TestUUIDColumns(t *testing.T) {
	s := types.Schema{{Name: "id", T: types.TUuid, NotNull: true}, {Name: "ref", T: types.TUuid}}
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	jd := NewJSONDecoder(s, nil)
	for _, tc := range []struct{ in, want string }{
		{`{"id": "` + u + `", "ref": null}`, u + "|NULL"},
		{`{"id": "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "ref": "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"}`, u + "|" + u},
		{`{"id": "a0eebc999c0b4ef8bb6d6bb9bd380a11", "extra": [1]}`, u + "|NULL"},
		{`{"id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"}`, `ERROR column "id": invalid input syntax for type uuid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"`},
		{`{"id": " ` + u + `"}`, `ERROR column "id": invalid input syntax for type uuid`},
		{`{"id": 12}`, `ERROR column "id": invalid input syntax for type uuid: "12"`},
		{`{"id": true}`, `ERROR column "id": JSON boolean for a uuid column`},
		{`{"id": ["` + u + `"]}`, `ERROR column "id": JSON array for a uuid column`},
		{`{"ref": "` + u + `"}`, `ERROR missing value for NOT NULL column "id"`},
	} {
		row, err := jd.Decode([]byte(tc.in))
		got := ""
		if err != nil {
			got = "ERROR " + err.Error()
		} else {
			got = fmtRow(s, row)
		}
		if !strings.HasPrefix(got, tc.want) || (err == nil && got != tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	cd := NewCSVDecoder(s, 0, nil)
	for _, tc := range []struct{ in, want string }{
		{"{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}," + u, u + "|" + u},
		{u + ",", u + "|NULL"},
		{u + ",xyz", `ERROR column "ref": invalid input syntax for type uuid: "xyz"`},
		{"," + u, `ERROR missing value for NOT NULL column "id"`},
	} {
		row, err := cd.Decode([]byte(tc.in))
		got := ""
		if err != nil {
			got = "ERROR " + err.Error()
		} else {
			got = fmtRow(s, row)
		}
		if !strings.HasPrefix(got, tc.want) || (err == nil && got != tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	e, err := NewEncoder(FormatUpsert, s, []int{0}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	row, err := jd.Decode([]byte(`{"id": "A0EEBC999C0B4EF8BB6D6BB9BD380A11", "ref": "{00000000-0000-0000-0000-0000000000ff}"}`))
	if err != nil {
		t.Fatal(err)
	}
	recs := e.Append(nil, types.OpInsert, row)
	if got, want := string(recs[0].Key)+" => "+string(recs[0].Value),
		`{"id":"`+u+`"} => {"id":"`+u+`","ref":"00000000-0000-0000-0000-0000000000ff"}`; got != want {
		t.Errorf("encoded %s, want %s", got, want)
	}
}
