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
)

// Numeric type families, in Postgres's promotion order.
var (
	intTypes    = []types.TypeID{tI2, tI4, tI8}
	floatTypes  = []types.TypeID{tF4, tF8}
	numberTypes = []types.TypeID{tI2, tI4, tI8, tF4, tF8, tNum}
	// ComparableTypes are the types with the full set of comparison
	// operators (= <> < <= > >=) and min/max aggregates.
	ComparableTypes = []types.TypeID{tBool, tI2, tI4, tI8, tF4, tF8, tNum, tText,
		tBytea, tDate, tTime, tTS, tTSTZ, tIv, tOid, tName, tChar, tBpc}
)

// CompareOps are the comparison operator names.
var CompareOps = []string{"=", "<>", "<", "<=", ">", ">="}

// sameAsArg returns the type of argument i, modifier dropped (the result of
// min/max, lag/lead and similar).
func sameAsArg(i int) func([]types.T) types.T {
	return func(args []types.T) types.T { return types.T{ID: args[i].ID, Mod: -1} }
}

// op returns a strict, immutable scalar overload.
func op(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret}
}

// intResult is the result of an integer operator over a and b: the wider
// of the two (Postgres's int24pl returns int4, int48pl int8, ...).
func intResult(a, b types.TypeID) types.TypeID {
	if a > b {
		return a
	}
	return b
}

// textAnyCat is text || anynonarray or anynonarray || text (textanycat,
// anytextcat).
func textAnyCat(a, b types.TypeID) *Overload {
	o := op("||", tText, a, b)
	o.AnyNonArray = true
	return o
}

// arrayCatOp is text[] || text[] (array_cat), which treats a NULL operand
// as an empty array.
var arrayCatOp = func() *Overload {
	o := op("||", tTArr, tTArr, tTArr)
	o.NonStrict = true
	return o
}()

