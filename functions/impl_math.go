package functions

import (
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Mathematical functions (docs §9.3).

func dFloat(f float64) (types.Datum, error) { return types.DFloat(f), nil }

func dDec(d *apd.Decimal, err error) (types.Datum, error) {
	if err != nil {
		return types.NullDatum, err
	}
	return types.DDecimal(d), nil
}

// floatFn returns the overload name(float8) returning float8,
// implemented by f with Postgres's domain errors.
func floatFn(name string, f func(float64) (float64, error)) *Overload {
	return fn(name, floatImpl(f), tF8, tF8)
}

// floatImpl implements a function of one float8 by f.
func floatImpl(f func(float64) (float64, error)) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 || args[0].Family() != types.FamFloat {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			r, err := f(d[0].F)
			return types.DFloat(r), err
		}}, true
	}
}

// numFn returns the overload name(numeric) returning numeric,
// implemented by f.
func numFn(name string, f func(*apd.Decimal) (*apd.Decimal, error)) *Overload {
	return fn(name, numImpl(f), tNum, tNum)
}

// numImpl implements a function of one numeric by f.
func numImpl(f func(*apd.Decimal) (*apd.Decimal, error)) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 || args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return dDec(f(d[0].D)) }}, true
	}
}

func pure(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) { return f(x), nil }
}

var errInputOutOfRange = pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")

func integral(mode apd.Rounder) func(*apd.Decimal) (*apd.Decimal, error) {
	return func(x *apd.Decimal) (*apd.Decimal, error) {
		c := *decCtx
		c.Rounding = mode
		r := new(apd.Decimal)
		if x.Exponent >= 0 {
			return r.Set(x), nil
		}
		_, err := c.Quantize(r, x, 0)
		if r.IsZero() {
			r.Negative = false
		}
		return r, err
	}
}

