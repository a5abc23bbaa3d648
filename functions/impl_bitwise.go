package functions

import "github.com/weirdb/weir/types"

// Bitwise operators on integers (pg_operator: int4and, int4or, int4xor,
// int4not, int4shl, int4shr and their int2/int8 forms): & | # take two
// operands of one type, ~ one, << and >> shift by an integer count. As in
// PostgreSQL's C code, shifts wrap and use the count modulo the width of
// the machine integer (32 bits for smallint and integer, 64 for bigint).

// bitwiseOverloads lists the bitwise operators over every integer type.
func bitwiseOverloads() []*Overload {
	var os []*Overload
	for _, a := range intTypes {
		os = append(os, op("&", bitwiseImpl("&"), a, a, a), op("|", bitwiseImpl("|"), a, a, a),
			op("#", bitwiseImpl("#"), a, a, a), op("~", bitNotImpl, a, a),
			op("<<", shiftImpl(true), a, a, tI4), op(">>", shiftImpl(false), a, a, tI4))
	}
	return os
}

// bitwiseImpl implements & | # of two integers of one type.
func bitwiseImpl(op string) ImplFactory {
	return func(args []types.T, ret types.T) (Impl, bool) {
		if len(args) != 2 || !args[0].IsInteger() || !args[1].IsInteger() {
			return Impl{}, false
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			x, y := d[0].I, d[1].I
			switch op {
			case "&":
				return types.DInt(x & y), nil
			case "|":
				return types.DInt(x | y), nil
			}
			return types.DInt(x ^ y), nil
		}}, true
	}
}

// bitNotImpl implements ~ of an integer.
func bitNotImpl(args []types.T, ret types.T) (Impl, bool) {
	if len(args) != 1 || !args[0].IsInteger() {
		return Impl{}, false
	}
	return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return types.DInt(^d[0].I), nil }}, true
}

// shiftImpl implements << (left) and >> of an integer by an integer count.
func shiftImpl(left bool) ImplFactory {
	return func(args []types.T, ret types.T) (Impl, bool) {
		if len(args) != 2 || !args[0].IsInteger() || !args[1].IsInteger() {
			return Impl{}, false
		}
		id := args[0].ID
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			return types.DInt(shift(d[0].I, d[1].I, id, left)), nil
		}}, true
	}
}

// shift computes x << n (left) or x >> n for a value of integer type id.
func shift(x, n int64, id types.TypeID, left bool) int64 {
	if id == types.Int8 {
		c := uint(n) & 63
		if left {
			return x << c
		}
		return x >> c
	}
	c := uint(n) & 31
	var r int32
	if left {
		r = int32(x) << c
	} else {
		r = int32(x) >> c
	}
	if id == types.Int2 {
		return int64(int16(r))
	}
	return int64(r)
}
