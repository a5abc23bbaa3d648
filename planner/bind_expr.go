package planner

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// exprCtx is where an expression is being bound.
type exprCtx struct {
	s *scope
	// agg is set when binding above an aggregation (select list, HAVING,
	// ORDER BY of a grouped query): aggregate calls become references to
	// the Agg's outputs and other column references must be group keys.
	agg *aggState
	// win is set where window functions are allowed (select list, ORDER BY).
	win *winState
	// clause names the clause for "not allowed in" errors ("WHERE").
	clause string
	// srf is set where set-returning functions are allowed (the select
	// list, ORDER BY); srfBan names the construct that refuses them
	// (CASE, COALESCE) when it is not the clause.
	srf    *srfState
	srfBan string
}

// aggState collects the group keys and aggregate calls of one query.
type aggState struct {
	from      *scope
	keys      []Expr
	keyStrs   []string
	aggs      []AggCall
	aggStrs   []string
	keyOffset int // always 0: keys come first in Agg's output
	// sets are the grouping sets (positions in keys) of GROUP BY
	// GROUPING SETS, ROLLUP or CUBE, nil for a plain GROUP BY; the last
	// key is then the grouping set number (bind_grouping.go).
	sets [][]int
	// session is GROUP BY's SESSION(time, gap) item, nil without one
	// (bind_session.go).
	session *sessionGroup
	// written is, when deparsing, the GROUP BY list of grouping sets
	// as PostgreSQL keeps it (groupingTree).
	written *vdGrouping
}

// groupDependent reports whether input column cr is functionally
// dependent on the group keys: its table's primary key columns are all
// keys (Postgres's check_functional_grouping, for primary keys).
func (b *binder) groupDependent(a *aggState, cr *ColRef) bool {
	cols := a.from.cols
	if cr.Idx < 0 || cr.Idx >= len(cols) || cols[cr.Idx].table == "" {
		return false
	}
	table, found := cols[cr.Idx].table, false
	for i, c := range cols {
		if c.table == table && c.pk {
			if k := a.keyIndexOfCol(i); k < 0 || !a.inEverySet(k) {
				return false
			}
			found = true
		}
	}
	return found
}

// groupValue reads a column that is functionally dependent on the group
// keys through a pg_group_value aggregate (every row of a group holds the
// same value; Agg outputs the keys before the aggregates, so the column
// cannot become a key once aggregates are bound).
func (b *binder) groupValue(a *aggState, cr *ColRef) Expr {
	ac := AggCall{Fn: "pg_group_value", Args: []Expr{cr}, T: cr.T}
	key := aggKey(ac)
	for j, k := range a.aggStrs {
		if k == key {
			return &ColRef{Idx: len(a.keys) + j, T: ac.T, Name: cr.Name}
		}
	}
	a.aggs = append(a.aggs, ac)
	a.aggStrs = append(a.aggStrs, key)
	return &ColRef{Idx: len(a.keys) + len(a.aggs) - 1, T: ac.T, Name: cr.Name}
}

// inEverySet reports whether group key k is in every grouping set, as a
// key must be for columns to depend on it (PostgreSQL's
// groupClauseCommonVars): a set without it outputs NULL there.
func (a *aggState) inEverySet(k int) bool {
	for _, s := range a.sets {
		if !slices.Contains(s, k) {
			return false
		}
	}
	return true
}

// keyIndexOfCol returns the group key position that is exactly input
// column idx, or -1.
func (a *aggState) keyIndexOfCol(idx int) int {
	for i, k := range a.keys {
		if c, ok := k.(*ColRef); ok && c.Idx == idx {
			return i
		}
	}
	return -1
}

// winState collects a query's window calls. Their output columns come
// after the window input's columns, whose count is only known once the
// select list and ORDER BY are bound (an aggregate met later adds a
// column to the Agg below the Window), so references are patched
// afterwards. Until then a reference to call i has the provisional index
// windowSlot(i), below every input column's: the select list and ORDER
// BY are matched by exprKey before the patch, and a reference that
// shared an index with an input column would be taken for it.
type winState struct {
	calls []WindowCall
	keys  []string // keys[i] is windowKey(calls[i])
	refs  []winRef
	specs map[string]*ast.WindowSpec
	// named holds the WINDOW clause's windows in order. When deparsing,
	// defs holds the windows as PostgreSQL's parser lists them
	// (p_windowdefs: the named ones, then each distinct one written in
	// an OVER clause) and winrefs[i] the one calls[i] reads.
	named   []*ast.WindowSpec
	defs    []vdWindowDef
	winrefs []int
}

// negatedOp is NOT LIKE, NOT ILIKE or !~ (!~*): the negation of the
// pattern match e, which PostgreSQL binds to the negator operator
// (!~~, !~~*, !~, !~*) and a view's definition prints so.
func (b *binder) negatedOp(e Expr) Expr {
	out := &Not{Arg: e}
	if b.written != nil {
		b.written[out] = "negator"
	}
	return out
}

// winRef is a reference to a window call's output column, whose index is
// patched once the Window's input is known.
type winRef struct {
	call int
	ref  *ColRef
}

// windowSlot is the provisional index of a reference to window call i:
// negative, so distinct from every input column and every other call.
func windowSlot(i int) int { return -1 - i }

// patch points every reference at its call's output column, the calls
// coming after the width input columns of the Window.
func (w *winState) patch(width int) {
	for _, r := range w.refs {
		r.ref.Idx = width + r.call
	}
}

