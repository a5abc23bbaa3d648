package planner

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file inlines user SQL functions (CREATE FUNCTION ... LANGUAGE
// sql), as PostgreSQL's inline_function inlines simple SQL functions
// and RisingWave its SQL UDFs: a call binds the function's body, one
// expression, over the call's arguments, so a function costs nothing at
// run time and works wherever an expression does (queries, DML,
// materialized views, defaults, indexes).
//
// A call f(x, y) of
//
//	CREATE FUNCTION f(a int, b int) RETURNS bigint STRICT RETURN a * b
//
// becomes CASE WHEN x IS NULL OR y IS NULL THEN NULL ELSE (x * y)::bigint
// END: the body is bound once over its parameters (ColRef i for the i-th,
// by name or $i), converted to the declared result type by the
// assignment cast, and its parameters replaced by the arguments,
// converted to the parameter types.

// FuncCatalog is implemented by a Catalog that holds user functions:
// Functions returns those called name in schema, or, with schema "",
// in the schemas of the search path.
type FuncCatalog interface {
	Functions(schema, name string) []*catalog.Function
}

type funcUseKey struct{}

// WithFuncUse returns ctx under which every binding calls use with the
// OID of each user function it inlines: DROP FUNCTION finds what uses a
// function by binding the stored expressions again under it.
func WithFuncUse(ctx context.Context, use func(oid uint32)) context.Context {
	return context.WithValue(ctx, funcUseKey{}, use)
}

// maxInlineDepth bounds functions calling functions: a function made
// recursive by CREATE OR REPLACE cannot be inlined.
const maxInlineDepth = 32

// funcUses is what a statement's binding records of the user functions
// it inlined, shared by the binders of the function bodies in it.
type funcUses struct {
	// funcs are the functions inlined, by OID, as they were bound: those
	// the statement's text calls, and those called by the views it reads
	// and by the bodies of the functions.
	funcs map[uint32]*catalog.Function
	// order keeps funcs' OIDs in the order they were first called, and
	// direct those the statement's own text calls.
	order  []uint32
	direct map[uint32]bool
	// inlined maps the root of each inlined body to its call.
	inlined map[Expr]inlinedCall
	// bodies holds the bound body of each function inlined, by OID.
	bodies map[uint32]Expr
}

// inlinedCall is one inlined call: the function and its arguments (as
// converted to the parameter types).
type inlinedCall struct {
	fn   *catalog.Function
	args []Expr
	// order, for a call in named or mixed notation, is the parameter
	// each argument as written gives, and labels their names ("" for
	// the positional ones); nil for a call in positional notation.
	order  []int
	labels []string
}

// written returns the text of c's arguments, each printed by text, as
// the call wrote them: in named notation name => value.
func (c inlinedCall) written(text func(Expr) string) []string {
	if c.order == nil {
		parts := make([]string, len(c.args))
		for i, a := range c.args {
			parts[i] = text(a)
		}
		return parts
	}
	parts := make([]string, len(c.order))
	for k, i := range c.order {
		parts[k] = text(c.args[i])
		if c.labels[k] != "" {
			parts[k] = c.labels[k] + " => " + parts[k]
		}
	}
	return parts
}

func (b *binder) uses() *funcUses {
	if b.fnUses == nil {
		b.fnUses = &funcUses{funcs: map[uint32]*catalog.Function{}, direct: map[uint32]bool{}, inlined: map[Expr]inlinedCall{}}
	}
	return b.fnUses
}

// userCall resolves call n of a name user functions have, with its bound
// arguments, among the user functions and the built-ins of the name as
// PostgreSQL resolves over search_path pg_catalog, public: a user
// function of the same argument types as a built-in is hidden by it. It
// returns the inlined body, or false when the call is no user
// function's (a built-in's, to bind as before).
func (b *binder) userCall(n *ast.FuncCallExpr, args []Expr) (Expr, bool) {
	fc, ok := unpinned(b.cat).(FuncCatalog)
	if !ok {
		return nil, false
	}
	schema := n.Schema.O
	if schema == "pg_catalog" {
		return nil, false
	}
	name := n.FnName.O
	fns := fc.Functions(schema, name)
	if len(fns) == 0 && schema != "" && schema != "information_schema" && schema != "weir" {
		// A user schema holds no built-in.
		if nc, ok := unpinned(b.cat).(NameCatalog); ok {
			if _, ok := nc.NamespaceOID(schema); !ok {
				fail(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema).WithPosition(b.pos(n)))
			}
		}
		an := make([]argNode, len(args))
		for i, a := range args {
			an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
		}
		fail(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcSig(b.catalogPrefix(n)+schema+"."+name, an)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.pos(n)))
	}
	if len(fns) == 0 {
		return nil, false
	}
	if hasNamedArgs(n.Args) {
		fail(pgerr.New(pgerr.FeatureNotSupported, "named arguments in a call of a user function are not supported").WithPosition(b.pos(n)))
	}
	var cands []*Overload
	byOverload := map[*Overload]*catalog.Function{}
	builtins := Overloads(strings.ToLower(name))
	if schema != "" {
		builtins = nil
	}
	for _, o := range builtins {
		if o.Kind == Scalar {
			cands = append(cands, o)
		}
	}
