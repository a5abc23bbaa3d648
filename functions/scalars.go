package functions

import "github.com/weirdb/weir/types"

// This file registers Postgres 15's scalar functions (docs chapter 9) with
// their result types. Overloads that Postgres resolves by implicit casts
// (varchar → text, int4 → int8 → numeric, float4 → float8) are registered
// once, for the target type.

// fn returns a strict, immutable scalar function overload.
func fn(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret}
}

// volatile returns a volatile scalar overload (not constant-folded).
func volatile(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Volatile: true}
}

// variadic returns a variadic overload whose last argument repeats.
func variadic(name string, ret types.TypeID, nonStrict bool, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Variadic: true, NonStrict: nonStrict}
}

// nonStrict returns an overload that is called with NULL arguments.
func nonStrict(name string, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, NonStrict: true}
}

// scalarOverloads lists the scalar functions.
func scalarOverloads() []*Overload {
	var os []*Overload

	// String functions (docs §9.4).
	for _, name := range []string{"length", "char_length", "character_length", "octet_length", "bit_length"} {
		os = append(os, fn(name, tI4, tText))
	}
	os = append(os, fn("length", tI4, tBytea), fn("octet_length", tI4, tBytea))
	// bpcharlen and bpcharoctetlen: the character count leaves out
	// character(n)'s trailing spaces, the byte count keeps them.
	for _, name := range []string{"length", "char_length", "character_length", "octet_length"} {
		os = append(os, fn(name, tI4, tBpc))
	}
	os = append(os,
		fn("lower", tText, tText), fn("upper", tText, tText), fn("initcap", tText, tText),
		fn("substr", tText, tText, tI4), fn("substr", tText, tText, tI4, tI4),
		fn("substring", tText, tText, tI4), fn("substring", tText, tText, tI4, tI4),
		fn("substr", tBytea, tBytea, tI4), fn("substr", tBytea, tBytea, tI4, tI4),
		fn("position", tI4, tText, tText), fn("strpos", tI4, tText, tText),
		fn("replace", tText, tText, tText, tText),
		fn("overlay", tText, tText, tText, tI4), fn("overlay", tText, tText, tText, tI4, tI4),
		fn("overlay", tBytea, tBytea, tBytea, tI4), fn("overlay", tBytea, tBytea, tBytea, tI4, tI4),
		fn("similar_to_escape", tText, tText), fn("similar_to_escape", tText, tText, tText),
		fn("btrim", tText, tText), fn("btrim", tText, tText, tText),
		fn("ltrim", tText, tText), fn("ltrim", tText, tText, tText),
		fn("rtrim", tText, tText), fn("rtrim", tText, tText, tText),
		fn("trim", tText, tText), fn("trim", tText, tText, tText),
		fn("lpad", tText, tText, tI4), fn("lpad", tText, tText, tI4, tText),
		fn("rpad", tText, tText, tI4), fn("rpad", tText, tText, tI4, tText),
		fn("left", tText, tText, tI4), fn("right", tText, tText, tI4),
		fn("repeat", tText, tText, tI4), fn("reverse", tText, tText),
		fn("split_part", tText, tText, tText, tI4),
		variadic("pg_concat", tText, true, tAny),
		variadic("num_nulls", tI4, true, tAny), variadic("num_nonnulls", tI4, true, tAny),
		variadic("concat_ws", tText, true, tText, tAny),
		fn("md5", tText, tText), fn("md5", tText, tBytea),
		fn("sha224", tBytea, tBytea), fn("sha256", tBytea, tBytea),
		fn("sha384", tBytea, tBytea), fn("sha512", tBytea, tBytea),
		fn("ascii", tI4, tText), fn("chr", tText, tI4), fn("to_hex", tText, tI4), fn("to_hex", tText, tI8),
		fn("starts_with", tBool, tText, tText),
		fn("like_escape", tText, tText, tText),
		&Overload{Name: "format", Args: []types.TypeID{tText}, Ret: tText},
		&Overload{Name: "format", Args: []types.TypeID{tText, tAny}, Ret: tText, Variadic: true, NonStrict: true},
		fn("quote_ident", tText, tText), fn("quote_literal", tText, tText),
		nonStrict("quote_nullable", tText, tText),
		fn("regexp_replace", tText, tText, tText, tText), fn("regexp_replace", tText, tText, tText, tText, tText),
		fn("regexp_match", tTArr, tText, tText), fn("regexp_match", tTArr, tText, tText, tText),
		fn("regexp_split_to_array", tTArr, tText, tText), fn("regexp_split_to_array", tTArr, tText, tText, tText),
		fn("regexp_count", tI4, tText, tText), fn("regexp_count", tI4, tText, tText, tI4),
		fn("regexp_count", tI4, tText, tText, tI4, tText),
		fn("regexp_instr", tI4, tText, tText), fn("regexp_instr", tI4, tText, tText, tI4),
		fn("regexp_instr", tI4, tText, tText, tI4, tI4), fn("regexp_instr", tI4, tText, tText, tI4, tI4, tI4),
		fn("regexp_instr", tI4, tText, tText, tI4, tI4, tI4, tText),
		fn("regexp_instr", tI4, tText, tText, tI4, tI4, tI4, tText, tI4),
		fn("regexp_substr", tText, tText, tText), fn("regexp_substr", tText, tText, tText, tI4),
		fn("regexp_substr", tText, tText, tText, tI4, tI4), fn("regexp_substr", tText, tText, tText, tI4, tI4, tText),
		fn("regexp_substr", tText, tText, tText, tI4, tI4, tText, tI4),
		fn("regexp_like", tBool, tText, tText), fn("regexp_like", tBool, tText, tText, tText),
		fn("substring", tText, tText, tText), fn("substring", tText, tText, tText, tText),
		nonStrict("string_to_array", tTArr, tText, tText), nonStrict("string_to_array", tTArr, tText, tText, tText),
		fn("translate", tText, tText, tText, tText),
		fn("encode", tText, tBytea, tText), fn("decode", tBytea, tText, tText),
		fn("convert_from", tText, tBytea, tName), fn("convert_to", tBytea, tText, tName),
		fn("pg_icase", tText, tText),
		// pg_array_elem(x) is x's text as an element of an array
		// literal, for the planner's streaming form of array_agg.
		nonStrict("pg_array_elem", tText, tAny),
	)
	// Array functions (docs §9.19), one overload per array type.
	for _, at := range types.ArrayTypes() {
		a := at.ID
		os = append(os, fn("array_to_string", tText, a, tText), nonStrict("array_to_string", tText, a, tText, tText),
			fn("array_upper", tI4, a, tI4),
			fn("array_lower", tI4, a, tI4), fn("array_length", tI4, a, tI4), fn("cardinality", tI4, a),
			nonStrict("array_remove", a, a, at.Elem().ID),
			nonStrict("array_position", tI4, a, at.Elem().ID), nonStrict("array_position", tI4, a, at.Elem().ID, tI4),
			nonStrict("array_positions", types.Int4Array, a, at.Elem().ID),
			nonStrict("array_replace", a, a, at.Elem().ID, at.Elem().ID),
			fn("array_ndims", tI4, a), fn("array_dims", tText, a),
			fn("pg_subscript", at.Elem().ID, a, tI4), // x[i]
			nonStrict("pg_slice", a, a, tI4, tI4),    // x[lo:hi]
			nonStrict("array_fill", a, at.Elem().ID, types.Int4Array),
			nonStrict("array_fill", a, at.Elem().ID, types.Int4Array, types.Int4Array),
			fn("trim_array", a, a, tI4))
		// array_append, array_prepend and array_cat: the functions of
		// the || operators over arrays, as lenient with NULLs.
		app, pre := nonStrict("array_append", a, a, at.Elem().ID), nonStrict("array_prepend", a, at.Elem().ID, a)
		app.Polymorphic, pre.Polymorphic = true, true
		os = append(os, app, pre, nonStrict("array_cat", a, a, a))
	}

	// UUID functions (docs §9.14): a version 4 uuid per call.
	os = append(os, volatile("gen_random_uuid", tUuid))

	// Math functions (docs §9.3).
	for _, t := range []types.TypeID{tI2, tI4, tI8, tF4, tF8, tNum} {
		os = append(os, fn("abs", t, t))
	}
	for _, t := range []types.TypeID{tF8, tNum} {
		for _, name := range []string{"ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "exp", "ln", "log", "log10", "cbrt"} {
			if name == "cbrt" && t == tNum {
				continue // cbrt is float8-only
			}
			os = append(os, fn(name, t, t))
		}
	}
	os = append(os,
		fn("round", tNum, tNum, tI4), fn("trunc", tNum, tNum, tI4),
		fn("mod", tI2, tI2, tI2), fn("mod", tI4, tI4, tI4), fn("mod", tI8, tI8, tI8), fn("mod", tNum, tNum, tNum),
		fn("power", tF8, tF8, tF8), fn("power", tNum, tNum, tNum),
		fn("pow", tF8, tF8, tF8), fn("pow", tNum, tNum, tNum),
		fn("log", tNum, tNum, tNum),
		fn("pi", tF8), volatile("random", tF8), volatile("setseed", types.Unknown, tF8), /* returns void */
		fn("degrees", tF8, tF8), fn("radians", tF8, tF8),
		fn("div", tNum, tNum, tNum),
		fn("gcd", tI4, tI4, tI4), fn("gcd", tI8, tI8, tI8), fn("gcd", tNum, tNum, tNum),
		fn("lcm", tI4, tI4, tI4), fn("lcm", tI8, tI8, tI8), fn("lcm", tNum, tNum, tNum),
		fn("width_bucket", tI4, tF8, tF8, tF8, tI4), fn("width_bucket", tI4, tNum, tNum, tNum, tI4),
		fn("factorial", tNum, tI8),
		fn("scale", tI4, tNum), fn("min_scale", tI4, tNum), fn("trim_scale", tNum, tNum),
	)
	for _, name := range []string{"sin", "cos", "tan", "asin", "acos", "atan", "cot", "sinh", "cosh", "tanh",
		"sind", "cosd", "tand", "asind", "acosd", "atand"} {
		os = append(os, fn(name, tF8, tF8))
	}
	os = append(os, fn("atan2", tF8, tF8, tF8), fn("atan2d", tF8, tF8, tF8))

	// Conditional functions (docs §9.18). nullif is usually bound as a
	// Case; greatest and least ignore NULLs.
	os = append(os, &Overload{Name: "nullif", Args: []types.TypeID{tAny, tAny}, RetFn: sameAsArg(0), NonStrict: true})
	for _, name := range []string{"greatest", "least"} {
		os = append(os, &Overload{Name: name, Args: []types.TypeID{tAny}, Variadic: true, RetFn: sameAsArg(0), NonStrict: true})
	}

	// Date and time functions (docs §9.9). now() and friends are stable
	// within a statement (they read EvalCtx.Now); clock_timestamp moves.
	os = append(os,
		fn("now", tTSTZ), fn("current_timestamp", tTSTZ), fn("transaction_timestamp", tTSTZ),
		fn("statement_timestamp", tTSTZ), volatile("clock_timestamp", tTSTZ), volatile("timeofday", tText),
		// proctime() is RisingWave's processing time (not in PostgreSQL).
		volatile("proctime", tTSTZ),
		volatile("pg_sleep", types.Unknown, tF8), /* returns void */
		fn("current_date", tDate), fn("localtimestamp", tTS), fn("localtime", tTime),
		fn("date_trunc", tTS, tText, tTS), fn("date_trunc", tTSTZ, tText, tTSTZ),
		fn("date_trunc", tIv, tText, tIv), fn("date_trunc", tTSTZ, tText, tTSTZ, tText),
		fn("age", tIv, tTS), fn("age", tIv, tTSTZ), fn("age", tIv, tTS, tTS), fn("age", tIv, tTSTZ, tTSTZ),
		fn("make_date", tDate, tI4, tI4, tI4),
		fn("make_time", tTime, tI4, tI4, tF8),
		fn("make_timestamp", tTS, tI4, tI4, tI4, tI4, tI4, tF8),
		fn("make_timestamptz", tTSTZ, tI4, tI4, tI4, tI4, tI4, tF8),
		fn("make_timestamptz", tTSTZ, tI4, tI4, tI4, tI4, tI4, tF8, tText),
		// make_interval(years, months, weeks, days, hours, mins, secs), all
		// optional with default 0; the binder fills in missing arguments.
		fn("make_interval", tIv, tI4, tI4, tI4, tI4, tI4, tI4, tF8),
		fn("to_char", tText, tTS, tText), fn("to_char", tText, tTSTZ, tText), fn("to_char", tText, tIv, tText),
		fn("to_char", tText, tI4, tText), fn("to_char", tText, tI8, tText), fn("to_char", tText, tNum, tText),
		fn("to_char", tText, tF4, tText), fn("to_char", tText, tF8, tText),
		fn("to_date", tDate, tText, tText), fn("to_timestamp", tTSTZ, tF8), fn("to_timestamp", tTSTZ, tText, tText),
		fn("to_number", tNum, tText, tText),
		fn("justify_days", tIv, tIv), fn("justify_hours", tIv, tIv), fn("justify_interval", tIv, tIv),
		fn("date_bin", tTS, tIv, tTS, tTS), fn("date_bin", tTSTZ, tIv, tTSTZ, tTSTZ),
		fn("isfinite", tBool, tDate), fn("isfinite", tBool, tTS), fn("isfinite", tBool, tTSTZ), fn("isfinite", tBool, tIv),
		// timezone(zone, x) is x AT TIME ZONE zone.
		fn("timezone", tTSTZ, tText, tTS), fn("timezone", tTS, tText, tTSTZ),
		fn("timezone", tTS, tIv, tTSTZ), fn("timezone", tTSTZ, tIv, tTS),
	)
	for _, t := range []types.TypeID{tDate, tTS, tTSTZ, tTime, tIv} {
		// date_part returns float8; EXTRACT (pg_extract) numeric since 14.
		os = append(os, fn("date_part", tF8, tText, t), fn("pg_extract", tNum, tText, t))
	}

	// System information functions (docs §9.26), answering as a single
	// local Postgres 15 server would, with "root" owning everything.
	os = append(os,
		fn("version", tText), fn("current_database", tName), fn("current_schema", tName),
		fn("current_catalog", tName),
		fn("current_schemas", tTArr, tBool), fn("pg_my_temp_schema", tOid),
		fn("current_user", tName), fn("session_user", tName), fn("user", tName), fn("current_role", tName),
		fn("current_setting", tText, tText), fn("current_setting", tText, tText, tBool),
		&Overload{Name: "set_config", Args: []types.TypeID{tText, tText, tBool}, Ret: tText, NonStrict: true, Volatile: true},
		nonStrict("pg_typeof", tText, tAny),
		// pg_backend_pid is the session's: never folded into a plan
		// another session may run.
		volatile("pg_backend_pid", tI4),
		volatile("pg_cancel_backend", tBool, tI4),
		volatile("pg_terminate_backend", tBool, tI4), volatile("pg_terminate_backend", tBool, tI4, tI8),
		volatile("pg_reload_conf", tBool),
		fn("pg_table_is_visible", tBool, tOid), fn("pg_type_is_visible", tBool, tOid),
		fn("pg_function_is_visible", tBool, tOid), fn("pg_operator_is_visible", tBool, tOid),
		fn("pg_conversion_is_visible", tBool, tOid), fn("pg_opclass_is_visible", tBool, tOid),
		fn("pg_opfamily_is_visible", tBool, tOid), fn("pg_database_size", tI8, tName),
		fn("pg_get_function_sqlbody", tText, tOid),
		fn("pg_get_function_result", tText, tOid), fn("pg_get_function_arguments", tText, tOid),
		fn("pg_get_function_identity_arguments", tText, tOid), fn("pg_get_functiondef", tText, tOid),
		fn("pg_tablespace_location", tText, tOid),
		// format_type is non-strict: a NULL typmod means "no modifier".
		fn("regclassout", tText, tOid), fn("pg_regin", tOid, tText, tText), fn("pg_regout", tText, tOid, tText),
		fn("pg_get_userbyid", tName, tOid), nonStrict("format_type", tText, tOid, tI4),
		fn("pg_encoding_to_char", tName, tI4),
		fn("pg_get_expr", tText, tText, tOid), fn("pg_get_expr", tText, tText, tOid, tBool),
		fn("pg_get_indexdef", tText, tOid), fn("pg_get_indexdef", tText, tOid, tI4, tBool),
		fn("pg_get_constraintdef", tText, tOid), fn("pg_get_constraintdef", tText, tOid, tBool),
		fn("pg_get_viewdef", tText, tOid), fn("pg_get_viewdef", tText, tOid, tBool),
		fn("pg_get_triggerdef", tText, tOid), fn("pg_get_triggerdef", tText, tOid, tBool),
		fn("pg_get_statisticsobjdef_columns", tText, tOid),
		fn("pg_get_ruledef", tText, tOid), fn("pg_get_ruledef", tText, tOid, tBool),
		fn("pg_table_size", tI8, tOid), fn("pg_relation_size", tI8, tOid),
		fn("pg_total_relation_size", tI8, tOid), fn("pg_indexes_size", tI8, tOid),
		fn("pg_size_pretty", tText, tI8),
		fn("obj_description", tText, tOid), fn("obj_description", tText, tOid, tName),
		fn("col_description", tText, tOid, tI4), fn("shobj_description", tText, tOid, tName),
		fn("has_table_privilege", tBool, tText, tText), fn("has_table_privilege", tBool, tName, tText, tText),
		fn("has_table_privilege", tBool, tOid, tText),
		fn("has_sequence_privilege", tBool, tText, tText), fn("has_sequence_privilege", tBool, tName, tText, tText),
		fn("has_function_privilege", tBool, tText, tText), fn("has_function_privilege", tBool, tName, tText, tText),
		fn("has_function_privilege", tBool, tOid, tText), fn("has_function_privilege", tBool, tName, tOid, tText),
		fn("has_schema_privilege", tBool, tText, tText), fn("has_schema_privilege", tBool, tName, tText, tText),
		fn("has_database_privilege", tBool, tText, tText), fn("has_database_privilege", tBool, tName, tText, tText),
		fn("pg_relation_is_publishable", tBool, tOid),
		fn("pg_postmaster_start_time", tTSTZ),
		fn("inet_server_addr", tText), fn("inet_server_port", tI4),
		volatile("txid_current", tI8),
		fn("pg_is_in_recovery", tBool),
	)

	// jsonb functions (docs §9.16).
	os = append(os,
		fn("jsonb_typeof", tText, tJsonb),
		variadic("jsonb_build_object", tJsonb, true, tAny), fn("jsonb_build_object", tJsonb),
		variadic("jsonb_build_array", tJsonb, true, tAny), fn("jsonb_build_array", tJsonb),
		nonStrict("to_jsonb", tJsonb, tAny),
		fn("jsonb_array_length", tI4, tJsonb),
		variadic("jsonb_extract_path", tJsonb, false, tJsonb, tText),
		variadic("jsonb_extract_path_text", tText, false, tJsonb, tText),
		fn("jsonb_pretty", tText, tJsonb),
		fn("jsonb_path_exists", tBool, tJsonb, types.Jsonpath), fn("jsonb_path_exists", tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_exists", tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_match", tBool, tJsonb, types.Jsonpath), fn("jsonb_path_match", tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_match", tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_array", tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_array", tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_array", tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_first", tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_first", tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_first", tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		// The *_tz forms read datetime values without a time zone in the
		// session's when they compare them with ones that have one.
		fn("jsonb_path_exists_tz", tBool, tJsonb, types.Jsonpath), fn("jsonb_path_exists_tz", tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_exists_tz", tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_match_tz", tBool, tJsonb, types.Jsonpath), fn("jsonb_path_match_tz", tBool, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_match_tz", tBool, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_array_tz", tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_array_tz", tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_array_tz", tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		fn("jsonb_path_query_first_tz", tJsonb, tJsonb, types.Jsonpath), fn("jsonb_path_query_first_tz", tJsonb, tJsonb, types.Jsonpath, tJsonb),
		fn("jsonb_path_query_first_tz", tJsonb, tJsonb, types.Jsonpath, tJsonb, tBool),
		// SQL/JSON path (docs §9.16.2; impl_jsonpath.go); @? and @@ are
		// pg_jsonpath_exists and pg_jsonpath_match.
		fn("pg_jsonpath_exists", tBool, tJsonb, types.Jsonpath), fn("pg_jsonpath_match", tBool, tJsonb, types.Jsonpath),
		fn("jsonb_strip_nulls", tJsonb, tJsonb),
		fn("jsonb_object", tJsonb, tTArr), fn("jsonb_object", tJsonb, tTArr, tTArr),
		fn("jsonb_set", tJsonb, tJsonb, tTArr, tJsonb), fn("jsonb_set", tJsonb, tJsonb, tTArr, tJsonb, tBool),
		fn("jsonb_insert", tJsonb, tJsonb, tTArr, tJsonb), fn("jsonb_insert", tJsonb, tJsonb, tTArr, tJsonb, tBool),
		// jsonb_set_lax is called with a NULL new_value, which its last
		// argument (default 'use_json_null') says what to do with.
		nonStrict("jsonb_set_lax", tJsonb, tJsonb, tTArr, tJsonb),
		nonStrict("jsonb_set_lax", tJsonb, tJsonb, tTArr, tJsonb, tBool),
		nonStrict("jsonb_set_lax", tJsonb, tJsonb, tTArr, tJsonb, tBool, tText),
	)
	// Sequence functions (docs §9.17) on the sequences of serial and
	// identity columns, named by text or by a regclass (an OID; the
	// binder reads a 'name'::regclass literal as the text).
	os = append(os,
		volatile("nextval", tI8, tText), volatile("currval", tI8, tText), volatile("lastval", tI8),
		volatile("setval", tI8, tText, tI8), volatile("setval", tI8, tText, tI8, tBool),
		volatile("nextval", tI8, tOid), volatile("currval", tI8, tOid),
		volatile("setval", tI8, tOid, tI8), volatile("setval", tI8, tOid, tI8, tBool),
		volatile("pg_get_serial_sequence", tText, tText, tText),
	)
	// json functions (docs §9.16): the json type keeps its text.
	os = append(os,
		fn("to_json", tJson, tAny),
		variadic("json_build_object", tJson, true, tAny), variadic("pg_row_to_json", tJson, true, tAny), fn("json_build_object", tJson),
		variadic("json_build_array", tJson, true, tAny), fn("json_build_array", tJson),
		variadic("json_extract_path", tJson, false, tJson, tText),
		variadic("json_extract_path_text", tText, false, tJson, tText),
		fn("json_object", tJson, tTArr), fn("json_object", tJson, tTArr, tTArr),
		fn("json_typeof", tText, tJson),
		fn("json_array_length", tI4, tJson),
		// pg_json_key(k) is the text of json_object_agg's key k, for
		// the planner's streaming form of the json aggregates: a NULL
		// key is 22023, as in the aggregate.
		nonStrict("pg_json_key", tText, tAny),
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
		os = append(os, fn("tumble_start", ret, t, tIv), fn("tumble_start", ret, t, tIv, tIv))
	}
	return os
}
