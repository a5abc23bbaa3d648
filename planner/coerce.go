package planner

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// This file is Postgres's type conversion machinery, chapter 10 of the
// PostgreSQL 15 manual ("Type Conversion"): type categories and preferred
// types (pg_type.typcategory / typispreferred), the implicit and assignment
// casts of pg_cast, operator and function overload resolution (§10.2,
// §10.3) and the common-type rule of UNION, CASE and friends (§10.5).

// category is pg_type.typcategory.
type category byte

const (
	catBool     category = 'B'
	catNumeric  category = 'N'
	catString   category = 'S'
	catDatetime category = 'D'
	catTimespan category = 'T'
	catUser     category = 'U'
	catArray    category = 'A'
	catUnknown  category = 'X'
)

func typeCategory(id types.TypeID) category {
	switch id {
	case types.Bool:
		return catBool
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric, types.Oid:
		return catNumeric
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Char:
		return catString
	case types.Date, types.Time, types.Timestamp, types.Timestamptz:
		return catDatetime
	case types.Interval:
		return catTimespan
	case types.Unknown:
		return catUnknown
	}
	if (types.T{ID: id}).IsArray() {
		return catArray
	}
	return catUser
}

// isPreferred is pg_type.typispreferred.
func isPreferred(id types.TypeID) bool {
	switch id {
	case types.Bool, types.Float8, types.Text, types.Timestamptz, types.Interval, types.Oid:
		return true
	}
	return false
}

// castContext is pg_cast.castcontext: the weakest context in which a cast
// is applied automatically.
type castContext uint8

const (
	ctxImplicit   castContext = iota // 'i': anywhere
	ctxAssignment                    // 'a': INSERT/UPDATE targets, and explicit casts
	ctxExplicit                      // 'e': only when written
	ctxNone                          // no cast exists
)

// castKind returns the context of the cast from → to, following pg_cast
// for the types weir has. Casts to a string type from any type are
// assignment casts (Postgres's automatic I/O conversion), casts from a
// string type are explicit.
func castKind(from, to types.TypeID) castContext {
	if from == to || from == types.Unknown {
		return ctxImplicit
	}
	if ft, tt := (types.T{ID: from}), (types.T{ID: to}); ft.IsArray() && tt.IsArray() {
		// An array coercion applies the element cast (array_map) in the
		// element cast's context.
		return castKind(ft.Elem().ID, tt.Elem().ID)
	}
	if k, ok := listedCast(from, to); ok {
		return k
	}
	// Automatic I/O conversion casts: to a string type is an assignment
	// cast, from a string type an explicit one.
	switch to {
	case types.Text, types.Varchar, types.Bpchar, types.Name:
		return ctxAssignment
	}
	switch from {
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Char:
		return ctxExplicit
	}
	return ctxNone
}

// CatalogCast is one cast between two different scalar types that pg_cast lists
// (the automatic I/O conversions to and from string types are not
// listed, as in PostgreSQL).
type CatalogCast struct {
	From, To types.TypeID
	// Context is pg_cast.castcontext: 'i' implicit, 'a' in assignment,
	// 'e' explicit only.
	Context byte
}

// CatalogCasts returns the casts pg_cast lists, among the scalar types
// weir has, in type order.
func CatalogCasts() []CatalogCast {
	scalars := []types.TypeID{types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8,
		types.Numeric, types.Varchar, types.Text, types.Bytea, types.Date, types.Time, types.Timestamp,
		types.Timestamptz, types.Interval, types.Jsonb, types.Oid, types.Name, types.Char, types.Json, types.Bpchar}
	var out []CatalogCast
	for _, from := range scalars {
		for _, to := range scalars {
			if from == to {
				continue
			}
			if k, ok := listedCast(from, to); ok && k != ctxNone {
				out = append(out, CatalogCast{From: from, To: to, Context: "iae"[k]})
			}
		}
	}
	return out
}