next:
	for _, f := range fns {
		o := &Overload{Name: f.Name, Ret: f.Ret.ID, Kind: Scalar}
		for _, t := range f.ArgTypes {
			o.Args = append(o.Args, t.ID)
		}
		for _, bo := range builtins {
			if bo.Kind == Scalar && !bo.Variadic && slicesEqual(bo.Args, o.Args) {
				continue next
			}
		}
		cands = append(cands, o)
		byOverload[o] = f
	}
	an := make([]argNode, len(args))
	for i, a := range args {
		an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
	}
	o, amb := resolveOverload(cands, an)
	shown := name
	if schema != "" {
		shown = b.catalogPrefix(n) + schema + "." + name
	}
	if o == nil {
		fail(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcSig(shown, an)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.pos(n)))
	}
	if amb {
		fail(pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", funcSig(shown, an)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.").WithPosition(b.pos(n)))
	}
	f, ok := byOverload[o]
	if !ok {
		return nil, false
	}
	b.checkExecute(f)
	return b.inline(f, args, n), true
}

// unpinned is cat without the pins of a view's stored definition
// (PinnedCatalog), whose wrapper hides the optional interfaces.
func unpinned(cat Catalog) Catalog {
	if p, ok := cat.(pinnedCatalog); ok {
		return p.Catalog
	}
	return cat
}

