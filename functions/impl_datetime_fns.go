package functions

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Date and time functions (docs §9.9): current time, date_trunc,
// date_part / EXTRACT, age, make_*, justify_*, date_bin, AT TIME ZONE.

func unitError(unit string, t types.T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, t)
}

// canonicalUnit maps Postgres's unit spellings to one name.
func canonicalUnit(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	switch u {
	case "microsecond", "microseconds", "us", "usec", "usecs", "useconds":
		return "microseconds"
	case "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds":
		return "milliseconds"
	case "second", "seconds", "s", "sec", "secs":
		return "second"
	case "minute", "minutes", "m", "min", "mins":
		return "minute"
	case "hour", "hours", "h", "hr", "hrs":
		return "hour"
	case "day", "days", "d":
		return "day"
	case "week", "weeks", "w":
		return "week"
	case "month", "months", "mon", "mons":
		return "month"
	case "quarter", "qtr":
		return "quarter"
	case "year", "years", "y", "yr", "yrs":
		return "year"
	case "decade", "decades", "dec":
		return "decade"
	case "century", "centuries", "c", "cent":
		return "century"
	case "millennium", "millennia", "mil", "mils":
		return "millennium"
	}
	return u
}

// truncWall truncates wall-clock micros w to unit.
func truncWall(unit string, w int64) (int64, bool) {
	if IsInfinite(w) {
		return w, true
	}
	t := wallTime(w)
	y, m, d := t.Date()
	day := func(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).UnixMicro() }
	tod := w - FloorDiv64(w, MicrosPerDay)*MicrosPerDay
	switch unit {
	case "microseconds":
		return w, true
	case "milliseconds":
		return FloorDiv64(w, 1000) * 1000, true
	case "second":
		return FloorDiv64(w, 1e6) * 1e6, true
	case "minute":
		return w - tod + tod/60e6*60e6, true
	case "hour":
		return w - tod + tod/3600e6*3600e6, true
	case "day":
		return w - tod, true
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // days since Monday
		return day(y, m, d-wd), true
	case "month":
		return day(y, m, 1), true
	case "quarter":
		return day(y, time.Month((int(m)-1)/3*3+1), 1), true
	case "year":
		return day(y, 1, 1), true
	case "decade":
		return day(floorDiv(y, 10)*10, 1, 1), true
	case "century":
		if y > 0 {
			return day((y-1)/100*100+1, 1, 1), true
		}
		return day(-((99-y)/100)*100+1, 1, 1), true
	case "millennium":
		if y > 0 {
			return day((y-1)/1000*1000+1, 1, 1), true
		}
		return day(-((999-y)/1000)*1000+1, 1, 1), true
	}
	return 0, false
}

// truncTSTZ is date_trunc on a timestamptz u in zone loc
// (timestamptz_trunc_internal): the wall time is truncated; below a day
// the result keeps u's offset, and from a day up the truncated wall time
// is read in loc again, a midnight skipped by a DST change becoming the
// first instant after the gap (types.LocalToUTC).
func truncTSTZ(unit, spelled string, u int64, loc *time.Location) (int64, error) {
	if IsInfinite(u) {
		return u, nil
	}
	off := int64(types.ZoneOffset(u, loc)) * 1e6
	r, ok := truncWall(unit, u+off)
	if !ok {
		return 0, unitError(spelled, types.TTimestamptz)
	}
	switch unit {
	case "microseconds", "milliseconds", "second", "minute", "hour":
		r -= off
	default:
		r = tsToTSTZ(r, loc)
	}
	return r, checkTS(r)
}

func truncInterval(unit string, iv types.IntervalVal) (types.IntervalVal, bool) {
	us := iv.Micros
	switch unit {
	case "microseconds":
	case "milliseconds":
		us = us / 1000 * 1000
	case "second":
		us = us / 1e6 * 1e6
	case "minute":
		us = us / 60e6 * 60e6
	case "hour":
		us = us / 3600e6 * 3600e6
	case "day":
		us = 0
	case "month":
		return types.IntervalVal{Months: iv.Months}, true
	case "quarter":
		return types.IntervalVal{Months: iv.Months / 3 * 3}, true
	case "year":
		return types.IntervalVal{Months: iv.Months / 12 * 12}, true
	case "decade":
		return types.IntervalVal{Months: iv.Months / 120 * 120}, true
	case "century":
		return types.IntervalVal{Months: iv.Months / 1200 * 1200}, true
	case "millennium":
		return types.IntervalVal{Months: iv.Months / 12000 * 12000}, true
	default:
		return iv, false
	}
	return types.IntervalVal{Months: iv.Months, Days: iv.Days, Micros: us}, true
}

