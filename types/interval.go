package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
)

// FormatInterval prints iv as Postgres does with IntervalStyle postgres
// (EncodeInterval, INTSTYLE_POSTGRES): "1 year 2 mons 3 days 04:05:06.5",
// "-1 days +02:00:00", "00:00:00".
func FormatInterval(iv IntervalVal) string {
	b := make([]byte, 0, 32)
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			b = append(b, ' ')
		}
		if isBefore && v > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ' ')
		b = append(b, unit...)
		if v != 1 {
			b = append(b, 's')
		}
		isBefore = v < 0
		isZero = false
	}
	part(int64(iv.Months/12), "year")
	part(int64(iv.Months%12), "mon")
	part(int64(iv.Days), "day")
	us := iv.Micros
	hour := us / USecsPerHour
	us -= hour * USecsPerHour
	min := us / USecsPerMinute
	us -= min * USecsPerMinute
	sec := us / USecsPerSec
	fsec := us - sec*USecsPerSec
	if isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		minus := hour < 0 || min < 0 || sec < 0 || fsec < 0
		if !isZero {
			b = append(b, ' ')
		}
		if minus {
			b = append(b, '-')
		} else if isBefore {
			b = append(b, '+')
		}
		b = appendPad(b, abs64(hour), 2)
		b = append(b, ':')
		b = appendPad(b, abs64(min), 2)
		b = append(b, ':')
		b = appendSeconds(b, abs64(sec), abs64(fsec))
	}
	return string(b)
}

func abs64(v int64) int64 {
	if v < 0 {
		// MinInt64 hours cannot occur: hour = micros/3.6e9.
		return -v
	}
	return v
}

// intervalAcc accumulates interval fields as Postgres's pg_itm_in does,
// failing on int32/int64 overflow.
type intervalAcc struct {
	months, days int64
	micros       int64
	overflow     bool
}

func (a *intervalAcc) addMicros(v int64) {
	r := a.micros + v
	if (v > 0 && r < a.micros) || (v < 0 && r > a.micros) {
		a.overflow = true
	}
	a.micros = r
}

// addScaled adds val*scale microseconds plus the fraction fval*scale
// (AdjustMicroseconds).
func (a *intervalAcc) addScaled(val int64, fval float64, scale int64) {
	if val != 0 {
		if val > math.MaxInt64/scale || val < math.MinInt64/scale {
			a.overflow = true
			return
		}
		a.addMicros(val * scale)
	}
	a.addFractMicros(fval, scale)
}

// addFractMicros is Postgres's AdjustFractMicroseconds.
func (a *intervalAcc) addFractMicros(frac float64, scale int64) {
	if frac == 0 {
		return
	}
	frac *= float64(scale)
	if math.Abs(frac) > 9.2e18 {
		a.overflow = true
		return
	}
	us := int64(frac)
	frac -= float64(us)
	us += int64(math.RoundToEven(frac))
	a.addMicros(us)
}

// addFractDays is Postgres's AdjustFractDays.
func (a *intervalAcc) addFractDays(frac float64, scale int64) {
	if frac == 0 {
		return
	}
	frac *= float64(scale)
	extra := int64(frac)
	a.days += extra
	frac -= float64(extra)
	a.addFractMicros(frac, USecsPerDay)
}

var intervalUnits = map[string]string{
	"microsecond": "us", "microseconds": "us", "us": "us", "usec": "us", "usecs": "us", "useconds": "us", "usecond": "us",
	"millisecond": "ms", "milliseconds": "ms", "ms": "ms", "msec": "ms", "msecs": "ms", "mseconds": "ms", "msecond": "ms",
	"second": "s", "seconds": "s", "s": "s", "sec": "s", "secs": "s",
	"minute": "m", "minutes": "m", "m": "m", "min": "m", "mins": "m",
	"hour": "h", "hours": "h", "h": "h", "hr": "h", "hrs": "h",
	"day": "d", "days": "d", "d": "d",
	"week": "w", "weeks": "w", "w": "w",
	"month": "mon", "months": "mon", "mon": "mon", "mons": "mon",
	"year": "y", "years": "y", "y": "y", "yr": "y", "yrs": "y",
	"decade": "dec", "decades": "dec", "dec": "dec", "decs": "dec",
	"century": "c", "centuries": "c", "cent": "c", "c": "c",
	"millennium": "mil", "millennia": "mil", "millenniums": "mil", "mil": "mil", "mils": "mil",
}

