package executor

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// RANGE frames with an offset (docs §4.2.8): the frame of a row holds the
// rows whose ORDER BY value lies within the offset of its own. As in
// Postgres, the comparison is the btree operator family's in_range
// support function of the key type (int2/int4/int8 with an integer
// offset, float4/float8 with a float8 one, numeric with numeric, date,
// time, timestamp, timestamptz and interval with an interval), and the
// frame's first and last rows advance through the partition the way
// nodeWindowAgg.c advances its frame head and tail.

var errRangeOffset = pgerr.New("22013", "invalid preceding or following size in window function")

// InRange is Postgres's in_range support function for ORDER BY keys of
// type t: with sum = base - off (sub) or base + off, it reports val <=
// sum (less) or val >= sum. val and base are not NULL. A negative or NaN
// offset fails with 22013, as Postgres fails it, when a frame first
// compares two rows; a sum out of the type's range fails as the type's
// arithmetic does (timestamp out of range: Postgres 15's in_range for
// dates and timestamps does not guard against overflow), except for
// integers, whose overflow puts every value on the near side. For
// timestamptz the sum steps the wall clock of the session zone, as
// timestamptz + interval does.
func InRange(ctx *EvalCtx, t types.T, val, base, off types.Datum, sub, less bool) (bool, error) {
	cmp := func(c int) bool {
		if less {
			return c <= 0
		}
		return c >= 0
	}
	switch t.ID {
	case types.Int2, types.Int4, types.Int8:
		if off.I < 0 {
			return false, errRangeOffset
		}
		o := off.I
		if sub {
			o = -o
		}
		sum := base.I + o
		if (o > 0 && sum < base.I) || (o < 0 && sum > base.I) {
			// The true sum lies beyond every value: above them all when
			// adding, below when subtracting.
			return sub != less, nil
		}
		return cmp(functions.CmpInt64(val.I, sum)), nil
	case types.Float4, types.Float8:
		o := off.F
		if math.IsNaN(o) || o < 0 {
			return false, errRangeOffset
		}
		// NaN sorts above every other value; the offset cannot change that.
		switch vn, bn := math.IsNaN(val.F), math.IsNaN(base.F); {
		case vn && bn:
			return true, nil
		case vn:
			return !less, nil
		case bn:
			return less, nil
		}
		// base -/+ an infinite offset from an infinite base of the other
		// sign would be NaN: Postgres takes every value to be in range.
		if math.IsInf(o, 0) && math.IsInf(base.F, 0) && (sub && base.F > 0 || !sub && base.F < 0) {
			return true, nil
		}
		sum := base.F + o
		if sub {
			sum = base.F - o
		}
		if less {
			return val.F <= sum, nil
		}
		return val.F >= sum, nil
	case types.Numeric:
		return inRangeNumeric(val.D, base.D, off.D, sub, less)
	case types.Date:
		// in_range_date_interval compares the dates' midnights, failing
		// like the cast for dates beyond the timestamp range.
		v, err := functions.DateToTSChecked(val.I)
		if err != nil {
			return false, err
		}
		b, err := functions.DateToTSChecked(base.I)
		if err != nil {
			return false, err
		}
		return InRange(ctx, types.TTimestamp, types.DInt(v), types.DInt(b), off, sub, less)
	case types.Timestamp, types.Timestamptz:
		if types.CompareInterval(off.Iv, types.IntervalVal{}) < 0 {
			return false, errRangeOffset
		}
		iv := off.Iv
		if sub {
			iv = functions.NegInterval(iv)
		}
		var sum int64
		var err error
		if t.ID == types.Timestamp {
			sum, err = functions.TsPlusInterval(base.I, iv)
		} else {
			sum, err = functions.TstzPlusInterval(base.I, iv, ctx.loc())
		}
		if err != nil {
			return false, err
		}
		return cmp(functions.CmpInt64(val.I, sum)), nil
	case types.Time:
		// Like time + interval, the offset's months and days are
		// ignored; unlike it, the sum does not wrap around midnight.
		if off.Iv.Micros < 0 {
			return false, errRangeOffset
		}
		sum := base.I + off.Iv.Micros
		if sub {
			sum = base.I - off.Iv.Micros
		}
		return cmp(functions.CmpInt64(val.I, sum)), nil
	case types.Interval:
		if types.CompareInterval(off.Iv, types.IntervalVal{}) < 0 {
			return false, errRangeOffset
		}
		iv := off.Iv
		if sub {
			iv = functions.NegInterval(iv)
		}
		sum, err := functions.AddInterval(base.Iv, iv)
		if err != nil {
			return false, err
		}
		return cmp(types.CompareInterval(val.Iv, sum)), nil
	}
	return false, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", t)
}

func decNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

func decInf(d *apd.Decimal, neg bool) bool { return d.Form == apd.Infinite && d.Negative == neg }

