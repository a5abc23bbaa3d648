package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Set-returning functions in a select list (PostgreSQL 10+ semantics):
// SELECT generate_series(1, 3), unnest(arr), x FROM t. The calls are
// collected while the select list is bound and run by a ProjectSet
// between the aggregation and window functions below and the select
// list's projection above, in lockstep: a row gives as many rows as its
// longest call, the others padded with NULL. An SRF in another's
// arguments runs in a ProjectSet below it, as PostgreSQL's
// split_pathtarget_at_srfs places each SRF one level above the SRFs of
// its arguments (the calls of one level are zipped). An SRF in CASE or
// COALESCE or outside the select list is refused with PostgreSQL's
// errors (0A000).

// srfFuncs are the set-returning functions weir has.
var srfFuncs = func() map[string]bool {
	m := map[string]bool{"generate_series": true, "unnest": true, "regexp_split_to_table": true, "regexp_matches": true, "pg_partition_ancestors": true, "jsonb_path_query": true, "jsonb_path_query_tz": true}
	for name := range functions.JSONSetFuncs {
		m[name] = true
	}
	for name := range functions.JSONEachFuncs {
		m[name] = true
	}
	return m
}()

// srfState collects the set-returning calls of one select list.
type srfState struct {
	calls  []TableFunc
	levels []int // levels[i]: 0 for calls[i] over no SRF, else 1 + its arguments' SRFs' level
	refs   []winRef
}

// srfSlot is the provisional index of a reference to SRF call i, patched
// once the ProjectSet's input is known.
func srfSlot(i int) int { return -1_000_000 - i }

// srfOf returns the call a provisional SRF reference names, or -1.
func srfOf(idx int) int {
	if idx > srfSlot(0) {
		return -1
	}
	return srfSlot(0) - idx
}

// srfCall binds a set-returning function call of the select list into a
// reference to its ProjectSet column.
func (b *binder) srfCall(c *exprCtx, n *ast.FuncCallExpr) Expr {
	if c.srf == nil {
		where := c.clauseName()
		if c.srfBan != "" {
			where = c.srfBan
		}
		e := pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", where).WithPosition(b.pos(n))
		switch where {
		case "aggregate function calls", "window function calls":
			e = pgerr.New(pgerr.FeatureNotSupported, "%s cannot contain set-returning function calls", where).WithPosition(b.pos(n))
			e = e.WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
		}
		if c.srfBan != "" {
			e = e.WithHint("You might be able to move the set-returning function into a LATERAL FROM item.")
		}
		fail(e)
	}
	if _, ok := functions.JSONEachFuncs[n.FnName.L]; ok {
		// Its rows are records, a type weir lacks.
		fail(pgerr.New(pgerr.FeatureNotSupported, "%s in a select list is not supported", n.FnName.L).
			WithHint("Call it in FROM: SELECT key, value FROM %s(...).", n.FnName.L).WithPosition(b.pos(n)))
	}
	args := b.srfArgs(c, n.FnName.L, n.Args, b.pos(n))
	tf := b.bindSRF(n.FnName.L, args, n)
	level := 0
	for _, a := range tf.Args {
		WalkExpr(a, func(x Expr) {
			if cr, ok := x.(*ColRef); ok {
				if i := srfOf(cr.Idx); i >= 0 {
					level = max(level, c.srf.levels[i]+1)
				}
			}
		})
	}
	c.srf.calls = append(c.srf.calls, *tf)
	c.srf.levels = append(c.srf.levels, level)
	ref := &ColRef{Idx: srfSlot(len(c.srf.calls) - 1), T: tf.Out[0].T, Name: tf.Fn}
	c.srf.refs = append(c.srf.refs, winRef{call: len(c.srf.calls) - 1, ref: ref})
	return ref
}

// bindSRF resolves a set-returning function over bound arguments, in
// FROM or in a select list.
func (b *binder) bindSRF(name string, args []Expr, node ast.Node) *TableFunc {
	switch name {
	case "generate_series":
		call := b.resolveLocal("generate_series", generateSeries, args)
		return &TableFunc{Fn: "generate_series", Args: call.Args, Out: types.Schema{{Name: "generate_series", T: call.T}}}
	case "unnest":
		if len(args) == 1 {
			if t := b.typeOf(args[0]); t.IsArray() {
				return &TableFunc{Fn: "unnest", Args: args, Out: types.Schema{{Name: "unnest", T: t.Elem()}}}
			}
			if b.isUnknown(args[0]) {
				fail(pgerr.New(pgerr.AmbiguousFunction, "function unnest(unknown) is not unique").
					WithHint("Could not choose a best candidate function. You might need to add explicit type casts.").WithPosition(b.pos(node)))
			}
		}
		if len(args) == 1 {
			an := []argNode{{t: b.typeOf(args[0])}}
			fail(b.noSuchFunc("unnest", an, false, node))
		}
		failf(pgerr.FeatureNotSupported, "unnest is supported only over one array")
	case "pg_partition_ancestors":
		// weir has no partitions: no relation has ancestors (psql's \d
		// asks for them to list the foreign keys referencing a table).
		if len(args) != 1 {
			failf(pgerr.UndefinedFunction, "function pg_partition_ancestors does not exist")
		}
		return &TableFunc{Fn: name, Args: args, Out: types.Schema{{Name: name, T: types.TOid}}}
	case "regexp_split_to_table":
		call := b.resolveLocal("regexp_split_to_table", regexpSplitToTable, args)
		return &TableFunc{Fn: "regexp_split_to_table", Args: call.Args, Out: types.Schema{{Name: "regexp_split_to_table", T: types.TText}}}
	case "jsonb_path_query", "jsonb_path_query_tz":
		sigs := jsonbPathQuery
		if name == "jsonb_path_query_tz" {
			sigs = make([]*Overload, len(jsonbPathQuery))
			for i, o := range jsonbPathQuery {
				tz := *o
				tz.Name = name
				sigs[i] = &tz
			}
		}
		call := b.resolveLocal(name, sigs, args)
		return &TableFunc{Fn: name, Args: call.Args, Out: types.Schema{{Name: name, T: types.TJsonb}}}
	case "regexp_matches":
		call := b.resolveLocal("regexp_matches", regexpMatches, args)
		return &TableFunc{Fn: "regexp_matches", Args: call.Args, Out: types.Schema{{Name: "regexp_matches", T: types.TTextArray}}}
	}
	if sig, ok := functions.JSONSetFuncs[name]; ok {
		call := b.resolveLocal(name, []*Overload{{Name: name, Args: []types.TypeID{sig[0]}, Ret: sig[1]}}, args)
		return &TableFunc{Fn: name, Args: call.Args, Out: types.Schema{{Name: name, T: types.T{ID: sig[1], Mod: -1}}}}
	}
	failf(pgerr.FeatureNotSupported, "function %s in FROM is not supported", name)
	return nil
}

