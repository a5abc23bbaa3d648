package types

import (
	"math"
	"strconv"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// Cast converts d from type from to type to with Postgres's cast
// semantics (explicit is true for CAST/:: and false for assignment and
// implicit casts: varchar(n) truncates only on explicit casts and errors
// with 22001 otherwise). Casts between string types and every other type
// go through ParseText/FormatText as Postgres's I/O conversion casts do;
// the others follow pg_cast. A NULL casts to NULL. Errors: 22P02, 22003,
// 22001, 22023 (jsonb of the wrong kind), 0A000 (NaN or infinity to an
// integer), 42846 `cannot cast type X to Y` (no such cast).
func Cast(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	if d.Null {
		return NullDatum, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	r, err := castBase(d, from, to, explicit, loc)
	if err != nil {
		return NullDatum, err
	}
	return applyTypmod(r, to, explicit)
}

// applyTypmod coerces a value already of to's family to to's modifier.
func applyTypmod(d Datum, to T, explicit bool) (Datum, error) {
	if to.Mod < 0 {
		return d, nil
	}
	if to.IsArray() {
		// The element modifier applies to every element (array_in and
		// array coercions with a typmod).
		return castArray(d, T{to.ID, -1}, to, explicit, time.UTC)
	}
	switch to.ID {
	case Varchar:
		return d.withVarcharMod(to.Mod, explicit)
	case Bpchar:
		return d.withBpcharMod(to.Mod, explicit)
	case Numeric:
		if d.D == nil {
			return d, nil
		}
		c := new(apd.Decimal).Set(d.D)
		if err := ApplyNumericTypmod(c, to.Mod); err != nil {
			return NullDatum, err
		}
		return DDecimal(c), nil
	case Timestamp, Timestamptz:
		if d.I != PosInfinity && d.I != NegInfinity {
			d.I = roundMicros(d.I, to.Mod)
		}
	case Time:
		d.I = roundMicros(d.I, to.Mod)
	case Interval:
		d.Iv.Micros = roundMicros(d.Iv.Micros, intervalTypmodPrecision(to.Mod))
	}
	return d, nil
}

func cannotCast(from, to T) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from.ID.Name(), to.ID.Name())
}

func intRangeError(id TypeID) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", id.Name())
}

func checkIntRange(v int64, id TypeID) error {
	switch id {
	case Int2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return intRangeError(id)
		}
	case Int4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return intRangeError(id)
		}
	}
	return nil
}