func slicesEqual(a, b []types.TypeID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// inline binds a call of f over args (already resolved to f).
//
// Each argument replaces the parameter's references in the body,
// except one that must be computed once and is not: a volatile one
// (nextval(...), random()) read more than once, the null check of a
// STRICT function counting as a read, and a constant one the body does
// not read, whose errors PostgreSQL raises (it folds constants when it
// plans). Those the call binds once, in a Let around the body, as
// PostgreSQL computes each argument of a call it does not inline once.
func (b *binder) inline(f *catalog.Function, args []Expr, n ast.Node) Expr {
	if b.fnDepth >= maxInlineDepth {
		fail(pgerr.New(pgerr.FeatureNotSupported, "SQL function \"%s\" calls itself, which cannot be inlined", f.Name).WithPosition(b.pos(n)))
	}
	b.poll()
	if b.ctx != nil {
		// Before the body binds, so that a body that cannot bind any
		// more still counts as using what it calls.
		if use, ok := b.ctx.Value(funcUseKey{}).(func(uint32)); ok {
			use(f.OID)
		}
	}
	conv := make([]Expr, len(args))
	for i, a := range args {
		conv[i] = b.tryCoerce(a, f.ArgTypes[i], ctxImplicit)
		if conv[i] == nil {
			fail(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", f.Signature(false)).WithPosition(b.pos(n)))
		}
	}
	body, err := b.funcBody(f)
	if err != nil {
		// The body bound when the function was made; what it calls may
		// have changed since. PostgreSQL names the function as context.
		pe := pgerr.As(err)
		pe.Position = 0
		if pe.Where == "" && pe.Code != pgerr.InsufficientPrivilege {
			// EXECUTE on what the body calls PostgreSQL checks when
			// the plan starts, after inlining, with no context.
			pe.Where = "SQL function \"" + f.Name + "\" during inlining"
		}
		fail(pe)
	}
	var out Expr
	if f.Strict && slices.ContainsFunc(conv, isNullConst) {
		// PostgreSQL folds a strict function's call with a NULL
		// constant argument to NULL, computing none of the others.
		out = &Const{V: types.NullDatum, T: f.Ret}
	} else {
		out = substitute(f, body, conv)
	}
	out = ownRoot(out, conv)
	checkInlineSize(f, out)
	u := b.uses()
	if _, seen := u.funcs[f.OID]; !seen {
		u.funcs[f.OID] = f
		u.order = append(u.order, f.OID)
	}
	if b.fnDepth == 0 && b.view == nil {
		u.direct[f.OID] = true
	}
	u.inlined[out] = inlinedCall{fn: f, args: conv}
	return out
}

// substitute returns body, f's bound body, over the arguments args (f's
// parameters' types): each replaces its parameter's references, or is
// computed once in a Let around the body (see inline); a STRICT f's
// result is NULL when an argument is.
func substitute(f *catalog.Function, body Expr, args []Expr) Expr {
	uses := make([]int, len(args))
	WalkExpr(body, func(x Expr) {
		if c, ok := x.(*ColRef); ok {
			uses[c.Idx]++
		}
	})
	strict := f.Strict && len(args) > 0
	let := &Let{ID: NewLetID()}
	refs := slices.Clone(args)
	for i, a := range args {
		reads := uses[i]
		if strict {
			reads++
		}
		switch {
		case reads > 1 && volatileExpr(a):
			refs[i] = &LetRef{ID: let.ID, Idx: len(let.Vals), T: a.Type()}
		case uses[i] == 0 && !strict && foldable(a):
			// Computed, never read: PostgreSQL raises its errors when
			// it folds it (f(1/0)).
		default:
			continue
		}
		let.Vals = append(let.Vals, a)
		name := f.ArgNames[i]
		if name == "" {
			name = "$" + strconv.Itoa(i+1)
		}
		let.Names = append(let.Names, name)
	}
	out := mapExpr(body, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			return refs[c.Idx]
		}
		return x
	})
	if strict {
		var nulls []Expr
		for _, a := range refs {
			nulls = append(nulls, &IsNull{Arg: a})
		}
		cond := nulls[0]
		if len(nulls) > 1 {
			cond = &Or{Args: nulls}
		}
		out = &Case{Whens: []When{{Cond: cond, Then: &Const{V: types.NullDatum, T: f.Ret}}}, Else: out, T: f.Ret}
	}
	if len(let.Vals) == 0 {
		return out
	}
	let.Body = out
	return let
}

// isNullConst reports whether e is a NULL constant, maybe converted.
func isNullConst(e Expr) bool {
	switch n := e.(type) {
	case *Const:
		return n.V.Null
	case *Cast:
		return n.Domain == nil && isNullConst(n.Arg)
	}
	return false
}

// ownRoot returns out, the expression a call with arguments args
// inlines into, with a root of its own: funcUses.inlined keys each call
// by its root, and two calls sharing one would print as each other, or
// f(g(1)) as f(f(...)) without end. A leaf (a constant of a body cached
// for the statement, an argument column) is copied; an argument the
// body returns as it is (f(x) = x), maybe the root of an inlined call
// itself, is wrapped in a Let of no values, which leaves the argument's
// nodes as they are.
func ownRoot(out Expr, args []Expr) Expr {
	switch n := out.(type) {
	case *Const:
		c := *n
		return &c
	case *ColRef:
		c := *n
		return &c
	case *OuterRef:
		c := *n
		return &c
	case *Param:
		c := *n
		return &c
	case *LetRef:
		c := *n
		return &c
	}
	for _, a := range args {
		if a == out {
			return &Let{ID: NewLetID(), Body: out}
		}
	}
	return out
}

