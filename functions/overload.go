package functions

import (
	"sort"
	"sync"

	"github.com/weirdb/weir/types"
)

// FuncKind says whether a function is scalar, aggregate or window-only.
type FuncKind uint8

// Function kinds.
const (
	Scalar FuncKind = iota
	Aggregate
	WindowOnly // row_number, rank, lag, ... (aggregates may also be used OVER a window)
)

// Overload is one signature of a function or operator in the registry.
// The binder picks an overload with Postgres's resolution rules (exact
// match, then implicit casts, preferring the category's preferred type)
// and coerces the arguments to Args; the executor runs the overload's
// implementation (Fn for a scalar, Agg for an aggregate, Window for a
// window-only function) over arguments of those types.
type Overload struct {
	Name string
	// Args are the parameter types. types.Unknown in a slot accepts any type
	// (the argument keeps its own type).
	Args []types.TypeID
	// Variadic means the last entry of Args may repeat zero or more times.
	Variadic bool
	// Ret is the result type. When RetFn is set it overrides Ret, computing
	// the result from the (coerced) argument types, for example numeric
	// scale or "same as argument".
	Ret   types.TypeID
	RetFn func(args []types.T) types.T
	Kind  FuncKind
	// Volatile functions (now(), random()) are not constant-folded.
	Volatile bool
	// Polymorphic marks one instance of a PostgreSQL function declared
	// over polymorphic types (anyarray || anyelement, listed once per
	// array type): in resolution its parameter types count as no exact
	// match, as PostgreSQL's polymorphic declarations do, so 'a' || 1
	// stays text concatenation.
	Polymorphic bool
	// AnyNonArray means the "any" parameters (types.Unknown) take no
	// arrays, as PostgreSQL's anynonarray: text || anynonarray is not
	// text[] || text.
	AnyNonArray bool
	// NonStrict functions are called with NULL arguments; strict ones (the
	// default) return NULL when any argument is NULL without being called.
	NonStrict bool
	// Fn is a scalar overload's implementation (Kind Scalar): it
	// returns the Impl for the coerced argument types and the result
	// type, and false for types it cannot run. Overloads that differ
	// only in types often share one Fn (integer addition over every
	// pair of widths). Lookup finds it.
	Fn ImplFactory
	// Agg is an aggregate's implementation (Kind Aggregate).
	Agg AggFunc
	// Window is a window-only function's implementation (Kind
	// WindowOnly); ReadsFrame says whether it reads its frame
	// (first_value, last_value, nth_value) rather than only the
	// partition's order (row_number, rank, lag, ...).
	Window     WindowFunc
	ReadsFrame bool
	// OrderedSet marks an ordered-set aggregate (percentile_cont, ...):
	// its last argument is the one aggregated, sorted by WITHIN GROUP's
	// ORDER BY; the ones before it are direct arguments.
	OrderedSet bool
}

// Short names for the type families, to keep the tables readable.
const (
	tAny   = types.Unknown // "any": the argument keeps its own type
	tBool  = types.Bool
	tI2    = types.Int2
	tI4    = types.Int4
	tI8    = types.Int8
	tF4    = types.Float4
	tF8    = types.Float8
	tNum   = types.Numeric
	tText  = types.Text
	tBytea = types.Bytea
	tDate  = types.Date
	tTime  = types.Time
	tTS    = types.Timestamp
	tTSTZ  = types.Timestamptz
	tIv    = types.Interval
	tJsonb = types.Jsonb
	tJson  = types.Json
	tOid   = types.Oid
	tName  = types.Name
	tChar  = types.Char
	tBpc   = types.Bpchar
	tTArr  = types.TextArray
	tUuid  = types.Uuid
)

// Numeric type families, in Postgres's promotion order.
var (
	intTypes    = []types.TypeID{tI2, tI4, tI8}
	floatTypes  = []types.TypeID{tF4, tF8}
	numberTypes = []types.TypeID{tI2, tI4, tI8, tF4, tF8, tNum}
	// ComparableTypes are the types with the full set of comparison
	// operators (= <> < <= > >=) and, but for boolean, "char", bytea
	// and uuid, min/max aggregates.
	ComparableTypes = []types.TypeID{tBool, tI2, tI4, tI8, tF4, tF8, tNum, tText,
		tBytea, tDate, tTime, tTS, tTSTZ, tIv, tOid, tName, tChar, tBpc, tUuid}
)