func (b *binder) exprs(c *exprCtx, ns []ast.ExprNode) []Expr {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		out[i] = b.expr(c, n)
	}
	return out
}

// expr binds one expression.
func (b *binder) expr(c *exprCtx, n ast.ExprNode) Expr {
	b.enter(n)
	e := b.expr1(c, n)
	b.depth--
	b.notePos(e, n)
	return e
}

// notePos remembers where the bound expression e came from, for errors
// raised later about e as a whole (a failed coercion, an unmatched CASE
// branch). The innermost node wins: `(x)` is positioned at x.
func (b *binder) notePos(e Expr, n ast.Node) {
	if e == nil {
		return
	}
	if _, ok := b.epos[e]; ok {
		return
	}
	if p := b.pos(n); p > 0 {
		if b.epos == nil {
			b.epos = map[Expr]int{}
		}
		b.epos[e] = p
	}
}

// notePosAt remembers position p (when known) for e, as notePos does.
func (b *binder) notePosAt(e Expr, p int) {
	if p <= 0 {
		return
	}
	if _, ok := b.epos[e]; ok {
		return
	}
	if b.epos == nil {
		b.epos = map[Expr]int{}
	}
	b.epos[e] = p
}

// exprPos is the position noted for e (0 when unknown).
func (b *binder) exprPos(e Expr) int { return b.epos[e] }

