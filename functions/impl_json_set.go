package functions

import (
	"math"
	"strconv"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// jsonb's processing functions and deletion operators (docs §9.16,
// Tables 9.45 and 9.47): jsonb_set, jsonb_set_lax, jsonb_insert, and the
// operators jsonb - text, jsonb - text[], jsonb - integer and jsonb #-
// text[] (which the binder finds as pg_json_delete_path). They follow
// PostgreSQL's setPath, setPathObject and setPathArray (jsonfuncs.c): a
// path is walked one key or index at a level; a step into a scalar
// leaves the document as it is; an array index is an integer, negative
// counting from the end; a new key or element is created only at the
// path's last step.

// pathOp says what setPath does at the end of the path (jsonfuncs.c's
// JB_PATH_* flags).
type pathOp uint8

const (
	pathCreate         pathOp = 1 << iota // jsonb_set with create_if_missing
	pathDelete                            // #-
	pathReplace                           // jsonb_set without create_if_missing
	pathInsertBefore                      // jsonb_insert
	pathInsertAfter                       // jsonb_insert with insert_after
	pathCreateOrInsert = pathCreate | pathInsertBefore | pathInsertAfter
)

// setPath applies op at path (level is the step being taken) to v,
// returning the new value; newVal is the value set or inserted.
func setPath(v any, path []*string, level int, newVal any, op pathOp) (any, error) {
	if path[level] == nil {
		return nil, pgerr.New(pgerr.NullValueNotAllowed, "path element at position %d is null", level+1)
	}
	switch x := v.(type) {
	case map[string]any:
		return setPathObject(x, path, level, newVal, op)
	case []any:
		return setPathArray(x, path, level, newVal, op)
	}
	return v, nil
}

func setPathObject(obj map[string]any, path []*string, level int, newVal any, op pathOp) (any, error) {
	key, last := *path[level], level == len(path)-1
	old, found := obj[key]
	switch {
	case found && last:
		if op&(pathInsertBefore|pathInsertAfter) != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot replace existing key").
				WithHint("Try using the function jsonb_set to replace key value.")
		}
		if op&pathDelete != 0 {
			delete(obj, key)
		} else {
			obj[key] = newVal
		}
	case found:
		e, err := setPath(old, path, level+1, newVal, op)
		if err != nil {
			return nil, err
		}
		obj[key] = e
	case last && op&pathCreateOrInsert != 0:
		obj[key] = newVal
	}
	return obj, nil
}

func setPathArray(arr []any, path []*string, level int, newVal any, op pathOp) (any, error) {
	last := level == len(path)-1
	idx, err := pathIndex(*path[level], level)
	if err != nil {
		return nil, err
	}
	n := int64(len(arr))
	if idx < 0 {
		if -idx > n {
			idx = math.MinInt32 // before the first element
		} else {
			idx += n
		}
	}
	if idx > n {
		idx = n
	}
	out := make([]any, 0, len(arr)+1)
	done := false
	if (idx == math.MinInt32 || n == 0) && last && op&pathCreateOrInsert != 0 {
		out = append(out, newVal)
		done = true
	}
	for i, e := range arr {
		if int64(i) != idx {
			out = append(out, e)
			continue
		}
		done = true
		if !last {
			e2, err := setPath(e, path, level+1, newVal, op)
			if err != nil {
				return nil, err
			}
			out = append(out, e2)
			continue
		}
		if op&(pathInsertBefore|pathCreate) != 0 {
			out = append(out, newVal)
		}
		if op&(pathInsertAfter|pathInsertBefore) != 0 {
			out = append(out, e)
		}
		if op&(pathInsertAfter|pathReplace) != 0 {
			out = append(out, newVal)
		}
	}
	if op&pathCreateOrInsert != 0 && !done && last {
		out = append(out, newVal)
	}
	return out, nil
}

