package types

import (
	"encoding/binary"
	"math"
)

// The key encoding of jsonb: the parsed value, so that bytes.Compare of two
// encodings orders them as CompareJSONB (Postgres's jsonb btree order) and
// numerically equal values encode alike ('1' and '1.0', '{"a": 1}' and
// '{"a": 1.00}'). A value is a kind byte followed by its payload:
//
//	jkEmptyTop 0x01  a top-level empty array (below every other jsonb, as
//	                 in Postgres); no payload
//	jkNull     0x02  null; no payload
//	jkString   0x03  the string escaped as a string column
//	jkNumber   0x04  the number as a numeric column (by value)
//	jkBool     0x05  1 byte, 0 or 1
//	jkArray    0x06  element count (4 bytes big-endian), then each element
//	jkObject   0x07  pair count (4 bytes big-endian), then each pair in
//	                 storage order (shorter key first): the key escaped as
//	                 a string column, then the value
//	jkText     0x08  text that does not parse as JSON (never stored by
//	                 weir; kept so that any string encodes): the text
//	                 escaped as a string column
//
// Counts come before elements and pairs, as Postgres compares containers
// by count first; every part is prefix-free, so the whole is.
const (
	jkEmptyTop byte = 0x01
	jkNull     byte = 0x02
	jkString   byte = 0x03
	jkNumber   byte = 0x04
	jkBool     byte = 0x05
	jkArray    byte = 0x06
	jkObject   byte = 0x07
	jkText     byte = 0x08
)

// appendJSONBKey appends the key payload of jsonb text s.
func appendJSONBKey(buf []byte, s string) []byte {
	v, err := ParseJSONB(s)
	if err != nil {
		buf = append(buf, jkText)
		return appendEscaped(buf, s)
	}
	if v.Kind == JSONArray && len(v.Elems) == 0 {
		return append(buf, jkEmptyTop)
	}
	return appendJSONValueKey(buf, v)
}

func appendJSONValueKey(buf []byte, v *JSONValue) []byte {
	switch v.Kind {
	case JSONNull:
		return append(buf, jkNull)
	case JSONString:
		return appendEscaped(append(buf, jkString), v.Str)
	case JSONNumber:
		return appendDecimalKey(append(buf, jkNumber), v.Num)
	case JSONBool:
		if v.Bool {
			return append(buf, jkBool, 1)
		}
		return append(buf, jkBool, 0)
	case JSONArray:
		buf = binary.BigEndian.AppendUint32(append(buf, jkArray), uint32(len(v.Elems)))
		for _, e := range v.Elems {
			buf = appendJSONValueKey(buf, e)
		}
		return buf
	default:
		buf = binary.BigEndian.AppendUint32(append(buf, jkObject), uint32(len(v.Keys)))
		for i, k := range v.Keys {
			buf = appendEscaped(buf, k)
			buf = appendJSONValueKey(buf, v.Vals[i])
		}
		return buf
	}
}

// decodeJSONBKey decodes a jsonb key payload from b into the value's
// canonical text, numbers without their display scale ('1.0' decodes as 1).
func decodeJSONBKey(b []byte, t T, desc bool) (Datum, []byte, error) {
	var mask byte
	if desc {
		mask = 0xFF
	}
	if len(b) == 0 {
		return NullDatum, b, corruptKey(t, "truncated")
	}
	switch b[0] ^ mask {
	case jkEmptyTop:
		return Datum{S: "[]"}, b[1:], nil
	case jkText:
		return decodeEscaped(b[1:], t, desc)
	}
	v, rest, err := decodeJSONValueKey(b, t, desc, mask, 0)
	if err != nil {
		return NullDatum, b, err
	}
	return Datum{S: v.String()}, rest, nil
}