// CompareOps are the comparison operator names.
var CompareOps = []string{"=", "<>", "<", "<=", ">", ">="}

// sameAsArg returns the type of argument i, modifier dropped (the result of
// min/max, lag/lead and similar).
func sameAsArg(i int) func([]types.T) types.T {
	return func(args []types.T) types.T { return types.T{ID: args[i].ID, Mod: -1} }
}

// intResult is the result of an integer operator over a and b: the wider
// of the two (Postgres's int24pl returns int4, int48pl int8, ...).
func intResult(a, b types.TypeID) types.TypeID {
	if a > b {
		return a
	}
	return b
}

// fn returns a strict, immutable scalar overload implemented by im.
func fn(name string, im ImplFactory, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Fn: im, Args: args, Ret: ret}
}

// op is fn, for operators.
func op(name string, im ImplFactory, ret types.TypeID, args ...types.TypeID) *Overload {
	return fn(name, im, ret, args...)
}

// volatile returns a volatile scalar overload (not constant-folded).
func volatile(name string, im ImplFactory, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Fn: im, Args: args, Ret: ret, Volatile: true}
}

// variadic returns a variadic overload whose last argument repeats.
func variadic(name string, im ImplFactory, ret types.TypeID, nonStrict bool, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Fn: im, Args: args, Ret: ret, Variadic: true, NonStrict: nonStrict}
}

// nonStrict returns an overload that is called with NULL arguments.
func nonStrict(name string, im ImplFactory, ret types.TypeID, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Fn: im, Args: args, Ret: ret, NonStrict: true}
}

// Result returns the overload's result type for coerced argument types.
func (o *Overload) Result(args []types.T) types.T {
	if o.RetFn != nil {
		return o.RetFn(args)
	}
	return types.T{ID: o.Ret, Mod: -1}
}

// registry returns every overload indexed by name. It is built once, on
// first use, from the tables of this package; nothing registers overloads
// at run time. (Built on first use rather than as the package loads
// because some of its implementations read it, through pg_proc's list:
// Go refuses such a cycle between package variables.)
func registry() map[string][]*Overload {
	registryOnce.Do(func() {
		// Where one name's overloads come from several lists, the
		// lists' order is theirs (numbers before dates, jsonb before
		// json before arrays): the binder's last tie-break takes the
		// first.
		registryMap = index(
			arithOverloads(), bitwiseOverloads(), negOverloads(), compareOverloads(), datetimeOpOverloads(),
			jsonbOverloads(), jsonSetOverloads(), jsonOpOverloads(), arrayContainOverloads(),
			stringOverloads(), arrayOverloads(), mathOverloads(), datetimeFnOverloads(), tocharOverloads(),
			similarOverloads(), regexOverloads(), uuidOverloads(), jsonPathOverloads(), jsonOverloads(),
			jsonArrayLengthOverloads(), systemOverloads(), sequenceOverloads(), timeWindowOverloads(),
			aggregateOverloads(), orderedSetOverloads(), windowOverloads())
	})
	return registryMap
}

var (
	registryOnce sync.Once
	registryMap  map[string][]*Overload
)

// index groups overload lists by name; the same name and argument types
// twice is a programming error and panics.
func index(lists ...[]*Overload) map[string][]*Overload {
	m := map[string][]*Overload{}
	for _, os := range lists {
		for _, o := range os {
			for _, have := range m[o.Name] {
				if sameArgs(have, o) {
					panic("functions: duplicate overload for " + o.Name)
				}
			}
			m[o.Name] = append(m[o.Name], o)
		}
	}
	return m
}

func sameArgs(a, b *Overload) bool {
	if len(a.Args) != len(b.Args) || a.Variadic != b.Variadic {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}

// Overloads returns the overloads of name (nil if unknown).
func Overloads(name string) []*Overload { return registry()[name] }

// Names returns every function and operator name, sorted.
func Names() []string {
	names := make([]string, 0, len(registry()))
	for n := range registry() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
