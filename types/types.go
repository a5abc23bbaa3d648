package types

import "fmt"

// TypeID identifies a SQL type family. The zero value is Unknown: the type
// of an untyped literal or NULL before the binder resolves it.
type TypeID uint16

// The SQL types weir supports (DESIGN.md §6), plus the few catalog types
// that psql's catalog queries need (oid, name, "char", text[]).
const (
	Unknown TypeID = iota
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Varchar
	Text
	Bytea
	Date
	Time
	Timestamp
	Timestamptz
	Interval
	Jsonb
	Oid
	Name
	Char // Postgres's internal single-byte "char" type (OID 18)
	TextArray
	// One-dimensional arrays of the scalar types (see array.go); text[]
	// is TextArray above.
	BoolArray
	Int2Array
	Int4Array
	Int8Array
	Float4Array
	Float8Array
	NumericArray
	VarcharArray
	ByteaArray
	DateArray
	TimeArray
	TimestampArray
	TimestamptzArray
	IntervalArray
	JsonbArray
	OidArray
	NameArray
	CharArray
	// Json is PostgreSQL's json: the input text kept as written (key
	// order, duplicate keys and whitespace), checked to be valid JSON.
	// It comes after the arrays so that the numbering of the older types
	// stays as it was.
	Json
	// Bpchar is character(n) (bpchar, OID 1042): values are stored
	// blank-padded to n, and compare, hash and key with their trailing
	// spaces ignored (bpchareq, hashbpchar). Mod is n+4; -1 is bpchar
	// without a length, whose values keep the spaces they came with.
	Bpchar
	BpcharArray
	// Record is PostgreSQL's anonymous composite type (record, OID 2249):
	// the value of a row constructor or a whole-row reference in a
	// select list, stored in its output form, (1,abc). weir does not
	// compare, group, sort or store records; the binder lets them reach
	// only a query's output.
	Record
	// Uuid is PostgreSQL's uuid (OID 2950): a 16-byte value, held in a
	// Datum as its output text (32 lower-case hex digits in groups of
	// 8-4-4-4-12), whose byte order is the value's byte order, so strings
	// compare, hash and group as PostgreSQL's memcmp-based uuid_cmp does.
	// The key and row encodings store the 16 bytes.
	Uuid
	UuidArray
	// Jsonpath is PostgreSQL's jsonpath (OID 4072): an SQL/JSON path
	// expression, held in a Datum as its canonical text (jsonpath_out's),
	// which functions parse again to evaluate (jsonpath.go).
	Jsonpath
	// JsonpathArray is jsonpath[] (OID 4073), its elements in their
	// canonical text.
	JsonpathArray
	numTypeIDs
)

// T is a SQL type: a family plus a Postgres type modifier. Mod has exactly
// Postgres's atttypmod meaning, so it can go into RowDescription and
// pg_attribute unchanged: -1 means none; varchar(n) and character(n) are
// n+4; numeric(p,s) is ((p<<16)|s)+4; timestamp(p), time(p) and
// interval(p) are p.
type T struct {
	ID  TypeID
	Mod int32
}

// Convenience values for unmodified types.
var (
	TUnknown     = T{Unknown, -1}
	TBool        = T{Bool, -1}
	TInt2        = T{Int2, -1}
	TInt4        = T{Int4, -1}
	TInt8        = T{Int8, -1}
	TFloat4      = T{Float4, -1}
	TFloat8      = T{Float8, -1}
	TNumeric     = T{Numeric, -1}
	TVarchar     = T{Varchar, -1}
	TText        = T{Text, -1}
	TBytea       = T{Bytea, -1}
	TDate        = T{Date, -1}
	TTime        = T{Time, -1}
	TTimestamp   = T{Timestamp, -1}
	TTimestamptz = T{Timestamptz, -1}
	TInterval    = T{Interval, -1}
	TJsonb       = T{Jsonb, -1}
	TJson        = T{Json, -1}
	TBpchar      = T{Bpchar, -1}
	TOid         = T{Oid, -1}
	TName        = T{Name, -1}
	TChar        = T{Char, -1}
	TTextArray   = T{TextArray, -1}
	TRecord      = T{Record, -1}
	TUuid        = T{Uuid, -1}
	TJsonpath    = T{Jsonpath, -1}
)

type typeInfo struct {
	name   string // Postgres's canonical name, as format_type prints it
	oid    uint32 // pg_type.oid
	size   int16  // pg_type.typlen, as RowDescription's DataTypeSize
	arrOID uint32 // OID of the array type, for pg_type
}

