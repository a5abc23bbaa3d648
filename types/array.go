package types

import (
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// Arrays. weir has the one-dimensional arrays of its scalar types, one
// TypeID per element type (int4[] is Int4Array, OID 1007, ...), so T stays a
// family plus a modifier. An array value is stored in Datum.S in its
// canonical Postgres output form ({1,2,NULL}, {a,"b c"}): each element is
// printed as FormatText prints the element type and quoted as array_out
// quotes it. Every array constructor (ParseText, casts, ARRAY[...],
// array_agg, binary input) produces that canonical form, so two equal arrays
// have equal strings except where the element type itself has several
// spellings of one value (numeric 1.0 and 1.00); Compare and Hash therefore
// work element-wise. timestamptz[] elements are stored in UTC (+00) and
// FormatText prints them in the session time zone. The lower bound is always 1; multidimensional arrays
// and arrays as key columns are not supported.

var (
	elemOf  [numTypeIDs]TypeID
	arrayOf [numTypeIDs]TypeID
)

func init() {
	for _, p := range [][2]TypeID{
		{TextArray, Text}, {BoolArray, Bool}, {Int2Array, Int2}, {Int4Array, Int4},
		{Int8Array, Int8}, {Float4Array, Float4}, {Float8Array, Float8},
		{NumericArray, Numeric}, {VarcharArray, Varchar}, {ByteaArray, Bytea},
		{DateArray, Date}, {TimeArray, Time}, {TimestampArray, Timestamp},
		{TimestamptzArray, Timestamptz}, {IntervalArray, Interval},
		{JsonbArray, Jsonb}, {OidArray, Oid}, {NameArray, Name}, {CharArray, Char},
		{BpcharArray, Bpchar}, {UuidArray, Uuid}, {JsonpathArray, Jsonpath},
	} {
		elemOf[p[0]] = p[1]
		arrayOf[p[1]] = p[0]
		infos[p[1]].arrOID = infos[p[0]].oid
	}
}

// IsArray reports whether t is an array type.
func (t T) IsArray() bool {
	if t.ID >= FirstEnumArrayID {
		return enumArrayOf(t.ID) != nil
	}
	return t.ID < numTypeIDs && elemOf[t.ID] != Unknown
}

// Elem returns the element type of array type t (TUnknown if t is not an
// array). An array type's Mod is its elements' modifier, as in Postgres's
// atttypmod (varchar(5)[] has Mod 9).
func (t T) Elem() T {
	if t.ID >= FirstEnumArrayID && enumArrayOf(t.ID) != nil {
		return T{t.ID - FirstEnumArrayID + FirstEnumID, t.Mod}
	}
	if t.ID >= numTypeIDs {
		return TUnknown
	}
	return T{elemOf[t.ID], t.Mod}
}

// ArrayOf returns the array type whose elements are of type elem, and false
// if weir has no such array type (arrays of arrays, unknown).
func ArrayOf(elem T) (T, bool) {
	if elem.IsEnum() {
		if e := enumOf(elem.ID); e != nil && e.arrOID.Load() != 0 {
			return T{elem.ID - FirstEnumID + FirstEnumArrayID, -1}, true
		}
		return TUnknown, false
	}
	if elem.ID >= numTypeIDs {
		return TUnknown, false
	}
	id := arrayOf[elem.ID]
	return T{id, -1}, id != Unknown
}

// ArrayElems decodes an array value of type t (canonical text form) into
// its element values. Errors are those of ParseTextArray and of the
// element type's input function.
func ArrayElems(s string, t T, loc *time.Location) ([]Datum, error) {
	if loc == nil {
		loc = time.UTC
	}
	elems, nulls, err := ParseTextArray(s)
	if err != nil {
		return nil, err
	}
	out := make([]Datum, len(elems))
	et := t.Elem()
	for i, e := range elems {
		if nulls[i] {
			out[i] = NullDatum
			continue
		}
		if et.ID == Text {
			out[i] = DString(e)
			continue
		}
		if out[i], err = ParseText(e, et, loc); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FormatArray prints element values of type elem in Postgres's array output
// form, the storage form of an array Datum.
func FormatArray(elems []Datum, elem T, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.Null {
			b.WriteString("NULL")
			continue
		}
		writeArrayElem(&b, FormatText(e, elem, loc))
	}
	b.WriteByte('}')
	return b.String()
}

// parseArray is array_in for array type t: each element is parsed with the
// element type's input function and the whole reprinted canonically.
func parseArray(s string, t T, loc *time.Location) (Datum, error) {
	elems, err := ArrayElems(s, t, loc)
	if err != nil {
		return NullDatum, err
	}
	return DString(FormatArray(elems, t.Elem(), nil)), nil
}

// castArray converts between array types element by element (Postgres's
// array_map over the element cast).
func castArray(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	elems, err := ArrayElems(d.S, from, loc)
	if err != nil {
		return NullDatum, err
	}
	for i, e := range elems {
		if elems[i], err = Cast(e, from.Elem(), to.Elem(), explicit, loc); err != nil {
			return NullDatum, err
		}
	}
	return DString(FormatArray(elems, to.Elem(), nil)), nil
}

// compareArray orders arrays as Postgres's btarraycmp: element by element
// with the element type's order (NULL after every value), then the
// shorter array first.
func compareArray(a, b Datum, t T) int {
	ea, err1 := ArrayElems(a.S, t, time.UTC)
	eb, err2 := ArrayElems(b.S, t, time.UTC)
	if err1 != nil || err2 != nil {
		return strings.Compare(a.S, b.S)
	}
	et := t.Elem()
	for i := 0; i < len(ea) && i < len(eb); i++ {
		switch {
		case ea[i].Null && eb[i].Null:
			continue
		case ea[i].Null:
			return 1
		case eb[i].Null:
			return -1
		}
		if c := Compare(ea[i], eb[i], et); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(ea)), int64(len(eb)))
}

// hashArray hashes an array so that arrays equal under compareArray hash
// equally.
func hashArray(d Datum, t T) uint64 {
	elems, err := ArrayElems(d.S, t, time.UTC)
	if err != nil {
		return hashString(d.S)
	}
	h := uint64(len(elems))
	et := t.Elem()
	for _, e := range elems {
		if e.Null {
			h = mix64(h ^ 0x5bd1e995)
		} else {
			h = mix64(h ^ Hash(e, et))
		}
	}
	return h
}

// appendArrayBinary writes array_send's one-dimensional form: ndim, has-null
// flag, element OID, then (length, lower bound 1) and each element as a
// length-prefixed binary value (-1 for NULL).
func appendArrayBinary(buf []byte, d Datum, t T) ([]byte, error) {
	elems, err := ArrayElems(d.S, t, time.UTC)
	if err != nil {
		return buf, err
	}
	et := t.Elem()
	if len(elems) == 0 {
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		return binary.BigEndian.AppendUint32(buf, et.OID()), nil
	}
	hasNull := uint32(0)
	for _, e := range elems {
		if e.Null {
			hasNull = 1
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, et.OID())
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(elems)))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for _, e := range elems {
		if e.Null {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		if buf, err = AppendBinary(buf, e, et); err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// parseArrayBinary reads array_recv's form of a one-dimensional array of
// type t.
func parseArrayBinary(b []byte, t T) (Datum, error) {
	bad := func() (Datum, error) {
		return NullDatum, pgerr.New(pgerr.InvalidBinaryRepresentation, "insufficient data left in message")
	}
	if len(b) < 12 {
		return bad()
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	b = b[12:]
	et := t.Elem()
	if ndim == 0 {
		return DString("{}"), nil
	}
	if ndim != 1 {
		return NullDatum, pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	}
	if len(b) < 8 {
		return bad()
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	b = b[8:]
	if n < 0 || n > len(b)/4 {
		return bad()
	}
	elems := make([]Datum, n)
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return bad()
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l == -1 {
			elems[i] = NullDatum
			continue
		}
		if l < 0 || int(l) > len(b) {
			return bad()
		}
		e, err := ParseBinary(b[:l], et)
		if err != nil {
			return NullDatum, err
		}
		elems[i] = e
		b = b[l:]
	}
	if len(b) != 0 {
		return NullDatum, pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format in array element")
	}
	return DString(FormatArray(elems, et, time.UTC)), nil
}

// ArrayTypes returns every array type, in TypeID order.
func ArrayTypes() []T {
	var out []T
	for id := TypeID(0); id < numTypeIDs; id++ {
		if elemOf[id] != Unknown {
			out = append(out, T{id, -1})
		}
	}
	return out
}

// formatArrayIn prints a stored array in the session time zone loc: only
// timestamptz[] elements depend on it.
func formatArrayIn(s string, t T, loc *time.Location) string {
	if t.ID != TimestamptzArray || loc == nil || loc == time.UTC {
		return s
	}
	elems, err := ArrayElems(s, t, time.UTC)
	if err != nil {
		return s
	}
	return FormatArray(elems, t.Elem(), loc)
}