// mathOverloads lists the mathematical functions (docs §9.3) and the
// conditional functions nullif, greatest and least (docs §9.18).
func mathOverloads() []*Overload {
	var os []*Overload
	absImpl := func(args []types.T, ret types.T) (Impl, bool) {
		switch args[0].Family() {
		case types.FamInt:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				if d[0].I < 0 {
					if d[0].I == math.MinInt64 {
						return types.NullDatum, intRangeError(ret.ID)
					}
					return types.DInt(-d[0].I), CheckIntRange(-d[0].I, ret.ID)
				}
				return types.DInt(d[0].I), nil
			}}, true
		case types.FamFloat:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return dFloat(math.Abs(d[0].F)) }}, true
		case types.FamDecimal:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				return types.DDecimal(new(apd.Decimal).Abs(d[0].D)), nil
			}}, true
		}
		return Impl{}, false
	}
	os = append(os, fn("abs", absImpl, tI2, tI2), fn("abs", absImpl, tI4, tI4), fn("abs", absImpl, tI8, tI8),
		fn("abs", absImpl, tF4, tF4), fn("abs", absImpl, tF8, tF8), fn("abs", absImpl, tNum, tNum))
	for _, n := range []string{"ceil", "ceiling"} {
		os = append(os, floatFn(n, pure(math.Ceil)))
		os = append(os, numFn(n, integral(apd.RoundCeiling)))
	}
	os = append(os, floatFn("floor", pure(math.Floor)))
	os = append(os, numFn("floor", integral(apd.RoundFloor)))
	// round(float8) rounds half to even (rint); round(numeric) half away
	// from zero.
	os = append(os, floatFn("round", pure(math.RoundToEven)))
	os = append(os, floatFn("trunc", pure(math.Trunc)))
	roundImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			var s int64
			if len(d) > 1 {
				s = d[1].I
			}
			r := roundTo(d[0].D, int32(max(min(s, 2000), -2000)))
			if r.IsZero() {
				r.Negative = false
			}
			return types.DDecimal(r), nil
		}}, true
	}
	os = append(os, fn("round", roundImpl, tNum, tNum), fn("round", roundImpl, tNum, tNum, tI4))
	truncImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			var s int64
			if len(d) > 1 {
				s = d[1].I
			}
			c := *decCtx
			c.Rounding = apd.RoundDown
			r := new(apd.Decimal)
			if _, err := c.Quantize(r, d[0].D, -int32(s)); err != nil {
				return types.NullDatum, errNumericOverflow
			}
			return types.DDecimal(normScale(r)), nil
		}}, true
	}
	os = append(os, fn("trunc", truncImpl, tNum, tNum), fn("trunc", truncImpl, tNum, tNum, tI4))
	os = append(os, floatFn("sign", func(x float64) (float64, error) {
		switch {
		case x > 0:
			return 1, nil
		case x < 0:
			return -1, nil
		}
		return 0, nil
	}))
	os = append(os, numFn("sign", func(x *apd.Decimal) (*apd.Decimal, error) { return apd.New(int64(x.Sign()), 0), nil }))
	os = append(os, floatFn("sqrt", func(x float64) (float64, error) {
		if x < 0 {
			return 0, pgerr.New("2201F", "cannot take square root of a negative number")
		}
		return math.Sqrt(x), nil
	}))
	os = append(os, numFn("sqrt", NumericSqrt))
	os = append(os, floatFn("cbrt", pure(glibcCbrt)))
	os = append(os, floatFn("exp", func(x float64) (float64, error) {
		r := math.Exp(x)
		if IsInf(r) && !IsInf(x) {
			return 0, ErrFloatOverflow
		}
		if r == 0 && !IsInf(x) {
			return 0, ErrFloatUnderflow
		}
		return r, nil
	}))
	os = append(os, numFn("exp", NumericExp))
	logf := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) {
			if x == 0 {
				return 0, pgerr.New("2201E", "cannot take logarithm of zero")
			}
			if x < 0 {
				return 0, pgerr.New("2201E", "cannot take logarithm of a negative number")
			}
			return f(x), nil
		}
	}
	os = append(os, floatFn("ln", logf(math.Log)))
	os = append(os, floatFn("log", logf(math.Log10)))
	os = append(os, floatFn("log10", logf(math.Log10)))
	os = append(os, numFn("ln", NumericLn))
	ten := apd.New(10, 0)
	os = append(os, numFn("log10", func(x *apd.Decimal) (*apd.Decimal, error) { return NumericLog(ten, x) }))
	logImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if len(d) == 1 {
				return dDec(NumericLog(ten, d[0].D))
			}
			return dDec(NumericLog(d[0].D, d[1].D))
		}}, true
	}
	os = append(os, fn("log", logImpl, tNum, tNum), fn("log", logImpl, tNum, tNum, tNum))
	powerImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID == types.Numeric {
			return Impl{Row: numericArith('^')}, true
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			r, err := floatPow(d[0].F, d[1].F)
			return types.DFloat(r), err
		}}, true
	}
	for _, n := range []string{"power", "pow"} {
		os = append(os, fn(n, powerImpl, tF8, tF8, tF8), fn(n, powerImpl, tNum, tNum, tNum))
	}
	modImpl := func(args []types.T, ret types.T) (Impl, bool) {
		if args[0].ID == types.Numeric {
			return Impl{Row: numericArith('%')}, true
		}
		return Impl{Vec: intArith('%', ret.ID)}, true
	}
	os = append(os, fn("mod", modImpl, tI2, tI2, tI2), fn("mod", modImpl, tI4, tI4, tI4),
		fn("mod", modImpl, tI8, tI8, tI8), fn("mod", modImpl, tNum, tNum, tNum))
	divImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dDec(NumericDivTrunc(d[0].D, d[1].D)) })
	os = append(os, fn("div", divImpl, tNum, tNum, tNum))
	piImpl := row(func(*Context, []types.Datum) (types.Datum, error) { return dFloat(math.Pi) })
	os = append(os, fn("pi", piImpl, tF8))
	randomImpl := func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(*Context, []types.Datum) (types.Datum, error) { return dFloat(rand.Float64()) }}, true
	}
	os = append(os, volatile("random", randomImpl, tF8))
	setseedImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].F < -1 || d[0].F > 1 {
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "setseed parameter %g is out of allowed range [-1,1]", d[0].F)
		}
		return types.NullDatum, nil
	})
	os = append(os, volatile("setseed", setseedImpl, tAny, tF8))
	os = append(os, floatFn("degrees", func(x float64) (float64, error) { return x * 180 / math.Pi, nil }))
	os = append(os, floatFn("radians", func(x float64) (float64, error) { return x * math.Pi / 180, nil }))
	trig := map[string]func(float64) float64{"sin": math.Sin, "cos": math.Cos, "tan": math.Tan,
		"atan": math.Atan, "sinh": math.Sinh, "cosh": math.Cosh, "tanh": math.Tanh,
		"cot": func(x float64) float64 { return 1 / math.Tan(x) }}
	for n, f := range trig {
		os = append(os, floatFn(n, pure(f)))
	}
	for n, f := range map[string]func(float64) float64{"asin": math.Asin, "acos": math.Acos} {
		f := f
		os = append(os, floatFn(n, func(x float64) (float64, error) {
			if x < -1 || x > 1 {
				return 0, errInputOutOfRange
			}
			return f(x), nil
		}))
	}
	deg := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) { return f(x * math.Pi / 180), nil }
	}
	os = append(os, floatFn("sind", deg(math.Sin)))
	os = append(os, floatFn("cosd", deg(math.Cos)))
	os = append(os, floatFn("tand", deg(math.Tan)))
	os = append(os, floatFn("asind", func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange
		}
		return math.Asin(x) * 180 / math.Pi, nil
	}))
	os = append(os, floatFn("acosd", func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange
		}
		return math.Acos(x) * 180 / math.Pi, nil
	}))
	os = append(os, floatFn("atand", func(x float64) (float64, error) { return math.Atan(x) * 180 / math.Pi, nil }))
	atan2Impl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dFloat(math.Atan2(d[0].F, d[1].F)) })
	os = append(os, fn("atan2", atan2Impl, tF8, tF8, tF8))
	atan2dImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return dFloat(math.Atan2(d[0].F, d[1].F) * 180 / math.Pi)
	})
	os = append(os, fn("atan2d", atan2dImpl, tF8, tF8, tF8))
	gcdLcm := func(lcm bool) ImplFactory {
		return func(args []types.T, ret types.T) (Impl, bool) {
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				var a, b big.Int
				if args[0].ID == types.Numeric {
					if d[0].D.Exponent < 0 || d[1].D.Exponent < 0 {
						ia, _ := integral(apd.RoundDown)(d[0].D)
						ib, _ := integral(apd.RoundDown)(d[1].D)
						if ia.Cmp(d[0].D) != 0 || ib.Cmp(d[1].D) != 0 {
							return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "gcd/lcm of non-integer numerics is not supported")
						}
					}
					a.SetString(d[0].D.Text('f'), 10)
					b.SetString(d[1].D.Text('f'), 10)
				} else {
					a.SetInt64(d[0].I)
					b.SetInt64(d[1].I)
				}
				a.Abs(&a)
				b.Abs(&b)
				var r big.Int
				r.GCD(nil, nil, &a, &b)
				if lcm {
					if a.Sign() == 0 || b.Sign() == 0 {
						r.SetInt64(0)
					} else {
						r.Mul(r.Quo(&a, &r), &b)
					}
				}
				if args[0].ID == types.Numeric {
					dd := new(apd.Decimal)
					dd.Coeff.SetMathBigInt(&r)
					return types.DDecimal(dd), nil
				}
				if !r.IsInt64() || CheckIntRange(r.Int64(), ret.ID) != nil {
					return types.NullDatum, intRangeError(ret.ID)
				}
				return types.DInt(r.Int64()), nil
			}}, true
		}
	}
	os = append(os, fn("gcd", gcdLcm(false), tI4, tI4, tI4), fn("gcd", gcdLcm(false), tI8, tI8, tI8),
		fn("gcd", gcdLcm(false), tNum, tNum, tNum))
	os = append(os, fn("lcm", gcdLcm(true), tI4, tI4, tI4), fn("lcm", gcdLcm(true), tI8, tI8, tI8),
		fn("lcm", gcdLcm(true), tNum, tNum, tNum))
	widthBucketImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			var x, lo, hi float64
			if args[0].ID == types.Numeric {
				x, _ = d[0].D.Float64()
				lo, _ = d[1].D.Float64()
				hi, _ = d[2].D.Float64()
			} else {
				x, lo, hi = d[0].F, d[1].F, d[2].F
			}
			n := d[3].I
			if n <= 0 {
				return types.NullDatum, pgerr.New("2201G", "count must be greater than zero")
			}
			if lo == hi {
				return types.NullDatum, pgerr.New("2201G", "lower bound cannot equal upper bound")
			}
			var r int64
			switch {
			case lo < hi && x < lo, lo > hi && x > lo:
				r = 0
			case lo < hi && x >= hi, lo > hi && x <= hi:
				r = n + 1
			case lo < hi:
				r = int64(float64(n)*(x-lo)/(hi-lo)) + 1
			default:
				r = int64(float64(n)*(lo-x)/(lo-hi)) + 1
			}
			return types.DInt(r), nil
		}}, true
	}
	os = append(os, fn("width_bucket", widthBucketImpl, tI4, tF8, tF8, tF8, tI4),
		fn("width_bucket", widthBucketImpl, tI4, tNum, tNum, tNum, tI4))
	factorialImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].I < 0 {
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "factorial of a negative number is undefined")
		}
		if d[0].I > 32177 {
			return types.NullDatum, errNumericOverflow
		}
		var r big.Int
		r.MulRange(1, max(d[0].I, 1))
		dd := new(apd.Decimal)
		dd.Coeff.SetMathBigInt(&r)
		return types.DDecimal(dd), nil
	})
	os = append(os, fn("factorial", factorialImpl, tNum, tI8))
	scaleImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dInt(int64(dscale(d[0].D))) })
	os = append(os, fn("scale", scaleImpl, tI4, tNum))
	minScaleImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		var r apd.Decimal
		r.Reduce(d[0].D)
		return dInt(int64(dscale(&r)))
	})
	os = append(os, fn("min_scale", minScaleImpl, tI4, tNum))
	trimScaleImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		r := new(apd.Decimal)
		r.Reduce(d[0].D)
		return types.DDecimal(normScale(r)), nil
	})
	os = append(os, fn("trim_scale", trimScaleImpl, tNum, tNum))
	// greatest / least ignore NULLs and return NULL only when all are NULL.
	for _, n := range []string{"greatest", "least"} {
		want := 1
		if n == "least" {
			want = -1
		}
		im := func(args []types.T, _ types.T) (Impl, bool) {
			cmp, err := Comparer(args[0], args[0])
			if err != nil {
				return Impl{}, false
			}
			return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				best := types.NullDatum
				for _, x := range d {
					if !x.Null && (best.Null || cmp(x, best) == want) {
						best = x
					}
				}
				return best, nil
			}}, true
		}
		os = append(os, &Overload{Name: n, Fn: im, Args: []types.TypeID{tAny}, Variadic: true, RetFn: sameAsArg(0), NonStrict: true})
	}
	// nullif is usually bound as a Case.
	nullifImpl := func(args []types.T, _ types.T) (Impl, bool) {
		cmp, err := Comparer(args[0], args[1])
		if err != nil {
			return Impl{}, false
		}
		return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if !d[0].Null && !d[1].Null && cmp(d[0], d[1]) == 0 {
				return types.NullDatum, nil
			}
			return d[0], nil
		}}, true
	}
	os = append(os, &Overload{Name: "nullif", Fn: nullifImpl, Args: []types.TypeID{tAny, tAny}, RetFn: sameAsArg(0), NonStrict: true})
	return os
}

