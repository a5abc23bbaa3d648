package types

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// refCompare is the test's own reference order for non-NULL datums of type
// t, written from Postgres's comparison rules (float NaN greatest, -0 = 0,
// numeric by value with NaN greatest, strings bytewise as in the C
// collation, intervals by interval_cmp_value's span).
func refCompare(a, b Datum, t T) int {
	switch t.Family() {
	case FamBool, FamInt:
		return cmpOrd(a.I, b.I)
	case FamFloat:
		an, bn := math.IsNaN(a.F), math.IsNaN(b.F)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmpOrd(a.F, b.F)
	case FamDecimal:
		an, bn := a.D.Form == apd.NaN, b.D.Form == apd.NaN
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return a.D.Cmp(b.D)
	case FamInterval:
		return refSpan(a.Iv).Cmp(refSpan(b.Iv))
	default:
		if t.ID == Jsonb {
			ja, err1 := ParseJSONB(a.S)
			jb, err2 := ParseJSONB(b.S)
			if err1 != nil || err2 != nil {
				panic(fmt.Sprintf("bad jsonb in test: %q %q", a.S, b.S))
			}
			return CompareJSONB(ja, jb)
		}
		if t.ID == Uuid {
			// uuid_cmp: memcmp of the 16 bytes.
			return bytes.Compare(refUUIDBytes(a.S), refUUIDBytes(b.S))
		}
		return strings.Compare(a.S, b.S)
	}
}

// refUUIDBytes decodes a uuid's output text without the code under test.
func refUUIDBytes(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		panic(fmt.Sprintf("bad uuid in test: %q", s))
	}
	return b
}

func refSpan(iv IntervalVal) *big.Int {
	s := big.NewInt(int64(iv.Months))
	s.Mul(s, big.NewInt(30))
	s.Add(s, big.NewInt(int64(iv.Days)))
	s.Mul(s, big.NewInt(86_400_000_000))
	return s.Add(s, big.NewInt(iv.Micros))
}

func cmpOrd[X int64 | float64](a, b X) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refCompareNull orders NULL first, as the key encoding does.
func refCompareNull(a, b Datum, t T) int {
	switch {
	case a.Null && b.Null:
		return 0
	case a.Null:
		return -1
	case b.Null:
		return 1
	}
	return refCompare(a, b, t)
}

var codecTypes = []T{TBool, TInt2, TInt4, TInt8, TFloat4, TFloat8, TNumeric, TText, TVarchar, TBytea,
	TDate, TTime, TTimestamp, TTimestamptz, TInterval, TJsonb, TOid, TName, TChar, TUuid}

func randDatum(rng *rand.Rand, t T) Datum {
	if rng.Intn(12) == 0 {
		return NullDatum
	}
	switch t.Family() {
	case FamBool:
		return DBool(rng.Intn(2) == 0)
	case FamInt:
		switch rng.Intn(6) {
		case 0:
			return DInt([]int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[rng.Intn(5)])
		case 1:
			return DInt(rng.Int63() - rng.Int63())
		default:
			return DInt(int64(rng.Intn(200) - 100))
		}
	case FamFloat:
		switch rng.Intn(6) {
		case 0:
			return DFloat([]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
				math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
				math.Float64frombits(0x7FF0000000000123)}[rng.Intn(10)])
		case 1:
			return DFloat(rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20)))
		default:
			return DFloat(float64(rng.Intn(40)-20) / 4)
		}
	case FamDecimal:
		return DDecimal(randDecimal(rng))
	case FamInterval:
		if rng.Intn(3) == 0 {
			// Small fields so that equal spans written differently occur.
			return DInterval(IntervalVal{Months: int32(rng.Intn(5) - 2), Days: int32(rng.Intn(121) - 60),
				Micros: int64(rng.Intn(5)-2) * microsPerDay})
		}
		return DInterval(IntervalVal{Months: rng.Int31() - rng.Int31(), Days: rng.Int31() - rng.Int31(),
			Micros: rng.Int63() - rng.Int63()})
	default:
		if t.ID == Jsonb {
			return DString(randJSON(rng, 0))
		}
		if t.ID == Uuid {
			// Bytes from a small alphabet, so that long common prefixes
			// and the high bit are common.
			var b [16]byte
			for i := range b {
				b[i] = []byte{0x00, 0x0f, 0x7f, 0x80, 0xa0, 0xff}[rng.Intn(6)]
			}
			h := hex.EncodeToString(b[:])
			return DString(h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:])
		}
		// A small alphabet including 0x00 and 0xFF makes prefixes and
		// escapes common.
		alpha := []byte{0x00, 0x01, 'a', 'b', 0xFE, 0xFF}
		n := rng.Intn(6)
		s := make([]byte, n)
		for i := range s {
			s[i] = alpha[rng.Intn(len(alpha))]
		}
		return DString(string(s))
	}
}

