package planner

import (
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

// toRegArg is the name a to_reg* call n reads: the text literal it was
// given (ok), or for a NULL argument the call's NULL result (res). A
// text that is not a constant is refused with 0A000; any other argument
// leaves both unset, and the call binds as written.
func (b *binder) toRegArg(c *exprCtx, name string, n *ast.FuncCallExpr) (s string, ok bool, res Expr) {
	if s, ok := textLiteral(n.Args[0]); ok {
		return s, true, nil
	}
	a := b.expr(c, n.Args[0])
	if k, isConst := a.(*Const); isConst && k.V.Null {
		return "", false, &Const{V: types.NullDatum, T: types.TOid}
	}
	if id := a.Type().ID; id == types.Text || id == types.Varchar || id == types.Name {
		fail(pgerr.New(pgerr.FeatureNotSupported, "%s of a name that is not a constant is not supported", name).
			WithHint("Pass the name as a literal.").WithPosition(b.pos(n)))
	}
	return "", false, nil
}

// funcCall binds a function call, including the pg_* forms the dialect
// bridge writes for Postgres syntax TiDB lacks (see sql/doc.go).
func (b *binder) funcCall(c *exprCtx, n *ast.FuncCallExpr) Expr {
	name := n.FnName.L
	if _, ok := strings.CutPrefix(n.FnName.O, sql.UserCallPrefix); ok {
		return b.userNamedLikeInternal(c, n)
	}
	if k := len(n.Args); k > 0 && !srfFuncs[name] {
		if f, ok := n.Args[k-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_order_by" {
			if _, agg := b.isAggregate(n); !agg {
				// f(args ORDER BY k) of a function that is no aggregate:
				// PostgreSQL resolves f(args) first, then refuses.
				call := *n
				call.Args = n.Args[:k-1]
				b.funcCall(c, &call)
				shown := strings.TrimPrefix(name, "pg_")
				if name != "pg_concat" && name != "pg_cardinality" {
					shown = name
				}
				fail(pgerr.New(pgerr.WrongObjectType, "ORDER BY specified, but %s is not an aggregate function", shown).WithPosition(b.pos(n)))
			}
		}
		if f, ok := n.Args[k-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_distinct" && len(f.Args) == 0 && !strings.HasPrefix(name, "pg_") {
			if _, agg := b.isAggregate(n); !agg {
				// f(DISTINCT args) of a function that is no aggregate (a
				// user function's): resolved first, then refused.
				call := *n
				call.Args = n.Args[:k-1]
				b.funcCall(c, &call)
				fail(pgerr.New(pgerr.WrongObjectType, "DISTINCT specified, but %s is not an aggregate function", name).WithPosition(b.pos(n)))
			}
		}
	}
	if label, x, ok := variadicArg(n.Args); ok {
		return b.variadicCall(c, n, name, label, x)
	}
	if srfFuncs[name] {
		if hasNamedArgs(n.Args) && name != "jsonb_path_query" && name != "jsonb_path_query_tz" {
			// jsonb_path_query's (and _tz's) defaults are filled in by srfArgs.
			call := *n
			call.Args = b.positionalArgs(c, name, n.Args, b.pos(n))
			n = &call
		}
		return b.srfCall(c, n)
	}
	if hasNamedArgs(n.Args) {
		if e, ok := b.userNamedCall(c, n); ok {
			return e
		}
	}
	if needsParams(name, n.Args) {
		if _, ok := b.isAggregate(n); ok {
			b.noNamedArgs(c, name, n.Args, n)
		}
		return b.paramCall(c, n, name)
	}
	switch name {
	case "current_time":
		// PostgreSQL's CURRENT_TIME is a time with time zone, a type
		// weir has not got; a time without one would print differently.
		fail(pgerr.New(pgerr.FeatureNotSupported, "type time with time zone is not supported yet").WithPosition(b.pos(n)))
	case sql.SortUsingFn:
		if len(n.Args) == 2 {
			b.sortUsing(c, n)
		}
	case "current_timestamp", "localtimestamp", "localtime":
		// CURRENT_TIMESTAMP(p) and kin: the value rounded to p
		// fractional digits, of type timestamptz(p) and so on (gram.y
		// takes an integer constant only).
		if len(n.Args) == 1 {
			return b.sqlValuePrecision(c, name, n)
		}
	case "pg_variadic":
		// VARIADIC x in an aggregate's arguments: x, an ordinary
		// argument, as PostgreSQL takes it for a parameter that is
		// not variadic (count(VARIADIC a)).
		if len(n.Args) == 1 {
			return b.expr(c, n.Args[0])
		}
	case "pg_cast":
		return b.pgCast(c, n)
	case "pg_collate":
		// x COLLATE name (sql doc.go #12): x itself, marked with its
		// explicit collation (collation.go).
		coll := castTypeText(n)
		x := b.expr(c, n.Args[0])
		if x.Type().ID == types.Unknown {
			x = b.coerce(x, types.TText, ctxImplicit, "COLLATE")
		}
		if !collatable(x.Type()) {
			fail(pgerr.New(pgerr.DatatypeMismatch, "collations are not supported by type %s", types.T{ID: x.Type().ID, Mod: -1}).WithPosition(b.pos(n)))
		}
		return &Call{Fn: functions.CollateFn, Args: []Expr{x, &Const{V: types.DString(coll), T: types.TText}, &Const{V: types.DInt(int64(b.pos(n))), T: types.TInt4}}, T: x.Type()}
	case "pg_extract":
		if len(n.Args) != 2 {
			failf(pgerr.SyntaxError, "syntax error in EXTRACT")
		}
		field := b.expr(c, n.Args[0])
		return b.call("pg_extract", []Expr{field, b.expr(c, n.Args[1])}, n, false, Scalar)
	case "pg_nulls_first", "pg_nulls_last":
		fail(pgerr.New(pgerr.SyntaxError, "syntax error at or near \"NULLS\"").WithPosition(b.pos(n)))
	case "pg_icase":
		failf(pgerr.SyntaxError, "syntax error in regular expression match")
	case "concat": // the || operator
		args := b.regTexts(c, n.Args, 0)
		e := args[0]
		for _, a := range args[1:] {
			e = b.op("||", []Expr{e, a}, n)
		}
		return e
	case "pg_concat":
		return b.call("pg_concat", b.regTexts(c, n.Args, 0), n, false, Scalar)
	case "format", "concat_ws":
		// Their arguments after the first print in their output form.
		if len(n.Args) > 1 && !hasNamedArgs(n.Args) {
			return b.call(name, b.regTexts(c, n.Args, 1), n, false, Scalar)
		}
	case "pg_op":
		// ^, @, |/ and ||/ (sql doc.go #23, #31): the operator's function,
		// labelled and printed as the operator.
		if len(n.Args) == 2 || len(n.Args) == 3 {
			if l, ok := n.Args[0].(*sql.Literal); ok {
				if sym, ok := l.Value.(string); ok {
					return b.opCall(sym, b.exprs(c, n.Args[1:]), n)
				}
			}
		}
	case "pg_cardinality":
		return b.call("cardinality", b.exprs(c, n.Args), n, false, Scalar)
	case "position":
		// POSITION(sub IN str) arrives as position(sub, str) (the only form
		// either grammar accepts); the function is position(str, sub).
		if len(n.Args) == 2 {
			return b.call("position", b.exprs(c, []ast.ExprNode{n.Args[1], n.Args[0]}), n, false, Scalar)
		}
	case "pg_json_get", "pg_json_get_text", "pg_json_path", "pg_json_path_text", "pg_json_contains", "pg_json_contained", "pg_array_overlap",
		"pg_json_exists", "pg_json_exists_any", "pg_json_exists_all", "pg_json_delete_path", "pg_starts_with",
		"pg_jsonpath_exists", "pg_jsonpath_match":
		sym := bridgeOperators[name]
		if len(n.Args) != 2 {
			failf(pgerr.SyntaxError, "syntax error at or near \"%s\"", sym)
		}
		// The registry keeps jsonb operators under the bridge's names.
		return b.call(name, b.exprs(c, n.Args), n, false, Scalar)
	case "pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size":
		// These take a regclass, which a text literal becomes implicitly:
		// pg_relation_size('t') names the relation t.
		if len(n.Args) >= 1 {
			if l, ok := unparen(n.Args[0]).(*sql.Literal); ok {
				if s, ok := l.Value.(string); ok {
					oid := &Const{V: types.DInt(int64(b.relationOID(s, n.Args[0]))), T: types.TOid}
					return b.call(name, append([]Expr{oid}, b.exprs(c, n.Args[1:])...), n, false, Scalar)
				}
			}
		}
	case "pg_get_viewdef":
		// pg_get_viewdef(text [, pretty]): an unknown literal takes the
		// text form, whose name is resolved as regclassin resolves it
		// when the call runs; PostgreSQL's error then has no position.
		if len(n.Args) >= 1 {
			if s, ok := textLiteral(n.Args[0]); ok {
				oid, ok := b.quietOID(func() uint32 { return b.relationOID(s, n.Args[0]) })
				if !ok {
					failf(pgerr.UndefinedTable, "relation \"%s\" does not exist", s)
				}
				k := &Const{V: types.DInt(int64(oid)), T: types.TOid}
				return b.call(name, append([]Expr{k}, b.exprs(c, n.Args[1:])...), n, false, Scalar)
			}
			if a := b.expr(c, n.Args[0]); a.Type().ID == types.Text || a.Type().ID == types.Varchar {
				fail(pgerr.New(pgerr.FeatureNotSupported, "pg_get_viewdef of a relation name that is not a constant is not supported").
					WithHint("Pass the name as a literal, or the view's OID.").WithPosition(b.pos(n)))
			}
		}
	case "pg_typeof":
		// A value of a domain is of the domain's type, and enum_range's
		// of its enum's array type, as pg_typeof names them.
		if len(n.Args) == 1 {
			a := b.expr(c, n.Args[0])
			if reg := regTypeOf(n.Args[0]); reg != "" && a.Type().ID == types.Oid {
				// weir's reg* values are OIDs of the reg* type the
				// cast or to_reg* function gives.
				return &Const{V: types.DString(reg), T: types.TText}
			}
			if k, ok := a.(*Cast); ok && k.Domain != nil {
				return &Const{V: types.DString(k.Domain.TypeName()), T: types.TText}
			}
			if name, ok := b.columnDomain(c, n.Args[0], a); ok {
				return &Const{V: types.DString(name), T: types.TText}
			}
			if name, ok := b.subscriptDomain(c, n.Args[0], a); ok {
				return &Const{V: types.DString(name), T: types.TText}
			}
			if et, ok := b.enumArrays[a]; ok {
				return &Const{V: types.DString(et.String() + "[]"), T: types.TText}
			}
			return b.call(name, []Expr{a}, n, false, Scalar)
		}
	case "to_regproc", "to_regprocedure", "to_regnamespace", "to_regrole":
		if len(n.Args) != 1 {
			break
		}
		s, ok, res := b.toRegArg(c, name, n)
		if res != nil {
			return res
		}
		if !ok {
			break
		}
		resolve := map[string]func(string) (uint32, bool){"to_regproc": b.toRegproc, "to_regprocedure": b.toRegprocedure,
			"to_regnamespace": b.toRegnamespace, "to_regrole": b.toRegrole}[name]
		if oid, ok := resolve(s); ok {
			return &Const{V: types.DInt(int64(oid)), T: types.TOid}
		}
		return &Const{V: types.NullDatum, T: types.TOid}
	case "to_regclass", "to_regtype":
		// to_regclass(text) and its kin: the OID the name resolves to,
		// NULL when it names nothing (or is ambiguous), as the reg*
		// input functions read it.
		if len(n.Args) != 1 {
			break
		}
		s, ok, res := b.toRegArg(c, name, n)
		if res != nil {
			return res
		}
		if !ok {
			break
		}
		resolve := func() uint32 { return b.relationOID(s, n.Args[0]) }
		if names, ok := regNameList(s); ok && name == "to_regclass" {
			// Not quiet in PostgreSQL either, and with no position.
			if err := b.crossDatabase(names); err != nil {
				fail(err)
			}
		}
		if name == "to_regtype" {
			resolve = func() uint32 { return b.typeOID(s, n.Args[0]) }
		}
		if _, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32); err != nil {
			// A number, which the reg* input functions read as the OID
			// itself, names no relation or type here.
			if oid, ok := b.quietOID(resolve); ok {
				return &Const{V: types.DInt(int64(oid)), T: types.TOid}
			}
		}
		return &Const{V: types.NullDatum, T: types.TOid}
	case "nextval", "currval", "setval":
		// Postgres's sequence functions take a regclass, which a text
		// literal becomes implicitly. weir keeps the sequence by name
		// (a serial column's sequence has no OID): 'name'::regclass is
		// the text 'name', printed back as the regclass (deparse).
		if len(n.Args) >= 1 {
			if seq, ok := regclassLiteral(n.Args[0]); ok {
				args := append([]Expr{&Const{V: types.DString(seq), T: types.TText}}, b.exprs(c, n.Args[1:])...)
				return b.call(name, args, n, false, Scalar)
			}
			// $1::regclass and other casts to regclass: the name is
			// resolved when the call runs, as serial sequences have no
			// OID for a regclass to hold.
			if a, ok := unparen(n.Args[0]).(*ast.FuncCallExpr); ok && a.FnName.L == "pg_cast" && len(a.Args) == 2 &&
				lenientTypeName(castTypeText(a)) == "regclass" {
				args := append([]ast.ExprNode{a.Args[0]}, n.Args[1:]...)
				n = &ast.FuncCallExpr{Tp: n.Tp, Schema: n.Schema, FnName: n.FnName, Args: args}
				n.SetOriginTextPosition(a.OriginTextPosition())
			}
		}
	case "coalesce":
		if c.srf != nil {
			cc := *c
			cc.srf, cc.srfBan = nil, "COALESCE"
			c = &cc
		}
		if len(n.Args) == 0 {
			failf(pgerr.SyntaxError, "syntax error at or near \")\"")
		}
		args, t := b.unify("COALESCE", b.exprs(c, n.Args), n)
		return &Coalesce{Args: args, T: t}
	case "nullif":
		if len(n.Args) != 2 {
			fail(b.noSuchFunc("nullif", nil, false, n))
		}
		eq := b.op("=", b.exprs(c, n.Args), n).(*Call)
		a := eq.Args[0]
		out := &Case{Whens: []When{{Cond: eq, Then: &Const{V: types.NullDatum, T: a.Type()}}}, Else: a, T: a.Type()}
		if b.written != nil {
			b.written[out] = "nullif"
		}
		return out
	case "greatest", "least":
		args, t := b.unify(strings.ToUpper(name), b.exprs(c, n.Args), n)
		return &Call{Fn: name, Args: args, T: t}
	case "pg_at_time_zone":
		// x AT TIME ZONE z (sql doc.go #21) is Postgres's timezone(z, x).
		if len(n.Args) == 2 {
			args := b.exprs(c, n.Args)
			zx := []Expr{args[1], args[0]}
			an := make([]argNode, 2)
			for i, a := range zx {
				an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
			}
			if o, _ := resolveOverload(Overloads("timezone"), an); o == nil {
				// PostgreSQL names the function it looked for, at AT
				// (the bridge's comma stands there).
				fail(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcSig("pg_catalog.timezone", an)).
					WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.callOpPos(n)))
			}
			return b.call("timezone", zx, n, false, Scalar)
		}
	case "pg_array":
		// ARRAY[...]: the elements take their common type (text when
		// all are untyped), and the result is that type's array.
		if len(n.Args) == 0 {
			fail(pgerr.New(pgerr.IndeterminateDatatype, "cannot determine type of empty array").WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].").WithPosition(b.pos(n)))
		}
		args, t := b.unify("ARRAY", b.exprs(c, n.Args), n)
		if t.ID == types.Unknown {
			t = types.TText
		}
		at, ok := types.ArrayOf(t)
		if !ok && t.IsArray() {
			// ARRAY[[1,2],[3,4]] or ARRAY[ARRAY[1,2]].
			failf(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
		}
		if !ok {
			failf(pgerr.FeatureNotSupported, "arrays of type %s are not supported", t)
		}
		for i, a := range args {
			args[i] = b.coerce(a, types.T{ID: t.ID, Mod: -1}, ctxAssignment, "array element")
		}
		return &Call{Fn: "array", Args: args, T: at}
	case "pg_array_subquery":
		if len(n.Args) == 1 {
			if sq, ok := unparen(n.Args[0]).(*ast.SubqueryExpr); ok {
				return b.subquery(c, sq, SubArray, nil, "")
			}
		}
		failf(pgerr.SyntaxError, "syntax error in ARRAY(subquery)")
	case "trim":
		// TRIM([LEADING|TRAILING|BOTH] [chars] FROM s) is Postgres's
		// ltrim, rtrim or btrim (s, chars).
		if len(n.Args) == 3 {
			if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
				return b.call(trimFunc(d.Direction), b.exprs(c, n.Args[:2]), n, false, Scalar)
			}
		}
	case "pg_subscript", "pg_slice":
		if e := b.subscriptChain(c, n); e != nil {
			return e
		}
	case "pg_star_call":
		// The bridge's f(*) (sql/doc.go #41): PostgreSQL takes * only
		// for an aggregate, and no aggregate but count has no
		// arguments.
		if len(n.Args) == 1 {
			if l, ok := n.Args[0].(*sql.Literal); ok {
				if name, ok := l.Value.(string); ok {
					short := name[strings.LastIndexByte(name, '.')+1:]
					for _, o := range Overloads(short) {
						if o.Kind == Scalar && len(o.Args) == 0 {
							fail(pgerr.New(pgerr.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name).WithPosition(b.pos(n)))
						}
					}
					fail(pgerr.New(pgerr.UndefinedFunction, "function %s() does not exist", name).
						WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.pos(n)))
				}
			}
		}
	case "pg_field":
		// The bridge's (expr).field (sql/doc.go #42): a field of a row
		// constructor (f1, f2, ...); no other value has fields.
		if len(n.Args) == 2 {
			if l, ok := n.Args[1].(*sql.Literal); ok {
				if field, ok := l.Value.(string); ok {
					return b.fieldSelect(c, n.Args[0], field)
				}
			}
		}
	case "pg_row1":
		// The bridge's ROW(x) and ROW() (sql/doc.go #39).
		return b.rowValue(b.rowExprs(c, n.Args))
	case "pg_any", "pg_all":
		// The bridge's x op ANY|ALL (array) (sql/doc.go #13).
		if len(n.Args) == 3 {
			if l, ok := n.Args[1].(*sql.Literal); ok {
				if op, ok := l.Value.(string); ok {
					return b.quantifiedArray(c, n, name == "pg_all", op)
				}
			}
		}
	case "pg_any_eq":
		if len(n.Args) == 2 {
			x := b.expr(c, n.Args[0])
			// The comma before the array stands for the = (sql/rewrite.go).
			opAt := b.tokenBefore(n.Args[1], 1)
			switch arr := unparen(n.Args[1]).(type) {
			case *ast.FuncCallExpr:
				if arr.FnName.L == "pg_array" {
					return b.inList(x, b.exprs(c, arr.Args), false, opAt)
				}
				if arr.FnName.L == "pg_array_subquery" && len(arr.Args) == 1 {
					if sq, ok := unparen(arr.Args[0]).(*ast.SubqueryExpr); ok {
						return b.subquery(c, sq, SubAny, x, "=", opAt)
					}
				}
			}
			// Over text[] (the catalog's arrays of any element type), x's
			// text form is compared with the elements, as Postgres does
			// after coercing the elements to x's type (exact for text, oid
			// and integers). Over other arrays x takes the element type.
			a := b.expr(c, n.Args[1])
			if at := b.typeOf(a); !at.IsArray() && !b.isUnknown(a) {
				fail(pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(b.pos(opAt)))
			}
			if at := b.typeOf(a); at.ID == types.TextArray && !b.isUnknown(x) && b.typeOf(x).ID != types.Text {
				if cx := b.tryCoerce(x, types.TText, ctxExplicit); cx != nil {
					x = cx
				}
			} else if at.IsArray() {
				if cx := b.tryCoerce(x, at.Elem(), ctxImplicit); cx != nil {
					x = cx
				}
			}
			return b.call("pg_any_eq", []Expr{x, a}, n, false, Scalar)
		}
	}
	if _, ok := b.isAggregate(n); ok {
		fail(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", c.clauseName()).WithPosition(b.pos(n)))
	}
	args := b.exprs(c, n.Args)
	if e, ok := b.userCall(n, args); ok {
		return e
	}
	if e, ok := b.enumFunc(name, args, n); ok {
		return e
	}
	return b.call(name, args, n, false, Scalar)
}