var infos = [numTypeIDs]typeInfo{
	Unknown:     {"unknown", 705, -2, 0},
	Bool:        {"boolean", 16, 1, 1000},
	Int2:        {"smallint", 21, 2, 1005},
	Int4:        {"integer", 23, 4, 1007},
	Int8:        {"bigint", 20, 8, 1016},
	Float4:      {"real", 700, 4, 1021},
	Float8:      {"double precision", 701, 8, 1022},
	Numeric:     {"numeric", 1700, -1, 1231},
	Varchar:     {"character varying", 1043, -1, 1015},
	Text:        {"text", 25, -1, 1009},
	Bytea:       {"bytea", 17, -1, 1001},
	Date:        {"date", 1082, 4, 1182},
	Time:        {"time without time zone", 1083, 8, 1183},
	Timestamp:   {"timestamp without time zone", 1114, 8, 1115},
	Timestamptz: {"timestamp with time zone", 1184, 8, 1185},
	Interval:    {"interval", 1186, 16, 1187},
	Jsonb:       {"jsonb", 3802, -1, 3807},
	Oid:         {"oid", 26, 4, 1028},
	Name:        {"name", 19, 64, 1003},
	Char:        {"\"char\"", 18, 1, 1002},
	TextArray:   {"text[]", 1009, -1, 0},

	BoolArray:        {"boolean[]", 1000, -1, 0},
	Int2Array:        {"smallint[]", 1005, -1, 0},
	Int4Array:        {"integer[]", 1007, -1, 0},
	Int8Array:        {"bigint[]", 1016, -1, 0},
	Float4Array:      {"real[]", 1021, -1, 0},
	Float8Array:      {"double precision[]", 1022, -1, 0},
	NumericArray:     {"numeric[]", 1231, -1, 0},
	VarcharArray:     {"character varying[]", 1015, -1, 0},
	ByteaArray:       {"bytea[]", 1001, -1, 0},
	DateArray:        {"date[]", 1182, -1, 0},
	TimeArray:        {"time without time zone[]", 1183, -1, 0},
	TimestampArray:   {"timestamp without time zone[]", 1115, -1, 0},
	TimestamptzArray: {"timestamp with time zone[]", 1185, -1, 0},
	IntervalArray:    {"interval[]", 1187, -1, 0},
	JsonbArray:       {"jsonb[]", 3807, -1, 0},
	OidArray:         {"oid[]", 1028, -1, 0},
	NameArray:        {"name[]", 1003, -1, 0},
	CharArray:        {"\"char\"[]", 1002, -1, 0},
	Json:             {"json", 114, -1, 199},
	Bpchar:           {"bpchar", 1042, -1, 1014},
	BpcharArray:      {"bpchar[]", 1014, -1, 0},
	Record:           {"record", 2249, -1, 2287},
	Uuid:             {"uuid", 2950, 16, 2951},
	UuidArray:        {"uuid[]", 2951, -1, 0},
	Jsonpath:         {"jsonpath", 4072, -1, 0},
	JsonpathArray:    {"jsonpath[]", 4073, -1, 0},
}

// OID returns the Postgres type OID (pg_type.oid) of t, as sent in
// RowDescription and ParameterDescription.
func (t T) OID() uint32 { return info(t.ID).oid }

// Typmod returns t's modifier as PostgreSQL records it (atttypmod, the
// RowDescription's type modifier): Mod, except that an interval's
// precision goes with the full range of fields in the high half, as
// intervaltypmodin encodes it.
func (t T) Typmod() int32 {
	if t.Mod >= 0 && (t.ID == Interval || t.ID == IntervalArray) {
		return 0x7fff<<16 | t.Mod
	}
	return t.Mod
}

// Size returns pg_type.typlen: the fixed width in bytes, or -1 for
// variable-length types (RowDescription's DataTypeSize).
func (t T) Size() int16 { return info(t.ID).size }

// ArrayOID returns the OID of the array type whose elements are t (0 if none).
func (t T) ArrayOID() uint32 { return info(t.ID).arrOID }

