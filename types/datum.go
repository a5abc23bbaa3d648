package types

import "github.com/cockroachdb/apd/v3"

// IntervalVal is a Postgres interval value: months, days and microseconds kept apart,
// because a month and a day have no fixed length (Postgres docs §8.5.4).
type IntervalVal struct {
	Months int32
	Days   int32
	Micros int64
}

// Datum is one SQL value. Which field holds it depends on the type's Family
// (the type is known from the schema, not stored in the Datum):
//
//	Bool                          I (0 or 1)
//	Int2, Int4, Int8, Oid         I
//	Date                          I: days since 1970-01-01
//	Time                          I: microseconds since midnight
//	Timestamp, Timestamptz        I: microseconds since 1970-01-01 00:00 UTC
//	                                 (timestamp: of the wall clock, as if UTC)
//	Float4, Float8                F
//	Numeric                       D (never nil when not Null)
//	Text, Varchar, Name, Char     S
//	Bytea                         S: the raw bytes
//	Jsonb                         S: canonical text, as Postgres prints jsonb
//	Uuid                          S: the output text, lower-case and hyphenated
//	Interval                      Iv
//
// Infinite dates and timestamps are math.MinInt64 / math.MaxInt64 in I.
type Datum struct {
	Null bool
	I    int64
	F    float64
	S    string
	D    *apd.Decimal
	Iv   IntervalVal
}

// NullDatum is the SQL NULL.
var NullDatum = Datum{Null: true}

// DInt returns an integer-family datum.
func DInt(i int64) Datum { return Datum{I: i} }

// DBool returns a boolean datum.
func DBool(b bool) Datum {
	if b {
		return Datum{I: 1}
	}
	return Datum{}
}

// DFloat returns a float-family datum.
func DFloat(f float64) Datum { return Datum{F: f} }

// DString returns a string-family datum.
func DString(s string) Datum { return Datum{S: s} }

// DDecimal returns a numeric datum.
func DDecimal(d *apd.Decimal) Datum { return Datum{D: d} }

// DInterval returns an interval datum.
func DInterval(iv IntervalVal) Datum { return Datum{Iv: iv} }

// Bool returns the boolean value of a Bool datum.
func (d Datum) Bool() bool { return d.I != 0 }

// Row is a row of datums, in schema order.
type Row []Datum

// RowMemSize estimates the bytes a row held in Go costs: the slice, each
// Datum, the strings' bytes and the decimals. Operators that keep rows
// (a sort, a hash table, a cursor's store) count it against their share
// of memory.
func RowMemSize(r Row) int64 {
	n := int64(24 + 80*len(r))
	for _, d := range r {
		n += int64(len(d.S))
		if d.D != nil {
			n += 48
		}
	}
	return n
}

// Column is a named, typed column of a schema.
type Column struct {
	Name    string
	T       T
	NotNull bool
	Hidden  bool // e.g. a table's hidden row id; not part of SELECT *
}

// Schema is the ordered list of columns a plan node or table produces.
type Schema []Column

// Types returns the column types of s.
func (s Schema) Types() []T {
	ts := make([]T, len(s))
	for i, c := range s {
		ts[i] = c.T
	}
	return ts
}
