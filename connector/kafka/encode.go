package kafka

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/types"
)

// SinkFormat is a sink's FORMAT (ENCODE JSON in all three).
type SinkFormat uint8

const (
	// FormatPlain writes each inserted row as a JSON object; the stream
	// must be append-only, so deletes and the U- half of updates are
	// dropped (the planner forbids them unless force_append_only). The
	// key is the JSON of the key columns when there are any, else none.
	FormatPlain SinkFormat = iota
	// FormatUpsert writes key = JSON object of the key columns, value =
	// the row, and a tombstone (nil value) for a delete; log-compacted
	// topics then keep the latest row per key.
	FormatUpsert
	// FormatDebezium writes Debezium's change envelope
	// {"before":…,"after":…,"op":"c|u|d","ts_ms":…} keyed by the key
	// columns; an update's U-/U+ pair becomes one "u" event.
	FormatDebezium
)

// Encoder turns changelog rows of a schema into Kafka records in one of
// the sink formats. It keeps the U- half of an update until its U+ arrives
// (they are adjacent, DESIGN.md §2), so one Encoder serves one stream.
//
// Values are rendered as JSON: NULL as null, booleans as true/false,
// integers, floats and numerics as JSON numbers (NaN and infinities, which
// JSON has no numbers for, as the strings Postgres prints), jsonb embedded
// as JSON, and every other type as a string in Postgres's text output
// (types.FormatText).
type Encoder struct {
	format SinkFormat
	schema types.Schema
	key    []int
	loc    *time.Location
	now    func() time.Time

	before    types.Row // the pending U- row
	beforeKey []byte
	buf       []byte
}

// NewEncoder returns an encoder for rows of schema. key lists the key
// column positions (required for FormatUpsert and FormatDebezium). loc is
// the time zone for timestamptz text (nil means UTC); now stamps
// Debezium's ts_ms (nil means time.Now). Errors: a key column out of
// range, or no key for a format that needs one.
func NewEncoder(format SinkFormat, schema types.Schema, key []int, loc *time.Location, now func() time.Time) (*Encoder, error) {
	for _, k := range key {
		if k < 0 || k >= len(schema) {
			return nil, fmt.Errorf("kafka sink: key column %d out of range", k)
		}
	}
	if format != FormatPlain && len(key) == 0 {
		return nil, errors.New("kafka sink: FORMAT UPSERT and DEBEZIUM need a primary key")
	}
	if loc == nil {
		loc = time.UTC
	}
	if now == nil {
		now = time.Now
	}
	return &Encoder{format: format, schema: schema, key: key, loc: loc, now: now}, nil
}

// Append encodes one changelog row and appends the resulting records (zero,
// one or two) to dst.
func (e *Encoder) Append(dst []Record, op types.Op, row types.Row) []Record {
	switch e.format {
	case FormatPlain:
		if !op.IsInsert() {
			return dst
		}
		var key []byte
		if len(e.key) > 0 {
			key = e.keyJSON(row)
		}
		return append(dst, Record{Key: key, Value: e.rowJSON(nil, row)})
	case FormatUpsert:
		key := e.keyJSON(row)
		switch op {
		case types.OpUpdateDelete:
			e.before, e.beforeKey = row, key
			return dst
		case types.OpUpdateInsert:
			// An update that changes the key moves the row: the old key
			// must be deleted.
			if e.beforeKey != nil && string(e.beforeKey) != string(key) {
				dst = append(dst, Record{Key: e.beforeKey})
			}
			e.before, e.beforeKey = nil, nil
			return append(dst, Record{Key: key, Value: e.rowJSON(nil, row)})
		case types.OpDelete:
			return append(dst, Record{Key: key})
		default:
			return append(dst, Record{Key: key, Value: e.rowJSON(nil, row)})
		}
	default:
		var before, after types.Row
		var code byte
		switch op {
		case types.OpUpdateDelete:
			e.before, e.beforeKey = row, e.keyJSON(row)
			return dst
		case types.OpUpdateInsert:
			before, after, code = e.before, row, 'u'
			if e.beforeKey != nil && string(e.beforeKey) != string(e.keyJSON(row)) {
				// Debezium reports a key change as a delete and a create.
				dst = append(dst, e.debezium(e.beforeKey, e.before, nil, 'd'))
				before, code = nil, 'c'
			}
			e.before, e.beforeKey = nil, nil
		case types.OpDelete:
			before, code = row, 'd'
		default:
			after, code = row, 'c'
		}
		return append(dst, e.debezium(e.keyJSON(orRow(after, before)), before, after, code))
	}
}

func orRow(a, b types.Row) types.Row {
	if a != nil {
		return a
	}
	return b
}

// AppendChunk encodes the visible rows of c.
func (e *Encoder) AppendChunk(dst []Record, c *types.Chunk) []Record {
	for i := 0; i < c.Len(); i++ {
		if c.Visible(i) {
			dst = e.Append(dst, c.Op(i), c.Row(i))
		}
	}
	return dst
}

func (e *Encoder) debezium(key []byte, before, after types.Row, op byte) Record {
	b := append([]byte(nil), `{"before":`...)
	b = e.rowJSON(b, before)
	b = append(b, `,"after":`...)
	b = e.rowJSON(b, after)
	b = append(b, `,"op":"`...)
	b = append(b, op)
	b = append(b, `","ts_ms":`...)
	b = strconv.AppendInt(b, e.now().UnixMilli(), 10)
	return Record{Key: key, Value: append(b, '}')}
}

func (e *Encoder) keyJSON(row types.Row) []byte {
	b := []byte{'{'}
	for i, k := range e.key {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, e.schema[k].Name)
		b = append(b, ':')
		b = e.appendValue(b, row[k], e.schema[k].T)
	}
	return append(b, '}')
}

// rowJSON appends row as a JSON object of the visible columns (null for a
// nil row).
func (e *Encoder) rowJSON(b []byte, row types.Row) []byte {
	if row == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	first := true
	for i, c := range e.schema {
		if c.Hidden {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, c.Name)
		b = append(b, ':')
		b = e.appendValue(b, row[i], c.T)
	}
	return append(b, '}')
}

func (e *Encoder) appendValue(b []byte, d types.Datum, t types.T) []byte {
	if d.Null {
		return append(b, "null"...)
	}
	switch t.ID {
	case types.Bool:
		return strconv.AppendBool(b, d.Bool())
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return strconv.AppendInt(b, d.I, 10)
	case types.Float4, types.Float8:
		switch {
		case math.IsNaN(d.F):
			return append(b, `"NaN"`...)
		case math.IsInf(d.F, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(d.F, -1):
			return append(b, `"-Infinity"`...)
		}
		bits := 64
		if t.ID == types.Float4 {
			bits = 32
		}
		return strconv.AppendFloat(b, d.F, 'g', -1, bits)
	case types.Numeric:
		if d.D == nil {
			return append(b, "null"...)
		}
		switch d.D.Form {
		case apd.NaN, apd.NaNSignaling:
			return append(b, `"NaN"`...)
		case apd.Infinite:
			if d.D.Negative {
				return append(b, `"-Infinity"`...)
			}
			return append(b, `"Infinity"`...)
		}
		return append(b, d.D.Text('f')...)
	case types.Jsonb, types.Json:
		return append(b, d.S...)
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Char:
		return appendJSONString(b, d.S)
	}
	return appendJSONString(b, types.FormatText(d, t, e.loc))
}

// appendJSONString appends s as a JSON string (RFC 8259 §7): quotes,
// backslashes and control characters escaped; invalid UTF-8 replaced by
// U+FFFD as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