func (b *binder) expr1(c *exprCtx, n ast.ExprNode) Expr {
	if p, ok := n.(*ast.ParenthesesExpr); ok {
		return b.expr(c, p.Expr)
	}
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_filter" && len(f.Args) == 2 {
		// agg(args) FILTER (WHERE cond) as the bridge writes it.
		name, isAgg := b.isAggregate(f.Args[0])
		if !isAgg {
			fname := "function"
			if fc, ok := f.Args[0].(*ast.FuncCallExpr); ok {
				fname = fc.FnName.O
			}
			fail(pgerr.New(pgerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", fname).WithPosition(b.pos(f)))
		}
		if c.agg == nil {
			return b.expr(c, f.Args[0])
		}
		return b.bindAggCallFilter(c, f.Args[0], name, f.Args[1])
	}
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "grouping" {
		return b.groupingCall(c, f)
	}
	if f, ok := n.(*ast.FuncCallExpr); ok && (f.FnName.L == "session" || f.FnName.L == "session_start" || f.FnName.L == "session_end") {
		return b.sessionFunc(c, f)
	}
	if c.agg != nil {
		if name, ok := b.isAggregate(n); ok {
			return b.bindAggCall(c, n, name)
		}
		switch n.(type) {
		case *sql.Literal, *sql.ParamMarker, *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.WindowFuncExpr:
		default:
			if !b.containsAggOrWindow(n) && !(c.srf != nil && b.containsSRF(n)) && !(c.agg.session != nil && containsSessionFunc(n)) {
				plain := &exprCtx{s: c.agg.from, clause: c.clause}
				e := b.expr(plain, n)
				k := exprKey(e)
				for i, ks := range c.agg.keyStrs {
					if ks == k {
						return &ColRef{Idx: i, T: e.Type(), Name: FormatExpr(c.agg.keys[i])}
					}
				}
				if _, isCol := n.(*ast.ColumnNameExpr); isCol {
					if cr, ok := e.(*ColRef); ok {
						if b.groupDependent(c.agg, cr) {
							return b.groupValue(c.agg, cr)
						}
						fail(pgerr.New(pgerr.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", cr.Name).WithPosition(b.pos(n)))
					}
					if call, ok := e.(*Call); ok && call.Fn == "pg_row" {
						fail(pgerr.New(pgerr.FeatureNotSupported, "whole-row references are not supported in an aggregated query").WithPosition(b.pos(n)))
					}
					return e // an outer reference is a constant here
				}
			}
		}
	}
	switch n := n.(type) {
	case *sql.ParamMarker:
		num := n.Order + 1
		if n.Order < len(b.q.Params) {
			num = b.q.Params[n.Order]
		}
		if b.fn != nil {
			// $n in a function's body is its n-th parameter.
			if num < 1 || num > len(b.fn.ArgTypes) {
				fail(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", num).WithPosition(b.pos(n)))
			}
			return &ColRef{Idx: num - 1, T: b.fn.ArgTypes[num-1], Name: "$" + strconv.Itoa(num)}
		}
		// The protocol counts parameters in an int16 (Postgres allows
		// 65535); $0 and beyond are not parameters at all.
		if num < 1 || num > maxParams || b.noParams && b.pos(n) > 0 {
			fail(pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", num).WithPosition(b.pos(n)))
		}
		if num > len(b.params) {
			grow := make([]types.T, num)
			copy(grow, b.params)
			for i := len(b.params); i < num; i++ {
				grow[i] = types.TUnknown
			}
			b.params = grow
		}
		return &Param{N: num, T: b.params[num-1]}
	case *sql.Literal:
		return b.literal(n)
	case *ast.ColumnNameExpr:
		return b.resolveColumn(c.s, n.Name, n)
	case *ast.BinaryOperationExpr:
		return b.binary(c, n)
	case *ast.UnaryOperationExpr:
		return b.unary(c, n)
	case *ast.IsNullExpr:
		if fields := rowFields(n.Expr); fields != nil {
			return b.rowIsNull(c, fields, n.Not)
		}
		return &IsNull{Arg: b.expr(c, n.Expr), Not: n.Not}
	case *ast.IsTruthExpr:
		arg := b.boolArg(b.expr(c, n.Expr), "IS TRUE")
		want := "false"
		if n.True > 0 {
			want = "true"
		}
		return &IsBool{Arg: arg, Want: want, Not: n.Not}
	case *ast.PatternLikeOrIlikeExpr:
		return b.like(c, n)
	case *ast.PatternRegexpExpr:
		op := "~"
		pat := n.Pattern
		if f, ok := pat.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_icase" && len(f.Args) == 1 {
			op, pat = "~*", f.Args[0]
		}
		x := b.expr(c, n.Expr)
		var p Expr
		pos := b.pos(n)
		if f, ok := pat.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_similar_to_escape" {
			// SIMILAR TO (sql doc.go #35): the call stands at [NOT]
			// SIMILAR.
			p, pos = b.systemCall("similar_to_escape", b.exprs(c, f.Args), f), b.pos(f)
		} else {
			p = b.expr(c, pat)
			// The operator (~, !~, ...) is the token before the pattern.
			if b.q != nil {
				if off := b.curMap().OffBefore(n.Pattern.OriginTextPosition()); off >= 0 {
					pos = b.curMap().Pos(off)
				}
			}
		}
		e := b.opAt(op, []Expr{x, p}, n, pos, n.Not)
		if n.Not {
			return b.negatedOp(e)
		}
		return e
	case *ast.PatternInExpr:
		return b.in(c, n)
	case *ast.BetweenExpr:
		if f, ok := n.Left.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_between_symmetric" && len(f.Args) == 1 {
			// The bridge's BETWEEN SYMMETRIC (sql/doc.go #30): either
			// order of the bounds.
			x, lo, hi := b.expr(c, n.Expr), b.expr(c, f.Args[0]), b.expr(c, n.Right)
			e := &Or{Args: []Expr{
				&And{Args: []Expr{b.op(">=", []Expr{x, lo}, n), b.op("<=", []Expr{x, hi}, n)}},
				&And{Args: []Expr{b.op(">=", []Expr{x, hi}, n), b.op("<=", []Expr{x, lo}, n)}},
			}}
			if n.Not {
				return &Not{Arg: e}
			}
			return e
		}
		x, lo, hi := b.expr(c, n.Expr), b.expr(c, n.Left), b.expr(c, n.Right)
		if n.Not {
			return &Or{Args: []Expr{b.op("<", []Expr{x, lo}, n), b.op(">", []Expr{x, hi}, n)}}
		}
		return &And{Args: []Expr{b.op(">=", []Expr{x, lo}, n), b.op("<=", []Expr{x, hi}, n)}}
	case *ast.CaseExpr:
		return b.caseExpr(c, n)
	case *ast.FuncCallExpr:
		return b.funcCall(c, n)
	case *ast.AggregateFuncExpr:
		fail(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", c.clauseName()).WithPosition(b.pos(n)))
	case *ast.WindowFuncExpr:
		return b.windowCall(c, n)
	case *ast.SubqueryExpr:
		return b.subquery(c, n, SubScalar, nil, "")
	case *ast.ExistsSubqueryExpr:
		sq, ok := n.Sel.(*ast.SubqueryExpr)
		if !ok {
			failf(pgerr.SyntaxError, "syntax error in EXISTS")
		}
		e := b.subquery(c, sq, SubExists, nil, "")
		if n.Not {
			return &Not{Arg: e}
		}
		return e
	case *ast.CompareSubqueryExpr:
		sq, ok := n.R.(*ast.SubqueryExpr)
		if !ok {
			failf(pgerr.FeatureNotSupported, "ANY/ALL over a non-subquery is not supported")
		}
		op := cmpOp(n.Op)
		if op == "" {
			failf(pgerr.SyntaxError, "operator %s is not a comparison", n.Op)
		}
		kind := SubAny
		if n.All {
			kind = SubAll
		}
		if fields := rowFields(n.L); fields != nil {
			return b.rowSubquery(c, sq, kind, b.rowExprs(c, fields), op, b.tokenBefore(sq, 2))
		}
		return b.subquery(c, sq, kind, b.expr(c, n.L), op, b.tokenBefore(sq, 2))
	case *ast.DefaultExpr:
		failf(pgerr.SyntaxError, "DEFAULT is not allowed in this context")
	case *ast.RowExpr:
		return b.rowValue(b.rowExprs(c, n.Values))
	}
	failf(pgerr.FeatureNotSupported, "expression %T is not supported", n)
	return nil
}

func (c *exprCtx) clauseName() string {
	if c.clause == "" {
		return "this context"
	}
	return c.clause
}

// literal binds a literal per Postgres's lexer rules: integers are int4,
// int8 or numeric by size; decimals and exponent forms are numeric;
// strings are of unknown type until context resolves them.
func (b *binder) literal(l *sql.Literal) Expr {
	switch v := l.Value.(type) {
	case nil:
		return &Const{V: types.NullDatum, T: types.TUnknown}
	case bool:
		return &Const{V: types.DBool(v), T: types.TBool}
	case int:
		return intConst(int64(v))
	case int64:
		return intConst(v)
	case uint64:
		if v <= math.MaxInt64 {
			return intConst(int64(v))
		}
		d, _, err := apd.NewFromString(strconv.FormatUint(v, 10))
		if err != nil {
			failf(pgerr.InternalError, "bad integer literal %d", v)
		}
		return &Const{V: types.DDecimal(d), T: types.TNumeric}
	case sql.DecimalText:
		d, _, err := apd.NewFromString(string(v))
		if err != nil {
			failf(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", v)
		}
		return &Const{V: types.DDecimal(d), T: types.TNumeric}
	case float64:
		d, _, err := apd.NewFromString(strconv.FormatFloat(v, 'g', -1, 64))
		if err != nil {
			failf(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%v\"", v)
		}
		if d.Exponent > 0 {
			d.Coeff.Mul(&d.Coeff, apd.NewBigInt(0).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(d.Exponent)), nil))
			d.Exponent = 0
		}
		return &Const{V: types.DDecimal(d), T: types.TNumeric}
	case string:
		return &Const{V: types.DString(v), T: types.TUnknown}
	case []byte:
		return &Const{V: types.DString(string(v)), T: types.TBytea}
	}
	failf(pgerr.FeatureNotSupported, "literal of type %T is not supported", l.Value)
	return nil
}

func intConst(v int64) *Const {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		return &Const{V: types.DInt(v), T: types.TInt4}
	}
	return &Const{V: types.DInt(v), T: types.TInt8}
}

// isUnknown reports whether e's type is still open: an untyped literal or
// NULL, or a parameter without a known type.
func (b *binder) isUnknown(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return x.T.ID == types.Unknown
	case *Param:
		return b.params[x.N-1].ID == types.Unknown
	case *Call:
		return isUntypedElement(x)
	}
	return false
}

