package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// Enum values are held as their labels' sort orders (float8 datums, see
// package types), so the binder compares and aggregates them as float8:
// it relabels both sides of a comparison of an enum, and min/max's
// argument, to float8 (a Cast between an enum and float8 changes no
// value) and calls float8's operator or aggregate, whose result is the
// enum again for min and max. enum_first, enum_last and enum_range read
// the type's labels as the statement is bound.

var enumCompareOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// enumCall binds a call one of whose arguments is of an enum type, and
// reports false for a call it leaves to the ordinary resolution.
func (b *binder) enumCall(name string, args []Expr, node ast.Node, kind FuncKind) (*Call, bool) {
	var et types.T
	for _, a := range args {
		if t := b.typeOf(a); t.IsEnum() && !b.isUnknown(a) {
			et = t
			break
		}
	}
	if et.ID == types.Unknown {
		return nil, false
	}
	relabel := func(a Expr) Expr {
		c := b.tryCoerce(a, et, ctxImplicit)
		if c == nil {
			return nil
		}
		return &Cast{Arg: c, T: types.TFloat8}
	}
	switch {
	case kind == Scalar && enumCompareOps[name] && len(args) == 2:
		l, r := relabel(args[0]), relabel(args[1])
		if l == nil || r == nil {
			return nil, false
		}
		return &Call{Fn: name, Args: []Expr{l, r}, T: types.TBool}, true
	case (kind == Aggregate || kind == WindowOnly) && (name == "min" || name == "max") && len(args) == 1:
		return &Call{Fn: name, Args: []Expr{relabel(args[0])}, T: et}, true
	case (kind == Aggregate || kind == WindowOnly) && name == "array_agg" && len(args) == 1:
		if _, ok := types.ArrayOf(et); !ok {
			// An enum made before weir had arrays of enums has no array type.
			fail(pgerr.As(sql.UserArrayUnsupported(et.String())).WithPosition(b.pos(node)))
		}
	}
	return nil, false
}

// enumArrayStandIn is a substitution of an enum array type and its enum
// by uuid[] and uuid, the array type and element type whose overloads
// (one per array type, registered for the built-in types) resolve a call
// over an array of an enum: mood[] @> mood[], 'ok' = ANY(m), m[1],
// array_length(m, 1), array_agg(mood). The implementations work from the
// argument types, so the call binds with the enum types put back. The
// zero value substitutes nothing.
type enumArrayStandIn struct{ arr, elem types.T }

// enumArraySub returns the substitution for a call over args: the first
// argument of an enum array type, or array_agg's enum argument, decides
// it. A call that has a uuid or uuid[] argument has none.
func (b *binder) enumArraySub(name string, args []Expr) enumArrayStandIn {
	var s enumArrayStandIn
	for _, a := range args {
		t := b.typeOf(a)
		switch {
		case t.ID == types.Uuid || t.ID == types.UuidArray:
			return enumArrayStandIn{}
		case s.arr.ID == types.Unknown && t.IsArray() && t.Elem().IsEnum():
			s = enumArrayStandIn{arr: types.T{ID: t.ID, Mod: -1}, elem: types.T{ID: t.Elem().ID, Mod: -1}}
		case s.arr.ID == types.Unknown && name == "array_agg" && t.IsEnum():
			if at, ok := types.ArrayOf(t); ok {
				s = enumArrayStandIn{arr: at, elem: types.T{ID: t.ID, Mod: -1}}
			}
		}
	}
	return s
}

// forwardT puts the stand-ins in for the enum types.
func (s enumArrayStandIn) forwardT(t types.T) types.T {
	switch {
	case s.arr.ID == types.Unknown:
	case t.ID == s.arr.ID:
		return types.T{ID: types.UuidArray, Mod: -1}
	case t.ID == s.elem.ID:
		return types.T{ID: types.Uuid, Mod: -1}
	}
	return t
}

func (s enumArrayStandIn) forward(an []argNode) []argNode {
	if s.arr.ID == types.Unknown {
		return an
	}
	out := make([]argNode, len(an))
	for i, a := range an {
		out[i] = argNode{t: s.forwardT(a.t), unknown: a.unknown}
	}
	return out
}

// back puts the enum types back for the stand-ins.
func (s enumArrayStandIn) back(t types.T) types.T {
	switch {
	case s.arr.ID == types.Unknown:
	case t.ID == types.UuidArray:
		return s.arr
	case t.ID == types.Uuid:
		return s.elem
	}
	return t
}

// enumFunc binds enum_first(x) and enum_last(x), the first and last
// labels of x's type, and enum_range(x) and enum_range(lo, hi): the
// labels of the type, or those from lo to hi (NULL for an open end), as
// a text[] constant. It reports false for other calls.
func (b *binder) enumFunc(name string, args []Expr, node ast.Node) (Expr, bool) {
	if name != "enum_first" && name != "enum_last" && name != "enum_range" {
		return nil, false
	}
	var et types.T
	for _, a := range args {
		if t := b.typeOf(a); t.IsEnum() {
			et = t
		}
	}
	if et.ID == types.Unknown || len(args) < 1 || len(args) > 2 {
		return nil, false
	}
	if name != "enum_range" {
		labels := types.EnumLabels(et)
		if len(args) != 1 {
			return nil, false
		}
		if len(labels) == 0 {
			fail(pgerr.New(pgerr.ObjectNotInPrerequisiteState, "enum %s contains no values", types.EnumTypname(et)))
		}
		l := labels[0]
		if name == "enum_last" {
			l = labels[len(labels)-1]
		}
		return &Const{V: types.DFloat(l.Sort), T: et}, true
	}
	bound := func(a Expr) (float64, bool) {
		c, ok := b.tryCoerce(a, et, ctxImplicit).(*Const)
		if !ok {
			fail(pgerr.New(pgerr.FeatureNotSupported, "enum_range of a value that is not a constant is not supported").WithPosition(b.pos(node)))
		}
		return c.V.F, !c.V.Null
	}
	var lo, hi float64
	var hasLo, hasHi bool
	if len(args) == 2 {
		lo, hasLo = bound(args[0])
		hi, hasHi = bound(args[1])
	}
	var elems []string
	for _, l := range types.EnumLabels(et) {
		if hasLo && l.Sort < lo || hasHi && l.Sort > hi {
			continue
		}
		elems = append(elems, l.Label)
	}
	k := &Const{V: types.DString(types.FormatTextArray(elems, make([]bool, len(elems)))), T: types.TTextArray}
	if b.enumArrays == nil {
		b.enumArrays = map[Expr]types.T{}
	}
	b.enumArrays[k] = et
	return k, true
}
