package functions

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Accumulator is the running state of one aggregate function over one
// group. Add folds in one input row's arguments; Retract takes back a row
// that was added before (exactly: min and max keep the multiset of their
// inputs, sums and counts subtract, avg keeps its sum and count), which is
// what the streaming aggregation needs for deletes. Result returns the
// aggregate of the rows added and not retracted; it does not change the
// state, so it can be called after every row (window frames).
//
// args holds the aggregate's arguments in order (none for count(*)),
// followed by the values of its ORDER BY keys when it has any. Strict
// aggregates skip rows whose argument is NULL, as in Postgres. Add and
// Retract fail only with SQL errors (22003 on integer overflow).
//
// The state of every implementation is plain values (integers, decimals,
// datum slices), so it can be serialised into a state table.
type Accumulator interface {
	Add(args []types.Datum) error
	Retract(args []types.Datum) error
	Result() types.Datum
}

// resultErrer is implemented by accumulators whose result can fail (an
// ordered-set aggregate's fraction out of range).
type resultErrer interface {
	ResultErr() (types.Datum, error)
}

// AccumulatorResult returns a's result, or the SQL error computing it
// raises (22003 for a percentile out of range); for most accumulators it
// is a.Result() and no error.
func AccumulatorResult(a Accumulator) (types.Datum, error) {
	if r, ok := a.(resultErrer); ok {
		return r.ResultErr()
	}
	return a.Result(), nil
}

// OrderSpec is one ORDER BY key of an order-sensitive aggregate.
type OrderSpec struct {
	T          types.T
	Desc       bool
	NullsFirst bool
}

// AggSpec describes one aggregate call for NewAccumulatorFunc.
type AggSpec struct {
	// Fn is the aggregate's name ("count" with no ArgTypes is count(*)).
	Fn string
	// ArgTypes are the argument types; T is the result type.
	ArgTypes []types.T
	T        types.T
	// Distinct folds each distinct argument tuple in once.
	Distinct bool
	// OrderBy are the aggregate's ORDER BY keys, whose values follow the
	// arguments in Add.
	OrderBy []OrderSpec
	// Direct are the values of an ordered-set aggregate's direct
	// arguments (its fraction), which are constants; nil when unknown.
	Direct []types.Datum
	// Retractable asks for accumulators whose Retract works. Batch
	// aggregation leaves it off, which lets min and max keep only the
	// current extreme instead of the whole multiset.
	Retractable bool
	// WideSums asks for sums that check only their result against the
	// result type's range, not every step (sum and avg of interval; sum,
	// avg and the variances of floats, which also count NaN and infinite
	// inputs apart), as a streaming aggregation needs: a retraction may
	// bring a running sum that was out of range back into it. Batch
	// aggregation and window frames leave it off and fail at the step,
	// as PostgreSQL does.
	WideSums bool
}

// AggFunc is the implementation of one aggregate overload: for a call of
// it (the call's own argument and result types, Retractable) it returns
// a constructor of fresh accumulators, one per group. DISTINCT and ORDER
// BY are applied around it by NewAccumulatorFunc.
type AggFunc func(s AggSpec) func() Accumulator

// accOf returns an AggFunc whose accumulators do not depend on the call.
func accOf(mk func() Accumulator) AggFunc {
	return func(AggSpec) func() Accumulator { return mk }
}

// aggOv returns a strict aggregate overload implemented by impl.
func aggOv(name string, ret types.TypeID, impl AggFunc, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Kind: Aggregate, Agg: impl}
}

