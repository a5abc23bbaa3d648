package functions

import (
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The jsonpath item method .datetime() and .datetime(template)
// (PostgreSQL's executeDateTimeMethod and parse_datetime). A template is
// read as to_timestamp reads one in its standard mode: separators and
// quoted characters must match the input exactly, nothing may be left
// over on either side, and the fields the template has decide the type
// of the value (date, time, timetz, timestamp or timestamptz). Without a
// template the ISO formats of jpISOFormats are tried in turn.
//
// The values compare with one another inside filters. Comparing a value
// with a time zone against one without needs the session's time zone,
// which only the *_tz functions may use: the others raise 0A000.

// jpDTKind is the type of a jsonpath datetime value.
type jpDTKind uint8

const (
	jpDate jpDTKind = iota
	jpTime
	jpTimetz
	jpTimestamp
	jpTimestamptz
)

// jpDatetime is a datetime item of a jsonpath evaluation (jbvDatetime).
// v is days since 1970-01-01 for a date, microseconds since midnight for
// a time or timetz (the local time), wall-clock microseconds since
// 1970-01-01 for a timestamp and UTC microseconds for a timestamptz; tz
// is the offset east of UTC, in seconds, a timetz or timestamptz was
// read with, which its text keeps.
type jpDatetime struct {
	kind jpDTKind
	v    int64
	tz   int
}

// typeName is .type()'s answer for d.
func (d jpDatetime) typeName() string {
	return [...]string{"date", "time without time zone", "time with time zone",
		"timestamp without time zone", "timestamp with time zone"}[d.kind]
}

// xsdOffset writes a zone offset as JSON output does: +hh:mm, with
// seconds when there are any.
func xsdOffset(b []byte, off int) []byte {
	if off < 0 {
		b = append(b, '-')
		off = -off
	} else {
		b = append(b, '+')
	}
	b = append(b, pad2(off/3600)...)
	b = append(b, ':')
	b = append(b, pad2(off/60%60)...)
	if off%60 != 0 {
		b = append(b, ':')
		b = append(b, pad2(off%60)...)
	}
	return b
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// text is d's text in a jsonb string (JsonEncodeDateTime): ISO 8601 with
// a T between date and time and the offset it was read with.
func (d jpDatetime) text() string {
	xsdTS := func(wall int64) string {
		s := types.FormatTimestamp(wall)
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		return s
	}
	switch d.kind {
	case jpDate:
		return types.FormatDate(d.v)
	case jpTime:
		return types.FormatTime(d.v)
	case jpTimetz:
		return string(xsdOffset([]byte(types.FormatTime(d.v)), d.tz))
	case jpTimestamp:
		return xsdTS(d.v)
	}
	s := xsdTS(d.v + int64(d.tz)*1e6)
	bc := strings.HasSuffix(s, " BC")
	s = strings.TrimSuffix(s, " BC")
	s = string(xsdOffset([]byte(s), d.tz))
	if bc {
		s += " BC"
	}
	return s
}

// jpISOFormats are the formats .datetime() without a template tries, in
// PostgreSQL's order.
var jpISOFormats = []string{
	"yyyy-mm-dd",
	"HH24:MI:SS.USTZH:TZM",
	"HH24:MI:SS.USTZH",
	"HH24:MI:SSTZH:TZM",
	"HH24:MI:SSTZH",
	"HH24:MI:SS.US",
	"HH24:MI:SS",
	"yyyy-mm-dd HH24:MI:SS.USTZH:TZM",
	"yyyy-mm-dd HH24:MI:SS.USTZH",
	"yyyy-mm-dd HH24:MI:SSTZH:TZM",
	"yyyy-mm-dd HH24:MI:SSTZH",
	`yyyy-mm-dd"T"HH24:MI:SS.USTZH:TZM`,
	`yyyy-mm-dd"T"HH24:MI:SS.USTZH`,
	`yyyy-mm-dd"T"HH24:MI:SSTZH:TZM`,
	`yyyy-mm-dd"T"HH24:MI:SSTZH`,
	"yyyy-mm-dd HH24:MI:SS.US",
	"yyyy-mm-dd HH24:MI:SS",
	`yyyy-mm-dd"T"HH24:MI:SS.US`,
	`yyyy-mm-dd"T"HH24:MI:SS`,
}

// jpISONodes are jpISOFormats parsed.
var jpISONodes = func() [][]dtNode {
	out := make([][]dtNode, len(jpISOFormats))
	for i, f := range jpISOFormats {
		nodes, err := parseStdTemplate(f)
		if err != nil {
			panic(err)
		}
		out[i] = nodes
	}
	return out
}()

// jpDatetimeMethod is .datetime(): s read with tmpl, or with the first
// ISO format that fits when hasTmpl is false. Errors of reading the
// input are soft (silent suppresses them); a template that is not valid
// is not.
func jpDatetimeMethod(s, tmpl string, hasTmpl bool) (jpDatetime, error) {
	if hasTmpl {
		nodes, err := parseStdTemplate(tmpl)
		if err != nil {
			return jpDatetime{}, err
		}
		d, err := parseStdDatetime(s, nodes)
		if err != nil {
			return jpDatetime{}, &softJPError{err}
		}
		return d, nil
	}
	for _, nodes := range jpISONodes {
		if d, err := parseStdDatetime(s, nodes); err == nil {
			return d, nil
		}
	}
	return jpDatetime{}, &softJPError{pgerr.New(pgerr.InvalidArgumentForSQLJSONDatetime,
		"datetime format is not recognized: \"%s\"", s).
		WithHint("Use a datetime template argument to specify the input data format.")}
}

// dtNodeKind is the kind of a node of a standard-mode template.
type dtNodeKind uint8

const (
	dtAction dtNodeKind = iota
	dtSeparator
	dtChar // a quoted character
)

// dtNode is a node of a standard-mode template: a field (key, its name
// as written), a separator or a quoted character.
type dtNode struct {
	kind dtNodeKind
	key  string // canonical upper-case field name
	name string // the field's name as the template spells it
	ch   string
	fm   bool
	th   bool
}

// dtKeyword is a template field of to_timestamp.
type dtKeyword struct {
	upper, lower string
	digit        bool // the field reads digits (is_digit)
}

// dtKeywords are the fields, longest first within a leading letter, in
// their upper-case and lower-case spellings (Month, Mon, Day and Dy also
// have a capitalized one).
var dtKeywords = []dtKeyword{
	{"A.D.", "a.d.", false}, {"A.M.", "a.m.", false}, {"AD", "ad", false}, {"AM", "am", false},
	{"B.C.", "b.c.", false}, {"BC", "bc", false},
	{"CC", "cc", true},
	{"DAY", "day", false}, {"DDD", "ddd", true}, {"DD", "dd", true}, {"DY", "dy", false}, {"D", "d", true},
	{"FF1", "ff1", true}, {"FF2", "ff2", true}, {"FF3", "ff3", true}, {"FF4", "ff4", true}, {"FF5", "ff5", true}, {"FF6", "ff6", true},
	{"FX", "fx", false},
	{"HH24", "hh24", true}, {"HH12", "hh12", true}, {"HH", "hh", true},
	{"IDDD", "iddd", true}, {"ID", "id", true}, {"IW", "iw", true}, {"IYYY", "iyyy", true}, {"IYY", "iyy", true}, {"IY", "iy", true}, {"I", "i", true},
	{"J", "j", true},
	{"MI", "mi", true}, {"MM", "mm", true}, {"MONTH", "month", false}, {"MON", "mon", false}, {"MS", "ms", true},
	{"OF", "of", false},
	{"P.M.", "p.m.", false}, {"PM", "pm", false},
	{"Q", "q", true},
	{"RM", "rm", false},
	{"SSSSS", "sssss", true}, {"SSSS", "ssss", true}, {"SS", "ss", true},
	{"TZH", "tzh", false}, {"TZM", "tzm", true}, {"TZ", "tz", false},
	{"US", "us", true},
	{"WW", "ww", true}, {"W", "w", true},
	{"Y,YYY", "y,yyy", true}, {"YYYY", "yyyy", true}, {"YYY", "yyy", true}, {"YY", "yy", true}, {"Y", "y", true},
}

var dtDigitKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range dtKeywords {
		m[k.upper] = k.digit
	}
	return m
}()

// matchDTKeyword returns the field s starts with and its spelling.
func matchDTKeyword(s string) (key, name string) {
	for _, k := range dtKeywords {
		for _, sp := range []string{k.upper, k.lower} {
			if strings.HasPrefix(s, sp) {
				return k.upper, sp
			}
		}
		switch k.upper {
		case "MONTH", "MON", "DAY", "DY":
			sp := k.upper[:1] + k.lower[1:]
			if strings.HasPrefix(s, sp) {
				return k.upper, sp
			}
		}
	}
	return "", ""
}

// parseStdTemplate splits a template in standard mode (parse_format with
// STD_FLAG): fields, the separators - . / , ' : ; and space, and double
// quoted characters; anything else is 22007.
func parseStdTemplate(tmpl string) ([]dtNode, error) {
	var nodes []dtNode
	for i := 0; i < len(tmpl); {
		fm := false
		if strings.HasPrefix(tmpl[i:], "FM") || strings.HasPrefix(tmpl[i:], "fm") {
			fm = true
			i += 2
			if i >= len(tmpl) {
				break
			}
		}
		if key, name := matchDTKeyword(tmpl[i:]); key != "" {
			i += len(name)
			th := false
			if strings.HasPrefix(tmpl[i:], "TH") || strings.HasPrefix(tmpl[i:], "th") {
				th = true
				i += 2
			}
			nodes = append(nodes, dtNode{kind: dtAction, key: key, name: name, fm: fm, th: th})
			continue
		}
		c := tmpl[i]
		if c == '"' {
			i++
			for i < len(tmpl) {
				if tmpl[i] == '"' {
					i++
					break
				}
				if tmpl[i] == '\\' && i+1 < len(tmpl) {
					i++
				}
				n := utf8Len(tmpl[i:])
				nodes = append(nodes, dtNode{kind: dtChar, ch: tmpl[i : i+n]})
				i += n
			}
			continue
		}
		if !strings.ContainsRune("-./,':; ", rune(c)) {
			return nil, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid datetime format separator: \"%s\"", tmpl[i:i+utf8Len(tmpl[i:])])
		}
		nodes = append(nodes, dtNode{kind: dtSeparator, ch: tmpl[i : i+1]})
		i++
	}
	return nodes, nil
}

