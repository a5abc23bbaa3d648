package types

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Compare returns -1, 0 or 1 ordering non-NULL a and b of type t with
// Postgres's btree order: NaN above every other float and numeric and
// equal to itself, -0 equal to 0; numerics by value (1.0 = 1.00); strings,
// bytea and uuid bytewise (C collation; a uuid's output text orders as its
// bytes), character(n) without its trailing
// spaces; intervals by their total span with a
// month as 30 days and a day as 24 hours (interval_cmp_value); jsonb by
// the jsonb btree order; text[] element by element, then by length.
func Compare(a, b Datum, t T) int {
	switch t.Family() {
	case FamBool, FamInt:
		if t.ID == Oid {
			return cmpInt(int64(uint32(a.I)), int64(uint32(b.I)))
		}
		return cmpInt(a.I, b.I)
	case FamFloat:
		return CompareFloat(a.F, b.F)
	case FamDecimal:
		return compareDecimal(a.D, b.D)
	case FamInterval:
		return CompareInterval(a.Iv, b.Iv)
	}
	switch t.ID {
	case Jsonb:
		ja, err1 := ParseJSONB(a.S)
		jb, err2 := ParseJSONB(b.S)
		if err1 != nil || err2 != nil {
			return strings.Compare(a.S, b.S)
		}
		return CompareJSONB(ja, jb)
	}
	if t.IsArray() {
		return compareArray(a, b, t)
	}
	if t.ID == Bpchar {
		return strings.Compare(BpcharTrim(a.S), BpcharTrim(b.S))
	}
	return strings.Compare(a.S, b.S)
}

// BpcharTrim returns a character(n) value without its trailing spaces:
// the part that compares, hashes and keys (bpchareq, hashbpchar), and the
// text that casting it to text or varchar gives (rtrim1).
func BpcharTrim(s string) string { return strings.TrimRight(s, " ") }

// intervalSpan returns the interval's span as whole days (months counted
// as 30 days) plus the remaining microseconds in [0, 1 day).
func intervalSpan(iv IntervalVal) (days, rem int64) {
	days = int64(iv.Months)*30 + int64(iv.Days) + floorDiv(iv.Micros, USecsPerDay)
	return days, floorMod(iv.Micros, USecsPerDay)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CompareNullsOrdered orders a and b when either is NULL, as a sort key
// with NULLS FIRST (nullsFirst) or NULLS LAST does: two NULLs are equal.
// ok is false when neither is NULL and the values themselves decide.
func CompareNullsOrdered(a, b Datum, nullsFirst bool) (c int, ok bool) {
	switch {
	case !a.Null && !b.Null:
		return 0, false
	case a.Null && b.Null:
		return 0, true
	case a.Null == nullsFirst:
		// a is NULL and NULLs come first, or b is NULL and NULLs come last.
		return -1, true
	}
	return 1, true
}

// CompareInterval orders intervals as Postgres does (interval_cmp_value):
// by their span with a month counted as 30 days and a day as 24 hours, so
// '1 mon' equals '30 days'.
func CompareInterval(a, b IntervalVal) int {
	ad, ar := intervalSpan(a)
	bd, br := intervalSpan(b)
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpInt(ar, br)
}

// CompareFloat orders floats as Postgres does: NaN equals NaN and sorts
// above every other value, and -0 equals 0.
func CompareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareDecimal(a, b *apd.Decimal) int {
	if a == nil || b == nil {
		return cmpInt(b2i(a != nil), b2i(b != nil))
	}
	an, bn := a.Form == apd.NaN || a.Form == apd.NaNSignaling, b.Form == apd.NaN || b.Form == apd.NaNSignaling
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// Hash returns a 64-bit hash of d consistent with Compare (equal values
// hash equally: -0.0 and 0.0; numerics of different scale such as 1.0 and
// 1.00; intervals of equal span such as 1 month and 30 days). NULL hashes
// to a fixed value. The hash is stable across processes and versions of Go.
func Hash(d Datum, t T) uint64 {
	if d.Null {
		return 0x9ae16a3b2f90404f
	}
	switch t.Family() {
	case FamBool, FamInt:
		return mix64(uint64(d.I))
	case FamFloat:
		f := d.F
		switch {
		case math.IsNaN(f):
			return 0x7ff8000000000001
		case f == 0:
			f = 0
		}
		return mix64(math.Float64bits(f))
	case FamDecimal:
		if d.D == nil {
			return 0
		}
		switch d.D.Form {
		case apd.NaN, apd.NaNSignaling:
			return 0x7ff8000000000002
		case apd.Infinite:
			if d.D.Negative {
				return 0xfff0000000000003
			}
			return 0x7ff0000000000003
		}
		if d.D.Coeff.Sign() == 0 {
			return mix64(0)
		}
		digits, exp := reducedDigits(d.D)
		h := hashString(digits)
		h = mix64(h ^ uint64(exp))
		if d.D.Negative {
			h = mix64(h ^ 1)
		}
		return h
	case FamInterval:
		days, rem := intervalSpan(d.Iv)
		return mix64(mix64(uint64(days)) ^ uint64(rem))
	}
	switch t.ID {
	case Jsonb:
		if v, err := ParseJSONB(d.S); err == nil {
			// Canonical text is unique per value except for numbers of
			// different scale (1.0 and 1); strip trailing zeros first.
			return hashString(jsonHashKey(v))
		}
	}
	if t.IsArray() {
		return hashArray(d, t)
	}
	if t.ID == Bpchar {
		return hashString(BpcharTrim(d.S))
	}
	return hashString(d.S)
}

func jsonHashKey(v *JSONValue) string {
	var b strings.Builder
	var walk func(v *JSONValue)
	walk = func(v *JSONValue) {
		switch v.Kind {
		case JSONNumber:
			if v.Num.Form != apd.Finite {
				b.WriteString(FormatNumeric(v.Num))
				break
			}
			if v.Num.Coeff.Sign() == 0 {
				// 0, 0.0 and -0.00 are one value.
				b.WriteByte('0')
				break
			}
			digits, exp := reducedDigits(v.Num)
			if v.Num.Negative {
				b.WriteByte('-')
			}
			b.WriteString(digits)
			b.WriteByte('e')
			b.WriteString(strconv.FormatInt(exp, 10))
		case JSONArray:
			b.WriteByte('[')
			for _, e := range v.Elems {
				walk(e)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case JSONObject:
			b.WriteByte('{')
			for i, k := range v.Keys {
				WriteJSONString(&b, k)
				b.WriteByte(':')
				walk(v.Vals[i])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		default:
			v.write(&b)
		}
	}
	walk(v)
	return b.String()
}

// reducedDigits returns the coefficient digits of a finite non-zero d
// without trailing zeros and the matching exponent, so that numerically
// equal values give equal results. (apd's Reduce divides by ten once per
// zero, which is quadratic on Postgres-sized numbers.)
func reducedDigits(d *apd.Decimal) (string, int64) {
	s := d.Coeff.String()
	t := strings.TrimRight(s, "0")
	return t, int64(d.Exponent) + int64(len(s)-len(t))
}

// mix64 is the splitmix64 finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashString is FNV-1a 64 followed by a finaliser.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h ^ bits.RotateLeft64(uint64(len(s)), 32))
}

// CompareDecimal orders numerics as Postgres's btree does: NaN equals NaN
// and sorts above every other value, infinities included.
func CompareDecimal(a, b *apd.Decimal) int { return compareDecimal(a, b) }