// foldable reports whether e is an expression PostgreSQL folds to a
// constant when it plans, computing it: immutable functions and casts of
// constants only (inlined calls of such included), and not a constant
// already.
func foldable(e Expr) bool {
	if _, ok := e.(*Const); ok {
		return false
	}
	ok := true
	lets := map[int64]bool{}
	var refs []int64
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *ColRef, *OuterRef, *Param, *Subquery:
			ok = false
		case *Let:
			lets[x.ID] = true
		case *LetRef:
			refs = append(refs, x.ID)
		}
	})
	for _, id := range refs {
		// A value of a Let around e is not a constant.
		ok = ok && lets[id]
	}
	return ok && !isMutable(e) && !volatileExpr(e)
}

// maxInlineNodes bounds the expression one inlined call makes. A body
// calling another function twice over its parameter doubles the
// other's size, so a chain of such functions grows exponentially: the
// limit stops it, as the body is bound, before it costs time and
// memory.
const maxInlineNodes = 50_000

// checkInlineSize fails with 54000 when e, the expression f inlines
// into, has more than maxInlineNodes nodes.
func checkInlineSize(f *catalog.Function, e Expr) {
	n := 0
	WalkExpr(e, func(Expr) { n++ })
	if n > maxInlineNodes {
		fail(pgerr.New(pgerr.ProgramLimitExceeded, "SQL function \"%s\" is too complex to inline", f.Name).
			WithDetail("Inlining it makes an expression of %d nodes; at most %d are allowed.", n, maxInlineNodes))
	}
}

// funcBody binds f's body over its parameters (ColRef i is the i-th),
// converted to f's result type. A statement binds each function's body
// once (funcUses.bodies), however often it is called: a body calling
// another function twice would otherwise bind the other's body twice,
// and a chain of such functions take exponential time even when the
// expression it makes stays small.
func (b *binder) funcBody(f *catalog.Function) (e Expr, err error) {
	u := b.uses()
	if e, ok := u.bodies[f.OID]; ok {
		return e, nil
	}
	defer recoverAt(&err, 0)
	node, q, _ := parseFuncBody(f)
	e = b.bindBody(f, node, q)
	if u.bodies == nil {
		u.bodies = map[uint32]Expr{}
	}
	u.bodies[f.OID] = e
	return e, nil
}

// bindBody binds a parsed body of f with a binder of its own, sharing
// the statement's record of the functions it calls.
func (b *binder) bindBody(f *catalog.Function, node ast.ExprNode, q *sql.Query) Expr {
	sub := &binder{q: q, cat: b.cat, deps: map[uint32]bool{}, ctx: b.ctx, access: &[]Access{}, fn: f, fnDepth: b.fnDepth + 1, fnUses: b.uses()}
	sc := &scope{lvl: &level{}, tables: []string{f.Name}}
	for i, t := range f.ArgTypes {
		sc.cols = append(sc.cols, colInfo{table: f.Name, name: f.ArgNames[i], t: t})
	}
	x := sub.expr(&exprCtx{s: sc, clause: "SQL function bodies"}, node)
	t := sub.typeOf(x)
	if sub.isUnknown(x) || t.ID == types.Unknown {
		x = sub.coerce(x, types.TText, ctxImplicit, "function result")
		t = types.TText
	}
	out := sub.tryCoerce(x, f.Ret, ctxAssignment)
	if out == nil {
		fail(pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.Ret).
			WithDetail("Actual return type is %s.", t).WithWhere("SQL function \"%s\"", f.Name))
	}
	checkInlineSize(f, out)
	return out
}

