package planner

import "github.com/weirdb/weir/types"

// The tests need a function registry. The real one (builtins.go) may or
// may not be present; this file registers only the overloads it lacks, so
// the tests run either way. The file name sorts last so that the
// package's own init functions run first.

func init() {
	sameAsArg := func(args []types.T) types.T { return args[0] }
	var os []*Overload
	arith := []types.TypeID{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric}
	for _, op := range []string{"+", "-", "*", "/", "%"} {
		for _, t := range arith {
			os = append(os, &Overload{Name: op, Args: []types.TypeID{t, t}, Ret: t})
		}
	}
	os = append(os,
		&Overload{Name: "^", Args: []types.TypeID{types.Float8, types.Float8}, Ret: types.Float8},
		&Overload{Name: "^", Args: []types.TypeID{types.Numeric, types.Numeric}, Ret: types.Numeric},
		&Overload{Name: "+", Args: []types.TypeID{types.Timestamptz, types.Interval}, Ret: types.Timestamptz},
		&Overload{Name: "+", Args: []types.TypeID{types.Timestamp, types.Interval}, Ret: types.Timestamp},
		&Overload{Name: "-", Args: []types.TypeID{types.Timestamptz, types.Timestamptz}, Ret: types.Interval},
		&Overload{Name: "+", Args: []types.TypeID{types.Date, types.Int4}, Ret: types.Date},
		&Overload{Name: "||", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Text},
		&Overload{Name: "~~", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Bool},
		&Overload{Name: "~~*", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Bool},
		&Overload{Name: "~", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Bool},
		&Overload{Name: "~*", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Bool},
		&Overload{Name: "->>", Args: []types.TypeID{types.Jsonb, types.Text}, Ret: types.Text},
		&Overload{Name: "upper", Args: []types.TypeID{types.Text}, Ret: types.Text},
		&Overload{Name: "lower", Args: []types.TypeID{types.Text}, Ret: types.Text},
		&Overload{Name: "length", Args: []types.TypeID{types.Text}, Ret: types.Int4},
		&Overload{Name: "now", Ret: types.Timestamptz, Volatile: true},
		&Overload{Name: "abs", Args: []types.TypeID{types.Int4}, Ret: types.Int4},
		&Overload{Name: "abs", Args: []types.TypeID{types.Float8}, Ret: types.Float8},
		&Overload{Name: "abs", Args: []types.TypeID{types.Numeric}, Ret: types.Numeric},
		&Overload{Name: "round", Args: []types.TypeID{types.Numeric, types.Int4}, Ret: types.Numeric},
		&Overload{Name: "date_trunc", Args: []types.TypeID{types.Text, types.Timestamptz}, Ret: types.Timestamptz},
		&Overload{Name: "date_trunc", Args: []types.TypeID{types.Text, types.Timestamp}, Ret: types.Timestamp},
		&Overload{Name: "extract", Args: []types.TypeID{types.Text, types.Timestamptz}, Ret: types.Numeric},
		&Overload{Name: "extract", Args: []types.TypeID{types.Text, types.Timestamp}, Ret: types.Numeric},
		&Overload{Name: "concat", Args: []types.TypeID{types.Unknown}, Variadic: true, Ret: types.Text, NonStrict: true},
		&Overload{Name: "neg", Args: []types.TypeID{types.Int4}, Ret: types.Int4},
		&Overload{Name: "neg", Args: []types.TypeID{types.Int8}, Ret: types.Int8},
		&Overload{Name: "neg", Args: []types.TypeID{types.Float8}, Ret: types.Float8},
		&Overload{Name: "neg", Args: []types.TypeID{types.Numeric}, Ret: types.Numeric},
	)
	cmp := []types.TypeID{types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Date, types.Timestamp, types.Timestamptz, types.Interval, types.Oid, types.Name, types.Char}
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		for _, t := range cmp {
			if t == types.Varchar {
				continue // varchar compares as text, as in Postgres
			}
			os = append(os, &Overload{Name: op, Args: []types.TypeID{t, t}, Ret: types.Bool})
		}
	}
	// Aggregates.
	os = append(os,
		&Overload{Name: "count", Ret: types.Int8, Kind: Aggregate},
		&Overload{Name: "count", Args: []types.TypeID{types.Unknown}, Ret: types.Int8, Kind: Aggregate, NonStrict: true},
		&Overload{Name: "sum", Args: []types.TypeID{types.Int4}, Ret: types.Int8, Kind: Aggregate},
		&Overload{Name: "sum", Args: []types.TypeID{types.Int8}, Ret: types.Numeric, Kind: Aggregate},
		&Overload{Name: "sum", Args: []types.TypeID{types.Numeric}, Ret: types.Numeric, Kind: Aggregate},
		&Overload{Name: "sum", Args: []types.TypeID{types.Float8}, Ret: types.Float8, Kind: Aggregate},
		&Overload{Name: "avg", Args: []types.TypeID{types.Int4}, Ret: types.Numeric, Kind: Aggregate},
		&Overload{Name: "avg", Args: []types.TypeID{types.Numeric}, Ret: types.Numeric, Kind: Aggregate},
		&Overload{Name: "avg", Args: []types.TypeID{types.Float8}, Ret: types.Float8, Kind: Aggregate},
		&Overload{Name: "min", Args: []types.TypeID{types.Unknown}, RetFn: sameAsArg, Kind: Aggregate},
		&Overload{Name: "max", Args: []types.TypeID{types.Unknown}, RetFn: sameAsArg, Kind: Aggregate},
		&Overload{Name: "string_agg", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Text, Kind: Aggregate},
		&Overload{Name: "bool_and", Args: []types.TypeID{types.Bool}, Ret: types.Bool, Kind: Aggregate},
		&Overload{Name: "row_number", Ret: types.Int8, Kind: WindowOnly},
		&Overload{Name: "rank", Ret: types.Int8, Kind: WindowOnly},
		&Overload{Name: "lag", Args: []types.TypeID{types.Unknown}, RetFn: sameAsArg, Kind: WindowOnly},
		&Overload{Name: "lag", Args: []types.TypeID{types.Unknown, types.Int4}, RetFn: sameAsArg, Kind: WindowOnly},
	)
	for _, o := range os {
		dup := false
		for _, have := range Overloads(o.Name) {
			if sameArgs(have, o) {
				dup = true
			}
		}
		if !dup {
			Register(o)
		}
	}
}