// glibcCbrtFactor is 2^(n/3) for n = -2..2, each computed as a double
// quotient as C does (a Go constant quotient would be exact before
// rounding and differ in the last bit).
var glibcCbrtFactor = func() [5]float64 {
	cbrt2, sqrCbrt2 := 1.2599210498948731648, 1.5874010519681994748
	return [5]float64{1.0 / sqrCbrt2, 1.0 / cbrt2, 1.0, cbrt2, sqrCbrt2}
}()

// glibcCbrt is glibc's cbrt (sysdeps/ieee754/dbl-64/s_cbrt.c), which
// Postgres's cbrt() calls on Linux: a polynomial first guess refined by
// one Halley step. It is not correctly rounded (cbrt(27) is
// 3.0000000000000004), and Go's math.Cbrt differs from it in the last
// bit for many inputs. The float64 conversions keep every operation
// rounded on its own, as C evaluates it without fused multiply-adds.
func glibcCbrt(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x + x
	}
	xm, xe := math.Frexp(math.Abs(x))
	u := float64(-0.145263899385486377 * xm)
	u = float64(float64(0.784932344976639262+u) * xm)
	u = float64(float64(-1.83469277483613086+u) * xm)
	u = float64(float64(2.44693122563534430+u) * xm)
	u = float64(float64(-2.11499494167371287+u) * xm)
	u = float64(float64(1.50819193781584896+u) * xm)
	u = 0.354895765043919860 + u
	t2 := float64(float64(u*u) * u)
	ym := float64(float64(u*float64(t2+float64(2.0*xm))) / float64(float64(2.0*t2)+xm))
	ym = float64(ym * glibcCbrtFactor[2+xe%3])
	if x < 0 {
		ym = -ym
	}
	return math.Ldexp(ym, xe/3)
}
