package types

import (
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// Date and time input, a subset of Postgres's ParseDateTime/DecodeDateTime
// (PostgreSQL 15 docs §8.5.1 and Appendix B) with DateStyle MDY: ISO dates
// (2024-01-02, with T or space before the time), M/D/Y, month names in any
// order with day and year, YYYYMMDD, BC/AD, AM/PM, time zone offsets (Z,
// +02, +0530, +05:30), abbreviations (UTC, GMT, PST, ...), zone names
// (Europe/Paris), and the special values epoch, infinity, -infinity, now,
// today, tomorrow, yesterday and allballs.

// dtFields is the decoded content of a date/time string.
type dtFields struct {
	special   string // epoch, infinity, -infinity, now, allballs
	hasDate   bool
	y, m, d   int // astronomical year after BC adjustment
	relDays   int // today/tomorrow/yesterday, with relDate set
	relDate   bool
	hasTime   bool
	tod       int64 // microseconds since midnight
	hasTZ     bool
	tzOff     int // seconds east of UTC, when tzLoc is nil
	tzLoc     *time.Location
	rangeFail bool // syntactically fine but a field is out of range
	// mdFail marks a range failure of the month (not 1-12) or the day (not
	// 1-31), which Postgres reports with a hint about DateStyle.
	mdFail   bool
	zoneFail string
}

var tzAbbrevs = map[string]int{
	"z": 0, "zulu": 0, "utc": 0, "gmt": 0, "ut": 0, "wet": 0,
	"west": 3600, "bst": 3600, "cet": 3600, "met": 3600, "cest": 7200, "mest": 7200,
	"eet": 7200, "eest": 10800, "msk": 10800, "ist": 7200,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
}

// lookupZone resolves a zone name as Postgres does for TimeZone values and
// zone suffixes: an abbreviation, UTC spellings, or an IANA name (matched
// case-insensitively for the common spellings).
func lookupZone(name string) (*time.Location, int, bool) {
	lower := strings.ToLower(name)
	if off, ok := tzAbbrevs[lower]; ok {
		return nil, off, true
	}
	if loc, err := time.LoadLocation(name); err == nil && name != "" && name != "Local" {
		return loc, 0, true
	}
	// IANA names are capitalised per path component ("america/new_york").
	parts := strings.Split(lower, "/")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if len(w) > 0 {
				words[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(words, "_")
	}
	if loc, err := time.LoadLocation(strings.Join(parts, "/")); err == nil {
		return loc, 0, true
	}
	return nil, 0, false
}

// parseOffset parses "+HH", "+HHMM", "+HH:MM", "+HH:MM:SS" to seconds east.
func parseOffset(tok string) (int, bool) {
	sign := 1
	if tok[0] == '-' {
		sign = -1
	}
	body := tok[1:]
	var h, m, s int
	var err error
	if strings.Contains(body, ":") {
		parts := strings.Split(body, ":")
		if len(parts) > 3 {
			return 0, false
		}
		vals := make([]int, 3)
		for i, p := range parts {
			if p == "" || len(p) > 2 {
				return 0, false
			}
			if vals[i], err = strconv.Atoi(p); err != nil {
				return 0, false
			}
		}
		h, m, s = vals[0], vals[1], vals[2]
	} else {
		for _, c := range []byte(body) {
			if !isDigit(c) {
				return 0, false
			}
		}
		switch len(body) {
		case 1, 2:
			h, _ = strconv.Atoi(body)
		case 3, 4:
			h, _ = strconv.Atoi(body[:len(body)-2])
			m, _ = strconv.Atoi(body[len(body)-2:])
		case 5, 6:
			h, _ = strconv.Atoi(body[:len(body)-4])
			m, _ = strconv.Atoi(body[len(body)-4 : len(body)-2])
			s, _ = strconv.Atoi(body[len(body)-2:])
		default:
			return 0, false
		}
	}
	if h > 15 || m > 59 || s > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60 + s), true
}

func tokenizeDateTime(s string) []string {
	var toks []string
	i := 0
	isAlpha := func(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			i++
		case isDigit(c):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j < len(s) && s[j] == ':' {
				for j < len(s) && (isDigit(s[j]) || s[j] == ':' || s[j] == '.') {
					j++
				}
			} else if j+1 < len(s) && (s[j] == '-' || s[j] == '/' || s[j] == '.') && isDigit(s[j+1]) {
				sep := s[j]
				k := j + 1
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				if sep == '.' && (k >= len(s) || s[k] != '.') {
					j = k // a decimal number
				} else {
					for k < len(s) && (isDigit(s[k]) || s[k] == sep) {
						k++
					}
					j = k
				}
			} else if j < len(s) && s[j] == '.' {
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			toks = append(toks, s[i:j])
			i = j
		case isAlpha(c):
			if (c == 't' || c == 'T') && i+1 < len(s) && isDigit(s[i+1]) {
				toks = append(toks, "T")
				i++
				continue
			}
			j := i
			for j < len(s) && (isAlpha(s[j]) || s[j] == '_' || s[j] == '/' ||
				(j > i && strings.IndexByte(s[i:j], '/') >= 0 && (isDigit(s[j]) || s[j] == '+' || s[j] == '-'))) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case c == '+' || c == '-':
			j := i + 1
			if j < len(s) && isAlpha(s[j]) {
				for j < len(s) && isAlpha(s[j]) {
					j++
				}
			} else {
				for j < len(s) && (isDigit(s[j]) || s[j] == ':' || s[j] == '.') {
					j++
				}
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

// parseClock parses "h:m[:s[.f]]" to microseconds; ok false on bad syntax,
// rng false when a field is out of range.
func parseClock(tok string) (us int64, ok, rng bool) {
	parts := strings.Split(tok, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false, true
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || parts[1] == "" {
		return 0, false, true
	}
	var sec int
	var frac int64
	if len(parts) == 3 {
		ip, fp, hasDot := strings.Cut(parts[2], ".")
		var err error
		if sec, err = strconv.Atoi(ip); err != nil {
			return 0, false, true
		}
		if hasDot {
			for _, c := range []byte(fp) {
				if !isDigit(c) {
					return 0, false, true
				}
			}
			f, _ := strconv.ParseFloat("0."+fp+"0", 64)
			frac = int64(f*1e6 + 0.5)
			if len(fp) > 6 {
				// Postgres rounds the seventh digit on; float rounding above
				// handles it, but avoid a binary-fraction error of one.
				frac = roundFraction(fp)
			}
		}
	}
	if h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || h > 24 {
		return 0, true, false
	}
	us = int64(h)*USecsPerHour + int64(m)*USecsPerMinute + int64(sec)*USecsPerSec + frac
	if us > USecsPerDay {
		return 0, true, false
	}
	return us, true, true
}

// roundFraction converts a digit string after the point to microseconds,
// rounding half up on the seventh digit.
func roundFraction(fp string) int64 {
	digits := (fp + "000000")[:6]
	v, _ := strconv.ParseInt(digits, 10, 64)
	if len(fp) > 6 && fp[6] >= '5' {
		v++
	}
	return v
}

// decodeDateTime decodes s into fields. It returns ok=false on a syntax error.
func decodeDateTime(s string) (f dtFields, ok bool) {
	toks := tokenizeDateTime(strings.TrimSpace(s))
	if len(toks) == 0 {
		return f, false
	}
	var numbers []string
	monthName := 0
	bc, ad := false, false
	ampm := 0 // 1 am, 2 pm
	yearDigits := 0
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		lower := strings.ToLower(tok)
		switch {
		case tok == "T":
			continue
		case strings.Contains(tok, ":") && isDigit(tok[0]):
			if f.hasTime {
				return f, false
			}
			us, ok2, rng := parseClock(tok)
			if !ok2 {
				return f, false
			}
			if !rng {
				f.rangeFail = true
			}
			f.tod, f.hasTime = us, true
		case isDigit(tok[0]) && strings.ContainsAny(tok, "-/") || (isDigit(tok[0]) && strings.Count(tok, ".") == 2):
			if f.hasDate {
				return f, false
			}
			sep := "-"
			if strings.Contains(tok, "/") {
				sep = "/"
			} else if strings.Contains(tok, ".") {
				sep = "."
			}
			parts := strings.Split(tok, sep)
			if len(parts) != 3 {
				return f, false
			}
			var vals [3]int
			for k, p := range parts {
				v, err := strconv.Atoi(p)
				if err != nil || p == "" {
					return f, false
				}
				vals[k] = v
			}
			if len(parts[0]) >= 3 || vals[0] > 31 {
				f.y, f.m, f.d = vals[0], vals[1], vals[2]
				yearDigits = len(parts[0])
			} else {
				f.m, f.d, f.y = vals[0], vals[1], vals[2]
				yearDigits = len(parts[2])
			}
			f.hasDate = true
		case isDigit(tok[0]) || (tok[0] == '.' && len(tok) > 1):
			if len(tok) == 8 && !f.hasDate && monthName == 0 && !strings.Contains(tok, ".") {
				f.y, _ = strconv.Atoi(tok[:4])
				f.m, _ = strconv.Atoi(tok[4:6])
				f.d, _ = strconv.Atoi(tok[6:])
				f.hasDate, yearDigits = true, 4
				continue
			}
			if (len(tok) == 6 || strings.Contains(tok, ".") && strings.Index(tok, ".") == 6) && (f.hasDate || monthName != 0 && len(numbers) == 2) && !f.hasTime {
				// "hhmmss[.f]" after a date.
				clock := tok[:2] + ":" + tok[2:4] + ":" + tok[4:]
				us, ok2, rng := parseClock(clock)
				if !ok2 {
					return f, false
				}
				f.rangeFail = f.rangeFail || !rng
				f.tod, f.hasTime = us, true
				continue
			}
			if strings.Contains(tok, ".") {
				return f, false
			}
			numbers = append(numbers, tok)
		case tok[0] == '+' || tok[0] == '-':
			switch lower {
			case "-infinity", "+infinity":
				if len(toks) != 1 {
					return f, false
				}
				f.special = strings.TrimPrefix(lower, "+")
				continue
			}
			if len(tok) < 2 || !isDigit(tok[1]) || !(f.hasTime || f.hasDate) || f.hasTZ {
				return f, false
			}
			off, ok2 := parseOffset(tok)
			if !ok2 {
				return f, false
			}
			f.hasTZ, f.tzOff = true, off
		default:
			switch lower {
			case "epoch", "infinity", "now", "allballs":
				if len(toks) != 1 {
					return f, false
				}
				f.special = lower
				continue
			case "today", "tomorrow", "yesterday":
				f.relDate = true
				f.relDays = map[string]int{"today": 0, "tomorrow": 1, "yesterday": -1}[lower]
				continue
			case "bc":
				bc = true
				continue
			case "ad":
				ad = true
				continue
			case "am", "a.m.":
				ampm = 1
				continue
			case "pm", "p.m.":
				ampm = 2
				continue
			case "at", "on":
				continue
			}
			if mn := monthByName(lower); mn != 0 && monthName == 0 && !f.hasDate {
				monthName = mn
				continue
			}
			if isWeekday(lower) {
				continue
			}
			if f.hasTZ {
				return f, false
			}
			loc, off, found := lookupZone(tok)
			if !found {
				if strings.Contains(tok, "/") || f.hasTime || f.hasDate {
					f.zoneFail = tok
					return f, true
				}
				return f, false
			}
			f.hasTZ, f.tzLoc, f.tzOff = true, loc, off
			// "UTC+3" style suffixes are not supported.
		}
	}
	if monthName != 0 {
		if f.hasDate || len(numbers) != 2 {
			return f, false
		}
		// The number that cannot be a day (three or more digits, or over
		// 31) is the year; otherwise MDY order puts the day first.
		a, _ := strconv.Atoi(numbers[0])
		b, _ := strconv.Atoi(numbers[1])
		if len(numbers[0]) >= 3 || a > 31 {
			f.y, f.d, yearDigits = a, b, len(numbers[0])
		} else {
			f.d, f.y, yearDigits = a, b, len(numbers[1])
		}
		f.m, f.hasDate = monthName, true
		numbers = nil
	}
	if len(numbers) > 0 {
		return f, false
	}
	if f.hasDate {
		if yearDigits <= 2 && !bc {
			if f.y < 70 {
				f.y += 2000
			} else {
				f.y += 1900
			}
		}
		if f.y == 0 {
			f.rangeFail = true
		}
		if bc {
			if ad {
				return f, false
			}
			f.y = 1 - f.y
		}
		// Postgres checks the year, then month and day against their
		// absolute bounds (with the DateStyle hint), then the day against
		// the month; a time field out of range was reported before all.
		if !f.rangeFail && (f.m < 1 || f.m > 12 || f.d < 1 || f.d > 31) {
			f.mdFail = true
		}
		if !ValidYMD(f.y, f.m, f.d) {
			f.rangeFail = true
		}
	} else if bc || ad {
		return f, false
	}
	if ampm != 0 {
		if !f.hasTime {
			return f, false
		}
		h := f.tod / USecsPerHour
		if h > 12 || h == 0 {
			f.rangeFail = true
		} else if ampm == 1 && h == 12 {
			f.tod -= 12 * USecsPerHour
		} else if ampm == 2 && h < 12 {
			f.tod += 12 * USecsPerHour
		}
	}
	if f.relDate && f.hasDate {
		return f, false
	}
	return f, true
}

func dtSyntaxError(typ, s string) error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
}

func dtRangeError(s string) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
}

// dtFieldsRangeError is dtRangeError for decoded fields f, with Postgres's
// hint when the month or the day is out of its absolute range.
func dtFieldsRangeError(f dtFields, s string) error {
	err := pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	if f.mdFail {
		err = err.WithHint("Perhaps you need a different \"datestyle\" setting.")
	}
	return err
}

func zoneError(name string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", strings.ToLower(name))
}

// nowFunc is the clock for now/today; tests replace it.
var nowFunc = time.Now

func localToday(loc *time.Location) int64 {
	if loc == nil {
		loc = time.UTC
	}
	n := nowFunc().In(loc)
	return DateFromYMD(n.Year(), int(n.Month()), n.Day())
}

// ParseTimestamp parses timestamp input. With withTZ the result is an
// instant (zone from the text, else loc); without it, any zone in the text
// is ignored, as Postgres does, and the result is the wall-clock time.
func ParseTimestamp(s string, withTZ bool, loc *time.Location) (int64, error) {
	typ := "timestamp"
	if withTZ {
		typ = "timestamp with time zone"
	}
	f, ok := decodeDateTime(s)
	if !ok {
		return 0, dtSyntaxError(typ, s)
	}
	if f.zoneFail != "" {
		return 0, zoneError(f.zoneFail)
	}
	if f.rangeFail {
		return 0, dtFieldsRangeError(f, s)
	}
	if loc == nil {
		loc = time.UTC
	}
	switch f.special {
	case "epoch":
		return 0, nil
	case "infinity":
		return PosInfinity, nil
	case "-infinity":
		return NegInfinity, nil
	case "now":
		us := nowFunc().UnixMicro()
		if !withTZ {
			us += int64(ZoneOffset(us, loc)) * USecsPerSec
		}
		return us, nil
	case "allballs":
		return 0, dtSyntaxError(typ, s)
	}
	var days int64
	switch {
	case f.relDate:
		days = localToday(loc) + int64(f.relDays)
	case f.hasDate:
		days = DateFromYMD(f.y, f.m, f.d)
	default:
		return 0, dtSyntaxError(typ, s)
	}
	// The last day is partial: it ends at the largest timestamp, beyond
	// which days*USecsPerDay + tod would overflow.
	if lastDay := maxTimestampUSec / USecsPerDay; days < minDateDays || days > lastDay || days == lastDay && f.tod > maxTimestampUSec%USecsPerDay {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	wall := days*USecsPerDay + f.tod
	if !withTZ {
		return wall, nil
	}
	var us int64
	switch {
	case f.hasTZ && f.tzLoc != nil:
		us = LocalToUTC(wall, f.tzLoc)
	case f.hasTZ:
		us = wall - int64(f.tzOff)*USecsPerSec
	default:
		us = LocalToUTC(wall, loc)
	}
	if !TimestampInRange(us) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	return us, nil
}

// ParseDate parses date input; a time part is accepted and ignored.
func ParseDate(s string, loc *time.Location) (int64, error) {
	f, ok := decodeDateTime(s)
	if !ok {
		return 0, dtSyntaxError("date", s)
	}
	if f.zoneFail != "" {
		return 0, zoneError(f.zoneFail)
	}
	if f.rangeFail {
		return 0, dtFieldsRangeError(f, s)
	}
	switch f.special {
	case "epoch":
		return 0, nil
	case "infinity":
		return PosInfinity, nil
	case "-infinity":
		return NegInfinity, nil
	case "now":
		return localToday(loc), nil
	case "allballs":
		return 0, dtSyntaxError("date", s)
	}
	var days int64
	switch {
	case f.relDate:
		days = localToday(loc) + int64(f.relDays)
	case f.hasDate:
		days = DateFromYMD(f.y, f.m, f.d)
	default:
		return 0, dtSyntaxError("date", s)
	}
	if !DateInRange(days) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return days, nil
}

// ParseTime parses time-of-day input (microseconds since midnight); a date
// and a zone are accepted and ignored, as Postgres's time_in does.
func ParseTime(s string) (int64, error) {
	// A lone six-digit number is hhmmss.
	if t := strings.TrimSpace(s); len(t) == 6 && strings.Trim(t, "0123456789") == "" {
		us, ok, rng := parseClock(t[:2] + ":" + t[2:4] + ":" + t[4:])
		if ok && rng {
			return us, nil
		}
		return 0, dtRangeError(s)
	}
	f, ok := decodeDateTime(s)
	if !ok {
		return 0, dtSyntaxError("time", s)
	}
	if f.zoneFail != "" {
		return 0, zoneError(f.zoneFail)
	}
	if f.rangeFail && !f.hasTime && f.special == "" {
		// A date without a time is no time, whatever its fields.
		return 0, dtSyntaxError("time", s)
	}
	if f.rangeFail {
		return 0, dtFieldsRangeError(f, s)
	}
	switch f.special {
	case "allballs":
		return 0, nil
	case "now":
		n := nowFunc()
		return int64(n.Hour())*USecsPerHour + int64(n.Minute())*USecsPerMinute + int64(n.Second())*USecsPerSec + int64(n.Nanosecond()/1000), nil
	case "":
	default:
		return 0, dtSyntaxError("time", s)
	}
	if !f.hasTime {
		return 0, dtSyntaxError("time", s)
	}
	return f.tod, nil
}
