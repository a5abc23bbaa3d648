package types

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// The memcomparable key encoding. A key is the concatenation of its
// columns' encodings; bytes.Compare of two keys orders them column by
// column, like comparing the datums one after another. Every column encoding
// is prefix-free (no encoding is a proper prefix of another), which is what
// makes concatenation and the desc inversion order-preserving.
//
// Each column starts with a marker byte:
//
//	keyNull    0x00  NULL (sorts before every value)
//	keyNotNull 0x01  followed by the value's payload
//
// Payloads by family:
//
//	bool       1 byte, 0 or 1
//	int        8 bytes big-endian of the value with its sign bit flipped
//	           (date, time, timestamp[tz] and oid are all int64s)
//	float      8 bytes big-endian of the IEEE bits: positives get the sign
//	           bit set, negatives have every bit inverted; -0 is encoded as
//	           +0 and every NaN as one canonical NaN above +Infinity, as
//	           Postgres orders float8
//	numeric    a class byte (-Inf, negative, zero, positive, +Inf, NaN);
//	           finite non-zero values then carry the decimal exponent E of
//	           0.d1d2d3...×10^E (4 bytes, sign-flipped) and the significant
//	           digits without trailing zeros, two per byte (pair+1, so
//	           1..100, last pair padded with 0) ending in a 0x00 terminator.
//	           Negatives invert the exponent and the digit bytes (terminator
//	           0xFF), so larger magnitudes sort first. 1.0 and 1.00 encode
//	           alike: the key holds the value, not the display scale.
//	string     the bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01;
//	           ordering is bytewise (the C collation). character(n) is
//	           encoded without its trailing spaces ('a' and 'a  ' are one
//	           key) and decodes padded to n again.
//	uuid       the 16 bytes (fixed width, so prefix-free), in uuid_cmp's
//	           memcmp order
//	arrays     element by element (keycodec_value.go), each as a key
//	           column of the element type: '{1.0}' and '{1}' as numeric[]
//	           encode alike, in Postgres's array order
//	jsonb      the parsed value (keycodec_value.go): numbers by value as
//	           numeric, so '1' and '1.0' encode alike, in Postgres's jsonb
//	           btree order
//	interval   the total span Postgres compares intervals by
//	           (interval_cmp_value: months*30 days + days, then micros),
//	           folded into whole days (8 bytes, sign-flipped) and the
//	           remaining micros in [0, 1 day) (8 bytes). '1 mon' and
//	           '30 days' therefore encode equal.
//
// A desc column is encoded as for asc and then every byte of that column
// (marker included) is inverted, which reverses its order exactly: NULL
// sorts first for asc and last for desc.
//
// This is not the order Postgres gives by default (NULLS LAST for ASC):
// callers that need Postgres's NULL placement must arrange it themselves.
const (
	keyNull    byte = 0x00
	keyNotNull byte = 0x01
)

// Numeric class bytes, in value order.
const (
	numNegInf byte = 0x01
	numNeg    byte = 0x02
	numZero   byte = 0x03
	numPos    byte = 0x04
	numPosInf byte = 0x05
	numNaN    byte = 0x06
)

// String escaping: 0x00 in the data becomes escByte escEscaped; the value
// ends with escByte escTerm.
const (
	escByte    byte = 0x00
	escEscaped byte = 0xFF
	escTerm    byte = 0x01
)

const microsPerDay = 86_400_000_000

// canonicalNaN is the float64 bit pattern every NaN key decodes to.
const canonicalNaN = 0x7FF8000000000001

