package functions

import "github.com/weirdb/weir/types"

// This file registers Postgres 15's scalar functions (docs chapter 9) with
// their result types. Overloads that Postgres resolves by implicit casts
// (varchar → text, int4 → int8 → numeric, float4 → float8) are registered
// once, for the target type.

// scalarOverloads lists the scalar functions.
func scalarOverloads() []*Overload {
	var os []*Overload

	// jsonb functions (docs §9.16).
	os = append(os,
		fn("jsonb_typeof", nil, tText, tJsonb),
		variadic("jsonb_build_object", nil, tJsonb, true, tAny), fn("jsonb_build_object", nil, tJsonb),
		variadic("jsonb_build_array", nil, tJsonb, true, tAny), fn("jsonb_build_array", nil, tJsonb),
		nonStrict("to_jsonb", nil, tJsonb, tAny),
		fn("jsonb_array_length", nil, tI4, tJsonb),
		variadic("jsonb_extract_path", nil, tJsonb, false, tJsonb, tText),
		variadic("jsonb_extract_path_text", nil, tText, false, tJsonb, tText),
		fn("jsonb_pretty", nil, tText, tJsonb),
		fn("jsonb_path_exists", nil, tBool, tJsonb, types.Jsonpath), fn("jsonb_path_exists", nil, tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_exists", nil, tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_match", nil, tBool, tJsonb, types.Jsonpath), fn("jsonb_path_match", nil, tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_match", nil, tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_array", nil, tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_array", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_array", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_first", nil, tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_first", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_first", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		// The *_tz forms read datetime values without a time zone in the
		// session's when they compare them with ones that have one.
		fn("jsonb_path_exists_tz", nil, tBool, tJsonb, types.Jsonpath), fn("jsonb_path_exists_tz", nil, tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_exists_tz", nil, tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_match_tz", nil, tBool, tJsonb, types.Jsonpath), fn("jsonb_path_match_tz", nil, tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_match_tz", nil, tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_array_tz", nil, tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_array_tz", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_array_tz", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_first_tz", nil, tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_first_tz", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_first_tz", nil, tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		// SQL/JSON path (docs §9.16.2; impl_jsonpath.go); @? and @@ are
		// pg_jsonpath_exists and pg_jsonpath_match.
		fn("pg_jsonpath_exists", nil, tBool, tJsonb, types.Jsonpath), fn("pg_jsonpath_match", nil, tBool, tJsonb, types.Jsonpath),
		fn("jsonb_strip_nulls", nil, tJsonb, tJsonb),
		fn("jsonb_object", nil, tJsonb, tTArr), fn("jsonb_object", nil, tJsonb, tTArr, tTArr),
	)
	// json functions (docs §9.16): the json type keeps its text.
	os = append(os,
		fn("to_json", nil, tJson, tAny),
		variadic("json_build_object", nil, tJson, true, tAny), variadic("pg_row_to_json", nil, tJson, true, tAny), fn("json_build_object", nil, tJson),
		variadic("json_build_array", nil, tJson, true, tAny), fn("json_build_array", nil, tJson),
		variadic("json_extract_path", nil, tJson, false, tJson, tText),
		variadic("json_extract_path_text", nil, tText, false, tJson, tText),
		fn("json_object", nil, tJson, tTArr), fn("json_object", nil, tJson, tTArr, tTArr),
		fn("json_typeof", nil, tText, tJson),
		// pg_json_key(k) is the text of json_object_agg's key k, for
		// the planner's streaming form of the json aggregates: a NULL
		// key is 22023, as in the aggregate.
		nonStrict("pg_json_key", nil, tText, tAny),
	)
	return os
}
