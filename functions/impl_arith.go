package functions

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Arithmetic operators (+ - * / % ^ and unary neg) on integers, floats and
// numerics, with Postgres's overflow and division errors.

var (
	errDivByZero      = pgerr.New(pgerr.DivisionByZero, "division by zero")
	ErrFloatOverflow  = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	ErrFloatUnderflow = pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
)

// intRangeError returns the 22003 error Postgres raises when a result does
// not fit the integer type id.
func intRangeError(id types.TypeID) error {
	switch id {
	case types.Int2:
		return pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
	case types.Int4:
		return pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
	}
	return pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
}

// CheckIntRange returns 22003 when x does not fit the integer type id.
func CheckIntRange(x int64, id types.TypeID) error {
	switch id {
	case types.Int2:
		if x < math.MinInt16 || x > math.MaxInt16 {
			return intRangeError(id)
		}
	case types.Int4:
		if x < math.MinInt32 || x > math.MaxInt32 {
			return intRangeError(id)
		}
	}
	return nil
}

func IsInf(f float64) bool { return math.IsInf(f, 0) }

// RoundFloat rounds f to float4 precision when id is Float4.
func RoundFloat(f float64, id types.TypeID) float64 {
	if id == types.Float4 {
		return float64(float32(f))
	}
	return f
}

// intOp computes x op y for a result of integer type id, reporting
// overflow of int64 (narrower types are range-checked by the caller).
func intOp(op byte, x, y int64, id types.TypeID) (int64, error) {
	switch op {
	case '+':
		r := x + y
		if (x^r)&(y^r) < 0 {
			return 0, intRangeError(id)
		}
		return r, nil
	case '-':
		r := x - y
		if (x^y)&(x^r) < 0 {
			return 0, intRangeError(id)
		}
		return r, nil
	case '*':
		r := x * y
		if x != 0 && (r/x != y || (x == -1 && y == math.MinInt64)) {
			return 0, intRangeError(id)
		}
		return r, nil
	case '/':
		if y == 0 {
			return 0, errDivByZero
		}
		if y == -1 {
			if x == math.MinInt64 {
				return 0, intRangeError(id)
			}
			return -x, nil
		}
		return x / y, nil
	case '%':
		if y == 0 {
			return 0, errDivByZero
		}
		if y == -1 {
			return 0, nil
		}
		return x % y, nil
	}
	return 0, pgerr.New(pgerr.InternalError, "unknown integer operator %c", op)
}

// intArith returns the vectorized integer operator op with result type id.
func intArith(op byte, id types.TypeID) VecFn {
	return func(_ *Context, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
		a, b := args[0].I, args[1].I
		an, bn := args[0].Nulls, args[1].Nulls
		if op == '+' && id == types.Int8 {
			// The hot path: a tight loop without a call per row.
			for i := 0; i < n; i++ {
				if an[i] || bn[i] || (vis != nil && !vis[i]) {
					out.Nulls[i] = true
					continue
				}
				x, y := a[i], b[i]
				r := x + y
				if (x^r)&(y^r) < 0 {
					return intRangeError(id)
				}
				out.I[i] = r
			}
			return nil
		}
		for i := 0; i < n; i++ {
			if an[i] || bn[i] || (vis != nil && !vis[i]) {
				out.Nulls[i] = true
				continue
			}
			r, err := intOp(op, a[i], b[i], id)
			if err == nil {
				err = CheckIntRange(r, id)
			}
			if err != nil {
				return err
			}
			out.I[i] = r
		}
		return nil
	}
}

// floatOp computes x op y with float8 semantics (Postgres float8pl etc.):
// an infinite result from finite inputs is an overflow, a zero result from
// non-zero inputs of * and / an underflow.
func floatOp(op byte, x, y float64, id types.TypeID) (float64, error) {
	var r float64
	switch op {
	case '+':
		r = x + y
	case '-':
		r = x - y
	case '*':
		r = x * y
	case '/':
		if y == 0 {
			return 0, errDivByZero
		}
		r = x / y
	case '^':
		return floatPow(x, y)
	}
	r = RoundFloat(r, id)
	if IsInf(r) && !IsInf(x) && !IsInf(y) {
		return 0, ErrFloatOverflow
	}
	if r == 0 && (op == '*' || op == '/') && x != 0 && (op == '/' || y != 0) && !IsInf(y) {
		return 0, ErrFloatUnderflow
	}
	return r, nil
}