// userNamedLikeInternal binds call n the user wrote of a name the bridge
// keeps for its own calls (sql.UserCallPrefix): a user function's, else
// 42883 as for any function that does not exist.
func (b *binder) userNamedLikeInternal(c *exprCtx, n *ast.FuncCallExpr) Expr {
	call := *n
	call.FnName = ast.NewCIStr(strings.TrimPrefix(n.FnName.O, sql.UserCallPrefix))
	args := b.exprs(c, call.Args)
	if call.Schema.L != "pg_catalog" {
		if e, ok := b.userCall(&call, args); ok {
			return e
		}
	}
	an := make([]argNode, len(args))
	for i, a := range args {
		an[i] = argNode{t: b.typeOf(a), unknown: b.isUnknown(a)}
	}
	shown := call.FnName.O
	if call.Schema.O != "" {
		shown = call.Schema.O + "." + shown
	}
	fail(pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcSig(shown, an)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.").WithPosition(b.pos(n)))
	return nil
}

// lookupType parses a type name as written in a cast. A cast to an array
// of an element type weir has no array type for (regclass[] and the like
// in psql's catalog queries) yields text[], whose elements print as
// Postgres prints the element type's values.
func (b *binder) lookupType(text string, node ast.Node) types.T {
	tn, err := parseType(text)
	if err != nil && pgerr.CodeOf(err) == pgerr.FeatureNotSupported {
		if elem, ok := strings.CutSuffix(strings.TrimSpace(text), "[]"); ok {
			if _, eerr := parseType(elem); eerr == nil {
				return types.TTextArray
			}
		}
	}
	if err != nil && pgerr.CodeOf(err) == pgerr.UndefinedObject {
		if u, ok := b.userType(text); ok {
			return u.T
		}
		// A type of a schema that does not exist: PostgreSQL names the
		// schema.
		if un, perr := sql.ParseUserTypeName(text); perr == nil && un.User != nil && un.User.Schema != "" && un.User.Schema != "pg_catalog" {
			if nc, ok := unpinned(b.cat).(NameCatalog); ok {
				if _, ok := nc.NamespaceOID(un.User.Schema); !ok {
					fail(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", un.User.Schema).WithPosition(b.pos(node)))
				}
			}
		}
	}
	if err != nil {
		fail(pgerr.As(err).WithPosition(b.pos(node)))
	}
	return tn.T
}

// userType finds the user type (enum or domain) a type name written in
// a cast names. For an array of an enum (mood[]) it is the enum with T
// and OID those of its array type; arrays of domains are 0A000.
func (b *binder) userType(text string) (*catalog.UserType, bool) {
	u, _, ok := b.userTypeArray(text)
	return u, ok
}

// userTypeArray is userType, and whether the name is an array of the
// type; a domain's array has the domain's OID, and T the base type's
// array.
func (b *binder) userTypeArray(text string) (*catalog.UserType, bool, bool) {
	tc, ok := b.cat.(TypeCatalog)
	if !ok {
		return nil, false, false
	}
	tn, err := sql.ParseUserTypeName(text)
	if err != nil || tn.User == nil {
		return nil, false, false
	}
	u, ok := tc.UserType(tn.User.Schema, tn.User.Name)
	if ok && tn.UserArray {
		at, isArr := types.ArrayOf(u.T)
		if u.ArrayOID == 0 || !isArr {
			fail(pgerr.As(sql.UserArrayUnsupported(u.Name)))
		}
		arr := *u
		arr.T = at
		if u.Kind == 'e' {
			arr.OID = u.ArrayOID
		} else {
			arr.T.Mod = u.T.Mod
		}
		return &arr, true, true
	}
	return u, false, ok
}

// castTypeText returns the type text of pg_cast's second argument.
func castTypeText(n *ast.FuncCallExpr) string {
	if len(n.Args) != 2 {
		failf(pgerr.SyntaxError, "syntax error in cast")
	}
	l, ok := n.Args[1].(*sql.Literal)
	if !ok {
		failf(pgerr.SyntaxError, "syntax error in cast")
	}
	s, ok := l.Value.(string)
	if !ok {
		failf(pgerr.SyntaxError, "syntax error in cast")
	}
	return s
}

// textLiteral returns s when n is the string literal 's'.
func textLiteral(n ast.ExprNode) (string, bool) {
	l, ok := unparen(n).(*sql.Literal)
	if !ok {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

// quietOID runs resolve, one of the binder's name resolvers, and
// reports false instead of the error it raises for a name that names
// nothing.
func (b *binder) quietOID(resolve func() uint32) (oid uint32, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isErr := r.(*pgerr.Error); !isErr {
				panic(r)
			}
			oid, ok = 0, false
		}
	}()
	return resolve(), true
}

// regclassLiteral returns s when n is the literal cast 's'::regclass.
func regclassLiteral(n ast.ExprNode) (string, bool) {
	fc, ok := unparen(n).(*ast.FuncCallExpr)
	if !ok || fc.FnName.L != "pg_cast" || len(fc.Args) != 2 || lenientTypeName(castTypeText(fc)) != "regclass" {
		return "", false
	}
	l, ok := unparen(fc.Args[0]).(*sql.Literal)
	if !ok {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

// columnDomain is the name of the domain of the table column that n,
// bound to a, names, as pg_typeof prints it (posint, or posint[] for an
// array of the domain); false when n is no such column.
func (b *binder) columnDomain(c *exprCtx, n ast.ExprNode, a Expr) (string, bool) {
	name, arr, ok := b.columnDomainOf(c, n, a)
	if arr {
		name += "[]"
	}
	return name, ok
}

// subscriptDomain is the type pg_typeof names for n, bound to a, when n
// subscripts a table column that is an array of a domain: the domain for
// an element (b[1]), its array for a slice (b[1:2]); false otherwise.
func (b *binder) subscriptDomain(c *exprCtx, n ast.ExprNode, a Expr) (string, bool) {
	fc, ok := unparen(n).(*ast.FuncCallExpr)
	call, isCall := a.(*Call)
	if !ok || !isCall || len(fc.Args) == 0 || len(call.Args) == 0 || fc.FnName.L != call.Fn ||
		(call.Fn != "pg_subscript" && call.Fn != "pg_slice") {
		return "", false
	}
	name, arr, ok := b.columnDomainOf(c, fc.Args[0], call.Args[0])
	if !ok || !arr {
		return "", false
	}
	if call.Fn == "pg_slice" {
		name += "[]"
	}
	return name, true
}

// columnDomainOf is columnDomain's domain name, and whether the column
// is an array of the domain.
func (b *binder) columnDomainOf(c *exprCtx, n ast.ExprNode, a Expr) (string, bool, bool) {
	if fc, ok := unparen(n).(*ast.FuncCallExpr); ok && fc.FnName.L == "pg_cast" && len(fc.Args) == 2 {
		// A cast bound to the column itself (b::posint of a column of
		// posint) is the column's.
		return b.columnDomainOf(c, fc.Args[0], a)
	}
	cn, ok := unparen(n).(*ast.ColumnNameExpr)
	dc, isDC := b.cat.(DomainCatalog)
	if !ok || !isDC || c == nil {
		return "", false, false
	}
	switch a.(type) {
	case *ColRef, *OuterRef:
	default:
		return "", false, false
	}
	// The column a was bound to: the first scope out from here with a
	// column of that name, as resolveColumn finds it.
	tbl, name := cn.Name.Table.O, cn.Name.Name.O
	for cur := c.s; cur != nil; cur = cur.parent {
		for _, col := range cur.cols {
			if col.name != name || tbl != "" && col.table != tbl || tbl == "" && col.merged {
				continue
			}
			if col.domain == 0 || col.t != a.Type() {
				return "", false, false
			}
			_, dn, ok := dc.DomainByOID(col.domain)
			return dn, col.domainArray, ok
		}
	}
	return "", false, false
}

// regTypeOf is the reg* type ("regclass") of n when n is a cast to one
// or a to_reg* call, "" otherwise.
func regTypeOf(n ast.ExprNode) string {
	fc, ok := unparen(n).(*ast.FuncCallExpr)
	if !ok {
		return ""
	}
	switch fc.FnName.L {
	case "pg_cast":
		if len(fc.Args) == 2 {
			return lenientTypeName(castTypeText(fc))
		}
	case "to_regclass", "to_regtype", "to_regproc", "to_regprocedure", "to_regnamespace", "to_regrole":
		if len(fc.Args) == 1 {
			return strings.TrimPrefix(fc.FnName.L, "to_")
		}
	}
	return ""
}

// lenientTypeName reports casts to types weir lacks that psql's catalog
// queries use, normalised ("regclass").
func lenientTypeName(text string) string {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimPrefix(t, "pg_catalog.")
	switch t {
	case "regclass", "regtype", "regproc", "regprocedure", "regnamespace", "regrole", "regoper", "regconfig":
		return t
	}
	return ""
}

// pgCast binds pg_cast(x, 'type'), an explicit Postgres cast.
func (b *binder) pgCast(c *exprCtx, n *ast.FuncCallExpr) Expr {
	text := castTypeText(n)
	if reg := lenientTypeName(text); reg != "" {
		x := b.expr(c, n.Args[0])
		if k, ok := x.(*Const); ok && (k.T.ID == types.Unknown || k.T.IsString()) && !k.V.Null {
			switch reg {
			case "regclass":
				return &Const{V: types.DInt(int64(b.relationOID(k.V.S, n))), T: types.TOid}
			case "regproc", "regprocedure":
				return &Const{V: types.DInt(int64(b.procOID(k.V.S, reg == "regprocedure", n))), T: types.TOid}
			case "regtype":
				return &Const{V: types.DInt(int64(b.typeOID(k.V.S, n))), T: types.TOid}
			case "regnamespace", "regrole":
				// A number is the OID itself, as the input functions
				// read it.
				if oid, err := strconv.ParseUint(strings.TrimSpace(k.V.S), 10, 32); err == nil {
					return &Const{V: types.DInt(int64(oid)), T: types.TOid}
				}
				if reg == "regnamespace" {
					oid, ok := b.toRegnamespace(k.V.S)
					if !ok {
						fail(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", k.V.S).WithPosition(b.pos(n)))
					}
					return &Const{V: types.DInt(int64(oid)), T: types.TOid}
				}
				oid, ok := b.toRegrole(k.V.S)
				if !ok {
					fail(pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", k.V.S).WithPosition(b.pos(n)))
				}
				return &Const{V: types.DInt(int64(oid)), T: types.TOid}
			}
		}
		if t := b.typeOf(x); t.IsString() && reg != "regconfig" {
			// A name computed at run time: read as the input
			// function reads it then.
			return b.call("pg_regin", []Expr{b.explicitCast(x, types.TText, n), &Const{V: types.DString(reg), T: types.TText}}, n, false, Scalar)
		}
		return b.explicitCast(x, types.TOid, n)
	}
	// Errors about the type point at its name, as PostgreSQL's do (the
	// bridge places the type's literal there).
	t := b.lookupType(text, n.Args[1])
	// ARRAY[]::t[] is an empty array of the cast's type.
	if a, ok := unparen(n.Args[0]).(*ast.FuncCallExpr); ok && a.FnName.L == "pg_array" && len(a.Args) == 0 && t.IsArray() {
		return &Call{Fn: "array", T: t}
	}
	// 'name'::regclass::text is the relation's name.
	if inner, ok := unparen(n.Args[0]).(*ast.FuncCallExpr); ok && inner.FnName.L == "pg_cast" &&
		lenientTypeName(castTypeText(inner)) == "regclass" && t.IsString() {
		if l, ok := unparen(inner.Args[0]).(*sql.Literal); ok {
			if s, ok := l.Value.(string); ok {
				b.relationOID(s, inner)
				name := s
				if i := strings.LastIndexByte(s, '.'); i >= 0 {
					name = s[i+1:]
				}
				return &Const{V: types.DString(strings.Trim(name, "\"")), T: t}
			}
		}
	}
	x := b.regText(c, n.Args[0], t.IsString())
	u, arr, isUser := b.userTypeArray(text)
	toDomain := isUser && u.Kind == 'd'
	if toDomain && b.ofDomain(c, n.Args[0], x, u.OID, arr) {
		// A value of the domain already: PostgreSQL's cast is no node.
		return x
	}
	cast := b.explicitCast(x, t, n)
	if cast == x && !toDomain && b.ofDomain(c, n.Args[0], x, 0, false) {
		// x::integer of a value of a domain over integer: no conversion,
		// but PostgreSQL keeps the cast (a RelabelType), which a view's
		// definition prints.
		cast = &Cast{Arg: x, T: t}
	}
	x = cast
	if toDomain {
		if arr {
			pos := 0
			if l, ok := unparen(n.Args[0]).(*sql.Literal); ok {
				if _, isStr := l.Value.(string); isStr {
					pos = b.pos(n.Args[0])
				}
			}
			return b.toArrayDomain(x, u.OID, false, pos)
		}
		return b.toDomain(x, u.OID, false)
	}
	return x
}

// ofDomain reports whether x, bound from n, is a value of a domain: of
// domain oid (as an array of it when arr), or of any domain when oid is
// 0. It is one when it is cast to the domain or names a table column of
// the domain.
func (b *binder) ofDomain(c *exprCtx, n ast.ExprNode, x Expr, oid uint32, arr bool) bool {
	if k, ok := x.(*Cast); ok && k.Domain != nil {
		return oid == 0 || k.Domain.OID == oid && k.Domain.Array == arr
	}
	name, colArr, ok := b.columnDomainOf(c, n, x)
	if !ok {
		return false
	}
	if oid == 0 {
		return true
	}
	dc, _ := b.cat.(DomainCatalog)
	_, dn, ok := dc.DomainByOID(oid)
	return ok && colArr == arr && dn == name
}

// explicitCast converts x to t as CAST / :: do.
func (b *binder) explicitCast(x Expr, t types.T, node ast.Node) Expr {
	if b.isUnknown(x) {
		return b.tryCoerce(x, t, ctxExplicit)
	}
	from := b.typeOf(x)
	if from == t {
		return x
	}
	if r, ok := x.(*Call); ok && r.Fn == "pg_row" && t.IsString() {
		// A record as text is its output form, which pg_row computes.
		row := &Call{Fn: "pg_row", Args: r.Args, T: types.TText}
		if t.ID == types.Text {
			return row
		}
		return &Cast{Arg: row, T: t}
	}
	if castKind(from.ID, t.ID) == ctxNone && t.ID != from.ID {
		fail(pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, t).WithPosition(b.pos(node)))
	}
	return &Cast{Arg: x, T: t}
}

// catalogOIDs are PostgreSQL's fixed OIDs of the system catalogs that
// catalog queries name as regclass literals ('pg_catalog.pg_class'::
// regclass in psql's \d of a sequence, pg_extension in \dx). They are the
// tableoid of engine/syscat's tables.
var catalogOIDs = map[string]uint32{
	"pg_class": 1259, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255,
	"pg_namespace": 2615, "pg_constraint": 2606, "pg_index": 2610,
	"pg_database": 1262, "pg_authid": 1260, "pg_tablespace": 1213, "pg_description": 2609,
	"pg_extension": 3079, "pg_language": 2612, "pg_operator": 2617, "pg_cast": 2605,
	"pg_largeobject_metadata": 2995, "pg_foreign_server": 1417, "pg_foreign_data_wrapper": 2328,
	"pg_foreign_table": 3118, "pg_collation": 3456, "pg_am": 2601, "pg_conversion": 2607,
	"pg_event_trigger": 3466, "pg_opclass": 2616, "pg_opfamily": 2753, "pg_rewrite": 2618,
	"pg_trigger": 2620, "pg_policy": 3256, "pg_sequence": 2224, "pg_attrdef": 2604,
}

// regclassOut makes a select item that is a cast to regclass (bound to
// the OID, e) print as Postgres prints a regclass: the relation's name,
// schema-qualified when it is not visible (regclassout). Elsewhere (WHERE
// oid = 't'::regclass, ::oid) the cast stays the OID.
func (b *binder) regclassOut(n ast.ExprNode, e Expr) Expr {
	fc, ok := unparen(n).(*ast.FuncCallExpr)
	if ok && b.typeOf(e).ID == types.Oid {
		// regproc, regprocedure, regnamespace and regrole constants
		// print as their output functions print them.
		reg := strings.TrimPrefix(fc.FnName.L, "to_")
		if fc.FnName.L == "pg_cast" && len(fc.Args) == 2 {
			reg = lenientTypeName(castTypeText(fc))
		}
		switch reg {
		case "regproc", "regprocedure", "regnamespace", "regrole":
			if k, isConst := e.(*Const); isConst {
				if k.V.Null {
					return &Const{V: types.NullDatum, T: types.TText}
				}
				return &Const{V: types.DString(b.regOutText(reg, uint32(k.V.I))), T: types.TText}
			}
			return b.call("pg_regout", []Expr{e, &Const{V: types.DString(reg), T: types.TText}}, fc, false, Scalar)
		}
	}
	if ok && regTypeOf(fc) == "regtype" && b.typeOf(e).ID == types.Oid {
		// A regtype prints as format_type names the type.
		return b.call("format_type", []Expr{e, &Const{V: types.NullDatum, T: types.TInt4}}, fc, false, Scalar)
	}
	if !ok || (fc.FnName.L != "pg_cast" || len(fc.Args) != 2 || lenientTypeName(castTypeText(fc)) != "regclass") && fc.FnName.L != "to_regclass" {
		return e
	}
	if t := b.typeOf(e); t.ID != types.Oid {
		return e
	}
	// A catalog that gives its system tables OIDs (SystemOIDCatalog)
	// names them in regclassout, qualified where a relation of the
	// session hides them.
	_, sysOIDs := b.cat.(SystemOIDCatalog)
	if k, ok := e.(*Const); ok && !k.V.Null && !sysOIDs {
		// A system catalog's fixed OID: regclassout only knows the
		// catalog's user relations.
		for name, oid := range catalogOIDs {
			if int64(oid) == k.V.I {
				return &Const{V: types.DString(name), T: types.TText}
			}
		}
	}
	return b.call("regclassout", []Expr{e}, fc, false, Scalar)
}

// regText binds n; when asText is set and n is a reg* value (a cast to
// one, a to_reg* call), the value is its output form, the name, as the
// reg* type's conversion to text gives it, not the OID weir holds it as.
func (b *binder) regText(c *exprCtx, n ast.ExprNode, asText bool) Expr {
	e := b.expr(c, n)
	if !asText || regTypeOf(n) == "" {
		return e
	}
	if out := b.regclassOut(n, e); b.typeOf(out).ID == types.Text {
		return out
	}
	return e
}

// regTexts binds ns, those from the from'th on with regText's output
// form of a reg* value: the arguments of a function that prints them.
func (b *binder) regTexts(c *exprCtx, ns []ast.ExprNode, from int) []Expr {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		out[i] = b.regText(c, n, i >= from)
	}
	return out
}

// crossDatabase is PostgreSQL's RangeVarGetRelid error for a relation
// name of three parts, names, whose database is not this one (0A000),
// nil otherwise.
func (b *binder) crossDatabase(names []string) *pgerr.Error {
	if len(names) != 3 {
		return nil
	}
	if dc, ok := unpinned(b.cat).(DatabaseCatalog); ok && names[0] != dc.Database() {
		return pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s\"", strings.Join(names, "."))
	}
	return nil
}

// relationOID resolves a relation name written as a regclass literal.
func (b *binder) relationOID(s string, node ast.Node) uint32 {
	// A number is the OID itself, as regclassin reads it.
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return uint32(n)
	}
	// The name as stringToQualifiedNameList reads it; the errors name it
	// as NameListToString prints the list (no quotes).
	names, ok := regNameList(s)
	if !ok {
		fail(pgerr.New(pgerr.InvalidName, "invalid name syntax").WithPosition(b.pos(node)))
	}
	if len(names) > 3 {
		fail(pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(names, ".")).WithPosition(b.pos(node)))
	}
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	if err := b.crossDatabase(names); err != nil {
		fail(err.WithPosition(b.pos(node)))
	}
	if schema != "" {
		s = schema + "." + name
	} else {
		s = name
	}
	// A regclass literal names a relation without reading it: no access
	// is recorded and no privilege needed, as in PostgreSQL.
	if rel, ok := b.cat.Relation(schema, name); ok {
		return rel.OID
	}
	if oc, ok := b.cat.(OwnedSequenceCatalog); ok {
		if t, col, ok := oc.OwnedSequence(schema, name); ok {
			return catalog.OwnedSeqOID(t, col)
		}
	}
	if t, ok := strings.CutSuffix(name, "_pkey"); ok {
		// A table's primary key index, which pg_class lists.
		if rel, ok := b.cat.Relation(schema, t); ok && rel.HasPrimaryKey() {
			return rel.OID + catalog.PKIndexOIDBase
		}
	}
	if _, _, ok := b.cat.SystemTable(schema, name); ok {
		if sc, ok := b.cat.(SystemOIDCatalog); ok {
			if oid, ok := sc.SystemRelationOID(schema, name); ok {
				return oid
			}
		}
		if oid, ok := catalogOIDs[name]; ok && (schema == "" || schema == "pg_catalog") {
			return oid
		}
		fail(pgerr.New(pgerr.FeatureNotSupported, "regclass of system table \"%s\" is not supported", s).WithPosition(b.pos(node)))
	}
	fail(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", s).WithPosition(b.pos(node)))
	return 0
}

// procOID resolves a 'name'::regproc or 'name(types)'::regprocedure
// literal to the pg_proc OID functions.Procs gives the function (psql's
// \sf): 42883 for no such function, 42725 for a regproc name that has
// more than one overload.
// typeOID resolves 'name'::regtype as PostgreSQL's regtypein does: a
// number is the OID itself; a type name, in SQL's spelling or
// pg_type's (with a modifier, which is ignored), its type's OID; an
// underscore before a type's pg_type name its array type.
func (b *binder) typeOID(s string, node ast.Node) uint32 {
	text := strings.TrimSpace(s)
	if oid, err := strconv.ParseUint(text, 10, 32); err == nil {
		return uint32(oid)
	}
	text = strings.TrimPrefix(text, "pg_catalog.")
	if tn, err := parseType(text); err == nil && tn.T.ID != types.Unknown {
		return tn.T.OID()
	}
	if elem, ok := strings.CutPrefix(text, "_"); ok {
		if tn, err := parseType(elem); err == nil && tn.T.ArrayOID() != 0 {
			return tn.T.ArrayOID()
		}
	}
	if u, ok := b.userType(text); ok {
		return u.OID
	}
	fail(pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", text).WithPosition(b.pos(node)))
	return 0
}

func (b *binder) procOID(s string, withArgs bool, node ast.Node) uint32 {
	if oid, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32); err == nil {
		return uint32(oid) // a number is the OID itself, as in PostgreSQL
	}
	pos := b.pos(node)
	nameText, argTexts := s, []string(nil)
	if withArgs {
		nameText, argTexts = procArgsText(s, pos)
	}
	schema, name := regName(nameText, pos)
	var want []uint32
	for _, a := range argTexts {
		if a == `"any"` {
			want = append(want, 0)
			continue
		}
		want = append(want, b.lookupType(a, node).OID())
	}
	if schema != "" && schema != "pg_catalog" && schema != "public" {
		if nc, ok := unpinned(b.cat).(NameCatalog); ok {
			if _, ok := nc.NamespaceOID(schema); !ok {
				fail(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema).WithPosition(pos))
			}
		}
	}
	var found []uint32
	for _, c := range b.procCandidates(schema, name) {
		if !withArgs || slices.Equal(c.args, want) {
			found = append(found, c.oid)
		}
	}
	switch {
	case len(found) == 0:
		fail(pgerr.New(pgerr.UndefinedFunction, "function \"%s\" does not exist", s).WithPosition(pos))
	case len(found) > 1:
		fail(pgerr.New(pgerr.AmbiguousFunction, "more than one function named \"%s\"", s).WithPosition(pos))
	}
	return found[0]
}

// aggFuncName is the Postgres name of a TiDB aggregate or window function
// name: group_concat is how the bridge writes string_agg.
func aggFuncName(f string) string {
	name := strings.ToLower(f)
	if name == "group_concat" {
		name = "string_agg"
	}
	return name
}

// isAggregate reports whether n is an aggregate call, returning the
// function's name.
func (b *binder) isAggregate(n ast.ExprNode) (string, bool) {
	switch n := n.(type) {
	case *ast.AggregateFuncExpr:
		return aggFuncName(n.F), true
	case *ast.FuncCallExpr:
		for _, o := range Overloads(n.FnName.L) {
			if o.Kind == Aggregate {
				return n.FnName.L, true
			}
		}
	}
	return "", false
}

// aggFinder looks for aggregate or window calls outside subqueries.
type aggFinder struct {
	b     *binder
	found bool
}

func (v *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.WindowFuncExpr:
		v.found = true
		return n, true
	case *ast.FuncCallExpr:
		// GROUPING(...) is bound above the aggregation, as aggregates are.
		if n.FnName.L == "grouping" {
			v.found = true
			return n, true
		}
		if _, ok := v.b.isAggregate(n); ok {
			v.found = true
			return n, true
		}
	case ast.ExprNode:
		if _, ok := v.b.isAggregate(n); ok {
			v.found = true
			return n, true
		}
	}
	return n, false
}

