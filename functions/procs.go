package functions

import (
	"sort"
	"strings"
	"sync"

	"github.com/weirdb/weir/types"
)

// This file lists the registry's functions as pg_catalog.pg_proc does,
// for psql's \df and \da and the functions that print a function's
// signature (pg_get_function_arguments, pg_get_function_result).

// Proc is one overload of a function as pg_proc lists it: operators and
// the binder's internal helpers are left out.
type Proc struct {
	// OID is the overload's pg_proc OID: ProcOIDBase plus its place in
	// the list, which is sorted by name and arguments, so it is stable
	// for a given build.
	OID  uint32
	Name string
	// Kind is 'f' (function), 'a' (aggregate) or 'w' (window function),
	// as pg_proc.prokind.
	Kind byte
	// Args are the parameter types' OIDs (0 for "any"), the variadic
	// one's element type last.
	Args     []uint32
	Variadic bool
	// Strict functions return NULL for a NULL argument; Volatile ones
	// may answer differently for the same arguments.
	Strict, Volatile bool
	// RetOID is the result type's OID (0 when it follows the arguments'
	// types).
	RetOID uint32
	// Result and Arguments are what pg_get_function_result and
	// pg_get_function_arguments print.
	Result, Arguments string
}

// ProcOIDBase is the first OID of the functions pg_proc lists: below
// PostgreSQL's FirstNormalObjectId (16384), after the weir schema's views.
const ProcOIDBase = 14000

// internalNames are the registry's names that the binder calls for
// syntax (x[i], x = ANY (...), jsonb operators ...) and that SQL cannot
// name as functions; publicNames renames those that stand for a
// PostgreSQL function.
var (
	internalNames = map[string]bool{"neg": true, "regclassout": true, "pg_regin": true, "pg_regout": true}
	publicNames   = map[string]string{"pg_concat": "concat", "pg_extract": "extract"}
)

// procs returns the pg_proc list, built once, on first use: some
// functions of the registry read it, so it cannot be built with the
// registry.
func procs() []Proc {
	procsOnce.Do(func() { procList = buildProcs() })
	return procList
}

var (
	procsOnce sync.Once
	procList  []Proc
)

func buildProcs() []Proc {
	var out []Proc
	for _, name := range Names() {
		c := name[0]
		if c < 'a' || c > 'z' || internalNames[name] {
			continue
		}
		shown := name
		if n, ok := publicNames[name]; ok {
			shown = n
		} else if strings.HasPrefix(name, "pg_") && !publicFunc(name) {
			continue
		}
		for _, o := range Overloads(name) {
			out = append(out, procOf(shown, o))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Arguments < out[j].Arguments
	})
	for i := range out {
		out[i].OID = uint32(ProcOIDBase + i)
	}
	return out
}

// PublicName returns the PostgreSQL function a registry name stands
// for (pg_extract is extract), or name itself.
func PublicName(name string) string {
	if n, ok := publicNames[name]; ok {
		return n
	}
	return name
}

// SyntaxHelper reports whether name is one of the binder's helpers for
// syntax that is no function call in SQL (x[i], x[i:j], jsonb's
// operators, && and ^@, = ANY (...), ILIKE, ROW(...)): like the operators
// and subscripts they stand for in PostgreSQL, they are immutable.
func SyntaxHelper(name string) bool {
	return syntaxHelpers[name] || strings.HasPrefix(name, "pg_json_")
}

var syntaxHelpers = map[string]bool{
	"pg_all": true, "pg_any": true, "pg_any_eq": true, "pg_array_elem": true, "pg_icase": true, "pg_slice": true,
	"pg_subscript": true, "pg_row": true, "pg_array_overlap": true, "pg_starts_with": true,
	"pg_jsonpath_exists": true, "pg_jsonpath_match": true,
}

// publicFunc reports whether a pg_-prefixed registry name is a
// PostgreSQL function (pg_typeof, pg_get_viewdef ...) rather than one of
// the binder's helpers: helpers are not in the system functions list of
// impl_system.go, which names only documented functions.
func publicFunc(name string) bool {
	switch name {
	case "pg_all", "pg_any", "pg_any_eq", "pg_array_elem", "pg_group_value",
		"pg_icase", "pg_slice", "pg_subscript", "pg_row":
		return false
	}
	return !strings.HasPrefix(name, "pg_json_")
}

