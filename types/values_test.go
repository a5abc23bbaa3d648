package types

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

func mustParse(t testing.TB, s string, typ T) Datum {
	t.Helper()
	d, err := ParseText(s, typ, nil)
	if err != nil {
		t.Fatalf("ParseText(%q, %s): %v", s, typ, err)
	}
	return d
}

func TestCompareAndHash(t *testing.T) {
	// Each row lists values of one type in ascending order; entries within
	// a group separated by "=" compare equal and must hash equally.
	cases := []struct {
		typ   T
		order string
	}{
		{TInt4, "-5 | 0 | 7"},
		{TBool, "f | t"},
		{TOid, "0 | 12 | 4294967295"},
		{TFloat8, "-Infinity | -1e300 | -0 = 0 | 1e-300 | Infinity | NaN"},
		{TFloat4, "-1.5 | 0 = -0 | NaN"},
		{TNumeric, "-Infinity | -10 | -1.5 | 0 = 0.000 = -0 | 1 = 1.0 = 1.00 | 2.5 | 100 = 1e2 | Infinity | NaN"},
		{TText, " | A | B | a | ab | b"},
		{TBytea, `\x | \x00 | \x0000 | \x01`},
		{TDate, "-infinity | 0044-03-15 BC | 1970-01-01 | 2024-01-02 | infinity"},
		{TTimestamp, "-infinity | 2024-01-02 | 2024-01-02 00:00:00.000001 | infinity"},
		{TInterval, "-1 day | -00:00:01 | 00:00:00 | 1 day -23:59:59.999999 | 1 day = 24:00:00 | 1 mon = 30 days = 720:00:00 | 1 mon 1 day | 1 year"},
		{TJsonb, `[] | null | "a" | "b" | 1 = 1.0 | 2 | false | true | [1] | [1, 2] | {} | {"a": 1} | {"aa": 1} | {"b": 1}`},
		{TTextArray, `{} | {a} | {a,b} | {a,NULL} | {b} | {NULL}`},
	}
	for _, c := range cases {
		var groups [][]Datum
		for _, g := range strings.Split(c.order, " | ") {
			var ds []Datum
			for _, s := range strings.Split(g, " = ") {
				ds = append(ds, mustParse(t, strings.TrimSpace(s), c.typ))
			}
			groups = append(groups, ds)
		}
		for i, gi := range groups {
			for j, gj := range groups {
				want := cmpInt(int64(i), int64(j))
				for _, a := range gi {
					for _, b := range gj {
						if got := Compare(a, b, c.typ); got != want {
							t.Errorf("%s: Compare(%s, %s) = %d, want %d", c.typ, FormatText(a, c.typ, nil), FormatText(b, c.typ, nil), got, want)
						}
						if want == 0 && Hash(a, c.typ) != Hash(b, c.typ) {
							t.Errorf("%s: Hash(%s) != Hash(%s)", c.typ, FormatText(a, c.typ, nil), FormatText(b, c.typ, nil))
						}
						if want != 0 && Hash(a, c.typ) == Hash(b, c.typ) {
							t.Errorf("%s: Hash(%s) == Hash(%s)", c.typ, FormatText(a, c.typ, nil), FormatText(b, c.typ, nil))
						}
					}
				}
			}
		}
	}
	if Hash(NullDatum, TInt4) != Hash(NullDatum, TText) {
		t.Error("NULL must hash to a fixed value")
	}
}

func TestTimestamptzZones(t *testing.T) {
	cases := []struct{ zone, in, want string }{
		{"UTC", "2024-01-02 13:04:05", "2024-01-02 13:04:05+00"},
		{"Asia/Kolkata", "2024-01-02 13:04:05", "2024-01-02 13:04:05+05:30"},
		{"Asia/Kolkata", "2024-01-02 13:04:05Z", "2024-01-02 18:34:05+05:30"},
		{"America/Los_Angeles", "2024-01-02 13:04:05+00", "2024-01-02 05:04:05-08"},
		{"America/Los_Angeles", "2024-07-02 13:04:05+00", "2024-07-02 06:04:05-07"},
		{"Europe/Paris", "0044-03-15 12:00:00+00 BC", "0044-03-15 12:09:21+00:09:21 BC"},
		{"UTC", "infinity", "infinity"},
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseText(c.in, TTimestamptz, loc)
		if err != nil {
			t.Errorf("%s %q: %v", c.zone, c.in, err)
			continue
		}
		if got := FormatText(d, TTimestamptz, loc); got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.zone, c.in, got, c.want)
		}
	}
}