// pathIndex reads a path step that indexes an array as strtoint does:
// leading white space, a sign, decimal digits and nothing after them,
// within integer's range; otherwise 22P02.
func pathIndex(s string, level int) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\v\f\r"), 10, 32)
	if err != nil {
		return 0, pgerr.New(pgerr.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", level+1, s)
	}
	return i, nil
}

// jsonContainerLen is JB_ROOT_COUNT: an object's pairs or an array's
// elements; ok is false for a scalar.
func jsonContainerLen(v any) (n int, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		return len(x), true
	case []any:
		return len(x), true
	}
	return 0, false
}

// jsonbSetPath is the common part of jsonb_set, jsonb_insert and #-: in
// (a jsonb text) with op applied at path (a text[] text). scalarErr is
// the error message for a scalar document; emptyKeeps says whether an
// empty container is returned unchanged before the path is read.
func jsonbSetPath(in, path string, newVal any, op pathOp, scalarErr string, emptyKeeps bool) (types.Datum, error) {
	v, err := parseJSON(in)
	if err != nil {
		return types.NullDatum, err
	}
	n, ok := jsonContainerLen(v)
	if !ok {
		return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "%s", scalarErr)
	}
	if n == 0 && emptyKeeps {
		return types.DString(in), nil
	}
	keys, err := parseTextArray(path)
	if err != nil {
		return types.NullDatum, err
	}
	if len(keys) == 0 {
		return types.DString(in), nil
	}
	res, err := setPath(v, keys, 0, newVal, op)
	if err != nil {
		return types.NullDatum, err
	}
	return types.DString(jsonText(res)), nil
}

// jsonbSet is jsonb_set(target, path, new_value [, create_if_missing]).
func jsonbSet(_ *Context, d []types.Datum) (types.Datum, error) {
	create := len(d) < 4 || d[3].I != 0
	nv, err := parseJSON(d[2].S)
	if err != nil {
		return types.NullDatum, err
	}
	op := pathReplace
	if create {
		op = pathCreate
	}
	return jsonbSetPath(d[0].S, d[1].S, nv, op, "cannot set path in scalar", !create)
}

// jsonbDeleteFrom is the check jsonb - text and jsonb - text[] make
// first: the document is a container, and the result is the document
// itself when it is empty (done).
func jsonbDeleteFrom(in string) (v any, done bool, err error) {
	if v, err = parseJSON(in); err != nil {
		return nil, false, err
	}
	n, ok := jsonContainerLen(v)
	if !ok {
		return nil, false, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
	}
	return v, n == 0, nil
}

// jsonbDeleteKeys removes the object's keys in keys, or the array's
// string elements equal to one of them (top level only).
func jsonbDeleteKeys(v any, keys map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k := range keys {
			delete(x, k)
		}
	case []any:
		kept := x[:0]
		for _, e := range x {
			if s, ok := e.(string); !ok || !keys[s] {
				kept = append(kept, e)
			}
		}
		return kept
	}
	return v
}

