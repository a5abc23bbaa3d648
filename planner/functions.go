package planner

import "github.com/weirdb/weir/functions"

// The binder resolves calls against package functions' overloads; these
// names keep the planner's code short.

// Overload is one signature of a function or operator (functions.Overload).
type Overload = functions.Overload

// FuncKind says whether a function is scalar, aggregate or window-only.
type FuncKind = functions.FuncKind

// Function kinds.
const (
	Scalar     = functions.Scalar
	Aggregate  = functions.Aggregate
	WindowOnly = functions.WindowOnly
)

// Overloads returns the overloads of name (nil if unknown).
func Overloads(name string) []*Overload { return functions.Overloads(name) }