func TestFormatFloatAndInterval(t *testing.T) {
	floats := []struct {
		f    float64
		bits int
		want string
	}{
		{1e16, 64, "1e+16"}, {1.5e-7, 64, "1.5e-07"}, {0.1, 64, "0.1"}, {math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"}, {math.Inf(-1), 64, "-Infinity"}, {math.Copysign(0, -1), 64, "-0"},
		{float64(float32(1.1)), 32, "1.1"}, {1e6, 32, "1e+06"}, {123456, 32, "123456"}, {1e15, 64, "1e+15"},
		{123456789012345, 64, "123456789012345"}, {0.0001, 64, "0.0001"}, {0.00001, 64, "1e-05"},
	}
	for _, c := range floats {
		if got := FormatFloat(c.f, c.bits); got != c.want {
			t.Errorf("FormatFloat(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
	ivs := []struct {
		iv   IntervalVal
		want string
	}{
		{IntervalVal{}, "00:00:00"},
		{IntervalVal{Days: 1}, "1 day"},
		{IntervalVal{Micros: -USecsPerSec}, "-00:00:01"},
		{IntervalVal{Days: -1, Micros: 2 * USecsPerHour}, "-1 days +02:00:00"},
		{IntervalVal{Months: 14, Days: 3, Micros: 4*USecsPerHour + 5*USecsPerMinute + 6500000}, "1 year 2 mons 3 days 04:05:06.5"},
		{IntervalVal{Months: -1}, "-1 mons"},
		{IntervalVal{Months: -13, Days: 1}, "-1 years -1 mons +1 day"},
		{IntervalVal{Micros: 100 * USecsPerHour}, "100:00:00"},
		{IntervalVal{Micros: math.MaxInt64}, "2562047788:00:54.775807"},
		{IntervalVal{Micros: math.MinInt64}, "-2562047788:00:54.775808"},
	}
	for _, c := range ivs {
		if got := FormatInterval(c.iv); got != c.want {
			t.Errorf("FormatInterval(%+v) = %q, want %q", c.iv, got, c.want)
		}
		back, err := ParseInterval(c.want)
		if err != nil || back != c.iv {
			t.Errorf("ParseInterval(%q) = %+v, %v; want %+v", c.want, back, err, c.iv)
		}
	}
}

func TestVarcharAndNumericTypmod(t *testing.T) {
	v5 := T{Varchar, 5 + 4}
	if d, err := ParseText("abc  ", v5, nil); err != nil || d.S != "abc  " {
		t.Errorf("fits: %q %v", d.S, err)
	}
	if d, err := ParseText("abcde   ", v5, nil); err != nil || d.S != "abcde" {
		t.Errorf("trailing spaces are dropped: %q %v", d.S, err)
	}
	_, err := ParseText("abcdef", v5, nil)
	if e := pgerr.As(err); e == nil || e.Code != pgerr.StringDataRightTruncation || e.Message != "value too long for type character varying(5)" {
		t.Errorf("overflow: %v", err)
	}
	if _, err := Cast(DString("abcdef"), TText, v5, false, nil); pgerr.As(err) == nil {
		t.Error("assignment cast must fail")
	}
	if d, err := Cast(DString("abcdef"), TText, v5, true, nil); err != nil || d.S != "abcde" {
		t.Errorf("explicit cast truncates: %q %v", d.S, err)
	}
	c5 := T{Bpchar, 5 + 4}
	if d, err := ParseText("ab", c5, nil); err != nil || d.S != "ab   " {
		t.Errorf("character(5) pads: %q %v", d.S, err)
	}
	if d, err := ParseText("abcde   ", c5, nil); err != nil || d.S != "abcde" {
		t.Errorf("character(5) drops excess spaces: %q %v", d.S, err)
	}
	_, err = Cast(DString("abcdef"), TText, c5, false, nil)
	if e := pgerr.As(err); e == nil || e.Code != pgerr.StringDataRightTruncation || e.Message != "value too long for type character(5)" {
		t.Errorf("character(5) overflow: %v", err)
	}
	if d, err := Cast(DString("abcdéf"), TText, c5, true, nil); err != nil || d.S != "abcdé" {
		t.Errorf("explicit cast to character(5) truncates: %q %v", d.S, err)
	}
	if d, err := Cast(DString("ab   "), c5, TText, false, nil); err != nil || d.S != "ab" {
		t.Errorf("character(5) to text drops the padding: %q %v", d.S, err)
	}
	_, err = ParseText("1000", T{Numeric, numMod(5, 2)}, nil)
	if e := pgerr.As(err); e == nil || e.Detail != "A field with precision 5, scale 2 must round to an absolute value less than 10^3." {
		t.Errorf("numeric overflow detail: %v", err)
	}
	_, err = ParseText("1", T{Numeric, numMod(3, 3)}, nil)
	if e := pgerr.As(err); e == nil || e.Detail != "A field with precision 3, scale 3 must round to an absolute value less than 1." {
		t.Errorf("numeric overflow detail: %v", err)
	}
}

func TestCalendar(t *testing.T) {
	for days := int64(-2500000); days < 3000000; days += 997 {
		y, m, d := YMDFromDate(days)
		if !ValidYMD(y, m, d) || DateFromYMD(y, m, d) != days {
			t.Fatalf("day %d -> %d-%d-%d -> %d", days, y, m, d, DateFromYMD(y, m, d))
		}
		g := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if g.Unix()/86400 != days {
			t.Fatalf("day %d: %d-%d-%d is day %d in Go's proleptic calendar", days, y, m, d, g.Unix()/86400)
		}
	}
	p := TimeParts{Year: -43, Month: 3, Day: 15, Hour: 12, Minute: 30, Second: 1, Micro: 5}
	us, ok := JoinTimestamp(p)
	if !ok || SplitTimestamp(us) != p || FormatTimestamp(us) != "0044-03-15 12:30:01.000005 BC" {
		t.Errorf("JoinTimestamp(%+v) = %d %v -> %s", p, us, ok, FormatTimestamp(us))
	}
}

func TestRelativeDates(t *testing.T) {
	saved := nowFunc
	defer func() { nowFunc = saved }()
	nowFunc = func() time.Time { return time.Date(2024, 5, 6, 23, 30, 0, 0, time.UTC) }
	loc, _ := time.LoadLocation("Asia/Tokyo")
	for in, want := range map[string]string{"today": "2024-05-07", "tomorrow": "2024-05-08", "yesterday": "2024-05-06"} {
		d, err := ParseText(in, TDate, loc)
		if err != nil || FormatText(d, TDate, loc) != want {
			t.Errorf("%s: %s %v, want %s", in, FormatText(d, TDate, loc), err, want)
		}
	}
	d, err := ParseText("now", TTimestamptz, nil)
	if err != nil || FormatText(d, TTimestamptz, nil) != "2024-05-06 23:30:00+00" {
		t.Errorf("now: %s %v", FormatText(d, TTimestamptz, nil), err)
	}
}

func TestJSONB(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"aa":[1,2.50,1e2],"a":"x"}`: `{"a": "x", "b": 1, "aa": [1, 2.50, 100]}`,
		`{"a":1,"a":2}`:                     `{"a": 2}`,
		`"\u00e9\t\u001f"`:                  `"é\t\u001f"`,
		`[[],{}]`:                           `[[], {}]`,
	} {
		got, err := CanonicalJSONB(in)
		if err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	_, err := CanonicalJSONB(`{"a":}`)
	if e := pgerr.As(err); e == nil || e.Code != pgerr.InvalidTextRepresentation || e.Message != "invalid input syntax for type json" {
		t.Errorf("bad json: %v", err)
	}
}

func TestUnsupportedCast(t *testing.T) {
	_, err := Cast(DInt(1), TInt8, TBool, true, nil)
	if e := pgerr.As(err); e == nil || e.Code != pgerr.CannotCoerce || e.Message != "cannot cast type bigint to boolean" {
		t.Errorf("got %v", err)
	}
	if d, err := Cast(NullDatum, TInt8, TBool, true, nil); err != nil || !d.Null {
		t.Errorf("NULL casts to NULL: %+v %v", d, err)
	}
}
