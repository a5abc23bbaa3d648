package kafka

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/weirdb/weir/types"
)

// Decoder turns a Kafka record's bytes into a row of its schema. An error
// means the record is malformed: the source skips it, counts it and
// records the error text as the reason.
type Decoder interface {
	// Decode returns a fresh row with one datum per schema column.
	Decode(data []byte) (types.Row, error)
}

// JSONDecoder decodes a JSON object into a row by column name (ENCODE
// JSON). Fields that are not columns are ignored; a missing field or JSON
// null is NULL, which a NOT NULL column rejects. Values map to column types
// as follows:
//
//   - JSON strings are parsed with the column type's input function
//     (types.ParseText), as a cast from text would; for text columns they
//     are taken as is (varchar(n) checks the length).
//   - JSON numbers go to integer, float and numeric columns through the
//     same input functions (so 1.5 into an integer column is malformed,
//     as in Postgres); into timestamp and timestamptz columns a number is
//     milliseconds since the Unix epoch, the usual Kafka convention.
//   - true/false go to boolean columns.
//   - A jsonb column takes any JSON value; a text column takes a
//     non-string value as its JSON text.
//
// Anything else is malformed. Numbers are kept as their text, never
// rounded through float64.
type JSONDecoder struct {
	schema types.Schema
	loc    *time.Location
	index  map[string]int
	states sync.Pool // of *jsonState
}

// jsonState is what one Decode call needs besides the decoder: a parser
// and scratch space, pooled so that a record costs no allocation but its
// row and its strings.
type jsonState struct {
	p    fastjson.Parser
	seen []*fastjson.Value // each column's value, by position
	num  []byte            // a number's text
}

// NewJSONDecoder returns a JSON decoder for schema; loc is the time zone
// for timestamptz input without an offset (nil means UTC).
func NewJSONDecoder(schema types.Schema, loc *time.Location) *JSONDecoder {
	if loc == nil {
		loc = time.UTC
	}
	idx := make(map[string]int, len(schema))
	for i, c := range schema {
		idx[c.Name] = i
	}
	return &JSONDecoder{schema: schema, loc: loc, index: idx}
}

// Decode implements Decoder. It parses with valyala/fastjson (a pooled
// parser, no maps, no reflection) and converts each column's value
// straight from the parsed bytes. A record that is not a JSON object, or
// whose text column holds an object or array, takes the slower path of
// decodeSlow, which keeps such a value's text exactly as the record
// spells it and explains malformed JSON as encoding/json does.
func (d *JSONDecoder) Decode(data []byte) (types.Row, error) {
	row := make(types.Row, len(d.schema))
	if err := d.DecodeInto(row, data); err != nil {
		return nil, err
	}
	return row, nil
}

// DecodeInto is Decode into row, which has one datum per schema column
// (the source reader decodes a batch's records into one allocation). On
// an error row holds garbage.
func (d *JSONDecoder) DecodeInto(row types.Row, data []byte) error {
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD.
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		if err := types.CheckText(string(data)); err != nil {
			return err
		}
	}
	st, _ := d.states.Get().(*jsonState)
	if st == nil {
		st = &jsonState{seen: make([]*fastjson.Value, len(d.schema))}
	}
	defer d.states.Put(st)
	v, err := st.p.ParseBytes(data)
	if err != nil || v.Type() != fastjson.TypeObject {
		// A malformed record: encoding/json says why, in the words
		// weir.source_errors has always shown.
		return d.decodeSlow(row, data)
	}
	o, _ := v.Object()
	seen := st.seen
	clear(seen)
	o.Visit(func(key []byte, v *fastjson.Value) {
		if i, ok := d.index[string(key)]; ok {
			seen[i] = v // the last of duplicate keys wins, as in encoding/json
		}
	})
	for i, c := range d.schema {
		v := seen[i]
		if v == nil || v.Type() == fastjson.TypeNull {
			if c.NotNull {
				return fmt.Errorf("missing value for NOT NULL column %q", c.Name)
			}
			row[i] = types.NullDatum
			continue
		}
		var x types.Datum
		var err error
		switch v.Type() {
		case fastjson.TypeString:
			if c.T.ID == types.Jsonb || c.T.ID == types.Json {
				x, err = types.ParseText(string(v.MarshalTo(nil)), c.T, d.loc)
			} else {
				x, err = parseScalar(string(v.GetStringBytes()), c.T, d.loc)
			}
		case fastjson.TypeObject, fastjson.TypeArray:
			if c.T.IsString() {
				return d.decodeSlow(row, data)
			}
			x, err = d.value(v.MarshalTo(nil), c.T)
		case fastjson.TypeNumber:
			st.num = v.MarshalTo(st.num[:0])
			if n, ok := quickInt(st.num, c.T.ID); ok {
				x = types.DInt(n)
			} else {
				x, err = d.value(st.num, c.T)
			}
		default:
			x, err = d.value(v.MarshalTo(nil), c.T)
		}
		if err != nil {
			return fmt.Errorf("column %q: %v", c.Name, err)
		}
		row[i] = x
	}
	return nil
}

