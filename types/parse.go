package types

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/weirdb/weir/internal/pgerr"
)

// ParseText parses s as a value of type t the way Postgres's input
// functions do (type_in), for casts from text, COPY and text-format
// parameters, applying t's modifier as an assignment would (varchar(n)
// errors with 22001 unless only spaces overflow; numeric(p,s) rounds and
// checks). loc is the session TimeZone (nil means UTC). Bad input is 22P02
// (or 22007/22008 for dates and times, 22003 for out-of-range numbers),
// with Postgres's message, for example `invalid input syntax for type
// integer: "x"`. Text that is not valid UTF-8 or holds a NUL is 22021
// (CheckText), whatever t is.
func ParseText(s string, t T, loc *time.Location) (Datum, error) {
	if err := CheckText(s); err != nil {
		return NullDatum, err
	}
	if t.IsEnum() {
		return ParseEnum(s, t)
	}
	switch t.ID {
	case Bool:
		b, err := ParseBool(s)
		return DBool(b), err
	case Int2:
		v, err := parseInt(s, 16, "smallint")
		return DInt(v), err
	case Int4:
		v, err := parseInt(s, 32, "integer")
		return DInt(v), err
	case Int8:
		v, err := parseInt(s, 64, "bigint")
		return DInt(v), err
	case Oid:
		return parseOid(s)
	case Float4:
		f, err := ParseFloat(s, 32)
		return DFloat(f), err
	case Float8:
		f, err := ParseFloat(s, 64)
		return DFloat(f), err
	case Numeric:
		d, err := NumericFromText(s)
		if err != nil {
			return NullDatum, err
		}
		if err := ApplyNumericTypmod(d, t.Mod); err != nil {
			return NullDatum, err
		}
		return DDecimal(d), nil
	case Varchar:
		return DString(s).withVarcharMod(t.Mod, false)
	case Bpchar:
		return DString(s).withBpcharMod(t.Mod, false)
	case Text, Unknown:
		return DString(s), nil
	case Name:
		return DString(truncateName(s)), nil
	case Char:
		return DString(charIn(s)), nil
	case Bytea:
		b, err := ParseBytea(s)
		return DString(b), err
	case Date:
		v, err := ParseDate(s, loc)
		return DInt(v), err
	case Time:
		v, err := ParseTime(s)
		if err != nil {
			return NullDatum, err
		}
		return DInt(roundMicros(v, t.Mod)), nil
	case Timestamp, Timestamptz:
		v, err := ParseTimestamp(s, t.ID == Timestamptz, loc)
		if err != nil {
			return NullDatum, err
		}
		if v != PosInfinity && v != NegInfinity {
			v = roundMicros(v, t.Mod)
		}
		return DInt(v), nil
	case Interval:
		iv, err := ParseInterval(s)
		if err != nil {
			return NullDatum, err
		}
		iv.Micros = roundMicros(iv.Micros, intervalTypmodPrecision(t.Mod))
		return DInterval(iv), nil
	case Jsonb:
		c, err := CanonicalJSONB(s)
		return DString(c), err
	case Jsonpath:
		c, err := CanonicalJSONPath(s)
		return DString(c), err
	case Uuid:
		u, err := ParseUUID(s)
		return DString(u), err
	case Json:
		// json keeps its input text exactly; it only has to be valid.
		if err := ValidateJSON(s); err != nil {
			return NullDatum, err
		}
		return DString(s), nil
	}
	if t.IsArray() {
		return parseArray(s, t, loc)
	}
	if t.ID == Record {
		return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "input of anonymous composite types is not implemented")
	}
	return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", t)
}

// withVarcharMod applies a varchar(n) modifier (n+4): explicit casts
// truncate; otherwise a value longer than n characters is an error unless
// the excess is all spaces, which are dropped (Postgres's varchar()).
func (d Datum) withVarcharMod(mod int32, explicit bool) (Datum, error) {
	if mod < 4 {
		return d, nil
	}
	n := int(mod - 4)
	if len(d.S) <= n || utf8.RuneCountInString(d.S) <= n {
		return d, nil
	}
	cut := 0
	for i := 0; i < n; i++ {
		_, size := utf8.DecodeRuneInString(d.S[cut:])
		cut += size
	}
	if !explicit && strings.Trim(d.S[cut:], " ") != "" {
		return NullDatum, pgerr.New(pgerr.StringDataRightTruncation, "value too long for type character varying(%d)", n)
	}
	return DString(d.S[:cut]), nil
}