// String returns the type as Postgres's format_type prints it, including the
// modifier: "integer", "character varying(10)", "numeric(10,2)",
// "timestamp(3) without time zone".
func (t T) String() string {
	base := info(t.ID).name
	if t.Mod < 0 {
		return base
	}
	if t.IsArray() {
		return t.Elem().String() + "[]"
	}
	switch t.ID {
	case Varchar:
		return fmt.Sprintf("character varying(%d)", t.Mod-4)
	case Bpchar:
		return fmt.Sprintf("character(%d)", t.Mod-4)
	case Numeric:
		p, s := (t.Mod-4)>>16, (t.Mod-4)&0xffff
		return fmt.Sprintf("numeric(%d,%d)", p, s)
	case Timestamp:
		return fmt.Sprintf("timestamp(%d) without time zone", t.Mod)
	case Timestamptz:
		return fmt.Sprintf("timestamp(%d) with time zone", t.Mod)
	case Time:
		return fmt.Sprintf("time(%d) without time zone", t.Mod)
	case Interval:
		return fmt.Sprintf("interval(%d)", t.Mod)
	}
	return base
}

// TypeName returns the type without its modifier as PostgreSQL's
// format_type prints it when no typmod is given (regtype output, a
// function's argument and result types): as String, except that bpchar
// is spelled character.
func (t T) TypeName() string {
	switch t.ID {
	case Bpchar:
		return "character"
	case BpcharArray:
		return "character[]"
	}
	return T{ID: t.ID, Mod: -1}.String()
}

// Name returns the family name without modifier (for example "integer").
func (id TypeID) Name() string { return info(id).name }

// String implements fmt.Stringer for a TypeID.
func (id TypeID) String() string { return info(id).name }

// ByOID returns the type with the given Postgres OID and false if weir
// does not know it.
func ByOID(oid uint32) (T, bool) {
	for id := TypeID(0); id < numTypeIDs; id++ {
		if infos[id].oid == oid {
			return T{id, -1}, true
		}
	}
	return TUnknown, false
}

// IsInteger reports whether t is smallint, integer or bigint.
func (t T) IsInteger() bool { return t.ID == Int2 || t.ID == Int4 || t.ID == Int8 }

// IsNumeric reports whether t is one of the numeric types (integers,
// floats, numeric).
func (t T) IsNumeric() bool {
	switch t.ID {
	case Int2, Int4, Int8, Float4, Float8, Numeric, Oid:
		return true
	}
	return false
}

// IsString reports whether t is one of the character types (text, varchar,
// character(n), name, "char").
func (t T) IsString() bool {
	switch t.ID {
	case Text, Varchar, Bpchar, Name, Char:
		return true
	}
	return false
}

// Family returns how values of t are stored in a Datum and a Vec.
func (t T) Family() Family {
	if t.ID >= FirstEnumArrayID {
		return FamString
	}
	if t.ID >= FirstEnumID {
		return FamFloat
	}
	return families[t.ID]
}

// Family says which field of a Datum, and which slice of a Vec, holds a
// type's values.
type Family uint8

// Storage families.
const (
	FamNone     Family = iota // Unknown: always NULL
	FamBool                   // Datum.I (0/1); Vec.B
	FamInt                    // Datum.I; Vec.I
	FamFloat                  // Datum.F; Vec.F
	FamDecimal                // Datum.D; Vec.D
	FamString                 // Datum.S; Vec.S (bytes for bytea; canonical text for jsonb; arrays in Postgres array text form)
	FamInterval               // Datum.Iv; Vec.Iv
)

var families = [numTypeIDs]Family{
	Unknown: FamString, Bool: FamBool, Int2: FamInt, Int4: FamInt, Int8: FamInt,
	Float4: FamFloat, Float8: FamFloat, Numeric: FamDecimal,
	Varchar: FamString, Text: FamString, Bytea: FamString,
	Date: FamInt, Time: FamInt, Timestamp: FamInt, Timestamptz: FamInt,
	Interval: FamInterval, Jsonb: FamString, Oid: FamInt, Name: FamString, Char: FamString,
	TextArray: FamString,
	BoolArray: FamString, Int2Array: FamString, Int4Array: FamString, Int8Array: FamString,
	Float4Array: FamString, Float8Array: FamString, NumericArray: FamString, VarcharArray: FamString,
	ByteaArray: FamString, DateArray: FamString, TimeArray: FamString, TimestampArray: FamString,
	TimestamptzArray: FamString, IntervalArray: FamString, JsonbArray: FamString, OidArray: FamString,
	NameArray: FamString, CharArray: FamString, Json: FamString, Bpchar: FamString, BpcharArray: FamString,
	Record: FamString, Uuid: FamString, UuidArray: FamString,
	Jsonpath: FamString, JsonpathArray: FamString,
}
