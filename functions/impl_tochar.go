package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// to_char, to_date and to_timestamp templates (docs §9.8, Table 9.26):
// the common date/time patterns with the FM (fill mode) prefix and TH
// suffix, and the digit patterns 9 0 . , for numbers.

// dtPatterns are the date/time template patterns, longest first so that
// "HH24" wins over "HH" and "Month" over "Mon".
var dtPatterns = []string{"HH24", "HH12", "YYYY", "MONTH", "Month", "month", "DAY", "Day", "day",
	"MON", "Mon", "mon", "DY", "Dy", "dy", "IYYY", "YYY", "US", "MS", "SS", "MI", "HH", "MM", "DDD", "DD",
	"YY", "AM", "PM", "am", "pm", "A.M.", "P.M.", "TZ", "tz", "OF", "ID", "IW", "WW", "Q", "J", "D", "Y"}

// casedPatterns are the patterns whose letter case selects the output's
// case; the others match in any case ("yyyy", "hh24", "dd").
var casedPatterns = map[string]bool{"MONTH": true, "Month": true, "month": true, "DAY": true, "Day": true,
	"day": true, "MON": true, "Mon": true, "mon": true, "DY": true, "Dy": true, "dy": true,
	"AM": true, "PM": true, "am": true, "pm": true, "TZ": true, "tz": true}

// matchPattern returns the template pattern at the start of s (in its
// canonical spelling) and its length, or "" when s starts with a literal.
func matchPattern(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	// Every pattern starts with a letter: a first byte that differs in
	// more than case rules it out without the comparisons below.
	c := s[0] | 0x20
	for _, p := range dtPatterns {
		if p[0]|0x20 != c {
			continue
		}
		if strings.HasPrefix(s, p) {
			return p, len(p)
		}
		if !casedPatterns[p] && len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return p, len(p)
		}
	}
	return "", 0
}

type tmFields struct {
	t          time.Time
	us         int64
	zone       string
	offsetSecs int
	isInterval bool
	iv         types.IntervalVal
}