// aggregateOverloads lists the aggregates of docs §9.21 with
// pg_aggregate's result types, each with its implementation.
func aggregateOverloads() []*Overload {
	var os []*Overload
	// count(*) has no arguments; count(x) counts non-NULL x of any type.
	os = append(os, aggOv("count", tI8, newCount), &Overload{Name: "count", Args: []types.TypeID{tAny},
		Ret: tI8, Kind: Aggregate, NonStrict: true, Agg: newCount})
	// sum: int2/int4 → int8, int8/numeric → numeric, floats keep their
	// type, interval → interval.
	sumInt := accOf(func() Accumulator { return &sumIntAcc{} })
	os = append(os, aggOv("sum", tI8, sumInt, tI2), aggOv("sum", tI8, sumInt, tI4),
		aggOv("sum", tNum, accOf(func() Accumulator { return &sumInt128Acc{} }), tI8),
		aggOv("sum", tNum, accOf(func() Accumulator { return &sumDecAcc{} }), tNum),
		aggOv("sum", tF4, newFloatStep(floatStepSum, varKind{}, true, func() Accumulator { return &sumFloatAcc{floatSum{f32: true}} }), tF4),
		aggOv("sum", tF8, newFloatStep(floatStepSum, varKind{}, false, func() Accumulator { return &sumFloatAcc{} }), tF8),
		aggOv("sum", tIv, func(s AggSpec) func() Accumulator {
			return func() Accumulator { return &sumIntervalAcc{wide: s.WideSums} }
		}, tIv))
	// avg: integers and numeric → numeric, floats → float8.
	avgInt := accOf(func() Accumulator { return &avgAcc{} })
	avgFloat := newFloatStep(floatStepAvg, varKind{}, false, func() Accumulator { return &avgFloatAcc{} })
	os = append(os, aggOv("avg", tNum, avgInt, tI2), aggOv("avg", tNum, avgInt, tI4), aggOv("avg", tNum, avgInt, tI8),
		aggOv("avg", tNum, accOf(func() Accumulator { return &avgAcc{numeric: true} }), tNum),
		aggOv("avg", tF8, avgFloat, tF4), aggOv("avg", tF8, avgFloat, tF8),
		aggOv("avg", tIv, func(s AggSpec) func() Accumulator {
			return func() Accumulator { return &avgIntervalAcc{sumIntervalAcc{wide: s.WideSums}} }
		}, tIv))
	for _, name := range []string{"min", "max"} {
		impl := newMinMax(name == "max")
		for _, t := range ComparableTypes {
			if t == tBool || t == tChar || t == tBytea || t == tUuid {
				continue // Postgres has no min/max of boolean, "char", bytea or uuid
			}
			os = append(os, &Overload{Name: name, Args: []types.TypeID{t}, RetFn: sameAsArg(0), Ret: t, Kind: Aggregate, Agg: impl})
		}
		// max(anyarray) and min(anyarray) (array_larger, array_smaller):
		// arrays ordered as their comparison operators order them,
		// element by element, then by length.
		for _, at := range types.ArrayTypes() {
			o := &Overload{Name: name, Args: []types.TypeID{at.ID}, RetFn: sameAsArg(0), Ret: at.ID, Kind: Aggregate, Agg: impl}
			o.Polymorphic = true
			os = append(os, o)
		}
	}
	// Without retractions (batch aggregation) string_agg concatenates
	// as it goes: a group holds its result, not a part per row.
	stringAgg := func(s AggSpec) func() Accumulator {
		if s.Retractable {
			return func() Accumulator { return &stringAggAcc{} }
		}
		return func() Accumulator { return &stringAggBuf{} }
	}
	boolAnd := accOf(func() Accumulator { return &boolAcc{and: true} })
	os = append(os, aggOv("string_agg", tText, stringAgg, tText, tText), aggOv("string_agg", tBytea, stringAgg, tBytea, tBytea),
		aggOv("bool_and", tBool, boolAnd, tBool), aggOv("every", tBool, boolAnd, tBool),
		aggOv("bool_or", tBool, accOf(func() Accumulator { return &boolAcc{} }), tBool),
		aggOv("jsonb_agg", tJsonb, newJSONAgg(false, false), tAny),
		aggOv("jsonb_object_agg", tJsonb, newJSONAgg(true, false), tAny, tAny),
		aggOv("json_agg", tJson, newJSONAgg(false, true), tAny),
		aggOv("json_object_agg", tJson, newJSONAgg(true, true), tAny, tAny))
	for _, op := range []string{"bit_and", "bit_or", "bit_xor"} {
		impl := accOf(func() Accumulator { return &bitAcc{op: op} })
		os = append(os, aggOv(op, tI2, impl, tI2), aggOv(op, tI4, impl, tI4), aggOv(op, tI8, impl, tI8))
	}
	// array_agg(anynonarray) → anyarray, one overload per element type.
	arrayAgg := func(s AggSpec) func() Accumulator {
		at := s.ArgTypes[0]
		return func() Accumulator { return &arrayAggAcc{t: at} }
	}
	for _, at := range types.ArrayTypes() {
		o := aggOv("array_agg", at.ID, arrayAgg, at.Elem().ID)
		o.NonStrict = true
		os = append(os, o)
	}
	// Statistics: integers and numeric → numeric, floats → float8.
	for _, name := range []string{"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"} {
		v := varKind{
			sample:   name != "var_pop" && name != "stddev_pop",
			variance: strings.HasPrefix(name, "var"),
		}
		dec := accOf(func() Accumulator { return &varDecAcc{kind: v} })
		flt := newFloatStep(floatStepVar, v, false, func() Accumulator { return &varFloatAcc{kind: v} })
		os = append(os, aggOv(name, tNum, dec, tI2), aggOv(name, tNum, dec, tI4), aggOv(name, tNum, dec, tI8),
			aggOv(name, tNum, dec, tNum), aggOv(name, tF8, flt, tF4), aggOv(name, tF8, flt, tF8))
	}
	os = append(os, regrAggregates()...)
	// pg_group_value(column) is the binder's own aggregate for a column
	// that is functionally dependent on the group keys (the same in
	// every row of the group): the value of the group's rows.
	os = append(os, &Overload{Name: "pg_group_value", Args: []types.TypeID{tAny}, Kind: Aggregate, NonStrict: true,
		RetFn: func(args []types.T) types.T { return args[0] },
		Agg:   accOf(func() Accumulator { return &groupValueAcc{} })})
	return os
}

