package planner

import (
	"github.com/weirdb/weir/sql"
	"math"
	"strconv"
	"strings"
	"time"

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
	b := &binder{cat: cat, deps: map[uint32]bool{}}
	return deparse(b.defaultExpr(rel, i)), nil
}

// sqlValueFunctions are the functions Postgres writes without
// parentheses (SQLValueFunction).
var sqlValueFunctions = map[string]string{
	"current_timestamp": "CURRENT_TIMESTAMP", "current_date": "CURRENT_DATE",
	"current_time": "CURRENT_TIME", "localtimestamp": "LOCALTIMESTAMP", "localtime": "LOCALTIME",
	"current_user": "CURRENT_USER", "session_user": "SESSION_USER", "user": "USER",
	"current_role": "CURRENT_ROLE", "current_catalog": "CURRENT_CATALOG", "current_schema": "CURRENT_SCHEMA",
}

// deparse prints e in Postgres's pretty deparsed form.
func deparse(e Expr) string {
	switch n := e.(type) {
	case *Const:
		return deparseConst(n)
	case *Cast:
		if n.Assign {
			return deparse(n.Arg)
		}
		// A typed literal ('2020-01-01'::date) stays a cast of its text
		// until run time; Postgres stores the converted constant.
		if k, ok := n.Arg.(*Const); ok && k.T.ID == types.Text && !k.V.Null {
			return quoteLiteral(k.V.S) + "::" + types.T{ID: n.T.ID, Mod: n.T.Mod}.String()
		}
		return deparseOperand(n.Arg) + "::" + n.T.String()
	case *Call:
		if n.Fn == "neg" && len(n.Args) == 1 {
			return "-" + deparseOperand(n.Args[0])
		}
		if infixOps[n.Fn] && len(n.Args) == 2 {
			return deparseOperand(n.Args[0]) + " " + n.Fn + " " + deparseOperand(n.Args[1])
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
				parts = append(parts, n.ArgNames[i]+" => "+deparse(a))
			default:
				parts = append(parts, deparse(a))
			}
		}
		if seqFuncs[n.Fn] && len(n.Args) > 0 {
			// The sequence functions take a regclass, which prints as
			// the relation's name.
			if k, ok := n.Args[0].(*Const); ok && k.T.ID == types.Text && !k.V.Null {
				parts[0] = quoteLiteral(regclassText(k.V.S)) + "::regclass"
			}
		}
		return n.Fn + "(" + strings.Join(parts, ", ") + ")"
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
func deparseOperand(e Expr) string {
	s := deparse(e)
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
func deparseConst(c *Const) string {
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
