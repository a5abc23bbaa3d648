package planner

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// anyCompatibleArrayArgs resolves the arguments of the array functions
// PostgreSQL 15 declares over anycompatiblearray and anycompatible
// (pg_proc): array_append(a, x), array_prepend(x, a) and array_cat(a,
// b). The element types of the typed arguments (an array's element,
// the value itself) are brought to their common type by
// select_common_type's rules, text when every argument is an untyped
// literal, and each argument is converted to that type or its array:
// array_append(int[], numeric) is numeric[], array_cat('{1}', '{2}')
// text[]. trim_array takes anyarray, which an untyped literal cannot
// decide (42804). Arguments that have no common type, or a non-array
// where an array goes, are returned as they are, for the resolution to
// find no such function as PostgreSQL does. Other calls are returned as
// is. The || operators over arrays are these functions: with both
// operands typed and one an array, they resolve the same way.
func (b *binder) anyCompatibleArrayArgs(name string, args []Expr, isOp bool) []Expr {
	var isArr []bool
	if isOp {
		if name != "||" || len(args) != 2 || b.isUnknown(args[0]) || b.isUnknown(args[1]) {
			return args
		}
		l, r := b.typeOf(args[0]).IsArray(), b.typeOf(args[1]).IsArray()
		if !l && !r {
			return args
		}
		isArr = []bool{l, r}
	}
	switch {
	case isArr != nil:
	case name == "array_append" && len(args) == 2:
		isArr = []bool{true, false}
	case name == "array_prepend" && len(args) == 2:
		isArr = []bool{false, true}
	case name == "array_cat" && len(args) == 2:
		isArr = []bool{true, true}
	case name == "trim_array" && len(args) == 2:
		if b.isUnknown(args[0]) || b.typeOf(args[0]).ID == types.Unknown {
			fail(pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown"))
		}
		return args
	default:
		return args
	}
	var elems []types.T
	for i, a := range args {
		t := b.typeOf(a)
		if b.isUnknown(a) || t.ID == types.Unknown {
			continue
		}
		if isArr[i] {
			if !t.IsArray() {
				return args
			}
			t = t.Elem()
		} else if t.IsArray() {
			return args
		}
		elems = append(elems, t)
	}
	et, err := commonType("", elems)
	if err != nil {
		return args
	}
	et.Mod = -1
	at, ok := types.ArrayOf(et)
	if !ok {
		return args
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		want := et
		if isArr[i] {
			want = at
		}
		if t := b.typeOf(a); t.ID == want.ID && !b.isUnknown(a) {
			out[i] = a
			continue
		}
		if out[i] = b.tryCoerce(a, want, ctxImplicit); out[i] == nil {
			return args
		}
	}
	return out
}