// newCount is count(*), and count(x) of a value of any type. A call with
// several arguments is count over a row value's fields (the planner's
// count((a, b))) and counts every row: a row value is never NULL.
func newCount(s AggSpec) func() Accumulator {
	star := len(s.ArgTypes) != 1
	return func() Accumulator { return &countAcc{star: star} }
}

// newMinMax is min or max over any ordered type.
func newMinMax(isMax bool) AggFunc {
	return func(s AggSpec) func() Accumulator {
		at, retr := s.ArgTypes[0], s.Retractable
		unordered := at.IsArray() && at.Elem().ID == types.Jsonpath
		return func() Accumulator { return &minMaxAcc{t: at, max: isMax, retractable: retr, unordered: unordered} }
	}
}

// newJSONAgg is jsonb_agg (object: jsonb_object_agg), and with json set
// json_agg and json_object_agg.
func newJSONAgg(object, json bool) AggFunc {
	return func(s AggSpec) func() Accumulator {
		vt, kt := s.ArgTypes[0], types.T{}
		if object {
			vt, kt = s.ArgTypes[1], s.ArgTypes[0]
		}
		return func() Accumulator { return &jsonbAggAcc{t: vt, kt: kt, object: object, json: json} }
	}
}

// IsOrderedSet reports whether name is an ordered-set aggregate
// (percentile_cont, percentile_disc, mode), called with WITHIN GROUP.
func IsOrderedSet(name string) bool {
	for _, o := range Overloads(name) {
		if o.OrderedSet {
			return true
		}
	}
	return false
}

// findAggregate returns the aggregate overload of name a call with
// argument types args runs: the one whose parameter types are the
// arguments' (an "any" parameter takes every type), else one whose
// parameters are of the arguments' type categories (varchar for text),
// else for count with several arguments count(*); nil if none.
func findAggregate(name string, args []types.T) *Overload {
	match := func(o *Overload, loose bool) bool {
		if o.Kind != Aggregate || o.Agg == nil || len(o.Args) != len(args) {
			return false
		}
		for i, p := range o.Args {
			if p != types.Unknown && p != args[i].ID &&
				!(loose && types.T{ID: p}.Family() == args[i].Family()) {
				return false
			}
		}
		return true
	}
	for _, loose := range []bool{false, true} {
		for _, o := range Overloads(name) {
			if match(o, loose) {
				return o
			}
		}
	}
	if name == "count" && len(args) > 1 {
		return Overloads("count")[0]
	}
	return nil
}