// inRangeNumeric is in_range for numeric keys, with Postgres's rules for
// NaN (above every other value) and infinities.
func inRangeNumeric(val, base, off *apd.Decimal, sub, less bool) (bool, error) {
	if decNaN(off) || off.Negative && !off.IsZero() {
		return false, errRangeOffset
	}
	switch {
	case decNaN(val) && decNaN(base):
		return true, nil
	case decNaN(val):
		return !less, nil
	case decNaN(base):
		return less, nil
	case off.Form == apd.Infinite:
		switch {
		case sub && decInf(base, false) || !sub && decInf(base, true):
			// base -/+ offset would be NaN: every value is in range.
			return true, nil
		case sub:
			// base - offset is -Infinity.
			return !less || decInf(val, true), nil
		default:
			// base + offset is +Infinity.
			return less || decInf(val, false), nil
		}
	case val.Form == apd.Infinite || base.Form == apd.Infinite:
		// The offset, finite, cannot change how they compare.
		c := compareDecimal(val, base)
		if less {
			return c <= 0, nil
		}
		return c >= 0, nil
	}
	var sum *apd.Decimal
	var err error
	if sub {
		sum, err = functions.NumericSub(base, off)
	} else {
		sum, err = functions.NumericAdd(base, off)
	}
	if err != nil {
		return false, err
	}
	c := compareDecimal(val, sum)
	if less {
		return c <= 0, nil
	}
	return c >= 0, nil
}

// compareDecimal orders numerics as Postgres does (NaN above all).
func compareDecimal(a, b *apd.Decimal) int {
	return types.Compare(types.DDecimal(a), types.DDecimal(b), types.TNumeric)
}

// RangeReach returns the last ORDER BY value, as the int64 a watermark
// column holds, within the offset off FOLLOWING of a row whose value is
// base: the frame of a RANGE ... off FOLLOWING window holds the rows with
// values up to it (for a date key, the last date at or before base + off
// as a time). Rows reaching beyond every value, or past the type's range,
// get math.MaxInt64. t is a type a watermark column may have (integers,
// date, timestamp, timestamptz).
func RangeReach(ctx *EvalCtx, t types.T, base int64, off types.Datum) (int64, error) {
	switch t.ID {
	case types.Int2, types.Int4, types.Int8:
		if off.I < 0 {
			return 0, errRangeOffset
		}
		if base > math.MaxInt64-off.I {
			return math.MaxInt64, nil
		}
		return base + off.I, nil
	case types.Date, types.Timestamp, types.Timestamptz:
		if types.CompareInterval(off.Iv, types.IntervalVal{}) < 0 {
			return 0, errRangeOffset
		}
		if functions.IsInfinite(base) {
			return base, nil
		}
		var sum int64
		var err error
		switch t.ID {
		case types.Timestamptz:
			sum, err = functions.TstzPlusInterval(base, off.Iv, ctx.loc())
		case types.Date:
			if sum, err = functions.DateToTSChecked(base); err == nil {
				sum, err = functions.TsPlusInterval(sum, off.Iv)
			}
		default:
			sum, err = functions.TsPlusInterval(base, off.Iv)
		}
		if err != nil {
			return math.MaxInt64, nil
		}
		if t.ID == types.Date {
			return functions.FloorDiv64(sum, functions.MicrosPerDay), nil
		}
		return sum, nil
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", t)
}

// rangeFrame sets the current row's frame [c.lo, c.hi] for a RANGE
// frame with an offset at one end or both. Like nodeWindowAgg.c, it
// moves a frame head and a frame tail forward through the partition:
// the head stops at the first row whose value is not before current -
// offset (PRECEDING; + offset for FOLLOWING; flipped for DESC), the tail
// after the last row not beyond current + offset; a NULL value's frame
// is its NULL peers (under NULLS FIRST or LAST), and a non-NULL value's
// frame holds no NULL.
func (c *winCall) rangeFrame() error {
	p := c.p
	n := p.n
	f := c.call.Frame
	key := c.call.OrderBy[0]
	t := key.Expr.Type()
	asc, nullsFirst := !key.Desc, key.NullsFirst
	ectx := &c.ec.Eval
	k, err := p.cur.keys(p.i)
	if err != nil {
		return err
	}
	cur := k[0]
	// Frame head: the first row not before the frame's start.
	switch f.Start.Kind {
	case "unbounded_preceding":
		c.lo = 0
	case "current_row":
		c.lo = p.ps
	default:
		sub, less := f.Start.Kind == "preceding", false
		if !asc {
			sub, less = !sub, true
		}
		for ; c.head < n; c.head++ {
			hk, err := c.hc.keys(c.head)
			if err != nil {
				return err
			}
			h := hk[0]
			if h.Null || cur.Null {
				// Only NULLS FIRST/LAST orders them.
				if nullsFirst {
					if !h.Null || cur.Null {
						break
					}
				} else if h.Null || !cur.Null {
					break
				}
				continue
			}
			in, err := InRange(ectx, t, h, cur, c.so, sub, less)
			if err != nil {
				return err
			}
			if in {
				break
			}
		}
		c.lo = c.head
	}
	// Frame tail: the first row beyond the frame's end.
	switch f.End.Kind {
	case "unbounded_following":
		c.hi = n - 1
	case "current_row":
		c.hi = p.pe
	default:
		sub, less := f.End.Kind == "preceding", true
		if !asc {
			sub, less = !sub, false
		}
		for ; c.tail < n; c.tail++ {
			tk, err := c.tc.keys(c.tail)
			if err != nil {
				return err
			}
			tv := tk[0]
			if tv.Null || cur.Null {
				if nullsFirst {
					if !tv.Null {
						break
					}
				} else if !cur.Null {
					break
				}
				continue
			}
			in, err := InRange(ectx, t, tv, cur, c.eo, sub, less)
			if err != nil {
				return err
			}
			if !in {
				break
			}
		}
		c.hi = c.tail - 1
	}
	return nil
}