// parseFuncBody parses f's body: RETURN's expression, or the one SELECT
// of one expression without FROM of AS '...'. It returns the
// expression, the parsed query it belongs to, and the byte offset in
// f.Src where that query's text starts. It fails (by panicking with a
// *pgerr.Error, as the binder does) for every other body: 0A000 for
// the forms PostgreSQL has and weir does not inline, 42P13 for those
// PostgreSQL refuses too.
func parseFuncBody(f *catalog.Function) (ast.ExprNode, *sql.Query, int) {
	if f.Return {
		q, err := parseExpr(f.Src)
		if err != nil {
			fail(pgerr.As(err))
		}
		sel, ok := q.Node.(*ast.SelectStmt)
		if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
			failf(pgerr.SyntaxError, "syntax error in RETURN")
		}
		return checkBodyExpr(sel.Fields.Fields[0].Expr, q), q, 0
	}
	pieces, err := sql.Split(f.Src)
	if err != nil {
		fail(pgerr.As(err))
	}
	if len(pieces) == 0 {
		fail(pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.Ret).
			WithDetail("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.").WithWhere("SQL function \"%s\"", f.Name))
	}
	if len(pieces) > 1 {
		failf(pgerr.FeatureNotSupported, "SQL functions of more than one statement are not supported")
	}
	text := pieces[0].Text
	if rest := f.Src[pieces[0].Offset+len(text):]; strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), ";") {
		// The semicolon ending the statement is part of its text, as
		// PostgreSQL's parser sees it (a syntax error "at or near ;").
		text = f.Src[pieces[0].Offset : pieces[0].Offset+len(text)+strings.IndexByte(rest, ';')+1]
	}
	st, err := parseStmt(text)
	if err != nil {
		pe := pgerr.As(err)
		if pe.Position > 0 {
			pe.Position += len([]rune(f.Src[:pieces[0].Offset]))
		}
		fail(pe)
	}
	q, ok := st.(*sql.Query)
	if !ok {
		failf(pgerr.FeatureNotSupported, "SQL function bodies other than one SELECT are not supported")
	}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok {
		failf(pgerr.FeatureNotSupported, "SQL function bodies other than one SELECT are not supported")
	}
	if sel.Fields == nil || len(sel.Fields.Fields) != 1 || noColumns(sel) {
		fail(pgerr.New(pgerr.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.Ret).
			WithDetail("Final statement must return exactly one column.").WithWhere("SQL function \"%s\"", f.Name))
	}
	switch {
	case sel.From != nil:
		failf(pgerr.FeatureNotSupported, "SQL function bodies with a FROM clause are not supported")
	case sel.Where != nil || sel.GroupBy != nil || sel.Having != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct ||
		sel.WindowSpecs != nil || sel.With != nil || len(q.TVFs) > 0:
		failf(pgerr.FeatureNotSupported, "SQL function bodies other than SELECT of one expression are not supported")
	case sel.Fields.Fields[0].WildCard != nil:
		failf(pgerr.FeatureNotSupported, "SQL function bodies other than SELECT of one expression are not supported")
	}
	return checkBodyExpr(sel.Fields.Fields[0].Expr, q), q, pieces[0].Offset
}

// noColumns reports whether sel has an empty target list (SELECT, or
// SELECT FROM t), which the front end writes as the one target
// pg_no_columns() (sql/doc.go).
func noColumns(sel *ast.SelectStmt) bool {
	if sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return false
	}
	fc, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	return ok && fc.FnName.L == "pg_no_columns" && len(fc.Args) == 0 && fc.Schema.L == ""
}

// checkBodyExpr refuses what an inlined body cannot hold: subqueries,
// aggregates and window functions (PostgreSQL inlines none of these).
func checkBodyExpr(n ast.ExprNode, q *sql.Query) ast.ExprNode {
	var sub subqueryFinder
	n.Accept(&sub)
	if sub.found != nil {
		failf(pgerr.FeatureNotSupported, "SQL function bodies with a subquery are not supported")
	}
	b := &binder{q: q}
	if b.containsAggOrWindow(n) {
		failf(pgerr.FeatureNotSupported, "SQL function bodies with an aggregate or window function are not supported")
	}
	return n
}

// CheckFunction checks f's body as CREATE FUNCTION does: it parses and
// binds it over f's parameters and converts it to f's result type.
// Errors are PostgreSQL's (42703 for an unknown name, 42P02 for $n
// beyond the parameters, 42P13 for a result of the wrong type), with
// 0A000 for bodies weir does not inline; bodyPos, the character of the
// statement the body starts at, places their positions in the
// statement (0: no positions). It returns whether the body is mutable
// (calls a function whose value may change).
func CheckFunction(ctx context.Context, f *catalog.Function, bodyPos int, cat Catalog) (mutable bool, err error) {
	pos := bodyPos
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		pe, ok := r.(*pgerr.Error)
		if !ok {
			panic(r)
		}
		if pe.Position > 0 && pos > 0 {
			pe.Position += pos - 1
		} else {
			pe.Position = 0
		}
		err = pe
	}()
	node, q, off := parseFuncBody(f)
	if pos > 0 {
		pos += len([]rune(f.Src[:off]))
	}
	b := &binder{cat: cat, deps: map[uint32]bool{}, ctx: WithDeferredAuthorization(ctx), access: &[]Access{}}
	x := b.bindBody(f, node, q)
	return b.isMutable(x), nil
}

