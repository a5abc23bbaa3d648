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

// floatFn registers a float8 function f with Postgres's domain errors.
func (t implTable) floatFn(name string, f func(float64) (float64, error)) {
	t.def(name, func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 || args[0].Family() != types.FamFloat {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			r, err := f(d[0].F)
			return types.DFloat(r), err
		}}, true
	})
}

// numFn registers a numeric function f.
func (t implTable) numFn(name string, f func(*apd.Decimal) (*apd.Decimal, error)) {
	t.def(name, func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 || args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return dDec(f(d[0].D)) }}, true
	})
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

// defineMath adds the implementations of this file to t.
func (t implTable) defineMath() {
	t.def("abs", func(args []types.T, ret types.T) (Impl, bool) {
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
	})
	for _, n := range []string{"ceil", "ceiling"} {
		t.floatFn(n, pure(math.Ceil))
		t.numFn(n, integral(apd.RoundCeiling))
	}
	t.floatFn("floor", pure(math.Floor))
	t.numFn("floor", integral(apd.RoundFloor))
	// round(float8) rounds half to even (rint); round(numeric) half away
	// from zero.
	t.floatFn("round", pure(math.RoundToEven))
	t.floatFn("trunc", pure(math.Trunc))
	t.def("round", func(args []types.T, _ types.T) (Impl, bool) {
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
	})
	t.def("trunc", func(args []types.T, _ types.T) (Impl, bool) {
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
	})
	t.floatFn("sign", func(x float64) (float64, error) {
		switch {
		case x > 0:
			return 1, nil
		case x < 0:
			return -1, nil
		}
		return 0, nil
	})
	t.numFn("sign", func(x *apd.Decimal) (*apd.Decimal, error) { return apd.New(int64(x.Sign()), 0), nil })
	t.floatFn("sqrt", func(x float64) (float64, error) {
		if x < 0 {
			return 0, pgerr.New("2201F", "cannot take square root of a negative number")
		}
		return math.Sqrt(x), nil
	})
	t.numFn("sqrt", NumericSqrt)
	t.floatFn("cbrt", pure(glibcCbrt))
	t.floatFn("exp", func(x float64) (float64, error) {
		r := math.Exp(x)
		if IsInf(r) && !IsInf(x) {
			return 0, ErrFloatOverflow
		}
		if r == 0 && !IsInf(x) {
			return 0, ErrFloatUnderflow
		}
		return r, nil
	})
	t.numFn("exp", NumericExp)
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
	t.floatFn("ln", logf(math.Log))
	t.floatFn("log", logf(math.Log10))
	t.floatFn("log10", logf(math.Log10))
	t.numFn("ln", NumericLn)
	ten := apd.New(10, 0)
	t.numFn("log10", func(x *apd.Decimal) (*apd.Decimal, error) { return NumericLog(ten, x) })
	t.def("log", func(args []types.T, _ types.T) (Impl, bool) {
		if args[0].ID != types.Numeric {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if len(d) == 1 {
				return dDec(NumericLog(ten, d[0].D))
			}
			return dDec(NumericLog(d[0].D, d[1].D))
		}}, true
	})
	for _, n := range []string{"power", "pow"} {
		t.def(n, func(args []types.T, _ types.T) (Impl, bool) {
			if args[0].ID == types.Numeric {
				return Impl{Row: numericArith('^')}, true
			}
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				r, err := floatPow(d[0].F, d[1].F)
				return types.DFloat(r), err
			}}, true
		})
	}
	t.def("mod", func(args []types.T, ret types.T) (Impl, bool) {
		if args[0].ID == types.Numeric {
			return Impl{Row: numericArith('%')}, true
		}
		return Impl{Vec: intArith('%', ret.ID)}, true
	})
	t.defRow("div", func(_ *Context, d []types.Datum) (types.Datum, error) { return dDec(NumericDivTrunc(d[0].D, d[1].D)) })
	t.defRow("pi", func(*Context, []types.Datum) (types.Datum, error) { return dFloat(math.Pi) })
	t.def("random", func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(*Context, []types.Datum) (types.Datum, error) { return dFloat(rand.Float64()) }}, true
	})
	t.defRow("setseed", func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].F < -1 || d[0].F > 1 {
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "setseed parameter %g is out of allowed range [-1,1]", d[0].F)
		}
		return types.NullDatum, nil
	})
	t.floatFn("degrees", func(x float64) (float64, error) { return x * 180 / math.Pi, nil })
	t.floatFn("radians", func(x float64) (float64, error) { return x * math.Pi / 180, nil })
	trig := map[string]func(float64) float64{"sin": math.Sin, "cos": math.Cos, "tan": math.Tan,
		"atan": math.Atan, "sinh": math.Sinh, "cosh": math.Cosh, "tanh": math.Tanh,
		"cot": func(x float64) float64 { return 1 / math.Tan(x) }}
	for n, f := range trig {
		t.floatFn(n, pure(f))
	}
	for n, f := range map[string]func(float64) float64{"asin": math.Asin, "acos": math.Acos} {
		f := f
		t.floatFn(n, func(x float64) (float64, error) {
			if x < -1 || x > 1 {
				return 0, errInputOutOfRange
			}
			return f(x), nil
		})
	}
	deg := func(f func(float64) float64) func(float64) (float64, error) {
		return func(x float64) (float64, error) { return f(x * math.Pi / 180), nil }
	}
	t.floatFn("sind", deg(math.Sin))
	t.floatFn("cosd", deg(math.Cos))
	t.floatFn("tand", deg(math.Tan))
	t.floatFn("asind", func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange
		}
		return math.Asin(x) * 180 / math.Pi, nil
	})
	t.floatFn("acosd", func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputOutOfRange
		}
		return math.Acos(x) * 180 / math.Pi, nil
	})
	t.floatFn("atand", func(x float64) (float64, error) { return math.Atan(x) * 180 / math.Pi, nil })
	t.defRow("atan2", func(_ *Context, d []types.Datum) (types.Datum, error) { return dFloat(math.Atan2(d[0].F, d[1].F)) })
	t.defRow("atan2d", func(_ *Context, d []types.Datum) (types.Datum, error) {
		return dFloat(math.Atan2(d[0].F, d[1].F) * 180 / math.Pi)
	})
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
	t.def("gcd", gcdLcm(false))
	t.def("lcm", gcdLcm(true))
	t.def("width_bucket", func(args []types.T, _ types.T) (Impl, bool) {
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
	})
	t.defRow("factorial", func(_ *Context, d []types.Datum) (types.Datum, error) {
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
	t.defRow("scale", func(_ *Context, d []types.Datum) (types.Datum, error) { return dInt(int64(dscale(d[0].D))) })
	t.defRow("min_scale", func(_ *Context, d []types.Datum) (types.Datum, error) {
		var r apd.Decimal
		r.Reduce(d[0].D)
		return dInt(int64(dscale(&r)))
	})
	t.defRow("trim_scale", func(_ *Context, d []types.Datum) (types.Datum, error) {
		r := new(apd.Decimal)
		r.Reduce(d[0].D)
		return types.DDecimal(normScale(r)), nil
	})
	// greatest / least ignore NULLs and return NULL only when all are NULL.
	for _, n := range []string{"greatest", "least"} {
		want := 1
		if n == "least" {
			want = -1
		}
		t.def(n, func(args []types.T, _ types.T) (Impl, bool) {
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
		})
	}
	t.def("nullif", func(args []types.T, _ types.T) (Impl, bool) {
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
	})
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