// randJSON returns JSON text from a small domain, so that equal values
// written differently (1 and 1.0, key order) and prefixes are common.
func randJSON(rng *rand.Rand, depth int) string {
	n := 7
	if depth > 2 {
		n = 5
	}
	switch rng.Intn(n) {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[rng.Intn(2)]
	case 2:
		return []string{`""`, `"a"`, `"ab"`, `"b"`, `"\u0001"`, `"\u00ff"`}[rng.Intn(6)]
	case 3, 4:
		return []string{"1", "1.0", "1.00", "-1", "-1.5", "0", "-0.0", "2", "10", "1e1", "0.1"}[rng.Intn(11)]
	case 5:
		var b strings.Builder
		b.WriteByte('[')
		for i := range rng.Intn(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(randJSON(rng, depth+1))
		}
		b.WriteByte(']')
		return b.String()
	default:
		var b strings.Builder
		b.WriteByte('{')
		for i := range rng.Intn(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString([]string{`"a"`, `"b"`, `"aa"`, `""`}[rng.Intn(4)])
			b.WriteByte(':')
			b.WriteString(randJSON(rng, depth+1))
		}
		b.WriteByte('}')
		return b.String()
	}
}

func randDecimal(rng *rand.Rand) *apd.Decimal {
	d := new(apd.Decimal)
	switch rng.Intn(10) {
	case 0:
		d.Form = apd.NaN
		return d
	case 1:
		d.Form = apd.Infinite
		d.Negative = rng.Intn(2) == 0
		return d
	case 2:
		d.Exponent = int32(-rng.Intn(4)) // zero with some scale, maybe negative zero
		d.Negative = rng.Intn(2) == 0
		return d
	case 3:
		// A big coefficient.
		c := new(big.Int).Rand(rng, new(big.Int).Exp(big.NewInt(10), big.NewInt(40), nil))
		d.Coeff.SetMathBigInt(c)
	default:
		// Small values with varying scale: 1.5, 1.50, 15e-1 and so on.
		d.Coeff.SetInt64(int64(rng.Intn(300)))
		scale := rng.Intn(4)
		for range scale {
			d.Coeff.Mul(&d.Coeff, apd.NewBigInt(10))
		}
		d.Exponent = int32(-scale - rng.Intn(3) + rng.Intn(2))
	}
	d.Negative = rng.Intn(2) == 0
	return d
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// TestKeyOrder checks, for random pairs of each type and both directions,
// that the encodings order like the reference comparison.
func TestKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, typ := range codecTypes {
		ds := make([]Datum, 150)
		for i := range ds {
			ds[i] = randDatum(rng, typ)
		}
		for _, desc := range []bool{false, true} {
			keys := make([][]byte, len(ds))
			for i, d := range ds {
				keys[i] = AppendKey(nil, d, typ, desc)
			}
			for i := range ds {
				for j := range ds {
					want := refCompareNull(ds[i], ds[j], typ)
					if desc {
						want = -want
					}
					if got := sign(bytes.Compare(keys[i], keys[j])); got != want {
						t.Fatalf("%s desc=%v: key(%s) vs key(%s) = %d, want %d\n%x\n%x",
							typ, desc, show(ds[i], typ), show(ds[j], typ), got, want, keys[i], keys[j])
					}
				}
			}
		}
	}
}