// isMutable is isMutable of e as PostgreSQL judges an expression with
// inlined SQL functions in it: an IMMUTABLE function whose body is not
// immutable is not inlined there, so its declaration is trusted and only
// its arguments count; every other function counts by its body.
func (b *binder) isMutable(e Expr) bool {
	if b.fnUses == nil || len(b.fnUses.inlined) == 0 {
		return isMutable(e)
	}
	skip := map[Expr]bool{}
	WalkExpr(e, func(x Expr) {
		c, ok := b.fnUses.inlined[x]
		if !ok || c.fn.Volatility != catalog.Immutable {
			return
		}
		WalkExpr(x, func(y Expr) { skip[y] = true })
		for _, a := range c.args {
			WalkExpr(a, func(y Expr) { delete(skip, y) })
		}
	})
	if len(skip) == 0 {
		return isMutable(e)
	}
	return mutableExcept(e, skip)
}

// FuncAuthorizer is implemented by a Catalog that checks who may call a
// user function: CanExecute reports whether the statement's role holds
// EXECUTE on f.
type FuncAuthorizer interface {
	CanExecute(f *catalog.Function) bool
}

// checkExecute fails unless the statement's role may call f (a
// FuncAuthorizer catalog), except where the check is made later: under
// WithDeferredAuthorization or WithDeferredExecute, and in a function's
// body bound by CheckFunction, whose calls PostgreSQL checks only when
// they run.
func (b *binder) checkExecute(f *catalog.Function) {
	if deferredAuthorization(b.ctx) || deferredExecute(b.ctx) {
		return
	}
	if a, ok := unpinned(b.cat).(FuncAuthorizer); ok && !a.CanExecute(f) {
		fail(pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function %s", f.Name))
	}
}

// UserFuncCatalog is implemented by a Catalog that finds user functions
// by OID, as regproc and regprocedure print them.
type UserFuncCatalog interface {
	FunctionByOID(oid uint32) (*catalog.Function, bool)
}

// userProcText prints user function f as regproc (its name) or
// regprocedure (name(argtypes)) prints it, qualified when it is not in
// public, names as quote_identifier quotes them.
func userProcText(f *catalog.Function, withArgs bool) string {
	name := sql.QuoteName(f.Name)
	if f.Schema != catalog.PublicSchema {
		name = sql.QuoteName(f.Schema) + "." + name
	}
	if !withArgs {
		return name
	}
	args := make([]string, len(f.ArgTypes))
	for i, t := range f.ArgTypes {
		args[i] = t.TypeName()
	}
	return name + "(" + strings.Join(args, ",") + ")"
}

// volatileExpr reports whether e calls a volatile function other than
// the time functions, whose value is fixed for the statement: computing
// it twice may give two values.
func volatileExpr(e Expr) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		c, ok := x.(*Call)
		if !ok || timeDependent[c.Fn] {
			return
		}
		for _, o := range Overloads(c.Fn) {
			if o.Volatile {
				found = true
			}
		}
	})
	return found
}

// Calls holds the user function calls inlined in the row expressions
// (CHECK constraints, generated columns, index keys and predicates)
// bound under a context WithCalls made, so that their text shows the
// calls, as PostgreSQL's stored expressions keep them, not the bodies.
type Calls struct {
	m map[Expr]inlinedCall
}

type callsKey struct{}

// WithCalls returns ctx under which the row expressions bound record
// their inlined calls in the Calls returned.
func WithCalls(ctx context.Context) (context.Context, *Calls) {
	c := &Calls{m: map[Expr]inlinedCall{}}
	return context.WithValue(ctx, callsKey{}, c), c
}