// loadZone resolves a time zone name as AT TIME ZONE does. A bare numeric
// offset follows POSIX, where "+05" means five hours west of Greenwich.
func loadZone(name string) (*time.Location, error) {
	if loc, err := time.LoadLocation(name); err == nil {
		return loc, nil
	}
	switch strings.ToLower(name) {
	case "utc", "gmt", "z", "zulu":
		return time.UTC, nil
	}
	s := name
	if len(s) > 0 && (s[0] == '+' || s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		sign := -1
		if s[0] == '-' {
			sign = 1
		}
		s = strings.TrimLeft(s, "+-")
		h, m, _ := strings.Cut(s, ":")
		hh, err1 := strconv.Atoi(h)
		mm := 0
		var err2 error
		if m != "" {
			mm, err2 = strconv.Atoi(m)
		}
		if err1 == nil && err2 == nil {
			return time.FixedZone(name, sign*(hh*3600+mm*60)), nil
		}
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// extractField computes EXTRACT(unit FROM x) as a numeric with Postgres
// 14+'s scales (seconds and epoch with 6 decimals for timestamps).
func extractField(ctx *Context, unit string, x types.Datum, t types.T) (*apd.Decimal, error) {
	u := canonicalUnit(unit)
	if t.ID == types.Interval {
		return extractInterval(u, unit, x.Iv, t)
	}
	var w int64 // wall-clock micros
	switch t.ID {
	case types.Date:
		w = dateToTS(x.I)
		switch u {
		case "microseconds", "milliseconds", "second", "minute", "hour":
			return nil, unitError(unit, t)
		case "epoch":
			return apd.New(x.I*86400, 0), nil
		}
	case types.Time:
		w = x.I
		switch u {
		case "microseconds", "milliseconds", "second", "minute", "hour", "epoch":
		default:
			return nil, unitError(unit, t)
		}
	case types.Timestamp:
		w = x.I
	case types.Timestamptz:
		w = tstzToTS(x.I, ctx.loc())
		switch u {
		case "epoch":
			return apd.New(x.I, -6), nil
		case "timezone":
			return apd.New((w-x.I)/1e6, 0), nil
		case "timezone_hour":
			return apd.New((w-x.I)/3600e6, 0), nil
		case "timezone_minute":
			return apd.New((w-x.I)/60e6%60, 0), nil
		}
	default:
		return nil, unitError(unit, t)
	}
	if IsInfinite(w) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "infinite values are not supported here")
	}
	tm := wallTime(w)
	tod := w - FloorDiv64(w, MicrosPerDay)*MicrosPerDay
	secUS := tod % 60e6
	y := tm.Year()
	var v int64
	switch u {
	case "microseconds":
		v = secUS
	case "milliseconds":
		return apd.New(secUS, -3), nil
	case "second":
		return apd.New(secUS, -6), nil
	case "minute":
		v = tod / 60e6 % 60
	case "hour":
		v = tod / 3600e6
	case "day":
		v = int64(tm.Day())
	case "month":
		v = int64(tm.Month())
	case "quarter":
		v = (int64(tm.Month())-1)/3 + 1
	case "year":
		v = int64(y)
		if y <= 0 {
			v = int64(y) - 1 // there is no year 0: 1 BC follows 1 AD
		}
	case "decade":
		v = int64(floorDiv(y, 10))
	case "century":
		if y > 0 {
			v = int64((y + 99) / 100)
		} else {
			v = -int64((99 - (y - 1)) / 100)
		}
	case "millennium":
		if y > 0 {
			v = int64((y + 999) / 1000)
		} else {
			v = -int64((999 - (y - 1)) / 1000)
		}
	case "dow":
		v = int64(tm.Weekday())
	case "isodow":
		v = int64(tm.Weekday())
		if v == 0 {
			v = 7
		}
	case "doy":
		v = int64(tm.YearDay())
	case "week":
		_, wk := tm.ISOWeek()
		v = int64(wk)
	case "isoyear":
		iy, _ := tm.ISOWeek()
		v = int64(iy)
	case "epoch":
		if t.ID == types.Time {
			return apd.New(w, -6), nil
		}
		return apd.New(w, -6), nil
	case "julian":
		days := FloorDiv64(w, MicrosPerDay) + 2440588
		if t.ID == types.Date || tod == 0 {
			return apd.New(days, 0), nil
		}
		// Julian day plus the fraction of the day, as numeric division.
		frac, _ := NumericDiv(apd.New(tod, 0), apd.New(MicrosPerDay, 0))
		return NumericAdd(apd.New(days, 0), frac)
	default:
		return nil, unitError(unit, t)
	}
	return apd.New(v, 0), nil
}

