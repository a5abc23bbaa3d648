package functions

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// jsonb functions and operators (docs §9.16). A jsonb datum holds its
// canonical text; functions decode it into Go values (numbers kept as
// json.Number) and encode results back in Postgres's canonical form:
// object keys ordered by length then bytes, ", " and ": " separators.

func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, pgerr.New(pgerr.InvalidJSONText, "invalid input syntax for type json")
	}
	return v, nil
}

// writeJSON appends v's canonical jsonb text.
func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		d, _, err := apd.NewFromString(string(x))
		if err != nil {
			b.WriteString(string(x))
		} else {
			// jsonb numbers are numerics, which have no negative zero.
			if d.IsZero() {
				d.Negative = false
			}
			b.WriteString(normScale(d).Text('f'))
		}
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, k)
			b.WriteString(": ")
			writeJSON(b, x[k])
		}
		b.WriteByte('}')
	}
}

func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

// toJSONValue converts a SQL value of type t to a JSON value (to_jsonb).
func toJSONValue(ctx *Context, d types.Datum, t types.T) any {
	if d.Null {
		return nil
	}
	switch {
	case t.ID == types.Jsonb || t.ID == types.Json:
		v, _ := parseJSON(d.S)
		return v
	case t.IsArray():
		// An array becomes a JSON array of its elements, converted the
		// same way (a malformed array text, which a typed datum cannot
		// hold, falls back to its text).
		elems, err := types.ArrayElems(d.S, t, ctx.loc())
		if err != nil {
			return d.S
		}
		arr := make([]any, len(elems))
		for i, e := range elems {
			arr[i] = toJSONValue(ctx, e, t.Elem())
		}
		return arr
	case t.ID == types.Bool:
		return d.I != 0
	case t.IsNumeric():
		// NaN and the infinities are not JSON numbers: to_jsonb
		// writes them as strings, as to_json does.
		s := formatValue(ctx, d, t)
		if !validJSONNumber(s) {
			return s
		}
		return json.Number(s)
	case t.ID == types.Date || t.ID == types.Timestamp || t.ID == types.Timestamptz:
		return jsonScalarText(ctx, d, t)
	}
	return formatValue(ctx, d, t)
}

func jsonbConcat(_ *Context, d []types.Datum) (types.Datum, error) {
	a, err := parseJSON(d[0].S)
	if err != nil {
		return types.NullDatum, err
	}
	b, err := parseJSON(d[1].S)
	if err != nil {
		return types.NullDatum, err
	}
	ao, aok := a.(map[string]any)
	bo, bok := b.(map[string]any)
	if aok && bok {
		for k, v := range bo {
			ao[k] = v
		}
		return dText(jsonText(ao))
	}
	arr := func(v any) []any {
		if x, ok := v.([]any); ok {
			return x
		}
		return []any{v}
	}
	return dText(jsonText(append(arr(a), arr(b)...)))
}

// jsonGet is -> / ->>: an object field by key or an array element by
// index (negative counts from the end); nil when absent.
func jsonGet(v any, key types.Datum, byIndex bool) (any, bool) {
	if byIndex {
		arr, ok := v.([]any)
		if !ok {
			return nil, false
		}
		i := int(key.I)
		if i < 0 {
			i += len(arr)
		}
		if i < 0 || i >= len(arr) {
			return nil, false
		}
		return arr[i], true
	}
	switch x := v.(type) {
	case map[string]any:
		e, ok := x[key.S]
		return e, ok
	case []any:
		// #> paths index arrays with text keys.
		i, err := strconv.Atoi(key.S)
		if err != nil {
			return nil, false
		}
		return jsonGet(x, types.DInt(int64(i)), true)
	}
	return nil, false
}

// jsonResult returns v as jsonb, or as text for the ->> forms (strings
// unquoted, JSON null as SQL NULL).
func jsonResult(v any, ok, asText bool) (types.Datum, error) {
	if !ok {
		return types.NullDatum, nil
	}
	if asText {
		switch x := v.(type) {
		case nil:
			return types.NullDatum, nil
		case string:
			return dText(x)
		}
	}
	return dText(jsonText(v))
}

// jsonContains is @>: every part of b appears in a (Postgres's jsonb
// containment, docs §8.14.3).
func jsonContains(a, b any) bool {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			return false
		}
		for k, e := range bv {
			ae, ok := av[k]
			if !ok || !jsonContains(ae, e) {
				return false
			}
		}
		return true
	case []any:
		av, ok := a.([]any)
		if !ok {
			return false
		}
		for _, e := range bv {
			found := false
			for _, ae := range av {
				if jsonContains(ae, e) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case json.Number:
		an, ok := a.(json.Number)
		if !ok {
			return false
		}
		x, _, _ := apd.NewFromString(string(an))
		y, _, _ := apd.NewFromString(string(bv))
		return x != nil && y != nil && x.Cmp(y) == 0
	default:
		if arr, ok := a.([]any); ok {
			// A scalar is contained in an array holding it.
			for _, e := range arr {
				if jsonContains(e, b) {
					return true
				}
			}
			return false
		}
		return a == b
	}
}