func procOf(name string, o *Overload) Proc {
	p := Proc{Name: name, Kind: 'f', Variadic: o.Variadic, Strict: !o.NonStrict && o.Kind == Scalar, Volatile: o.Volatile}
	switch o.Kind {
	case Aggregate:
		p.Kind = 'a'
	case WindowOnly:
		p.Kind = 'w'
	}
	args := make([]string, len(o.Args))
	concrete := make([]types.T, len(o.Args))
	poly := false
	for i, a := range o.Args {
		concrete[i] = types.T{ID: a, Mod: -1}
		if a == types.Unknown {
			poly = true
			p.Args = append(p.Args, 0)
			args[i] = `"any"`
		} else {
			p.Args = append(p.Args, concrete[i].OID())
			args[i] = a.Name()
		}
		if o.Variadic && i == len(o.Args)-1 {
			if a != types.Unknown {
				args[i] += "[]"
			}
			args[i] = "VARIADIC " + args[i]
		}
	}
	p.Arguments = strings.Join(args, ", ")
	switch {
	case o.RetFn != nil && poly:
		// The result is the type of an "any" argument.
		p.Result = "anyelement"
	case o.RetFn != nil:
		t := o.RetFn(concrete)
		p.RetOID, p.Result = t.OID(), types.T{ID: t.ID, Mod: -1}.String()
	case o.Ret == types.Unknown:
		p.Result = "void"
	default:
		t := types.T{ID: o.Ret, Mod: -1}
		p.RetOID, p.Result = t.OID(), t.String()
	}
	return p
}

// Procs returns the functions pg_proc lists, in OID order. The slice is
// shared: callers must not change it.
func Procs() []Proc { return procs() }

// ProcByOID returns the function with pg_proc OID oid.
func ProcByOID(oid uint32) (Proc, bool) {
	i := int(oid) - ProcOIDBase
	if oid < ProcOIDBase || i >= len(procs()) {
		return Proc{}, false
	}
	return procs()[i], true
}

// Oper is one overload of an operator as pg_operator lists it. Those
// over "any" or polymorphic types are left out.
type Oper struct {
	// OID follows the functions' OIDs (ProcOIDBase + len(Procs())).
	OID  uint32
	Name string
	// Kind is 'b' (infix) or 'l' (prefix), as pg_operator.oprkind.
	Kind                byte
	Left, Right, Result uint32
}

var opers = buildOpers()

func buildOpers() []Oper {
	var out []Oper
	for _, name := range Names() {
		if c := name[0]; c >= 'a' && c <= 'z' {
			continue
		}
		for _, o := range Overloads(name) {
			if o.Variadic || o.Polymorphic || len(o.Args) == 0 || len(o.Args) > 2 || slicesHasUnknown(o.Args) {
				continue
			}
			p := procOf(name, o)
			if p.RetOID == 0 {
				continue
			}
			op := Oper{Name: name, Kind: 'b', Right: p.Args[len(p.Args)-1], Result: p.RetOID}
			if len(p.Args) == 1 {
				op.Kind = 'l'
			} else {
				op.Left = p.Args[0]
			}
			out = append(out, op)
		}
	}
	for i := range out {
		out[i].OID = uint32(ProcOIDBase + len(procs()) + i)
	}
	return out
}

func slicesHasUnknown(ts []types.TypeID) bool {
	for _, t := range ts {
		if t == types.Unknown {
			return true
		}
	}
	return false
}

// Opers returns the operators pg_operator lists, in OID order. The
// slice is shared: callers must not change it.
func Opers() []Oper { return opers }

// Definition is what pg_get_functiondef prints for a function: a
// CREATE FUNCTION of language internal whose body is the function's
// name (weir's functions are built in).
func (p Proc) Definition() string {
	var attrs []string
	if p.Kind == 'w' {
		attrs = append(attrs, "WINDOW")
	}
	if !p.Volatile {
		attrs = append(attrs, "IMMUTABLE")
	}
	attrs = append(attrs, "PARALLEL SAFE")
	if p.Strict {
		attrs = append(attrs, "STRICT")
	}
	return "CREATE OR REPLACE FUNCTION pg_catalog." + p.Name + "(" + p.Arguments + ")\n" +
		" RETURNS " + p.Result + "\n LANGUAGE internal\n " + strings.Join(attrs, " ") + "\n" +
		"AS $function$" + p.Name + "$function$\n"
}