func utf8Len(s string) int {
	for n := 1; n < len(s); n++ {
		if s[n]&0xC0 != 0x80 {
			return n
		}
	}
	return len(s)
}

// dtFields are the fields a standard-mode parse has read (TmFromChar).
type dtFields struct {
	year, yysz         int
	mm, dd, ddd        int
	hh, mi, ss         int
	ms, us, ff         int
	pm, clock12        bool
	tzsign, tzh, tzm   int
	set                map[string]int
	dated, timed, zone bool
}

// setField is from_char_set_int: a field read twice must read the same.
func (f *dtFields) setField(dest *int, key string, v int) error {
	if old, ok := f.set[key]; ok && old != v {
		return pgerr.New(pgerr.InvalidDatetimeFormat, "conflicting values for \"%s\" field in formatting string", key).
			WithDetail("This value contradicts a previous setting for the same field type.")
	}
	f.set[key] = v
	*dest = v
	return nil
}

var (
	dtMonths     = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dtDays       = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	dtAmPm       = []string{"am", "pm", "AM", "PM"}
	dtAmPmLong   = []string{"a.m.", "p.m.", "A.M.", "P.M."}
	dtDateFields = map[string]bool{"A.D.": true, "B.C.": true, "AD": true, "BC": true, "Y,YYY": true, "YYYY": true, "YYY": true, "YY": true, "Y": true,
		"IYYY": true, "IYY": true, "IY": true, "I": true, "RM": true, "MONTH": true, "MON": true, "MM": true, "DAY": true, "DY": true,
		"DDD": true, "IDDD": true, "DD": true, "D": true, "ID": true, "WW": true, "Q": true, "CC": true, "J": true, "W": true, "IW": true}
	dtTimeFields = map[string]bool{"FF1": true, "FF2": true, "FF3": true, "FF4": true, "FF5": true, "FF6": true, "HH24": true, "HH12": true,
		"HH": true, "MI": true, "SS": true, "MS": true, "US": true, "SSSS": true, "SSSSS": true, "A.M.": true, "P.M.": true, "AM": true, "PM": true}
)