// withBpcharMod applies a character(n) modifier (n+4): a shorter value is
// blank-padded to n characters; a longer one is truncated by an explicit
// cast and otherwise errors with 22001 unless the excess is all spaces
// (bpchar and bpcharin).
func (d Datum) withBpcharMod(mod int32, explicit bool) (Datum, error) {
	if mod < 4 {
		return d, nil
	}
	n := int(mod - 4)
	chars := utf8.RuneCountInString(d.S)
	if chars <= n {
		return DString(bpcharPad(d.S, mod)), nil
	}
	cut := 0
	for i := 0; i < n; i++ {
		_, size := utf8.DecodeRuneInString(d.S[cut:])
		cut += size
	}
	if !explicit && strings.Trim(d.S[cut:], " ") != "" {
		return NullDatum, pgerr.New(pgerr.StringDataRightTruncation, "value too long for type character(%d)", n)
	}
	return DString(d.S[:cut]), nil
}

// bpcharPad blank-pads s to the length of a character(n) modifier (n+4);
// a value at least that long, or a modifier of -1, leaves s as it is.
func bpcharPad(s string, mod int32) string {
	if mod < 4 {
		return s
	}
	if pad := int(mod-4) - utf8.RuneCountInString(s); pad > 0 {
		return s + strings.Repeat(" ", pad)
	}
	return s
}

// truncateName truncates to NAMEDATALEN-1 (63) bytes on a character boundary.
func truncateName(s string) string {
	if len(s) <= 63 {
		return s
	}
	cut := 63
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// charIn implements "char" input: the first byte, or the byte given as
// \ooo (charin).
func charIn(s string) string {
	if len(s) == 4 && s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7' {
		return string([]byte{(s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')})
	}
	if s == "" || s[0] == 0 {
		// A zero byte is the empty "char", as charout prints it.
		return ""
	}
	return s[:1]
}

// ParseBool parses boolean input as Postgres's boolin does: surrounding
// whitespace ignored, case-insensitive t/true/y/yes/on/1 and
// f/false/n/no/off/0, with any unique prefix of the words.
func ParseBool(s string) (bool, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t != "" {
		switch t[0] {
		case 't':
			if strings.HasPrefix("true", t) {
				return true, nil
			}
		case 'f':
			if strings.HasPrefix("false", t) {
				return false, nil
			}
		case 'y':
			if strings.HasPrefix("yes", t) {
				return true, nil
			}
		case 'n':
			if strings.HasPrefix("no", t) {
				return false, nil
			}
		case 'o':
			if t == "on" {
				return true, nil
			}
			if len(t) >= 2 && strings.HasPrefix("off", t) {
				return false, nil
			}
		case '1':
			if t == "1" {
				return true, nil
			}
		case '0':
			if t == "0" {
				return false, nil
			}
		}
	}
	return false, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type boolean: \"%s\"", s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseInt is Postgres 15's pg_strtoint16/32/64: optional whitespace, an
// optional sign, decimal digits, optional whitespace.
func parseInt(s string, bitSize int, typ string) (int64, error) {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	body := s[i:j]
	digits := strings.TrimLeft(body, "+-")
	if len(body)-len(digits) > 1 || digits == "" {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typ, s)
	}
	for k := 0; k < len(digits); k++ {
		if !isDigit(digits[k]) {
			return 0, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typ, s)
		}
	}
	v, err := strconv.ParseInt(body, 10, bitSize)
	if err != nil {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, typ)
	}
	return v, nil
}

// parseOid is oidin: like strtoul, so -1 is 4294967295.
func parseOid(s string) (Datum, error) {
	t := strings.TrimSpace(s)
	bad := pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type oid: \"%s\"", s)
	if t == "" {
		return NullDatum, bad
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type oid", s)
		}
		return NullDatum, bad
	}
	if v > math.MaxUint32 || v < math.MinInt32 {
		return NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type oid", s)
	}
	return DInt(int64(uint32(v))), nil
}