// AppendKey appends the memcomparable (order-preserving) encoding of d of
// type t to buf: bytes.Compare of two encodings orders like Compare, with
// NULL first; desc inverts the order for that column. The encoding of each
// family is described at the top of keycodec.go.
func AppendKey(buf []byte, d Datum, t T, desc bool) []byte {
	start := len(buf)
	if d.Null || t.ID == Unknown {
		buf = append(buf, keyNull)
	} else {
		buf = append(buf, keyNotNull)
		buf = appendKeyPayload(buf, d, t)
	}
	if desc {
		invert(buf[start:])
	}
	return buf
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

func appendKeyPayload(buf []byte, d Datum, t T) []byte {
	switch t.Family() {
	case FamBool:
		if d.I != 0 {
			return append(buf, 1)
		}
		return append(buf, 0)
	case FamInt:
		return binary.BigEndian.AppendUint64(buf, uint64(d.I)^(1<<63))
	case FamFloat:
		return binary.BigEndian.AppendUint64(buf, floatKeyBits(d.F))
	case FamDecimal:
		return appendDecimalKey(buf, d.D)
	case FamInterval:
		days, micros := intervalSpan(d.Iv)
		buf = binary.BigEndian.AppendUint64(buf, uint64(days)^(1<<63))
		return binary.BigEndian.AppendUint64(buf, uint64(micros))
	default: // FamString
		if t.ID == Jsonb {
			return appendJSONBKey(buf, d.S)
		}
		if t.ID == Uuid {
			// A uuid Datum always holds valid output text (ParseUUID made
			// it); were it not to, the key would be the nil uuid.
			b, _ := UUIDBytes(d.S)
			return append(buf, b[:]...)
		}
		if t.IsArray() {
			return appendArrayKey(buf, d.S, t)
		}
		if t.ID == Bpchar {
			return appendEscaped(buf, BpcharTrim(d.S))
		}
		return appendEscaped(buf, d.S)
	}
}

// floatKeyBits maps f to a uint64 whose unsigned order is f's order, with
// -0 equal to +0 and every NaN equal and greater than +Inf.
func floatKeyBits(f float64) uint64 {
	if f == 0 {
		f = 0 // turns -0 into +0
	}
	var b uint64
	if math.IsNaN(f) {
		b = canonicalNaN
	} else {
		b = math.Float64bits(f)
	}
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

func floatFromKeyBits(u uint64) float64 {
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

func appendEscaped(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == escByte {
			buf = append(buf, escByte, escEscaped)
		} else {
			buf = append(buf, c)
		}
	}
	return append(buf, escByte, escTerm)
}

func appendDecimalKey(buf []byte, d *apd.Decimal) []byte {
	if d == nil {
		return append(buf, numZero)
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(buf, numNaN)
	case apd.Infinite:
		if d.Negative {
			return append(buf, numNegInf)
		}
		return append(buf, numPosInf)
	}
	if d.Coeff.Sign() == 0 {
		return append(buf, numZero)
	}
	var scratch [40]byte
	digits := d.Coeff.Append(scratch[:0], 10)
	// The value is 0.digits × 10^e before trailing zeros are stripped;
	// stripping them does not move the decimal point.
	e := int64(len(digits)) + int64(d.Exponent)
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	neg := d.Negative
	if neg {
		buf = append(buf, numNeg)
	} else {
		buf = append(buf, numPos)
	}
	ebits := uint32(int32(e)) ^ (1 << 31)
	if neg {
		ebits = ^ebits
	}
	buf = binary.BigEndian.AppendUint32(buf, ebits)
	for i := 0; i < len(digits); i += 2 {
		p := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			p += digits[i+1] - '0'
		}
		b := p + 1
		if neg {
			b = ^b
		}
		buf = append(buf, b)
	}
	if neg {
		return append(buf, 0xFF)
	}
	return append(buf, 0x00)
}

// DecodeKey decodes one key column from b, returning the datum and the
// rest of b. Decoding inverts AppendKey up to the key's equality: a numeric
// comes back normalised (1.00 decodes as 1, -0 as 0, and so do the numbers
// in a jsonb), a float -0 as 0 and
// any NaN as one NaN, and an interval as its normalised span: Months =
// span days / 30, Days = the remaining days (0..29) and Micros within
// [0, 1 day), so '1 day -1 hour' decodes as '23:00:00'. A truncated or
// malformed key returns a DataCorrupted error.
func DecodeKey(b []byte, t T, desc bool) (Datum, []byte, error) {
	if len(b) == 0 {
		return NullDatum, b, corruptKey(t, "empty")
	}
	m := b[0]
	if desc {
		m = ^m
	}
	switch m {
	case keyNull:
		return NullDatum, b[1:], nil
	case keyNotNull:
	default:
		return NullDatum, b, corruptKey(t, "bad marker")
	}
	b = b[1:]
	// rd returns the next n payload bytes with desc inversion undone.
	rd := func(n int) ([]byte, bool) {
		if len(b) < n {
			return nil, false
		}
		p := b[:n]
		if desc {
			c := make([]byte, n)
			for i := range p {
				c[i] = ^p[i]
			}
			p = c
		}
		b = b[n:]
		return p, true
	}
	switch t.Family() {
	case FamBool:
		p, ok := rd(1)
		if !ok {
			return NullDatum, b, corruptKey(t, "truncated")
		}
		return Datum{I: int64(p[0])}, b, nil
	case FamInt:
		p, ok := rd(8)
		if !ok {
			return NullDatum, b, corruptKey(t, "truncated")
		}
		return Datum{I: int64(binary.BigEndian.Uint64(p) ^ (1 << 63))}, b, nil
	case FamFloat:
		p, ok := rd(8)
		if !ok {
			return NullDatum, b, corruptKey(t, "truncated")
		}
		return Datum{F: floatFromKeyBits(binary.BigEndian.Uint64(p))}, b, nil
	case FamInterval:
		p, ok := rd(16)
		if !ok {
			return NullDatum, b, corruptKey(t, "truncated")
		}
		days := int64(binary.BigEndian.Uint64(p) ^ (1 << 63))
		micros := int64(binary.BigEndian.Uint64(p[8:]))
		months, rem := days/30, days%30
		if rem < 0 {
			months--
			rem += 30
		}
		if months > math.MaxInt32 || months < math.MinInt32 || micros < 0 || micros >= microsPerDay {
			return NullDatum, b, corruptKey(t, "interval span out of range")
		}
		return Datum{Iv: IntervalVal{Months: int32(months), Days: int32(rem), Micros: micros}}, b, nil
	case FamDecimal:
		return decodeDecimalKey(b, t, desc)
	default:
		if t.ID == Jsonb {
			return decodeJSONBKey(b, t, desc)
		}
		if t.ID == Uuid {
			p, ok := rd(UUIDLen)
			if !ok {
				return NullDatum, b, corruptKey(t, "truncated")
			}
			return Datum{S: FormatUUID(p)}, b, nil
		}
		if t.IsArray() {
			return decodeArrayKey(b, t, desc)
		}
		if t.ID == Bpchar {
			d, rest, err := decodeEscaped(b, t, desc)
			if err == nil {
				d.S = bpcharPad(d.S, t.Mod)
			}
			return d, rest, err
		}
		return decodeEscaped(b, t, desc)
	}
}

func decodeEscaped(b []byte, t T, desc bool) (Datum, []byte, error) {
	var mask byte
	if desc {
		mask = 0xFF
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i] ^ mask
		if c != escByte {
			out = append(out, c)
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] ^ mask {
		case escEscaped:
			out = append(out, escByte)
			i++
		case escTerm:
			return Datum{S: string(out)}, b[i+2:], nil
		default:
			return NullDatum, b, corruptKey(t, "bad escape")
		}
	}
	return NullDatum, b, corruptKey(t, "unterminated string")
}