func (v *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func (b *binder) containsAggOrWindow(n ast.Node) bool {
	if n == nil {
		return false
	}
	v := &aggFinder{b: b}
	n.Accept(v)
	return v.found
}

// containsAgg reports an aggregate call (not counting those inside window
// function arguments' OVER, which still count) outside subqueries.
func (b *binder) containsAgg(n ast.Node) bool {
	if n == nil {
		return false
	}
	v := &onlyAggFinder{b: b}
	n.Accept(v)
	return v.found
}

type onlyAggFinder struct {
	b     *binder
	found bool
	at    ast.Node // the first aggregate call found
}

func (v *onlyAggFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.WindowFuncExpr:
		// An aggregate OVER a window is not a grouping aggregate, but its
		// arguments may hold one.
		for _, a := range n.Args {
			if v.b.containsAgg(a) {
				v.found = true
			}
		}
		return n, true
	case ast.ExprNode:
		if _, ok := v.b.isAggregate(n); ok {
			if !v.found {
				v.at = n
			}
			v.found = true
			return n, true
		}
	}
	return n, false
}

// firstAgg returns the first grouping aggregate call in n, or nil.
func (b *binder) firstAgg(n ast.Node) ast.Node {
	v := &onlyAggFinder{b: b}
	n.Accept(v)
	if v.at == nil && v.found {
		return n
	}
	return v.at
}

