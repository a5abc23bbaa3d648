package functions

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Postgres numeric arithmetic on apd decimals. A numeric's display scale
// (dscale) is the number of digits after the decimal point, i.e. minus the
// decimal's exponent. Add, subtract and multiply are exact; division and
// the transcendental functions choose their result scale as Postgres's
// numeric.c does (select_div_scale and friends: at least
// NUMERIC_MIN_SIG_DIGITS = 16 significant digits, never fewer decimals
// than the inputs), and round half away from zero.

const (
	NumericMinSigDigits    = 16
	NumericMaxDisplayScale = 1000
)

// decCtx is the context for exact operations: its precision is large
// enough that add, subtract and multiply of realistic values never round.
var decCtx = &apd.Context{
	Precision:   4000,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

var errNumericOverflow = pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")

// dscale returns the display scale of d.
func dscale(d *apd.Decimal) int32 {
	if d.Exponent < 0 {
		return -d.Exponent
	}
	return 0
}

// normalize gives d a non-negative scale, as every Postgres numeric has.
func normScale(d *apd.Decimal) *apd.Decimal {
	if d.Form == apd.Finite && d.Exponent > 0 {
		_, _ = decCtx.Quantize(d, d, 0)
	}
	return d
}

// roundTo rounds d to scale s (half away from zero); negative s rounds to
// tens, hundreds, ... and then shows scale 0.
func roundTo(d *apd.Decimal, s int32) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	r := new(apd.Decimal)
	c := decCtx
	if need := d.NumDigits() + int64(d.Exponent) + int64(s) + 1; need > int64(c.Precision) {
		// A result of more digits than the default precision (10 ^
		// 100000) keeps them all, as PostgreSQL's does.
		wide := *decCtx
		wide.Precision = uint32(need)
		c = &wide
	}
	_, _ = c.Quantize(r, d, -s)
	return normScale(r)
}

// NumericAdd returns a + b exactly (Postgres numeric_add).
func NumericAdd(a, b *apd.Decimal) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	if _, err := decCtx.Add(r, a, b); err != nil {
		return nil, errNumericOverflow
	}
	return r, nil
}

// NumericSub returns a - b exactly (Postgres numeric_sub).
func NumericSub(a, b *apd.Decimal) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	if _, err := decCtx.Sub(r, a, b); err != nil {
		return nil, errNumericOverflow
	}
	return r, nil
}

// NumericMul returns a * b exactly; the scale is the sum of the scales
// (Postgres numeric_mul).
func NumericMul(a, b *apd.Decimal) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	if _, err := decCtx.Mul(r, a, b); err != nil {
		return nil, errNumericOverflow
	}
	return normScale(r), nil
}

