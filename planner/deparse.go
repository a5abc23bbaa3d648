package planner

import (
	"context"
	"github.com/weirdb/weir/sql"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// DefaultText returns column i of rel's DEFAULT expression as Postgres
// prints the stored expression with pg_get_expr(adbin, adrelid, true),
// which psql's \d shows: constants carry their type unless their literal
// form alone gives it ('none'::text, '-1'::integer, but 0, 1.5, true),
// and the implicit cast to the column's type is not shown. The rules
// follow get_const_expr and get_rule_expr in Postgres's ruleutils.c.
// Errors are those of binding the expression.
func DefaultText(rel *catalog.Relation, i int, cat Catalog) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*pgerr.Error)
			if !ok {
				panic(r)
			}
			text, err = "", pe
		}
	}()
	ctx, calls := WithCalls(context.Background())
	b := &binder{cat: cat, deps: map[uint32]bool{}, ctx: ctx}
	return deparser{calls: calls.m}.deparse(b.defaultExpr(rel, i)), nil
}

// sqlValueFunctions are the functions Postgres writes without
// parentheses (SQLValueFunction).
var sqlValueFunctions = map[string]string{
	"current_timestamp": "CURRENT_TIMESTAMP", "current_date": "CURRENT_DATE",
	"current_time": "CURRENT_TIME", "localtimestamp": "LOCALTIMESTAMP", "localtime": "LOCALTIME",
	"current_user": "CURRENT_USER", "session_user": "SESSION_USER", "user": "USER",
	"current_role": "CURRENT_ROLE", "current_catalog": "CURRENT_CATALOG", "current_schema": "CURRENT_SCHEMA",
}

// deparser prints a DEFAULT expression; calls holds the user function
// calls inlined in it, printed as the calls they were.
type deparser struct {
	calls map[Expr]inlinedCall
}

// deparse prints e in Postgres's pretty deparsed form.
func deparse(e Expr) string { return deparser{}.deparse(e) }

// deparse prints e in Postgres's pretty deparsed form.
func (d deparser) deparse(e Expr) string {
	if c, ok := d.calls[e]; ok {
		return userProcText(c.fn, false) + "(" + strings.Join(c.written(d.deparse), ", ") + ")"
	}
	switch n := e.(type) {
	case *Const:
		return deparseConst(n)
	case *Cast:
		if n.Domain != nil {
			return d.deparseOperand(n.Arg) + "::" + n.Domain.TypeName()
		}
		if n.T.ID == types.Float8 && n.Arg.Type().IsEnum() {
			return d.deparse(n.Arg)
		}
		if n.Assign {
			return d.deparse(n.Arg)
		}
		// A typed literal ('2020-01-01'::date) stays a cast of its text
		// until run time; Postgres stores the converted constant.
		if k, ok := n.Arg.(*Const); ok && k.T.ID == types.Text && !k.V.Null {
			return quoteLiteral(canonicalLiteral(k.V.S, n.T)) + "::" + types.T{ID: n.T.ID, Mod: n.T.Mod}.String()
		}
		return d.deparseOperand(n.Arg) + "::" + n.T.String()
	case *Call:
		if n.Fn == "neg" && len(n.Args) == 1 {
			return "-" + d.deparseOperand(n.Args[0])
		}
		if infixOps[n.Fn] && len(n.Args) == 2 {
			return d.deparseOperand(n.Args[0]) + " " + n.Fn + " " + d.deparseOperand(n.Args[1])
		}
		if kw, ok := sqlValueFunctions[n.Fn]; ok && len(n.Args) == 0 {
			return kw
		}
		parts := make([]string, 0, len(n.Args))
		for i, a := range n.Args {
			switch {
			case i < len(n.ArgNames) && n.ArgNames[i] == DefaultArg:
				// left out: the parameter's default
			case i < len(n.ArgNames) && n.ArgNames[i] != "":
				parts = append(parts, n.ArgNames[i]+" => "+d.deparse(a))
			default:
				parts = append(parts, d.deparse(a))
			}
		}
		fn := n.Fn
		if fn == functions.VariadicCallFn && len(parts) >= 2 {
			// f(a, VARIADIC arr): the first argument names f.
			if k, ok := n.Args[0].(*Const); ok {
				fn, parts = k.V.S, parts[1:]
				parts[len(parts)-1] = "VARIADIC " + parts[len(parts)-1]
			}
		}
		if fn == functions.IdentityNextValFn {
			fn = "nextval"
		}
		if seqFuncs[fn] && len(n.Args) > 0 {
			// The sequence functions take a regclass, which prints as
			// the relation's name.
			if k, ok := n.Args[0].(*Const); ok && k.T.ID == types.Text && !k.V.Null {
				parts[0] = quoteLiteral(regclassText(k.V.S)) + "::regclass"
			}
		}
		return fn + "(" + strings.Join(parts, ", ") + ")"
	}
	return FormatExpr(e)
}

