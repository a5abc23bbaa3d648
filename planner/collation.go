package planner

import (
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
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
// combine) gets "".
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
		if x.Fn == functions.CollateFn {
			if n := collateName(x); n != "default" {
				return n
			}
			return ""
		}
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
	case *Let:
		args = []Expr{x.Body}
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
// have two different implicit ones, neither the default (PostgreSQL's
// COLLATE_CONFLICT): it passes up through the expressions over it.
const conflicting = "\x00"

// derived is the collation of an expression as PostgreSQL's
// assign_collations_walker derives it: name ("" for none or the
// default, conflicting), explicit when a COLLATE clause gave it, at
// character pos of the statement.
type derived struct {
	name     string
	explicit bool
	pos      int
	// conflict and pos2 are, for two implicit collations that
	// conflict, the second one and where it comes from (PostgreSQL's
	// collation2 and location2).
	conflict, first string
	pos2            int
}

// derive is the collation of x over input columns of collations in
// (implicit ones), the positions of column references in pos (nil when
// unknown). Two different explicit collations meeting are PostgreSQL's
// 42P21, raised with the binder's fail.
func derive(x Expr, in []string, pos map[Expr]int) derived {
	if !collatable(x.Type()) {
		return derived{}
	}
	var args []Expr
	switch x := x.(type) {
	case *ColRef:
		if x.Idx >= 0 && x.Idx < len(in) {
			return derived{name: in[x.Idx], pos: pos[x]}
		}
		return derived{}
	case *Call:
		if x.Fn == functions.CollateFn {
			at := 0
			if c, ok := x.Args[2].(*Const); ok {
				at = int(c.V.I)
			}
			return derived{name: collateName(x), explicit: true, pos: at}
		}
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
	case *Let:
		args = []Expr{x.Body}
	}
	return mergeArgs(args, in, pos)
}

// mergeArgs merges the collations of the collatable expressions of args.
func mergeArgs(args []Expr, in []string, pos map[Expr]int) derived {
	var d derived
	for _, a := range args {
		if a != nil && collatable(a.Type()) {
			d = merge(d, derive(a, in, pos))
		}
	}
	return d
}

// merge combines two derived collations as PostgreSQL does: an explicit
// one wins, two different explicit ones are 42P21; of implicit ones a
// conflict stays one, the default yields, two different others
// conflict.
func merge(a, b derived) derived {
	switch {
	case a.explicit && b.explicit:
		if a.name != b.name {
			fail(pgerr.New(pgerr.CollationMismatch, "collation mismatch between explicit collations \"%s\" and \"%s\"", a.name, b.name).WithPosition(b.pos))
		}
		return a
	case a.explicit:
		return a
	case b.explicit:
		return b
	case a.name == conflicting:
		return a
	case b.name == conflicting:
		return b
	case a.name == "" || a.name == b.name:
		return b
	case b.name == "":
		return a
	}
	return derived{name: conflicting, first: a.name, conflict: b.name, pos2: b.pos}
}

// collateName is the collation named by a call of functions.CollateFn.
func collateName(c *Call) string {
	if k, ok := c.Args[1].(*Const); ok {
		return k.V.S
	}
	return ""
}

// collationUses names, for PostgreSQL's 42P22 message, the operations
// that need a collation of their text operands.
var collationUses = map[string]string{
	"=": "string comparison", "<>": "string comparison", "!=": "string comparison",
	"<": "string comparison", "<=": "string comparison", ">": "string comparison", ">=": "string comparison",
	"upper": "upper() function", "lower": "lower() function", "initcap": "initcap() function",
}

// cLocaleCollations are the collations whose LC_CTYPE is C (PostgreSQL
// 15's ucs_basic is libc's C too): a call over them maps case and
// classifies characters as in ASCII (Call.CLocale).
var cLocaleCollations = map[string]bool{"C": true, "POSIX": true, "ucs_basic": true}

// markRowCLocale marks, in x bound over rel's row (an index key or
// predicate, a CHECK constraint, a generation expression), the calls
// whose input collation's LC_CTYPE is C (Call.CLocale), as
// markIndeterminate does in a query: an index on upper(c) of a
// COLLATE "C" column must hold what the query computes.
func markRowCLocale(x Expr, rel *catalog.Relation) Expr {
	in := make([]string, len(rel.Cols))
	for i, c := range rel.Cols {
		in[i] = c.Collation
	}
	// Marked in place: the binder keys what it knows of x's nodes by
	// identity (the calls of inlined SQL functions, for deparsing).
	WalkExpr(x, func(e Expr) {
		if c, ok := e.(*Call); ok && functions.CTypeSensitive(c.Fn) && cLocaleCollations[mergeArgs(c.Args, in, nil).name] {
			c.CLocale = true
		}
	})
	return x
}

// markIndeterminate replaces, in the expressions of plan p, each
// comparison of text (and upper, lower, initcap) whose operands' implicit
// collations conflict by a call of functions.IndeterminateCollationFn,
// which fails as PostgreSQL does once it runs on values. The binder
// calls it unless the front end dropped a COLLATE clause
// (sql.Query.Collated), which could have settled the conflict. It also
// marks the calls whose input collation's LC_CTYPE is C (Call.CLocale).
//
// A sort or group key whose implicit collations conflict is refused at
// once, as PostgreSQL refuses it when it binds (42P21, at the second
// collation's column); pos holds the positions of the bound expressions.
func markIndeterminate(p Plan, pos map[Expr]int) {
	for _, in := range p.Inputs() {
		markIndeterminate(in, pos)
	}
	mark := func(x Expr, in []string) Expr {
		if x == nil {
			return nil
		}
		return mapExpr(x, func(e Expr) Expr {
			var args []Expr
			switch e := e.(type) {
			case *Call:
				args = e.Args
			case *Case:
				for _, w := range e.Whens {
					args = append(args, w.Then)
				}
				args = append(args, e.Else)
			case *Coalesce:
				args = e.Args
			case *InList:
				args = append([]Expr{e.Arg}, e.List...)
			}
			// Any node merges its operands' collations: explicit ones
			// that differ fail here.
			coll := mergeArgs(args, in, pos)
			c, ok := e.(*Call)
			if ok && cLocaleCollations[coll.name] && functions.CTypeSensitive(c.Fn) {
				c.CLocale = true
			}
			if !ok || collationUses[c.Fn] == "" || len(c.Args) == 0 || coll.name != conflicting {
				return e
			}
			use := collationUses[c.Fn]
			for _, a := range c.Args {
				if !collatable(a.Type()) {
					return e
				}
			}
			args = append(append([]Expr{}, c.Args...), &Const{V: types.DString(use), T: types.TText})
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
	case *Sort:
		in := Collations(p.Input)
		for i := range p.Keys {
			p.Keys[i].Expr = mark(p.Keys[i].Expr, in)
			if r, ok := p.Keys[i].Expr.(*ColRef); ok {
				if pr, ok := p.Input.(*Project); ok && r.Idx < len(pr.Exprs) {
					keyCollation(pr.Exprs[r.Idx], Collations(pr.Input), pos)
				}
			} else {
				keyCollation(p.Keys[i].Expr, in, pos)
			}
		}
	case *Distinct:
		if pr, ok := p.Input.(*Project); ok && len(p.On) == 0 {
			in := Collations(pr.Input)
			for _, x := range pr.Exprs {
				keyCollation(x, in, pos)
			}
		}
	case *Agg:
		in := Collations(p.Input)
		for i := range p.GroupBy {
			p.GroupBy[i] = mark(p.GroupBy[i], in)
			keyCollation(p.GroupBy[i], in, pos)
		}
		for i := range p.Aggs {
			for k := range p.Aggs[i].Args {
				p.Aggs[i].Args[k] = mark(p.Aggs[i].Args[k], in)
			}
		}
	}
}

// outputCollations returns the derived collation of each output column
// of p: explicit where a select list item has a COLLATE clause.
func outputCollations(p Plan) []derived {
	switch p := p.(type) {
	case *Project:
		in := Collations(p.Input)
		out := make([]derived, len(p.Exprs))
		for i, x := range p.Exprs {
			out[i] = derive(x, in, nil)
		}
		return out
	case *Filter:
		return outputCollations(p.Input)
	case *Sort:
		return outputCollations(p.Input)
	case *Limit:
		return outputCollations(p.Input)
	case *Distinct:
		return outputCollations(p.Input)
	}
	names := Collations(p)
	out := make([]derived, len(names))
	for i, n := range names {
		out[i] = derived{name: n}
	}
	return out
}

// keyCollation refuses a sort or group key x whose implicit collations
// conflict (42P21 at the second one's column, as PostgreSQL points).
func keyCollation(x Expr, in []string, pos map[Expr]int) {
	if d := derive(x, in, pos); d.name == conflicting && d.conflict != "" {
		fail(pgerr.New(pgerr.CollationMismatch, "collation mismatch between implicit collations \"%s\" and \"%s\"", d.first, d.conflict).
			WithHint("You can choose the collation by applying the COLLATE clause to one or both expressions.").
			WithPosition(d.pos2))
	}
}