// parseStdDatetime reads s with nodes in standard mode (do_to_timestamp
// with std, then parse_datetime).
func parseStdDatetime(s string, nodes []dtNode) (jpDatetime, error) {
	f := &dtFields{set: map[string]int{}}
	for _, n := range nodes {
		if n.kind != dtAction {
			continue
		}
		switch {
		case dtDateFields[n.key]:
			f.dated = true
		case dtTimeFields[n.key]:
			f.timed = true
		case n.key == "TZH" || n.key == "TZM" || n.key == "TZ" || n.key == "OF":
			f.zone = true
		}
	}
	si, ni := 0, 0
	// parseInt is from_char_parse_int_len: digits after spaces, as many as
	// there are when the field is in fill mode or no digits follow it in
	// the template, else exactly width characters.
	parseInt := func(n dtNode, width int) (int, int, error) {
		init := si
		for si < len(s) && isSpace(s[si]) {
			si++
		}
		copyEnd := min(si+width, len(s))
		cp := s[si:copyEnd]
		var v int64
		var used int
		overflow := false
		if n.fm || n.th || dtNextIsSeparator(nodes, ni) {
			j := si
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k == j {
				si = init
			} else {
				v, overflow = parseDigits(s[j:k])
				if s[si] == '-' {
					v = -v
				}
				si = k
			}
		} else {
			if len(cp) < width {
				return 0, 0, dtTooShort(n, width, fmtDetail("only %d remain", len(cp)))
			}
			j := 0
			if j < len(cp) && (cp[j] == '+' || cp[j] == '-') {
				j++
			}
			k := j
			for k < len(cp) && cp[k] >= '0' && cp[k] <= '9' {
				k++
			}
			if k > j {
				used = k
				v, overflow = parseDigits(cp[j:k])
				if cp[0] == '-' {
					v = -v
				}
				if used < width {
					return 0, 0, dtTooShort(n, width, fmtDetail("only %d could be parsed", used))
				}
				si += used
			}
		}
		if si == init {
			return 0, 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", cp, n.name).
				WithDetail("Value must be an integer.")
		}
		if overflow || v < -2147483648 || v > 2147483647 {
			return 0, 0, pgerr.New(pgerr.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", n.name).
				WithDetail("Value must be in the range -2147483648 to 2147483647.")
		}
		return int(v), si - init, nil
	}
	seq := func(n dtNode, words []string) (int, error) {
		for i, w := range words {
			if len(s)-si >= len(w) && strings.EqualFold(s[si:si+len(w)], w) {
				si += len(w)
				return i, nil
			}
		}
		// The excerpt ends at the next space.
		rest := s[si:]
		if i := strings.IndexFunc(rest, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }); i >= 0 {
			rest = rest[:i]
		}
		return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", rest, n.name).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	for ; ni < len(nodes) && si < len(s); ni++ {
		n := nodes[ni]
		switch n.kind {
		case dtSeparator:
			if s[si] != n.ch[0] {
				return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "unmatched format separator \"%s\"", n.ch)
			}
			si++
			continue
		case dtChar:
			l := utf8Len(s[si:])
			if s[si:si+l] != n.ch {
				return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "unmatched format character \"%s\"", n.ch)
			}
			si += l
			continue
		}
		var err error
		var v, l int
		switch n.key {
		case "FX":
		case "A.M.", "P.M.":
			if v, err = seq(n, dtAmPmLong); err == nil {
				err = f.setField(new(int), "pm", v%2)
				f.pm, f.clock12 = v%2 == 1, true
			}
		case "AM", "PM":
			if v, err = seq(n, dtAmPm); err == nil {
				err = f.setField(new(int), "pm", v%2)
				f.pm, f.clock12 = v%2 == 1, true
			}
		case "HH", "HH12":
			if v, _, err = parseInt(n, 2); err == nil {
				err = f.setField(&f.hh, "hh", v)
				f.clock12 = true
			}
		case "HH24":
			if v, _, err = parseInt(n, 2); err == nil {
				err = f.setField(&f.hh, "hh", v)
			}
		case "MI":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.mi, "mi", v)
			}
		case "SS":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.ss, "ss", v)
			}
		case "MS":
			if v, l, err = parseInt(n, 3); err == nil {
				err = f.setField(&f.ms, "ms", v)
				// 25 is 0.25 and 250 is 0.25 too; 025 is 0.025.
				switch l {
				case 1:
					f.ms *= 100
				case 2:
					f.ms *= 10
				}
			}
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "US":
			width := 6
			if n.key != "US" {
				f.ff = int(n.key[2] - '0')
				width = f.ff
			}
			if v, l, err = parseInt(n, width); err == nil {
				err = f.setField(&f.us, "us", v)
				for ; l < 6; l++ {
					f.us *= 10
				}
			}
		case "TZH":
			if c := s[si]; c == '+' || c == '-' || c == ' ' {
				f.tzsign = 1
				if c == '-' {
					f.tzsign = -1
				}
				si++
			} else {
				f.tzsign = 1
			}
			if v, _, err = parseInt(n, 2); err == nil {
				f.tzh = v
			}
		case "TZM":
			if f.tzsign == 0 {
				f.tzsign = 1
			}
			if v, _, err = parseInt(n, 2); err == nil {
				f.tzm = v
			}
		case "MONTH", "MON":
			words := dtMonths
			if n.key == "MON" {
				words = abbrev(dtMonths)
			}
			if v, err = seq(n, words); err == nil {
				err = f.setField(&f.mm, "mm", v+1)
			}
		case "DAY", "DY":
			words := dtDays
			if n.key == "DY" {
				words = abbrev(dtDays)
			}
			_, err = seq(n, words)
		case "MM":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.mm, "mm", v)
			}
		case "DD":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.dd, "dd", v)
			}
		case "DDD":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.ddd, "ddd", v)
			}
		case "D":
			_, _, err = parseInt(n, len(n.name))
		case "YYYY":
			if v, _, err = parseInt(n, len(n.name)); err == nil {
				err = f.setField(&f.year, "year", v)
				f.yysz = 4
			}
		case "YYY", "YY", "Y":
			if v, l, err = parseInt(n, len(n.name)); err == nil {
				if l < 4 {
					v = adjustPartialYear(v)
				}
				err = f.setField(&f.year, "year", v)
				f.yysz = len(n.key)
			}
		case "TZ", "OF":
			err = pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.name)
		default:
			err = pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is not supported in jsonpath datetime templates", n.name)
		}
		if err != nil {
			return jpDatetime{}, err
		}
	}
	if ni < len(nodes) {
		return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "input string is too short for datetime format")
	}
	for si < len(s) && isSpace(s[si]) {
		si++
	}
	if si < len(s) {
		return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "trailing characters remain in input string after datetime format")
	}
	return f.value(s)
}