// floatPow is float8 ^ float8 (Postgres dpow).
func floatPow(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, pgerr.New("2201F", "zero raised to a negative power is undefined")
	}
	if x < 0 && y != math.Floor(y) {
		return 0, pgerr.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	r := math.Pow(x, y)
	if IsInf(r) && !IsInf(x) && !IsInf(y) {
		return 0, ErrFloatOverflow
	}
	if r == 0 && x != 0 && !IsInf(y) {
		return 0, ErrFloatUnderflow
	}
	return r, nil
}

func floatArith(op byte, id types.TypeID) VecFn {
	return func(_ *Context, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
		a, b := args[0], args[1]
		for i := 0; i < n; i++ {
			if a.Nulls[i] || b.Nulls[i] || (vis != nil && !vis[i]) {
				out.Nulls[i] = true
				continue
			}
			r, err := floatOp(op, a.F[i], b.F[i], id)
			if err != nil {
				return err
			}
			out.F[i] = r
		}
		return nil
	}
}

func numericArith(op byte) RowFn {
	return func(_ *Context, d []types.Datum) (types.Datum, error) {
		var (
			r   *apd.Decimal
			err error
		)
		switch op {
		case '+':
			r, err = NumericAdd(d[0].D, d[1].D)
		case '-':
			r, err = NumericSub(d[0].D, d[1].D)
		case '*':
			r, err = NumericMul(d[0].D, d[1].D)
		case '/':
			r, err = NumericDiv(d[0].D, d[1].D)
		case '%':
			r, err = NumericMod(d[0].D, d[1].D)
		case '^':
			r, err = NumericPow(d[0].D, d[1].D)
		}
		if err != nil {
			return types.NullDatum, err
		}
		return types.DDecimal(r), nil
	}
}

// arithOverloads lists the arithmetic operators over numbers
// (pg_operator: int2pl, int24pl, ..., float48pl, numeric_add) and unary
// minus.
func arithOverloads() []*Overload {
	var os []*Overload
	for _, name := range []string{"+", "-", "*", "/"} {
		im := arithImpl(name[0])
		for _, a := range intTypes {
			for _, b := range intTypes {
				os = append(os, op(name, im, intResult(a, b), a, b))
			}
		}
		os = append(os, op(name, im, tF4, tF4, tF4), op(name, im, tF8, tF4, tF8),
			op(name, im, tF8, tF8, tF4), op(name, im, tF8, tF8, tF8), op(name, im, tNum, tNum, tNum))
	}
	// Postgres's % exists for integers (same-type and int2/int4 pairs
	// behave alike after promotion) and numeric, not for floats.
	for _, a := range intTypes {
		os = append(os, op("%", arithImpl('%'), a, a, a))
	}
	os = append(os, op("%", arithImpl('%'), tNum, tNum, tNum))
	os = append(os, op("^", arithImpl('^'), tF8, tF8, tF8), op("^", arithImpl('^'), tNum, tNum, tNum))
	return os
}

// negOverloads lists unary minus ("neg") over numbers and intervals.
func negOverloads() []*Overload {
	var os []*Overload
	for _, t := range numberTypes {
		os = append(os, op("neg", negImpl, t, t))
	}
	return append(os, op("neg", negImpl, tIv, tIv))
}

// arithImpl implements the arithmetic operator op over two integers, two
// floats or two numerics.
func arithImpl(op byte) ImplFactory {
	return func(args []types.T, ret types.T) (Impl, bool) {
		if len(args) != 2 {
			return Impl{}, false
		}
		a, b := args[0], args[1]
		switch {
		case a.IsInteger() && b.IsInteger() && ret.IsInteger():
			return Impl{Vec: intArith(op, ret.ID)}, true
		case a.Family() == types.FamFloat && b.Family() == types.FamFloat:
			return Impl{Vec: floatArith(op, ret.ID)}, true
		case a.ID == types.Numeric && b.ID == types.Numeric:
			return Impl{Row: numericArith(op)}, true
		}
		return Impl{}, false
	}
}

// negImpl implements unary minus.
func negImpl(args []types.T, ret types.T) (Impl, bool) {
	switch {
	case args[0].IsInteger():
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if d[0].I == math.MinInt64 {
				return types.NullDatum, intRangeError(ret.ID)
			}
			return types.DInt(-d[0].I), CheckIntRange(-d[0].I, ret.ID)
		}}, true
	case args[0].Family() == types.FamFloat:
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return types.DFloat(-d[0].F), nil }}, true
	case args[0].ID == types.Numeric:
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			r := new(apd.Decimal).Neg(d[0].D)
			if r.IsZero() {
				r.Negative = false
			}
			return types.DDecimal(r), nil
		}}, true
	case args[0].ID == types.Interval:
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			iv := d[0].Iv
			if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
				return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
			}
			return types.DInterval(types.IntervalVal{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}), nil
		}}, true
	}
	return Impl{}, false
}