// ParseFloat parses real (bitSize 32) or double precision (64) input as
// float4in/float8in do: surrounding whitespace, NaN, Infinity, inf with a
// sign, decimal and exponent forms. Values beyond the type's range,
// including underflow of a non-zero value to zero, are 22003
// `"1e400" is out of range for type double precision`.
func ParseFloat(s string, bitSize int) (float64, error) {
	typ := "double precision"
	if bitSize == 32 {
		typ = "real"
	}
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "nan", "+nan", "-nan":
		return math.NaN(), nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	bad := pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typ, s)
	// Allow only what strtod accepts in decimal form.
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	nd := 0
	nonzero := false
	for ; i < len(t) && (isDigit(t[i]) || t[i] == '.'); i++ {
		if isDigit(t[i]) {
			nd++
			nonzero = nonzero || t[i] != '0'
		}
	}
	if nd == 0 || strings.Count(t, ".") > 1 {
		return 0, bad
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		ne := 0
		for ; i < len(t) && isDigit(t[i]); i++ {
			ne++
		}
		if ne == 0 {
			return 0, bad
		}
	}
	if i != len(t) {
		return 0, bad
	}
	f, err := strconv.ParseFloat(t, bitSize)
	if err != nil || (f == 0 && nonzero) {
		if ne, ok := err.(*strconv.NumError); err == nil || (ok && ne.Err == strconv.ErrRange) {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", t, typ)
		}
		return 0, bad
	}
	if bitSize == 32 {
		f = float64(float32(f))
	}
	return f, nil
}

// ParseBytea parses bytea input: the hex format \x0a0b (whitespace allowed
// between byte pairs) or the escape format, where \\ is a backslash and
// \ooo an octal byte (byteain).
func ParseBytea(s string) (string, error) {
	if strings.HasPrefix(s, `\x`) {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			c := s[i]
			if isSpace(c) {
				i++
				continue
			}
			hi, ok := hexVal(c)
			if !ok {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", rune(c))
			}
			if i+1 >= len(s) {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := hexVal(s[i+1])
			if !ok {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", rune(s[i+1]))
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return string(out), nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i += 2
			continue
		}
		if i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7' {
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
			continue
		}
		return "", pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
	}
	return string(out), nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ParseTextArray parses a one-dimensional array literal in Postgres's
// array input syntax ({a,"b c",NULL}, optional whitespace around
// elements, backslash escapes, an optional [lo:hi]= or [hi]= dimension
// prefix) into its elements; nulls[i] marks an unquoted NULL. Errors are
// 22P02 `malformed array literal: "..."` (a prefix that does not match
// the elements included), 2202E for an upper bound below the lower one,
// and 0A000 for a lower bound other than 1 or more than one dimension,
// which weir's arrays cannot hold.
func ParseTextArray(s string) (elems []string, nulls []bool, err error) {
	bad := func(detail string) error {
		return pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s).WithDetail("%s", detail)
	}
	p := strings.TrimLeft(s, " \t\n\r\v\f")
	if !strings.HasPrefix(p, "[") {
		if !strings.HasPrefix(p, "{") {
			return nil, nil, bad("Array value must start with \"{\" or dimension information.")
		}
		return parseArrayElems(s, p, bad)
	}
	lbs, ubs, rest, err := parseArrayDims(p, bad)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(rest, "=") {
		return nil, nil, bad("Missing \"=\" after array dimensions.")
	}
	rest = strings.TrimLeft(rest[1:], " \t\n\r\v\f")
	if !strings.HasPrefix(rest, "{") {
		return nil, nil, bad("Array contents must start with \"{\".")
	}
	if len(lbs) > 1 {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	}
	elems, nulls, err = parseArrayElems(s, rest, bad)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(elems)) != ubs[0]-lbs[0]+1 {
		return nil, nil, bad("Specified array dimensions do not match array contents.")
	}
	if lbs[0] != 1 {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
	}
	return elems, nulls, nil
}