// operatorOverloads lists the operators.
func operatorOverloads() []*Overload {
	var os []*Overload

	// Arithmetic (pg_operator: int2pl, int24pl, ..., float48pl, numeric_add).
	for _, name := range []string{"+", "-", "*", "/"} {
		for _, a := range intTypes {
			for _, b := range intTypes {
				os = append(os, op(name, intResult(a, b), a, b))
			}
		}
		os = append(os, op(name, tF4, tF4, tF4), op(name, tF8, tF4, tF8),
			op(name, tF8, tF8, tF4), op(name, tF8, tF8, tF8), op(name, tNum, tNum, tNum))
	}
	// Postgres's % exists for integers (same-type and int2/int4 pairs
	// behave alike after promotion) and numeric, not for floats.
	for _, a := range intTypes {
		os = append(os, op("%", a, a, a))
	}
	os = append(os, op("%", tNum, tNum, tNum))
	os = append(os, op("^", tF8, tF8, tF8), op("^", tNum, tNum, tNum))
	// Bitwise operators (int4and, int4or, int4xor, int4not, int4shl,
	// int4shr and their int2/int8 forms): one operand type; the shift
	// count is an integer.
	for _, a := range intTypes {
		os = append(os, op("&", a, a, a), op("|", a, a, a), op("#", a, a, a), op("~", a, a),
			op("<<", a, a, tI4), op(">>", a, a, tI4))
	}
	for _, t := range numberTypes {
		os = append(os, op("neg", t, t))
	}
	os = append(os, op("neg", tIv, tIv))

	// Comparisons for every comparable type, plus Postgres's cross-width
	// integer and float operators (int24eq, float48lt, ...).
	for _, name := range CompareOps {
		for _, t := range ComparableTypes {
			os = append(os, op(name, tBool, t, t))
		}
		for _, a := range intTypes {
			for _, b := range intTypes {
				if a != b {
					os = append(os, op(name, tBool, a, b))
				}
			}
		}
		os = append(os, op(name, tBool, tF4, tF8), op(name, tBool, tF8, tF4),
			// Postgres compares dates with timestamps and timestamp with
			// timestamptz directly (date_lt_timestamp, timestamp_lt_timestamptz).
			op(name, tBool, tDate, tTS), op(name, tBool, tTS, tDate),
			op(name, tBool, tDate, tTSTZ), op(name, tBool, tTSTZ, tDate),
			op(name, tBool, tTS, tTSTZ), op(name, tBool, tTSTZ, tTS))
	}
	for _, name := range CompareOps {
		os = append(os, op(name, tBool, tJsonb, tJsonb))
	}
	// Array comparisons (array_eq, array_lt, ...: element-wise, then
	// length); psql compares acl and role arrays.
	for _, at := range types.ArrayTypes() {
		for _, name := range CompareOps {
			os = append(os, op(name, tBool, at.ID, at.ID))
		}
	}

	// Concatenation: text || text, bytea || bytea, jsonb || jsonb, and
	// Postgres's anynonarray || text / text || anynonarray (textanycat),
	// whose non-text side is converted with its output function.
	os = append(os, op("||", tText, tText, tText), op("||", tBytea, tBytea, tBytea),
		op("||", tJsonb, tJsonb, tJsonb),
		textAnyCat(tText, tAny), textAnyCat(tAny, tText), arrayCatOp)

	// Pattern matching: LIKE (~~), NOT LIKE (!~~), ILIKE (~~*), NOT ILIKE
	// (!~~*), and POSIX regular expressions (~, ~*, !~, !~*).
	for _, name := range []string{"~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*"} {
		// bpcharlike, bpcharregexeq, ...: a character(n) value is
		// matched with its padding.
		os = append(os, op(name, tBool, tText, tText), op(name, tBool, tBpc, tText))
	}
	os = append(os, op("~~", tBool, tBytea, tBytea), op("!~~", tBool, tBytea, tBytea))

	// Date and time arithmetic (docs §9.9, Table 9.31).
	os = append(os,
		op("+", tDate, tDate, tI4), op("+", tDate, tI4, tDate),
		op("-", tDate, tDate, tI4),
		op("-", tI4, tDate, tDate),
		op("+", tTS, tDate, tIv), op("+", tTS, tIv, tDate),
		op("-", tTS, tDate, tIv),
		op("+", tTS, tDate, tTime), op("+", tTS, tTime, tDate),
		op("+", tTS, tTS, tIv), op("+", tTS, tIv, tTS), op("-", tTS, tTS, tIv),
		op("+", tTSTZ, tTSTZ, tIv), op("+", tTSTZ, tIv, tTSTZ), op("-", tTSTZ, tTSTZ, tIv),
		op("-", tIv, tTS, tTS), op("-", tIv, tTSTZ, tTSTZ),
		op("+", tTime, tTime, tIv), op("+", tTime, tIv, tTime), op("-", tTime, tTime, tIv),
		op("-", tIv, tTime, tTime),
		op("+", tIv, tIv, tIv), op("-", tIv, tIv, tIv),
		op("*", tIv, tIv, tF8), op("*", tIv, tF8, tIv), op("/", tIv, tIv, tF8),
	)

	// jsonb operators, under the names the binder gives them: -> (get),
	// ->> (get_text), #> (path), #>> (path_text), @> (contains), <@, ?.
	os = append(os,
		op("pg_json_get", tJsonb, tJsonb, tText), op("pg_json_get", tJsonb, tJsonb, tI4),
		op("pg_json_get_text", tText, tJsonb, tText), op("pg_json_get_text", tText, tJsonb, tI4),
		op("pg_json_path", tJsonb, tJsonb, tTArr), op("pg_json_path_text", tText, tJsonb, tTArr),
		op("pg_json_contains", tBool, tJsonb, tJsonb), op("pg_json_contained", tBool, tJsonb, tJsonb),
		op("pg_json_exists", tBool, tJsonb, tText),
		op("pg_json_get", tJson, tJson, tText), op("pg_json_get", tJson, tJson, tI4),
		op("pg_json_get_text", tText, tJson, tText), op("pg_json_get_text", tText, tJson, tI4),
		op("pg_json_path", tJson, tJson, tTArr), op("pg_json_path_text", tText, tJson, tTArr),
	)
	// x = ANY(array): the binder casts x to the element type (to text for
	// text[]); || is array_cat.
	for _, at := range types.ArrayTypes() {
		os = append(os, op("pg_any_eq", tBool, at.Elem().ID, at.ID))
		// anyarray || anyelement and anyelement || anyarray; a NULL
		// element is appended as NULL, a NULL array is empty.
		app, pre := op("||", at.ID, at.ID, at.Elem().ID), op("||", at.ID, at.Elem().ID, at.ID)
		app.NonStrict, pre.NonStrict = true, true
		app.Polymorphic, pre.Polymorphic = true, true
		os = append(os, app, pre)
		if at.ID != tTArr {
			o := op("||", at.ID, at.ID, at.ID)
			o.NonStrict = true
			os = append(os, o)
		}
	}
	return os
}