// regexpSplitToTable lists regexp_split_to_table's signatures.
var regexpSplitToTable = []*Overload{
	{Name: "regexp_split_to_table", Args: []types.TypeID{types.Text, types.Text}, Ret: types.Text},
	{Name: "regexp_split_to_table", Args: []types.TypeID{types.Text, types.Text, types.Text}, Ret: types.Text},
}

// jsonbPathQuery lists jsonb_path_query's signatures.
var jsonbPathQuery = []*Overload{
	{Name: "jsonb_path_query", Args: []types.TypeID{types.Jsonb, types.Jsonpath}, Ret: types.Jsonb},
	{Name: "jsonb_path_query", Args: []types.TypeID{types.Jsonb, types.Jsonpath, types.Jsonb}, Ret: types.Jsonb},
	{Name: "jsonb_path_query", Args: []types.TypeID{types.Jsonb, types.Jsonpath, types.Jsonb, types.Bool}, Ret: types.Jsonb},
}

// regexpMatches lists regexp_matches's signatures.
var regexpMatches = []*Overload{
	{Name: "regexp_matches", Args: []types.TypeID{types.Text, types.Text}, Ret: types.TextArray},
	{Name: "regexp_matches", Args: []types.TypeID{types.Text, types.Text, types.Text}, Ret: types.TextArray},
}

// projectSet puts the ProjectSets of the select list's SRF calls over p,
// one per level from the lowest, and points the references to each
// call at its column.
func projectSet(p Plan, s *srfState) Plan {
	for lvl := 0; lvl <= slices.Max(s.levels); lvl++ {
		in := p.Schema()
		out := append(types.Schema(nil), in...)
		ps := &ProjectSet{Input: p}
		at := map[int]int{}
		for i, c := range s.calls {
			if s.levels[i] == lvl {
				at[i] = len(out)
				out = append(out, c.Out[0])
				ps.Calls = append(ps.Calls, c)
			}
		}
		ps.Out = append(out, types.Column{Name: "ordinality", T: types.TInt8, Hidden: true})
		for _, r := range s.refs {
			if col, ok := at[r.call]; ok {
				r.ref.Idx = col
			}
		}
		p = ps
	}
	return p
}

// srfFinder looks for set-returning calls outside subqueries.
type srfFinder struct{ found bool }

func (v *srfFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.FuncCallExpr:
		if srfFuncs[n.FnName.L] {
			v.found = true
			return n, true
		}
	}
	return n, false
}

func (v *srfFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// containsSRF reports a set-returning call in n outside subqueries.
func (b *binder) containsSRF(n ast.Node) bool {
	v := &srfFinder{}
	n.Accept(v)
	return v.found
}

// srfArgs binds the arguments of a call of the set-returning function
// name. Arguments in named notation (jsonb_path_query(t, p, silent =>
// true)) take the places of their parameters, and the defaults fill the
// places between; a name the function has not is 42883.
func (b *binder) srfArgs(c *exprCtx, name string, args []ast.ExprNode, pos int) []Expr {
	if !hasNamedArgs(args) {
		return b.exprs(c, args)
	}
	ps := functions.NamedParams(name)
	if len(ps) != 1 {
		b.noNamedArgsAt(c, name, args, pos)
	}
	p := ps[0]
	slots := make([]Expr, len(p.Names))
	n := 0
	for _, a := range args {
		nm, v, ok := namedArg(a)
		if !ok {
			if n >= len(slots) {
				b.noNamedArgsAt(c, name, args, pos)
			}
			slots[n] = b.expr(c, a)
			n++
			continue
		}
		i := slices.Index(p.Names, nm)
		if i < 0 || slots[i] != nil {
			b.noNamedArgsAt(c, name, args, pos)
		}
		slots[i] = b.expr(c, v)
		n = max(n, i+1)
	}
	out := slots[:n]
	first := len(p.Names) - len(p.Defaults)
	for i, e := range out {
		if e == nil {
			if i < first {
				b.noNamedArgsAt(c, name, args, pos)
			}
			d := p.Defaults[i-first]
			t := types.TBool
			if d.S != "" {
				t = types.TJsonb
			}
			out[i] = &Const{V: d, T: t}
		}
	}
	return out
}