// seqFuncs are the functions whose first argument is a sequence's
// regclass.
var seqFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true}

// regclassText is the name s (as regclass input reads it: an optional
// schema, unquoted names folded to lower case) as regclassout prints it:
// quoted where needed, the public schema left out.
func regclassText(s string) string {
	s = strings.TrimSpace(s)
	schema, name := "", s
	if i := strings.LastIndexByte(s, '.'); i >= 0 && !(strings.HasSuffix(s, `"`) && strings.Count(s[i:], `"`)%2 == 1) {
		schema, name = s[:i], s[i+1:]
	}
	fold := func(x string) string {
		x = strings.TrimSpace(x)
		if len(x) >= 2 && x[0] == '"' && x[len(x)-1] == '"' {
			return strings.ReplaceAll(x[1:len(x)-1], `""`, `"`)
		}
		return strings.ToLower(x)
	}
	schema, name = fold(schema), fold(name)
	if schema == "" || schema == "public" {
		return sql.QuoteIdent(name)
	}
	return sql.QuoteIdent(schema) + "." + sql.QuoteIdent(name)
}

// deparseOperand parenthesises operator expressions used as operands.
func (d deparser) deparseOperand(e Expr) string {
	s := d.deparse(e)
	if _, call := d.calls[e]; call {
		return s
	}
	if c, ok := e.(*Call); ok && infixOps[c.Fn] {
		return "(" + s + ")"
	}
	return s
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// deparseConst follows get_const_expr: integers that fit int4 and are not
// negative, numerics written with a point or exponent, and booleans print
// bare; everything else as a quoted literal with its type. weir folds an
// integer literal widened to the column's type into one constant, so
// integers are judged by value, as the int4 literal Postgres would keep.
// canonicalLiteral returns the literal s of type t as PostgreSQL's
// constant of that type prints it: a date, time, timestamp or interval
// in its output form ('2020-01-01'::timestamp is '2020-01-01
// 00:00:00'), anything else as written.
func canonicalLiteral(s string, t types.T) string {
	switch t.ID {
	case types.Date, types.Time, types.Timestamp, types.Interval:
		if v, err := types.ParseText(s, t, time.UTC); err == nil {
			return types.FormatText(v, t, time.UTC)
		}
	}
	return s
}

func deparseConst(c *Const) string {
	if c.T.IsEnum() {
		if c.V.Null {
			return "NULL::" + types.EnumTypname(c.T)
		}
		return quoteLiteral(types.FormatText(c.V, c.T, time.UTC)) + "::" + types.EnumTypname(c.T)
	}
	if c.V.Null {
		return "NULL::" + types.T{ID: c.T.ID, Mod: -1}.String()
	}
	switch c.T.Family() {
	case types.FamBool:
		if c.T.ID == types.Bool {
			if c.V.Bool() {
				return "true"
			}
			return "false"
		}
	case types.FamInt:
		if c.T.ID == types.Oid {
			break
		}
		v := c.V.I
		s := strconv.FormatInt(v, 10)
		switch {
		case v >= 0 && v <= math.MaxInt32:
			return s
		case v >= math.MinInt32 && v <= math.MaxInt32:
			return "'" + s + "'::integer"
		}
		return "'" + s + "'::bigint"
	case types.FamFloat, types.FamDecimal:
		s := types.FormatText(c.V, c.T, time.UTC)
		if s != "" && s[0] >= '0' && s[0] <= '9' {
			if strings.ContainsAny(s, "eE.") {
				return s
			}
			if v, err := strconv.ParseInt(s, 10, 64); err == nil && v <= math.MaxInt32 {
				return s
			}
		}
		return quoteLiteral(s) + "::numeric"
	}
	return quoteLiteral(types.FormatText(c.V, c.T, time.UTC)) + "::" + types.T{ID: c.T.ID, Mod: -1}.String()
}

// RowExprText returns a CHECK constraint's or generated column's
// expression bound over rel's row as PostgreSQL's deparser prints it:
// columns by name; with pretty (pg_get_constraintdef(oid, true),
// pg_get_expr(adbin, adrelid, true)) operators are parenthesised only
// where ruleutils.c's isSimpleNode asks for it, without it every
// operator, boolean and cast of a column carries parentheses of its own
// (pg_get_constraintdef(oid): CHECK ((a > 0))).
func RowExprText(rel *catalog.Relation, e Expr, pretty bool) string {
	return rowExprText(rel, e, pretty, nil)
}

// rowExprText is RowExprText printing the inlined calls as calls.
func rowExprText(rel *catalog.Relation, e Expr, pretty bool, calls map[Expr]inlinedCall) string {
	d := rowDeparser{rel: rel, pretty: pretty, indent: new(int), calls: calls}
	out := d.expr(e, nil)
	// appendContextKeyword drops the blanks before each line break it
	// makes (CASE's lines).
	for strings.Contains(out, " \n") {
		out = strings.ReplaceAll(out, " \n", "\n")
	}
	return out
}

// DomainCheckText prints e, a domain's CHECK expression bound by
// BindDomainCheck, as pg_get_constraintdef prints it (VALUE for the
// value). valueCast is, for a domain over a domain, the base type VALUE
// is relabelled to where a function or operator takes it ("" for other
// domains).
func DomainCheckText(e Expr, pretty bool, valueCast string) string {
	rel := &catalog.Relation{Cols: []catalog.Column{{Name: "value"}}}
	d := rowDeparser{rel: rel, pretty: pretty, indent: new(int), value: true, valueCast: valueCast}
	out := d.expr(e, nil)
	for strings.Contains(out, " \n") {
		out = strings.ReplaceAll(out, " \n", "\n")
	}
	return out
}

// rowDeparser prints expressions over a table's row. indent is the
// pretty form's indentation of CASE lines (ruleutils.c's indentLevel).
type rowDeparser struct {
	rel    *catalog.Relation
	pretty bool
	indent *int
	// value makes column 0 print as VALUE: a domain's constraint;
	// valueCast, when set, is the base type a domain over a domain
	// relabels VALUE to where it is an argument (VALUE::integer).
	value     bool
	valueCast string
	// cols, when set, is the text of each input column (a view's
	// deparsed columns, viewdef.go), in place of rel's column names;
	// relabels the base type of those that are a table column of a
	// domain (nil for the others).
	cols     []string
	relabels []*types.T
	// written holds the forms a view's query wrote (binder.written).
	written map[Expr]string
	// calls holds the user function calls the binder inlined, by the
	// root of the inlined body, printed as the calls they were.
	calls map[Expr]inlinedCall
	// outer prints a column of an enclosing query, and sub a subquery
	// (viewdef.go).
	outer func(*OuterRef) string
	sub   func(*Subquery) string
	// special, when set, prints the expressions a view's query wrote
	// in a form their binding does not keep (GROUPING(...)).
	special func(Expr) (string, bool)
}

// domainRelabel is the base type c, a table column of a domain, is
// relabelled to as an argument, or nil for a column of no domain (and
// of an array of a domain, which the array functions take as it is).
func domainRelabel(c catalog.Column) *types.T {
	if c.Domain == 0 || c.DomainArray {
		return nil
	}
	t := c.T
	return &t
}

// anyArgFuncs are the functions and aggregates whose parameters are
// "any" or polymorphic (anyelement): PostgreSQL passes a domain's value
// to them as it is, unrelabelled.
var anyArgFuncs = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(`count array_agg json_agg jsonb_agg to_json to_jsonb array_append array_prepend
		array_position array_positions array_remove array_replace pg_concat concat_ws format json_build_object
		jsonb_build_object json_build_array jsonb_build_array num_nulls num_nonnulls mode percentile_disc any_value`) {
		m[f] = true
	}
	return m
}()