func (v *onlyAggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// bindAggCall binds an aggregate call above the aggregation: it becomes a
// reference to the Agg's output column for the call.
func (b *binder) bindAggCall(c *exprCtx, n ast.ExprNode, name string) Expr {
	return b.bindAggCallFilter(c, n, name, nil)
}

// bindAggCallFilter binds an aggregate call with an optional FILTER
// condition, which decides per input row whether the call sees the row.
func (b *binder) bindAggCallFilter(c *exprCtx, n ast.ExprNode, name string, filter ast.ExprNode) Expr {
	inner := &exprCtx{s: c.agg.from, clause: "aggregate function calls"}
	var args []ast.ExprNode
	var order *ast.OrderByClause
	distinct := false
	switch n := n.(type) {
	case *ast.AggregateFuncExpr:
		b.noNamedArgs(inner, name, n.Args, n)
		args, distinct, order = n.Args, n.Distinct, n.Order
		if strings.ToLower(n.F) == "group_concat" && len(args) >= 2 {
			// string_agg(x, sep ORDER BY ...) as the bridge writes it.
			args = args[len(args)-2:]
		}
	case *ast.FuncCallExpr:
		b.noNamedArgs(inner, name, n.Args, n)
		args = n.Args
		// agg(DISTINCT args) of an aggregate TiDB does not know arrives
		// as agg(args, pg_agg_distinct()).
		if len(args) > 0 {
			if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_distinct" && len(f.Args) == 0 {
				args, distinct = args[:len(args)-1], true
			}
		}
	}
	// agg(args ORDER BY k1 DESC, k2) arrives from the bridge as
	// agg(args, pg_agg_order_by(k1, 'desc', k2, 'asc')).
	var orderKeys []SortKey
	if len(args) > 0 {
		if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_order_by" {
			args = args[:len(args)-1]
			orderKeys = b.aggOrderKeys(inner, f)
		}
	}
	// f(args) WITHIN GROUP (ORDER BY k) arrives as f(args,
	// pg_within_group(k, 'asc')).
	var within *ast.FuncCallExpr
	if len(args) > 0 {
		if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_within_group" {
			args, within = args[:len(args)-1], f
		}
	}
	if within != nil || functions.IsOrderedSet(name) {
		return b.bindOrderedSetCall(c, inner, n, name, args, within, distinct, orderKeys != nil || order != nil, filter)
	}
	if name == "count" && len(args) == 1 {
		if l, ok := args[0].(*sql.Literal); ok {
			if _, star := l.Value.(int); star { // TiDB writes count(*) as count(1) with a Go int
				args = nil
			}
		}
	}
	for _, a := range args {
		if b.containsAgg(a) {
			fail(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested").WithPosition(b.pos(a)))
		}
	}
	var ac AggCall
	if row, ok := unparenNode(args).(*ast.RowExpr); ok && name == "count" && len(orderKeys) == 0 && order == nil {
		// count([DISTINCT] (a, b)) counts row values, which are never
		// NULL (even when every field is): count over several
		// arguments counts every row (functions' countAcc), and DISTINCT
		// compares the whole tuples.
		ac = AggCall{Fn: "count", Args: b.exprs(inner, row.Values), Distinct: distinct, T: types.TInt8}
	} else {
		call := b.call(name, b.exprs(inner, args), n, false, Aggregate)
		ac = AggCall{Fn: name, Args: call.Args, Distinct: distinct, T: call.T}
	}
	if order != nil {
		ac.OrderBy = b.sortKeys(inner, order.Items)
	}
	if orderKeys != nil {
		ac.OrderBy = orderKeys
	}
	b.bindAggFilter(c, &ac, filter)
	return b.addAggCall(c, n, ac)
}

