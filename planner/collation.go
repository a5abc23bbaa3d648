package planner

import (
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/types"
)

// Collations returns, per output column of p, the collation PostgreSQL
// derives for it from the columns it reads (its implicit collation):
// the name of a column's COLLATE (catalog.Column.Collation), "" for the
// default one or for a type without collation. CREATE TABLE AS, CREATE
// VIEW and CREATE MATERIALIZED VIEW give their columns these, as
// PostgreSQL does.
//
// Every collation weir knows orders text by its bytes, so a collation
// changes no result: it is kept for what the catalog shows. A column
// whose inputs have different collations (which PostgreSQL cannot
// combine) gets "". An expression's COLLATE clause is not seen: the
// front end drops it.
func Collations(p Plan) []string {
	out := collations(p)
	n := len(p.Schema())
	if len(out) != n {
		return make([]string, n)
	}
	return out
}

func collations(p Plan) []string {
	n := len(p.Schema())
	switch p := p.(type) {
	case *Scan:
		out := make([]string, len(p.Cols))
		for i, c := range p.Cols {
			if c >= 0 && c < len(p.Rel.Cols) {
				out[i] = p.Rel.Cols[c].Collation
			}
		}
		return out
	case *Filter:
		return Collations(p.Input)
	case *Sort:
		return Collations(p.Input)
	case *Limit:
		return Collations(p.Input)
	case *Distinct:
		return Collations(p.Input)
	case *Project:
		in := Collations(p.Input)
		out := make([]string, len(p.Exprs))
		for i, x := range p.Exprs {
			out[i] = exprCollation(x, in)
		}
		return out
	case *Agg:
		in := Collations(p.Input)
		var out []string
		for _, g := range p.GroupBy {
			out = append(out, exprCollation(g, in))
		}
		for _, a := range p.Aggs {
			c := ""
			switch a.Fn {
			case "min", "max", "string_agg", "array_agg", "any_value", "mode":
				if collatable(a.T) && len(a.Args) > 0 {
					c = exprCollation(a.Args[0], in)
				}
			}
			out = append(out, c)
		}
		return out
	case *Join:
		out := Collations(p.Left)
		if p.Kind != SemiJoin && p.Kind != AntiJoin {
			out = append(out, Collations(p.Right)...)
		}
		return out
	case *SetOp:
		l, r := Collations(p.Left), Collations(p.Right)
		out := make([]string, n)
		for i := range out {
			if i < len(l) && i < len(r) {
				out[i] = combine(l[i], r[i])
			}
		}
		return out
	case *RecursiveUnion:
		return Collations(p.NonRecursive)
	case *Window:
		out := Collations(p.Input)
		return append(out, make([]string, len(p.Calls))...)
	}
	return make([]string, n)
}

// exprCollation is the implicit collation of x over input columns of
// collations in: a column's own, and for an expression of a collatable
// type the one its collatable arguments share.
func exprCollation(x Expr, in []string) string {
	if !collatable(x.Type()) {
		return ""
	}
	var args []Expr
	switch x := x.(type) {
	case *ColRef:
		if x.Idx >= 0 && x.Idx < len(in) {
			return in[x.Idx]
		}
		return ""
	case *Call:
		args = x.Args
	case *Cast:
		args = []Expr{x.Arg}
	case *Case:
		for _, w := range x.Whens {
			args = append(args, w.Then)
		}
		if x.Else != nil {
			args = append(args, x.Else)
		}
	case *Coalesce:
		args = x.Args
	}
	c := ""
	for _, a := range args {
		if a != nil && collatable(a.Type()) {
			c = combine(c, exprCollation(a, in))
		}
	}
	return c
}

// combine is the collation of two implicit ones: a non-default one wins
// over the default; two different ones give none ("").
func combine(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return ""
}

// collatable reports whether values of t have a collation.
func collatable(t types.T) bool {
	switch t.ID {
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.TextArray, types.VarcharArray, types.BpcharArray, types.NameArray:
		return true
	}
	return false
}

// conflicting is the derived collation of an expression whose operands
// have two different ones, neither the default (PostgreSQL's
// COLLATE_CONFLICT): it passes up through the expressions over it.
const conflicting = "\x00"

// derive is the collation of x over input columns of collations in, as
// PostgreSQL's assign_collations_walker derives it from implicit ones:
// "" for none or the default, conflicting when two meet.
func derive(x Expr, in []string) string {
	if !collatable(x.Type()) {
		return ""
	}
	var args []Expr
	switch x := x.(type) {
	case *ColRef:
		if x.Idx >= 0 && x.Idx < len(in) {
			return in[x.Idx]
		}
		return ""
	case *Call:
		args = x.Args
	case *Cast:
		args = []Expr{x.Arg}
	case *Case:
		for _, w := range x.Whens {
			args = append(args, w.Then)
		}
		args = append(args, x.Else)
	case *Coalesce:
		args = x.Args
	}
	c := ""
	for _, a := range args {
		if a != nil && collatable(a.Type()) {
			c = merge(c, derive(a, in))
		}
	}
	return c
}

// merge combines two derived collations: a conflict stays one, the
// default yields, two different others conflict.
func merge(a, b string) string {
	switch {
	case a == conflicting || b == conflicting:
		return conflicting
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return conflicting
}

// collationUses names, for PostgreSQL's 42P22 message, the operations
// that need a collation of their text operands.
var collationUses = map[string]string{
	"=": "string comparison", "<>": "string comparison", "!=": "string comparison",
	"<": "string comparison", "<=": "string comparison", ">": "string comparison", ">=": "string comparison",
	"upper": "upper() function", "lower": "lower() function", "initcap": "initcap() function",
}

// markIndeterminate replaces, in the expressions of plan p, each
// comparison of text (and upper, lower, initcap) whose operands' implicit
// collations conflict by a call of functions.IndeterminateCollationFn,
// which fails as PostgreSQL does once it runs on values. The binder
// calls it for a statement without COLLATE clauses (sql.Query.Collated),
// which could have settled the conflict.
func markIndeterminate(p Plan) {
	for _, in := range p.Inputs() {
		markIndeterminate(in)
	}
	mark := func(x Expr, in []string) Expr {
		if x == nil {
			return nil
		}
		return mapExpr(x, func(e Expr) Expr {
			c, ok := e.(*Call)
			if !ok {
				return e
			}
			use := collationUses[c.Fn]
			if use == "" || len(c.Args) == 0 {
				return e
			}
			coll := ""
			for _, a := range c.Args {
				if !collatable(a.Type()) {
					return e
				}
				coll = merge(coll, derive(a, in))
			}
			if coll != conflicting {
				return e
			}
			args := append(append([]Expr{}, c.Args...), &Const{V: types.DString(use), T: types.TText})
			return &Call{Fn: functions.IndeterminateCollationFn, Args: args, T: c.T}
		})
	}
	switch p := p.(type) {
	case *Project:
		in := Collations(p.Input)
		for i := range p.Exprs {
			p.Exprs[i] = mark(p.Exprs[i], in)
		}
	case *Filter:
		p.Cond = mark(p.Cond, Collations(p.Input))
	case *Join:
		in := append(Collations(p.Left), Collations(p.Right)...)
		p.Cond = mark(p.Cond, in)
	}
}