// base10000 returns Postgres's view of non-zero d in base-10000 digits: the
// weight of the first digit and its value.
func base10000(d *apd.Decimal) (weight int, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	nd := int(d.NumDigits())
	a := nd - 1 + int(d.Exponent) // decimal exponent of the leading digit
	weight = floorDiv(a, 4)
	cnt := a - 4*weight + 1 // digits of the leading base-10000 digit
	c := new(big.Int).Abs(d.Coeff.MathBigInt())
	if nd >= cnt {
		c.Quo(c, pow10(nd-cnt))
	} else {
		c.Mul(c, pow10(cnt-nd))
	}
	return weight, c.Int64()
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// divScale is Postgres's select_div_scale: enough decimals for at least 16
// significant digits of a/b, and no fewer than either input has.
func divScale(a, b *apd.Decimal) int32 {
	w1, f1 := base10000(a)
	w2, f2 := base10000(b)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := int32(NumericMinSigDigits - qweight*4)
	rscale = max(rscale, dscale(a), dscale(b), 0)
	return min(rscale, NumericMaxDisplayScale)
}

// NumericDiv returns a / b rounded to Postgres's division scale; division by
// zero is 22012.
func NumericDiv(a, b *apd.Decimal) (*apd.Decimal, error) {
	if b.IsZero() {
		return nil, errDivByZero
	}
	return divRound(a, b, divScale(a, b)), nil
}

// divRound returns a / b rounded half away from zero to scale s, computed
// exactly on big integers.
func divRound(a, b *apd.Decimal, s int32) *apd.Decimal {
	num := new(big.Int).Set(a.Coeff.MathBigInt())
	den := new(big.Int).Set(b.Coeff.MathBigInt())
	k := int(a.Exponent) - int(b.Exponent) + int(s)
	if k >= 0 {
		num.Mul(num, pow10(k))
	} else {
		den.Mul(den, pow10(-k))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	res := new(apd.Decimal)
	res.Coeff.SetMathBigInt(q)
	res.Exponent = -s
	res.Negative = (a.Negative != b.Negative) && q.Sign() != 0
	return normScale(res)
}

// NumericMod returns the remainder of a / b truncated toward zero, with a's
// sign (Postgres numeric_mod).
func NumericMod(a, b *apd.Decimal) (*apd.Decimal, error) {
	if b.IsZero() {
		return nil, errDivByZero
	}
	r := new(apd.Decimal)
	if _, err := decCtx.Rem(r, a, b); err != nil {
		return nil, errNumericOverflow
	}
	return normScale(r), nil
}

// NumericDivTrunc is div(a, b): the integer quotient truncated toward zero.
func NumericDivTrunc(a, b *apd.Decimal) (*apd.Decimal, error) {
	if b.IsZero() {
		return nil, errDivByZero
	}
	r := new(apd.Decimal)
	if _, err := decCtx.QuoInteger(r, a, b); err != nil {
		return nil, errNumericOverflow
	}
	return normScale(r), nil
}

// scaledOp computes f with enough precision for scale s and rounds to s.
func scaledOp(s int32, mag int, f func(c *apd.Context, r *apd.Decimal) (apd.Condition, error)) (*apd.Decimal, error) {
	c := *decCtx
	c.Precision = uint32(max(int(s)+mag+10, 30))
	r := new(apd.Decimal)
	if _, err := f(&c, r); err != nil || r.Form != apd.Finite {
		return nil, errNumericOverflow
	}
	if r = roundTo(r, s); r.Form != apd.Finite {
		return nil, errNumericOverflow
	}
	return r, nil
}

// lnDweight estimates the decimal weight of ln(x) (Postgres's
// estimate_ln_dweight).
func lnDweight(x *apd.Decimal) int {
	f, _ := x.Float64()
	if f >= 0.9 && f <= 1.1 {
		d := math.Abs(f - 1)
		if d == 0 {
			return 0
		}
		return int(math.Floor(math.Log10(d)))
	}
	l := math.Log(f)
	if math.IsInf(l, 0) || math.IsNaN(l) {
		// Beyond float range: ln(x) ≈ digits * ln(10).
		l = float64(x.NumDigits()+int64(x.Exponent)) * math.Ln10
	}
	return int(math.Log10(math.Abs(l)))
}

func clampScale(rscale int, args ...*apd.Decimal) int32 {
	for _, a := range args {
		rscale = max(rscale, int(dscale(a)))
	}
	return int32(min(max(rscale, 0), NumericMaxDisplayScale))
}

// NumericSqrt is sqrt(numeric): negative input is 2201F.
func NumericSqrt(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Negative && !x.IsZero() {
		return nil, pgerr.New("2201F", "cannot take square root of a negative number")
	}
	w, _ := base10000(x)
	sweight := (w+1)*4/2 - 1
	s := clampScale(NumericMinSigDigits-sweight, x)
	return scaledOp(s, sweight+2, func(c *apd.Context, r *apd.Decimal) (apd.Condition, error) { return c.Sqrt(r, x) })
}

// NumericLn is ln(numeric); zero and negative input are 2201E.
func NumericLn(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Sign() == 0 {
		return nil, pgerr.New("2201E", "cannot take logarithm of zero")
	}
	if x.Sign() < 0 {
		return nil, pgerr.New("2201E", "cannot take logarithm of a negative number")
	}
	s := clampScale(NumericMinSigDigits-lnDweight(x), x)
	return scaledOp(s, 10, func(c *apd.Context, r *apd.Decimal) (apd.Condition, error) { return c.Ln(r, x) })
}

// NumericLog is log(b, x), the logarithm of x to base b.
func NumericLog(b, x *apd.Decimal) (*apd.Decimal, error) {
	for _, v := range []*apd.Decimal{b, x} {
		if v.Sign() == 0 {
			return nil, pgerr.New("2201E", "cannot take logarithm of zero")
		}
		if v.Sign() < 0 {
			return nil, pgerr.New("2201E", "cannot take logarithm of a negative number")
		}
	}
	s := clampScale(NumericMinSigDigits-(lnDweight(x)-lnDweight(b)), b, x)
	c := *decCtx
	c.Precision = uint32(s) + 40
	lb, lx, r := new(apd.Decimal), new(apd.Decimal), new(apd.Decimal)
	_, _ = c.Ln(lb, b)
	_, _ = c.Ln(lx, x)
	if lb.IsZero() {
		return nil, errDivByZero
	}
	_, _ = c.Quo(r, lx, lb)
	return roundTo(r, s), nil
}

// NumericExp is exp(numeric).
func NumericExp(x *apd.Decimal) (*apd.Decimal, error) {
	f, _ := x.Float64()
	val := f * 0.434294481903252
	val = math.Max(math.Min(val, 2000), -2000)
	s := clampScale(NumericMinSigDigits-int(val), x)
	return scaledOp(s, int(math.Abs(val))+2, func(c *apd.Context, r *apd.Decimal) (apd.Condition, error) { return c.Exp(r, x) })
}

// NumericPow is numeric ^ numeric (Postgres power_var): an integer exponent
// gives at least 16 decimals; otherwise the scale follows the estimated
// weight of the result.
func NumericPow(b, e *apd.Decimal) (*apd.Decimal, error) {
	if b.IsZero() && e.Negative {
		return nil, pgerr.New("2201F", "zero raised to a negative power is undefined")
	}
	var ei apd.Decimal
	_, _ = decCtx.RoundToIntegralValue(&ei, e)
	isInt := ei.Cmp(e) == 0
	if b.Negative && !isInt {
		return nil, pgerr.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	var s int32
	bf, _ := b.Float64()
	ef, _ := e.Float64()
	est := math.Abs(ef * math.Log10(math.Abs(bf)))
	if isInt {
		s = clampScale(NumericMinSigDigits, b)
	} else {
		val := ef * math.Log10(bf)
		s = clampScale(NumericMinSigDigits-int(val), b, e)
	}
	if math.IsInf(est, 0) || est > 100000 {
		return nil, errNumericOverflow
	}
	return scaledOp(s, int(est)+2, func(c *apd.Context, r *apd.Decimal) (apd.Condition, error) { return c.Pow(r, b, e) })
}

// toDecimal converts a number of any numeric type to a decimal.
func toDecimal(d types.Datum, t types.T) *apd.Decimal {
	switch t.Family() {
	case types.FamDecimal:
		return d.D
	case types.FamFloat:
		r := new(apd.Decimal)
		_, _ = r.SetFloat64(d.F)
		return r
	}
	return apd.New(d.I, 0)
}
