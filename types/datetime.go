package types

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Calendar arithmetic follows Postgres's datetime.c (date2j / j2date):
// the proleptic Gregorian calendar with astronomical year numbering, in
// which year 0 is 1 BC and year -43 is 44 BC.

// Time-unit constants in microseconds.
const (
	USecsPerSec    = int64(1000000)
	USecsPerMinute = 60 * USecsPerSec
	USecsPerHour   = 60 * USecsPerMinute
	USecsPerDay    = 24 * USecsPerHour
)

// Julian day numbers of the Unix and Postgres epochs.
const (
	unixEpochJDate     = 2440588 // date2j(1970, 1, 1)
	postgresEpochJDate = 2451545 // date2j(2000, 1, 1)
	// PostgresEpochDays is 2000-01-01 in days since 1970-01-01; binary
	// date values count from it.
	PostgresEpochDays = postgresEpochJDate - unixEpochJDate
	// PostgresEpochMicros is 2000-01-01 00:00 in microseconds since
	// 1970-01-01; binary timestamp values count from it.
	PostgresEpochMicros = int64(PostgresEpochDays) * USecsPerDay
)

// Postgres's supported ranges: dates from 4714-11-24 BC (Julian day 0) to
// 5874897-12-31; timestamps from 4714-11-24 BC on.
const (
	minDateDays      = -unixEpochJDate             // Julian day 0
	maxDateDays      = 2147483493 - unixEpochJDate // date2j(5874898,1,1)-1 - epoch
	minTimestampUSec = int64(minDateDays) * USecsPerDay
	// Postgres's upper bound (294276-12-31) does not fit in int64
	// microseconds since 1970, so ours is the largest finite int64.
	maxTimestampUSec = math.MaxInt64 - 1
)

// Infinite dates and timestamps (Datum.I).
const (
	NegInfinity = math.MinInt64
	PosInfinity = math.MaxInt64
)

// IsInfinite reports whether d, of type t, is a date or timestamp that is
// infinity or -infinity. Integers are never infinite: math.MaxInt64 is an
// ordinary bigint.
func IsInfinite(d Datum, t T) bool {
	switch t.ID {
	case Date, Timestamp, Timestamptz:
		return !d.Null && (d.I == NegInfinity || d.I == PosInfinity)
	}
	return false
}

func date2j(y, m, d int64) int64 {
	if m > 2 {
		m++
		y += 4800
	} else {
		m += 13
		y += 4799
	}
	century := floorDiv(y, 100)
	julian := y*365 - 32167
	julian += floorDiv(y, 4) - century + floorDiv(century, 4)
	julian += 7834*m/256 + d
	return julian
}

