package types

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatText returns d as Postgres 15 prints a value of type t in text
// format (DateStyle ISO, MDY; IntervalStyle postgres; extra_float_digits 1,
// i.e. shortest round-trip floats). loc is the session TimeZone, used for
// timestamptz (nil means UTC). NULL formats as "" (callers check d.Null).
func FormatText(d Datum, t T, loc *time.Location) string {
	if d.Null {
		return ""
	}
	if t.IsEnum() {
		return FormatEnum(d, t)
	}
	switch t.ID {
	case Bool:
		if d.I != 0 {
			return "t"
		}
		return "f"
	case Int2, Int4, Int8:
		return strconv.FormatInt(d.I, 10)
	case Oid:
		return strconv.FormatUint(uint64(uint32(d.I)), 10)
	case Float4:
		return FormatFloat(d.F, 32)
	case Float8:
		return FormatFloat(d.F, 64)
	case Numeric:
		if d.D == nil {
			return "0"
		}
		return FormatNumeric(d.D)
	case Bytea:
		return FormatBytea(d.S)
	case Date:
		return FormatDate(d.I)
	case Time:
		return FormatTime(d.I)
	case Timestamp:
		return FormatTimestamp(d.I)
	case Timestamptz:
		return FormatTimestamptz(d.I, loc)
	case Interval:
		return FormatInterval(d.Iv)
	case Char:
		return formatChar(d.S)
	case TimestamptzArray:
		return formatArrayIn(d.S, t, loc)
	}
	// Text, varchar, name, unknown, jsonb and text[] are stored in their
	// output form.
	return d.S
}

// FormatFloat prints f as Postgres 12+ does with extra_float_digits > 0:
// the shortest digits that round-trip at bitSize (32 for real, 64 for
// double precision), in fixed notation when the decimal exponent is in
// [-4, 15) for double and [-4, 6) for real, otherwise as 1.5e-07 / 1e+16.
func FormatFloat(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	hi := 15
	if bitSize == 32 {
		hi = 6
	}
	if exp >= -4 && exp < hi {
		return strconv.FormatFloat(f, 'f', -1, bitSize)
	}
	return e
}

// FormatBytea prints bytes in Postgres's hex output format: \x0a0b.
func FormatBytea(b string) string {
	out := make([]byte, 2+2*len(b))
	out[0], out[1] = '\\', 'x'
	hex.Encode(out[2:], []byte(b))
	return string(out)
}

// formatChar prints a "char" value as charout does: the byte itself, or
// \ooo for bytes with the high bit set.
func formatChar(s string) string {
	if s == "" {
		return ""
	}
	c := s[0]
	if c&0x80 != 0 {
		return "\\" + string([]byte{'0' + c>>6, '0' + (c>>3)&7, '0' + c&7})
	}
	return s[:1]
}

// FormatTextArray prints a one-dimensional text array in Postgres's array
// output form: {a,"b c",NULL,""}. nulls[i] marks a NULL element (nulls may
// be nil).
func FormatTextArray(elems []string, nulls []bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if nulls != nil && nulls[i] {
			b.WriteString("NULL")
			continue
		}
		writeArrayElem(&b, e)
	}
	b.WriteByte('}')
	return b.String()
}

// writeArrayElem quotes an element as array_out does: when it is empty,
// is NULL in any case, or contains a brace, comma, quote, backslash or
// whitespace.
func writeArrayElem(b *strings.Builder, e string) {
	quote := e == "" || strings.EqualFold(e, "NULL")
	for i := 0; i < len(e) && !quote; i++ {
		switch e[i] {
		case '{', '}', ',', '"', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
			quote = true
		}
	}
	if !quote {
		b.WriteString(e)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(e); i++ {
		if e[i] == '"' || e[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(e[i])
	}
	b.WriteByte('"')
}
