package planner

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// Expression and partial indexes. CREATE INDEX keeps an index's key
// expressions and predicate as written; they are bound over the indexed
// table's row as CHECK constraints are, and must be immutable: an index
// holds values computed when the row was written, which a function
// whose result may change (now(), random(), one reading a setting)
// would make wrong later. PostgreSQL refuses such functions with 42P17.

// BindIndexExpr binds a key expression of CREATE INDEX, text as written,
// over rel's row. Errors are PostgreSQL's: 0A000 for a subquery, 42803
// for an aggregate, 42P20 for a window function, 42P17 for a function
// that is not immutable; pos places their positions in the statement
// (0: none).
func BindIndexExpr(ctx context.Context, rel *catalog.Relation, text string, pos int, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, pos)
	b, n := rowExprBinder(ctx, text, cat, "index expression", true)
	x := b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "index expressions"}, n)
	x = markRowCLocale(b.finalize(x), rel)
	if b.isMutable(x) {
		fail(pgerr.New(pgerr.InvalidObjectDefinition, "functions in index expression must be marked IMMUTABLE"))
	}
	return x, nil
}

// BindIndexPredicate binds the WHERE predicate of a partial index, text
// as written, over rel's row: a boolean expression (42804 otherwise)
// with BindIndexExpr's other rules, for "index predicate".
func BindIndexPredicate(ctx context.Context, rel *catalog.Relation, text string, pos int, cat Catalog) (e Expr, err error) {
	defer recoverAt(&err, pos)
	b, n := rowExprBinder(ctx, text, cat, "index predicate", true)
	x := b.expr(&exprCtx{s: tableScope(rel, rel.Name), clause: "index predicates"}, n)
	x = markRowCLocale(b.finalize(b.boolArg(x, "WHERE")), rel)
	if b.isMutable(x) {
		fail(pgerr.New(pgerr.InvalidObjectDefinition, "functions in index predicate must be marked IMMUTABLE"))
	}
	return x, nil
}

// IndexColumnName is the name PostgreSQL gives the index column of key
// expression text (FigureIndexColname): the function's name for a call,
// the column's for a column, the type's for some casts, and "expr" for
// expressions without a name of their own.
func IndexColumnName(text string) string {
	q, err := parseExpr(text)
	if err != nil {
		return "expr"
	}
	b := &binder{q: q, deps: map[uint32]bool{}, ctx: context.Background()}
	sel, ok := q.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return "expr"
	}
	n := sel.Fields.Fields[0].Expr
	name := "expr"
	func() {
		defer func() { _ = recover() }()
		if s, _ := b.figureColname(n); s != "" {
			name = s
		}
	}()
	return name
}

// IndexExprText prints a key expression e of an index on rel as
// pg_get_indexdef does: a function call as it is, any other expression
// in parentheses.
func IndexExprText(rel *catalog.Relation, e Expr, pretty bool) string {
	return indexExprText(rel, e, pretty, nil)
}

// indexExprText is IndexExprText printing the inlined calls as calls.
func indexExprText(rel *catalog.Relation, e Expr, pretty bool, calls map[Expr]inlinedCall) string {
	text := rowExprText(rel, e, pretty, calls)
	if c, ok := e.(*Call); ok && c.Fn == "pg_extract" || looksLikeFunction(text) {
		// EXTRACT(field FROM x) counts as a function call
		// (COERCE_SQL_SYNTAX) though it does not look like one.
		return text
	}
	return "(" + text + ")"
}

// looksLikeFunction is ruleutils.c's looks_like_function over an
// expression's printed text: a call in function syntax, f(...) (the SQL
// syntax forms, EXTRACT(x FROM y) and the like, print in capitals and do
// not count), or COALESCE, GREATEST, LEAST, NULLIF.
func looksLikeFunction(text string) bool {
	open := strings.IndexByte(text, '(')
	if open <= 0 || !strings.HasSuffix(text, ")") {
		return false
	}
	name := text[:open]
	switch name {
	case "COALESCE", "GREATEST", "LEAST", "NULLIF":
	default:
		if !printedFuncName(name) {
			return false
		}
	}
	// The parenthesis opened after the name must close at the end.
	depth, quoted := 0, false
	for i := open; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 && i != len(text)-1 {
				return false
			}
		}
	}
	return depth == 0
}

// printedFuncName reports whether name is a function's name as
// ruleutils.c prints it: an identifier in lower case or in double
// quotes, qualified by its schema when that is not on the search path
// (s.f, "S".f).
func printedFuncName(name string) bool {
	for _, part := range strings.Split(name, ".") {
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			continue
		}
		if part == "" {
			return false
		}
		for i, r := range part {
			if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
				return false
			}
		}
	}
	return true
}

// isOperatorName reports whether fn names an operator rather than a
// function (+, ||, ~~ ...).
func isOperatorName(fn string) bool {
	for _, r := range fn {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r >= '0' && r <= '9' {
			return false
		}
	}
	return fn != ""
}