// parseArrayDims parses the dimension prefix of an array literal,
// "[lo:hi]" or "[hi]" (lower bound 1) repeated, with whitespace allowed
// between the items but not inside them, as PostgreSQL 15's array_in
// reads them (numbers as C's atoi reads them), and returns the bounds
// and what follows.
func parseArrayDims(p string, bad func(string) error) (lbs, ubs []int64, rest string, err error) {
	num := func(q string) (int64, int) {
		n := 0
		for n < len(q) && (q[n] >= '0' && q[n] <= '9' || q[n] == '-' || q[n] == '+') {
			n++
		}
		return atoi(q[:n]), n
	}
	for {
		p = strings.TrimLeft(p, " \t\n\r\v\f")
		if !strings.HasPrefix(p, "[") {
			return lbs, ubs, p, nil
		}
		if len(lbs) >= 6 {
			return nil, nil, "", pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(lbs)+1, 6)
		}
		p = p[1:]
		lb, n := num(p)
		if n == 0 {
			return nil, nil, "", bad("\"[\" must introduce explicitly-specified array dimensions.")
		}
		ub := lb
		if n < len(p) && p[n] == ':' {
			p = p[n+1:]
			if ub, n = num(p); n == 0 {
				return nil, nil, "", bad("Missing array dimension value.")
			}
		} else {
			lb = 1
		}
		if n >= len(p) || p[n] != ']' {
			return nil, nil, "", bad("Missing \"]\" after array dimensions.")
		}
		p = p[n+1:]
		if ub < lb {
			return nil, nil, "", pgerr.New(pgerr.ArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		lbs, ubs = append(lbs, lb), append(ubs, ub)
	}
}

// atoi reads an optional sign and the decimal digits after it, as C's
// atoi does, stopping at anything else; it saturates at the int32 range.
func atoi(s string) int64 {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n < 1<<31 {
			n = n*10 + int64(s[i]-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}

// parseArrayElems parses the braces of array literal s, p being s from
// its opening brace.
func parseArrayElems(s, p string, bad func(string) error) (elems []string, nulls []bool, err error) {
	i := 1
	skip := func() {
		for i < len(p) && isSpace(p[i]) {
			i++
		}
	}
	skip()
	if i < len(p) && p[i] == '}' {
		i++
		if strings.TrimSpace(p[i:]) != "" {
			return nil, nil, bad("Junk after closing right brace.")
		}
		return []string{}, []bool{}, nil
	}
	for {
		skip()
		if i >= len(p) {
			return nil, nil, bad("Unexpected end of input.")
		}
		if p[i] == '{' {
			return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		var b strings.Builder
		quoted, sawAny := false, false
		trailing := 0 // unquoted trailing whitespace to drop
		for i < len(p) {
			c := p[i]
			if c == '"' {
				quoted, sawAny = true, true
				i++
				for i < len(p) && p[i] != '"' {
					if p[i] == '\\' && i+1 < len(p) {
						i++
					}
					b.WriteByte(p[i])
					i++
				}
				if i >= len(p) {
					return nil, nil, bad("Unexpected end of input.")
				}
				i++
				trailing = 0
				continue
			}
			if c == ',' || c == '}' {
				break
			}
			if c == '{' {
				return nil, nil, bad("Unexpected \"{\" character.")
			}
			if c == '\\' {
				if i+1 >= len(p) {
					return nil, nil, bad("Unexpected end of input.")
				}
				b.WriteByte(p[i+1])
				i += 2
				sawAny, quoted, trailing = true, true, 0
				continue
			}
			if isSpace(c) {
				if sawAny {
					b.WriteByte(c)
					trailing++
				}
				i++
				continue
			}
			b.WriteByte(c)
			sawAny, trailing = true, 0
			i++
		}
		if i >= len(p) {
			return nil, nil, bad("Unexpected end of input.")
		}
		e := b.String()
		e = e[:len(e)-trailing]
		if !sawAny {
			return nil, nil, bad("Unexpected \"" + string(p[i]) + "\" character.")
		}
		isNull := !quoted && strings.EqualFold(e, "NULL")
		elems = append(elems, e)
		nulls = append(nulls, isNull)
		if p[i] == '}' {
			i++
			break
		}
		i++
	}
	if strings.TrimSpace(p[i:]) != "" {
		return nil, nil, bad("Junk after closing right brace.")
	}
	return elems, nulls, nil
}