func abbrev(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w[:3]
	}
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func parseDigits(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err != nil
}

func fmtDetail(format string, n int) string {
	return strings.Replace(format, "%d", strconv.Itoa(n), 1)
}

func dtTooShort(n dtNode, width int, rest string) error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, "source string too short for \"%s\" formatting field", n.name).
		WithDetail("Field requires %d characters, but %s.", width, rest).
		WithHint("If your source string is not fixed-width, try using the \"FM\" modifier.")
}

// dtNextIsSeparator is is_next_separator: whether what follows node i
// of the template cannot be a digit.
func dtNextIsSeparator(nodes []dtNode, i int) bool {
	if i+1 >= len(nodes) {
		return true
	}
	n := nodes[i+1]
	if n.kind == dtAction {
		return !dtDigitKeys[n.key]
	}
	return !(len(n.ch) == 1 && n.ch[0] >= '0' && n.ch[0] <= '9')
}

// adjustPartialYear is adjust_partial_year_to_2020.
func adjustPartialYear(y int) int {
	switch {
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	case y < 520:
		return y + 2000
	case y < 1000:
		return y + 1000
	}
	return y
}

// value checks the fields read from s and builds the value of the type
// the template's fields select (parse_datetime).
func (f *dtFields) value(s string) (jpDatetime, error) {
	outOfRange := func() error {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	hh := f.hh
	if f.clock12 {
		if hh < 1 || hh > 12 {
			return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hh).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if f.pm && hh < 12 {
			hh += 12
		} else if !f.pm && hh == 12 {
			hh = 0
		}
	}
	year, mon, day := f.year, f.mm, f.dd
	if _, ok := f.set["mm"]; !ok {
		mon = 1
	}
	if _, ok := f.set["dd"]; !ok {
		day = 1
	}
	if _, ok := f.set["ddd"]; ok && f.ddd > 0 {
		if f.ddd > 366 || (f.ddd == 366 && !types.IsLeapYear(year)) {
			return jpDatetime{}, outOfRange()
		}
		days := types.DateFromYMD(year, 1, 1) + int64(f.ddd-1)
		year, mon, day = types.YMDFromDate(days)
	}
	if f.dated {
		if mon < 1 || mon > 12 || day < 1 || day > 31 || day > types.DaysInMonth(year, mon) {
			return jpDatetime{}, outOfRange()
		}
	}
	us := int64(f.ms)*1000 + int64(f.us)
	if hh < 0 || hh >= 24 || f.mi < 0 || f.mi >= 60 || f.ss < 0 || f.ss >= 60 || us < 0 || us >= 1e6 {
		return jpDatetime{}, outOfRange()
	}
	tz, hasTZ := 0, f.tzsign != 0
	if hasTZ {
		if f.tzh < 0 || f.tzh > 15 || f.tzm < 0 || f.tzm >= 60 {
			return jpDatetime{}, pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", s)
		}
		tz = f.tzsign * (f.tzh*3600 + f.tzm*60)
	}
	tod := int64(hh)*3600e6 + int64(f.mi)*60e6 + int64(f.ss)*1e6 + us
	round := func(v int64) int64 {
		if f.ff == 0 || f.ff >= 6 {
			return v
		}
		scale := int64(1)
		for i := f.ff; i < 6; i++ {
			scale *= 10
		}
		if v >= 0 {
			return (v + scale/2) / scale * scale
		}
		return -((-v + scale/2) / scale * scale)
	}
	switch {
	case f.dated && f.timed && f.zone:
		wall, ok := types.JoinTimestamp(types.TimeParts{Year: year, Month: mon, Day: day})
		u := wall + tod - int64(tz)*1e6
		if !ok || !types.TimestampInRange(round(u)) {
			return jpDatetime{}, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamptz out of range")
		}
		return jpDatetime{kind: jpTimestamptz, v: round(u), tz: tz}, nil
	case f.dated && f.timed:
		wall, ok := types.JoinTimestamp(types.TimeParts{Year: year, Month: mon, Day: day})
		if !ok || !types.TimestampInRange(round(wall+tod)) {
			return jpDatetime{}, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return jpDatetime{kind: jpTimestamp, v: round(wall + tod)}, nil
	case f.dated && f.zone:
		return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "datetime format is zoned but not timed")
	case f.dated:
		days := types.DateFromYMD(year, mon, day)
		if !types.DateInRange(days) {
			return jpDatetime{}, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
		}
		return jpDatetime{kind: jpDate, v: days}, nil
	case f.timed && f.zone:
		return jpDatetime{kind: jpTimetz, v: round(tod), tz: tz}, nil
	case f.timed:
		return jpDatetime{kind: jpTime, v: round(tod)}, nil
	}
	return jpDatetime{}, pgerr.New(pgerr.InvalidDatetimeFormat, "datetime format is not dated and not timed")
}

// jpCompareDatetime is compareDatetime: the order of a and b, after
// converting the one of them that lacks a time zone when the other has
// one, which needs useTz (0A000 otherwise). uncomparable is true for a
// date or timestamp against a time.
func jpCompareDatetime(a, b jpDatetime, useTz bool, loc *time.Location, now int64) (cmp int, uncomparable bool, err error) {
	noTz := func(from, to string) error {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot convert value from %s to %s without time zone usage", from, to).
			WithHint("Use *_tz() function for time zone support.")
	}
	isTime := func(k jpDTKind) bool { return k == jpTime || k == jpTimetz }
	if isTime(a.kind) != isTime(b.kind) {
		return 0, true, nil
	}
	c := func(x, y int64) int {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	if isTime(a.kind) {
		if a.kind == jpTime && b.kind == jpTime {
			return c(a.v, b.v), false, nil
		}
		if a.kind != b.kind && !useTz {
			return 0, false, noTz("time", "timetz")
		}
		// time_timetz: the session zone's offset today.
		toTz := func(d jpDatetime) jpDatetime {
			if d.kind == jpTime {
				return jpDatetime{kind: jpTimetz, v: d.v, tz: types.ZoneOffset(now, loc)}
			}
			return d
		}
		a, b = toTz(a), toTz(b)
		if r := c(a.v-int64(a.tz)*1e6, b.v-int64(b.tz)*1e6); r != 0 {
			return r, false, nil
		}
		return c(int64(-a.tz), int64(-b.tz)), false, nil
	}
	// Dates, timestamps and timestamptzs as microseconds: wall clock
	// unless one side has a zone, then UTC.
	wall := func(d jpDatetime) int64 {
		if d.kind == jpDate {
			return d.v * MicrosPerDay
		}
		return d.v
	}
	if (a.kind == jpTimestamptz) == (b.kind == jpTimestamptz) {
		return c(wall(a), wall(b)), false, nil
	}
	utc := func(d jpDatetime) (int64, error) {
		if d.kind == jpTimestamptz {
			return d.v, nil
		}
		if !useTz {
			name := "date"
			if d.kind == jpTimestamp {
				name = "timestamp"
			}
			return 0, noTz(name, "timestamptz")
		}
		return types.LocalToUTC(wall(d), loc), nil
	}
	x, err := utc(a)
	if err != nil {
		return 0, false, err
	}
	y, err := utc(b)
	if err != nil {
		return 0, false, err
	}
	return c(x, y), false, nil
}
