package planner

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
// and coerces the arguments to Args; the executor implements the function
// by Name for exactly those argument types.
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
	// NonStrict functions are called with NULL arguments; strict ones (the
	// default) return NULL when any argument is NULL without being called.
	NonStrict bool
}

// Result returns the overload's result type for coerced argument types.
func (o *Overload) Result(args []types.T) types.T {
	if o.RetFn != nil {
		return o.RetFn(args)
	}
	return types.T{ID: o.Ret, Mod: -1}
}

var (
	registryMu sync.RWMutex
	registry   = map[string][]*Overload{}
)

// Register adds overloads to the function registry. It is called from
// init functions; registering the same name and argument types twice
// panics, since that is a programming error.
func Register(os ...*Overload) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, o := range os {
		for _, have := range registry[o.Name] {
			if sameArgs(have, o) {
				panic("planner: duplicate overload for " + o.Name)
			}
		}
		registry[o.Name] = append(registry[o.Name], o)
	}
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

// Overloads returns the registered overloads of name (nil if unknown).
func Overloads(name string) []*Overload {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[name]
}

// FuncNames returns every registered function name, sorted.
func FuncNames() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
