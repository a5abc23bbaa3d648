package functions

import (
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The json type's builders and conversions (docs §9.16.1). A json datum
// is the text as written, so a builder writes text directly, spaced as
// PostgreSQL's json.c writes it: json_build_object's `"k" : v` pairs
// joined by ", ", arrays from array_to_json without spaces, json_agg's
// elements joined by ", ", json_object_agg's `{ "k" : v }`.

// appendJSONDatum appends d (of type t) as PostgreSQL's datum_to_json
// writes it: numbers as they print unless they are not JSON numbers
// (NaN, Infinity), dates and timestamps in ISO 8601 (XSD) form, json as
// written, jsonb as it prints, arrays as JSON arrays, everything else as
// a JSON string of its output text. key asks for an object key: every
// scalar is quoted and arrays and json are refused (22023).
func appendJSONDatum(b *strings.Builder, ctx *Context, d types.Datum, t types.T, key bool) error {
	if key && (t.IsArray() || t.ID == types.Json || t.ID == types.Jsonb) {
		return pgerr.New(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	}
	if d.Null {
		b.WriteString("null")
		return nil
	}
	switch {
	case t.ID == types.Json || t.ID == types.Jsonb:
		b.WriteString(d.S)
		return nil
	case t.IsArray():
		elems, err := types.ArrayElems(d.S, t, ctx.loc())
		if err != nil {
			return err
		}
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendJSONDatum(b, ctx, e, t.Elem(), false); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case t.ID == types.Bool:
		s := "false"
		if d.I != 0 {
			s = "true"
		}
		if key {
			types.WriteJSONString(b, s)
		} else {
			b.WriteString(s)
		}
		return nil
	case t.ID == types.Int2 || t.ID == types.Int4 || t.ID == types.Int8 || t.ID == types.Float4 ||
		t.ID == types.Float8 || t.ID == types.Numeric:
		s := formatValue(ctx, d, t)
		if !key && validJSONNumber(s) {
			b.WriteString(s)
		} else {
			types.WriteJSONString(b, s)
		}
		return nil
	}
	types.WriteJSONString(b, jsonScalarText(ctx, d, t))
	return nil
}

// jsonScalarText is the text to_json quotes for a value of type t:
// dates and timestamps in XSD form (2024-02-29T13:45:06.5+00:00,
// infinity spelled out), other types their output text.
func jsonScalarText(ctx *Context, d types.Datum, t types.T) string {
	switch t.ID {
	case types.Date, types.Timestamp, types.Timestamptz:
		if d.I == types.PosInfinity {
			return "infinity"
		}
		if d.I == types.NegInfinity {
			return "-infinity"
		}
	}
	s := formatValue(ctx, d, t)
	switch t.ID {
	case types.Timestamp:
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
	case types.Timestamptz:
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		// The zone offset always has minutes: +00 is written +00:00.
		if i := strings.LastIndexAny(s, "+-"); i > 10 && !strings.Contains(s[i:], ":") {
			s += ":00"
		}
	}
	return s
}

// validJSONNumber reports whether s is a number by JSON's grammar (what
// PostgreSQL's IsValidJsonNumber checks before writing a number bare).
func validJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// JSONText returns d (of type t) as to_json writes it; loc is the
// session's time zone (nil: UTC).
func JSONText(d types.Datum, t types.T, ctx *Context) (string, error) {
	var b strings.Builder
	err := appendJSONDatum(&b, ctx, d, t, false)
	return b.String(), err
}

// JSONArrayAgg returns json_agg's result over vals of type t, in order:
// elements joined by ", ", and arrays (structured values) after a line
// break, as PostgreSQL's json_agg_transfn writes them.
func JSONArrayAgg(vals []types.Datum, t types.T) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
			if !v.Null && t.IsArray() {
				b.WriteString("\n ")
			}
		}
		if err := appendJSONDatum(&b, nil, v, t, false); err != nil {
			return "", err
		}
	}
	b.WriteByte(']')
	return b.String(), nil
}

// JSONObjectKey returns the object key json_object_agg and
// jsonb_object_agg make of the non-NULL key d of type t: text as it is,
// other scalars as to_json writes them (dates and timestamps in ISO 8601
// form), arrays and json refused (22023). ctx gives the time zone (nil:
// UTC).
func JSONObjectKey(ctx *Context, d types.Datum, t types.T) (string, error) {
	if t.ID == types.Text || t.ID == types.Varchar || t.ID == types.Name || t.ID == types.Char {
		return d.S, nil
	}
	var b strings.Builder
	if err := appendJSONDatum(&b, ctx, d, t, true); err != nil {
		return "", err
	}
	v, err := types.ParseJSONB(b.String())
	if err != nil {
		return "", err
	}
	return v.Str, nil
}

