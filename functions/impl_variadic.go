package functions

import (
	"sync"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// VariadicCallFn is the function the binder calls for f(a, VARIADIC arr)
// when arr is not known before the query runs: its arguments are f's
// name (a text constant), f's leading arguments and the array, whose
// elements become f's trailing arguments row by row. f's implementation
// is looked up once for each number of elements met. A NULL array makes
// the result NULL, as PostgreSQL's variadic functions answer, except for
// format, which reads it as no arguments.
const VariadicCallFn = "pg_variadic_call"

// variadicCall is VariadicCallFn's implementation.
func variadicCall(args []types.T, ret types.T) (Impl, bool) {
	if len(args) < 2 || !args[len(args)-1].IsArray() {
		return Impl{}, false
	}
	arrT := args[len(args)-1]
	prefix := args[1 : len(args)-1]
	var mu sync.Mutex
	byCount := map[int]Impl{}
	impl := func(name string, k int) (Impl, error) {
		mu.Lock()
		defer mu.Unlock()
		if im, ok := byCount[k]; ok {
			return im, nil
		}
		ts := append([]types.T(nil), prefix...)
		for range k {
			ts = append(ts, arrT.Elem())
		}
		im, err := Lookup(name, ts, ret)
		if err != nil {
			return Impl{}, err
		}
		if im.Row == nil {
			return Impl{}, pgerr.New(pgerr.FeatureNotSupported, "VARIADIC is not supported for %s", name)
		}
		byCount[k] = im
		return im, nil
	}
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		name := d[0].S
		arr := d[len(d)-1]
		var elems []types.Datum
		if arr.Null {
			if name != "format" {
				return types.NullDatum, nil
			}
		} else {
			var err error
			if elems, err = types.ArrayElems(arr.S, arrT, ctx.loc()); err != nil {
				return types.NullDatum, err
			}
		}
		im, err := impl(name, len(elems))
		if err != nil {
			return types.NullDatum, err
		}
		full := append(append([]types.Datum(nil), d[1:len(d)-1]...), elems...)
		if !im.NonStrict {
			for _, x := range full {
				if x.Null {
					return types.NullDatum, nil
				}
			}
		}
		return im.Row(ctx, full)
	}}, true
}
