package functions

import "github.com/weirdb/weir/types"

// This file registers Postgres 15's scalar functions (docs chapter 9) with
// their result types. Overloads that Postgres resolves by implicit casts
// (varchar → text, int4 → int8 → numeric, float4 → float8) are registered
// once, for the target type.

// scalarOverloads lists the scalar functions.
func scalarOverloads() []*Overload {
	var os []*Overload

	// String functions (docs §9.4) not in impl_string.go.
	os = append(os,
		fn("overlay", nil, tText, tText, tText, tI4), fn("overlay", nil, tText, tText, tText, tI4, tI4),
		fn("overlay", nil, tBytea, tBytea, tBytea, tI4), fn("overlay", nil, tBytea, tBytea, tBytea, tI4, tI4),
		fn("similar_to_escape", nil, tText, tText), fn("similar_to_escape", nil, tText, tText, tText),
		fn("regexp_count", nil, tI4, tText, tText), fn("regexp_count", nil, tI4, tText, tText, tI4),
		fn("regexp_count", nil, tI4, tText, tText, tI4, tText),
		fn("regexp_instr", nil, tI4, tText, tText), fn("regexp_instr", nil, tI4, tText, tText, tI4),
		fn("regexp_instr", nil, tI4, tText, tText, tI4, tI4), fn("regexp_instr", nil, tI4, tText, tText, tI4, tI4, tI4),
		fn("regexp_instr", nil, tI4, tText, tText, tI4, tI4, tI4, tText),
		fn("regexp_instr", nil, tI4, tText, tText, tI4, tI4, tI4, tText, tI4),
		fn("regexp_substr", nil, tText, tText, tText), fn("regexp_substr", nil, tText, tText, tText, tI4),
		fn("regexp_substr", nil, tText, tText, tText, tI4, tI4), fn("regexp_substr", nil, tText, tText, tText, tI4, tI4, tText),
		fn("regexp_substr", nil, tText, tText, tText, tI4, tI4, tText, tI4),
		fn("regexp_like", nil, tBool, tText, tText), fn("regexp_like", nil, tBool, tText, tText, tText),
		fn("substring", nil, tText, tText, tText), fn("substring", nil, tText, tText, tText, tText),
	)
	// Array functions (docs §9.19) not in impl_string.go, one overload
	// per array type.
	for _, at := range types.ArrayTypes() {
		a := at.ID
		os = append(os,
			nonStrict("array_position", nil, tI4, a, at.Elem().ID), nonStrict("array_position", nil, tI4, a, at.Elem().ID, tI4),
			nonStrict("array_positions", nil, types.Int4Array, a, at.Elem().ID),
			nonStrict("array_replace", nil, a, a, at.Elem().ID, at.Elem().ID),
			fn("array_ndims", nil, tI4, a), fn("array_dims", nil, tText, a))
	}

	// UUID functions (docs §9.14): a version 4 uuid per call.
	os = append(os, volatile("gen_random_uuid", nil, tUuid))

	// to_char and to_number (docs §9.8).
	os = append(os,
		fn("to_char", nil, tText, tTS, tText), fn("to_char", nil, tText, tTSTZ, tText), fn("to_char", nil, tText, tIv, tText),
		fn("to_char", nil, tText, tI4, tText), fn("to_char", nil, tText, tI8, tText), fn("to_char", nil, tText, tNum, tText),
		fn("to_char", nil, tText, tF4, tText), fn("to_char", nil, tText, tF8, tText),
		fn("to_number", nil, tNum, tText, tText),
	)

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
		fn("jsonb_set", nil, tJsonb, tJsonb, tTArr, tJsonb), fn("jsonb_set", nil, tJsonb, tJsonb, tTArr, tJsonb, tBool),
		fn("jsonb_insert", nil, tJsonb, tJsonb, tTArr, tJsonb), fn("jsonb_insert", nil, tJsonb, tJsonb, tTArr, tJsonb, tBool),
		// jsonb_set_lax is called with a NULL new_value, which its last
		// argument (default 'use_json_null') says what to do with.
		nonStrict("jsonb_set_lax", nil, tJsonb, tJsonb, tTArr, tJsonb),
		nonStrict("jsonb_set_lax", nil, tJsonb, tJsonb, tTArr, tJsonb, tBool),
		nonStrict("jsonb_set_lax", nil, tJsonb, tJsonb, tTArr, tJsonb, tBool, tText),
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
		fn("json_array_length", nil, tI4, tJson),
		// pg_json_key(k) is the text of json_object_agg's key k, for
		// the planner's streaming form of the json aggregates: a NULL
		// key is 22023, as in the aggregate.
		nonStrict("pg_json_key", nil, tText, tAny),
	)
	return os
}

// timeWindowOverloads lists tumble_start(time, size [, offset]), the
// window start that TUMBLE in FROM computes for each row.
func timeWindowOverloads() []*Overload {
	var os []*Overload
	for _, t := range []types.TypeID{tTS, tTSTZ, tDate} {
		ret := t
		if t == tDate {
			ret = tTS
		}
		os = append(os, fn("tumble_start", nil, ret, t, tIv), fn("tumble_start", nil, ret, t, tIv, tIv))
	}
	return os
}