// JSONObjectAgg returns json_object_agg's result over the pairs keys
// (of type kt) and vals (of type vt), in order and duplicates kept:
// `{ "k" : v, ... }`.
func JSONObjectAgg(keys []types.Datum, kt types.T, vals []types.Datum, vt types.T) (string, error) {
	var b strings.Builder
	b.WriteString("{ ")
	for i := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := appendJSONDatum(&b, nil, keys[i], kt, true); err != nil {
			return "", err
		}
		b.WriteString(" : ")
		if err := appendJSONDatum(&b, nil, vals[i], vt, false); err != nil {
			return "", err
		}
	}
	b.WriteString(" }")
	return b.String(), nil
}

// jsonObjectPairs reads json_object's text-array arguments: one array of
// alternating keys and values, or an array of keys and one of values.
func jsonObjectPairs(d []types.Datum) (keys, vals []*string, err error) {
	if len(d) == 1 {
		elems, err := parseTextArray(d[0].S)
		if err != nil {
			return nil, nil, err
		}
		if len(elems)%2 != 0 {
			return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "array must have even number of elements")
		}
		for i := 0; i < len(elems); i += 2 {
			keys, vals = append(keys, elems[i]), append(vals, elems[i+1])
		}
	} else {
		if keys, err = parseTextArray(d[0].S); err != nil {
			return nil, nil, err
		}
		if vals, err = parseTextArray(d[1].S); err != nil {
			return nil, nil, err
		}
		if len(keys) != len(vals) {
			return nil, nil, pgerr.New(pgerr.ArraySubscriptError, "mismatched array dimensions")
		}
	}
	for _, k := range keys {
		if k == nil {
			return nil, nil, pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for object key")
		}
	}
	return keys, vals, nil
}

// jsonObjectText is json_object's result for keys and vals.
func jsonObjectText(keys, vals []*string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		types.WriteJSONString(&b, *k)
		b.WriteString(" : ")
		if vals[i] == nil {
			b.WriteString("null")
		} else {
			types.WriteJSONString(&b, *vals[i])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// jsonOverloads lists the json functions (docs §9.16): the json type
// keeps its text.
func jsonOverloads() []*Overload {
	var os []*Overload
	toJsonImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			s, err := JSONText(d[0], args[0], ctx)
			return types.DString(s), err
		}}, true
	}
	os = append(os, fn("to_json", toJsonImpl, tJson, tAny))
	jsonBuildArrayImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			var b strings.Builder
			b.WriteByte('[')
			for i, x := range d {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := appendJSONDatum(&b, ctx, x, args[i], false); err != nil {
					return types.NullDatum, err
				}
			}
			b.WriteByte(']')
			return dText(b.String())
		}}, true
	}
	os = append(os, variadic("json_build_array", jsonBuildArrayImpl, tJson, true, tAny),
		fn("json_build_array", jsonBuildArrayImpl, tJson))
	jsonBuildObjectImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if len(d)%2 != 0 {
				return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of json_build_object() must consist of alternating keys and values.")
			}
			var b strings.Builder
			b.WriteByte('{')
			for i := 0; i < len(d); i += 2 {
				if i > 0 {
					b.WriteString(", ")
				}
				if d[i].Null {
					return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "argument %d cannot be null", i+1).
						WithHint("Object keys should be text.")
				}
				if err := appendJSONDatum(&b, ctx, d[i], args[i], true); err != nil {
					return types.NullDatum, err
				}
				b.WriteString(" : ")
				if err := appendJSONDatum(&b, ctx, d[i+1], args[i+1], false); err != nil {
					return types.NullDatum, err
				}
			}
			b.WriteByte('}')
			return dText(b.String())
		}}, true
	}
	os = append(os, variadic("json_build_object", jsonBuildObjectImpl, tJson, true, tAny),
		fn("json_build_object", jsonBuildObjectImpl, tJson))
	// pg_row_to_json(key1, value1, ...) is row_to_json of a record
	// whose fields the binder spelled out (planner.rowToJSON): an object
	// in field order, written without spaces as PostgreSQL writes it; of
	// type jsonb for to_jsonb(r).
	pgRowToJsonImpl := func(args []types.T, ret types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			var b strings.Builder
			b.WriteByte('{')
			for i := 0; i+1 < len(d); i += 2 {
				if i > 0 {
					b.WriteByte(',')
				}
				types.WriteJSONString(&b, d[i].S)
				b.WriteByte(':')
				if err := appendJSONDatum(&b, ctx, d[i+1], args[i+1], false); err != nil {
					return types.NullDatum, err
				}
			}
			b.WriteByte('}')
			if ret.ID == types.Jsonb {
				s, err := types.CanonicalJSONB(b.String())
				if err != nil {
					return types.NullDatum, err
				}
				return dText(s)
			}
			return dText(b.String())
		}}, true
	}
	os = append(os, variadic("pg_row_to_json", pgRowToJsonImpl, tJson, true, tAny))
	for _, name := range []string{"json_object", "jsonb_object"} {
		jsonb := name == "jsonb_object"
		im := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
			keys, vals, err := jsonObjectPairs(d)
			if err != nil {
				return types.NullDatum, err
			}
			s := jsonObjectText(keys, vals)
			if jsonb {
				if s, err = types.CanonicalJSONB(s); err != nil {
					return types.NullDatum, err
				}
			}
			return dText(s)
		})
		ret := tJson
		if jsonb {
			ret = tJsonb
		}
		os = append(os, fn(name, im, ret, tTArr), fn(name, im, ret, tTArr, tTArr))
	}
	pgJsonKeyImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 1 {
			return Impl{}, false
		}
		kt := args[0]
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
			}
			var b strings.Builder
			if err := appendJSONDatum(&b, ctx, d[0], kt, true); err != nil {
				return types.NullDatum, err
			}
			return dText(b.String())
		}}, true
	}
	os = append(os, nonStrict("pg_json_key", pgJsonKeyImpl, tText, tAny))
	jsonTypeofImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := types.ParseJSONB(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		return dText(map[types.JSONKind]string{types.JSONNull: "null", types.JSONString: "string", types.JSONNumber: "number",
			types.JSONBool: "boolean", types.JSONArray: "array", types.JSONObject: "object"}[v.Kind])
	})
	os = append(os, fn("json_typeof", jsonTypeofImpl, tText, tJson))
	return os
}