// jsonbOverloads lists the jsonb functions (docs §9.16) and operators,
// under the names the binder gives them: -> (pg_json_get), ->>
// (pg_json_get_text), #> (pg_json_path), #>> (pg_json_path_text), @>
// (pg_json_contains), <@ (pg_json_contained), ? (pg_json_exists), ?|
// and ?& (pg_json_exists_any, pg_json_exists_all).
func jsonbOverloads() []*Overload {
	var os []*Overload
	for _, name := range []string{"pg_json_get", "pg_json_get_text"} {
		asText := name == "pg_json_get_text"
		im := func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) == 2 && args[0].ID == types.Json {
				return Impl{}, false // json's own (impl_json_text.go)
			}
			byIndex := args[1].IsInteger()
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				v, err := parseJSON(d[0].S)
				if err != nil {
					return types.NullDatum, err
				}
				e, ok := jsonGet(v, d[1], byIndex)
				return jsonResult(e, ok, asText)
			}}, true
		}
		ret := tJsonb
		if asText {
			ret = tText
		}
		os = append(os, op(name, im, ret, tJsonb, tText), op(name, im, ret, tJsonb, tI4))
	}
	path := func(asText bool) RowFn {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			v, err := parseJSON(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			var keys []*string
			if len(d) == 2 && d[1].S != "" && d[1].S[0] == '{' {
				if keys, err = parseTextArray(d[1].S); err != nil {
					return types.NullDatum, err
				}
			} else {
				for i := range d[1:] {
					if d[1+i].Null {
						return types.NullDatum, nil
					}
					keys = append(keys, &d[1+i].S)
				}
			}
			ok := true
			for _, k := range keys {
				if k == nil {
					return types.NullDatum, nil
				}
				if v, ok = jsonGet(v, types.DString(*k), false); !ok {
					break
				}
			}
			return jsonResult(v, ok, asText)
		}
	}
	// #> and #>> over jsonb; json has its own (impl_json_text.go).
	jsonbPath := func(asText bool) ImplFactory {
		return func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) == 2 && args[0].ID == types.Json {
				return Impl{}, false
			}
			return Impl{Row: path(asText)}, true
		}
	}
	os = append(os, fn("pg_json_path", jsonbPath(false), tJsonb, tJsonb, tTArr))
	os = append(os, fn("pg_json_path_text", jsonbPath(true), tText, tJsonb, tTArr))
	os = append(os, variadic("jsonb_extract_path", row(path(false)), tJsonb, false, tJsonb, tText))
	os = append(os, variadic("jsonb_extract_path_text", row(path(true)), tText, false, tJsonb, tText))
	contains := func(flip bool) RowFn {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			a, err := parseJSON(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			b, err := parseJSON(d[1].S)
			if err != nil {
				return types.NullDatum, err
			}
			if flip {
				a, b = b, a
			}
			return types.DBool(jsonContains(a, b)), nil
		}
	}
	// @> and <@ over jsonb; arrays have their own (impl_array_contain.go).
	jsonbContains := func(flip bool) ImplFactory {
		return func(args []types.T, _ types.T) (Impl, bool) {
			if len(args) == 2 && args[0].IsArray() && args[0].ID == args[1].ID {
				return Impl{}, false
			}
			return Impl{Row: contains(flip)}, true
		}
	}
	os = append(os, fn("pg_json_contains", jsonbContains(false), tBool, tJsonb, tJsonb))
	os = append(os, fn("pg_json_contained", jsonbContains(true), tBool, tJsonb, tJsonb))
	pgJsonExistsImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := parseJSON(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		return types.DBool(jsonHasKey(v, d[1].S)), nil
	})
	os = append(os, fn("pg_json_exists", pgJsonExistsImpl, tBool, tJsonb, tText))
	// ?| and ?&: any or all of the array's keys (NULL elements ignored).
	existsKeys := func(all bool) func(*Context, []types.Datum) (types.Datum, error) {
		return func(_ *Context, d []types.Datum) (types.Datum, error) {
			v, err := parseJSON(d[0].S)
			if err != nil {
				return types.NullDatum, err
			}
			keys, err := parseTextArray(d[1].S)
			if err != nil {
				return types.NullDatum, err
			}
			for _, k := range keys {
				if k == nil {
					continue
				}
				if jsonHasKey(v, *k) != all {
					return types.DBool(!all), nil
				}
			}
			return types.DBool(all), nil
		}
	}
	os = append(os, fn("pg_json_exists_any", row(existsKeys(false)), tBool, tJsonb, tTArr))
	os = append(os, fn("pg_json_exists_all", row(existsKeys(true)), tBool, tJsonb, tTArr))
	jsonbTypeofImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := parseJSON(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		switch v.(type) {
		case nil:
			return dText("null")
		case bool:
			return dText("boolean")
		case json.Number:
			return dText("number")
		case string:
			return dText("string")
		case []any:
			return dText("array")
		}
		return dText("object")
	})
	os = append(os, fn("jsonb_typeof", jsonbTypeofImpl, tText, tJsonb))
	jsonbArrayLengthImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := parseJSON(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		arr, ok := v.([]any)
		if !ok {
			what := "a scalar"
			if _, isObj := v.(map[string]any); isObj {
				what = "a non-array"
			}
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of %s", what)
		}
		return dInt(int64(len(arr)))
	})
	os = append(os, fn("jsonb_array_length", jsonbArrayLengthImpl, tI4, tJsonb))
	toJsonbImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			return dText(jsonText(toJSONValue(ctx, d[0], args[0])))
		}}, true
	}
	os = append(os, nonStrict("to_jsonb", toJsonbImpl, tJsonb, tAny))
	jsonbBuildArrayImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			arr := make([]any, len(d))
			for i, x := range d {
				arr[i] = toJSONValue(ctx, x, args[i])
			}
			return dText(jsonText(arr))
		}}, true
	}
	os = append(os, variadic("jsonb_build_array", jsonbBuildArrayImpl, tJsonb, true, tAny),
		fn("jsonb_build_array", jsonbBuildArrayImpl, tJsonb))
	jsonbBuildObjectImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			if len(d)%2 != 0 {
				return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of jsonb_build_object() must consist of alternating keys and values.")
			}
			obj := map[string]any{}
			for i := 0; i < len(d); i += 2 {
				if d[i].Null {
					return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "argument %d: key must not be null", i+1)
				}
				if t := args[i]; t.IsArray() || t.ID == types.Json || t.ID == types.Jsonb {
					return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
				}
				obj[formatValue(ctx, d[i], args[i])] = toJSONValue(ctx, d[i+1], args[i+1])
			}
			return dText(jsonText(obj))
		}}, true
	}
	os = append(os, variadic("jsonb_build_object", jsonbBuildObjectImpl, tJsonb, true, tAny),
		fn("jsonb_build_object", jsonbBuildObjectImpl, tJsonb))
	jsonbPrettyImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := parseJSON(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		var b strings.Builder
		prettyJSON(&b, v, 0)
		return dText(b.String())
	})
	os = append(os, fn("jsonb_pretty", jsonbPrettyImpl, tText, tJsonb))
	jsonbStripNullsImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		v, err := parseJSON(d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		return dText(jsonText(stripNulls(v)))
	})
	os = append(os, fn("jsonb_strip_nulls", jsonbStripNullsImpl, tJsonb, tJsonb))
	return os
}