// listedCast returns the context of a cast pg_cast lists, and false
// when from → to is not one (an I/O conversion or no cast).
func listedCast(from, to types.TypeID) (castContext, bool) {
	switch from {
	case types.Int2:
		switch to {
		case types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric, types.Oid:
			return ctxImplicit, true
		case types.Bool:
			return ctxNone, true
		}
	case types.Int4:
		switch to {
		case types.Int8, types.Float4, types.Float8, types.Numeric, types.Oid:
			return ctxImplicit, true
		case types.Int2:
			return ctxAssignment, true
		case types.Bool:
			return ctxExplicit, true
		}
	case types.Int8:
		switch to {
		case types.Float4, types.Float8, types.Numeric, types.Oid:
			return ctxImplicit, true
		case types.Int2, types.Int4:
			return ctxAssignment, true
		}
	case types.Float4:
		switch to {
		case types.Float8:
			return ctxImplicit, true
		case types.Int2, types.Int4, types.Int8, types.Numeric:
			return ctxAssignment, true
		}
	case types.Float8:
		switch to {
		case types.Int2, types.Int4, types.Int8, types.Float4, types.Numeric:
			return ctxAssignment, true
		}
	case types.Numeric:
		switch to {
		case types.Float4, types.Float8:
			return ctxImplicit, true
		case types.Int2, types.Int4, types.Int8:
			return ctxAssignment, true
		}
	case types.Oid:
		switch to {
		case types.Int8:
			return ctxAssignment, true
		case types.Int4:
			return ctxAssignment, true
		}
	case types.Bool:
		if to == types.Int4 {
			return ctxExplicit, true
		}
	case types.Date:
		switch to {
		case types.Timestamp, types.Timestamptz:
			return ctxImplicit, true
		}
	case types.Timestamp:
		switch to {
		case types.Timestamptz:
			return ctxImplicit, true
		case types.Date, types.Time:
			return ctxAssignment, true
		}
	case types.Timestamptz:
		switch to {
		case types.Timestamp, types.Date, types.Time:
			return ctxAssignment, true
		}
	case types.Time:
		if to == types.Interval {
			return ctxImplicit, true
		}
	case types.Interval:
		if to == types.Time {
			return ctxAssignment, true
		}
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Char:
		switch to {
		case types.Text, types.Varchar, types.Name:
			return ctxImplicit, true
		case types.Bpchar:
			// text and varchar to bpchar are implicit; name and "char"
			// to bpchar are assignment casts (pg_cast).
			if from == types.Text || from == types.Varchar {
				return ctxImplicit, true
			}
			return ctxAssignment, true
		case types.Char:
			return ctxAssignment, true
		}
	case types.Jsonb:
		switch to {
		case types.Bool, types.Numeric, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8:
			return ctxExplicit, true
		case types.Json:
			return ctxAssignment, true
		}
	case types.Json:
		if to == types.Jsonb {
			return ctxAssignment, true
		}
	}
	return ctxNone, false
}

// canCoerce reports whether a value of type from may be converted to to in
// context ctx.
func canCoerce(from, to types.TypeID, ctx castContext) bool {
	if to == types.Unknown { // "any" parameter slot
		return true
	}
	k := castKind(from, to)
	return k != ctxNone && k <= ctx
}

// argNode is what overload resolution knows about one argument.
type argNode struct {
	t types.T
	// unknown is set for an untyped literal or parameter whose type is
	// still open.
	unknown bool
}

