package functions

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Comparison operators (= <> < <= > >=) for every comparable type and
// Postgres's cross-type pairs (int2 vs int8, float4 vs float8, date vs
// timestamp, timestamp vs timestamptz).

const MicrosPerDay = 86400 * 1000000

// Comparer returns a three-way comparison of non-NULL values of types ta
// and tb with Postgres's btree order. Timestamp against timestamptz
// compares the timestamp as UTC; the operators below convert it in the
// session zone first.
func Comparer(ta, tb types.T) (func(a, b types.Datum) int, error) {
	fa, fb := ta.Family(), tb.Family()
	switch {
	case ta.ID == types.Date && (tb.ID == types.Timestamp || tb.ID == types.Timestamptz):
		return func(a, b types.Datum) int { return CmpInt64(dateToTS(a.I), b.I) }, nil
	case tb.ID == types.Date && (ta.ID == types.Timestamp || ta.ID == types.Timestamptz):
		return func(a, b types.Datum) int { return CmpInt64(a.I, dateToTS(b.I)) }, nil
	case fa == types.FamInt && fb == types.FamInt:
		return func(a, b types.Datum) int { return CmpInt64(a.I, b.I) }, nil
	case fa == types.FamBool && fb == types.FamBool:
		return func(a, b types.Datum) int { return CmpInt64(a.I, b.I) }, nil
	case fa == types.FamFloat && fb == types.FamFloat:
		return func(a, b types.Datum) int { return cmpFloat(a.F, b.F) }, nil
	case fa == types.FamDecimal && fb == types.FamDecimal:
		return func(a, b types.Datum) int { return types.CompareDecimal(a.D, b.D) }, nil
	case fa == types.FamInterval && fb == types.FamInterval:
		return func(a, b types.Datum) int { return cmpInterval(a.Iv, b.Iv) }, nil
	case ta.IsArray() && ta.ID == tb.ID, ta.ID == types.Jsonb && tb.ID == types.Jsonb:
		// Arrays element by element; jsonb by value, numbers numerically
		// ('1' = '1.0'), in the jsonb btree order.
		return func(a, b types.Datum) int { return types.Compare(a, b, ta) }, nil
	case fa == types.FamString && fb == types.FamString:
		if ta.ID == types.Bytea {
			return func(a, b types.Datum) int { return bytes.Compare([]byte(a.S), []byte(b.S)) }, nil
		}
		if ta.ID == types.Bpchar && tb.ID == types.Bpchar {
			// bpcharcmp: trailing spaces do not count.
			return func(a, b types.Datum) int { return strings.Compare(types.BpcharTrim(a.S), types.BpcharTrim(b.S)) }, nil
		}
		return func(a, b types.Datum) int { return strings.Compare(a.S, b.S) }, nil
	case ta.IsNumeric() && tb.IsNumeric():
		// Mixed numeric families (the binder normally unifies them).
		return func(a, b types.Datum) int { return cmpNumbers(a, ta, b, tb) }, nil
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s = %s", ta, tb)
}

func CmpInt64(a, b int64) int { return cmp.Compare(a, b) }

// cmpFloat and cmpInterval are Postgres's orderings, kept in types.
var (
	cmpFloat    = types.CompareFloat
	cmpInterval = types.CompareInterval
)

func cmpNumbers(a types.Datum, ta types.T, b types.Datum, tb types.T) int {
	x, y := toDecimal(a, ta), toDecimal(b, tb)
	return types.CompareDecimal(x, y)
}

// dateToTS converts days since 1970 to microseconds for comparing a date
// with a timestamp, keeping infinities. A date beyond the timestamp range
// becomes the last finite timestamp, after every other one and before
// infinity, as date2timestamp_opt_overflow has it compare.
func dateToTS(d int64) int64 {
	switch {
	case d == math.MinInt64 || d == math.MaxInt64:
		return d
	case d > maxWallDay:
		return math.MaxInt64 - 1
	}
	return d * MicrosPerDay
}

func isDatetime(t types.T) bool {
	return t.ID == types.Date || t.ID == types.Timestamp || t.ID == types.Timestamptz
}

// cmpVec is a vectorized comparison of two integer-family or float vectors.
func cmpVec(op string, ta, tb types.T) VecFn {
	holds := [3]bool{CmpHolds(op, -1), CmpHolds(op, 0), CmpHolds(op, 1)}
	if ta.Family() == types.FamInt && tb.Family() == types.FamInt &&
		(isDatetime(ta) || isDatetime(tb)) && ta.ID != tb.ID {
		return nil // date vs timestamp vs timestamptz needs conversion: row path
	}
	switch {
	case ta.Family() == types.FamInt && tb.Family() == types.FamInt:
		return func(_ *Context, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
			a, b := args[0], args[1]
			for i := 0; i < n; i++ {
				if a.Nulls[i] || b.Nulls[i] || (vis != nil && !vis[i]) {
					out.Nulls[i] = true
					continue
				}
				out.B[i] = holds[CmpInt64(a.I[i], b.I[i])+1]
			}
			return nil
		}
	case ta.Family() == types.FamFloat && tb.Family() == types.FamFloat:
		return func(_ *Context, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
			a, b := args[0], args[1]
			for i := 0; i < n; i++ {
				if a.Nulls[i] || b.Nulls[i] || (vis != nil && !vis[i]) {
					out.Nulls[i] = true
					continue
				}
				out.B[i] = holds[cmpFloat(a.F[i], b.F[i])+1]
			}
			return nil
		}
	}
	return nil
}

// compareOverloads lists the comparison operators: for every comparable
// type, Postgres's cross-width integer and float operators (int24eq,
// float48lt, ...), jsonb and arrays.
func compareOverloads() []*Overload {
	var os []*Overload
	// Comparisons for every comparable type, plus Postgres's cross-width
	// integer and float operators (int24eq, float48lt, ...).
	for _, name := range CompareOps {
		for _, t := range ComparableTypes {
			os = append(os, op(name, compareImpl(name), tBool, t, t))
		}
		for _, a := range intTypes {
			for _, b := range intTypes {
				if a != b {
					os = append(os, op(name, compareImpl(name), tBool, a, b))
				}
			}
		}
		os = append(os, op(name, compareImpl(name), tBool, tF4, tF8), op(name, compareImpl(name), tBool, tF8, tF4),
			// Postgres compares dates with timestamps and timestamp with
			// timestamptz directly (date_lt_timestamp, timestamp_lt_timestamptz).
			op(name, compareImpl(name), tBool, tDate, tTS), op(name, compareImpl(name), tBool, tTS, tDate),
			op(name, compareImpl(name), tBool, tDate, tTSTZ), op(name, compareImpl(name), tBool, tTSTZ, tDate),
			op(name, compareImpl(name), tBool, tTS, tTSTZ), op(name, compareImpl(name), tBool, tTSTZ, tTS))
	}
	for _, name := range CompareOps {
		os = append(os, op(name, compareImpl(name), tBool, tJsonb, tJsonb))
	}
	// Array comparisons (array_eq, array_lt, ...: element-wise, then
	// length); psql compares acl and role arrays.
	for _, at := range types.ArrayTypes() {
		for _, name := range CompareOps {
			os = append(os, op(name, compareImpl(name), tBool, at.ID, at.ID))
		}
	}
	return os
}

// compareImpl implements comparison operator op.
func compareImpl(op string) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 2 {
			return Impl{}, false
		}
		ta, tb := args[0], args[1]
		if v := cmpVec(op, ta, tb); v != nil {
			return Impl{Vec: v}, true
		}
		cmp, err := Comparer(ta, tb)
		if err != nil {
			return Impl{}, false
		}
		// A date, timestamp and timestamptz compare as the later
		// type of the two: a date as its midnight, and a date or
		// timestamp against a timestamptz read in the session zone
		// (timestamp_cmp_timestamptz, date_cmp_timestamptz).
		if isDatetime(ta) && isDatetime(tb) && ta.ID != tb.ID {
			tz := ta.ID == types.Timestamptz || tb.ID == types.Timestamptz
			conv := func(ctx *Context, x int64, t types.T) int64 {
				if t.ID == types.Date {
					x = dateToTS(x)
				}
				if tz && t.ID != types.Timestamptz {
					x = tsToTSTZ(x, ctx.loc())
				}
				return x
			}
			return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
				c := CmpInt64(conv(ctx, d[0].I, ta), conv(ctx, d[1].I, tb))
				return types.DBool(CmpHolds(op, c)), nil
			}}, true
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			return types.DBool(CmpHolds(op, cmp(d[0], d[1]))), nil
		}}, true
	}
}
