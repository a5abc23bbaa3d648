package functions

import (
	"strconv"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Array search and shape functions (docs §9.19, array_position,
// array_positions, array_replace, array_ndims and array_dims in
// PostgreSQL's arrayfuncs.c) for every array type. weir's arrays are
// one-dimensional and start at 1, so an array's dimensions are [1:n],
// or none when it is empty. The searches compare elements as IS NOT
// DISTINCT FROM does: a NULL searched for finds the NULL elements.

// arraySame is the element comparison of the searches: NULL matches
// NULL, other values compare with their type's equality.
func arraySame(e, x types.Datum, et types.T) bool {
	if e.Null || x.Null {
		return e.Null && x.Null
	}
	return types.Compare(e, x, et) == 0
}

// arrayOverloads lists array_position, array_positions, array_replace,
// array_ndims and array_dims (docs §9.19), one overload per array type.
func arrayOverloads() []*Overload {
	var os []*Overload
	// array_position(a, x [, start]): the index of the first element
	// not distinct from x, from start on (an earlier start counts from
	// the first element); NULL when there is none or a is NULL. A NULL
	// start is 22004.
	arrayPositionImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		et := at.Elem()
		return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			start := int64(1)
			if len(d) > 2 {
				if d[2].Null {
					return types.NullDatum, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
				}
				start = max(start, d[2].I)
			}
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil {
				return types.NullDatum, err
			}
			for i := start; i <= int64(len(elems)); i++ {
				if arraySame(elems[i-1], d[1], et) {
					return types.DInt(i), nil
				}
			}
			return types.NullDatum, nil
		}}, true
	}
	// array_positions(a, x): the indexes of every element not distinct
	// from x, '{}' when there is none; NULL when a is NULL.
	arrayPositionsImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		et := at.Elem()
		return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil {
				return types.NullDatum, err
			}
			var found []types.Datum
			for i, e := range elems {
				if arraySame(e, d[1], et) {
					found = append(found, types.DInt(int64(i+1)))
				}
			}
			return types.DString(types.FormatArray(found, types.TInt4, nil)), nil
		}}, true
	}
	// array_replace(a, from, to): a with every element not distinct
	// from from replaced by to (either may be NULL); NULL when a is.
	arrayReplaceImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		et := at.Elem()
		return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			if d[0].Null {
				return types.NullDatum, nil
			}
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil {
				return types.NullDatum, err
			}
			for i, e := range elems {
				if arraySame(e, d[1], et) {
					elems[i] = d[2]
				}
			}
			return types.DString(types.FormatArray(elems, et, nil)), nil
		}}, true
	}
	// array_ndims(a): 1, or NULL for an empty array (which has no
	// dimensions).
	arrayNdimsImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil || len(elems) == 0 {
				return types.NullDatum, err
			}
			return types.DInt(1), nil
		}}, true
	}
	// array_dims(a): the text [1:n], or NULL for an empty array.
	arrayDimsImpl := func(args []types.T, _ types.T) (Impl, bool) {
		at := types.T{ID: args[0].ID, Mod: -1}
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			elems, err := types.ArrayElems(d[0].S, at, nil)
			if err != nil || len(elems) == 0 {
				return types.NullDatum, err
			}
			return types.DString("[1:" + strconv.Itoa(len(elems)) + "]"), nil
		}}, true
	}
	for _, at := range types.ArrayTypes() {
		a, e := at.ID, at.Elem().ID
		os = append(os, nonStrict("array_position", arrayPositionImpl, tI4, a, e),
			nonStrict("array_position", arrayPositionImpl, tI4, a, e, tI4),
			nonStrict("array_positions", arrayPositionsImpl, types.Int4Array, a, e),
			nonStrict("array_replace", arrayReplaceImpl, a, a, e, e),
			fn("array_ndims", arrayNdimsImpl, tI4, a), fn("array_dims", arrayDimsImpl, tText, a))
	}
	return os
}