// resolveOverload chooses among cands for the given argument types,
// following §10.2 (operators) and §10.3 (functions). It returns nil when
// no candidate applies and ambiguous=true when several remain.
func resolveOverload(cands []*Overload, args []argNode) (best *Overload, ambiguous bool) {
	var viable []*Overload
	for _, o := range cands {
		ps, ok := expandParams(o, len(args))
		if !ok {
			continue
		}
		good := true
		for i, a := range args {
			if a.unknown {
				continue
			}
			if o.Polymorphic && a.t.ID != ps[i] {
				// anyarray || anyelement binds to the arguments' own
				// types: an int4[] does not become an int8[] to fit
				// here (anyCompatibleArrayArgs has already brought
				// typed arguments to their common type).
				good = false
				break
			}
			if o.AnyNonArray && ps[i] == types.Unknown && a.t.IsArray() {
				good = false // anynonarray takes no arrays
				break
			}
			if !canCoerce(a.t.ID, ps[i], ctxImplicit) {
				good = false
				break
			}
		}
		if good {
			viable = append(viable, o)
		}
	}
	if len(viable) <= 1 {
		if len(viable) == 1 {
			return viable[0], false
		}
		return nil, false
	}
	// §10.2 step 2a: with one unknown argument of a binary operator, assume
	// it has the other argument's type, and look for an exact match.
	known := types.Unknown
	allSame := true
	for _, a := range args {
		if a.unknown {
			continue
		}
		if known == types.Unknown {
			known = a.t.ID
		} else if known != a.t.ID {
			allSame = false
		}
	}
	if known != types.Unknown && allSame {
		for _, o := range viable {
			ps, _ := expandParams(o, len(args))
			exact := true
			for _, p := range ps {
				if p != known {
					exact = false
					break
				}
			}
			if exact {
				return o, false
			}
		}
	}
	// Most exact matches on known arguments. An instance of a polymorphic
	// function (anyarray || anyelement) declares polymorphic types, which
	// match nothing exactly in PostgreSQL.
	viable = keepBest(viable, len(args), func(o *Overload, ps []types.TypeID) int {
		if o.Polymorphic {
			return 0
		}
		n := 0
		for i, a := range args {
			if !a.unknown && ps[i] == a.t.ID {
				n++
			}
		}
		return n
	})
	if len(viable) == 1 {
		return viable[0], false
	}
	// Most preferred types where a conversion is needed.
	viable = keepBest(viable, len(args), func(o *Overload, ps []types.TypeID) int {
		if o.Polymorphic {
			return 0 // anyelement is neither preferred nor a string type
		}
		n := 0
		for i, a := range args {
			if !a.unknown && ps[i] != a.t.ID && isPreferred(ps[i]) {
				n++
			}
		}
		return n
	})
	if len(viable) == 1 {
		return viable[0], false
	}
	// Unknown arguments: prefer candidates taking the string category at
	// those positions, then preferred types.
	viable = keepBest(viable, len(args), func(o *Overload, ps []types.TypeID) int {
		if o.Polymorphic {
			return 0 // anyelement is neither preferred nor a string type
		}
		n := 0
		for i, a := range args {
			if a.unknown && typeCategory(ps[i]) == catString {
				n += 2
				if ps[i] == types.Text {
					n++
				}
			} else if a.unknown && isPreferred(ps[i]) {
				n++
			}
		}
		return n
	})
	if len(viable) == 1 {
		return viable[0], false
	}
	// Finally, with unknowns, assume they have the known arguments' type.
	if known != types.Unknown {
		var exact []*Overload
		for _, o := range viable {
			ps, _ := expandParams(o, len(args))
			ok := true
			for i, a := range args {
				if a.unknown && !canCoerce(known, ps[i], ctxImplicit) {
					ok = false
				}
			}
			if ok {
				exact = append(exact, o)
			}
		}
		if len(exact) == 1 {
			return exact[0], false
		}
	}
	return viable[0], true
}

func keepBest(cands []*Overload, n int, score func(*Overload, []types.TypeID) int) []*Overload {
	best := -1
	var out []*Overload
	for _, o := range cands {
		ps, _ := expandParams(o, n)
		s := score(o, ps)
		if s > best {
			best, out = s, []*Overload{o}
		} else if s == best {
			out = append(out, o)
		}
	}
	return out
}

// expandParams returns o's parameter types for n arguments, expanding a
// variadic last parameter. As in PostgreSQL, the variadic parameter takes
// at least one argument: concat() does not exist, and jsonb_build_array()
// is its own, non-variadic, overload.
func expandParams(o *Overload, n int) ([]types.TypeID, bool) {
	if !o.Variadic {
		return o.Args, len(o.Args) == n
	}
	fixed := len(o.Args) - 1
	if n <= fixed {
		return nil, false
	}
	ps := make([]types.TypeID, n)
	copy(ps, o.Args[:fixed])
	for i := fixed; i < n; i++ {
		ps[i] = o.Args[fixed]
	}
	return ps, true
}

