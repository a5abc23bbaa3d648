package functions

import (
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The json and jsonb set-returning functions of one result column (docs
// §9.16.1): json[b]_array_elements, json[b]_array_elements_text and
// json[b]_object_keys. The planner binds them (planner/bind_srf.go) and
// the executor runs them over the values JSONSetElems returns.

// JSONSetFuncs maps each json set-returning function to its argument and
// result types.
var JSONSetFuncs = map[string][2]types.TypeID{
	"json_array_elements":       {types.Json, types.Json},
	"json_array_elements_text":  {types.Json, types.Text},
	"json_object_keys":          {types.Json, types.Text},
	"jsonb_array_elements":      {types.Jsonb, types.Jsonb},
	"jsonb_array_elements_text": {types.Jsonb, types.Text},
	"jsonb_object_keys":         {types.Jsonb, types.Text},
}

// JSONSetElems returns the rows of json set-returning function fn (one of
// JSONSetFuncs) over the non-NULL value s, with PostgreSQL's errors
// (22023) for a value of the wrong kind. The json forms return parts as
// written (an object's keys in order, duplicates included); the jsonb
// forms as jsonb prints them (keys in storage order).
func JSONSetElems(fn, s string) ([]types.Datum, error) {
	sig, ok := JSONSetFuncs[fn]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", fn)
	}
	keys := strings.HasSuffix(fn, "_object_keys")
	asText := strings.HasSuffix(fn, "_text")
	want := types.JSONArray
	if keys {
		want = types.JSONObject
	}
	var out []types.Datum
	if sig[0] == types.Json {
		// Valid json text (as stored) shows its kind by its first byte;
		// it is not parsed, as it may hold \u0000.
		kind := types.JSONString
		if i := jsonWS(s, 0); i < len(s) {
			switch s[i] {
			case '{':
				kind = types.JSONObject
			case '[':
				kind = types.JSONArray
			}
		}
		if kind != want {
			return nil, jsonSetKindError(fn, false, keys, kind)
		}
		var ferr error
		jsonMembers(s, func(key, val string) {
			if ferr != nil {
				return
			}
			if keys {
				k, err := types.ParseJSONB(key)
				if err != nil {
					ferr = err
					return
				}
				out = append(out, types.DString(k.Str))
				return
			}
			d, err := jsonPart(val, true, asText)
			if err != nil {
				ferr = err
				return
			}
			out = append(out, d)
		})
		return out, ferr
	}
	v, err := types.ParseJSONB(s)
	if err != nil {
		return nil, err
	}
	if v.Kind != want {
		return nil, jsonSetKindError(fn, true, keys, v.Kind)
	}
	if keys {
		for _, k := range v.Keys {
			out = append(out, types.DString(k))
		}
		return out, nil
	}
	for _, e := range v.Elems {
		switch {
		case asText && e.Kind == types.JSONNull:
			out = append(out, types.NullDatum)
		case asText && e.Kind == types.JSONString:
			out = append(out, types.DString(e.Str))
		default:
			out = append(out, types.DString(e.String()))
		}
	}
	return out, nil
}

// jsonSetKindError is PostgreSQL's error for a json set-returning
// function called on a value of the wrong kind.
func jsonSetKindError(fn string, jsonb, keys bool, k types.JSONKind) error {
	scalar := k != types.JSONObject && k != types.JSONArray
	var msg string
	switch {
	case keys && scalar:
		msg = "cannot call " + fn + " on a scalar"
	case keys:
		msg = "cannot call " + fn + " on an array"
	case jsonb && scalar:
		msg = "cannot extract elements from a scalar"
	case jsonb:
		msg = "cannot extract elements from an object"
	case scalar:
		msg = "cannot call " + fn + " on a scalar"
	default:
		msg = "cannot call " + fn + " on a non-array"
	}
	return pgerr.New(pgerr.InvalidParameterValue, "%s", msg)
}

// jsonArrayLengthOverloads lists json_array_length, which counts the
// elements of json text as written.
func jsonArrayLengthOverloads() []*Overload {
	var os []*Overload
	jsonArrayLengthImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		s := d[0].S
		i := jsonWS(s, 0)
		switch {
		case i < len(s) && s[i] == '[':
		case i < len(s) && s[i] == '{':
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
		default:
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
		}
		n := 0
		jsonMembers(s, func(_, _ string) { n++ })
		return dInt(int64(n))
	})
	os = append(os, fn("json_array_length", jsonArrayLengthImpl, tI4, tJson))
	return os
}

// JSONEachFuncs maps each of json_each, json_each_text, jsonb_each and
// jsonb_each_text to its argument type and the type of its value column
// (its key column is text).
var JSONEachFuncs = map[string][2]types.TypeID{
	"json_each":       {types.Json, types.Json},
	"json_each_text":  {types.Json, types.Text},
	"jsonb_each":      {types.Jsonb, types.Jsonb},
	"jsonb_each_text": {types.Jsonb, types.Text},
}

// JSONEach returns the (key, value) rows of fn (one of JSONEachFuncs)
// over the non-NULL object s, with PostgreSQL's errors (22023) for a
// value that is not an object. json_each keeps the pairs as written (in
// order, duplicates included); jsonb_each returns them in storage order.
// The _text forms return a string value unescaped and null as NULL.
func JSONEach(fn, s string) ([]types.Row, error) {
	sig, ok := JSONEachFuncs[fn]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", fn)
	}
	asText := sig[1] == types.Text
	var out []types.Row
	if sig[0] == types.Json {
		i := jsonWS(s, 0)
		switch {
		case i < len(s) && s[i] == '{':
		case i < len(s) && s[i] == '[':
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct an array as an object")
		default:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct a scalar")
		}
		var ferr error
		jsonMembers(s, func(key, val string) {
			if ferr != nil {
				return
			}
			k, err := types.ParseJSONB(key)
			if err != nil {
				ferr = err
				return
			}
			v, err := jsonPart(val, true, asText)
			if err != nil {
				ferr = err
				return
			}
			out = append(out, types.Row{types.DString(k.Str), v})
		})
		return out, ferr
	}
	v, err := types.ParseJSONB(s)
	if err != nil {
		return nil, err
	}
	if v.Kind != types.JSONObject {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-object", fn)
	}
	for i, k := range v.Keys {
		e := v.Vals[i]
		var d types.Datum
		switch {
		case asText && e.Kind == types.JSONNull:
			d = types.NullDatum
		case asText && e.Kind == types.JSONString:
			d = types.DString(e.Str)
		default:
			d = types.DString(e.String())
		}
		out = append(out, types.Row{types.DString(k), d})
	}
	return out, nil
}
