package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
)

// The pretty chunk form (DESIGN.md §2) is what operator tests write and
// compare. An optional header line names the column types; every other
// line is one row: its changelog op (+, -, U-, U+) then one token per
// column:
//
//	   I T
//	+  1 a
//	U- 2 b
//	U+ 2 "c d"
//	+  . e
//
// A token is "." for NULL, a double-quoted Go string literal when the text
// is empty, contains white space or quotes, or would read as NULL, and the
// value's text otherwise. Only visible rows are printed. Columns are padded
// to line up; ParseChunk ignores the amount of white space.

// prettyCode returns the header code of a type family, after RisingWave's
// pretty chunk notation.
func prettyCode(t T) string {
	switch t.ID {
	case Bool:
		return "B"
	case Int2:
		return "SI"
	case Int4:
		return "i"
	case Int8:
		return "I"
	case Float4:
		return "f"
	case Float8:
		return "F"
	case Numeric:
		return "N"
	case Varchar, Text, Name, Char, Bpchar:
		return "T"
	case Bytea:
		return "BA"
	case Date:
		return "D"
	case Time:
		return "TM"
	case Timestamp:
		return "TS"
	case Timestamptz:
		return "TZ"
	case Interval:
		return "IV"
	case Jsonb:
		return "J"
	case Json:
		return "JS"
	case Oid:
		return "O"
	case Uuid:
		return "U"
	case Jsonpath:
		return "JP"
	}
	if t.IsArray() {
		return prettyCode(t.Elem()) + "[]"
	}
	return "?"
}

