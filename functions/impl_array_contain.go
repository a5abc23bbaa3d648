package functions

import (
	"github.com/weirdb/weir/types"
)

// Array containment and overlap (docs §9.19, arraycontains, arraycontained
// and arrayoverlap in PostgreSQL's arrayfuncs.c) for every array type:
// the operators @> and <@, which the binder finds under the jsonb
// operators' names (pg_json_contains, pg_json_contained), and &&, which
// arrives as pg_array_overlap. Dimensions are
// ignored (the elements are compared as one list), a NULL element never
// equals anything (so an array with a NULL element contains no array
// holding one), and a NULL array makes the result NULL.

// arrayContainCompare is PostgreSQL's array_contain_compare: with
// matchAll, whether every element of a equals some element of b; else
// whether some element of a equals some element of b. at is the arrays'
// type.
func arrayContainCompare(a, b string, at types.T, matchAll bool) (bool, error) {
	as, err := types.ArrayElems(a, at, nil)
	if err != nil {
		return false, err
	}
	bs, err := types.ArrayElems(b, at, nil)
	if err != nil {
		return false, err
	}
	et := at.Elem()
	for _, x := range as {
		if x.Null {
			if matchAll {
				return false, nil
			}
			continue
		}
		found := false
		for _, y := range bs {
			if !y.Null && types.Compare(x, y, et) == 0 {
				found = true
				break
			}
		}
		switch {
		case found && !matchAll:
			return true, nil
		case !found && matchAll:
			return false, nil
		}
	}
	return matchAll, nil
}

// arrayContainOverloads lists anyarray @> anyarray, anyarray <@ anyarray
// and anyarray && anyarray, under the binder's names for them
// (pg_json_contains and pg_json_contained, which jsonb shares, and
// pg_array_overlap), one overload per array type.
func arrayContainOverloads() []*Overload {
	var os []*Overload
	for _, at := range types.ArrayTypes() {
		for _, o := range []*Overload{
			op("pg_json_contains", arrayContainImpl(false, false), tBool, at.ID, at.ID),
			op("pg_json_contained", arrayContainImpl(true, false), tBool, at.ID, at.ID),
			op("pg_array_overlap", arrayContainImpl(false, true), tBool, at.ID, at.ID),
		} {
			o.Polymorphic = true
			os = append(os, o)
		}
	}
	return os
}

// arrayContainImpl implements @> (contained false), <@ (contained) and
// && (overlap) over two arrays of one type.
func arrayContainImpl(contained, overlap bool) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		if len(args) != 2 || !args[0].IsArray() || args[0].ID != args[1].ID {
			return Impl{}, false
		}
		at := args[0]
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			a, b := d[0].S, d[1].S
			if !contained {
				a, b = b, a
			}
			ok, err := arrayContainCompare(a, b, at, !overlap)
			return types.DBool(ok), err
		}}, true
	}
}