func ordinal(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

func casePattern(pat, s string) string {
	switch {
	case pat == strings.ToUpper(pat):
		return strings.ToUpper(s)
	case pat == strings.ToLower(pat):
		return strings.ToLower(s)
	}
	return s
}

// tmplItem is one item of a parsed date/time template: a literal, or a
// pattern with its FM prefix and TH suffix.
type tmplItem struct {
	lit string
	pat string // "": the item is lit
	fm  bool
	th  string
}

// parsedTemplates caches parseTemplate's results by template: a query
// formats every row with the same few templates. It stops taking new
// templates at maxParsedTemplates, so templates built from data cannot
// grow it without bound.
var (
	parsedTemplates    sync.Map // string -> []tmplItem
	parsedTemplatesLen atomic.Int64
)

const maxParsedTemplates = 1024

// parseTemplate splits a to_char template into its items.
func parseTemplate(tmpl string) []tmplItem {
	if v, ok := parsedTemplates.Load(tmpl); ok {
		return v.([]tmplItem)
	}
	var items []tmplItem
	lit := func(s string) {
		if n := len(items); n > 0 && items[n-1].pat == "" {
			items[n-1].lit += s
			return
		}
		items = append(items, tmplItem{lit: s})
	}
	for i := 0; i < len(tmpl); {
		fm := false
		if strings.HasPrefix(tmpl[i:], "FM") {
			fm = true
			i += 2
		}
		if tmpl[i:] == "" {
			break
		}
		if tmpl[i] == '"' {
			j := strings.IndexByte(tmpl[i+1:], '"')
			if j < 0 {
				lit(tmpl[i+1:])
				break
			}
			lit(tmpl[i+1 : i+1+j])
			i += j + 2
			continue
		}
		if tmpl[i] == '\\' && i+1 < len(tmpl) {
			lit(tmpl[i+1 : i+2])
			i += 2
			continue
		}
		pat, n := matchPattern(tmpl[i:])
		if pat == "" {
			lit(tmpl[i : i+1])
			i++
			continue
		}
		i += n
		th := ""
		if strings.HasPrefix(tmpl[i:], "TH") || strings.HasPrefix(tmpl[i:], "th") {
			th = tmpl[i : i+2]
			i += 2
		}
		items = append(items, tmplItem{pat: pat, fm: fm, th: th})
	}
	if parsedTemplatesLen.Load() < maxParsedTemplates {
		if _, loaded := parsedTemplates.LoadOrStore(strings.Clone(tmpl), items); !loaded {
			parsedTemplatesLen.Add(1)
		}
	}
	return items
}

// formatDateTime applies a to_char template to f.
func formatDateTime(tmpl string, f tmFields) string {
	b := make([]byte, 0, len(tmpl)+8)
	for _, it := range parseTemplate(tmpl) {
		if it.pat == "" {
			b = append(b, it.lit...)
			continue
		}
		pat, fm, th := it.pat, it.fm, it.th
		num := func(n int, width int) {
			if n < 0 {
				b = append(b, '-')
			}
			u := n
			if u < 0 {
				u = -u
			}
			if !fm {
				for w := digits(u); w < width-boolInt(n < 0); w++ {
					b = append(b, '0')
				}
			}
			b = strconv.AppendInt(b, int64(u), 10)
			if th != "" {
				if th == "TH" {
					b = append(b, strings.ToUpper(ordinal(n))...)
				} else {
					b = append(b, ordinal(n)...)
				}
			}
		}
		t := f.t
		hour := t.Hour()
		if f.isInterval {
			hour = int(f.iv.Micros / 3600e6)
		}
		switch pat {
		case "YYYY":
			num(t.Year(), 4)
		case "IYYY":
			y, _ := t.ISOWeek()
			num(y, 4)
		case "YYY":
			num(t.Year()%1000, 3)
		case "YY":
			num(t.Year()%100, 2)
		case "Y":
			num(t.Year()%10, 1)
		case "MM":
			num(int(t.Month()), 2)
		case "DD":
			num(t.Day(), 2)
		case "DDD":
			num(t.YearDay(), 3)
		case "D":
			num(int(t.Weekday())+1, 1)
		case "ID":
			num((int(t.Weekday())+6)%7+1, 1)
		case "IW":
			_, w := t.ISOWeek()
			num(w, 2)
		case "WW":
			num((t.YearDay()-1)/7+1, 2)
		case "Q":
			num((int(t.Month())-1)/3+1, 1)
		case "J":
			num(int(FloorDiv64(t.Unix(), 86400)+2440588), 1)
		case "HH24":
			num(hour, 2)
		case "HH", "HH12":
			h := hour % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case "MI":
			num(t.Minute(), 2)
		case "SS":
			num(t.Second(), 2)
		case "MS":
			num(int(f.us/1000%1000), 3)
		case "US":
			num(int(f.us%1000000), 6)
		case "AM", "PM", "am", "pm":
			s := "AM"
			if hour >= 12 {
				s = "PM"
			}
			b = append(b, casePattern(pat, s)...)
		case "A.M.", "P.M.":
			s := "A.M."
			if hour >= 12 {
				s = "P.M."
			}
			b = append(b, s...)
		case "MONTH", "Month", "month":
			s := casePattern(pat, t.Month().String())
			if !fm {
				s = fmt.Sprintf("%-9s", s)
			}
			b = append(b, s...)
		case "MON", "Mon", "mon":
			b = append(b, casePattern(pat, t.Month().String()[:3])...)
		case "DAY", "Day", "day":
			s := casePattern(pat, t.Weekday().String())
			if !fm {
				s = fmt.Sprintf("%-9s", s)
			}
			b = append(b, s...)
		case "DY", "Dy", "dy":
			b = append(b, casePattern(pat, t.Weekday().String()[:3])...)
		case "TZ", "tz":
			b = append(b, casePattern(pat, f.zone)...)
		case "OF":
			off := f.offsetSecs
			sign := "+"
			if off < 0 {
				sign, off = "-", -off
			}
			s := fmt.Sprintf("%s%02d", sign, off/3600)
			if off%3600 != 0 {
				s += fmt.Sprintf(":%02d", off%3600/60)
			}
			b = append(b, s...)
		}
	}
	return string(b)
}

// digits returns the number of decimal digits of n >= 0.
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// formatNumber applies a numeric to_char template (9, 0, ., D, ,, G, S,
// MI, PR, FM) to the decimal text of a number.
func formatNumber(tmpl string, v float64, exact string) string {
	fm := strings.Contains(tmpl, "FM")
	t := strings.ReplaceAll(tmpl, "FM", "")
	intDigits, fracDigits := 0, 0
	seenDot := false
	for _, c := range t {
		switch c {
		case '9', '0':
			if seenDot {
				fracDigits++
			} else {
				intDigits++
			}
		case '.', 'D':
			seenDot = true
		}
	}
	neg := v < 0 || strings.HasPrefix(exact, "-")
	s := exact
	if s == "" {
		s = strconv.FormatFloat(math.Abs(v), 'f', fracDigits, 64)
	} else {
		f, _ := strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64)
		s = strconv.FormatFloat(f, 'f', fracDigits, 64)
	}
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	if len(ip) > intDigits {
		// Too many digits: Postgres prints '#' for every digit position.
		return strings.Map(func(r rune) rune {
			if r == '9' || r == '0' {
				return '#'
			}
			return r
		}, tmpl)
	}
	if ip == "0" && !strings.Contains(t, "0") {
		ip = ""
	}
	// Lay the integer digits right-aligned into the integer pattern.
	var out []byte
	digits := []byte(ip)
	di := len(digits) - 1
	intPart := t
	if k := strings.IndexAny(t, ".D"); k >= 0 {
		intPart = t[:k]
	}
	firstZero := strings.IndexByte(intPart, '0')
	for k := len(intPart) - 1; k >= 0; k-- {
		c := intPart[k]
		switch c {
		case '9', '0':
			switch {
			case di >= 0:
				out = append(out, digits[di])
				di--
			case c == '0' || firstZero >= 0 && k >= firstZero:
				out = append(out, '0')
			case !fm:
				out = append(out, ' ')
			}
		case ',', 'G':
			if di >= 0 || (firstZero >= 0 && k > firstZero) {
				out = append(out, ',')
			} else if !fm {
				out = append(out, ' ')
			}
		}
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	res := string(out)
	if seenDot {
		if fm {
			// FM drops the trailing zeros of 9 positions; a 0 position
			// always prints (FM9,999.00 of 1234.5 is 1,234.50). The
			// point stays.
			var fracPat []byte
			if k := strings.IndexAny(t, ".D"); k >= 0 {
				for _, c := range []byte(t[k+1:]) {
					if c == '9' || c == '0' {
						fracPat = append(fracPat, c)
					}
				}
			}
			for len(fp) > 0 && fp[len(fp)-1] == '0' && len(fp) <= len(fracPat) && fracPat[len(fp)-1] == '9' {
				fp = fp[:len(fp)-1]
			}
		}
		res += "." + fp
	}
	sign := " "
	if neg {
		sign = "-"
	}
	switch {
	case strings.Contains(t, "PR"):
		if neg {
			return "<" + strings.TrimLeft(res, " ") + ">"
		}
		return res + " "
	case strings.Contains(t, "MI"):
		if !neg {
			sign = " "
		}
		return res + sign
	case strings.HasPrefix(t, "S"):
		if !neg {
			sign = "+"
		}
	}
	if fm {
		if neg {
			return "-" + strings.TrimLeft(res, " ")
		}
		return strings.TrimLeft(res, " ")
	}
	// The sign takes the position just before the first digit.
	trimmed := strings.TrimLeft(res, " ")
	return strings.Repeat(" ", len(res)-len(trimmed)) + sign + trimmed
}

// parseWithTemplate parses s with a to_timestamp/to_date template and
// returns wall-clock micros.
func parseWithTemplate(s, tmpl string) (int64, error) {
	// PostgreSQL's fields start at zero, and a zero month or day is one
	// not given: year 0 is 1 BC, month and day 1.
	y, mo, d, h, mi, sec, us := 0, 0, 0, 0, 0, 0, 0
	pm, hasAMPM := false, false
	si := 0
	readNum := func(max int) (int, error) {
		for si < len(s) && s[si] == ' ' {
			si++
		}
		j := si
		for j < len(s) && j-si < max && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == si {
			return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", s[si:], tmpl)
		}
		n, _ := strconv.Atoi(s[si:j])
		si = j
		return n, nil
	}
	var err error
	for ti := 0; ti < len(tmpl); {
		if strings.HasPrefix(tmpl[ti:], "FM") {
			ti += 2
			continue
		}
		pat, n := matchPattern(tmpl[ti:])
		if pat == "" {
			ti++
			if si < len(s) && !(s[si] >= '0' && s[si] <= '9') {
				si++
			}
			continue
		}
		ti += n
		switch pat {
		case "YYYY":
			y, err = readNum(4)
		case "YY":
			y, err = readNum(2)
			y += 2000
			if y >= 2070 {
				y -= 100
			}
		case "MM":
			mo, err = readNum(2)
		case "DD":
			d, err = readNum(2)
		case "HH24":
			h, err = readNum(2)
		case "HH", "HH12":
			h, err = readNum(2)
		case "MI":
			mi, err = readNum(2)
		case "SS":
			sec, err = readNum(2)
		case "MS":
			var ms int
			ms, err = readNum(3)
			us = ms * 1000
		case "US":
			us, err = readNum(6)
		case "AM", "PM", "am", "pm", "A.M.", "P.M.":
			hasAMPM = true
			if si+2 <= len(s) {
				pm = strings.EqualFold(s[si:si+1], "p")
				si += len(pat)
			}
		case "MON", "Mon", "mon", "MONTH", "Month", "month":
			found := false
			for m := time.January; m <= time.December; m++ {
				name := m.String()
				if len(pat) == 3 {
					name = name[:3]
				}
				if si+len(name) <= len(s) && strings.EqualFold(s[si:si+len(name)], name) {
					mo, si, found = int(m), si+len(name), true
					break
				}
			}
			if !found {
				return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", s[si:], pat)
			}
		}
		if err != nil {
			return 0, err
		}
	}
	if hasAMPM {
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
	}
	if y == 0 {
		y = -1
	}
	if mo == 0 {
		mo = 1
	}
	if d == 0 {
		d = 1
	}
	// PostgreSQL's do_to_timestamp checks the fields with the input in
	// its message.
	if mo > 12 || d > 31 || h >= 24 || mi >= 60 || sec >= 60 {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	day, err := makeDate(int64(y), int64(mo), int64(d))
	if err != nil {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	return day*MicrosPerDay + int64(h)*3600e6 + int64(mi)*60e6 + int64(sec)*1e6 + int64(us), nil
}

// tocharOverloads lists to_char and to_number (docs §9.8).
func tocharOverloads() []*Overload {
	var os []*Overload
	toCharImpl := func(args []types.T, _ types.T) (Impl, bool) {
		t := args[0]
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			switch t.ID {
			case types.Timestamp, types.Timestamptz:
				w := d[0].I
				f := tmFields{}
				if t.ID == types.Timestamptz {
					w = tstzToTS(d[0].I, ctx.loc())
					f.zone, f.offsetSecs = time.UnixMicro(d[0].I).In(ctx.loc()).Zone()
				}
				if IsInfinite(w) {
					return types.NullDatum, nil
				}
				f.t = wallTime(w)
				f.us = w - FloorDiv64(w, 1e6)*1e6
				return dText(formatDateTime(d[1].S, f))
			case types.Interval:
				iv := d[0].Iv
				tod := iv.Micros % MicrosPerDay
				f := tmFields{isInterval: true, iv: iv,
					t:  time.Date(int(iv.Months/12), time.Month(iv.Months%12), int(iv.Days), 0, 0, 0, 0, time.UTC).Add(time.Duration(tod) * time.Microsecond),
					us: iv.Micros % 1000000}
				return dText(formatDateTime(d[1].S, f))
			case types.Numeric:
				f, _ := d[0].D.Float64()
				return dText(formatNumber(d[1].S, f, d[0].D.Text('f')))
			case types.Float4, types.Float8:
				return dText(formatNumber(d[1].S, d[0].F, ""))
			}
			return dText(formatNumber(d[1].S, float64(d[0].I), strconv.FormatInt(d[0].I, 10)))
		}}, true
	}
	os = append(os, fn("to_char", toCharImpl, tText, tTS, tText), fn("to_char", toCharImpl, tText, tTSTZ, tText),
		fn("to_char", toCharImpl, tText, tIv, tText), fn("to_char", toCharImpl, tText, tI4, tText),
		fn("to_char", toCharImpl, tText, tI8, tText), fn("to_char", toCharImpl, tText, tNum, tText),
		fn("to_char", toCharImpl, tText, tF4, tText), fn("to_char", toCharImpl, tText, tF8, tText))
	toNumberImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		var b strings.Builder
		for _, r := range d[0].S {
			if r >= '0' && r <= '9' || r == '.' || r == '-' {
				b.WriteRune(r)
			}
		}
		x, _, err := new(apd.Decimal).SetString(b.String())
		if err != nil {
			return types.NullDatum, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \" \"")
		}
		return types.DDecimal(x), nil
	})
	os = append(os, fn("to_number", toNumberImpl, tNum, tText, tText))
	return os
}