// isUntypedElement reports whether e is a text[] subscript, whose value
// is typed by its context (see funcCall's pg_subscript).
func isUntypedElement(e *Call) bool {
	return e.Fn == "pg_subscript" && e.T.ID == types.Unknown
}

func (b *binder) typeOf(e Expr) types.T {
	if p, ok := e.(*Param); ok {
		return b.params[p.N-1]
	}
	return e.Type()
}

// coerce converts e to t in context cc, or returns nil when no such
// conversion exists.
func (b *binder) tryCoerce(e Expr, t types.T, cc castContext) Expr {
	if t.ID == types.Unknown {
		return e
	}
	switch x := e.(type) {
	case *Const:
		if x.T.ID == types.Unknown {
			if x.V.Null {
				return &Const{V: types.NullDatum, T: t}
			}
			if cc == ctxExplicit && t.Mod >= 0 && (t.ID == types.Varchar || t.ID == types.Bpchar) {
				// 'abcdef'::varchar(3): Postgres reads the literal as
				// varchar, then applies the length by an explicit
				// coercion, which truncates (an assignment errors); so
				// for character(n).
				inner := b.convertLiteral(x.V.S, types.T{ID: t.ID, Mod: -1}, b.exprPos(x))
				return &Cast{Arg: inner, T: t}
			}
			return b.convertLiteral(x.V.S, t, b.exprPos(x))
		}
	case *Param:
		if b.params[x.N-1].ID == types.Unknown {
			b.params[x.N-1] = t
			return &Param{N: x.N, T: t}
		}
	case *Call:
		if isUntypedElement(x) {
			elem := &Call{Fn: x.Fn, Args: x.Args, T: types.TText}
			if t.ID == types.Text {
				return elem
			}
			if !canCoerce(types.Text, t.ID, ctxExplicit) {
				return nil
			}
			return &Cast{Arg: elem, T: t, Assign: true}
		}
	}
	from := b.typeOf(e)
	if from.ID == t.ID && (t.Mod < 0 || from.Mod == t.Mod) {
		return e
	}
	if !canCoerce(from.ID, t.ID, cc) {
		return nil
	}
	// Widening an integer constant needs no run-time cast.
	if k, ok := e.(*Const); ok && from.IsInteger() && (t.ID == types.Int8 || (t.ID == types.Int4 && from.ID == types.Int2)) {
		return &Const{V: k.V, T: t}
	}
	return &Cast{Arg: e, T: t, Assign: cc == ctxAssignment}
}

// coerce is tryCoerce that fails with 42804 naming what.
func (b *binder) coerce(e Expr, t types.T, cc castContext, what string) Expr {
	if out := b.tryCoerce(e, t, cc); out != nil {
		return out
	}
	fail(typeErrorf("%s must be type %s, not type %s", what, t, b.typeOf(e)).WithPosition(b.exprPos(e)))
	return nil
}