// jsonHasKey is jsonb's ? operator: key is a key of the object v, a
// string element of the array v, or the string v itself.
func jsonHasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		_, ok := x[key]
		return ok
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s == key {
				return true
			}
		}
	case string:
		return x == key
	}
	return false
}

func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = stripNulls(e)
			}
		}
	case []any:
		for i := range x {
			x[i] = stripNulls(x[i])
		}
	}
	return v
}

// prettyJSON writes jsonb_pretty's layout: four-space indents, one member
// per line.
func prettyJSON(b *strings.Builder, v any, depth int) {
	ind := strings.Repeat("    ", depth+1)
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			b.WriteString("[\n" + strings.Repeat("    ", depth) + "]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(ind)
			prettyJSON(b, e, depth+1)
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("    ", depth) + "]")
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{\n" + strings.Repeat("    ", depth) + "}")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		b.WriteString("{\n")
		for i, k := range keys {
			b.WriteString(ind)
			writeJSON(b, k)
			b.WriteString(": ")
			prettyJSON(b, x[k], depth+1)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("    ", depth) + "}")
	default:
		writeJSON(b, v)
	}
}

// JSONBArray returns the jsonb array of vals, each of type t converted as
// to_jsonb converts it (jsonb_agg's result). Timestamps print in UTC.
func JSONBArray(vals []types.Datum, t types.T) string {
	arr := make([]any, len(vals))
	for i, v := range vals {
		arr[i] = toJSONValue(nil, v, t)
	}
	return jsonText(arr)
}

// JSONBObject returns the jsonb object of keys and vals (jsonb_object_agg's
// result): a later duplicate key wins, as in jsonb.
func JSONBObject(keys []string, vals []types.Datum, t types.T) string {
	obj := make(map[string]any, len(keys))
	for i, k := range keys {
		obj[k] = toJSONValue(nil, vals[i], t)
	}
	return jsonText(obj)
}