func extractInterval(u, unit string, iv types.IntervalVal, t types.T) (*apd.Decimal, error) {
	secUS := iv.Micros % 60e6
	var v int64
	switch u {
	case "microseconds":
		v = secUS
	case "milliseconds":
		return apd.New(secUS, -3), nil
	case "second":
		return apd.New(secUS, -6), nil
	case "minute":
		v = iv.Micros / 60e6 % 60
	case "hour":
		v = iv.Micros / 3600e6
	case "day":
		v = int64(iv.Days)
	case "month":
		v = int64(iv.Months % 12)
	case "quarter":
		v = int64(iv.Months%12)/3 + 1
	case "year":
		v = int64(iv.Months / 12)
	case "decade":
		v = int64(iv.Months / 120)
	case "century":
		v = int64(iv.Months / 1200)
	case "millennium":
		v = int64(iv.Months / 12000)
	case "epoch":
		// 365.25 days per year, 30 days per month (interval_part).
		secs := new(apd.Decimal)
		years, months := int64(iv.Months/12), int64(iv.Months%12)
		days := apd.New(years*36525*864, 0) // 365.25 * 86400 = 31557600
		_, _ = decCtx.Add(secs, days, apd.New(months*30*86400+int64(iv.Days)*86400, 0))
		_, _ = decCtx.Add(secs, secs, apd.New(iv.Micros, -6))
		return secs, nil
	default:
		return nil, unitError(unit, t)
	}
	return apd.New(v, 0), nil
}

// age computes Postgres's symbolic difference a - b in years, months,
// days and time (timestamp_age), borrowing from larger fields.
func age(a, b int64) types.IntervalVal {
	neg := a < b
	if neg {
		a, b = b, a
	}
	ta, tb := wallTime(a), wallTime(b)
	todA, todB := a-FloorDiv64(a, MicrosPerDay)*MicrosPerDay, b-FloorDiv64(b, MicrosPerDay)*MicrosPerDay
	us := todA - todB
	days := ta.Day() - tb.Day()
	months := int(ta.Month()) - int(tb.Month())
	years := ta.Year() - tb.Year()
	if us < 0 {
		us += MicrosPerDay
		days--
	}
	if days < 0 {
		// Borrow the length of the earlier timestamp's month, as
		// Postgres's timestamp_age does.
		days += daysIn(tb.Month(), tb.Year())
		months--
	}
	if months < 0 {
		months += 12
		years--
	}
	iv := types.IntervalVal{Months: int32(years*12 + months), Days: int32(days), Micros: us}
	if neg {
		iv = NegInterval(iv)
	}
	return iv
}

func makeDate(y, m, d int64) (int64, error) {
	if y == 0 {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	yy := y
	if y < 0 {
		yy = y + 1
	}
	if m < 1 || m > 12 || d < 1 || d > int64(daysIn(time.Month(m), int(yy))) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	return FloorDiv64(time.Date(int(yy), time.Month(m), int(d), 0, 0, 0, 0, time.UTC).Unix(), 86400), nil
}

func makeTime(h, m int64, s float64) (int64, error) {
	us := int64(math.Round(s * 1e6))
	if h < 0 || h > 24 || m < 0 || m > 59 || s < 0 || us > 60e6 || h == 24 && (m > 0 || us > 0) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%02g", h, m, s)
	}
	return h*3600e6 + m*60e6 + us, nil
}