func castBase(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	if from.ID == to.ID && from.ID != Unknown {
		return d, nil
	}
	// An enum and float8 relabel each other: the binder compares and
	// aggregates enum values as their sort orders (never a user's cast).
	if from.IsEnum() && to.ID == Float8 || from.ID == Float8 && to.IsEnum() {
		return d, nil
	}
	if from.IsEnum() && to.IsEnum() {
		return NullDatum, cannotCast(from, to)
	}
	// Unknown literals and the string types parse into any type; every
	// type prints into the string types (Postgres's I/O conversion casts).
	if from.ID == Unknown || ((from.ID == Text || from.ID == Varchar || from.ID == Bpchar || from.ID == Name) && !to.IsString()) {
		return ParseText(d.S, T{to.ID, -1}, loc)
	}
	if from.IsEnum() && !to.IsString() || to.IsEnum() && !from.IsString() {
		return NullDatum, cannotCast(from, to)
	}
	if to.IsString() {
		var s string
		if from.ID == Bpchar && to.ID != Bpchar {
			// character(n) to another string type drops the padding (rtrim1).
			s = BpcharTrim(d.S)
		} else if from.IsString() {
			s = d.S
		} else if from.ID == Bool {
			// booltext spells the words out, unlike boolout.
			s = "false"
			if d.I != 0 {
				s = "true"
			}
		} else {
			s = FormatText(d, from, loc)
		}
		switch to.ID {
		case Name:
			s = truncateName(s)
		case Char:
			if from.ID == Int4 {
				break
			}
			s = charIn(s)
		}
		if from.ID == Char && to.ID != Char {
			s = formatChar(d.S)
		}
		if to.ID == Char && from.ID == Int4 {
			if d.I < -128 || d.I > 127 {
				return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "\"char\" out of range")
			}
			if d.I == 0 {
				return DString(""), nil
			}
			return DString(string([]byte{byte(int8(d.I))})), nil
		}
		return DString(s), nil
	}
	if from.ID == Char && to.ID == Int4 {
		if d.S == "" {
			return DInt(0), nil
		}
		return DInt(int64(int8(d.S[0]))), nil
	}
	switch to.ID {
	case Int2, Int4, Int8:
		switch from.ID {
		case Int2, Int4, Int8:
			return DInt(d.I), checkIntRange(d.I, to.ID)
		case Oid:
			if to.ID == Int4 {
				return DInt(int64(int32(uint32(d.I)))), nil
			}
			if to.ID == Int8 {
				return DInt(int64(uint32(d.I))), nil
			}
		case Bool:
			if to.ID == Int4 {
				return DInt(d.I), nil
			}
		case Float4, Float8:
			return floatToInt(d.F, to.ID)
		case Numeric:
			return numericToInt(d.D, to.ID)
		case Jsonb:
			n, err := jsonbScalar(d.S, JSONNumber, to)
			if err != nil {
				return NullDatum, err
			}
			return numericToInt(n.Num, to.ID)
		}
	case Oid:
		switch from.ID {
		case Int2, Int4:
			return DInt(int64(uint32(int32(d.I)))), nil
		case Int8:
			if d.I < 0 || d.I > math.MaxUint32 {
				return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
			}
			return DInt(d.I), nil
		}
	case Bool:
		switch from.ID {
		case Int4:
			return DBool(d.I != 0), nil
		case Jsonb:
			v, err := jsonbScalar(d.S, JSONBool, to)
			if err != nil {
				return NullDatum, err
			}
			return DBool(v.Bool), nil
		}
	case Float4, Float8:
		switch from.ID {
		case Int2, Int4, Int8:
			f := float64(d.I)
			if to.ID == Float4 {
				f = float64(float32(d.I))
			}
			return DFloat(f), nil
		case Float4, Float8:
			if to.ID == Float4 {
				return float8ToFloat4(d.F)
			}
			return DFloat(d.F), nil
		case Numeric:
			return numericToFloat(d.D, to.ID)
		case Jsonb:
			v, err := jsonbScalar(d.S, JSONNumber, to)
			if err != nil {
				return NullDatum, err
			}
			return numericToFloat(v.Num, to.ID)
		}
	case Numeric:
		switch from.ID {
		case Int2, Int4, Int8:
			return DDecimal(apd.New(d.I, 0)), nil
		case Float4, Float8:
			return floatToNumeric(d.F, from.ID == Float4)
		case Jsonb:
			v, err := jsonbScalar(d.S, JSONNumber, to)
			if err != nil {
				return NullDatum, err
			}
			return DDecimal(new(apd.Decimal).Set(v.Num)), nil
		}
	case Date:
		switch from.ID {
		case Timestamp:
			return DInt(timestampToDate(d.I)), nil
		case Timestamptz:
			if d.I == PosInfinity || d.I == NegInfinity {
				return DInt(d.I), nil
			}
			return DInt(timestampToDate(d.I + int64(ZoneOffset(d.I, loc))*USecsPerSec)), nil
		}
	case Timestamp:
		switch from.ID {
		case Date:
			return dateToTimestamp(d.I)
		case Timestamptz:
			if d.I == PosInfinity || d.I == NegInfinity {
				return DInt(d.I), nil
			}
			return checkedTimestamp(d.I + int64(ZoneOffset(d.I, loc))*USecsPerSec)
		}
	case Timestamptz:
		switch from.ID {
		case Date:
			ts, err := dateToTimestamp(d.I)
			if err != nil || ts.I == PosInfinity || ts.I == NegInfinity {
				return ts, err
			}
			return checkedTimestamp(LocalToUTC(ts.I, loc))
		case Timestamp:
			if d.I == PosInfinity || d.I == NegInfinity {
				return DInt(d.I), nil
			}
			return checkedTimestamp(LocalToUTC(d.I, loc))
		}
	case Time:
		switch from.ID {
		case Timestamp, Timestamptz:
			if d.I == PosInfinity || d.I == NegInfinity {
				return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
			}
			us := d.I
			if from.ID == Timestamptz {
				us += int64(ZoneOffset(d.I, loc)) * USecsPerSec
			}
			return DInt(floorMod(us, USecsPerDay)), nil
		case Interval:
			return DInt(floorMod(d.Iv.Micros, USecsPerDay)), nil
		}
	case Interval:
		if from.ID == Time {
			return DInterval(IntervalVal{Micros: d.I}), nil
		}
	case Jsonb:
		// Text (above) and json cast to jsonb; json's text is parsed
		// again, so duplicate keys collapse (the last wins) and the
		// result prints canonically.
		if from.ID == Json {
			c, err := CanonicalJSONB(d.S)
			return DString(c), err
		}
	case Json:
		if from.ID == Jsonb {
			return DString(d.S), nil
		}
	}
	if from.IsArray() && to.IsArray() {
		return castArray(d, from, to, explicit, loc)
	}
	return NullDatum, cannotCast(from, to)
}