// ParseInterval parses Postgres interval input (DecodeInterval and
// DecodeISO8601Interval): "1 day 2 hours", "1h 30m", "@ 1 hour ago",
// "1 day 02:03:04", "-1 days +02:00:00", "1-2" (years-months),
// "P1Y2M3DT4H5M6S", "PT1H", "1.5 months" (fractions cascade down to days
// and microseconds as in Postgres). A bare number is seconds. Errors are
// 22007 `invalid input syntax for type interval: "..."` and 22015
// `interval out of range`.
func ParseInterval(s string) (IntervalVal, error) {
	bad := func() (IntervalVal, error) {
		return IntervalVal{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", s)
	}
	oor := func() (IntervalVal, error) {
		return IntervalVal{}, pgerr.New(pgerr.IntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return bad()
	}
	var a intervalAcc
	var ok bool
	if len(t) > 1 && t[0] == 'p' {
		ok = parseISOInterval(t[1:], &a)
	} else {
		ok = parsePostgresInterval(t, &a)
	}
	if !ok {
		return bad()
	}
	if a.overflow || a.months > math.MaxInt32 || a.months < math.MinInt32 || a.days > math.MaxInt32 || a.days < math.MinInt32 {
		if a.overflow {
			return IntervalVal{}, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
		}
		return oor()
	}
	return IntervalVal{Months: int32(a.months), Days: int32(a.days), Micros: a.micros}, nil
}

// splitNumber splits a decimal number into its integer part and its
// fraction, both carrying the sign ("-1.5" is -1 and -0.5).
func splitNumber(num string) (int64, float64, bool) {
	if num == "" {
		return 0, 0, false
	}
	neg := false
	body := num
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	ip, fp, hasDot := strings.Cut(body, ".")
	if ip == "" && (!hasDot || fp == "") {
		return 0, 0, false
	}
	for _, c := range []byte(ip + fp) {
		if !isDigit(c) {
			return 0, 0, false
		}
	}
	var v int64
	if ip != "" {
		var err error
		v, err = strconv.ParseInt(ip, 10, 64)
		if err != nil {
			return 0, 0, false
		}
	}
	var f float64
	if fp != "" {
		f, _ = strconv.ParseFloat("0."+fp, 64)
	}
	if neg {
		v, f = -v, -f
	}
	return v, f, true
}

// applyUnit adds val+fval of unit u (a canonical intervalUnits value).
func (a *intervalAcc) applyUnit(u string, val int64, fval float64) {
	switch u {
	case "us":
		a.addScaled(val, fval, 1)
	case "ms":
		a.addScaled(val, fval, 1000)
	case "s":
		a.addScaled(val, fval, USecsPerSec)
	case "m":
		a.addScaled(val, fval, USecsPerMinute)
	case "h":
		a.addScaled(val, fval, USecsPerHour)
	case "d":
		a.days += val
		a.addFractMicros(fval, USecsPerDay)
	case "w":
		a.days += val * 7
		a.addFractDays(fval, 7)
	case "mon":
		a.months += val
		a.addFractDays(fval, 30)
	case "y", "dec", "c", "mil":
		scale := map[string]int64{"y": 1, "dec": 10, "c": 100, "mil": 1000}[u]
		a.months += val * 12 * scale
		a.months += int64(math.Round(fval * float64(scale) * 12))
	}
	if a.months > math.MaxInt32*2 || a.months < math.MinInt32*2 || a.days > math.MaxInt32*2 || a.days < math.MinInt32*2 {
		a.overflow = true
	}
}

// tokenizeInterval splits interval text into numbers, words, time fields
// and signs, the way ParseDateTime separates "1h30m" into "1", "h", "30", "m".
func tokenizeInterval(t string) []string {
	var toks []string
	i := 0
	for i < len(t) {
		c := t[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ',':
			i++
		case isDigit(c) || c == '.' || ((c == '+' || c == '-') && i+1 < len(t) && (isDigit(t[i+1]) || t[i+1] == '.')):
			j := i + 1
			for j < len(t) && (isDigit(t[j]) || t[j] == '.' || t[j] == ':' || t[j] == '-') {
				j++
			}
			toks = append(toks, t[i:j])
			i = j
		case c >= 'a' && c <= 'z':
			j := i + 1
			for j < len(t) && t[j] >= 'a' && t[j] <= 'z' {
				j++
			}
			toks = append(toks, t[i:j])
			i = j
		default:
			toks = append(toks, t[i:i+1])
			i++
		}
	}
	return toks
}

func parsePostgresInterval(t string, a *intervalAcc) bool {
	toks := tokenizeInterval(t)
	ago := false
	seen := false
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok == "@":
			continue
		case tok == "ago":
			if i != len(toks)-1 || !seen {
				return false
			}
			ago = true
			continue
		case strings.Contains(tok, ":"):
			if !parseIntervalTime(tok, a) {
				return false
			}
			seen = true
		case isDigit(tok[0]) || tok[0] == '.' || tok[0] == '+' || tok[0] == '-':
			body := strings.TrimLeft(tok, "+-")
			if strings.Contains(body, "-") {
				// SQL-standard year-month "1-2".
				ys, ms, _ := strings.Cut(body, "-")
				y, err1 := strconv.ParseInt(ys, 10, 32)
				m, err2 := strconv.ParseInt(ms, 10, 32)
				if err1 != nil || err2 != nil || m > 11 {
					return false
				}
				v := y*12 + m
				if tok[0] == '-' {
					v = -v
				}
				a.months += v
				seen = true
				continue
			}
			val, fval, ok := splitNumber(tok)
			if !ok {
				return false
			}
			unit := "s"
			if i+1 < len(toks) {
				if u, ok := intervalUnits[toks[i+1]]; ok {
					unit = u
					i++
				} else if strings.Contains(toks[i+1], ":") && !strings.HasPrefix(toks[i+1], "-") && !strings.HasPrefix(toks[i+1], "+") {
					// SQL-standard "1 02:03:04": a day count before a time.
					unit = "d"
				} else {
					return false
				}
			}
			a.applyUnit(unit, val, fval)
			seen = true
		default:
			return false
		}
	}
	if !seen {
		return false
	}
	if ago {
		a.months, a.days, a.micros = -a.months, -a.days, -a.micros
	}
	return true
}