// quickInt reads a JSON number made of at most 18 digits (after an
// optional minus) into an integer column of type id, when it fits the
// type: the common case, which parseScalar turns into the same datum.
// Anything else (a fraction, an exponent, a value out of range) is left
// to the general path and its errors.
func quickInt(b []byte, id types.TypeID) (int64, bool) {
	if id != types.Int2 && id != types.Int4 && id != types.Int8 {
		return 0, false
	}
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	switch id {
	case types.Int2:
		return n, n >= math.MinInt16 && n <= math.MaxInt16
	case types.Int4:
		return n, n >= math.MinInt32 && n <= math.MaxInt32
	}
	return n, true
}

// decodeSlow decodes with encoding/json into row, keeping every value's
// raw text.
func (d *JSONDecoder) decodeSlow(row types.Row, data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if fields == nil {
		return errors.New("JSON value is not an object")
	}
	for i, c := range d.schema {
		raw, ok := fields[c.Name]
		if !ok || string(raw) == "null" {
			if c.NotNull {
				return fmt.Errorf("missing value for NOT NULL column %q", c.Name)
			}
			row[i] = types.NullDatum
			continue
		}
		v, err := d.value(raw, c.T)
		if err != nil {
			return fmt.Errorf("column %q: %v", c.Name, err)
		}
		row[i] = v
	}
	return nil
}

func (d *JSONDecoder) value(raw json.RawMessage, t types.T) (types.Datum, error) {
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return types.NullDatum, err
		}
		if t.ID == types.Jsonb || t.ID == types.Json {
			return types.ParseText(string(raw), t, d.loc)
		}
		return parseScalar(s, t, d.loc)
	case 't', 'f':
		switch {
		case t.ID == types.Bool:
			return types.DBool(raw[0] == 't'), nil
		case t.IsString(), t.ID == types.Jsonb, t.ID == types.Json:
			return parseScalar(string(raw), t, d.loc)
		}
		return types.NullDatum, fmt.Errorf("JSON boolean for a %s column", t)
	case '{', '[':
		switch {
		case t.ID == types.Jsonb, t.ID == types.Json:
			return types.ParseText(string(raw), t, d.loc)
		case t.IsString():
			return parseScalar(string(raw), t, d.loc)
		}
		return types.NullDatum, fmt.Errorf("JSON %s for a %s column", kindOf(raw[0]), t)
	default: // a number
		switch t.ID {
		case types.Timestamp, types.Timestamptz:
			ms, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil || ms > maxEpochMillis || ms < -maxEpochMillis {
				return types.NullDatum, fmt.Errorf("%s is not milliseconds since the epoch", raw)
			}
			return types.DInt(ms * 1000), nil
		case types.Bool:
			return types.NullDatum, fmt.Errorf("JSON number for a %s column", t)
		}
		return parseScalar(string(raw), t, d.loc)
	}
}

// maxEpochMillis keeps milliseconds*1000 inside int64.
const maxEpochMillis = 1<<63/1000 - 1

func kindOf(c byte) string {
	if c == '{' {
		return "object"
	}
	return "array"
}