func decodeJSONValueKey(b []byte, t T, desc bool, mask byte, depth int) (*JSONValue, []byte, error) {
	if depth > maxJSONDepth {
		return nil, b, corruptKey(t, "nesting too deep")
	}
	if len(b) == 0 {
		return nil, b, corruptKey(t, "truncated")
	}
	kind := b[0] ^ mask
	b = b[1:]
	count := func() (int, error) {
		if len(b) < 4 {
			return 0, corruptKey(t, "truncated")
		}
		var c [4]byte
		for i := range c {
			c[i] = b[i] ^ mask
		}
		n := binary.BigEndian.Uint32(c[:])
		b = b[4:]
		// Each element takes at least one byte.
		if n > math.MaxInt32 || int(n) > len(b) {
			return 0, corruptKey(t, "bad jsonb count")
		}
		return int(n), nil
	}
	switch kind {
	case jkNull:
		return &JSONValue{Kind: JSONNull}, b, nil
	case jkString:
		d, rest, err := decodeEscaped(b, t, desc)
		if err != nil {
			return nil, b, err
		}
		return &JSONValue{Kind: JSONString, Str: d.S}, rest, nil
	case jkNumber:
		d, rest, err := decodeDecimalKey(b, t, desc)
		if err != nil {
			return nil, b, err
		}
		return &JSONValue{Kind: JSONNumber, Num: d.D}, rest, nil
	case jkBool:
		if len(b) == 0 {
			return nil, b, corruptKey(t, "truncated")
		}
		return &JSONValue{Kind: JSONBool, Bool: b[0]^mask != 0}, b[1:], nil
	case jkArray:
		n, err := count()
		if err != nil {
			return nil, b, err
		}
		v := &JSONValue{Kind: JSONArray, Elems: make([]*JSONValue, n)}
		for i := range v.Elems {
			if v.Elems[i], b, err = decodeJSONValueKey(b, t, desc, mask, depth+1); err != nil {
				return nil, b, err
			}
		}
		return v, b, nil
	case jkObject:
		n, err := count()
		if err != nil {
			return nil, b, err
		}
		v := &JSONValue{Kind: JSONObject, Keys: make([]string, n), Vals: make([]*JSONValue, n)}
		for i := range v.Keys {
			d, rest, err := decodeEscaped(b, t, desc)
			if err != nil {
				return nil, b, err
			}
			v.Keys[i] = d.S
			if v.Vals[i], b, err = decodeJSONValueKey(rest, t, desc, mask, depth+1); err != nil {
				return nil, b, err
			}
		}
		return v, b, nil
	}
	return nil, b, corruptKey(t, "bad jsonb kind")
}

// The key encoding of arrays: element by element, so that arrays equal
// under Compare ('{1.0}' and '{1}' as numeric[], jsonb[] of equal
// values) encode alike, ordered as Compare orders them (elements in
// turn, a NULL element above any value, then the shorter array first):
//
//	akElems 0x01  then per element akValue and its key column encoding
//	              (marker and payload), or akNull; then akEnd
//	akText  0x02  text that does not parse as an array of its type (never
//	              stored by weir), escaped as a string column
const (
	akElems byte = 0x01
	akText  byte = 0x02

	akEnd   byte = 0x01
	akValue byte = 0x02
	akNull  byte = 0x03
)

// appendArrayKey appends the key payload of array text s of type t.
func appendArrayKey(buf []byte, s string, t T) []byte {
	elems, err := ArrayElems(s, t, nil)
	if err != nil {
		return appendEscaped(append(buf, akText), s)
	}
	buf = append(buf, akElems)
	et := t.Elem()
	for _, e := range elems {
		if e.Null {
			buf = append(buf, akNull)
			continue
		}
		buf = AppendKey(append(buf, akValue), e, et, false)
	}
	return append(buf, akEnd)
}

// decodeArrayKey decodes an array key payload from b into the array's
// text, elements as DecodeKey returns them (numerics without their
// display scale).
func decodeArrayKey(b []byte, t T, desc bool) (Datum, []byte, error) {
	var mask byte
	if desc {
		mask = 0xFF
	}
	if len(b) == 0 {
		return NullDatum, b, corruptKey(t, "truncated")
	}
	switch b[0] ^ mask {
	case akText:
		return decodeEscaped(b[1:], t, desc)
	case akElems:
	default:
		return NullDatum, b, corruptKey(t, "bad array tag")
	}
	b = b[1:]
	et := t.Elem()
	var elems []Datum
	for {
		if len(b) == 0 {
			return NullDatum, b, corruptKey(t, "unterminated array")
		}
		tag := b[0] ^ mask
		b = b[1:]
		switch tag {
		case akEnd:
			return Datum{S: FormatArray(elems, et, nil)}, b, nil
		case akNull:
			elems = append(elems, NullDatum)
		case akValue:
			d, rest, err := DecodeKey(b, et, desc)
			if err != nil {
				return NullDatum, b, err
			}
			if d.Null {
				return NullDatum, b, corruptKey(t, "NULL array element value")
			}
			elems, b = append(elems, d), rest
		default:
			return NullDatum, b, corruptKey(t, "bad array element tag")
		}
	}
}