// agg returns an aggregate overload.
func agg(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Kind: Aggregate}
}

// aggregateOverloads lists the aggregates of docs §9.21 with
// pg_aggregate's result types.
func aggregateOverloads() []*Overload {
	var os []*Overload
	// count(*) has no arguments; count(x) counts non-NULL x of any type.
	os = append(os, agg("count", tI8), &Overload{Name: "count", Args: []types.TypeID{tAny},
		Ret: tI8, Kind: Aggregate, NonStrict: true})
	// sum: int2/int4 → int8, int8/numeric → numeric, floats keep their
	// type, interval → interval.
	os = append(os, agg("sum", tI8, tI2), agg("sum", tI8, tI4), agg("sum", tNum, tI8),
		agg("sum", tNum, tNum), agg("sum", tF4, tF4), agg("sum", tF8, tF8), agg("sum", tIv, tIv))
	// avg: integers and numeric → numeric, floats → float8.
	os = append(os, agg("avg", tNum, tI2), agg("avg", tNum, tI4), agg("avg", tNum, tI8),
		agg("avg", tNum, tNum), agg("avg", tF8, tF4), agg("avg", tF8, tF8), agg("avg", tIv, tIv))
	for _, name := range []string{"min", "max"} {
		for _, t := range ComparableTypes {
			if t == tBool || t == tChar {
				continue // Postgres has no min/max(boolean) or min/max("char")
			}
			os = append(os, &Overload{Name: name, Args: []types.TypeID{t}, RetFn: sameAsArg(0), Ret: t, Kind: Aggregate})
		}
	}
	os = append(os, agg("string_agg", tText, tText, tText), agg("string_agg", tBytea, tBytea, tBytea),
		agg("bool_and", tBool, tBool), agg("bool_or", tBool, tBool), agg("every", tBool, tBool),
		agg("jsonb_agg", tJsonb, tAny),
		agg("jsonb_object_agg", tJsonb, tAny, tAny),
		agg("json_agg", tJson, tAny),
		agg("json_object_agg", tJson, tAny, tAny),
		agg("bit_and", tI2, tI2), agg("bit_and", tI4, tI4), agg("bit_and", tI8, tI8),
		agg("bit_or", tI2, tI2), agg("bit_or", tI4, tI4), agg("bit_or", tI8, tI8),
		agg("bit_xor", tI2, tI2), agg("bit_xor", tI4, tI4), agg("bit_xor", tI8, tI8))
	// array_agg(anynonarray) → anyarray, one overload per element type.
	for _, at := range types.ArrayTypes() {
		o := agg("array_agg", at.ID, at.Elem().ID)
		o.NonStrict = true
		os = append(os, o)
	}
	// Statistics: integers and numeric → numeric, floats → float8.
	for _, name := range []string{"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"} {
		os = append(os, agg(name, tNum, tI2), agg(name, tNum, tI4), agg(name, tNum, tI8),
			agg(name, tNum, tNum), agg(name, tF8, tF4), agg(name, tF8, tF8))
	}
	return os
}

// win returns a window-only overload.
func win(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Kind: WindowOnly}
}

// windowOverloads lists the window functions of docs §9.22.
// lag, lead, first_value, last_value and nth_value return their first
// argument's type; lag/lead's default (third argument) must have it too.
func windowOverloads() []*Overload {
	same := func(name string, args ...types.TypeID) *Overload {
		return &Overload{Name: name, Args: args, RetFn: sameAsArg(0), Kind: WindowOnly, NonStrict: true}
	}
	return []*Overload{
		win("row_number", tI8), win("rank", tI8), win("dense_rank", tI8),
		win("percent_rank", tF8), win("cume_dist", tF8), win("ntile", tI4, tI4),
		same("lag", tAny), same("lag", tAny, tI4), same("lag", tAny, tI4, tAny),
		same("lead", tAny), same("lead", tAny, tI4), same("lead", tAny, tI4, tAny),
		same("first_value", tAny), same("last_value", tAny), same("nth_value", tAny, tI4),
	}
}
