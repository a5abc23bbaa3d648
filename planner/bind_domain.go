package planner

import (
	"context"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// Domain is what a value coerced to a domain type must satisfy, as
// PostgreSQL's CoerceToDomain checks it: NOT NULL when any level of a
// domain stack requires it, then the CHECK constraints of every level,
// the base domain's first and each level's by name. Name is the domain
// as format_type prints it, which the errors name (the domain coerced
// to, whichever level the constraint belongs to).
type Domain struct {
	OID     uint32
	Name    string
	NotNull bool
	// Array is set when the value is an array of the domain (posint[]):
	// the constraints hold for each of its elements, NOT NULL included;
	// a NULL array passes.
	Array bool
	// Pos, when set, is where a violation is reported: a string literal
	// cast to an array of the domain, which PostgreSQL checks as it
	// reads the literal ('{-1}'::posint[]).
	Pos int
	// Checks are bound over a one-column row: the value (VALUE in the
	// constraint's text), of the domain's base type.
	Checks []BoundCheck
}

// DomainCatalog is implemented by a Catalog that knows domains:
// DomainByOID returns the user type of OID oid and the name format_type
// gives it.
type DomainCatalog interface {
	DomainByOID(oid uint32) (u *catalog.UserType, name string, ok bool)
}

// TypeName is the type a value coerced to d has, as pg_typeof and
// format_type name it: the domain, or its array.
func (d *Domain) TypeName() string {
	if d.Array {
		return d.Name + "[]"
	}
	return d.Name
}

// arrayDomain returns d for arrays of the domain.
func arrayDomain(d *Domain) *Domain {
	if d == nil {
		return nil
	}
	c := *d
	c.Array = true
	return &c
}

// domainStack returns the domain oid and the domains it is over,
// outermost first.
func domainStack(dc DomainCatalog, oid uint32) []*catalog.UserType {
	var out []*catalog.UserType
	// A domain is over one made before it, so the chain ends; the bound
	// only guards against a corrupt catalog.
	for oid != 0 && len(out) < 64 {
		u, _, ok := dc.DomainByOID(oid)
		if !ok || u.Kind != 'd' {
			failf(pgerr.UndefinedObject, "cache lookup failed for type %d", oid)
		}
		out = append(out, u)
		oid = u.BaseDomain
	}
	return out
}

// domain binds the constraints of the domain oid (nil when oid is 0). A
// catalog that cannot look domains up fails with 0A000 rather than let a
// value through unchecked.
func (b *binder) domain(oid uint32) *Domain {
	if oid == 0 {
		return nil
	}
	dc, ok := b.cat.(DomainCatalog)
	if !ok {
		failf(pgerr.FeatureNotSupported, "values of a domain type are not supported here")
	}
	top, name, _ := dc.DomainByOID(oid)
	if top == nil {
		failf(pgerr.UndefinedObject, "cache lookup failed for type %d", oid)
	}
	d := &Domain{OID: oid, Name: name}
	stack := domainStack(dc, oid)
	for i := len(stack) - 1; i >= 0; i-- {
		u := stack[i]
		if u.NotNull {
			d.NotNull = true
		}
		var level []BoundCheck
		for _, c := range u.Checks {
			e, err := BindDomainCheck(b.ctx, u, c.Expr, 0, b.cat)
			if err != nil {
				fail(pgerr.As(err))
			}
			level = append(level, BoundCheck{Name: c.Name, Expr: e})
		}
		slices.SortStableFunc(level, func(x, y BoundCheck) int { return strings.Compare(x.Name, y.Name) })
		d.Checks = append(d.Checks, level...)
	}
	return d
}

// domainDefault is the DEFAULT of the domain oid, the nearest level of
// its stack that has one ("" when none).
func (b *binder) domainDefault(oid uint32) string {
	if oid == 0 {
		return ""
	}
	dc, ok := b.cat.(DomainCatalog)
	if !ok {
		failf(pgerr.FeatureNotSupported, "values of a domain type are not supported here")
	}
	for _, u := range domainStack(dc, oid) {
		if u.Default != "" {
			return u.Default
		}
	}
	return ""
}

// BindDomainCheck binds the CHECK constraint text of domain u over a
// one-column row holding the value, VALUE in text, of u's base type.
// Its errors are those of BindCheck, for "check constraint".
func BindDomainCheck(ctx context.Context, u *catalog.UserType, text string, pos int, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, pos)
	rel := &catalog.Relation{Name: u.Name, Cols: []catalog.Column{{Name: "value", T: u.T}}}
	b, n := rowExprBinder(ctx, text, cat, "check constraint", true)
	x := b.expr(&exprCtx{s: tableScope(rel, ""), clause: "check constraints"}, n)
	x = b.boolArg(x, "CHECK")
	return x, nil
}

// toDomain wraps x, already of the domain's base type, in the domain's
// checks: a Cast to the base type carrying them.
func (b *binder) toDomain(x Expr, oid uint32, assign bool) Expr {
	d := b.domain(oid)
	if d == nil {
		return x
	}
	return &Cast{Arg: x, T: b.typeOf(x), Assign: assign, Domain: d}
}

// toArrayDomain wraps x, of the array type of the domain's base type,
// in the domain's checks for each element, reported at pos (0: none).
func (b *binder) toArrayDomain(x Expr, oid uint32, assign bool, pos int) Expr {
	d := arrayDomain(b.domain(oid))
	if d == nil {
		return x
	}
	d.Pos = pos
	return &Cast{Arg: x, T: b.typeOf(x), Assign: assign, Domain: d}
}

// DomainRules binds the domains of rel's columns, by column (nil for a
// column of no domain type), for writers that build rows themselves.
func DomainRules(ctx context.Context, rel *catalog.Relation, cat Catalog) (out []*Domain, err error) {
	defer recoverAt(&err, 0)
	b := &binder{cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	return b.domainRules(rel), nil
}

// domainRules binds the domains of rel's columns (nil when none has one).
func (b *binder) domainRules(rel *catalog.Relation) []*Domain {
	var out []*Domain
	for i, c := range rel.Cols {
		if c.Domain == 0 || c.Dropped {
			continue
		}
		if out == nil {
			out = make([]*Domain, len(rel.Cols))
		}
		out[i] = b.domain(c.Domain)
		if c.DomainArray {
			out[i] = arrayDomain(out[i])
		}
	}
	return out
}