// parseIntervalTime adds a signed "h:m[:s[.f]]" field.
func parseIntervalTime(tok string, a *intervalAcc) bool {
	neg := false
	if tok[0] == '+' || tok[0] == '-' {
		neg = tok[0] == '-'
		tok = tok[1:]
	}
	parts := strings.Split(tok, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	h, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || parts[0] == "" {
		return false
	}
	var m int64
	var sec int64
	var frac float64
	if strings.Contains(parts[1], ".") && len(parts) == 2 {
		// "mm:ss.f" is minutes:seconds in Postgres.
		mv, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			return false
		}
		sv, fv, ok := splitNumber(parts[1])
		if !ok {
			return false
		}
		h, m, sec, frac = 0, mv, sv, fv
	} else {
		m, err = strconv.ParseInt(parts[1], 10, 64)
		if err != nil || parts[1] == "" || m > 59 {
			return false
		}
		if len(parts) == 3 {
			var ok bool
			sec, frac, ok = splitNumber(parts[2])
			if !ok || sec > 60 {
				return false
			}
		}
	}
	if h > math.MaxInt64/USecsPerHour {
		a.overflow = true
		return true
	}
	us := h*USecsPerHour + m*USecsPerMinute + sec*USecsPerSec + int64(math.RoundToEven(frac*1e6))
	if neg {
		us = -us
	}
	a.addMicros(us)
	return true
}

// parseISOInterval parses the part after "P" of an ISO 8601 duration
// ("1Y2M3DT4H5M6S", "T1H", "1W"), with Postgres's fraction cascading.
func parseISOInterval(t string, a *intervalAcc) bool {
	inTime := false
	any := false
	for len(t) > 0 {
		if t[0] == 't' {
			if inTime {
				return false
			}
			inTime = true
			t = t[1:]
			continue
		}
		j := 0
		if j < len(t) && (t[j] == '-' || t[j] == '+') {
			j++
		}
		for j < len(t) && (isDigit(t[j]) || t[j] == '.') {
			j++
		}
		if j == 0 || j >= len(t) {
			return false
		}
		val, fval, ok := splitNumber(t[:j])
		if !ok {
			return false
		}
		unit := t[j]
		t = t[j+1:]
		any = true
		if !inTime {
			switch unit {
			case 'y':
				a.applyUnit("y", val, fval)
			case 'm':
				a.applyUnit("mon", val, fval)
			case 'w':
				a.applyUnit("w", val, fval)
			case 'd':
				a.applyUnit("d", val, fval)
			default:
				return false
			}
		} else {
			switch unit {
			case 'h':
				a.applyUnit("h", val, fval)
			case 'm':
				a.applyUnit("m", val, fval)
			case 's':
				a.applyUnit("s", val, fval)
			default:
				return false
			}
		}
	}
	return any
}

// intervalTypmodPrecision extracts the fractional-second precision of an
// interval typmod (Postgres packs range bits above the low 16 bits).
func intervalTypmodPrecision(mod int32) int32 {
	if mod < 0 {
		return -1
	}
	p := mod & 0xffff
	if p == 0xffff {
		return -1
	}
	return p
}