func j2date(jd int64) (y, m, d int) {
	julian := jd + 32044
	quad := floorDiv(julian, 146097)
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = floorDiv(julian, 1461)
	julian -= quad * 1461
	yy := julian * 4 / 1461
	if yy != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	yy += quad * 4
	y = int(yy - 4800)
	q := julian * 2141 / 65536
	d = int(julian - 7834*q/256)
	m = int((q+10)%12 + 1)
	return
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// DateFromYMD returns the date (days since 1970-01-01) of the given
// proleptic Gregorian year (astronomical: 0 is 1 BC), month (1-12) and day.
// It does not validate the day of month; see ValidYMD.
func DateFromYMD(year, month, day int) int64 {
	return date2j(int64(year), int64(month), int64(day)) - unixEpochJDate
}

// YMDFromDate splits a finite date (days since 1970-01-01) into year
// (astronomical), month and day.
func YMDFromDate(days int64) (year, month, day int) {
	return j2date(days + unixEpochJDate)
}

// ValidYMD reports whether month and day exist in year (astronomical).
func ValidYMD(year, month, day int) bool {
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	return day <= DaysInMonth(year, month)
}

// DaysInMonth returns the number of days of month (1-12) in year.
func DaysInMonth(year, month int) int {
	switch month {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if IsLeapYear(year) {
			return 29
		}
		return 28
	}
	return 31
}

// IsLeapYear reports whether the astronomical year is a Gregorian leap year.
func IsLeapYear(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// TimeParts is a broken-down timestamp: Year is astronomical (0 is 1 BC),
// Month 1-12, Day 1-31, and the time of day down to microseconds.
type TimeParts struct {
	Year, Month, Day     int
	Hour, Minute, Second int
	Micro                int
}

// SplitTimestamp breaks a finite timestamp (microseconds since 1970-01-01,
// of the wall clock) into its parts.
func SplitTimestamp(us int64) TimeParts {
	days := floorDiv(us, USecsPerDay)
	tod := us - days*USecsPerDay
	var p TimeParts
	p.Year, p.Month, p.Day = YMDFromDate(days)
	p.Hour = int(tod / USecsPerHour)
	p.Minute = int(tod / USecsPerMinute % 60)
	p.Second = int(tod / USecsPerSec % 60)
	p.Micro = int(tod % USecsPerSec)
	return p
}

// JoinTimestamp returns the timestamp (microseconds since 1970-01-01) of
// p; ok is false when the result is outside Postgres's timestamp range.
// Fields are not validated (an hour of 24 carries into the next day).
func JoinTimestamp(p TimeParts) (us int64, ok bool) {
	days := DateFromYMD(p.Year, p.Month, p.Day)
	if days < minDateDays-1 || days > maxTimestampUSec/USecsPerDay-1 {
		return 0, false
	}
	us = days*USecsPerDay + int64(p.Hour)*USecsPerHour + int64(p.Minute)*USecsPerMinute +
		int64(p.Second)*USecsPerSec + int64(p.Micro)
	return us, TimestampInRange(us)
}

// TimestampInRange reports whether a finite timestamp lies in Postgres's range.
func TimestampInRange(us int64) bool { return us >= minTimestampUSec && us <= maxTimestampUSec }

// DateInRange reports whether a finite date lies in Postgres's range.
func DateInRange(days int64) bool { return days >= minDateDays && days <= maxDateDays }

// ZoneOffset returns the UTC offset in seconds east of UTC that loc has at
// the instant us (microseconds since 1970-01-01 UTC).
func ZoneOffset(us int64, loc *time.Location) int {
	if loc == nil || loc == time.UTC {
		return 0
	}
	_, off := time.UnixMicro(us).In(loc).Zone()
	return off
}

// LocalToUTC converts a wall-clock timestamp in loc to an instant the way
// Postgres's DetermineTimeZoneOffset resolves local times. It looks up the
// first offset transition after the wall time less a day (read as UTC;
// offsets are under a day and transitions more than two days apart) and
// reads the wall time with the offsets before and after it: when both
// readings fall on the same side of the transition, that side's offset
// is the answer; otherwise the wall time is skipped by a spring-forward
// transition or repeated by a fall-back one, and the later of the two
// instants is taken. That is the offset in effect before a gap (02:30 on
// a spring-forward night in New York is 03:30 daylight time) and the
// offset in effect after an overlap (01:30 on a fall-back night is
// standard time). The result may lie outside the timestamp range; near
// the ends of int64 it wraps, so callers check it with TimestampInRange.
func LocalToUTC(wall int64, loc *time.Location) int64 {
	if loc == nil || loc == time.UTC {
		return wall
	}
	prev := time.Unix(floorDiv(wall, USecsPerSec)-86400, 0).In(loc)
	_, before := prev.Zone()
	_, boundary := prev.ZoneBounds()
	bt := wall - int64(before)*USecsPerSec
	if boundary.IsZero() {
		// No transition follows: the zone keeps this offset for good.
		return bt
	}
	_, after := boundary.Zone()
	at := wall - int64(after)*USecsPerSec
	b := boundary.Unix() * USecsPerSec
	switch {
	case bt < b && at < b:
		return bt
	case bt >= b && at >= b:
		return at
	case bt > at:
		return bt
	}
	return at
}

// appendYear appends a year as Postgres does: at least four digits, BC
// years counted from 1 (the " BC" suffix is the caller's).
func appendYMD(b []byte, y, m, d int) []byte {
	if y <= 0 {
		y = 1 - y
	}
	b = appendPad(b, int64(y), 4)
	b = append(b, '-')
	b = appendPad(b, int64(m), 2)
	b = append(b, '-')
	return appendPad(b, int64(d), 2)
}

func appendPad(b []byte, v int64, width int) []byte {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendTimeOfDay appends HH:MM:SS[.ffffff] with trailing fraction zeros trimmed.
func appendTimeOfDay(b []byte, h, m, s, us int64) []byte {
	b = appendPad(b, h, 2)
	b = append(b, ':')
	b = appendPad(b, m, 2)
	b = append(b, ':')
	return appendSeconds(b, s, us)
}

func appendSeconds(b []byte, s, us int64) []byte {
	b = appendPad(b, s, 2)
	if us != 0 {
		frac := []byte(strconv.FormatInt(us+USecsPerSec, 10)[1:])
		for len(frac) > 0 && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	return b
}

// FormatDate prints a date as Postgres does with DateStyle ISO.
func FormatDate(days int64) string {
	switch days {
	case NegInfinity:
		return "-infinity"
	case PosInfinity:
		return "infinity"
	}
	y, m, d := YMDFromDate(days)
	b := appendYMD(make([]byte, 0, 16), y, m, d)
	if y <= 0 {
		b = append(b, " BC"...)
	}
	return string(b)
}

// FormatTime prints a time of day (microseconds since midnight).
func FormatTime(us int64) string {
	return string(appendTimeOfDay(nil, us/USecsPerHour, us/USecsPerMinute%60, us/USecsPerSec%60, us%USecsPerSec))
}

// FormatTimestamp prints a timestamp without time zone as Postgres does
// with DateStyle ISO.
func FormatTimestamp(us int64) string {
	switch us {
	case NegInfinity:
		return "-infinity"
	case PosInfinity:
		return "infinity"
	}
	p := SplitTimestamp(us)
	b := appendYMD(make([]byte, 0, 32), p.Year, p.Month, p.Day)
	b = append(b, ' ')
	b = appendTimeOfDay(b, int64(p.Hour), int64(p.Minute), int64(p.Second), int64(p.Micro))
	if p.Year <= 0 {
		b = append(b, " BC"...)
	}
	return string(b)
}

// FormatTimestamptz prints an instant in loc as Postgres does with
// DateStyle ISO: the wall time followed by the offset (+00, -08, +05:30,
// -07:52:58).
func FormatTimestamptz(us int64, loc *time.Location) string {
	switch us {
	case NegInfinity:
		return "-infinity"
	case PosInfinity:
		return "infinity"
	}
	off := ZoneOffset(us, loc)
	p := SplitTimestamp(us + int64(off)*USecsPerSec)
	b := appendYMD(make([]byte, 0, 40), p.Year, p.Month, p.Day)
	b = append(b, ' ')
	b = appendTimeOfDay(b, int64(p.Hour), int64(p.Minute), int64(p.Second), int64(p.Micro))
	b = appendOffset(b, off)
	if p.Year <= 0 {
		b = append(b, " BC"...)
	}
	return string(b)
}

func appendOffset(b []byte, off int) []byte {
	if off < 0 {
		b = append(b, '-')
		off = -off
	} else {
		b = append(b, '+')
	}
	b = appendPad(b, int64(off/3600), 2)
	if off%3600 != 0 {
		b = append(b, ':')
		b = appendPad(b, int64(off/60%60), 2)
		if off%60 != 0 {
			b = append(b, ':')
			b = appendPad(b, int64(off%60), 2)
		}
	}
	return b
}

// roundMicros rounds us to prec fractional-second digits (0-6), half away
// from zero, as Postgres's AdjustTimestampForTypmod does.
func roundMicros(us int64, prec int32) int64 {
	if prec < 0 || prec >= 6 {
		return us
	}
	scale := int64(1)
	for i := prec; i < 6; i++ {
		scale *= 10
	}
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// monthByName returns the month number of a full or three-letter English
// month name (plus "sept"), or 0.
func monthByName(w string) int {
	for i, n := range monthNames {
		if w == n || w == n[:3] || (i == 8 && w == "sept") {
			return i + 1
		}
	}
	return 0
}

var weekdayNames = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

func isWeekday(w string) bool {
	for _, n := range weekdayNames {
		if w == n || w == n[:3] || (len(w) >= 3 && strings.HasPrefix(n, w) && len(w) <= len(n)) {
			return true
		}
	}
	return false
}