// convertLiteral turns the text of an untyped literal into a value of t.
// Values whose parsing does not depend on the session (numbers, strings,
// booleans, intervals) are parsed now, as Postgres does, so bad input
// fails at bind time; the others stay a cast from text evaluated at run
// time.
func (b *binder) convertLiteral(s string, t types.T, pos int) Expr {
	switch t.ID {
	case types.Text, types.Name:
		return &Const{V: types.DString(s), T: t}
	case types.Varchar, types.Bpchar:
		if t.Mod < 0 {
			return &Const{V: types.DString(s), T: t}
		}
	case types.Date, types.Time, types.Timestamp, types.Timestamptz:
		// The value depends on the session (TimeZone, 'now'), but
		// malformed input does not: reject it now, positioned at the
		// literal, as Postgres does.
		if _, err := types.ParseText(s, t, time.UTC); err != nil && pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
			fail(pgerr.As(err).WithPosition(pos))
		}
		return &Cast{Arg: &Const{V: types.DString(s), T: types.TText}, T: t}
	}
	if t.IsArray() && t.Mod >= 0 {
		// The element modifier is applied by the cast, which truncates
		// (explicit) or errors (assignment) as Postgres's array coercion
		// does.
		return &Cast{Arg: &Const{V: types.DString(s), T: types.TText}, T: t}
	}
	d, err := types.ParseText(s, t, time.UTC)
	if err == nil && t.ID == types.Jsonpath {
		// jsonpath_in compiles like_regex's patterns.
		err = functions.CheckJSONPathRegexes(d.S)
	}
	if err == nil {
		return &Const{V: d, T: t}
	}
	// A jsonpath's 0A000 (like_regex's x flag) is an input error too.
	if pgerr.CodeOf(err) != pgerr.FeatureNotSupported || t.ID == types.Jsonpath {
		if t.Mod >= 0 {
			// Postgres applies a modifier by a separate length-coercion
			// call, whose errors (value too long, numeric field overflow)
			// carry no position.
			if _, err2 := types.ParseText(s, types.T{ID: t.ID, Mod: -1}, time.UTC); err2 == nil {
				pos = 0
				// It comes from the planner's constant folding, after
				// every error of analysis (bind.go, lateError).
				if b.late != nil {
					if b.late.err == nil {
						b.late.err = pgerr.As(err).WithPosition(0)
					}
					return &Cast{Arg: &Const{V: types.DString(s), T: types.TText}, T: t}
				}
			}
		}
		fail(pgerr.As(err).WithPosition(pos))
	}
	return &Cast{Arg: &Const{V: types.DString(s), T: types.TText}, T: t}
}

// finalize resolves a still-unknown expression to text, as Postgres does
// for output columns and other places without context.
func (b *binder) finalize(e Expr) Expr {
	if b.isUnknown(e) {
		return b.tryCoerce(e, types.TText, ctxImplicit)
	}
	return e
}

// boolArg coerces e to boolean for AND/OR/NOT/WHERE.
func (b *binder) boolArg(e Expr, what string) Expr {
	if out := b.tryCoerce(e, types.TBool, ctxImplicit); out != nil {
		return out
	}
	fail(typeErrorf("argument of %s must be type boolean, not type %s", what, b.typeOf(e)).WithPosition(b.exprPos(e)))
	return nil
}

func cmpOp(op opcode.Op) string {
	switch op {
	case opcode.EQ:
		return "="
	case opcode.NE:
		return "<>"
	case opcode.LT:
		return "<"
	case opcode.LE:
		return "<="
	case opcode.GT:
		return ">"
	case opcode.GE:
		return ">="
	}
	return ""
}