// stableFunctions are functions PostgreSQL marks stable or volatile in
// every form: their result depends on settings, the clock or the
// database's state.
var stableFunctions = map[string]bool{
	"concat": true, "concat_ws": true, "format": true, "to_char": true, "to_date": true, "to_number": true,
	"to_json": true, "to_jsonb": true, "array_to_json": true, "row_to_json": true, "array_to_string": true,
	"json_build_array": true, "json_build_object": true, "jsonb_build_array": true, "jsonb_build_object": true,
	"current_setting": true, "set_config": true, "current_database": true, "current_schema": true, "current_schemas": true,
	"current_user": true, "session_user": true, "user": true, "current_role": true, "version": true, "format_type": true,
	"col_description": true, "obj_description": true, "shobj_description": true,
	"to_regclass": true, "to_regtype": true, "to_regproc": true, "to_regprocedure": true, "to_regoper": true,
	"to_regoperator": true, "to_regnamespace": true, "to_regrole": true, "to_regcollation": true,
	"nextval": true, "currval": true, "lastval": true, "setval": true, "make_timestamptz": true,
	"convert": true, "convert_from": true, "convert_to": true, "clock_timestamp": true, "timeofday": true,
	"enum_first": true, "enum_last": true, "enum_range": true, "txid_current": true,
	"jsonb_path_exists_tz": true, "jsonb_path_match_tz": true, "jsonb_path_query_tz": true,
	"jsonb_path_query_array_tz": true, "jsonb_path_query_first_tz": true,
	"inet_client_addr": true, "inet_client_port": true, "inet_server_addr": true, "inet_server_port": true,
}

// zoneFunctions are functions (and operators) immutable in some forms
// and stable in others: those reading or making a timestamptz (or
// timetz) depend on the session's TimeZone.
var zoneFunctions = map[string]bool{
	"date": true, "date_part": true, "date_trunc": true, "extract": true, "overlaps": true, "time": true,
	"timestamp": true, "timestamptz": true, "timetz": true, "timezone": true, "to_timestamp": true,
	"date_bin": true, "generate_series": true, "age": true,
	"+": true, "-": true, "=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
}

// isMutable reports whether e calls a function or cast PostgreSQL does
// not mark immutable (contain_mutable_functions).
func isMutable(e Expr) bool { return mutableExcept(e, nil) }

// mutableExcept is isMutable not counting the nodes in skip.
func mutableExcept(e Expr, skip map[Expr]bool) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if skip[x] {
			return
		}
		switch x := x.(type) {
		case *Call:
			if mutableCall(x) {
				found = true
			}
		case *Cast:
			if _, lit := x.Arg.(*Const); lit {
				// A constant is converted once, when the statement
				// is bound (PostgreSQL folds it).
				return
			}
			if mutableCast(x.Arg.Type(), x.T) {
				found = true
			}
		}
	})
	return found
}

// mutableCall reports whether call c is not immutable.
func mutableCall(c *Call) bool {
	fn := strings.ToLower(c.Fn)
	if fn == functions.CollateFn || functions.SyntaxHelper(fn) {
		return false
	}
	fn = functions.PublicName(fn)
	if isTimeDependentCall(c) || stableFunctions[fn] || strings.HasPrefix(fn, "pg_") || strings.HasPrefix(fn, "has_") && strings.HasSuffix(fn, "_privilege") {
		return true
	}
	switch fn {
	case "age":
		// age(timestamp) counts from today.
		if len(c.Args) == 1 {
			return true
		}
	case "to_timestamp":
		// to_timestamp(text, text) reads the TimeZone; to_timestamp(float) does not.
		if len(c.Args) == 2 {
			return true
		}
	case "to_tsvector", "to_tsquery", "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery":
		// Without a configuration they read default_text_search_config.
		if len(c.Args) == 1 {
			return true
		}
	case "||":
		// text || non-text (anytextcat) is stable: the other side's
		// output function may read a setting.
		if len(c.Args) == 2 && c.Args[0].Type().ID != c.Args[1].Type().ID && !c.Args[0].Type().IsArray() && !c.Args[1].Type().IsArray() {
			return true
		}
	}
	if !zoneFunctions[fn] {
		return false
	}
	zoned, other := false, false
	for _, a := range c.Args {
		switch a.Type().ID {
		case types.Timestamptz:
			zoned = true
		case types.Date, types.Timestamp, types.Interval:
			other = true
		}
	}
	if isOperatorName(fn) {
		// timestamptz op timestamptz is immutable; mixed with a date,
		// a timestamp or an interval it is not.
		return zoned && other
	}
	return zoned || c.T.ID == types.Timestamptz
}

// mutableCast reports whether a cast from one type to another is not
// immutable: the date and time types' text forms read DateStyle (and
// TimeZone), conversions to and from timestamptz read TimeZone, and an
// enum's (or enum array's) conversions to and from any other type go
// through its labels' text, which RENAME VALUE may change.
func mutableCast(from, to types.T) bool {
	dt := func(t types.T) bool {
		switch t.ID {
		case types.Date, types.Timestamp, types.Timestamptz, types.Time, types.Interval:
			return true
		}
		return false
	}
	textual := func(t types.T) bool {
		switch t.ID {
		case types.Text, types.Varchar, types.Bpchar, types.Name, types.Unknown:
			return true
		}
		return false
	}
	zoned := func(t types.T) bool { return t.ID == types.Timestamptz }
	enum := func(t types.T) bool { return t.IsEnum() || t.IsArray() && t.Elem().IsEnum() }
	switch {
	case from.ID == to.ID:
		return false
	case from.ID == types.Unknown:
		// A literal is converted once, when the statement is bound.
		return false
	case from.IsEnum() && to.ID == types.Float8:
		// How comparisons of enums are bound: by the labels' sort
		// order, which renaming a label leaves alone.
		return false
	case enum(from) || enum(to):
		// enum_in and enum_out are stable: ALTER TYPE ... RENAME VALUE
		// changes the text of a label.
		return true
	case dt(from) && textual(to), textual(from) && dt(to) && from.ID != types.Unknown:
		return from.ID != types.Interval && to.ID != types.Interval
	case zoned(from) || zoned(to):
		return true
	}
	return false
}