// jsonSetOverloads lists jsonb_set, jsonb_insert, jsonb_set_lax and the
// deleting operators (- and #-).
func jsonSetOverloads() []*Overload {
	var os []*Overload
	jsonbSetImpl := row(jsonbSet)
	os = append(os, fn("jsonb_set", jsonbSetImpl, tJsonb, tJsonb, tTArr, tJsonb),
		fn("jsonb_set", jsonbSetImpl, tJsonb, tJsonb, tTArr, tJsonb, tBool))
	// jsonb_set_lax(target, path, new_value [, create_if_missing [,
	// null_value_treatment]]) is jsonb_set but for a NULL new_value,
	// which null_value_treatment decides about.
	jsonbSetLaxImpl := rowNS(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null || d[1].Null || len(d) > 3 && d[3].Null {
			return types.NullDatum, nil
		}
		treatment := types.DString("use_json_null")
		if len(d) > 4 {
			treatment = d[4]
		}
		bad := pgerr.New(pgerr.InvalidParameterValue,
			`null_value_treatment must be "delete_key", "return_target", "use_json_null", or "raise_exception"`)
		if treatment.Null {
			return types.NullDatum, bad
		}
		if !d[2].Null {
			return jsonbSet(ctx, d)
		}
		switch treatment.S {
		case "raise_exception":
			return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "JSON value must not be null").
				WithDetail(`Exception was raised because null_value_treatment is "raise_exception".`).
				WithHint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")
		case "use_json_null":
			args := append([]types.Datum{}, d...)
			args[2] = types.DString("null")
			return jsonbSet(ctx, args)
		case "delete_key":
			return jsonbSetPath(d[0].S, d[1].S, nil, pathDelete, "cannot delete path in scalar", true)
		case "return_target":
			return d[0], nil
		}
		return types.NullDatum, bad
	})
	os = append(os, nonStrict("jsonb_set_lax", jsonbSetLaxImpl, tJsonb, tJsonb, tTArr, tJsonb),
		nonStrict("jsonb_set_lax", jsonbSetLaxImpl, tJsonb, tJsonb, tTArr, tJsonb, tBool),
		nonStrict("jsonb_set_lax", jsonbSetLaxImpl, tJsonb, tJsonb, tTArr, tJsonb, tBool, tText))
	// jsonb_insert(target, path, new_value [, insert_after]).
	jsonbInsertImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		nv, err := parseJSON(d[2].S)
		if err != nil {
			return types.NullDatum, err
		}
		op := pathInsertBefore
		if len(d) > 3 && d[3].I != 0 {
			op = pathInsertAfter
		}
		return jsonbSetPath(d[0].S, d[1].S, nv, op, "cannot set path in scalar", false)
	})
	os = append(os, fn("jsonb_insert", jsonbInsertImpl, tJsonb, tJsonb, tTArr, tJsonb),
		fn("jsonb_insert", jsonbInsertImpl, tJsonb, tJsonb, tTArr, tJsonb, tBool))
	// jsonb #- text[]: the document without the value at the path.
	pgJsonDeletePathImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		return jsonbSetPath(d[0].S, d[1].S, nil, pathDelete, "cannot delete path in scalar", true)
	})
	os = append(os, fn("pg_json_delete_path", pgJsonDeletePathImpl, tJsonb, tJsonb, tTArr))
	// jsonb - text, jsonb - text[] and jsonb - integer.
	minusImpl := func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 2 || args[0].ID != types.Jsonb {
			return Impl{}, false
		}
		switch args[1].ID {
		case types.Text:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				v, done, err := jsonbDeleteFrom(d[0].S)
				if err != nil || done {
					return d[0], err
				}
				return types.DString(jsonText(jsonbDeleteKeys(v, map[string]bool{d[1].S: true}))), nil
			}}, true
		case types.TextArray:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				v, done, err := jsonbDeleteFrom(d[0].S)
				if err != nil || done {
					return d[0], err
				}
				keys, err := parseTextArray(d[1].S)
				if err != nil {
					return types.NullDatum, err
				}
				if len(keys) == 0 {
					return d[0], nil
				}
				set := map[string]bool{}
				for _, k := range keys {
					if k != nil {
						set[*k] = true
					}
				}
				return types.DString(jsonText(jsonbDeleteKeys(v, set))), nil
			}}, true
		case types.Int4:
			return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
				v, err := parseJSON(d[0].S)
				if err != nil {
					return types.NullDatum, err
				}
				switch x := v.(type) {
				case map[string]any:
					return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from object using integer index")
				case []any:
					n, idx := int64(len(x)), d[1].I
					if idx < 0 {
						if -idx > n {
							idx = n
						} else {
							idx += n
						}
					}
					if idx >= n {
						return d[0], nil
					}
					return types.DString(jsonText(append(x[:idx:idx], x[idx+1:]...))), nil
				}
				return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
			}}, true
		}
		return Impl{}, false
	}
	os = append(os, op("-", minusImpl, tJsonb, tJsonb, tText), op("-", minusImpl, tJsonb, tJsonb, tTArr),
		op("-", minusImpl, tJsonb, tJsonb, tI4))
	return os
}
