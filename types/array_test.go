package types

import (
	"testing"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

func TestArrayParseFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		t    T
		want string
	}{
		{"{1, 2 ,NULL}", T{Int4Array, -1}, "{1,2,NULL}"},
		{"{ 1.50 ,\"2\"}", T{NumericArray, -1}, "{1.50,2}"},
		{"{a,\"b c\",\"\",\"NULL\"}", TTextArray, `{a,"b c","","NULL"}`},
		{"{t,false}", T{BoolArray, -1}, "{t,f}"},
		{"{2020-01-02}", T{DateArray, -1}, "{2020-01-02}"},
		{"{}", T{Int8Array, -1}, "{}"},
	} {
		d, err := ParseText(c.in, c.t, nil)
		if err != nil || d.S != c.want {
			t.Errorf("ParseText(%q, %s) = %q, %v; want %q", c.in, c.t, d.S, err, c.want)
		}
	}
	if _, err := ParseText("{1,x}", T{Int4Array, -1}, nil); err == nil {
		t.Errorf("ParseText({1,x}, integer[]) succeeded")
	}
}

func TestArrayTypes(t *testing.T) {
	at, ok := ArrayOf(TInt4)
	if !ok || at.OID() != 1007 || at.String() != "integer[]" || at.Elem() != TInt4 || TInt4.ArrayOID() != 1007 {
		t.Errorf("ArrayOf(integer) = %v (oid %d, elem %v)", at, at.OID(), at.Elem())
	}
	if bt, ok := ByOID(3807); !ok || bt.Elem() != TJsonb {
		t.Errorf("ByOID(3807) = %v", bt)
	}
	if _, ok := ArrayOf(TTextArray); ok {
		t.Errorf("ArrayOf(text[]) should not exist")
	}
}

func TestArrayCompareCastBinary(t *testing.T) {
	i4 := T{Int4Array, -1}
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"{1,2}", "{1,10}", -1}, // element-wise, numerically
		{"{1,2}", "{1,2,0}", -1},
		{"{1,NULL}", "{1,5}", 1}, // NULL after every value
		{"{3}", "{3}", 0},
	} {
		if got := Compare(DString(c.a), DString(c.b), i4); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	n := T{NumericArray, -1}
	if Compare(DString("{1.0}"), DString("{1.00}"), n) != 0 || Hash(DString("{1.0}"), n) != Hash(DString("{1.00}"), n) {
		t.Errorf("numeric[] {1.0} and {1.00} should be equal with equal hashes")
	}
	d, err := Cast(DString("{1,NULL,3}"), i4, T{Float8Array, -1}, false, nil)
	if err != nil || d.S != "{1,NULL,3}" {
		t.Errorf("cast integer[] to double precision[] = %q, %v", d.S, err)
	}
	b, err := AppendBinary(nil, DString("{7,NULL}"), i4)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseBinary(b, i4)
	if err != nil || back.S != "{7,NULL}" {
		t.Errorf("binary round trip = %q, %v", back.S, err)
	}
	if len(b) != 20+8+4 || b[11] != 23 { // header, 2 length words, one int4; element OID 23
		t.Errorf("binary form = %x", b)
	}
}

func TestTimestamptzArrayZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := T{TimestamptzArray, -1}
	d, err := ParseText("{\"2020-01-01 10:00\"}", at, ny)
	if err != nil {
		t.Fatal(err)
	}
	if d.S != `{"2020-01-01 15:00:00+00"}` {
		t.Errorf("stored %q, want UTC", d.S)
	}
	if got := FormatText(d, at, ny); got != `{"2020-01-01 10:00:00-05"}` {
		t.Errorf("FormatText in New York = %q", got)
	}
}

func TestArrayElementTypmod(t *testing.T) {
	v3 := T{VarcharArray, 3 + 4}
	if v3.String() != "character varying(3)[]" {
		t.Errorf("String = %q", v3.String())
	}
	d, err := Cast(DString("{abcdef,x}"), TUnknown, v3, true, nil)
	if err != nil || d.S != "{abc,x}" {
		t.Errorf("explicit cast to varchar(3)[] = %q, %v", d.S, err)
	}
	if _, err := Cast(DString("{abcdef}"), TUnknown, v3, false, nil); err == nil {
		t.Errorf("assignment cast to varchar(3)[] should fail on a long element")
	}
}

// TestArrayDimensionPrefix: the [lo:hi]= prefix must match the elements
// (22P02 as in PostgreSQL), and a lower bound other than 1, which weir's
// arrays cannot keep, is refused (0A000) rather than dropped.
func TestArrayDimensionPrefix(t *testing.T) {
	for _, in := range []string{"[1:2]={1,2}", "[2]={1,2}", " [1:2] = {1,2}", "[+1:2]={1,2}"} {
		d, err := ParseText(in, T{Int4Array, -1}, nil)
		if err != nil || d.S != "{1,2}" {
			t.Errorf("ParseText(%q) = %q, %v; want {1,2}", in, d.S, err)
		}
	}
	for in, code := range map[string]pgerr.Code{
		"[0:1]={1,2}":          pgerr.FeatureNotSupported,
		"[-1:0]={1,2}":         pgerr.FeatureNotSupported,
		"[1:2][1:1]={{1},{2}}": pgerr.FeatureNotSupported,
		"[1:3]={1,2}":          pgerr.InvalidTextRepresentation,
		"[0:2]={1,2}":          pgerr.InvalidTextRepresentation,
		"[1:2]={}":             pgerr.InvalidTextRepresentation,
		"[1:2]{1,2}":           pgerr.InvalidTextRepresentation,
		"[a:2]={1,2}":          pgerr.InvalidTextRepresentation,
		"[1:2={1,2}":           pgerr.InvalidTextRepresentation,
		"[2:1]={}":             pgerr.ArraySubscriptError,
		"{{1,2}}":              pgerr.FeatureNotSupported,
	} {
		_, err := ParseText(in, T{Int4Array, -1}, nil)
		if pgerr.CodeOf(err) != code {
			t.Errorf("ParseText(%q): %v, want SQLSTATE %s", in, err, code)
		}
		if code == pgerr.FeatureNotSupported && in[0] != '[' || in == "[1:2][1:1]={{1},{2}}" {
			if err == nil || err.Error() != "multidimensional arrays are not supported" {
				t.Errorf("ParseText(%q): %v, want multidimensional arrays are not supported", in, err)
			}
		}
	}
}