func decodeDecimalKey(b []byte, t T, desc bool) (Datum, []byte, error) {
	var mask byte
	if desc {
		mask = 0xFF
	}
	if len(b) == 0 {
		return NullDatum, b, corruptKey(t, "truncated")
	}
	class := b[0] ^ mask
	b = b[1:]
	d := new(apd.Decimal)
	switch class {
	case numNaN:
		d.Form = apd.NaN
		return Datum{D: d}, b, nil
	case numPosInf:
		d.Form = apd.Infinite
		return Datum{D: d}, b, nil
	case numNegInf:
		d.Form = apd.Infinite
		d.Negative = true
		return Datum{D: d}, b, nil
	case numZero:
		return Datum{D: d}, b, nil
	case numPos, numNeg:
	default:
		return NullDatum, b, corruptKey(t, "bad numeric class")
	}
	neg := class == numNeg
	if neg {
		mask = ^mask
	}
	if len(b) < 4 {
		return NullDatum, b, corruptKey(t, "truncated")
	}
	var eb [4]byte
	for i := range eb {
		eb[i] = b[i] ^ mask
	}
	e := int64(int32(binary.BigEndian.Uint32(eb[:]) ^ (1 << 31)))
	b = b[4:]
	var digits []byte
	for {
		if len(b) == 0 {
			return NullDatum, b, corruptKey(t, "unterminated numeric")
		}
		c := b[0] ^ mask
		b = b[1:]
		if c == 0 {
			break
		}
		if c > 100 {
			return NullDatum, b, corruptKey(t, "bad numeric digits")
		}
		p := c - 1
		digits = append(digits, '0'+p/10, '0'+p%10)
	}
	if len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1] // the pad of an odd digit count
	}
	if len(digits) == 0 {
		return NullDatum, b, corruptKey(t, "empty numeric digits")
	}
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return NullDatum, b, corruptKey(t, "bad numeric digits")
	}
	exp := e - int64(len(digits))
	if exp > math.MaxInt32 || exp < math.MinInt32 {
		return NullDatum, b, corruptKey(t, "numeric exponent out of range")
	}
	d.Exponent = int32(exp)
	d.Negative = neg
	return Datum{D: d}, b, nil
}

func corruptKey(t T, what string) error {
	return pgerr.New(pgerr.DataCorrupted, "corrupt %s key: %s", t.ID, what)
}