// datetimeFnOverloads lists the date and time functions (docs §9.9).
// now() and friends are stable within a statement (they read
// Context.Now); clock_timestamp moves.
func datetimeFnOverloads() []*Overload {
	var os []*Overload
	now := func(ctx *Context, _ []types.Datum) (types.Datum, error) { return dInt(ctx.Now) }
	for _, n := range []string{"now", "current_timestamp", "transaction_timestamp"} {
		os = append(os, fn(n, row(now), tTSTZ))
	}
	statementTimestampImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		if ctx.Statement != 0 {
			return dInt(ctx.Statement)
		}
		return dInt(ctx.Now)
	})
	os = append(os, fn("statement_timestamp", statementTimestampImpl, tTSTZ))
	os = append(os, volatile("pg_sleep", row(pgSleep), tAny, tF8))
	clockTimestampImpl := func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(*Context, []types.Datum) (types.Datum, error) { return dInt(time.Now().UnixMicro()) }}, true
	}
	os = append(os, volatile("clock_timestamp", clockTimestampImpl, tTSTZ))
	proctimeImpl := func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(ctx *Context, _ []types.Datum) (types.Datum, error) {
			if ctx != nil && ctx.ProcTime != 0 {
				return dInt(ctx.ProcTime)
			}
			return dInt(time.Now().UnixMicro())
		}}, true
	}
	os = append(os, volatile("proctime", proctimeImpl, tTSTZ))
	// timeofday() is the clock as text, in the session zone, in the
	// format PostgreSQL prints: "Wed Dec 02 09:52:11.123456 2026 UTC".
	timeofdayImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		return types.DString(time.Now().In(ctx.loc()).Format("Mon Jan 02 15:04:05.000000 2006 MST")), nil
	})
	os = append(os, volatile("timeofday", timeofdayImpl, tText))
	currentDateImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		return dInt(FloorDiv64(tstzToTS(ctx.Now, ctx.loc()), MicrosPerDay))
	})
	os = append(os, fn("current_date", currentDateImpl, tDate))
	tod := func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		w := tstzToTS(ctx.Now, ctx.loc())
		return dInt(w - FloorDiv64(w, MicrosPerDay)*MicrosPerDay)
	}
	os = append(os, fn("localtime", row(tod), tTime))
	localtimestampImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		return dInt(tstzToTS(ctx.Now, ctx.loc()))
	})
	os = append(os, fn("localtimestamp", localtimestampImpl, tTS))
	dateTruncImpl := func(args []types.T, _ types.T) (Impl, bool) {
		t := args[1]
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			u := canonicalUnit(d[0].S)
			switch t.ID {
			case types.Interval:
				r, ok := truncInterval(u, d[1].Iv)
				if !ok {
					return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type interval", d[0].S)
				}
				return types.DInterval(r), nil
			case types.Timestamptz:
				loc := ctx.loc()
				if len(d) > 2 {
					var err error
					if loc, err = loadZone(d[2].S); err != nil {
						return types.NullDatum, err
					}
				}
				return tsDatum(truncTSTZ(u, d[0].S, d[1].I, loc))
			}
			r, ok := truncWall(u, d[1].I)
			if !ok {
				return types.NullDatum, unitError(d[0].S, t)
			}
			return dInt(r)
		}}, true
	}
	os = append(os, fn("date_trunc", dateTruncImpl, tTS, tText, tTS),
		fn("date_trunc", dateTruncImpl, tTSTZ, tText, tTSTZ), fn("date_trunc", dateTruncImpl, tIv, tText, tIv),
		fn("date_trunc", dateTruncImpl, tTSTZ, tText, tTSTZ, tText))
	pgExtractImpl := func(args []types.T, _ types.T) (Impl, bool) {
		t := args[1]
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			return dDec(extractField(ctx, d[0].S, d[1], t))
		}}, true
	}
	os = append(os, fn("pg_extract", pgExtractImpl, tNum, tText, tDate),
		fn("pg_extract", pgExtractImpl, tNum, tText, tTS), fn("pg_extract", pgExtractImpl, tNum, tText, tTSTZ),
		fn("pg_extract", pgExtractImpl, tNum, tText, tTime), fn("pg_extract", pgExtractImpl, tNum, tText, tIv))
	datePartImpl := func(args []types.T, _ types.T) (Impl, bool) {
		t := args[1]
		if t.ID == types.Date {
			t = types.TTimestamp // date_part(text, date) reads the date as a timestamp
		}
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			x := d[1]
			if args[1].ID == types.Date {
				x.I = dateToTS(x.I)
			}
			r, err := extractField(ctx, d[0].S, x, t)
			if err != nil {
				return types.NullDatum, err
			}
			f, _ := r.Float64()
			return dFloat(f)
		}}, true
	}
	os = append(os, fn("date_part", datePartImpl, tF8, tText, tDate),
		fn("date_part", datePartImpl, tF8, tText, tTS), fn("date_part", datePartImpl, tF8, tText, tTSTZ),
		fn("date_part", datePartImpl, tF8, tText, tTime), fn("date_part", datePartImpl, tF8, tText, tIv))
	ageImpl := func(args []types.T, _ types.T) (Impl, bool) {
		tz := args[0].ID == types.Timestamptz
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			a, b := d[0].I, int64(0)
			if len(d) == 1 {
				// age(x) is age(current_date at midnight, x).
				w := tstzToTS(ctx.Now, ctx.loc())
				a, b = w-(w-FloorDiv64(w, MicrosPerDay)*MicrosPerDay), d[0].I
				if tz {
					b = tstzToTS(b, ctx.loc())
				}
			} else {
				b = d[1].I
				if tz {
					a, b = tstzToTS(a, ctx.loc()), tstzToTS(b, ctx.loc())
				}
			}
			return types.DInterval(age(a, b)), nil
		}}, true
	}
	os = append(os, fn("age", ageImpl, tIv, tTS), fn("age", ageImpl, tIv, tTSTZ),
		fn("age", ageImpl, tIv, tTS, tTS), fn("age", ageImpl, tIv, tTSTZ, tTSTZ))
	makeDateImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return tsDatum(makeDate(d[0].I, d[1].I, d[2].I))
	})
	os = append(os, fn("make_date", makeDateImpl, tDate, tI4, tI4, tI4))
	makeTimeImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return tsDatum(makeTime(d[0].I, d[1].I, d[2].F))
	})
	os = append(os, fn("make_time", makeTimeImpl, tTime, tI4, tI4, tF8))
	makeTS := func(d []types.Datum) (int64, error) {
		day, err := makeDate(d[0].I, d[1].I, d[2].I)
		if err != nil {
			return 0, err
		}
		tod, err := makeTime(d[3].I, d[4].I, d[5].F)
		if err != nil {
			return 0, err
		}
		return day*MicrosPerDay + tod, nil
	}
	makeTimestampImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return tsDatum(makeTS(d)) })
	os = append(os, fn("make_timestamp", makeTimestampImpl, tTS, tI4, tI4, tI4, tI4, tI4, tF8))
	makeTimestamptzImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		w, err := makeTS(d)
		if err != nil {
			return types.NullDatum, err
		}
		loc := ctx.loc()
		if len(d) > 6 {
			if loc, err = loadZone(d[6].S); err != nil {
				return types.NullDatum, err
			}
		}
		return tsChecked(tsToTSTZ(w, loc))
	})
	os = append(os, fn("make_timestamptz", makeTimestamptzImpl, tTSTZ, tI4, tI4, tI4, tI4, tI4, tF8),
		fn("make_timestamptz", makeTimestamptzImpl, tTSTZ, tI4, tI4, tI4, tI4, tI4, tF8, tText))
	makeIntervalImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		iv := types.IntervalVal{Months: int32(d[0].I*12 + d[1].I), Days: int32(d[2].I*7 + d[3].I),
			Micros: d[4].I*3600e6 + d[5].I*60e6 + int64(math.Round(d[6].F*1e6))}
		return types.DInterval(iv), nil
	})
	os = append(os, fn("make_interval", makeIntervalImpl, tIv, tI4, tI4, tI4, tI4, tI4, tI4, tF8))
	justifyDaysImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return types.DInterval(justifyDays(d[0].Iv)), nil
	})
	os = append(os, fn("justify_days", justifyDaysImpl, tIv, tIv))
	justifyHoursImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return types.DInterval(justifyHours(d[0].Iv)), nil
	})
	os = append(os, fn("justify_hours", justifyHoursImpl, tIv, tIv))
	justifyIntervalImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return types.DInterval(justifyInterval(d[0].Iv)), nil
	})
	os = append(os, fn("justify_interval", justifyIntervalImpl, tIv, tIv))
	dateBinImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		// timestamp_bin: an infinite time is its own bin, an infinite
		// origin is out of range.
		if IsInfinite(d[1].I) {
			return d[1], nil
		}
		if IsInfinite(d[2].I) {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
		}
		st := d[0].Iv
		if st.Months != 0 {
			return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
		}
		stride := int64(st.Days)*MicrosPerDay + st.Micros
		if stride <= 0 {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "stride must be greater than zero")
		}
		src, origin := d[1].I, d[2].I
		delta := src - origin
		if (origin < 0 && delta < src) || (origin > 0 && delta > src) {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
		}
		bin := delta / stride * stride
		if delta < 0 && delta%stride != 0 {
			bin -= stride
		}
		r := origin + bin
		if (bin < 0 && r > origin) || (bin > 0 && r < origin) {
			return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return tsChecked(r)
	})
	os = append(os, fn("date_bin", dateBinImpl, tTS, tIv, tTS, tTS),
		fn("date_bin", dateBinImpl, tTSTZ, tIv, tTSTZ, tTSTZ))
	isfiniteImpl := func(args []types.T, _ types.T) (Impl, bool) {
		iv := args[0].ID == types.Interval
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			return types.DBool(iv || !IsInfinite(d[0].I)), nil
		}}, true
	}
	os = append(os, fn("isfinite", isfiniteImpl, tBool, tDate), fn("isfinite", isfiniteImpl, tBool, tTS),
		fn("isfinite", isfiniteImpl, tBool, tTSTZ), fn("isfinite", isfiniteImpl, tBool, tIv))
	timezoneImpl := func(args []types.T, _ types.T) (Impl, bool) {
		fromTZ := args[1].ID == types.Timestamptz
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			var loc *time.Location
			if args[0].ID == types.Interval {
				if d[0].Iv.Months != 0 || d[0].Iv.Days != 0 {
					return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue,
						"interval time zone \"%s\" must not include months or days", types.FormatInterval(d[0].Iv))
				}
				loc = time.FixedZone("", int(d[0].Iv.Micros/1e6))
			} else {
				var err error
				if loc, err = loadZone(d[0].S); err != nil {
					return types.NullDatum, err
				}
			}
			if fromTZ {
				return tsChecked(tstzToTS(d[1].I, loc))
			}
			return tsChecked(tsToTSTZ(d[1].I, loc))
		}}, true
	}
	os = append(os, fn("timezone", timezoneImpl, tTSTZ, tText, tTS),
		fn("timezone", timezoneImpl, tTS, tText, tTSTZ), fn("timezone", timezoneImpl, tTS, tIv, tTSTZ),
		fn("timezone", timezoneImpl, tTSTZ, tIv, tTS))
	toTimestampImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 {
			return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
				w, err := parseWithTemplate(d[0].S, d[1].S)
				if err != nil {
					return types.NullDatum, err
				}
				return tsChecked(tsToTSTZ(w, ctx.loc()))
			}}, true
		}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			f := d[0].F
			switch {
			case math.IsInf(f, 1):
				return dInt(math.MaxInt64)
			case math.IsInf(f, -1):
				return dInt(math.MinInt64)
			case math.IsNaN(f) || f*1e6 < minTS || f*1e6 >= 9.2e18:
				return types.NullDatum, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%g\"", f)
			}
			return dInt(int64(math.Round(f * 1e6)))
		}}, true
	}
	os = append(os, fn("to_timestamp", toTimestampImpl, tTSTZ, tF8),
		fn("to_timestamp", toTimestampImpl, tTSTZ, tText, tText))
	toDateImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		w, err := parseWithTemplate(d[0].S, d[1].S)
		if err != nil {
			return types.NullDatum, err
		}
		return dInt(FloorDiv64(w, MicrosPerDay))
	})
	os = append(os, fn("to_date", toDateImpl, tDate, tText, tText))
	return os
}

// pgSleep is pg_sleep(seconds): it waits, and returns early with the
// statement's cancellation (statement_timeout: 57014) when the statement
// is cancelled. A negative or NaN duration does not wait.
func pgSleep(ctx *Context, d []types.Datum) (types.Datum, error) {
	secs := d[0].F
	if !(secs > 0) {
		return types.DString(""), nil
	}
	dur := time.Duration(math.MaxInt64)
	if secs < float64(math.MaxInt64)/1e9 {
		dur = time.Duration(secs * 1e9)
	}
	timer := time.NewTimer(dur)
	defer timer.Stop()
	if wr, ok := ctx.Session.(WaitReporter); ok {
		defer wr.ReportWait("Timeout", "PgSleep")()
	}
	var done <-chan struct{}
	if ctx.Cancel != nil {
		done = ctx.Cancel.Done()
	}
	select {
	case <-timer.C:
		return types.DString(""), nil
	case <-done:
		err := context.Cause(ctx.Cancel)
		if pgerr.CodeOf(err) == "" || pgerr.CodeOf(err) == pgerr.InternalError {
			err = pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		return types.NullDatum, err
	}
}