// relabelled reports whether column reference n, a value of a domain,
// is relabelled to the domain's base type as an argument of parent, as
// PostgreSQL coerces it: a function's or an operator's, COALESCE's, a
// CASE result's, IN's left side.
func relabelled(n *ColRef, parent Expr) bool {
	switch p := parent.(type) {
	case *Call:
		return !anyArgFuncs[p.Fn]
	case *Coalesce:
		return true
	case *Case:
		for _, w := range p.Whens {
			if w.Then == Expr(n) {
				return true
			}
		}
		return p.Else == Expr(n)
	case *InList:
		return p.Arg == Expr(n)
	}
	return false
}

// keyword is appendContextKeyword: a line break and the indentation
// (changed by before first, after last) before word. Both forms indent:
// pg_get_constraintdef's plain form is PRETTYFLAG_INDENT too.
func (d rowDeparser) keyword(word string, before, after int) string {
	*d.indent += before
	s := "\n" + strings.Repeat(" ", max(*d.indent, 0)) + word
	*d.indent += after
	return s
}

// inListOp is the operator an IN list compares with: = for IN, <> for
// NOT IN.
func inListOp(n *InList) string {
	if n.Not {
		return "<>"
	}
	return "="
}

// own wraps s, a node's text, in the parentheses a node that is not
// simple carries in the plain (not pretty) form.
func (d rowDeparser) own(s string) string {
	if d.pretty {
		return s
	}
	return "(" + s + ")"
}