// String returns c in the pretty form: a header of type codes, then one
// line per visible row.
func (c *Chunk) String() string {
	lines := make([][]string, 0, c.n+1)
	head := []string{""}
	for _, v := range c.Cols {
		head = append(head, prettyCode(v.T))
	}
	lines = append(lines, head)
	for i := 0; i < c.n; i++ {
		if !c.Visible(i) {
			continue
		}
		line := []string{c.Op(i).String()}
		for _, v := range c.Cols {
			line = append(line, prettyToken(v.Get(i), v.T))
		}
		lines = append(lines, line)
	}
	width := make([]int, len(c.Cols)+1)
	for _, l := range lines {
		for j, s := range l {
			width[j] = max(width[j], len(s))
		}
	}
	var b strings.Builder
	for _, l := range lines {
		for j, s := range l {
			if j > 0 {
				b.WriteByte(' ')
			}
			if j == len(l)-1 {
				b.WriteString(s)
			} else {
				fmt.Fprintf(&b, "%-*s", width[j], s)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func prettyToken(d Datum, t T) string {
	if d.Null {
		return "."
	}
	s := prettyFormat(d, t)
	if s == "" || s == "." || strings.ContainsAny(s, " \t\n\"") {
		return strconv.Quote(s)
	}
	return s
}

// prettyFormat formats a non-NULL value close to Postgres's text output.
// It stands in for FormatText until that is available to every package
// build; tests only rely on it round-tripping through prettyParse.
func prettyFormat(d Datum, t T) string {
	switch t.Family() {
	case FamBool:
		if d.I != 0 {
			return "t"
		}
		return "f"
	case FamFloat:
		switch {
		case math.IsNaN(d.F):
			return "NaN"
		case math.IsInf(d.F, 1):
			return "Infinity"
		case math.IsInf(d.F, -1):
			return "-Infinity"
		}
		bits := 64
		if t.ID == Float4 {
			bits = 32
		}
		return strconv.FormatFloat(d.F, 'g', -1, bits)
	case FamDecimal:
		if d.D == nil {
			return "0"
		}
		return d.D.Text('f')
	case FamInterval:
		return fmt.Sprintf("%dm%dd%dus", d.Iv.Months, d.Iv.Days, d.Iv.Micros)
	case FamString:
		return d.S
	}
	switch t.ID {
	case Date:
		return time.Unix(d.I*86400, 0).UTC().Format("2006-01-02")
	case Time:
		return time.UnixMicro(d.I).UTC().Format("15:04:05.999999")
	case Timestamp:
		return time.UnixMicro(d.I).UTC().Format("2006-01-02T15:04:05.999999")
	case Timestamptz:
		return time.UnixMicro(d.I).UTC().Format("2006-01-02T15:04:05.999999Z")
	}
	return strconv.FormatInt(d.I, 10)
}

// prettyParse is the inverse of prettyFormat.
func prettyParse(s string, t T) (Datum, error) {
	bad := func(err error) (Datum, error) {
		return NullDatum, pgerr.New(pgerr.InvalidTextRepresentation, "pretty chunk: bad %s value %q: %v", t, s, err)
	}
	switch t.Family() {
	case FamBool:
		switch s {
		case "t", "true":
			return DBool(true), nil
		case "f", "false":
			return DBool(false), nil
		}
		return bad(fmt.Errorf("want t or f"))
	case FamFloat:
		switch s {
		case "NaN":
			return DFloat(math.NaN()), nil
		case "Infinity":
			return DFloat(math.Inf(1)), nil
		case "-Infinity":
			return DFloat(math.Inf(-1)), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad(err)
		}
		return DFloat(f), nil
	case FamDecimal:
		x, _, err := apd.NewFromString(s)
		if err != nil {
			return bad(err)
		}
		return DDecimal(x), nil
	case FamInterval:
		var iv IntervalVal
		if _, err := fmt.Sscanf(s, "%dm%dd%dus", &iv.Months, &iv.Days, &iv.Micros); err != nil {
			return bad(err)
		}
		return DInterval(iv), nil
	case FamString:
		return DString(s), nil
	}
	switch t.ID {
	case Date:
		tm, err := time.Parse("2006-01-02", s)
		if err != nil {
			return bad(err)
		}
		return DInt(tm.Unix() / 86400), nil
	case Time:
		tm, err := time.Parse("15:04:05.999999", s)
		if err != nil {
			return bad(err)
		}
		return DInt(int64(tm.Hour()*3600+tm.Minute()*60+tm.Second())*1e6 + int64(tm.Nanosecond()/1000)), nil
	case Timestamp, Timestamptz:
		tm, err := time.Parse("2006-01-02T15:04:05.999999Z07:00", strings.TrimSuffix(s, "Z")+"Z")
		if err != nil {
			return bad(err)
		}
		return DInt(tm.UnixMicro()), nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return bad(err)
	}
	return DInt(i), nil
}

// ParseChunk parses the pretty form (see Chunk.String) into a chunk with
// column types ts. Blank lines and a header line (one not starting with an
// op) are skipped. Ops other than + make the chunk carry an Ops vector.
// Errors are 22P02 with the offending line.
func ParseChunk(s string, ts []T) (*Chunk, error) {
	c := NewChunk(ts, ChunkCap)
	for _, line := range strings.Split(s, "\n") {
		toks, err := splitPretty(line)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "pretty chunk: %v in line %q", err, line)
		}
		if len(toks) == 0 {
			continue
		}
		var op Op
		switch toks[0] {
		case "+":
			op = OpInsert
		case "-":
			op = OpDelete
		case "U-":
			op = OpUpdateDelete
		case "U+":
			op = OpUpdateInsert
		default:
			continue // header
		}
		if len(toks)-1 != len(ts) {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "pretty chunk: %d values for %d columns in line %q", len(toks)-1, len(ts), line)
		}
		r := make(Row, len(ts))
		for i, tok := range toks[1:] {
			if tok == "." {
				r[i] = NullDatum
				continue
			}
			if strings.HasPrefix(tok, `"`) {
				if tok, err = strconv.Unquote(tok); err != nil {
					return nil, pgerr.New(pgerr.InvalidTextRepresentation, "pretty chunk: bad quoted token in line %q", line)
				}
			}
			if r[i], err = prettyParse(tok, ts[i]); err != nil {
				return nil, err
			}
		}
		c.AppendRow(op, r)
	}
	return c, nil
}

// splitPretty splits a line into white-space separated tokens, keeping
// double-quoted Go string literals (with their quotes) as one token.
func splitPretty(line string) ([]string, error) {
	var toks []string
	i := 0
	for i < len(line) {
		switch {
		case line[i] == ' ' || line[i] == '\t' || line[i] == '\r':
			i++
		case line[i] == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated quote")
			}
			toks = append(toks, line[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
				j++
			}
			toks = append(toks, line[i:j])
			i = j
		}
	}
	return toks, nil
}

// String returns w in the pretty form operator tests share beside
// chunks: "wm COL VALUE", the value as a chunk token of w.T.
func (w Watermark) String() string {
	return "wm " + strconv.Itoa(w.Col) + " " + prettyToken(w.Val, w.T)
}

// ParseWatermark parses the pretty form of a watermark ("wm COL VALUE",
// see Watermark.String) on a stream whose columns have types ts; the
// value is read as ts[COL]. Errors are 22P02.
func ParseWatermark(line string, ts []T) (Watermark, error) {
	toks, err := splitPretty(line)
	if err != nil || len(toks) != 3 || toks[0] != "wm" {
		return Watermark{}, pgerr.New(pgerr.InvalidTextRepresentation, "pretty watermark: want \"wm COL VALUE\", got %q", line)
	}
	col, err := strconv.Atoi(toks[1])
	if err != nil || col < 0 || col >= len(ts) {
		return Watermark{}, pgerr.New(pgerr.InvalidTextRepresentation, "pretty watermark: bad column %q for %d columns", toks[1], len(ts))
	}
	tok := toks[2]
	if tok == "." {
		return Watermark{}, pgerr.New(pgerr.InvalidTextRepresentation, "pretty watermark: a watermark cannot be NULL")
	}
	if strings.HasPrefix(tok, `"`) {
		if tok, err = strconv.Unquote(tok); err != nil {
			return Watermark{}, pgerr.New(pgerr.InvalidTextRepresentation, "pretty watermark: bad quoted token in line %q", line)
		}
	}
	v, err := prettyParse(tok, ts[col])
	if err != nil {
		return Watermark{}, err
	}
	return Watermark{Col: col, T: ts[col], Val: v}, nil
}