// bindOrderedSetCall binds an ordered-set aggregate call f(direct args)
// WITHIN GROUP (ORDER BY x) (within is the pg_within_group marker, nil
// when the call has no WITHIN GROUP): an AggCall whose Args are the
// direct arguments then x, and whose one ORDER BY key is x. The direct
// arguments must be constants. Errors follow PostgreSQL's parse_func.c:
// 42809 for WITHIN GROUP on an aggregate that is not ordered-set and the
// reverse, 42601 for DISTINCT or ORDER BY with WITHIN GROUP.
func (b *binder) bindOrderedSetCall(c, inner *exprCtx, n ast.ExprNode, name string, args []ast.ExprNode, within *ast.FuncCallExpr,
	distinct, ordered bool, filter ast.ExprNode) Expr {
	var keys []SortKey
	if within != nil {
		for _, a := range within.Args {
			if b.containsAgg(a) {
				fail(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested").WithPosition(b.pos(a)))
			}
		}
		keys = b.aggOrderKeys(inner, within)
		for i, k := range keys {
			if k.Expr.Type().ID == types.Json && i < len(within.Args) {
				fail(pgerr.New(pgerr.UndefinedFunction, "could not identify an ordering operator for type json").
					WithHint("Use an explicit ordering operator or modify the query.").WithPosition(b.pos(within.Args[i])))
			}
		}
	}
	for _, a := range args {
		if b.containsAgg(a) {
			fail(pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested").WithPosition(b.pos(a)))
		}
	}
	bound := b.exprs(inner, args)
	for _, k := range keys {
		bound = append(bound, k.Expr)
	}
	// As in PostgreSQL, the call is resolved first (42883 when no
	// overload takes the direct and ordered arguments together).
	call := b.call(name, bound, n, false, Aggregate)
	switch {
	case within == nil:
		fail(pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name).WithPosition(b.pos(n)))
	case !functions.IsOrderedSet(name):
		fail(pgerr.New(pgerr.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).WithPosition(b.pos(n)))
	case distinct:
		fail(pgerr.New(pgerr.SyntaxError, "cannot use DISTINCT with WITHIN GROUP").WithPosition(b.pos(n)))
	case ordered:
		fail(pgerr.New(pgerr.SyntaxError, "cannot use multiple ORDER BY clauses with WITHIN GROUP").WithPosition(b.pos(n)))
	}
	nd := len(args)
	for _, a := range call.Args[:nd] {
		if !isConstExpr(a) {
			fail(unsupported("the direct arguments of ordered-set aggregate %s must be constants", name).WithPosition(b.pos(n)))
		}
	}
	ac := AggCall{Fn: name, Args: call.Args, T: call.T}
	for i, k := range keys {
		k.Expr = call.Args[nd+i]
		ac.OrderBy = append(ac.OrderBy, k)
	}
	b.bindAggFilter(c, &ac, filter)
	return b.addAggCall(c, n, ac)
}

// hasWithinGroup reports whether a call's arguments end with the
// pg_within_group marker of WITHIN GROUP (ORDER BY ...).
func hasWithinGroup(args []ast.ExprNode) bool {
	if len(args) == 0 {
		return false
	}
	f, ok := args[len(args)-1].(*ast.FuncCallExpr)
	return ok && f.FnName.L == "pg_within_group"
}

// orderedSetOver fails the call name(args) OVER (...) of an ordered-set
// aggregate, or with WITHIN GROUP, as PostgreSQL's parse_func.c does:
// the call is resolved first (42883 when no overload takes the direct
// and ordered arguments), then it is 42809 for a missing WITHIN GROUP,
// for WITHIN GROUP on an aggregate that is not ordered-set, and for the
// OVER.
func (b *binder) orderedSetOver(inner *exprCtx, n ast.ExprNode, name string, args []ast.ExprNode) {
	var within *ast.FuncCallExpr
	if len(args) > 0 {
		if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_within_group" {
			args, within = args[:len(args)-1], f
		}
	}
	bound := b.exprs(inner, args)
	if within != nil {
		for _, k := range b.aggOrderKeys(inner, within) {
			bound = append(bound, k.Expr)
		}
	}
	b.call(name, bound, n, false, Aggregate)
	switch {
	case within == nil:
		fail(pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name).WithPosition(b.pos(n)))
	case !functions.IsOrderedSet(name):
		fail(pgerr.New(pgerr.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).WithPosition(b.pos(n)))
	}
	fail(pgerr.New(pgerr.WrongObjectType, "OVER is not supported for ordered-set aggregate %s", name).WithPosition(b.pos(n)))
}