// parseScalar converts text to a datum of type t. The common types are
// converted here, on the hot path of every record; the rest go through
// Postgres's input functions in types.ParseText.
func parseScalar(s string, t types.T, loc *time.Location) (types.Datum, error) {
	switch t.ID {
	case types.Text, types.Name, types.Varchar, types.Bpchar:
		// A JSON string's \u0000 or a CSV field's bytes reach here
		// unchecked; text holds neither NUL nor invalid UTF-8.
		if err := types.CheckText(s); err != nil {
			return types.NullDatum, err
		}
	}
	switch t.ID {
	case types.Text, types.Name:
		return types.DString(s), nil
	case types.Varchar:
		if t.Mod >= 4 && utf8.RuneCountInString(s) > int(t.Mod-4) {
			return types.NullDatum, fmt.Errorf("value too long for type %s", t)
		}
		return types.DString(s), nil
	case types.Int2, types.Int4, types.Int8:
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, intBits(t.ID))
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return types.NullDatum, fmt.Errorf("value %q is out of range for type %s", s, t)
			}
			return types.NullDatum, fmt.Errorf("invalid input syntax for type %s: %q", t, s)
		}
		return types.DInt(i), nil
	case types.Float8:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err == nil {
			return types.DFloat(f), nil
		}
	case types.Timestamp:
		if us, ok := quickTimestamp(s); ok {
			return types.DInt(us), nil
		}
	}
	return types.ParseText(s, t, loc)
}

// intBits is the width in bits of an integer type.
func intBits(id types.TypeID) int {
	switch id {
	case types.Int2:
		return 16
	case types.Int4:
		return 32
	}
	return 64
}

// quickTimestamp reads the common form YYYY-MM-DD HH:MM:SS[.f…] (or with
// a T) of a timestamp without time zone, the form most producers write;
// anything else (a zone, BC, special values, odd spacing) is left to
// types.ParseText, which has the same result for this form.
func quickTimestamp(s string) (int64, bool) {
	if len(s) < 19 || len(s) > 26 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var p types.TimeParts
	var ok [6]bool
	p.Year, ok[0] = num(0, 4)
	p.Month, ok[1] = num(5, 7)
	p.Day, ok[2] = num(8, 10)
	p.Hour, ok[3] = num(11, 13)
	p.Minute, ok[4] = num(14, 16)
	p.Second, ok[5] = num(17, 19)
	for _, o := range ok {
		if !o {
			return 0, false
		}
	}
	if len(s) > 19 {
		if s[19] != '.' || len(s) == 20 {
			return 0, false
		}
		f, good := num(20, len(s))
		if !good {
			return 0, false
		}
		for i := len(s) - 20; i < 6; i++ {
			f *= 10
		}
		p.Micro = f
	}
	if p.Year < 1 || p.Month < 1 || p.Month > 12 || p.Day < 1 || p.Day > 28 && p.Day > daysIn(p.Year, p.Month) ||
		p.Hour > 23 || p.Minute > 59 || p.Second > 59 {
		return 0, false
	}
	return types.JoinTimestamp(p)
}

// daysIn is the length of a month of the Gregorian calendar.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// CSVDecoder decodes one CSV line per record into the schema's columns by
// position (ENCODE CSV), with RFC 4180 quoting. An empty field is NULL,
// except in text columns where it is the empty string (encoding/csv does
// not tell a quoted empty field from an unquoted one). A wrong number of
// fields is malformed.
type CSVDecoder struct {
	schema types.Schema
	loc    *time.Location
	comma  rune
}

// NewCSVDecoder returns a CSV decoder for schema with the given delimiter
// (0 means ',').
func NewCSVDecoder(schema types.Schema, delimiter rune, loc *time.Location) *CSVDecoder {
	if delimiter == 0 {
		delimiter = ','
	}
	if loc == nil {
		loc = time.UTC
	}
	return &CSVDecoder{schema: schema, loc: loc, comma: delimiter}
}

// Decode implements Decoder.
func (d *CSVDecoder) Decode(data []byte) (types.Row, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = d.comma
	r.FieldsPerRecord = len(d.schema)
	fields, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("invalid CSV: %v", err)
	}
	if _, err := r.Read(); err == nil {
		return nil, errors.New("invalid CSV: more than one line")
	}
	row := make(types.Row, len(d.schema))
	for i, c := range d.schema {
		f := fields[i]
		if f == "" && !c.T.IsString() {
			if c.NotNull {
				return nil, fmt.Errorf("missing value for NOT NULL column %q", c.Name)
			}
			row[i] = types.NullDatum
			continue
		}
		v, err := parseScalar(f, c.T, d.loc)
		if err != nil {
			return nil, fmt.Errorf("column %q: %v", c.Name, err)
		}
		row[i] = v
	}
	return row, nil
}
