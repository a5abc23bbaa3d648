package functions

import (
	"math"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Date and time arithmetic (docs §9.9, Table 9.31). Dates are days since
// 1970-01-01, times microseconds since midnight, timestamps microseconds
// since 1970-01-01 00:00 (timestamp: of the wall clock; timestamptz: UTC).

var (
	errTSRange       = pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	errDateRange     = pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
	ErrIntervalRange = pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	errDateForTS     = pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
)

func IsInfinite(x int64) bool { return x == math.MinInt64 || x == math.MaxInt64 }

// wallTime returns wall-clock micros as a UTC time.Time.
func wallTime(w int64) time.Time { return time.UnixMicro(w).UTC() }

// tsToTSTZ reads wall-clock micros w in zone loc and returns UTC micros,
// resolving a time skipped or repeated by a DST change as Postgres does
// (types.LocalToUTC). The result may lie outside the timestamp range.
func tsToTSTZ(w int64, loc *time.Location) int64 {
	if IsInfinite(w) {
		return w
	}
	return types.LocalToUTC(w, loc)
}

// tstzToTS returns the wall-clock micros in zone loc of UTC micros u.
func tstzToTS(u int64, loc *time.Location) int64 {
	if IsInfinite(u) {
		return u
	}
	_, off := time.UnixMicro(u).In(loc).Zone()
	return u + int64(off)*1000000
}

func FloorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// Wall-clock values that calendar steps may produce: a day either side of
// the timestamp range, so that a zone offset can still bring them into
// it, and never so far that micros since 1970 overflow.
const (
	minWallDay = -2440588 - 1
	maxWallDay = math.MaxInt64/MicrosPerDay - 1
)

// joinWall returns the wall-clock micros of a date (days since 1970) and
// time of day, failing with 22008 beyond the days above.
func joinWall(day, tod int64) (int64, error) {
	if day < minWallDay || day > maxWallDay {
		return 0, errTSRange
	}
	return day*MicrosPerDay + tod, nil
}

// addMonths steps wall-clock micros w by months, clamping the day of
// month to the end of the resulting month as Postgres does (Jan 31 + 1
// month = Feb 28/29).
func addMonths(w int64, months int32) (int64, error) {
	day := FloorDiv64(w, MicrosPerDay)
	tod := w - day*MicrosPerDay
	y, m, d := types.YMDFromDate(day)
	mm := int64(m) - 1 + int64(months)
	yy := int64(y) + FloorDiv64(mm, 12)
	mm = mm - FloorDiv64(mm, 12)*12 + 1
	if dim := types.DaysInMonth(int(yy), int(mm)); d > dim {
		d = dim
	}
	return joinWall(types.DateFromYMD(int(yy), int(mm), d), tod)
}

// addDays steps wall-clock micros w by days.
func addDays(w int64, days int32) (int64, error) {
	day := FloorDiv64(w, MicrosPerDay)
	return joinWall(day+int64(days), w-day*MicrosPerDay)
}

// addMicros adds us to the instant or wall time x and range-checks it.
func addMicros(x, us int64) (int64, error) {
	r, ok := AddInt64(x, us)
	if !ok {
		return 0, errTSRange
	}
	return r, checkTS(r)
}

// TsPlusInterval is timestamp + interval (timestamp_pl_interval): months,
// then days, then microseconds, each step failing with 22008 when it
// leaves the timestamp range rather than wrapping around.
func TsPlusInterval(w int64, iv types.IntervalVal) (int64, error) {
	if IsInfinite(w) {
		return w, nil
	}
	var err error
	if iv.Months != 0 {
		if w, err = addMonths(w, iv.Months); err != nil {
			return 0, err
		}
		if err = checkTS(w); err != nil {
			return 0, err
		}
	}
	if iv.Days != 0 {
		if w, err = addDays(w, iv.Days); err != nil {
			return 0, err
		}
		if err = checkTS(w); err != nil {
			return 0, err
		}
	}
	return addMicros(w, iv.Micros)
}

// TstzPlusInterval is timestamptz + interval (timestamptz_pl_interval):
// months and days step the wall clock in the session zone, each step
// read back into an instant on its own as Postgres does, so a day across
// a DST change is 23 or 25 hours and a step landing in a gap or overlap
// resolves as types.LocalToUTC says; then the microseconds are added.
func TstzPlusInterval(u int64, iv types.IntervalVal, loc *time.Location) (int64, error) {
	if IsInfinite(u) {
		return u, nil
	}
	step := func(f func(int64) (int64, error)) error {
		w, err := f(tstzToTS(u, loc))
		if err != nil {
			return err
		}
		u = tsToTSTZ(w, loc)
		return checkTS(u)
	}
	if iv.Months != 0 {
		if err := step(func(w int64) (int64, error) { return addMonths(w, iv.Months) }); err != nil {
			return 0, err
		}
	}
	if iv.Days != 0 {
		if err := step(func(w int64) (int64, error) { return addDays(w, iv.Days) }); err != nil {
			return 0, err
		}
	}
	return addMicros(u, iv.Micros)
}

// Timestamps span 4713 BC to 294276 AD in Postgres; the upper end lies
// beyond int64 micros since 1970, so only infinity itself is excluded.
const (
	minTS = -210866803200000000 // 4714-11-24 00:00:00 BC
	maxTS = math.MaxInt64
)

func checkTS(x int64) error {
	if x < minTS || x >= maxTS {
		return errTSRange
	}
	return nil
}

// DateToTSChecked is date2timestamp: a date's midnight, failing with
// 22008 for dates beyond the timestamp range.
func DateToTSChecked(d int64) (int64, error) {
	if IsInfinite(d) {
		return d, nil
	}
	if d < minTS/MicrosPerDay || d > maxWallDay {
		return 0, errDateForTS
	}
	return d * MicrosPerDay, nil
}

func NegInterval(iv types.IntervalVal) types.IntervalVal {
	return types.IntervalVal{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
}

// subInterval is interval - interval (interval_mi), failing with 22008
// when a field overflows.
func subInterval(a, b types.IntervalVal) (types.IntervalVal, error) {
	m := int64(a.Months) - int64(b.Months)
	d := int64(a.Days) - int64(b.Days)
	us := a.Micros - b.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (a.Micros^b.Micros)&(a.Micros^us) < 0 {
		return types.IntervalVal{}, ErrIntervalRange
	}
	return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: us}, nil
}

func AddInterval(a, b types.IntervalVal) (types.IntervalVal, error) {
	m := int64(a.Months) + int64(b.Months)
	d := int64(a.Days) + int64(b.Days)
	us := a.Micros + b.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (a.Micros^us)&(b.Micros^us) < 0 {
		return types.IntervalVal{}, ErrIntervalRange
	}
	return types.IntervalVal{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// justifyHours moves whole days out of the microseconds (justify_hours).
func justifyHours(iv types.IntervalVal) types.IntervalVal {
	iv.Days += int32(iv.Micros / MicrosPerDay)
	iv.Micros %= MicrosPerDay
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += MicrosPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= MicrosPerDay
		iv.Days++
	}
	return iv
}

// justifyDays moves whole 30-day months out of the days (justify_days).
func justifyDays(iv types.IntervalVal) types.IntervalVal {
	iv.Months += iv.Days / 30
	iv.Days %= 30
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= 30
		iv.Months++
	}
	return iv
}

// justifyInterval is justify_interval: both of the above, with signs made
// consistent.
func justifyInterval(iv types.IntervalVal) types.IntervalVal {
	iv.Days += int32(iv.Micros / MicrosPerDay)
	iv.Micros %= MicrosPerDay
	iv.Months += iv.Days / 30
	iv.Days %= 30
	if iv.Months > 0 && (iv.Days < 0 || (iv.Days == 0 && iv.Micros < 0)) {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && (iv.Days > 0 || (iv.Days == 0 && iv.Micros > 0)) {
		iv.Days -= 30
		iv.Months++
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += MicrosPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= MicrosPerDay
		iv.Days++
	}
	return iv
}

// tsround rounds to microsecond precision (Postgres's TSROUND).
func tsround(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// mulInterval is interval * factor (Postgres interval_mul): fractional
// months cascade into days (30 per month) and fractional days into time.
func mulInterval(iv types.IntervalVal, f float64) (types.IntervalVal, error) {
	if math.IsNaN(f) {
		return types.IntervalVal{}, ErrIntervalRange
	}
	md := float64(iv.Months) * f
	dd := float64(iv.Days) * f
	if md > math.MaxInt32 || md < math.MinInt32 || dd > math.MaxInt32 || dd < math.MinInt32 {
		return types.IntervalVal{}, ErrIntervalRange
	}
	r := types.IntervalVal{Months: int32(md), Days: int32(dd)}
	monthRemDays := tsround((md - float64(r.Months)) * 30)
	secRem := tsround((dd - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	r.Days += int32(monthRemDays)
	us := math.RoundToEven(float64(iv.Micros)*f + secRem*1e6)
	if us > math.MaxInt64 || us < math.MinInt64 || math.IsNaN(us) {
		return types.IntervalVal{}, ErrIntervalRange
	}
	r.Micros = int64(us)
	return r, nil
}

func row2(f func(ctx *Context, a, b types.Datum) (types.Datum, error)) RowFn {
	return func(ctx *Context, d []types.Datum) (types.Datum, error) { return f(ctx, d[0], d[1]) }
}

// dtImpl implements a date/time operator over exactly the types a and b
// by f.
func dtImpl(a, b types.TypeID, f func(ctx *Context, a, b types.Datum) (types.Datum, error)) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 2 || args[0].ID != a || args[1].ID != b {
			return Impl{}, false
		}
		return Impl{Row: row2(f)}, true
	}
}

func tsDatum(x int64, err error) (types.Datum, error) {
	if err != nil {
		return types.NullDatum, err
	}
	return types.DInt(x), nil
}

// tsChecked returns a timestamp that a zone offset may have moved out of
// the range, failing with 22008 if it did; infinities pass.
func tsChecked(x int64) (types.Datum, error) {
	if IsInfinite(x) {
		return types.DInt(x), nil
	}
	return tsDatum(x, checkTS(x))
}

func ivDatum(iv types.IntervalVal, err error) (types.Datum, error) {
	if err != nil {
		return types.NullDatum, err
	}
	return types.DInterval(iv), nil
}

// dateAddDays is date + integer (date_pli); n is an int4, so the sum
// cannot overflow before the range check.
func dateAddDays(d int64, n int64) (types.Datum, error) {
	if IsInfinite(d) {
		return types.DInt(d), nil
	}
	r := d + n
	if !types.DateInRange(r) {
		return types.NullDatum, errDateRange
	}
	return types.DInt(r), nil
}

// datePlusInterval is date + interval: the date's midnight plus the
// interval, a timestamp.
func datePlusInterval(d int64, iv types.IntervalVal) (types.Datum, error) {
	ts, err := DateToTSChecked(d)
	if err != nil {
		return types.NullDatum, err
	}
	return tsDatum(TsPlusInterval(ts, iv))
}

// datePlusTime is date + time (datetime_timestamp).
func datePlusTime(d, t int64) (types.Datum, error) {
	ts, err := DateToTSChecked(d)
	if err != nil || IsInfinite(ts) {
		return tsDatum(ts, err)
	}
	return tsDatum(addMicros(ts, t))
}

// datetimeOpOverloads lists the date and time arithmetic operators (docs
// §9.9, Table 9.31).
func datetimeOpOverloads() []*Overload {
	var os []*Overload
	// dtOp lists operator op over a and b, returning ret, implemented by f.
	dtOp := func(op string, ret, a, b types.TypeID, f func(ctx *Context, a, b types.Datum) (types.Datum, error)) {
		os = append(os, fn(op, dtImpl(a, b, f), ret, a, b))
	}
	const (
		D, T, TS, TZ, IV, I4, F8 = types.Date, types.Time, types.Timestamp, types.Timestamptz, types.Interval, types.Int4, types.Float8
	)
	dtOp("+", D, D, I4, func(_ *Context, a, b types.Datum) (types.Datum, error) { return dateAddDays(a.I, b.I) })
	dtOp("+", D, I4, D, func(_ *Context, a, b types.Datum) (types.Datum, error) { return dateAddDays(b.I, a.I) })
	dtOp("-", D, D, I4, func(_ *Context, a, b types.Datum) (types.Datum, error) { return dateAddDays(a.I, -b.I) })
	dtOp("-", I4, D, D, func(_ *Context, a, b types.Datum) (types.Datum, error) {
		if IsInfinite(a.I) || IsInfinite(b.I) {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		return types.DInt(a.I - b.I), nil
	})
	dtOp("+", TS, D, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return datePlusInterval(a.I, b.Iv) })
	dtOp("+", TS, IV, D, func(_ *Context, a, b types.Datum) (types.Datum, error) { return datePlusInterval(b.I, a.Iv) })
	dtOp("-", TS, D, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) {
		return datePlusInterval(a.I, NegInterval(b.Iv))
	})
	dtOp("+", TS, D, T, func(_ *Context, a, b types.Datum) (types.Datum, error) { return datePlusTime(a.I, b.I) })
	dtOp("+", TS, T, D, func(_ *Context, a, b types.Datum) (types.Datum, error) { return datePlusTime(b.I, a.I) })
	dtOp("+", TS, TS, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return tsDatum(TsPlusInterval(a.I, b.Iv)) })
	dtOp("+", TS, IV, TS, func(_ *Context, a, b types.Datum) (types.Datum, error) { return tsDatum(TsPlusInterval(b.I, a.Iv)) })
	dtOp("-", TS, TS, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) {
		return tsDatum(TsPlusInterval(a.I, NegInterval(b.Iv)))
	})
	dtOp("+", TZ, TZ, IV, func(ctx *Context, a, b types.Datum) (types.Datum, error) {
		return tsDatum(TstzPlusInterval(a.I, b.Iv, ctx.loc()))
	})
	dtOp("+", TZ, IV, TZ, func(ctx *Context, a, b types.Datum) (types.Datum, error) {
		return tsDatum(TstzPlusInterval(b.I, a.Iv, ctx.loc()))
	})
	dtOp("-", TZ, TZ, IV, func(ctx *Context, a, b types.Datum) (types.Datum, error) {
		return tsDatum(TstzPlusInterval(a.I, NegInterval(b.Iv), ctx.loc()))
	})
	tsMinus := func(_ *Context, a, b types.Datum) (types.Datum, error) {
		if IsInfinite(a.I) || IsInfinite(b.I) {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
		}
		return types.DInterval(justifyHours(types.IntervalVal{Micros: a.I - b.I})), nil
	}
	dtOp("-", IV, TS, TS, tsMinus)
	dtOp("-", IV, TZ, TZ, tsMinus)
	timePlus := func(t int64, us int64) types.Datum {
		r := (t + us) % MicrosPerDay
		if r < 0 {
			r += MicrosPerDay
		}
		return types.DInt(r)
	}
	dtOp("+", T, T, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return timePlus(a.I, b.Iv.Micros), nil })
	dtOp("+", T, IV, T, func(_ *Context, a, b types.Datum) (types.Datum, error) { return timePlus(b.I, a.Iv.Micros), nil })
	dtOp("-", T, T, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return timePlus(a.I, -b.Iv.Micros), nil })
	dtOp("-", IV, T, T, func(_ *Context, a, b types.Datum) (types.Datum, error) {
		return types.DInterval(types.IntervalVal{Micros: a.I - b.I}), nil
	})
	dtOp("+", IV, IV, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return ivDatum(AddInterval(a.Iv, b.Iv)) })
	dtOp("-", IV, IV, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return ivDatum(subInterval(a.Iv, b.Iv)) })
	dtOp("*", IV, IV, F8, func(_ *Context, a, b types.Datum) (types.Datum, error) { return ivDatum(mulInterval(a.Iv, b.F)) })
	dtOp("*", IV, F8, IV, func(_ *Context, a, b types.Datum) (types.Datum, error) { return ivDatum(mulInterval(b.Iv, a.F)) })
	dtOp("/", IV, IV, F8, func(_ *Context, a, b types.Datum) (types.Datum, error) {
		if b.F == 0 {
			return types.NullDatum, errDivByZero
		}
		return ivDatum(mulInterval(a.Iv, 1/b.F))
	})
	return os
}