// bindAggFilter binds an aggregate call's FILTER condition into ac.
func (b *binder) bindAggFilter(c *exprCtx, ac *AggCall, filter ast.ExprNode) {
	if filter != nil {
		if a := b.firstAgg(filter); a != nil {
			fail(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in FILTER").WithPosition(b.pos(a)))
		}
		if b.containsAggOrWindow(filter) {
			fail(pgerr.New(pgerr.WindowingError, "window functions are not allowed in FILTER").WithPosition(b.pos(filter)))
		}
		fc := &exprCtx{s: c.agg.from, clause: "FILTER"}
		ac.Filter = b.boolArg(b.expr(fc, filter), "FILTER")
	}
}

// addAggCall adds ac to the aggregation (once: the same call written
// twice is computed once) and returns the reference to its output column.
func (b *binder) addAggCall(c *exprCtx, n ast.ExprNode, ac AggCall) Expr {
	if ac.Distinct {
		// Postgres (parse_agg.c): with DISTINCT, the sort keys must be
		// arguments, so that sorting and de-duplicating agree.
		for _, k := range ac.OrderBy {
			found := false
			for _, a := range ac.Args {
				if exprKey(a) == exprKey(k.Expr) {
					found = true
				}
			}
			if !found {
				fail(pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list").WithPosition(b.pos(n)))
			}
		}
	}
	key := aggKey(ac)
	for j, k := range c.agg.aggStrs {
		if k == key {
			return &ColRef{Idx: len(c.agg.keys) + j, T: ac.T, Name: FormatAgg(ac)}
		}
	}
	c.agg.aggs = append(c.agg.aggs, ac)
	c.agg.aggStrs = append(c.agg.aggStrs, key)
	return &ColRef{Idx: len(c.agg.keys) + len(c.agg.aggs) - 1, T: ac.T, Name: FormatAgg(ac)}
}

// unparenNode returns the only node of args without parentheses, or nil.
func unparenNode(args []ast.ExprNode) ast.ExprNode {
	if len(args) != 1 {
		return nil
	}
	e := args[0]
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// aggOrderKeys binds the keys of a pg_agg_order_by(k1, 'asc', ...) call,
// with Postgres's default NULL order (last for ASC, first for DESC) unless
// a key is wrapped in pg_nulls_first / pg_nulls_last.
func (b *binder) aggOrderKeys(c *exprCtx, f *ast.FuncCallExpr) []SortKey {
	var keys []SortKey
	for i := 0; i+1 < len(f.Args); i += 2 {
		k := f.Args[i]
		desc := false
		if l, ok := f.Args[i+1].(*sql.Literal); ok {
			desc = l.GetString() == "desc"
		}
		nullsFirst := desc
		if w, ok := k.(*ast.FuncCallExpr); ok && len(w.Args) == 1 {
			switch w.FnName.L {
			case "pg_nulls_first":
				k, nullsFirst = w.Args[0], true
			case "pg_nulls_last":
				k, nullsFirst = w.Args[0], false
			}
		}
		keys = append(keys, SortKey{Expr: b.expr(c, k), Desc: desc, NullsFirst: nullsFirst})
	}
	return keys
}

func aggKey(a AggCall) string {
	var sb strings.Builder
	sb.WriteString(a.Fn)
	if a.Distinct {
		sb.WriteString(" distinct")
	}
	for _, x := range a.Args {
		sb.WriteString("|" + exprKey(x))
	}
	writeSortKeys(&sb, a.OrderBy)
	if a.Filter != nil {
		sb.WriteString("|f:" + exprKey(a.Filter))
	}
	return sb.String()
}

// writeSortKeys adds ORDER BY keys to a structural key (aggKey,
// windowKey).
func writeSortKeys(sb *strings.Builder, keys []SortKey) {
	for _, k := range keys {
		sb.WriteString("|o:" + exprKey(k.Expr))
		if k.Desc {
			sb.WriteString(" desc")
		}
		if k.NullsFirst {
			sb.WriteString(" nf")
		}
	}
}

// sortKeys binds ORDER BY items (of a window or an aggregate), unwrapping
// the bridge's pg_nulls_first / pg_nulls_last markers.
func (b *binder) sortKeys(c *exprCtx, items []*ast.ByItem) []SortKey {
	var out []SortKey
	for _, it := range items {
		e, nf := unwrapNulls(it.Expr, it.Desc)
		x := b.finalize(b.expr(c, e))
		out = append(out, SortKey{Expr: x, Desc: it.Desc, NullsFirst: nf})
	}
	return out
}

// unwrapNulls strips a NULLS FIRST/LAST marker, returning the sort
// expression and whether NULLs sort first (Postgres's default: first for
// DESC, last for ASC).
func unwrapNulls(e ast.ExprNode, desc bool) (ast.ExprNode, bool) {
	if f, ok := unparen(e).(*ast.FuncCallExpr); ok && len(f.Args) == 1 {
		switch f.FnName.L {
		case "pg_nulls_first":
			return f.Args[0], true
		case "pg_nulls_last":
			return f.Args[0], false
		}
	}
	return e, desc
}

// windowCall binds fn(...) OVER (...): a reference to the Window node's
// output column for the call.
func (b *binder) windowCall(c *exprCtx, n *ast.WindowFuncExpr) Expr {
	if c.win == nil {
		fail(pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", c.clauseName()).WithPosition(b.pos(n)))
	}
	inner := &exprCtx{s: c.s, agg: c.agg, clause: "window function calls"}
	name, args, wrapped := windowTarget(n)
	b.noNamedArgs(inner, name, args, n)
	if functions.IsOrderedSet(name) || hasWithinGroup(args) {
		b.orderedSetOver(inner, n, name, args)
	}
	if wrapped {
		// Postgres (parse_func.c) rejects these before resolving f.
		if len(args) > 0 {
			if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_distinct" && len(f.Args) == 0 {
				fail(pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions").WithPosition(b.pos(n)))
			}
			if f, ok := args[len(args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_agg_order_by" {
				fail(pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions").WithPosition(b.pos(n)))
			}
		}
		b.checkWindowable(name, n)
	}
	if name == "count" && len(args) == 1 {
		if l, ok := args[0].(*sql.Literal); ok {
			if _, star := l.Value.(int); star {
				args = nil
			}
		}
	}
	bound := b.polymorphicWindowArgs(name, b.exprs(inner, args), n)
	call := b.call(name, bound, n, false, WindowOnly)
	wc := WindowCall{Fn: name, Args: call.Args, T: call.T}
	if ref := windowRef(&n.Spec); ref != "" {
		if _, ok := c.win.specs[ref]; !ok {
			fail(pgerr.New(pgerr.UndefinedObject, "window \"%s\" does not exist", windowRefWritten(&n.Spec)).WithPosition(b.windowRefPos(n)))
		}
	}
	spec := b.resolveWindowSpec(c.win, &n.Spec)
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			wc.PartitionBy = append(wc.PartitionBy, b.finalize(b.expr(inner, it.Expr)))
		}
	}
	if spec.OrderBy != nil {
		wc.OrderBy = b.sortKeys(inner, spec.OrderBy.Items)
	}
	if spec.Frame != nil {
		wc.Frame = b.frame(c.s, spec.Frame, wc.OrderBy, b.pos(n))
	}
	// The same call written twice is computed once, so that ORDER BY
	// matches it with the select list's as Postgres does (which matters
	// for SELECT DISTINCT).
	key := windowKey(wc)
	winref := -1
	if b.notes != nil {
		// Calls reading different windows print differently.
		winref = b.noteWindow(inner, c.win, &n.Spec)
		key += "|w:" + strconv.Itoa(winref)
	}
	i := len(c.win.calls)
	for j, k := range c.win.keys {
		if k == key {
			i = j
			break
		}
	}
	if i == len(c.win.calls) {
		c.win.calls = append(c.win.calls, wc)
		c.win.keys = append(c.win.keys, key)
		c.win.winrefs = append(c.win.winrefs, winref)
	}
	ref := &ColRef{Idx: windowSlot(i), T: wc.T, Name: FormatWindowCall(wc)}
	c.win.refs = append(c.win.refs, winRef{call: i, ref: ref})
	return ref
}

// noteWindow returns, when deparsing, the index in w.defs of the window
// the OVER clause s reads, as transformWindowFuncCall picks it: OVER w
// the named window w; any other clause the first window with the same
// reference and the same clauses of its own, or a new one. The named
// windows are bound with the first call.
func (b *binder) noteWindow(c *exprCtx, w *winState, s *ast.WindowSpec) int {
	if w.defs == nil {
		w.defs = []vdWindowDef{}
		for _, n := range w.named {
			w.defs = append(w.defs, b.windowDef(c, w, n, n.Name.O))
		}
	}
	if s.Name.L != "" && s.OnlyAlias {
		for i, d := range w.defs {
			if d.name == s.Name.O {
				return i
			}
		}
	}
	d := b.windowDef(c, w, s, "")
	for i, o := range w.defs {
		if o.key == d.key {
			return i
		}
	}
	w.defs = append(w.defs, d)
	return len(w.defs) - 1
}

// windowDef binds the clauses window specification s writes itself.
func (b *binder) windowDef(c *exprCtx, w *winState, s *ast.WindowSpec, name string) vdWindowDef {
	d := vdWindowDef{name: name, ref: s.Ref.O}
	if s.PartitionBy != nil {
		for _, it := range s.PartitionBy.Items {
			d.partition = append(d.partition, b.finalize(b.expr(c, it.Expr)))
		}
	}
	if s.OrderBy != nil {
		d.order = b.sortKeys(c, s.OrderBy.Items)
	}
	if s.Frame != nil {
		merged := b.resolveWindowSpec(w, s)
		var ord []SortKey
		if merged.OrderBy != nil {
			ord = b.sortKeys(c, merged.OrderBy.Items)
		}
		d.frame = b.frame(c.s, s.Frame, ord, 0)
	}
	d.key = d.ref + windowKey(WindowCall{PartitionBy: d.partition, OrderBy: d.order, Frame: d.frame})
	return d
}

// polymorphicWindowArgs resolves the polymorphic arguments of the
// window functions Postgres declares over anyelement and anycompatible
// (pg_proc; docs §9.22): lag, lead, first_value, last_value and
// nth_value take their value argument's type, which must be known
// (42804 otherwise, as for lag('a')); lag and lead's default (third
// argument) is anycompatible with the value, so both are converted to
// their common type by select_common_type's rules, text when both are
// unknown, and a default of another category means no such function
// (42883, as for lag(int, int, text)). Other calls are returned as is.
func (b *binder) polymorphicWindowArgs(name string, args []Expr, node ast.Node) []Expr {
	switch name {
	case "lag", "lead", "first_value", "last_value", "nth_value":
	default:
		return args
	}
	if len(args) == 0 {
		return args
	}
	if (name == "lag" || name == "lead") && len(args) == 3 {
		t, err := commonType("", []types.T{b.typeOf(args[0]), b.typeOf(args[2])})
		an := []argNode{{t: b.typeOf(args[0])}, {t: b.typeOf(args[1])}, {t: b.typeOf(args[2])}}
		if err != nil {
			fail(b.noSuchFunc(name, an, false, node))
		}
		// The common type is a type, not a typmod: lag(v, 1, 'abcdef')
		// over varchar(3) returns 'abcdef' uncut.
		t.Mod = -1
		out := append([]Expr{}, args...)
		for _, i := range []int{0, 2} {
			if b.typeOf(out[i]).ID == t.ID {
				continue
			}
			if out[i] = b.tryCoerce(args[i], t, ctxImplicit); out[i] == nil {
				fail(b.noSuchFunc(name, an, false, node))
			}
		}
		return out
	}
	if b.typeOf(args[0]).ID == types.Unknown {
		fail(pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown").WithPosition(b.pos(node)))
	}
	return args
}

// windowKey is a structural key of a window call, like aggKey's: equal
// keys compute the same value for every row.
func windowKey(c WindowCall) string {
	var sb strings.Builder
	sb.WriteString(c.Fn + "::" + c.T.String())
	for _, x := range c.Args {
		sb.WriteString("|" + exprKey(x))
	}
	for _, x := range c.PartitionBy {
		sb.WriteString("|p:" + exprKey(x))
	}
	writeSortKeys(&sb, c.OrderBy)
	if f := c.Frame; f != nil {
		sb.WriteString("|f:" + f.Mode)
		for _, b := range []FrameBound{f.Start, f.End} {
			sb.WriteString(" " + b.Kind)
			if b.Offset != nil {
				sb.WriteString(" " + exprKey(b.Offset))
			}
		}
		if f.Exclude != "" {
			sb.WriteString(" exclude " + f.Exclude)
		}
	}
	return sb.String()
}

// windowTarget returns the function and arguments of a window call. The
// bridge writes a call TiDB does not take before OVER, f(args) OVER spec,
// as first_value(pg_window_call('f', args)) OVER spec (sql/doc.go #28);
// wrapped reports that form.
func windowTarget(n *ast.WindowFuncExpr) (name string, args []ast.ExprNode, wrapped bool) {
	if strings.EqualFold(n.Name, "first_value") && len(n.Args) == 1 {
		if f, ok := n.Args[0].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_window_call" && len(f.Args) > 0 {
			if l, ok := f.Args[0].(*sql.Literal); ok {
				if s, ok := l.Value.(string); ok {
					return s, f.Args[1:], true
				}
			}
		}
	}
	return aggFuncName(n.Name), n.Args, false
}

// checkWindowable fails with Postgres's error when name has overloads but
// none is an aggregate or a window function (lower(x) OVER ()), or names
// a user function; a name without any function is left to the call's
// resolution (42883).
func (b *binder) checkWindowable(name string, n ast.Node) {
	os := Overloads(name)
	for _, o := range os {
		if o.Kind == WindowOnly || o.Kind == Aggregate {
			return
		}
	}
	if len(os) == 0 {
		// A user function (scalar, all of them) is no window function
		// either.
		fc, ok := unpinned(b.cat).(FuncCatalog)
		if !ok || len(fc.Functions("", name)) == 0 {
			return
		}
	}
	fail(pgerr.New(pgerr.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name).WithPosition(b.pos(n)))
}

// resolveWindowSpec merges a window clause with the named window it
// refers to (OVER w, OVER (w ORDER BY ...)), failing (42P20) as Postgres
// does a copy that overrides the named window's PARTITION BY or ORDER BY
// or copies its frame.
func (b *binder) resolveWindowSpec(w *winState, s *ast.WindowSpec) ast.WindowSpec {
	ref := windowRef(s)
	if ref == "" {
		return *s
	}
	base, ok := w.specs[ref]
	if !ok {
		failf(pgerr.UndefinedObject, "window \"%s\" does not exist", ref)
	}
	merged := b.resolveWindowSpec(w, base)
	if s.OnlyAlias {
		return merged
	}
	// Postgres's checks (parse_clause.c, transformWindowDefinitions): a
	// window that copies another may only add an ORDER BY it lacks and a
	// frame, and cannot copy one with a frame.
	if s.PartitionBy != nil {
		failf(pgerr.WindowingError, "cannot override PARTITION BY clause of window \"%s\"", ref)
	}
	if s.OrderBy != nil && merged.OrderBy != nil {
		failf(pgerr.WindowingError, "cannot override ORDER BY clause of window \"%s\"", ref)
	}
	if merged.Frame != nil {
		err := pgerr.New(pgerr.WindowingError, "cannot copy window \"%s\" because it has a frame clause", ref)
		if s.Name.L == "" && s.OrderBy == nil && s.Frame == nil {
			err = err.WithHint("Omit the parentheses in this OVER clause.")
		}
		fail(err)
	}
	if s.OrderBy != nil {
		merged.OrderBy = s.OrderBy
	}
	if s.Frame != nil {
		merged.Frame = s.Frame
	}
	return merged
}

// frame binds a window frame clause over the window's ORDER BY keys
// ord, with Postgres's checks (parse_clause.c): a RANGE frame with an
// offset needs exactly one ORDER BY key (42P20 at pos, the window's
// position) of a type with an in_range support function, and its offsets
// are coerced to the offset type that function takes (0A000 otherwise);
// ROWS and GROUPS offsets are bigints (42804). No offset may read a
// column of the row (42P10), call an aggregate (42803) or a window
// function (42P20).
func (b *binder) frame(s *scope, f *ast.FrameClause, ord []SortKey, pos int) *Frame {
	out := &Frame{Mode: "rows"}
	switch f.Type {
	case ast.Ranges:
		out.Mode = "range"
	case ast.Groups:
		out.Mode = "groups"
	}
	construct := strings.ToUpper(out.Mode)
	// The bridge writes every offset but a number as INTERVAL
	// pg_frame_offset(e) DAY, and the frame's exclusion into its start
	// bound: pg_frame_offset(e, 'x'), or pg_frame_bound('kind', 'x') for
	// UNBOUNDED PRECEDING and CURRENT ROW (sql/doc.go #29, #29b).
	start, end := f.Extent.Start, f.Extent.End
	single := false
	if fc, ok := start.Expr.(*ast.FuncCallExpr); ok && len(fc.Args) == 2 && (fc.FnName.L == "pg_frame_offset" || fc.FnName.L == "pg_frame_bound") {
		excl := frameMarkerString(fc.Args[1])
		if rest, ok := strings.CutPrefix(excl, "single"); ok {
			single, excl = true, strings.TrimSpace(rest)
		}
		out.Exclude = strings.ReplaceAll(excl, " ", "_")
		if fc.FnName.L == "pg_frame_offset" {
			nf := *fc
			nf.Args = fc.Args[:1]
			start.Expr = &nf
		} else {
			switch frameMarkerString(fc.Args[0]) {
			case "current row":
				start = ast.FrameBound{Type: ast.CurrentRow}
			case "unbounded preceding":
				start = ast.FrameBound{Type: ast.Preceding, UnBounded: true}
			default:
				failf(pgerr.InternalError, "unexpected frame bound marker")
			}
		}
		switch out.Exclude {
		case "current_row", "group", "ties":
		case "":
			if !single {
				failf(pgerr.InternalError, "unexpected frame exclusion %q", excl)
			}
		default:
			failf(pgerr.InternalError, "unexpected frame exclusion %q", excl)
		}
	}
	hasOffset := func(fb ast.FrameBound) bool { return fb.Type != ast.CurrentRow && !fb.UnBounded && fb.Expr != nil }
	var keyT types.T
	if out.Mode == "range" && (hasOffset(start) || hasOffset(end)) {
		// Postgres drops repeated sort keys (ORDER BY x, x is one key).
		keys := map[string]bool{}
		for _, k := range ord {
			keys[exprKey(k.Expr)] = true
		}
		if len(keys) != 1 {
			fail(pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column").WithPosition(pos))
		}
		keyT = ord[0].Expr.Type()
	}
	c := &exprCtx{s: s, clause: "window " + construct}
	bound := func(fb ast.FrameBound) FrameBound {
		switch {
		case fb.Type == ast.CurrentRow:
			return FrameBound{Kind: "current_row"}
		case fb.UnBounded && fb.Type == ast.Preceding:
			return FrameBound{Kind: "unbounded_preceding"}
		case fb.UnBounded:
			return FrameBound{Kind: "unbounded_following"}
		}
		kind := "following"
		if fb.Type == ast.Preceding {
			kind = "preceding"
		}
		// The bridge writes every offset but a number as
		// INTERVAL pg_frame_offset(e) DAY (sql/doc.go #29).
		e := fb.Expr
		if fc, ok := e.(*ast.FuncCallExpr); ok && fc.FnName.L == "pg_frame_offset" && len(fc.Args) == 1 {
			e = fc.Args[0]
		} else if fb.Unit != ast.TimeUnitInvalid {
			failf(pgerr.InternalError, "frame offset with a unit was not bridged")
		}
		raw := b.expr(c, e)
		off := raw
		if out.Mode != "range" {
			// Like LIMIT's, an assignment coercion (2.5 is 3).
			off = b.coerce(raw, types.TInt8, ctxAssignment, "argument of "+construct)
		} else {
			off = b.rangeOffset(raw, keyT)
		}
		WalkExpr(off, func(x Expr) {
			if _, ok := x.(*ColRef); ok {
				fail(pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", construct).WithPosition(b.exprPos(raw)))
			}
		})
		return FrameBound{Kind: kind, Offset: off}
	}
	out.Start = bound(start)
	out.End = bound(end)
	if end.Type == 0 && !end.UnBounded && end.Expr == nil {
		// "ROWS start" without BETWEEN ends at the current row.
		out.End = FrameBound{Kind: "current_row"}
	}
	out.Between = !single
	return out
}

// frameMarkerString returns the string literal argument of a frame
// marker the bridge wrote, "" for anything else.
func frameMarkerString(e ast.ExprNode) string {
	if l, ok := e.(*sql.Literal); ok {
		if s, ok := l.Value.(string); ok {
			return s
		}
	}
	return ""
}

// inRangeOffsets lists, for each ORDER BY key type with in_range support
// functions in Postgres 15's btree operator families, the offset types
// they take, in catalog order (by type OID). A RANGE frame with an offset
// over any other key type is refused.
var inRangeOffsets = map[types.TypeID][]types.TypeID{
	types.Int2:        {types.Int8, types.Int2, types.Int4},
	types.Int4:        {types.Int8, types.Int2, types.Int4},
	types.Int8:        {types.Int8},
	types.Float4:      {types.Float8},
	types.Float8:      {types.Float8},
	types.Numeric:     {types.Numeric},
	types.Date:        {types.Interval},
	types.Time:        {types.Interval},
	types.Timestamp:   {types.Interval},
	types.Timestamptz: {types.Interval},
	types.Interval:    {types.Interval},
}

// rangeOffset coerces off, a RANGE frame offset, to the offset type of
// the in_range support function for keys of type key, chosen as
// Postgres's transformFrameOffset chooses it: among the functions whose
// offset type off coerces to implicitly, the one taking off's own type
// (the key's for an untyped literal), else the first.
func (b *binder) rangeOffset(off Expr, key types.T) Expr {
	keyName := rangeKeyTypeName(key)
	cands := inRangeOffsets[key.ID]
	if len(cands) == 0 {
		fail(unsupported("RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", keyName).WithPosition(b.exprPos(off)))
	}
	from := b.typeOf(off)
	unknown := b.isUnknown(off)
	preferred := from.ID
	if unknown {
		preferred = key.ID
	}
	sel, n := types.Unknown, 0
	for _, c := range cands {
		if !unknown && !canCoerce(from.ID, c, ctxImplicit) {
			continue
		}
		if n == 0 || c == preferred {
			sel = c
		}
		n++
	}
	offName := types.T{ID: from.ID, Mod: -1}.String()
	if unknown {
		offName = "unknown"
	}
	if n == 0 {
		fail(unsupported("RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", keyName, offName).
			WithHint("Cast the offset value to an appropriate type.").WithPosition(b.exprPos(off)))
	}
	if n > 1 && sel != preferred {
		fail(unsupported("RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s", keyName, offName).
			WithHint("Cast the offset value to the exact intended type.").WithPosition(b.exprPos(off)))
	}
	return b.coerce(off, types.T{ID: sel, Mod: -1}, ctxImplicit, "argument of RANGE")
}

// rangeKeyTypeName names an ORDER BY key type as Postgres's RANGE errors
// do: the input type of its btree operator class, without modifier.
func rangeKeyTypeName(t types.T) string {
	switch {
	case t.IsArray():
		return "anyarray"
	case t.ID == types.Varchar:
		return "text"
	}
	return types.T{ID: t.ID, Mod: -1}.String()
}

// subquery binds a subquery used as an expression. opNode, when not nil,
// is where errors of ANY's and ALL's operator point (the subquery
// otherwise).
func (b *binder) subquery(c *exprCtx, sq *ast.SubqueryExpr, kind SubqueryKind, arg Expr, op string, opNode ...ast.Node) Expr {
	lvl := &level{parent: c.s.lvl}
	r := b.bindQuery(sq.Query, c.s, lvl, nil)
	plan := r.plan
	cols := plan.Schema()
	out := &Subquery{Kind: kind, Arg: arg, Op: op}
	switch kind {
	case SubScalar, SubArray:
		if len(cols) != 1 {
			fail(pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(b.pos(sq)))
		}
		out.T = cols[0].T
		if kind == SubArray {
			out.T = types.TTextArray
		}
	case SubExists:
		out.T = types.TBool
	case SubAny, SubAll:
		var node ast.Node = sq
		if len(opNode) > 0 && opNode[0] != nil {
			node = opNode[0]
		}
		if len(cols) != 1 {
			fail(pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(b.opPos(node)))
		}
		col := &ColRef{Idx: 0, T: cols[0].T, Name: cols[0].Name}
		call := b.op(op, []Expr{arg, col}, node).(*Call)
		out.Arg = call.Args[0]
		if call.Args[1] != Expr(col) {
			plan = projectOver(plan, []Expr{call.Args[1]}, types.Schema{{Name: cols[0].Name, T: call.Args[1].Type()}})
		}
		out.T = types.TBool
	}
	out.Plan = plan
	out.Correlated = lvl.correlated
	return out
}

// trimFunc is the function TRIM with direction d stands for.
func trimFunc(d ast.TrimDirectionType) string {
	switch d {
	case ast.TrimLeading:
		return "ltrim"
	case ast.TrimTrailing:
		return "rtrim"
	}
	return "btrim"
}

// fieldSelect binds (x).field: the field of a row constructor (ROW(a,
// b) has the fields f1 and f2), 42703 for a name it has not; for any
// other value the functional notation field(x) when a function of that
// name takes x, else 42809, positioned at x as in PostgreSQL.
func (b *binder) fieldSelect(c *exprCtx, xn ast.ExprNode, field string) Expr {
	x := b.expr(c, xn)
	if e, ok := b.subqueryField(c.s, x, field); ok {
		return e
	}
	inner := unparen(xn)
	if _, ok := inner.(*ast.SubqueryExpr); ok {
		inner = xn
	}
	return b.fieldOf(x, inner, field)
}

// fieldOf is fieldSelect of the bound value x, written at node.
func (b *binder) fieldOf(x Expr, inner ast.Node, field string) Expr {
	if field == "*" {
		// (expr).*: only a composite value has fields to expand, and
		// the select list expands them (rowStar); elsewhere, as in
		// ROW((row).*) or WHERE, weir does not.
		if r, ok := x.(*Call); ok && r.Fn == "pg_row" {
			fail(pgerr.New(pgerr.FeatureNotSupported, "(row).* is supported only in a select list").WithPosition(b.pos(inner)))
		}
		t := b.typeOf(x)
		if b.isUnknown(x) {
			t = types.TUnknown
		}
		fail(pgerr.New(pgerr.WrongObjectType, "type %s is not composite", t))
	}
	if r, ok := x.(*Call); ok && r.Fn == "pg_row" {
		if k, err := strconv.Atoi(strings.TrimPrefix(field, "f")); err == nil && strings.HasPrefix(field, "f") && k >= 1 && k <= len(r.Args) && strconv.Itoa(k) == field[1:] {
			return r.Args[k-1]
		}
		fail(pgerr.New(pgerr.UndefinedColumn, "could not identify column \"%s\" in record data type", field).WithPosition(b.pos(inner)))
	}
	var cands []*Overload
	for _, o := range Overloads(field) {
		if o.Kind == Scalar {
			cands = append(cands, o)
		}
	}
	if o, amb := resolveOverload(cands, []argNode{{t: b.typeOf(x), unknown: b.isUnknown(x)}}); o != nil && !amb {
		return b.call(field, []Expr{x}, inner, false, Scalar)
	}
	t := b.typeOf(x)
	if b.isUnknown(x) {
		t = types.TUnknown
	}
	fail(pgerr.New(pgerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", field, t).WithPosition(b.pos(inner)))
	return nil
}

// opFuncs are the functions of the operators the bridge writes as
// pg_op(sym, args) calls, by the operator.
var opFuncs = map[string]string{"^": "power", "@": "abs", "|/": "sqrt", "||/": "cbrt"}

// opCall binds operator sym, written pg_op(sym, args) by the bridge, as
// its function (opFuncs), recording the operator (binder.written "op"
// plus sym) for deparsing and naming it in the errors: "operator does
// not exist: a ^ b" at the operator, as PostgreSQL reports them.
func (b *binder) opCall(sym string, args []Expr, n *ast.FuncCallExpr) Expr {
	pos := b.pos(n) // a prefix operator's call stands at it
	if len(args) == 2 && b.q != nil {
		// The bridge's comma before the right operand stands at ^.
		if p := b.curMap().PosBefore(n.Args[2].OriginTextPosition()); p > 0 {
			pos = p
		}
	}
	noOp := func() *pgerr.Error {
		an := make([]argNode, len(args))
		for i, a := range args {
			an[i] = argNode{t: b.typeOf(a)}
		}
		err := pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", opSig(sym, an)).WithPosition(pos)
		if len(args) == 1 {
			return err.WithHint("No operator matches the given name and argument type. You might need to add an explicit type cast.")
		}
		return err.WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(*pgerr.Error); ok && err.Code == pgerr.UndefinedFunction && strings.HasPrefix(err.Message, "function ") {
				r = noOp()
			}
			panic(r)
		}
	}()
	if opFuncs[sym] == "" {
		// An operator weir has not got (sql ops.go).
		fail(noOp())
	}
	if sym == "|/" || sym == "||/" {
		// Operators of double precision only.
		a := b.tryCoerce(args[0], types.TFloat8, ctxImplicit)
		if a == nil {
			fail(noOp())
		}
		args = []Expr{a}
	}
	out := b.call(opFuncs[sym], args, n, false, Scalar)
	if b.written != nil {
		b.written[out] = "op " + sym
	}
	return out
}

// bridgeOperators are the operators the bridge writes as calls
// (sql/doc.go #19, #31), by the call's name; the registry keeps them
// under those names.
var bridgeOperators = map[string]string{"pg_jsonpath_exists": "@?", "pg_jsonpath_match": "@@", "pg_json_delete_path": "#-", "pg_starts_with": "^@", "pg_json_get": "->", "pg_json_get_text": "->>", "pg_json_path": "#>",
	"pg_json_path_text": "#>>", "pg_json_contains": "@>", "pg_json_contained": "<@", "pg_array_overlap": "&&", "pg_json_exists": "?",
	"pg_json_exists_any": "?|", "pg_json_exists_all": "?&"}

// windowRef is the name of the window a window clause refers to (OVER w,
// OVER (w ORDER BY ...)), or "".
func windowRef(s *ast.WindowSpec) string {
	if s.Name.L != "" && s.OnlyAlias {
		return s.Name.L
	}
	return s.Ref.L
}

// windowRefWritten is windowRef as written (a quoted name keeps its
// case), for messages.
func windowRefWritten(s *ast.WindowSpec) string {
	if s.Name.L != "" && s.OnlyAlias {
		return s.Name.O
	}
	return s.Ref.O
}

// windowRefPos is the position of the window clause of the call n (the
// window name, or the "(" before it), where PostgreSQL reports a window
// that does not exist: what follows the call's OVER in the bridged text. It falls back on
// the call's position.
func (b *binder) windowRefPos(n *ast.WindowFuncExpr) int {
	off := n.OriginTextPosition()
	if b.q == nil || b.q.Map == nil || b.curMap() != b.q.Map || off < 0 || off >= len(b.q.Rewritten) {
		return b.pos(n)
	}
	text := b.q.Rewritten
	depth := 0
	for i := off; i < len(text); i++ {
		switch text[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '\'':
			// skip a string literal among the arguments
			for i++; i < len(text) && text[i] != '\''; i++ {
			}
		}
		if depth != 0 || !strings.HasPrefix(strings.ToLower(text[i:]), "over") || i+4 >= len(text) {
			continue
		}
		j := i + 4
		for j < len(text) && text[j] == ' ' {
			j++
		}
		if p := b.q.Map.Pos(j); p > 0 {
			return p
		}
		break
	}
	return b.pos(n)
}

// subscriptChain binds the subscripts x[a][b]... the bridge wrote as
// nested pg_subscript and pg_slice calls, where PostgreSQL's rules differ
// from one subscript after another: a jsonb's subscripts are a path
// (x #> ARRAY[a, b], text keys index arrays too), a type without
// subscripting is 42804, and several subscripts of one of weir's arrays
// (which have one dimension) are NULL, or an empty array when one is a
// slice. One subscript of an array is the call.
func (b *binder) subscriptChain(c *exprCtx, n *ast.FuncCallExpr) Expr {
	var chain []*ast.FuncCallExpr
	var base ast.ExprNode = n
	for {
		f, ok := base.(*ast.FuncCallExpr)
		if !ok || (f.FnName.L != "pg_subscript" && f.FnName.L != "pg_slice") || len(f.Args) < 2 {
			break
		}
		chain = append([]*ast.FuncCallExpr{f}, chain...)
		base = f.Args[0]
	}
	if len(chain) == 0 {
		return nil
	}
	x := b.expr(c, base)
	t := b.typeOf(x)
	switch {
	case b.isUnknown(x) || len(chain) == 1 && t.IsArray():
		// One subscript of an array: the call. x[i] over text[]: the
		// catalog's text[] columns stand for Postgres arrays of other
		// element types (int2vector, oid[] in psql's catalog queries),
		// so the element is typed like an untyped literal and takes its
		// type from the context, as text by default. Over the other
		// arrays it has the element type.
		call := b.call(n.FnName.L, append([]Expr{x}, b.exprs(c, n.Args[1:])...), n, false, Scalar)
		if n.FnName.L == "pg_subscript" && t.ID == types.TextArray {
			call.T = types.TUnknown
		}
		return call
	case t.ID == types.Jsonb:
		keys := make([]Expr, 0, len(chain))
		for _, f := range chain {
			if f.FnName.L == "pg_slice" {
				fail(pgerr.New(pgerr.DatatypeMismatch, "jsonb subscript does not support slices").WithPosition(b.pos(unparen(f.Args[len(f.Args)-1]))))
			}
			k := b.expr(c, f.Args[1])
			kt := b.typeOf(k)
			switch {
			case b.isUnknown(k) || kt.ID == types.Text:
				k = b.coerce(k, types.TText, ctxImplicit, "jsonb subscript")
			case kt.Family() == types.FamInt:
				k = b.coerce(k, types.TText, ctxExplicit, "jsonb subscript")
			default:
				fail(pgerr.New(pgerr.DatatypeMismatch, "subscript type %s is not supported", kt).
					WithHint("jsonb subscript must be coercible to either integer or text.").WithPosition(b.pos(unparen(f.Args[1]))))
			}
			keys = append(keys, k)
		}
		path := &Call{Fn: "array", Args: keys, T: types.TTextArray}
		return b.call("pg_json_path", []Expr{x, path}, n, false, Scalar)
	case !t.IsArray():
		inner := unparen(base)
		fail(pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", t).WithPosition(b.pos(inner)))
	case len(chain) > 1:
		// weir's arrays have one dimension: a second subscript finds
		// nothing. The subscripts are still bound (and checked).
		slice := false
		for _, f := range chain {
			for _, a := range f.Args[1:] {
				b.coerce(b.expr(c, a), types.TInt4, ctxImplicit, "array subscript")
			}
			slice = slice || f.FnName.L == "pg_slice"
		}
		if slice {
			// x[1:0] is x's empty array (NULL when x is).
			one, zero := &Const{V: types.DInt(1), T: types.TInt4}, &Const{V: types.DInt(0), T: types.TInt4}
			return b.call("pg_slice", []Expr{x, one, zero}, n, false, Scalar)
		}
		return &Const{V: types.NullDatum, T: t.Elem()}
	}
	return nil
}

// sqlValuePrecision binds CURRENT_TIMESTAMP(p), LOCALTIMESTAMP(p) and
// LOCALTIME(p) as the value without a precision cast to the type of
// precision p. A precision above 6 is reduced to 6 with a WARNING in
// PostgreSQL; weir refuses it (0A000) rather than drop the warning.
func (b *binder) sqlValuePrecision(c *exprCtx, name string, n *ast.FuncCallExpr) Expr {
	arg := b.expr(c, n.Args[0])
	k, ok := arg.(*Const)
	if !ok || k.V.Null || !isIntType(k.T) {
		fail(pgerr.New(pgerr.SyntaxError, "syntax error at or near \"(\"").WithPosition(b.pos(n)))
	}
	p := k.V.I
	if p < 0 {
		fail(pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", strings.ToUpper(name), p).WithPosition(b.pos(n)))
	}
	if p > 6 {
		fail(pgerr.New(pgerr.FeatureNotSupported, "%s(%d) precision above 6 is not supported", strings.ToUpper(name), p).WithPosition(b.pos(n)))
	}
	x := b.call(name, nil, n, false, Scalar)
	return b.explicitCast(x, types.T{ID: x.T.ID, Mod: int32(p)}, n)
}

// sortUsing refuses ORDER BY x USING op for an operator other than < and
// > (sql.SortUsingFn('op', x)) as PostgreSQL does once x binds: 42883 when
// x's type has no operator op, 42809 when op is no ordering operator.
func (b *binder) sortUsing(c *exprCtx, n *ast.FuncCallExpr) {
	l, ok := n.Args[0].(*sql.Literal)
	if !ok {
		return
	}
	sym, _ := l.Value.(string)
	x := b.expr(c, n.Args[1])
	pos := b.pos(n.Args[0])
	an := []argNode{{t: b.typeOf(x)}, {t: b.typeOf(x)}}
	find := func() (call *Call) {
		defer func() {
			if r := recover(); r != nil {
				if err, isErr := r.(*pgerr.Error); !isErr || err.Code != pgerr.UndefinedFunction {
					panic(r)
				}
				call = nil
			}
		}()
		return b.call(sym, []Expr{x, x}, n, true, Scalar)
	}
	call := find()
	if call == nil {
		fail(pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", opSig(sym, an)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.").WithPosition(pos))
	}
	for _, a := range call.Args {
		if b.typeOf(a) != an[0].t {
			// An operator of other types, which x reaches only by a
			// conversion (PostgreSQL's compatible_oper).
			fail(pgerr.New(pgerr.UndefinedFunction, "operator requires run-time type coercion: %s", opSig(sym, an)).WithPosition(pos))
		}
	}
	fail(pgerr.New(pgerr.WrongObjectType, "operator %s is not a valid ordering operator", sym).
		WithHint("Ordering operators must be \"<\" or \">\" members of btree operator families.").WithPosition(pos))
}