func timestampToDate(us int64) int64 {
	if us == PosInfinity || us == NegInfinity {
		return us
	}
	return floorDiv(us, USecsPerDay)
}

// checkedTimestamp returns us as a timestamp datum, failing with 22008
// when a zone offset moved it out of the range.
func checkedTimestamp(us int64) (Datum, error) {
	if !TimestampInRange(us) {
		return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	}
	return DInt(us), nil
}

func dateToTimestamp(days int64) (Datum, error) {
	if days == PosInfinity || days == NegInfinity {
		return DInt(days), nil
	}
	if days > maxTimestampUSec/USecsPerDay-1 || days < minDateDays {
		return NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return DInt(days * USecsPerDay), nil
}

// floatToInt rounds half to even (rint) and range-checks, as dtoi4 does.
func floatToInt(f float64, id TypeID) (Datum, error) {
	r := math.RoundToEven(f)
	if math.IsNaN(r) {
		return NullDatum, intRangeError(id)
	}
	var lo, hi float64
	switch id {
	case Int2:
		lo, hi = math.MinInt16, math.MaxInt16+1
	case Int4:
		lo, hi = math.MinInt32, math.MaxInt32+1
	default:
		lo, hi = math.MinInt64, -float64(math.MinInt64)
	}
	if r < lo || r >= hi {
		return NullDatum, intRangeError(id)
	}
	return DInt(int64(r)), nil
}

// numericToInt rounds half away from zero, as numeric_int4 does.
func numericToInt(d *apd.Decimal, id TypeID) (Datum, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", id.Name())
	case apd.Infinite:
		return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", id.Name())
	}
	var r apd.Decimal
	if _, err := NumericContext.Quantize(&r, d, 0); err != nil {
		return NullDatum, intRangeError(id)
	}
	v, err := r.Int64()
	if err != nil {
		return NullDatum, intRangeError(id)
	}
	return DInt(v), checkIntRange(v, id)
}

func numericToFloat(d *apd.Decimal, id TypeID) (Datum, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return DFloat(math.NaN()), nil
	case apd.Infinite:
		if d.Negative {
			return DFloat(math.Inf(-1)), nil
		}
		return DFloat(math.Inf(1)), nil
	}
	// Postgres converts through the decimal text with strtod.
	s := FormatNumeric(d)
	bits := 64
	if id == Float4 {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil || (f == 0 && d.Coeff.Sign() != 0) {
		return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", s, id.Name())
	}
	return DFloat(f), nil
}

func float8ToFloat4(f float64) (Datum, error) {
	r := float32(f)
	if (math.IsInf(float64(r), 0) && !math.IsInf(f, 0)) || (r == 0 && f != 0) {
		if r == 0 {
			return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
		}
		return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	return DFloat(float64(r)), nil
}

// floatToNumeric converts through the shortest decimal text, as
// float8_numeric does (it prints with DBL_DIG significant digits: 15 for
// double, 6 for real).
func floatToNumeric(f float64, single bool) (Datum, error) {
	switch {
	case math.IsNaN(f):
		return DDecimal(&apd.Decimal{Form: apd.NaN}), nil
	case math.IsInf(f, 1):
		return DDecimal(&apd.Decimal{Form: apd.Infinite}), nil
	case math.IsInf(f, -1):
		return DDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true}), nil
	}
	digits := 15
	bits := 64
	if single {
		digits, bits = 6, 32
	}
	s := strconv.FormatFloat(f, 'g', digits, bits)
	d, err := NumericFromText(s)
	if err != nil {
		return NullDatum, err
	}
	// %g keeps trailing zeros out; Postgres's numeric_in of "%.15g" output
	// does the same, so the scale is already minimal.
	return DDecimal(d), nil
}

// jsonbScalar parses a jsonb text and checks it is a scalar of kind want.
func jsonbScalar(s string, want JSONKind, to T) (*JSONValue, error) {
	v, err := ParseJSONB(s)
	if err != nil {
		return nil, err
	}
	if v.Kind != want {
		kind := map[JSONKind]string{JSONNull: "null", JSONString: "string", JSONNumber: "numeric",
			JSONBool: "boolean", JSONArray: "array", JSONObject: "object"}[v.Kind]
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", kind, to.ID.Name())
	}
	return v, nil
}
