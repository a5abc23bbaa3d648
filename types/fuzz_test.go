package types

import (
	"testing"
	"time"
)

// FuzzParseText checks that ParseText never panics and that every value it
// accepts prints to text that parses back to an equal value that prints
// the same (ParseText∘FormatText is the identity on its image).
func FuzzParseText(f *testing.F) {
	seeds := []string{"0", "-12", "1.5", "1e16", "NaN", "-Infinity", "2024-01-02", "0044-03-15 BC",
		"2024-01-02 13:04:05.5+05:30", "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "@ 1 hour ago",
		"P1Y2M3DT4H5M6S", `{"a": [1, 2.50]}`, `{a,"b c",NULL}`, `\x0a0b`, "t", "13:04:05", "1.5 months",
		"{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}"}
	for _, s := range seeds {
		for id := Bool; id < numTypeIDs; id++ {
			f.Add(s, uint8(id))
		}
	}
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, id uint8) {
		if id == 0 || id >= uint8(numTypeIDs) {
			return
		}
		typ := T{TypeID(id), -1}
		d, err := ParseText(s, typ, loc)
		if err != nil {
			return
		}
		out := FormatText(d, typ, loc)
		d2, err := ParseText(out, typ, loc)
		if err != nil {
			t.Fatalf("%s %q printed as %q which does not parse: %v", typ, s, out, err)
		}
		if Compare(d, d2, typ) != 0 || Hash(d, typ) != Hash(d2, typ) {
			t.Fatalf("%s %q printed as %q which parses to a different value", typ, s, out)
		}
		if out2 := FormatText(d2, typ, loc); out2 != out {
			t.Fatalf("%s %q: %q reprints as %q", typ, s, out, out2)
		}
		b, err := AppendBinary(nil, d, typ)
		if err != nil {
			return
		}
		d3, err := ParseBinary(b, typ)
		if err != nil || Compare(d, d3, typ) != 0 {
			t.Fatalf("%s %q: binary round trip failed: %v", typ, s, err)
		}
	})
}