func (b *binder) binary(c *exprCtx, n *ast.BinaryOperationExpr) Expr {
	if rowFields(n.L) != nil || rowFields(n.R) != nil {
		switch n.Op {
		case opcode.LogicAnd, opcode.LogicOr:
		default:
			if rowFields(n.L) == nil {
				b.recordOpFail(b.typeOf(b.expr(c, n.L)).String(), opSymbol(n.Op, cmpOp(n.Op)), "record", n)
			}
			return b.rowBinary(c, n)
		}
	}
	switch n.Op {
	case opcode.LogicAnd, opcode.LogicOr:
		return b.logical(c, n)
	case opcode.NullEQ:
		// a <=> b is IS NOT DISTINCT FROM (the bridge writes IS DISTINCT
		// FROM as NOT (a <=> b)). It is bound with the existing nodes:
		// CASE WHEN a IS NULL THEN b IS NULL WHEN b IS NULL THEN false
		// ELSE a = b END.
		return b.notDistinct(b.expr(c, n.L), b.expr(c, n.R), n)
	case opcode.IntDiv:
		fail(pgerr.New(pgerr.SyntaxError, "syntax error at or near \"DIV\"").WithPosition(b.pos(n)))
	case opcode.LogicXor:
		fail(pgerr.New(pgerr.SyntaxError, "syntax error at or near \"XOR\"").WithPosition(b.pos(n)))
	}
	var sym string
	switch n.Op {
	case opcode.Plus:
		sym = "+"
	case opcode.Minus:
		sym = "-"
	case opcode.Mul:
		sym = "*"
	case opcode.Div:
		sym = "/"
	case opcode.Mod:
		sym = "%"
	case opcode.Xor:
		// The bridge writes PostgreSQL's # (XOR) as TiDB's ^; PostgreSQL's
		// ^ (power) arrives as a call of power.
		sym = "#"
	case opcode.And:
		sym = "&"
	case opcode.Or:
		sym = "|"
	case opcode.LeftShift:
		sym = "<<"
	case opcode.RightShift:
		sym = ">>"
	default:
		sym = cmpOp(n.Op)
	}
	if sym == "" {
		failf(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
	}
	return b.op(sym, []Expr{b.expr(c, n.L), b.expr(c, n.R)}, n)
}

func (b *binder) unary(c *exprCtx, n *ast.UnaryOperationExpr) Expr {
	switch n.Op {
	case opcode.Not, opcode.Not2:
		return &Not{Arg: b.boolArg(b.expr(c, n.V), "NOT")}
	case opcode.Plus:
		// Prefix + exists for the numeric types only (int4up, ...).
		arg := b.expr(c, n.V)
		if t := arg.Type(); t.ID != types.Unknown && !t.IsInteger() && t.Family() != types.FamFloat && t.ID != types.Numeric {
			failf(pgerr.UndefinedFunction, "operator does not exist: + %s", t)
		}
		return arg
	case opcode.Minus:
		// Postgres's grammar folds the minus into a numeric literal, so
		// -2147483648 is an int4.
		if l, ok := unparen(n.V).(*sql.Literal); ok {
			switch v := l.Value.(type) {
			case int64:
				return intConst(-v)
			case int:
				return intConst(-int64(v))
			case uint64:
				if v == 1<<63 {
					return &Const{V: types.DInt(math.MinInt64), T: types.TInt8}
				}
			}
			if c, ok := b.literal(l).(*Const); ok && c.T.ID == types.Numeric {
				d := new(apd.Decimal).Neg(c.V.D)
				return &Const{V: types.DDecimal(d), T: types.TNumeric}
			}
		}
		return b.op("neg", []Expr{b.expr(c, n.V)}, n)
	case opcode.BitNeg:
		return b.op("~", []Expr{b.expr(c, n.V)}, n)
	}
	failf(pgerr.FeatureNotSupported, "operator %s is not supported", n.Op)
	return nil
}

func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

// op resolves and applies an operator (§10.2).
func (b *binder) op(name string, args []Expr, node ast.Node) Expr {
	return b.call(name, args, node, true, Scalar)
}

// elemEquality is what comparing the elements of an array needs, by
// the operator or function that compares them: "" when it compares none.
func elemEquality(name string) string {
	switch name {
	case "=", "<>", "pg_json_contains", "pg_json_contained", "pg_array_overlap", "array_position", "array_positions", "array_remove", "array_replace":
		return "an equality operator"
	case "<", "<=", ">", ">=":
		return "a comparison function"
	}
	return ""
}

// checkElemEquality refuses to compare arrays of jsonpath, which has
// neither equality nor ordering: PostgreSQL fails looking for the
// element type's operator (42883).
func (b *binder) checkElemEquality(name string, args []Expr, node ast.Node) {
	what := elemEquality(name)
	if what == "" {
		return
	}
	for _, a := range args {
		if t := b.typeOf(a); t.IsArray() && t.Elem().ID == types.Jsonpath {
			fail(pgerr.New(pgerr.UndefinedFunction, "could not identify %s for type jsonpath", what).WithPosition(b.pos(node)))
		}
	}
}

// like binds x [NOT] LIKE|ILIKE p: x ~~ p (~~* for ILIKE), negated for
// NOT. With an ESCAPE clause (the bridge's pg_like_escape, sql doc.go
// #35) the pattern is like_escape(p, e), as PostgreSQL's grammar makes
// it. As in PostgreSQL, an error of the operator points at [NOT] LIKE
// and names the operator written (!~~ for NOT LIKE).
func (b *binder) like(c *exprCtx, n *ast.PatternLikeOrIlikeExpr) Expr {
	op := "~~"
	if !n.IsLike {
		op = "~~*"
	}
	x := b.expr(c, n.Expr)
	var pat Expr
	var opNode ast.Node = n
	if f, ok := n.Pattern.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_like_escape" && len(f.Args) == 2 {
		pat = b.systemCall("like_escape", b.exprs(c, f.Args), f)
		opNode = f // the call stands at [NOT] LIKE
	} else {
		pat = b.expr(c, n.Pattern)
		if n.EscapeExplicit && n.Escape != '\\' {
			// Text the bridge did not rewrite: x LIKE p ESCAPE 'c'.
			esc := ""
			if n.Escape != 0 {
				esc = string(rune(n.Escape))
			}
			pat = b.call("like_escape", []Expr{pat, &Const{V: types.DString(esc), T: types.TText}}, n, false, Scalar)
		}
	}
	pos := b.pos(opNode)
	if opNode == ast.Node(n) && b.q != nil {
		// The operator is the token before the pattern: LIKE, and NOT
		// before it.
		m := b.curMap()
		if off := m.OffBefore(n.Pattern.OriginTextPosition()); off >= 0 {
			if n.Not {
				if o := m.OffBefore(off); o >= 0 {
					off = o
				}
			}
			pos = m.Pos(off)
		}
	}
	e := b.opAt(op, []Expr{x, pat}, n, pos, n.Not)
	if n.Not {
		return b.negatedOp(e)
	}
	return e
}

// opAt binds the operator name over args as op does, with the errors
// that name no operator at position pos; negated names the operator's
// negator in them (!~~ for ~~), as the expression is NOT (x op y).
func (b *binder) opAt(name string, args []Expr, node ast.Node, pos int, negated bool) Expr {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(*pgerr.Error); ok && err.Code == pgerr.UndefinedFunction && strings.HasPrefix(err.Message, "operator does not exist: ") {
				an := make([]argNode, len(args))
				for i, a := range args {
					an[i] = argNode{t: b.typeOf(a)}
				}
				shown := name
				if negated {
					shown = "!" + name
				}
				err.Message = "operator does not exist: " + opSig(shown, an)
				err.Position = pos
			}
			panic(r)
		}
	}()
	return b.op(name, args, node)
}

// systemCall binds a call of the function name that the bridge wrote for
// a form of PostgreSQL's grammar (like_escape for LIKE ... ESCAPE): an
// error names it pg_catalog.name, as PostgreSQL's does, at node's
// position.
func (b *binder) systemCall(name string, args []Expr, node *ast.FuncCallExpr) Expr {
	cp := *node
	cp.FnName, cp.Schema = ast.NewCIStr(name), ast.NewCIStr("pg_catalog")
	return b.call(name, args, &cp, false, Scalar)
}