// TestKeyTupleOrder checks multi-column keys with mixed directions order
// lexicographically by column.
func TestKeyTupleOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	ts := []T{TText, TInt4, TNumeric, TBytea}
	desc := []bool{false, true, false, true}
	rows := make([]Row, 300)
	keys := make([][]byte, len(rows))
	for i := range rows {
		rows[i] = make(Row, len(ts))
		for c, typ := range ts {
			if c == 1 {
				rows[i][c] = DInt(int64(rng.Intn(3))) // many ties to reach later columns
			} else {
				rows[i][c] = randDatum(rng, typ)
			}
			keys[i] = AppendKey(keys[i], rows[i][c], typ, desc[c])
		}
	}
	for i := range rows {
		for j := range rows {
			want := 0
			for c, typ := range ts {
				if want = refCompareNull(rows[i][c], rows[j][c], typ); want != 0 {
					if desc[c] {
						want = -want
					}
					break
				}
			}
			if got := sign(bytes.Compare(keys[i], keys[j])); got != want {
				t.Fatalf("rows %d,%d: got %d want %d", i, j, got, want)
			}
		}
	}
	// Decoding the tuple column by column consumes the key exactly.
	for i, k := range keys {
		rest := k
		for c, typ := range ts {
			var d Datum
			var err error
			d, rest, err = DecodeKey(rest, typ, desc[c])
			if err != nil {
				t.Fatalf("row %d col %d: %v", i, c, err)
			}
			if refCompareNull(d, rows[i][c], typ) != 0 {
				t.Fatalf("row %d col %d: decoded %s, want %s", i, c, show(d, typ), show(rows[i][c], typ))
			}
		}
		if len(rest) != 0 {
			t.Fatalf("row %d: %d bytes left", i, len(rest))
		}
	}
}

// TestKeyRoundTrip checks DecodeKey returns a datum equal to the original
// whose encoding is identical.
func TestKeyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, typ := range codecTypes {
		for range 300 {
			d := randDatum(rng, typ)
			for _, desc := range []bool{false, true} {
				k := AppendKey([]byte("prefix"), d, typ, desc)
				got, rest, err := DecodeKey(append(k[6:], "tail"...), typ, desc)
				if err != nil {
					t.Fatalf("%s %s: %v", typ, show(d, typ), err)
				}
				if string(rest) != "tail" {
					t.Fatalf("%s %s: rest %q", typ, show(d, typ), rest)
				}
				if got.Null != d.Null || (!d.Null && refCompare(got, d, typ) != 0) {
					t.Fatalf("%s: decoded %s, want %s", typ, show(got, typ), show(d, typ))
				}
				if k2 := AppendKey([]byte("prefix"), got, typ, desc); !bytes.Equal(k, k2) {
					t.Fatalf("%s %s: re-encoding differs", typ, show(d, typ))
				}
			}
		}
	}
}

