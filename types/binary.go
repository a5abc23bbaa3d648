package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// Postgres binary send/receive formats (each type's typsend/typreceive in
// the PostgreSQL 15 sources): big-endian integers; IEEE floats; bool one
// byte; text-like types their bytes; date int32 days since 2000-01-01;
// time int64 microseconds; timestamps int64 microseconds since
// 2000-01-01 00:00 (infinities as the int64 extremes); interval int64
// microseconds, int32 days, int32 months; numeric as ndigits, weight,
// sign, dscale and base-10000 digits (numeric_send); jsonb a version byte
// 1 then the text; arrays as ndim, flags, element OID, dimensions and
// length-prefixed elements (array_send).

// Numeric sign words of numeric_send.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
)

// AppendBinary appends the Postgres binary send format of non-NULL d (type
// t) to buf, as pgx reads it. It fails only for values that have no binary
// form (a date or timestamp beyond the int32/int64 wire range) and for
// unsupported types, with 22008 or 0A000.
func AppendBinary(buf []byte, d Datum, t T) ([]byte, error) {
	if t.IsEnum() {
		return append(buf, FormatEnum(d, t)...), nil // enum_send: the label
	}
	switch t.ID {
	case Bool:
		if d.I != 0 {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case Int2:
		return binary.BigEndian.AppendUint16(buf, uint16(d.I)), nil
	case Int4:
		return binary.BigEndian.AppendUint32(buf, uint32(d.I)), nil
	case Oid:
		return binary.BigEndian.AppendUint32(buf, uint32(d.I)), nil
	case Int8, Time:
		return binary.BigEndian.AppendUint64(buf, uint64(d.I)), nil
	case Float4:
		if math.IsNaN(d.F) {
			return binary.BigEndian.AppendUint32(buf, 0x7fc00000), nil // Postgres's canonical NaN
		}
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(d.F))), nil
	case Float8:
		if math.IsNaN(d.F) {
			return binary.BigEndian.AppendUint64(buf, 0x7ff8000000000000), nil
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(d.F)), nil
	case Numeric:
		return appendNumericBinary(buf, d.D), nil
	case Text, Varchar, Bpchar, Name, Bytea, Unknown:
		return append(buf, d.S...), nil
	case Char:
		if d.S == "" {
			return append(buf, 0), nil
		}
		return append(buf, d.S[0]), nil
	case Date:
		v := d.I
		switch v {
		case NegInfinity:
			v = math.MinInt32
		case PosInfinity:
			v = math.MaxInt32
		default:
			v -= PostgresEpochDays
			if v <= math.MinInt32 || v >= math.MaxInt32 {
				return buf, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
			}
		}
		return binary.BigEndian.AppendUint32(buf, uint32(int32(v))), nil
	case Timestamp, Timestamptz:
		v := d.I
		if v != NegInfinity && v != PosInfinity {
			v -= PostgresEpochMicros
		}
		return binary.BigEndian.AppendUint64(buf, uint64(v)), nil
	case Interval:
		buf = binary.BigEndian.AppendUint64(buf, uint64(d.Iv.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(d.Iv.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(d.Iv.Months)), nil
	case Jsonb:
		buf = append(buf, 1)
		return append(buf, d.S...), nil
	case Json:
		return append(buf, d.S...), nil
	case Jsonpath:
		// jsonpath_send: a version byte, then the text.
		buf = append(buf, 1)
		return append(buf, d.S...), nil
	case Uuid:
		b, ok := UUIDBytes(d.S)
		if !ok {
			// Every uuid Datum comes from ParseUUID, so this is not reached.
			return buf, pgerr.New(pgerr.DataCorrupted, "corrupt uuid value %q", d.S)
		}
		return append(buf, b[:]...), nil
	}
	if t.IsArray() {
		return appendArrayBinary(buf, d, t)
	}
	return buf, pgerr.New(pgerr.FeatureNotSupported, "binary format of type %s is not supported", t)
}

// ParseBinary decodes a Postgres binary-format value of type t (as pgx
// sends parameters), applying t's modifier as ParseText does. Bad input
// is 22P03 (`incorrect binary data format`), or the type's range error.
func ParseBinary(b []byte, t T) (Datum, error) {
	bad := func() (Datum, error) {
		return NullDatum, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	need := func(n int) bool { return len(b) == n }
	if t.IsEnum() {
		return ParseEnum(string(b), t)
	}
	switch t.ID {
	case Bool:
		if !need(1) {
			return bad()
		}
		return DBool(b[0] != 0), nil
	case Int2:
		if !need(2) {
			return bad()
		}
		return DInt(int64(int16(binary.BigEndian.Uint16(b)))), nil
	case Int4:
		if !need(4) {
			return bad()
		}
		return DInt(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case Oid:
		if !need(4) {
			return bad()
		}
		return DInt(int64(binary.BigEndian.Uint32(b))), nil
	case Int8:
		if !need(8) {
			return bad()
		}
		return DInt(int64(binary.BigEndian.Uint64(b))), nil
	case Time:
		if !need(8) {
			return bad()
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v < 0 || v > USecsPerDay {
			return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "time out of range")
		}
		return DInt(roundMicros(v, t.Mod)), nil
	case Float4:
		if !need(4) {
			return bad()
		}
		return DFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
	case Float8:
		if !need(8) {
			return bad()
		}
		return DFloat(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case Numeric:
		d, err := parseNumericBinary(b)
		if err != nil {
			return NullDatum, err
		}
		if err := ApplyNumericTypmod(d, t.Mod); err != nil {
			return NullDatum, err
		}
		return DDecimal(d), nil
	case Bytea:
		return DString(string(b)), nil
	case Text, Unknown, Varchar, Bpchar, Name:
		// textrecv converts from the client encoding, which verifies it.
		if err := CheckText(string(b)); err != nil {
			return NullDatum, err
		}
		switch t.ID {
		case Varchar:
			return DString(string(b)).withVarcharMod(t.Mod, false)
		case Bpchar:
			return DString(string(b)).withBpcharMod(t.Mod, false)
		case Name:
			return DString(truncateName(string(b))), nil
		}
		return DString(string(b)), nil
	case Char:
		if len(b) == 0 || b[0] == 0 {
			return DString(""), nil
		}
		return DString(string(b[:1])), nil
	case Date:
		if !need(4) {
			return bad()
		}
		v := int64(int32(binary.BigEndian.Uint32(b)))
		switch v {
		case math.MinInt32:
			return DInt(NegInfinity), nil
		case math.MaxInt32:
			return DInt(PosInfinity), nil
		}
		v += PostgresEpochDays
		if !DateInRange(v) {
			return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		return DInt(v), nil
	case Timestamp, Timestamptz:
		if !need(8) {
			return bad()
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v == NegInfinity || v == PosInfinity {
			return DInt(v), nil
		}
		if v > maxTimestampUSec-PostgresEpochMicros || v+PostgresEpochMicros < minTimestampUSec {
			return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return DInt(roundMicros(v+PostgresEpochMicros, t.Mod)), nil
	case Interval:
		if !need(16) {
			return bad()
		}
		iv := IntervalVal{
			Micros: int64(binary.BigEndian.Uint64(b)),
			Days:   int32(binary.BigEndian.Uint32(b[8:])),
			Months: int32(binary.BigEndian.Uint32(b[12:])),
		}
		iv.Micros = roundMicros(iv.Micros, intervalTypmodPrecision(t.Mod))
		return DInterval(iv), nil
	case Jsonb:
		if len(b) == 0 {
			return bad()
		}
		if b[0] != 1 {
			return NullDatum, pgerr.New(pgerr.InvalidBinaryRepresentation, "unsupported jsonb version number %d", b[0])
		}
		s, err := CanonicalJSONB(string(b[1:]))
		return DString(s), err
	case Json:
		if err := ValidateJSON(string(b)); err != nil {
			return NullDatum, err
		}
		return DString(string(b)), nil
	case Jsonpath:
		if len(b) == 0 || b[0] != 1 {
			return NullDatum, pgerr.New(pgerr.InvalidBinaryRepresentation, "unsupported jsonpath version number")
		}
		s, err := CanonicalJSONPath(string(b[1:]))
		return DString(s), err
	case Uuid:
		if !need(UUIDLen) {
			return bad()
		}
		return DString(FormatUUID(b)), nil
	}
	if t.IsArray() {
		return parseArrayBinary(b, t)
	}
	return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "binary format of type %s is not supported", t)
}

// appendNumericBinary writes numeric_send's form of d.
func appendNumericBinary(buf []byte, d *apd.Decimal) []byte {
	put := func(v uint16) { buf = binary.BigEndian.AppendUint16(buf, v) }
	if d == nil {
		d = apd.New(0, 0)
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		put(0)
		put(0)
		put(numericNaN)
		put(0)
		return buf
	case apd.Infinite:
		put(0)
		put(0)
		if d.Negative {
			put(numericNInf)
		} else {
			put(numericPInf)
		}
		// Postgres 15 sends infinities with the display scale its
		// make_result gives them (NUMERIC_DSCALE of the special header).
		put(0x20)
		return buf
	}
	digits := d.Coeff.String()
	exp := int(d.Exponent)
	if exp > 0 {
		digits += strings.Repeat("0", exp)
		exp = 0
	}
	dscale := -exp
	var intPart, fracPart string
	if len(digits) > dscale {
		intPart, fracPart = digits[:len(digits)-dscale], digits[len(digits)-dscale:]
	} else {
		fracPart = strings.Repeat("0", dscale-len(digits)) + digits
	}
	if pad := (4 - len(intPart)%4) % 4; pad > 0 {
		intPart = strings.Repeat("0", pad) + intPart
	}
	if pad := (4 - len(fracPart)%4) % 4; pad > 0 {
		fracPart += strings.Repeat("0", pad)
	}
	all := intPart + fracPart
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		g := uint16(0)
		for _, c := range []byte(all[i : i+4]) {
			g = g*10 + uint16(c-'0')
		}
		groups = append(groups, g)
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	sign := uint16(numericPos)
	if d.Negative && len(groups) > 0 {
		sign = numericNeg
	}
	if len(groups) == 0 {
		weight = 0
	}
	put(uint16(len(groups)))
	put(uint16(int16(weight)))
	put(sign)
	put(uint16(dscale))
	for _, g := range groups {
		put(g)
	}
	return buf
}

func parseNumericBinary(b []byte) (*apd.Decimal, error) {
	bad := pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid length in external \"numeric\" value")
	if len(b) < 8 {
		return nil, bad
	}
	n := int(binary.BigEndian.Uint16(b))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	if len(b) != 8+2*n {
		return nil, bad
	}
	switch sign {
	case numericNaN:
		return &apd.Decimal{Form: apd.NaN}, nil
	case numericPInf:
		return &apd.Decimal{Form: apd.Infinite}, nil
	case numericNInf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	case numericPos, numericNeg:
	default:
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid sign in external \"numeric\" value")
	}
	if dscale > NumericMaxScale {
		return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid scale in external \"numeric\" value")
	}
	coeff := new(big.Int)
	base := big.NewInt(10000)
	for i := 0; i < n; i++ {
		g := binary.BigEndian.Uint16(b[8+2*i:])
		if g >= 10000 {
			return nil, pgerr.New(pgerr.InvalidBinaryRepresentation, "invalid digit in external \"numeric\" value")
		}
		coeff.Mul(coeff, base)
		coeff.Add(coeff, big.NewInt(int64(g)))
	}
	exp := (weight - n + 1) * 4
	d := new(apd.Decimal)
	d.Coeff.SetMathBigInt(coeff)
	d.Exponent = int32(exp)
	d.Negative = sign == numericNeg
	if _, err := NumericContext.Quantize(d, d, int32(-dscale)); err != nil {
		return nil, numericOverflow()
	}
	if err := normalizeNumeric(d); err != nil {
		return nil, err
	}
	return d, nil
}
