package types

import (
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// STUBS: replaced by format.go, parse.go, cast.go, compare.go, binary.go.

// FormatText returns d as Postgres 15 prints a value of type t in text
// format (DateStyle ISO, MDY; IntervalStyle postgres; extra_float_digits 1,
// i.e. shortest round-trip floats). loc is the session TimeZone, used for
// timestamptz. NULL formats as "" (callers check d.Null).
func FormatText(d Datum, t T, loc *time.Location) string { return "" }

// ParseText parses s as a value of type t the way Postgres's input
// functions do (type_in), for casts from text, COPY and text-format
// parameters. Bad input is 22P02 (or 22007/22008 for dates and times,
// 22003 for out-of-range numbers), with Postgres's message, for example
// `invalid input syntax for type integer: "x"`.
func ParseText(s string, t T, loc *time.Location) (Datum, error) {
	return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "types.ParseText: not implemented")
}

// Cast converts d from type from to type to with Postgres's cast
// semantics (explicit is true for CAST/:: and false for assignment and
// implicit casts: varchar(n) truncates only on explicit casts and errors
// with 22001 otherwise). Errors: 22P02, 22003, 22001, 42846 (no such cast).
func Cast(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "types.Cast: not implemented")
}

// Compare returns -1, 0 or 1 ordering non-NULL a and b of type t with
// Postgres's btree order (NaN above every other float and equal to itself).
func Compare(a, b Datum, t T) int { return 0 }

// Hash returns a 64-bit hash of d consistent with Compare (equal values
// hash equally: -0.0 and 0.0; numerics of different scale such as 1.0 and
// 1.00). NULL hashes to a fixed value.
func Hash(d Datum, t T) uint64 { return 0 }

// AppendBinary appends the Postgres binary send format of non-NULL d (type
// t) to buf, as pgx reads it.
func AppendBinary(buf []byte, d Datum, t T) ([]byte, error) {
	return buf, pgerr.New(pgerr.FeatureNotSupported, "types.AppendBinary: not implemented")
}

// ParseBinary decodes a Postgres binary-format value of type t (as pgx
// sends parameters). Bad input is 22P03.
func ParseBinary(b []byte, t T) (Datum, error) {
	return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "types.ParseBinary: not implemented")
}