// TestKeyEqualValues pins the equalities the encoding promises.
func TestKeyEqualValues(t *testing.T) {
	dec := func(s string) Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return DDecimal(d)
	}
	cases := []struct {
		t    T
		a, b Datum
	}{
		{TNumeric, dec("1.0"), dec("1.00")},
		{TNumeric, dec("1"), dec("1.000")},
		{TNumeric, dec("0"), dec("-0.00")},
		{TNumeric, dec("120"), dec("1.2E+2")},
		{TFloat8, DFloat(0), DFloat(math.Copysign(0, -1))},
		{TFloat8, DFloat(math.NaN()), DFloat(math.Float64frombits(0xFFF8000000000042))},
		{TInterval, DInterval(IntervalVal{Months: 1}), DInterval(IntervalVal{Days: 30})},
		{TInterval, DInterval(IntervalVal{Days: 1}), DInterval(IntervalVal{Micros: microsPerDay})},
		{TJsonb, DString("1"), DString("1.0")},
		{TJsonb, DString(`{"a": 1}`), DString(`{"a": 1.00}`)},
		{TJsonb, DString(`[1, {"b": [2]}]`), DString(`[1.0, {"b": [2.000]}]`)},
		{TJsonb, DString(`{"b": 1, "a": 0}`), DString(`{"a": -0.0, "b": 1e0}`)},
		{TJsonb, DString(`0`), DString(`-0.00`)},
		{TJsonb, DString(`[0, {"a": 0.0}]`), DString(`[0.00, {"a": -0}]`)},
		{T{NumericArray, -1}, DString(`{1.0,NULL,2}`), DString(`{1,NULL,2.00}`)},
		{T{JsonbArray, -1}, DString(`{"1","{\"a\": 1}"}`), DString(`{"1.0","{\"a\": 1.00}"}`)},
		{T{IntervalArray, -1}, DString(`{"1 mon"}`), DString(`{"30 days"}`)},
		{T{Bpchar, 4 + 4}, DString("ab  "), DString("ab")},
		{TBpchar, DString("a"), DString("a     ")},
	}
	for _, c := range cases {
		if ka, kb := AppendKey(nil, c.a, c.t, false), AppendKey(nil, c.b, c.t, false); !bytes.Equal(ka, kb) {
			t.Errorf("%s: %s and %s encode differently: %x vs %x", c.t, show(c.a, c.t), show(c.b, c.t), ka, kb)
		}
		// Equal values hash alike too (hash joins, aggregations and
		// exchanges group by the hash).
		if Compare(c.a, c.b, c.t) != 0 || Hash(c.a, c.t) != Hash(c.b, c.t) {
			t.Errorf("%s: %s and %s compare %d, hash %x vs %x", c.t, show(c.a, c.t), show(c.b, c.t), Compare(c.a, c.b, c.t), Hash(c.a, c.t), Hash(c.b, c.t))
		}
	}
	// The decoded jsonb is canonical text with numbers by value.
	jk := AppendKey(nil, DString(`{"a": [1.50, -0.0, 1e2]}`), TJsonb, true)
	if d, _, err := DecodeKey(jk, TJsonb, true); err != nil || d.S != `{"a": [1.5, 0, 100]}` {
		t.Errorf("decoded jsonb %q, %v", d.S, err)
	}
	// Arrays order as Compare does (a NULL element above any value, a
	// prefix first) and decode to their text.
	for _, typ := range []T{{NumericArray, -1}, TTextArray, {JsonbArray, -1}} {
		vals := map[TypeID]string{NumericArray: `{} | {-1} | {1} | {1,2} | {1,NULL} | {2} | {NULL}`,
			TextArray:  `{} | {a} | {a,b} | {a,NULL} | {b} | {NULL}`,
			JsonbArray: `{} | {"\"a\""} | {1} | {1,"[]"} | {true} | {NULL}`}[typ.ID]
		parts := strings.Split(vals, " | ")
		for _, desc := range []bool{false, true} {
			var prev []byte
			for i, p := range parts {
				d := mustParse(t, p, typ)
				k := AppendKey(nil, d, typ, desc)
				if i > 0 && (bytes.Compare(prev, k) < 0) == desc {
					t.Errorf("%s desc=%v: %s out of order after %s", typ, desc, p, parts[i-1])
				}
				if Compare(d, mustParse(t, parts[max(i-1, 0)], typ), typ) < 0 {
					t.Errorf("%s: test order disagrees with Compare at %s", typ, p)
				}
				got, rest, err := DecodeKey(k, typ, desc)
				if err != nil || len(rest) != 0 || got.S != d.S {
					t.Errorf("%s: %s decoded as %q (%d left, %v)", typ, p, got.S, len(rest), err)
				}
				prev = k
			}
		}
	}
	// character(n) keys without the padding and decodes padded to n.
	bk := AppendKey(nil, DString("ab"), T{Bpchar, 4 + 4}, true)
	if d, _, err := DecodeKey(bk, T{Bpchar, 4 + 4}, true); err != nil || d.S != "ab  " {
		t.Errorf("decoded character(4) %q, %v", d.S, err)
	}
	// The decoded interval is the normalised span.
	k := AppendKey(nil, DInterval(IntervalVal{Months: 1, Days: 45, Micros: -3_600_000_000}), TInterval, false)
	d, _, err := DecodeKey(k, TInterval, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := (IntervalVal{Months: 2, Days: 14, Micros: 23 * 3_600_000_000}); d.Iv != want {
		t.Errorf("decoded interval %+v, want %+v", d.Iv, want)
	}
}

