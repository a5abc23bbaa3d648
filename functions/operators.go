package functions

import "github.com/weirdb/weir/types"

// This file fills the function registry with Postgres 15's operators,
// aggregates and window functions (pg_operator, pg_aggregate, and the
// window functions of docs §9.22), with the result types Postgres gives
// them. Scalar functions live in builtins_funcs.go. The executor implements
// every scalar overload registered here by name and argument types.

// Short names for the type families, to keep the tables readable.
const (
	tAny   = types.Unknown // "any": the argument keeps its own type
	tBool  = types.Bool
	tI2    = types.Int2
	tI4    = types.Int4
	tI8    = types.Int8
	tF4    = types.Float4
	tF8    = types.Float8
	tNum   = types.Numeric
	tText  = types.Text
	tBytea = types.Bytea
	tDate  = types.Date
	tTime  = types.Time
	tTS    = types.Timestamp
	tTSTZ  = types.Timestamptz
	tIv    = types.Interval
	tJsonb = types.Jsonb
	tJson  = types.Json
	tOid   = types.Oid
	tName  = types.Name
	tChar  = types.Char
	tBpc   = types.Bpchar
	tTArr  = types.TextArray
	tUuid  = types.Uuid
)

// Numeric type families, in Postgres's promotion order.
var (
	intTypes    = []types.TypeID{tI2, tI4, tI8}
	floatTypes  = []types.TypeID{tF4, tF8}
	numberTypes = []types.TypeID{tI2, tI4, tI8, tF4, tF8, tNum}
	// ComparableTypes are the types with the full set of comparison
	// operators (= <> < <= > >=) and, but for boolean, "char", bytea
	// and uuid, min/max aggregates.
	ComparableTypes = []types.TypeID{tBool, tI2, tI4, tI8, tF4, tF8, tNum, tText,
		tBytea, tDate, tTime, tTS, tTSTZ, tIv, tOid, tName, tChar, tBpc, tUuid}
)

// CompareOps are the comparison operator names.
var CompareOps = []string{"=", "<>", "<", "<=", ">", ">="}

// sameAsArg returns the type of argument i, modifier dropped (the result of
// min/max, lag/lead and similar).
func sameAsArg(i int) func([]types.T) types.T {
	return func(args []types.T) types.T { return types.T{ID: args[i].ID, Mod: -1} }
}

// intResult is the result of an integer operator over a and b: the wider
// of the two (Postgres's int24pl returns int4, int48pl int8, ...).
func intResult(a, b types.TypeID) types.TypeID {
	if a > b {
		return a
	}
	return b
}