// writtenForm prints e in the form the query wrote it when that is not
// the form it binds to (binder.written): x IS [NOT] DISTINCT FROM y, and
// CASE x WHEN v THEN ....
func (d rowDeparser) writtenForm(e Expr) (string, bool) {
	if c, ok := d.calls[e]; ok {
		call := &Call{Fn: c.fn.Name}
		parts := c.written(func(a Expr) string { return d.expr(a, call) })
		return userProcText(c.fn, false) + "(" + strings.Join(parts, ", ") + ")", true
	}
	if d.written == nil {
		return "", false
	}
	not := false
	if n, ok := e.(*Not); ok && d.written[n.Arg] == "notdistinct" {
		e, not = n.Arg, true
	}
	if sym, ok := strings.CutPrefix(d.written[e], "op "); ok {
		// An operator bound as its function (binder.opCall).
		c := e.(*Call)
		if len(c.Args) == 1 {
			return d.own(sym + " " + d.arg(c.Args[0], opProbe(c, sym))), true
		}
		p := opProbe(c, sym)
		return d.own(d.arg(c.Args[0], p) + " " + sym + " " + d.arg(c.Args[1], p)), true
	}
	switch d.written[e] {
	case "negator":
		if c, ok := e.(*Not).Arg.(*Call); ok && len(c.Args) == 2 {
			if _, op := isOp(c); op {
				return d.own(d.arg(c.Args[0], c) + " !" + c.Fn + " " + d.arg(c.Args[1], c)), true
			}
		}
		return "", false
	case "nullif":
		c := e.(*Case)
		eq := c.Whens[0].Cond.(*Call)
		return "NULLIF(" + d.expr(eq.Args[0], c) + ", " + d.expr(eq.Args[1], c) + ")", true
	case "notdistinct":
		c := e.(*Case)
		eq := c.Else.(*Call)
		op := " IS NOT DISTINCT FROM "
		if not {
			op = " IS DISTINCT FROM "
		}
		return d.own(d.arg(eq.Args[0], eq) + op + d.arg(eq.Args[1], eq)), true
	case "simple":
		c := e.(*Case)
		var arg Expr
		for _, w := range c.Whens {
			eq, ok := w.Cond.(*Call)
			if !ok || eq.Fn != "=" || len(eq.Args) != 2 {
				return "", false
			}
			arg = eq.Args[0]
		}
		s := d.keyword("CASE "+d.expr(arg, c), 0, 4)
		for _, w := range c.Whens {
			s += d.keyword("WHEN ", 0, 0) + d.expr(w.Cond.(*Call).Args[1], c) + " THEN " + d.expr(w.Then, c)
		}
		s += d.keyword("ELSE ", 0, 0)
		if c.Else != nil {
			s += d.expr(c.Else, c)
		} else {
			s += "NULL::" + types.T{ID: c.T.ID, Mod: -1}.String()
		}
		return s + d.keyword("END", -4, 0), true
	}
	return "", false
}

// opProbe is the call c of an operator's function (binder.opCall) as
// the operator sym, for simple's precedence checks: a prefix operator
// is as a unary minus.
func opProbe(c *Call, sym string) *Call {
	if len(c.Args) == 1 {
		return &Call{Fn: "neg", Args: c.Args, T: c.T}
	}
	return &Call{Fn: sym, Args: c.Args, T: c.T}
}