// TestDecodeKeyCorrupt checks malformed keys are errors, not panics.
func TestDecodeKeyCorrupt(t *testing.T) {
	for _, typ := range codecTypes {
		k := AppendKey(nil, randDatum(rand.New(rand.NewSource(4)), typ), typ, false)
		for n := 0; n < len(k); n++ {
			if _, _, err := DecodeKey(k[:n], typ, false); err == nil && n == 0 {
				t.Errorf("%s: empty key decoded without error", typ)
			}
		}
	}
	if _, _, err := DecodeKey([]byte{0x01, 'a', 'b'}, TText, false); err == nil {
		t.Error("unterminated string decoded without error")
	}
	if _, _, err := DecodeKey([]byte{0x07}, TInt8, false); err == nil {
		t.Error("bad marker decoded without error")
	}
}

func datumEqualExact(a, b Datum, t T) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	switch t.Family() {
	case FamFloat:
		return math.Float64bits(a.F) == math.Float64bits(b.F)
	case FamDecimal:
		return a.D.Form == b.D.Form && a.D.Negative == b.D.Negative && a.D.Exponent == b.D.Exponent &&
			a.D.Coeff.Cmp(&b.D.Coeff) == 0
	case FamInterval:
		return a.Iv == b.Iv
	case FamString:
		return a.S == b.S
	}
	return a.I == b.I
}

// TestRowRoundTrip checks row values come back exactly, display scale and
// float bits included.
func TestRowRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for range 500 {
		n := rng.Intn(20)
		ts := make([]T, n)
		r := make(Row, n)
		for i := range ts {
			ts[i] = codecTypes[rng.Intn(len(codecTypes))]
			r[i] = randDatum(rng, ts[i])
		}
		b := AppendRow([]byte("x"), r, ts)
		got, err := DecodeRow(b[1:], ts)
		if err != nil {
			t.Fatalf("%v: %v", ts, err)
		}
		if len(got) != n {
			t.Fatalf("got %d columns, want %d", len(got), n)
		}
		for i := range r {
			if !datumEqualExact(got[i], r[i], ts[i]) {
				t.Fatalf("column %d (%s): got %s, want %s", i, ts[i], show(got[i], ts[i]), show(r[i], ts[i]))
			}
		}
		// A truncated value is an error, never a panic or a silent success.
		if len(b) > 3 {
			if _, err := DecodeRow(b[1:len(b)-1], ts); err == nil {
				t.Fatalf("%v: truncated row decoded without error", ts)
			}
		}
	}
}

// TestRowAddedColumns checks a row written before columns were appended
// decodes with NULLs in them.
func TestRowAddedColumns(t *testing.T) {
	old := []T{TInt4, TText}
	b := AppendRow(nil, Row{DInt(7), DString("seven")}, old)
	got, err := DecodeRow(b, append(old, TNumeric, TBool))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].I != 7 || got[1].S != "seven" || !got[2].Null || !got[3].Null {
		t.Fatalf("got %+v", got)
	}
	if _, err := DecodeRow(b, old[:1]); err == nil {
		t.Fatal("row with more columns than the schema decoded without error")
	}
	if _, err := DecodeRow(append([]byte{0x09}, b[1:]...), old); err == nil {
		t.Fatal("unknown format byte decoded without error")
	}
}

func show(d Datum, t T) string {
	if d.Null {
		return "NULL"
	}
	switch t.Family() {
	case FamFloat:
		return fmt.Sprint(d.F)
	case FamDecimal:
		return d.D.String()
	case FamInterval:
		return fmt.Sprintf("%+v", d.Iv)
	case FamString:
		return fmt.Sprintf("%q", d.S)
	}
	return fmt.Sprint(d.I)
}