// jsonOpOverloads lists the json forms of -> ->> #> #>> (which return
// the selected part of the text as written) and json_extract_path.
func jsonOpOverloads() []*Overload {
	var os []*Overload
	for _, name := range []string{"pg_json_get", "pg_json_get_text"} {
		asText := name == "pg_json_get_text"
		im := func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) != 2 || args[0].ID != types.Json {
				return Impl{}, false
			}
			byIndex := args[1].IsInteger()
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				if err := jsonNulEscape(d[0].S); err != nil {
					return types.NullDatum, err
				}
				var part string
				var ok bool
				if byIndex {
					part, ok = jsonElem(d[0].S, int(d[1].I))
				} else {
					part, ok = jsonField(d[0].S, d[1].S)
				}
				return jsonPart(part, ok, asText)
			}}, true
		}
		ret := tJson
		if asText {
			ret = tText
		}
		os = append(os, op(name, im, ret, tJson, tText), op(name, im, ret, tJson, tI4))
	}
	for _, name := range []string{"pg_json_path", "pg_json_path_text"} {
		asText := name == "pg_json_path_text"
		im := func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) != 2 || args[0].ID != types.Json {
				return Impl{}, false
			}
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				keys, err := parseTextArray(d[1].S)
				if err != nil {
					return types.NullDatum, err
				}
				return jsonTextPath(d[0].S, keys, asText)
			}}, true
		}
		ret := tJson
		if asText {
			ret = tText
		}
		os = append(os, op(name, im, ret, tJson, tTArr))
	}
	// json_extract_path(j, VARIADIC path): j #> path with the path's
	// elements as arguments (strict: a NULL element is a NULL result).
	for _, name := range []string{"json_extract_path", "json_extract_path_text"} {
		asText := name == "json_extract_path_text"
		ret := tJson
		if asText {
			ret = tText
		}
		os = append(os, variadic(name, row(func(_ *Context, d []types.Datum) (types.Datum, error) {
			keys := make([]*string, len(d)-1)
			for i := range keys {
				keys[i] = &d[1+i].S
			}
			return jsonTextPath(d[0].S, keys, asText)
		}), ret, false, tJson, tText))
	}
	return os
}