// NewAccumulatorFunc returns a constructor of fresh accumulators for s,
// or 42883 when the function or its argument types are not supported.
func NewAccumulatorFunc(s AggSpec) (func() Accumulator, error) {
	o := findAggregate(s.Fn, s.ArgTypes)
	if o == nil {
		return nil, unsupportedAgg(s)
	}
	mk := o.Agg(s)
	if o.OrderedSet {
		// The implementation sorts its own input.
		return mk, nil
	}
	nargs := len(s.ArgTypes)
	if s.Distinct && len(s.OrderBy) == 0 && (s.Fn == "array_agg" || s.Fn == "string_agg" || s.Fn == "jsonb_agg" || s.Fn == "json_agg") {
		// Postgres finds an aggregate's DISTINCT values by sorting its
		// input, so order-sensitive aggregates see them in ascending
		// order of the first argument.
		inner := mk
		keys := []OrderSpec{{T: s.ArgTypes[0]}}
		mk = func() Accumulator { return &orderedAcc{nargs: nargs, keys: keys, keyAt: 0, mk: inner} }
	}
	if s.Distinct {
		inner := mk
		mk = func() Accumulator { return &distinctAcc{seen: newRowSet(s.ArgTypes), inner: inner()} }
	}
	if len(s.OrderBy) > 0 {
		inner := mk
		mk = func() Accumulator { return &orderedAcc{nargs: nargs, keys: s.OrderBy, keyAt: nargs, mk: inner} }
	}
	return mk, nil
}

func unsupportedAgg(s AggSpec) error {
	names := make([]string, len(s.ArgTypes))
	for i, t := range s.ArgTypes {
		names[i] = t.String()
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", s.Fn, strings.Join(names, ", "))
}

// copyDatum returns d detached from any vector it points into (a numeric
// datum from Vec.Get points into the vector, which its producer reuses).
func copyDatum(d types.Datum) types.Datum {
	if !d.Null && d.D != nil {
		d.D = new(apd.Decimal).Set(d.D)
	}
	return d
}

// cmpNulls orders a and b of type t with NULLs placed first or last.
func cmpNulls(a, b types.Datum, t types.T, nullsFirst bool) int {
	if c, ok := types.CompareNullsOrdered(a, b, nullsFirst); ok {
		return c
	}
	return types.Compare(a, b, t)
}

// rowSet is a set of argument rows with NULLs equal, in insertion order,
// for DISTINCT aggregates.
type rowSet struct {
	ts      []types.T
	buckets map[uint64][]int32
	rows    []types.Row
}

func newRowSet(ts []types.T) *rowSet {
	return &rowSet{ts: ts, buckets: make(map[uint64][]int32)}
}

func (t *rowSet) hash(r types.Row) uint64 {
	h := uint64(14695981039346656037)
	for i, d := range r {
		var x uint64 = 0x9e3779b97f4a7c15
		if !d.Null {
			x = types.Hash(d, t.ts[i])
		}
		h = (h ^ x) * 1099511628211
		h ^= h >> 29
	}
	return h
}

func (t *rowSet) same(a, b types.Row) bool {
	for i := range a {
		if a[i].Null || b[i].Null {
			if a[i].Null != b[i].Null {
				return false
			}
		} else if types.Compare(a[i], b[i], t.ts[i]) != 0 {
			return false
		}
	}
	return true
}

// find returns the index of the row equal to key, or -1.
func (t *rowSet) find(key types.Row) int {
	for _, i := range t.buckets[t.hash(key)] {
		if t.same(t.rows[i], key) {
			return int(i)
		}
	}
	return -1
}

// findOrInsert returns the index of key, inserting a copy when absent, and
// whether it was inserted.
func (t *rowSet) findOrInsert(key types.Row) (int, bool) {
	h := t.hash(key)
	for _, i := range t.buckets[h] {
		if t.same(t.rows[i], key) {
			return int(i), false
		}
	}
	cp := make(types.Row, len(key))
	for j, d := range key {
		cp[j] = copyDatum(d)
	}
	i := len(t.rows)
	t.rows = append(t.rows, cp)
	t.buckets[h] = append(t.buckets[h], int32(i))
	return i, true
}
