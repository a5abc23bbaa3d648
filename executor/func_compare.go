package executor

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/types"
)

// Comparison operators (= <> < <= > >=) for every comparable type and
// Postgres's cross-type pairs (int2 vs int8, float4 vs float8, date vs
// timestamp, timestamp vs timestamptz).

const microsPerDay = 86400 * 1000000

// comparer returns a three-way comparison of non-NULL values of types ta
// and tb with Postgres's btree order. Timestamp against timestamptz
// compares the timestamp as UTC; the operators below convert it in the
// session zone first.
func comparer(ta, tb types.T) (func(a, b types.Datum) int, error) {
	fa, fb := ta.Family(), tb.Family()
	switch {
	case ta.ID == types.Date && (tb.ID == types.Timestamp || tb.ID == types.Timestamptz):
		return func(a, b types.Datum) int { return cmpInt64(dateToTS(a.I), b.I) }, nil
	case tb.ID == types.Date && (ta.ID == types.Timestamp || ta.ID == types.Timestamptz):
		return func(a, b types.Datum) int { return cmpInt64(a.I, dateToTS(b.I)) }, nil
	case fa == types.FamInt && fb == types.FamInt:
		return func(a, b types.Datum) int { return cmpInt64(a.I, b.I) }, nil
	case fa == types.FamBool && fb == types.FamBool:
		return func(a, b types.Datum) int { return cmpInt64(a.I, b.I) }, nil
	case fa == types.FamFloat && fb == types.FamFloat:
		return func(a, b types.Datum) int { return cmpFloat(a.F, b.F) }, nil
	case fa == types.FamDecimal && fb == types.FamDecimal:
		return func(a, b types.Datum) int { return types.CompareDecimal(a.D, b.D) }, nil
	case fa == types.FamInterval && fb == types.FamInterval:
		return func(a, b types.Datum) int { return cmpInterval(a.Iv, b.Iv) }, nil
	case ta.IsArray() && ta.ID == tb.ID:
		return func(a, b types.Datum) int { return types.Compare(a, b, ta) }, nil
	case fa == types.FamString && fb == types.FamString:
		if ta.ID == types.Bytea {
			return func(a, b types.Datum) int { return bytes.Compare([]byte(a.S), []byte(b.S)) }, nil
		}
		return func(a, b types.Datum) int { return strings.Compare(a.S, b.S) }, nil
	case ta.IsNumeric() && tb.IsNumeric():
		// Mixed numeric families (the binder normally unifies them).
		return func(a, b types.Datum) int { return cmpNumbers(a, ta, b, tb) }, nil
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s = %s", ta, tb)
}

func cmpInt64(a, b int64) int { return cmp.Compare(a, b) }

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
	return d * microsPerDay
}

func isDatetime(t types.T) bool {
	return t.ID == types.Date || t.ID == types.Timestamp || t.ID == types.Timestamptz
}

// cmpVec is a vectorized comparison of two integer-family or float vectors.
func cmpVec(op string, ta, tb types.T) vecFn {
	holds := [3]bool{cmpHolds(op, -1), cmpHolds(op, 0), cmpHolds(op, 1)}
	if ta.Family() == types.FamInt && tb.Family() == types.FamInt &&
		(isDatetime(ta) || isDatetime(tb)) && ta.ID != tb.ID {
		return nil // date vs timestamp vs timestamptz needs conversion: row path
	}
	switch {
	case ta.Family() == types.FamInt && tb.Family() == types.FamInt:
		return func(_ *EvalCtx, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
			a, b := args[0], args[1]
			for i := 0; i < n; i++ {
				if a.Nulls[i] || b.Nulls[i] || (vis != nil && !vis[i]) {
					out.Nulls[i] = true
					continue
				}
				out.B[i] = holds[cmpInt64(a.I[i], b.I[i])+1]
			}
			return nil
		}
	case ta.Family() == types.FamFloat && tb.Family() == types.FamFloat:
		return func(_ *EvalCtx, args []*types.Vec, n int, vis []bool, out *types.Vec) error {
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

func init() {
	for _, op := range functions.CompareOps {
		op := op
		def(op, func(args []types.T, _ types.T) (impl, bool) {
			if len(args) != 2 {
				return impl{}, false
			}
			ta, tb := args[0], args[1]
			if v := cmpVec(op, ta, tb); v != nil {
				return impl{vec: v}, true
			}
			cmp, err := comparer(ta, tb)
			if err != nil {
				return impl{}, false
			}
			// A date, timestamp and timestamptz compare as the later
			// type of the two: a date as its midnight, and a date or
			// timestamp against a timestamptz read in the session zone
			// (timestamp_cmp_timestamptz, date_cmp_timestamptz).
			if isDatetime(ta) && isDatetime(tb) && ta.ID != tb.ID {
				tz := ta.ID == types.Timestamptz || tb.ID == types.Timestamptz
				conv := func(ctx *EvalCtx, x int64, t types.T) int64 {
					if t.ID == types.Date {
						x = dateToTS(x)
					}
					if tz && t.ID != types.Timestamptz {
						x = tsToTSTZ(x, ctx.loc())
					}
					return x
				}
				return impl{row: func(ctx *EvalCtx, d []types.Datum) (types.Datum, error) {
					c := cmpInt64(conv(ctx, d[0].I, ta), conv(ctx, d[1].I, tb))
					return types.DBool(cmpHolds(op, c)), nil
				}}, true
			}
			return impl{row: func(_ *EvalCtx, d []types.Datum) (types.Datum, error) {
				return types.DBool(cmpHolds(op, cmp(d[0], d[1]))), nil
			}}, true
		})
	}
}