// call resolves a function or operator over bound args and coerces them.
func (b *binder) call(name string, args []Expr, node ast.Node, isOp bool, kind FuncKind) *Call {
	if !isOp && len(args) == 1 && (name == "row_to_json" || name == "to_json" || name == "to_jsonb") {
		if r, ok := args[0].(*Call); ok && r.Fn == "pg_row" {
			return b.rowToJSON(name, r)
		}
	}
	b.checkElemEquality(name, args, node)
	if kind == Scalar {
		args = b.anyCompatibleArrayArgs(name, args, isOp)
	}
	if c, ok := b.enumCall(name, args, node, kind); ok {
		return c
	}
	var cands []*Overload
	for _, o := range Overloads(name) {
		if o.Kind == kind || (kind == WindowOnly && o.Kind == Aggregate) {
			cands = append(cands, o)
		}
	}
	an := make([]argNode, len(args))
	for i, a := range args {
		an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
	}
	sub := b.enumArraySub(name, args)
	o, amb := resolveOverload(cands, sub.forward(an))
	if o == nil {
		fail(b.noSuchFunc(name, an, isOp, node))
	}
	if amb {
		if sym, ok := callOps[name]; ok && len(an) == 2 {
			fail(pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s", opSig(sym, an)).
				WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.").WithPosition(b.callOpPos(node)))
		}
		if isOp {
			fail(pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s", opSig(name, an)).
				WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.").WithPosition(b.opPos(node)))
		}
		fail(pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", funcSig(name, an)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.").WithPosition(b.pos(node)))
	}
	ps, _ := expandParams(o, len(args))
	out := make([]Expr, len(args))
	ts := make([]types.T, len(args))
	for i, a := range args {
		var t types.T
		if ps[i] == types.Unknown {
			t = b.typeOf(a)
			if t.ID == types.Unknown {
				t = types.TText
			}
		} else {
			t = sub.back(types.T{ID: ps[i], Mod: -1})
			// Keep the argument's modifier when the family matches, so
			// numeric(10,2) + numeric keeps its scale information.
			if at := b.typeOf(a); at.ID == t.ID {
				t = at
			}
		}
		out[i] = b.tryCoerce(a, t, ctxImplicit)
		if out[i] == nil {
			fail(b.noSuchFunc(name, an, isOp, node))
		}
		ts[i] = b.typeOf(out[i])
	}
	if sub.arr.ID != types.Unknown {
		fts := make([]types.T, len(ts))
		for i, t := range ts {
			fts[i] = sub.forwardT(t)
		}
		return &Call{Fn: name, Args: out, T: sub.back(o.Result(fts))}
	}
	return &Call{Fn: name, Args: out, T: o.Result(ts)}
}

func opSig(name string, an []argNode) string {
	if name == "neg" {
		name = "-"
	}
	if len(an) == 1 {
		return name + " " + an[0].t.String()
	}
	return an[0].t.String() + " " + name + " " + an[1].t.String()
}

func funcSig(name string, an []argNode) string {
	parts := make([]string, len(an))
	for i, a := range an {
		parts[i] = a.t.String()
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// callOps are the calls the bridge writes for binary operators TiDB
// lacks, by the operator PostgreSQL names in its errors.
var callOps = map[string]string{"pg_json_contains": "@>", "pg_json_contained": "<@", "pg_array_overlap": "&&",
	"pg_json_delete_path": "#-", "pg_starts_with": "^@", "pg_jsonpath_exists": "@?", "pg_jsonpath_match": "@@"}

// callOpPos is the position of the operator a call of callOps stands
// for: the bridge's comma between the operands carries it.
func (b *binder) callOpPos(node ast.Node) int {
	if f, ok := node.(*ast.FuncCallExpr); ok && b.q != nil && len(f.Args) == 2 {
		if p := b.curMap().PosBefore(f.Args[1].OriginTextPosition()); p > 0 {
			return p
		}
	}
	return b.pos(node)
}

func (b *binder) noSuchFunc(name string, an []argNode, isOp bool, node ast.Node) *pgerr.Error {
	if sym, ok := callOps[name]; ok && len(an) == 2 {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", opSig(sym, an)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.callOpPos(node))
	}
	if isOp {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", opSig(name, an)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.opPos(node))
	}
	if f, ok := missingFuncs[name]; ok && len(an) >= f.minArgs && len(an) <= f.maxArgs && len(Overloads(name)) == 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "function %s is not supported", name).
			WithHint("weir has no %s type.", f.typ).WithPosition(b.pos(node))
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcSig(b.catalogPrefix(node)+shownName(name, node), an)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.pos(node))
}

// shownName is name as an error names call node of it: qualified as
// written (pg_catalog.f(integer) does not exist).
func shownName(name string, node ast.Node) string {
	if f, ok := node.(*ast.FuncCallExpr); ok && f.Schema.O != "" && f.FnName.L == name {
		return f.Schema.O + "." + name
	}
	return name
}

// missingFunc is a PostgreSQL 15 function weir has not got because it
// lacks the type the function is about: a call with as many arguments as
// PostgreSQL takes is 0A000, where PostgreSQL would run it.
type missingFunc struct {
	minArgs, maxArgs int
	typ              string
}

var missingFuncs = map[string]missingFunc{
	"to_tsvector": {1, 2, "tsvector"}, "to_tsquery": {1, 2, "tsquery"}, "plainto_tsquery": {1, 2, "tsquery"},
	"phraseto_tsquery": {1, 2, "tsquery"}, "websearch_to_tsquery": {1, 2, "tsquery"},
	"int4range": {2, 3, "range"}, "int8range": {2, 3, "range"}, "numrange": {2, 3, "range"},
	"daterange": {2, 3, "range"}, "tsrange": {2, 3, "range"}, "tstzrange": {2, 3, "range"},
	"point": {2, 2, "point"}, "box": {2, 2, "box"}, "circle": {2, 2, "circle"},
}

// in binds x IN (list) and x IN (subquery).
func (b *binder) in(c *exprCtx, n *ast.PatternInExpr) Expr {
	if rowFields(n.Expr) != nil {
		return b.rowIn(c, n)
	}
	x := b.expr(c, n.Expr)
	if n.Sel != nil {
		sq, ok := unparen(n.Sel).(*ast.SubqueryExpr)
		if !ok {
			failf(pgerr.FeatureNotSupported, "IN over %T is not supported", n.Sel)
		}
		if n.Not {
			e := notIn(b.subquery(c, sq, SubAny, x, "=", b.tokenBefore(sq, 2)))
			if b.written != nil {
				b.written[e] = "notin"
			}
			return e
		}
		return b.subquery(c, sq, SubAny, x, "=", b.tokenBefore(sq, 1))
	}
	list := b.exprs(c, n.List)
	return b.inList(x, list, n.Not, n)
}

func (b *binder) inList(x Expr, list []Expr, not bool, node ast.Node) Expr {
	ts := []types.T{b.typeOf(x)}
	for _, e := range list {
		ts = append(ts, b.typeOf(e))
	}
	t, err := commonType("IN", ts)
	if err != nil {
		// Postgres falls back to x = e1 OR x = e2 ... with per-pair
		// operator resolution.
		var ors []Expr
		for _, e := range list {
			ors = append(ors, b.op("=", []Expr{x, e}, node))
		}
		var out Expr = &Or{Args: ors}
		if len(ors) == 1 {
			out = ors[0]
		}
		if not {
			return &Not{Arg: out}
		}
		return out
	}
	// The comparison must exist for the common type.
	eq := b.op("=", []Expr{b.tryCoerce(x, t, ctxImplicit), b.tryCoerce(&Const{V: types.NullDatum, T: t}, t, ctxImplicit)}, node).(*Call)
	if !t.IsEnum() { // an enum's = compares the relabelled sort orders
		t = eq.Args[0].Type()
	}
	out := &InList{Arg: b.tryCoerce(x, t, ctxImplicit), Not: not}
	for _, e := range list {
		out.List = append(out.List, b.tryCoerce(e, t, ctxImplicit))
	}
	return out
}

func (b *binder) caseExpr(c *exprCtx, n *ast.CaseExpr) Expr {
	if c.srf != nil {
		cc := *c
		cc.srf, cc.srfBan = nil, "CASE"
		c = &cc
	}
	var arg Expr
	if n.Value != nil {
		arg = b.expr(c, n.Value)
	}
	out := &Case{}
	var results []Expr
	var elseE Expr
	if n.ElseClause != nil {
		elseE = b.expr(c, n.ElseClause)
	}
	for _, w := range n.WhenClauses {
		var cond Expr
		if arg != nil {
			cond = b.op("=", []Expr{arg, b.expr(c, w.Expr)}, w)
		} else {
			cond = b.boolArg(b.expr(c, w.Expr), "CASE/WHEN")
		}
		then := b.expr(c, w.Result)
		out.Whens = append(out.Whens, When{Cond: cond, Then: then})
		results = append(results, then)
	}
	// Postgres puts the ELSE branch first when choosing the type.
	var branches []Expr
	if elseE != nil {
		branches = append(branches, elseE)
	}
	branches = append(branches, results...)
	ts := make([]types.T, len(branches))
	for i, r := range branches {
		ts[i] = b.typeOf(r)
	}
	t, bad, err := commonTypeAt("CASE", ts)
	if err != nil {
		fail(pgerr.As(err).WithPosition(b.exprPos(branches[bad])))
	}
	for i := range out.Whens {
		out.Whens[i].Then = b.mustCoerce(out.Whens[i].Then, t, "CASE")
	}
	if elseE != nil {
		out.Else = b.mustCoerce(elseE, t, "CASE")
	}
	out.T = t
	if arg != nil && b.written != nil {
		b.written[out] = "simple"
	}
	return out
}

// mustCoerce coerces e implicitly to t, which commonType chose so that it
// is always possible.
func (b *binder) mustCoerce(e Expr, t types.T, context string) Expr {
	if out := b.tryCoerce(e, t, ctxImplicit); out != nil {
		return out
	}
	fail(typeErrorf("%s could not convert type %s to %s", context, b.typeOf(e), t).WithPosition(b.exprPos(e)))
	return nil
}

// unify coerces es to their common type.
func (b *binder) unify(context string, es []Expr, node ast.Node) ([]Expr, types.T) {
	ts := make([]types.T, len(es))
	for i, e := range es {
		ts[i] = b.typeOf(e)
	}
	t, bad, err := commonTypeAt(context, ts)
	if err != nil {
		pos := b.exprPos(es[bad])
		if pos == 0 {
			pos = b.pos(node)
		}
		fail(pgerr.As(err).WithPosition(pos))
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = b.mustCoerce(e, t, context)
	}
	return out, t
}

// maxParams is the largest parameter number a statement may use: the
// protocol's ParameterDescription counts parameters in an int16, and
// Postgres allows 65535.
const maxParams = 65535