// callsOf returns the fnUses of a binder under ctx: those of the Calls
// WithCalls put in it, or nil.
func callsOf(ctx context.Context) *funcUses {
	if ctx == nil {
		return nil
	}
	c, ok := ctx.Value(callsKey{}).(*Calls)
	if !ok {
		return nil
	}
	return &funcUses{funcs: map[uint32]*catalog.Function{}, direct: map[uint32]bool{}, inlined: c.m}
}

// RowExprText is the package's RowExprText printing the calls c holds
// as calls (c may be nil).
func (c *Calls) RowExprText(rel *catalog.Relation, e Expr, pretty bool) string {
	return rowExprText(rel, e, pretty, c.calls())
}

// IndexExprText is the package's IndexExprText printing the calls c
// holds as calls (c may be nil).
func (c *Calls) IndexExprText(rel *catalog.Relation, e Expr, pretty bool) string {
	return indexExprText(rel, e, pretty, c.calls())
}

func (c *Calls) calls() map[Expr]inlinedCall {
	if c == nil {
		return nil
	}
	return c.m
}

// userNamedCall binds call n in named or mixed notation (f(b => 1,
// a => 10), f(10, b => 1)) of a user function, as PostgreSQL does: the
// positional arguments take the first parameters, each named one the
// parameter of its name, and every parameter must be given. It returns
// false when no user function has n's name and a built-in has named
// parameters (to bind as before); a call no user function fits is
// 42883, naming the arguments as written.
func (b *binder) userNamedCall(c *exprCtx, n *ast.FuncCallExpr) (Expr, bool) {
	fc, ok := unpinned(b.cat).(FuncCatalog)
	if !ok || n.Schema.O == "pg_catalog" {
		return nil, false
	}
	schema, name := n.Schema.O, n.FnName.O
	fns := fc.Functions(schema, name)
	if len(fns) == 0 {
		return nil, false
	}
	pos, names, vals, an, labels := b.callArgs(c, n.Args)
	type fit struct {
		f     *catalog.Function
		slots []Expr
		order []int
	}
	var fits []fit
	var cands []*Overload
	byOverload := map[*Overload]int{}
next:
	for _, f := range fns {
		if len(n.Args) != len(f.ArgTypes) {
			continue
		}
		slots := make([]Expr, len(f.ArgTypes))
		order := make([]int, 0, len(n.Args))
		copy(slots, pos)
		for i := range pos {
			order = append(order, i)
		}
		for k, nm := range names {
			i := slices.Index(f.ArgNames, nm)
			if i < 0 || slots[i] != nil {
				continue next
			}
			slots[i] = vals[k]
			order = append(order, i)
		}
		o := &Overload{Name: f.Name, Ret: f.Ret.ID, Kind: Scalar}
		for _, t := range f.ArgTypes {
			o.Args = append(o.Args, t.ID)
		}
		san := make([]argNode, len(slots))
		for i, a := range slots {
			san[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
		}
		if m, _ := resolveOverload([]*Overload{o}, san); m == nil {
			continue
		}
		byOverload[o] = len(fits)
		fits = append(fits, fit{f: f, slots: slots, order: order})
		cands = append(cands, o)
	}
	shown := name
	if schema != "" {
		shown = schema + "." + name
	}
	if len(fits) == 0 {
		if schema == "" && functions.NamedParams(strings.ToLower(name)) != nil {
			return nil, false
		}
		fail(b.noSuchNamedFunc(shown, an, labels, b.pos(n)))
	}
	if len(fits) > 1 {
		parts := make([]string, len(an))
		for i, a := range an {
			parts[i] = a.t.String()
			if labels[i] != "" {
				parts[i] = labels[i] + " => " + parts[i]
			}
		}
		fail(pgerr.New(pgerr.AmbiguousFunction, "function %s(%s) is not unique", shown, strings.Join(parts, ", ")).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.").WithPosition(b.pos(n)))
	}
	ft := fits[0]
	b.checkExecute(ft.f)
	out := b.inline(ft.f, ft.slots, n)
	u := b.uses()
	call := u.inlined[out]
	call.order, call.labels = ft.order, make([]string, len(ft.order))
	for k, i := range ft.order {
		if k >= len(pos) {
			call.labels[k] = ft.f.ArgNames[i]
		}
	}
	u.inlined[out] = call
	return out, true
}