// commonType is select_common_type (§10.5): the type that the branches of
// a CASE, UNION, VALUES column, COALESCE, GREATEST/LEAST or IN list are
// converted to. context names the construct for the 42804 message
// ("CASE types integer and text cannot be matched"). Unknown inputs
// resolve to text when everything is unknown.
func commonType(context string, ts []types.T) (types.T, error) {
	t, _, err := commonTypeAt(context, ts)
	return t, err
}

// commonTypeAt is commonType that also returns, on error, the index of
// the input the error is about (Postgres positions the error there).
func commonTypeAt(context string, ts []types.T) (types.T, int, error) {
	if len(ts) == 0 {
		return types.TText, 0, nil
	}
	p := ts[0]
	for i, n := range ts[1:] {
		if n.ID == types.Unknown || n.ID == p.ID {
			continue
		}
		if p.ID == types.Unknown {
			p = n
			continue
		}
		if typeCategory(p.ID) != typeCategory(n.ID) {
			return types.T{}, i + 1, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", context, p, n)
		}
		if !isPreferred(p.ID) && canCoerce(p.ID, n.ID, ctxImplicit) && !canCoerce(n.ID, p.ID, ctxImplicit) {
			p = n
		}
	}
	if p.ID == types.Unknown {
		return types.TText, 0, nil
	}
	for i, n := range ts {
		if !canCoerce(n.ID, p.ID, ctxImplicit) {
			return types.T{}, i, pgerr.New(pgerr.DatatypeMismatch, "%s could not convert type %s to %s", context, n, p)
		}
	}
	// select_common_typmod: keep the modifier only when all inputs agree;
	// an untyped literal has none, so it drops the modifier (coalesce(c,
	// 'none') over a character(3) c is bpchar, not character(3)).
	mod := int32(-2)
	for _, n := range ts {
		if n.ID != p.ID {
			mod = -1
			break
		}
		if mod == -2 {
			mod = n.Mod
		} else if mod != n.Mod {
			mod = -1
		}
	}
	if mod == -2 {
		mod = -1
	}
	return types.T{ID: p.ID, Mod: mod}, 0, nil
}

// pgTypeName is the internal type name Postgres uses for an output column
// named after a cast (`select 1::integer` is column "int4").
func pgTypeName(t types.T) string {
	switch t.ID {
	case types.Bool:
		return "bool"
	case types.Int2:
		return "int2"
	case types.Int4:
		return "int4"
	case types.Int8:
		return "int8"
	case types.Float4:
		return "float4"
	case types.Float8:
		return "float8"
	case types.Numeric:
		return "numeric"
	case types.Varchar:
		return "varchar"
	case types.Bpchar:
		return "bpchar"
	case types.Text:
		return "text"
	case types.Bytea:
		return "bytea"
	case types.Date:
		return "date"
	case types.Time:
		return "time"
	case types.Timestamp:
		return "timestamp"
	case types.Timestamptz:
		return "timestamptz"
	case types.Interval:
		return "interval"
	case types.Jsonb:
		return "jsonb"
	case types.Json:
		return "json"
	case types.Oid:
		return "oid"
	case types.Name:
		return "name"
	case types.Char:
		return "char"
	case types.Uuid:
		return "uuid"
	case types.Jsonpath:
		return "jsonpath"
	}
	if t.IsEnum() {
		return types.EnumTypname(t)
	}
	if t.IsArray() {
		// FigureColname names a cast to int4[] after its base type name.
		return pgTypeName(t.Elem())
	}
	return "unknown"
}

// ImplicitCast reports whether a value of type from is converted to type
// to implicitly (pg_cast's 'i', or the same type), as PostgreSQL's
// can_coerce_type does in an implicit context.
func ImplicitCast(from, to types.TypeID) bool { return castKind(from, to) == ctxImplicit }
