package planner

// ColumnDomain is the domain of an output column, as PostgreSQL types a
// view's column: OID is the domain (0 for none), Array is set when the
// column is an array of it (posint[]).
type ColumnDomain struct {
	OID   uint32
	Array bool
}

// Domains returns the domain of each output column of p, as Collations
// does its collation: a table column of a domain keeps it through
// projections, filters, sorts, joins and grouping keys; a cast to a
// domain gives it; an element of an array of a domain (b[1]) is of the
// domain and a slice (b[1:2]) of its array; a set operation keeps a
// domain both sides have. Any other expression has its base type, as in
// PostgreSQL, where operators and functions take the base type.
func Domains(p Plan) []ColumnDomain {
	out := domains(p)
	if n := len(p.Schema()); len(out) != n {
		return make([]ColumnDomain, n)
	}
	return out
}

func domains(p Plan) []ColumnDomain {
	n := len(p.Schema())
	switch p := p.(type) {
	case *Scan:
		out := make([]ColumnDomain, len(p.Cols))
		for i, c := range p.Cols {
			if c >= 0 && c < len(p.Rel.Cols) {
				out[i] = ColumnDomain{OID: p.Rel.Cols[c].Domain, Array: p.Rel.Cols[c].DomainArray}
			}
		}
		return out
	case *Filter:
		return Domains(p.Input)
	case *Sort:
		return Domains(p.Input)
	case *Limit:
		return Domains(p.Input)
	case *Distinct:
		return Domains(p.Input)
	case *Project:
		in := Domains(p.Input)
		out := make([]ColumnDomain, len(p.Exprs))
		for i, x := range p.Exprs {
			out[i] = exprDomain(x, in)
		}
		return out
	case *Agg:
		in := Domains(p.Input)
		out := make([]ColumnDomain, 0, n)
		for _, g := range p.GroupBy {
			out = append(out, exprDomain(g, in))
		}
		return append(out, make([]ColumnDomain, len(p.Aggs))...)
	case *Join:
		out := Domains(p.Left)
		if p.Kind != SemiJoin && p.Kind != AntiJoin {
			out = append(out, Domains(p.Right)...)
		}
		return out
	case *SetOp:
		l, r := Domains(p.Left), Domains(p.Right)
		out := make([]ColumnDomain, n)
		for i := range out {
			if i < len(l) && i < len(r) && l[i] == r[i] {
				out[i] = l[i]
			}
		}
		return out
	case *Window:
		return append(Domains(p.Input), make([]ColumnDomain, len(p.Calls))...)
	}
	return make([]ColumnDomain, n)
}

// exprDomain is the domain of x over input columns of domains in.
func exprDomain(x Expr, in []ColumnDomain) ColumnDomain {
	switch x := x.(type) {
	case *ColRef:
		if x.Idx >= 0 && x.Idx < len(in) {
			return in[x.Idx]
		}
	case *Cast:
		if x.Domain != nil {
			return ColumnDomain{OID: x.Domain.OID, Array: x.Domain.Array}
		}
	case *Call:
		if (x.Fn == "pg_subscript" || x.Fn == "pg_slice") && len(x.Args) > 0 {
			if d := exprDomain(x.Args[0], in); d.Array {
				return ColumnDomain{OID: d.OID, Array: x.Fn == "pg_slice"}
			}
		}
	}
	return ColumnDomain{}
}