// isOp reports whether e is a binary operator call, and its operator.
func isOp(e Expr) (string, bool) {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return "", false
	}
	if infixOps[c.Fn] {
		return c.Fn, true
	}
	if sym := bridgeOperators[c.Fn]; sym != "" {
		return sym, true
	}
	return "", false
}

// simple follows isSimpleNode: whether node, an argument of parent,
// prints without parentheses of its own.
func simple(node, parent Expr) bool {
	boolParent := func() bool {
		switch p := parent.(type) {
		case *And, *Or, *Not, *Case, *Coalesce:
			return true
		case *Call:
			_, op := isOp(p)
			return !op && p.Fn != "neg"
		}
		return false
	}
	switch n := node.(type) {
	case *Call:
		op, ok := isOp(n)
		if !ok && n.Fn == "pg_any_eq" {
			// A ScalarArrayOpExpr, which isSimpleNode does not know.
			return false
		}
		if !ok {
			return n.Fn != "neg"
		}
		if pop, pok := isOp(parent); pok {
			lo, hi := strings.Contains("+-", op) && len(op) == 1, strings.Contains("*/%", op) && len(op) == 1
			plo, phi := strings.Contains("+-", pop) && len(pop) == 1, strings.Contains("*/%", pop) && len(pop) == 1
			switch {
			case !(lo || hi) || !(plo || phi):
				return false
			case hi && plo:
				return true
			case lo && phi:
				return false
			}
			return parent.(*Call).Args[0] == node
		}
		return boolParent()
	case *IsNull, *IsBool:
		return boolParent()
	case *Subquery:
		// An operator's operand gets parentheses around its own.
		_, op := isOp(parent)
		return !op
	case *InList:
		// One value is an operator (a = 1); more, a = ANY (ARRAY[...]),
		// which isSimpleNode never finds simple.
		if len(n.List) != 1 {
			return false
		}
		if _, op := isOp(parent); op {
			return false
		}
		return boolParent()
	case *Cast:
		// A cast is as simple as what it casts (a::text is,
		// (a + 1)::text is not), as isSimpleNode says of CoerceViaIO.
		return simple(n.Arg, n)
	case *And, *Or, *Not:
		switch parent.(type) {
		case *And, *Or:
			_, isOr := n.(*Or)
			_, parentOr := parent.(*Or)
			return !isOr || parentOr
		case *Not:
			return false
		}
		return boolParent()
	}
	return true
}

// arg prints node, an argument of parent, parenthesised unless simple.
func (d rowDeparser) arg(node, parent Expr) string {
	s := d.expr(node, parent)
	probe := node
	if n, ok := node.(*Not); ok && d.written != nil && d.written[n] == "negator" {
		// Printed as the negator operator, it is as simple as one.
		probe = n.Arg
	}
	if c, ok := node.(*Call); ok && d.written != nil {
		if sym, ok := strings.CutPrefix(d.written[c], "op "); ok {
			// Printed as the operator, it is as simple as one.
			probe = opProbe(c, sym)
		}
	}
	if _, call := d.calls[node]; d.pretty && !simple(probe, parent) && !call {
		return "(" + s + ")"
	}
	return s
}

func (d rowDeparser) join(es []Expr, parent Expr, sep string) string {
	parts := make([]string, len(es))
	for i, a := range es {
		parts[i] = d.arg(a, parent)
	}
	return strings.Join(parts, sep)
}

