package types

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// Numeric limits of Postgres's numeric type (PostgreSQL 15 docs §8.1.2):
// up to 131072 digits before the decimal point and up to 16383 after it.
const (
	NumericMaxWeightDigits = 131072
	NumericMaxScale        = 16383
)

// NumericContext is the apd context for numeric arithmetic. Its precision
// is large enough that addition, subtraction and multiplication of values
// within Postgres's numeric range are exact; rounding is half away from
// zero (apd.RoundHalfUp rounds magnitudes), as Postgres's round_var does.
// Division and the transcendental functions must not use it directly: they
// need a derived context whose Precision follows Postgres's select_div_scale
// (apd computes quotients to Precision significant digits, which at this
// precision would be needlessly slow). Overflow beyond 131072 integer
// digits is reported by apd as a condition the caller maps to 22003
// "value overflows numeric format".
var NumericContext = &apd.Context{
	Precision:   NumericMaxWeightDigits + NumericMaxScale,
	MaxExponent: NumericMaxWeightDigits,
	MinExponent: -NumericMaxScale - NumericMaxWeightDigits,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

// NumericFromText parses s as Postgres's numeric_in does: surrounding
// whitespace, an optional sign, digits with an optional point and
// exponent, or NaN / Infinity / inf (any case, Infinity with a sign). The
// result is normalised so that it prints as Postgres prints it: a positive
// exponent is folded into the coefficient (1e3 is 1000) and zero is never
// negative. Bad input is 22P02 `invalid input syntax for type numeric`.
func NumericFromText(s string) (*apd.Decimal, error) {
	t := strings.TrimSpace(s)
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", s)
	}
	switch strings.ToLower(t) {
	case "nan":
		return &apd.Decimal{Form: apd.NaN}, nil
	case "infinity", "+infinity", "inf", "+inf":
		return &apd.Decimal{Form: apd.Infinite}, nil
	case "-infinity", "-inf":
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	}
	// Check the grammar ourselves: apd accepts forms (NaN payloads, "Inf"
	// spellings, underscores in no case but signalling NaN) that
	// Postgres does not, and Postgres accepts ".5" and "5." which apd does too.
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := 0
	for i < len(t) && isDigit(t[i]) {
		i++
		digits++
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && isDigit(t[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return nil, bad()
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		ed := 0
		for i < len(t) && isDigit(t[i]) {
			i++
			ed++
		}
		if ed == 0 {
			return nil, bad()
		}
	}
	if i != len(t) {
		return nil, bad()
	}
	d, _, err := apd.NewFromString(t)
	if err != nil {
		if strings.Contains(err.Error(), "exponent") {
			return nil, numericOverflow()
		}
		return nil, bad()
	}
	if err := normalizeNumeric(d); err != nil {
		return nil, err
	}
	return d, nil
}

func numericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// normalizeNumeric folds a positive exponent into the coefficient, clears
// the sign of zero and checks Postgres's numeric range.
func normalizeNumeric(d *apd.Decimal) error {
	if d.Form != apd.Finite {
		return nil
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	if d.Exponent > 0 {
		if int64(d.Exponent)+d.NumDigits() > NumericMaxWeightDigits {
			return numericOverflow()
		}
		if _, err := apd.BaseContext.WithPrecision(uint32(d.NumDigits())+uint32(d.Exponent)).Quantize(d, d, 0); err != nil {
			return numericOverflow()
		}
	}
	if d.Exponent < -NumericMaxScale {
		// Postgres rounds input beyond the maximum display scale.
		if _, err := NumericContext.Quantize(d, d, -NumericMaxScale); err != nil {
			return numericOverflow()
		}
	}
	if d.Coeff.Sign() != 0 && d.NumDigits()+int64(d.Exponent) > NumericMaxWeightDigits {
		return numericOverflow()
	}
	return nil
}

// NumericTypmod splits a numeric type modifier into precision and scale
// (scale may be negative since Postgres 15). ok is false for -1 (no modifier).
func NumericTypmod(mod int32) (precision, scale int32, ok bool) {
	if mod < 4 {
		return 0, 0, false
	}
	m := mod - 4
	return (m >> 16) & 0xffff, ((m & 0x7ff) ^ 1024) - 1024, true
}

// ApplyNumericTypmod rounds d (in place) to the scale of the numeric(p,s)
// modifier mod and checks the precision, as Postgres's apply_typmod does:
// 22003 "numeric field overflow" with Postgres's detail.
func ApplyNumericTypmod(d *apd.Decimal, mod int32) error {
	p, s, ok := NumericTypmod(mod)
	if !ok {
		return nil
	}
	switch d.Form {
	case apd.NaN:
		return nil
	case apd.Infinite:
		return pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	if d.Exponent != -s {
		if _, err := NumericContext.Quantize(d, d, -s); err != nil {
			return numericOverflow()
		}
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
		return nil
	}
	maxDigits := p - s
	if d.NumDigits()+int64(d.Exponent) > int64(maxDigits) {
		e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
		if maxDigits > 0 {
			return e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", p, s, maxDigits)
		}
		return e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", p, s)
	}
	return nil
}

// FormatNumeric prints d as Postgres's numeric_out does: plain notation
// with exactly the value's display scale, NaN, Infinity, -Infinity.
func FormatNumeric(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	digits := d.Coeff.String()
	neg := d.Negative && d.Coeff.Sign() != 0
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if d.Exponent >= 0 {
		b.WriteString(digits)
		if digits != "0" {
			for i := int32(0); i < d.Exponent; i++ {
				b.WriteByte('0')
			}
		}
		return b.String()
	}
	scale := int(-d.Exponent)
	if len(digits) <= scale {
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", scale-len(digits)))
		b.WriteString(digits)
		return b.String()
	}
	b.WriteString(digits[:len(digits)-scale])
	b.WriteByte('.')
	b.WriteString(digits[len(digits)-scale:])
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