// jsonTextPath follows keys (object fields or array indexes) from the
// json text doc: #> and #>> of json.
func jsonTextPath(doc string, keys []*string, asText bool) (types.Datum, error) {
	if err := jsonNulEscape(doc); err != nil {
		return types.NullDatum, err
	}
	part, ok := strings.TrimSpace(doc), true
	for _, k := range keys {
		if k == nil {
			return types.NullDatum, nil
		}
		switch {
		case strings.HasPrefix(part, "{"):
			part, ok = jsonField(part, *k)
		case strings.HasPrefix(part, "["):
			i, err := strconv.Atoi(strings.TrimSpace(*k))
			if err != nil {
				return types.NullDatum, nil
			}
			part, ok = jsonElem(part, i)
		default:
			ok = false
		}
		if !ok {
			break
		}
	}
	return jsonPart(part, ok, asText)
}

// jsonNulEscape fails as PostgreSQL 15's -> ->> #> #>> and
// json_extract_path(_text) of json do when any string of the document
// holds \u0000 (they de-escape every string of it as they parse it):
// 22P05 unsupported Unicode escape sequence, with the document up to
// the escape as context.
func jsonNulEscape(doc string) error {
	if !strings.Contains(doc, `\u0000`) {
		return nil
	}
	if _, err := types.ParseJSONB(doc); err != nil && pgerr.As(err).Code == pgerr.UntranslatableCharacter {
		return err
	}
	return nil
}

// jsonPart returns a selected part of json text: as json, or for the
// text forms a string unescaped and null as NULL.
func jsonPart(part string, ok, asText bool) (types.Datum, error) {
	if !ok {
		return types.NullDatum, nil
	}
	if asText {
		switch {
		case part == "null":
			return types.NullDatum, nil
		case strings.HasPrefix(part, `"`):
			v, err := types.ParseJSONB(part)
			if err != nil {
				return types.NullDatum, err
			}
			return dText(v.Str)
		}
	}
	return dText(part)
}

// jsonWS skips JSON whitespace from i.
func jsonWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// jsonEnd returns the end of the valid JSON value that starts at i.
func jsonEnd(s string, i int) int {
	switch s[i] {
	case '"':
		for i++; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(s)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				i = jsonEnd(s, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(s)
	}
	for i < len(s) && !strings.ContainsRune(" \t\n\r,]}", rune(s[i])) {
		i++
	}
	return i
}

// jsonMembers calls f with each member of the object or array that is
// the valid json text s: the key (undecoded, with its quotes; "" for an
// array element) and the value's text. It returns false when s is
// neither.
func jsonMembers(s string, f func(key, val string)) bool {
	i := jsonWS(s, 0)
	if i >= len(s) || (s[i] != '{' && s[i] != '[') {
		return false
	}
	obj := s[i] == '{'
	i = jsonWS(s, i+1)
	for i < len(s) && s[i] != '}' && s[i] != ']' {
		key := ""
		if obj {
			e := jsonEnd(s, i)
			key = s[i:e]
			i = jsonWS(s, e)
			i = jsonWS(s, i+1) // the colon
		}
		e := jsonEnd(s, i)
		f(key, s[i:e])
		i = jsonWS(s, e)
		if i < len(s) && s[i] == ',' {
			i = jsonWS(s, i+1)
		}
	}
	return true
}

// jsonField returns the value of key in the json object s (the last one
// when the key repeats, as PostgreSQL's json -> finds it).
func jsonField(s, key string) (string, bool) {
	if t := strings.TrimLeft(s, " \t\n\r"); !strings.HasPrefix(t, "{") {
		return "", false
	}
	var out string
	found := false
	jsonMembers(s, func(k, v string) {
		name := k[1 : len(k)-1]
		if strings.IndexByte(name, '\\') >= 0 {
			if d, err := types.ParseJSONB(k); err == nil {
				name = d.Str
			}
		}
		if name == key {
			out, found = v, true
		}
	})
	return out, found
}

// jsonElem returns element i of the json array s, counting from the end
// when i is negative.
func jsonElem(s string, i int) (string, bool) {
	if t := strings.TrimLeft(s, " \t\n\r"); !strings.HasPrefix(t, "[") {
		return "", false
	}
	var elems []string
	jsonMembers(s, func(_, v string) { elems = append(elems, v) })
	if i < 0 {
		i += len(elems)
	}
	if i < 0 || i >= len(elems) {
		return "", false
	}
	return elems[i], true
}