func (d rowDeparser) expr(e Expr, parent Expr) string {
	if d.special != nil {
		if s, ok := d.special(e); ok {
			return s
		}
	}
	if s, ok := d.writtenForm(e); ok {
		return s
	}
	switch n := e.(type) {
	case *OuterRef:
		if d.outer != nil {
			return d.outer(n)
		}
	case *Subquery:
		if d.sub == nil {
			break
		}
		q := d.sub(n)
		switch n.Kind {
		case SubExists:
			return "(EXISTS (" + q + "))"
		case SubAny:
			if n.Op == "=" {
				return "(" + d.expr(n.Arg, n) + " IN (" + q + "))"
			}
			return "(" + d.expr(n.Arg, n) + " " + n.Op + " ANY (" + q + "))"
		case SubArray:
			return "ARRAY(" + q + ")"
		case SubAll:
			if d.written[n] == "notin" {
				return d.own("NOT (" + d.expr(n.Arg, n) + " IN (" + q + "))")
			}
			return "(" + d.expr(n.Arg, n) + " " + n.Op + " ALL (" + q + "))"
		}
		return "(" + q + ")"
	case *ColRef:
		if d.value {
			if _, isNull := parent.(*IsNull); d.valueCast != "" && parent != nil && !isNull {
				return "VALUE::" + d.valueCast
			}
			return "VALUE"
		}
		var relabel *types.T
		if d.cols != nil {
			if n.Idx < len(d.relabels) {
				relabel = d.relabels[n.Idx]
			}
		} else {
			relabel = domainRelabel(d.rel.Cols[n.Idx])
		}
		if relabel != nil && relabelled(n, parent) {
			// A value of a domain where its base type is wanted:
			// PostgreSQL's RelabelType, printed as a cast.
			return d.expr(&Cast{Arg: n, T: *relabel}, parent)
		}
		if d.cols != nil {
			return d.cols[n.Idx]
		}
		return quoteName(d.rel.Cols[n.Idx].Name)
	case *Const:
		return deparseConst(n)
	case *Cast:
		if n.Domain != nil {
			return d.castOperand(n) + "::" + n.Domain.TypeName()
		}
		if n.T.ID == types.Float8 && n.Arg.Type().IsEnum() {
			// An enum relabelled to its sort order for a comparison.
			return d.expr(n.Arg, parent)
		}
		if n.Assign {
			return d.expr(n.Arg, parent)
		}
		if k, ok := n.Arg.(*Const); ok && k.T.ID == types.Text && !k.V.Null {
			return quoteLiteral(canonicalLiteral(k.V.S, n.T)) + "::" + types.T{ID: n.T.ID, Mod: n.T.Mod}.String()
		}
		if k, ok := n.Arg.(*Const); ok && k.T.ID == n.T.ID && k.T.Family() == types.FamString && !k.V.Null {
			// 'x'::varchar(5) folded to a varchar constant first.
			return quoteLiteral(k.V.S) + "::" + types.T{ID: n.T.ID, Mod: n.T.Mod}.String()
		}
		if in, ok := n.Arg.(*Cast); ok && in.T.ID == n.T.ID && !in.Assign {
			// 'x'::varchar(5): the literal's cast to the type, then
			// the length's; PostgreSQL folds both into one constant.
			if k, ok := in.Arg.(*Const); ok && k.T.ID == types.Text && !k.V.Null {
				return quoteLiteral(canonicalLiteral(k.V.S, n.T)) + "::" + types.T{ID: n.T.ID, Mod: n.T.Mod}.String()
			}
		}
		return d.castOperand(n) + "::" + n.T.String()
	case *Call:
		if n.Fn == "neg" && len(n.Args) == 1 {
			return d.own("- " + d.arg(n.Args[0], n))
		}
		if kw, ok := sqlValueFunctions[n.Fn]; ok && len(n.Args) == 0 {
			return kw
		}
		if op, ok := isOp(n); ok {
			return d.own(d.arg(n.Args[0], n) + " " + op + " " + d.arg(n.Args[1], n))
		}
		parts := make([]string, 0, len(n.Args))
		for i, a := range n.Args {
			switch {
			case i < len(n.ArgNames) && n.ArgNames[i] == DefaultArg:
				// left out: the parameter's default
			case i < len(n.ArgNames) && n.ArgNames[i] != "":
				parts = append(parts, n.ArgNames[i]+" => "+d.expr(a, n))
			default:
				parts = append(parts, d.expr(a, n))
			}
		}
		if seqFuncs[n.Fn] && len(parts) > 0 {
			// The sequence functions take a regclass, which prints as
			// the relation's name; setval's value is a bigint.
			if k, ok := n.Args[0].(*Const); ok && k.T.ID == types.Text && !k.V.Null {
				parts[0] = quoteLiteral(regclassText(k.V.S)) + "::regclass"
			} else if n.Args[0].Type().ID != types.Oid {
				parts[0] = "(" + parts[0] + ")::regclass"
			}
			if k, ok := n.Args[1%len(n.Args)].(*Const); ok && n.Fn == "setval" && len(parts) > 1 && k.T.ID == types.Int8 && !k.V.Null && !strings.Contains(parts[1], "::") {
				// An integer literal, cast to bigint as the argument.
				if !d.pretty {
					parts[1] = "(" + parts[1] + ")"
				}
				parts[1] += "::bigint"
			}
		}
		if n.Fn == "array" && len(n.Args) > 0 {
			// An ARRAY[...] constructor.
			return "ARRAY[" + strings.Join(parts, ", ") + "]"
		}
		if n.Fn == "pg_extract" && len(parts) == 2 {
			// EXTRACT(field FROM x), its field a word.
			if k, ok := n.Args[0].(*Const); ok && !k.V.Null && sql.QuoteIdent(k.V.S) == k.V.S {
				return "EXTRACT(" + k.V.S + " FROM " + parts[1] + ")"
			}
		}
		if n.Fn == "pg_any_eq" && len(parts) == 2 {
			// x = ANY (array), a ScalarArrayOpExpr.
			return d.own(d.arg(n.Args[0], n) + " = ANY (" + parts[1] + ")")
		}
		if (n.Fn == "pg_subscript" || n.Fn == "pg_slice" && len(parts) == 3) && len(parts) >= 2 {
			// x[i], x[lo:hi]: the array parenthesised unless a column.
			base := parts[0]
			switch n.Args[0].(type) {
			case *ColRef, *OuterRef:
			default:
				base = "(" + base + ")"
			}
			if n.Fn == "pg_slice" {
				return base + "[" + parts[1] + ":" + parts[2] + "]"
			}
			return base + "[" + strings.Join(parts[1:], "][") + "]"
		}
		if n.Fn == "greatest" || n.Fn == "least" {
			// A MinMaxExpr, which PostgreSQL writes as a keyword.
			return strings.ToUpper(n.Fn) + "(" + strings.Join(parts, ", ") + ")"
		}
		return n.Fn + "(" + strings.Join(parts, ", ") + ")"
	case *And:
		return d.own(d.join(n.Args, n, " AND "))
	case *Or:
		return d.own(d.join(n.Args, n, " OR "))
	case *Not:
		return d.own("NOT " + d.arg(n.Arg, n))
	case *IsNull:
		if n.Not {
			return d.own(d.arg(n.Arg, n) + " IS NOT NULL")
		}
		return d.own(d.arg(n.Arg, n) + " IS NULL")
	case *IsBool:
		s := d.arg(n.Arg, n) + " IS "
		if n.Not {
			s += "NOT "
		}
		return d.own(s + strings.ToUpper(n.Want))
	case *Coalesce:
		return "COALESCE(" + d.join(n.Args, n, ", ") + ")"
	case *Case:
		s := d.keyword("CASE", 0, 4)
		for _, w := range n.Whens {
			s += d.keyword("WHEN ", 0, 0) + d.expr(w.Cond, n) + " THEN " + d.expr(w.Then, n)
		}
		s += d.keyword("ELSE ", 0, 0)
		if n.Else != nil {
			s += d.expr(n.Else, n)
		} else {
			s += "NULL::" + types.T{ID: n.T.ID, Mod: -1}.String()
		}
		return s + d.keyword("END", -4, 0)
	case *InList:
		op := inListOp(n)
		elem := func(e Expr) string {
			if k, ok := e.(*Const); ok && k.T.ID == types.Unknown {
				k = &Const{V: k.V, T: n.Arg.Type()}
				if !k.V.Null {
					k.V = types.DString(k.V.S)
				}
				return deparseConst(k)
			}
			return d.expr(e, n)
		}
		if len(n.List) == 1 {
			return d.own(d.arg(n.Arg, n) + " " + op + " " + elem(n.List[0]))
		}
		quant := "ANY"
		if n.Not {
			quant = "ALL"
		}
		parts := make([]string, len(n.List))
		for i, e := range n.List {
			parts[i] = elem(e)
		}
		return d.own(d.arg(n.Arg, n) + " " + op + " " + quant + " (ARRAY[" + strings.Join(parts, ", ") + "])")
	}
	return deparse(e)
}

// castOperand prints the operand of cast n as PostgreSQL's deparser
// does before "::": a column, constant or cast in parentheses unless
// pretty, an operator or a call to an infix or unary minus always.
func (d rowDeparser) castOperand(n *Cast) string {
	s := d.expr(n.Arg, n)
	switch n.Arg.(type) {
	case *ColRef, *Const, *Cast:
		if !d.pretty {
			s = "(" + s + ")"
		}
	default:
		if _, op := isOp(n.Arg); op || !d.pretty {
			s = "(" + s + ")"
		} else if c, ok := n.Arg.(*Call); !ok || infixOps[c.Fn] || c.Fn == "neg" {
			s = "(" + s + ")"
		}
	}
	return s
}
