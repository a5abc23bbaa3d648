package functions

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// System information functions (docs §9.26) answered the way a single
// local PostgreSQL 15 server with superuser "root" would, so that psql and
// drivers' catalog queries work.

// Version is what version() returns.
const Version = "PostgreSQL 15.0 (weir) on x86_64-pc-linux-gnu, compiled by go, 64-bit"

var (
	startTime = time.Now()
	txidSeq   atomic.Int64
)

func constText(s string) RowFn {
	return func(*Context, []types.Datum) (types.Datum, error) { return dText(s) }
}

func constBool(b bool) RowFn {
	return func(*Context, []types.Datum) (types.Datum, error) { return types.DBool(b), nil }
}

func nullFn(*Context, []types.Datum) (types.Datum, error) { return types.NullDatum, nil }

func sessionUser(ctx *Context) string {
	if ctx.Session != nil {
		return ctx.Session.User()
	}
	return "root"
}

// CurrentUserer is a session whose current_user can differ from its
// session_user (SET ROLE).
type CurrentUserer interface {
	// CurrentUser is the name of the role the session acts as.
	CurrentUser() string
}

// currentUser returns current_user: the role the session acts as.
func currentUser(ctx *Context) string {
	if cu, ok := ctx.Session.(CurrentUserer); ok {
		return cu.CurrentUser()
	}
	return sessionUser(ctx)
}

// describe asks the session's catalog about an object (see
// CatalogDescriber).
func describe(ctx *Context, fn string, oid int64, col int, pretty bool) (string, bool) {
	if cd, ok := ctx.Session.(CatalogDescriber); ok && oid >= 0 && oid <= math.MaxUint32 {
		return cd.DescribeObject(fn, uint32(oid), col, pretty)
	}
	return "", false
}

// systemOverloads lists the system information functions (docs §9.26),
// answering as a single local Postgres 15 server would, and the server
// signalling functions (docs §9.27.2).
func systemOverloads() []*Overload {
	var list []*Overload
	list = append(list, fn("version", row(constText(Version)), tText))
	curDB := func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		if ctx.Session != nil {
			return dText(ctx.Session.Database())
		}
		return dText("dev")
	}
	list = append(list, fn("current_database", row(curDB), tName))
	list = append(list, fn("current_catalog", row(curDB), tName))
	// current_schema and current_schemas ask the session for its active
	// search path; without a session, the default path's answer.
	currentSchemaImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "current_schema", 0, 0, false); ok {
			if s == "" {
				return types.NullDatum, nil
			}
			return dText(s)
		}
		return dText("public")
	})
	list = append(list, fn("current_schema", currentSchemaImpl, tName))
	currentSchemasImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "current_schemas", 0, int(d[0].I), false); ok {
			return dText(s)
		}
		if d[0].I != 0 {
			// The session's temporary schema, once it has one, is
			// searched first, implicitly.
			if s, ok := describe(ctx, "temp_schema_name", 0, 0, false); ok && s != "" {
				return dText("{" + s + ",pg_catalog,public}")
			}
			return dText("{pg_catalog,public}")
		}
		return dText("{public}")
	})
	list = append(list, fn("current_schemas", currentSchemasImpl, tTArr, tBool))
	// pg_my_temp_schema is the OID of the session's temporary schema, 0
	// before it has one.
	pgMyTempSchemaImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "pg_my_temp_schema", 0, 0, false); ok {
			n, err := strconv.ParseInt(s, 10, 64)
			return types.DInt(n), err
		}
		return types.DInt(0), nil
	})
	list = append(list, fn("pg_my_temp_schema", pgMyTempSchemaImpl, tOid))
	sessionUserImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) { return dText(sessionUser(ctx)) })
	list = append(list, fn("session_user", sessionUserImpl, tName))
	currentUserImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) { return dText(currentUser(ctx)) })
	for _, n := range []string{"current_user", "user", "current_role"} {
		list = append(list, fn(n, currentUserImpl, tName))
	}
	currentSettingImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if ctx.Session != nil {
			if v, ok := ctx.Session.Setting(d[0].S); ok {
				return dText(v)
			}
		}
		if len(d) > 1 && d[1].I != 0 {
			return types.NullDatum, nil
		}
		return types.NullDatum, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", d[0].S)
	})
	list = append(list, fn("current_setting", currentSettingImpl, tText, tText),
		fn("current_setting", currentSettingImpl, tText, tText, tBool))
	setConfigImpl := rowNS(func(c *Context, d []types.Datum) (types.Datum, error) {
		// set_config(name, value, is_local) is SET or SET LOCAL (a NULL
		// value: RESET) and returns the setting's new value.
		if d[0].Null {
			return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "SET requires parameter name")
		}
		sc, ok := c.Session.(SettingChanger)
		if !ok {
			return types.Datum{Null: d[1].Null, S: d[1].S}, nil
		}
		v, err := sc.SetSetting(d[0].S, d[1].S, d[1].Null, !d[2].Null && d[2].I != 0)
		if err != nil {
			return types.NullDatum, err
		}
		return types.DString(v), nil
	})
	list = append(list, &Overload{Name: "set_config", Fn: setConfigImpl, Args: []types.TypeID{tText, tText, tBool}, Ret: tText,
		NonStrict: true, Volatile: true})
	pgTypeofImpl := func(args []types.T, _ types.T) (Impl, bool) {
		// regtype output: the type without its modifier, and bpchar
		// spelled "character" (format_type without a typmod).
		name := args[0].TypeName()
		if args[0].ID == types.Unknown {
			name = "unknown"
		}
		return Impl{NonStrict: true, Row: constText(name)}, true
	}
	list = append(list, nonStrict("pg_typeof", pgTypeofImpl, tText, tAny))
	pid := int64(os.Getpid())
	pgBackendPidImpl := row(func(c *Context, _ []types.Datum) (types.Datum, error) {
		if bc, ok := c.Session.(BackendController); ok {
			return dInt(int64(bc.BackendPID()))
		}
		return dInt(pid)
	})
	list = append(list, volatile("pg_backend_pid", pgBackendPidImpl, tI4))
	// pg_cancel_backend(pid) and pg_terminate_backend(pid [, timeout
	// ms]) signal another session; pg_reload_conf() applies ALTER
	// SYSTEM.
	pgCancelBackendImpl := func([]types.T, types.T) (Impl, bool) {
		return Impl{Row: func(c *Context, d []types.Datum) (types.Datum, error) {
			bc, err := backendController(c, "pg_cancel_backend")
			if err != nil {
				return types.Datum{}, err
			}
			ok, err := bc.SignalBackend(c.Cancel, int32(d[0].I), false, 0)
			return types.DBool(ok), err
		}}, true
	}
	list = append(list, volatile("pg_cancel_backend", pgCancelBackendImpl, tBool, tI4))
	pgTerminateBackendImpl := func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{Row: func(c *Context, d []types.Datum) (types.Datum, error) {
			var timeout int64
			if len(d) > 1 {
				timeout = d[1].I
			}
			if timeout < 0 {
				return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "\"timeout\" must not be negative")
			}
			bc, err := backendController(c, "pg_terminate_backend")
			if err != nil {
				return types.Datum{}, err
			}
			wait := time.Duration(math.MaxInt64)
			if timeout < int64(wait/time.Millisecond) {
				wait = time.Duration(timeout) * time.Millisecond
			}
			ok, err := bc.SignalBackend(c.Cancel, int32(d[0].I), true, wait)
			return types.DBool(ok), err
		}}, true
	}
	list = append(list, volatile("pg_terminate_backend", pgTerminateBackendImpl, tBool, tI4),
		volatile("pg_terminate_backend", pgTerminateBackendImpl, tBool, tI4, tI8))
	pgReloadConfImpl := row(func(c *Context, _ []types.Datum) (types.Datum, error) {
		bc, err := backendController(c, "pg_reload_conf")
		if err != nil {
			return types.Datum{}, err
		}
		ok, err := bc.ReloadConf()
		return types.DBool(ok), err
	})
	list = append(list, volatile("pg_reload_conf", pgReloadConfImpl, tBool))
	// has_sequence_privilege([user,] sequence, privileges) asks the
	// session (SequencePrivilegeChecker); without one every role holds
	// every privilege.
	hasSequencePrivilegeImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		pc, ok := ctx.Session.(SequencePrivilegeChecker)
		if !ok {
			return types.DBool(true), nil
		}
		user := currentUser(ctx)
		if len(d) == 3 {
			user = d[0].S
		}
		ok, err := pc.HasSequencePrivilege(user, d[len(d)-2].S, d[len(d)-1].S)
		if err != nil {
			return types.NullDatum, err
		}
		return types.DBool(ok), nil
	})
	list = append(list, fn("has_sequence_privilege", hasSequencePrivilegeImpl, tBool, tText, tText),
		fn("has_sequence_privilege", hasSequencePrivilegeImpl, tBool, tName, tText, tText))
	// has_function_privilege asks the session (FunctionPrivilegeChecker);
	// overloads: (function, priv), (user, function, priv), with the
	// function as regprocedure text or an OID. Without a checker EXECUTE
	// is PUBLIC's, as PostgreSQL's default.
	hasFunctionPrivilegeImpl := func(args []types.T, _ types.T) (Impl, bool) {
		byOID := args[len(args)-2].ID == types.Oid
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			pc, ok := ctx.Session.(FunctionPrivilegeChecker)
			if !ok {
				return types.DBool(true), nil
			}
			user := currentUser(ctx)
			if len(d) == 3 {
				user = d[0].S
			}
			fn := d[len(d)-2]
			var oid uint32
			if byOID {
				oid = uint32(fn.I)
			}
			held, found, err := pc.HasFunctionPrivilege(user, fn.S, oid, d[len(d)-1].S)
			if err != nil || !found {
				return types.NullDatum, err
			}
			return types.DBool(held), nil
		}}, true
	}
	list = append(list, fn("has_function_privilege", hasFunctionPrivilegeImpl, tBool, tText, tText),
		fn("has_function_privilege", hasFunctionPrivilegeImpl, tBool, tName, tText, tText),
		fn("has_function_privilege", hasFunctionPrivilegeImpl, tBool, tOid, tText),
		fn("has_function_privilege", hasFunctionPrivilegeImpl, tBool, tName, tOid, tText))
	// has_table_privilege asks the session when it can check privileges
	// (PrivilegeChecker); overloads: (table, priv), (user, table, priv),
	// with the table as a name or an OID in either.
	hasTablePrivilegeImpl := func(args []types.T, _ types.T) (Impl, bool) {
		byOID := args[len(args)-2].ID == types.Oid
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			pc, ok := ctx.Session.(PrivilegeChecker)
			if !ok {
				return types.DBool(true), nil
			}
			// The two-argument form asks for the role the session acts
			// as (GetUserId), not the session user.
			user := currentUser(ctx)
			if len(d) == 3 {
				user = d[0].S
			}
			tbl := d[len(d)-2]
			var oid uint32
			if byOID {
				oid = uint32(tbl.I)
			}
			ok, err := pc.HasTablePrivilege(user, tbl.S, oid, d[len(d)-1].S)
			if err != nil {
				return types.NullDatum, err
			}
			return types.DBool(ok), nil
		}}, true
	}
	list = append(list, fn("has_table_privilege", hasTablePrivilegeImpl, tBool, tText, tText),
		fn("has_table_privilege", hasTablePrivilegeImpl, tBool, tName, tText, tText),
		fn("has_table_privilege", hasTablePrivilegeImpl, tBool, tOid, tText),
		fn("has_table_privilege", hasTablePrivilegeImpl, tBool, tName, tOid, tText))
	// Functions, operators and types are all in pg_catalog, which is
	// always searched; weir has no conversions or operator classes.
	// pg_type_is_visible asks the session about a user type (one outside
	// the search path is not visible).
	pgTypeIsVisibleImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "pg_type_is_visible", d[0].I, 0, false); ok {
			return types.DBool(s == "t"), nil
		}
		return types.DBool(true), nil
	})
	list = append(list, fn("pg_type_is_visible", pgTypeIsVisibleImpl, tBool, tOid))
	for _, n := range []string{"pg_function_is_visible",
		"pg_operator_is_visible", "pg_conversion_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
		"has_schema_privilege", "has_database_privilege"} {
		switch n {
		case "has_schema_privilege", "has_database_privilege":
			list = append(list, fn(n, row(constBool(true)), tBool, tText, tText), fn(n, row(constBool(true)), tBool, tName, tText, tText))
		default:
			list = append(list, fn(n, row(constBool(true)), tBool, tOid))
		}
	}
	// pg_table_is_visible asks the session (a relation outside the search
	// path is not visible); relations it does not answer for are.
	pgTableIsVisibleImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "pg_table_is_visible", d[0].I, 0, false); ok {
			return types.DBool(s == "t"), nil
		}
		return types.DBool(true), nil
	})
	list = append(list, fn("pg_table_is_visible", pgTableIsVisibleImpl, tBool, tOid))
	// regclassout prints a regclass (weir's regclass values are OIDs) as
	// Postgres does: the relation's name, qualified when it is not
	// visible, "-" for OID 0 (InvalidOid), or the number for an OID that
	// names no relation.
	regclassoutImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if d[0].I == 0 {
			return dText("-")
		}
		if s, ok := describe(ctx, "regclassout", d[0].I, 0, false); ok {
			return dText(s)
		}
		return dText(strconv.FormatInt(d[0].I, 10))
	})
	list = append(list, fn("regclassout", regclassoutImpl, tText, tOid))
	// pg_regin reads a name (not a constant: the binder resolves
	// those) as the input function of reg* type d[1] reads it.
	pgReginImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		r, ok := ctx.Session.(RegResolver)
		if !ok {
			return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "%s input of a value computed at run time is not supported here", d[1].S)
		}
		oid, err := r.ResolveReg(d[1].S, d[0].S)
		if err != nil {
			return types.NullDatum, err
		}
		return types.DInt(int64(oid)), nil
	})
	list = append(list, fn("pg_regin", pgReginImpl, tOid, tText, tText))
	// pg_regout prints an OID (not a constant: the binder prints those)
	// as the output function of reg* type d[1] prints it.
	pgRegoutImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		r, ok := ctx.Session.(RegResolver)
		if !ok || d[0].I < 0 || d[0].I > math.MaxUint32 {
			return dText(strconv.FormatInt(d[0].I, 10))
		}
		s, err := r.RegText(d[1].S, uint32(d[0].I))
		if err != nil {
			return types.NullDatum, err
		}
		return dText(s)
	})
	list = append(list, fn("pg_regout", pgRegoutImpl, tText, tOid, tText))
	list = append(list, fn("pg_relation_is_publishable", row(constBool(false)), tBool, tOid))
	// The signature functions over pg_proc's OIDs (Procs): NULL for an
	// OID that names no function.
	for _, n := range []string{"pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments"} {
		result := n == "pg_get_function_result"
		list = append(list, fn(n, row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
			p, ok := ProcByOID(uint32(d[0].I))
			switch {
			case !ok:
				// A user function's, which the session describes.
				if s, ok := describe(ctx, n, d[0].I, 0, false); ok {
					return dText(s)
				}
				return types.NullDatum, nil
			case result:
				return dText(p.Result)
			}
			return dText(p.Arguments)
		}), tText, tOid))
	}
	pgGetFunctiondefImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		p, ok := ProcByOID(uint32(d[0].I))
		if !ok {
			if s, ok := describe(ctx, "pg_get_functiondef", d[0].I, 0, false); ok {
				return dText(s)
			}
			return types.NullDatum, nil
		}
		if p.Kind == 'a' {
			return types.NullDatum, pgerr.New(pgerr.WrongObjectType, "\"%s\" is an aggregate function", p.Name)
		}
		return dText(p.Definition())
	})
	list = append(list, fn("pg_get_functiondef", pgGetFunctiondefImpl, tText, tOid))
	// weir keeps its data in its data directory, which is no tablespace:
	// pg_tablespace_location is empty, as for PostgreSQL's pg_default.
	list = append(list, fn("pg_tablespace_location", row(constText("")), tText, tOid))
	list = append(list, fn("pg_is_in_recovery", row(constBool(false)), tBool))
	// pg_get_userbyid names unknown roles as Postgres does.
	pgGetUserbyidImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "pg_get_userbyid", d[0].I, 0, false); ok {
			return dText(s)
		}
		return dText(fmt.Sprintf("unknown (OID=%d)", uint32(d[0].I)))
	})
	list = append(list, fn("pg_get_userbyid", pgGetUserbyidImpl, tName, tOid))
	formatTypeImpl := rowNS(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null {
			return types.NullDatum, nil
		}
		if d[0].I == 0 {
			return dText("-") // InvalidOid, as format_type prints it
		}
		t, ok := types.ByOID(uint32(d[0].I))
		if !ok {
			if s, ok := describe(ctx, "format_type", d[0].I, 0, false); ok {
				return dText(s)
			}
			return dText("???")
		}
		typmod, given := int32(-1), !d[1].Null
		if given {
			typmod = int32(d[1].I)
		}
		return formatType(t, typmod, given)
	})
	list = append(list, nonStrict("format_type", formatTypeImpl, tText, tOid, tI4))
	pgEncodingToCharImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) {
		if d[0].I >= 0 && d[0].I < int64(len(pgEncodings)) {
			return dText(pgEncodings[d[0].I])
		}
		return dText("")
	})
	list = append(list, fn("pg_encoding_to_char", pgEncodingToCharImpl, tName, tI4))
	// pg_get_expr(expr, relid [, pretty]): the stored text is the pretty
	// form; the plain one is printed again from its binding.
	pgGetExprImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		pretty := len(d) == 3 && d[2].I != 0
		if ed, ok := ctx.Session.(ExprDescriber); ok && d[1].I >= 0 && d[1].I <= math.MaxUint32 {
			if s, ok := ed.DescribeExpr(d[0].S, uint32(d[1].I), pretty); ok {
				return dText(s)
			}
		}
		return dText(d[0].S)
	})
	list = append(list, fn("pg_get_expr", pgGetExprImpl, tText, tText, tOid),
		fn("pg_get_expr", pgGetExprImpl, tText, tText, tOid, tBool))
	// weir has no triggers (pg_trigger is empty): no OID names one.
	pgGetTriggerdefImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return types.NullDatum, nil })
	list = append(list, fn("pg_get_triggerdef", pgGetTriggerdefImpl, tText, tOid),
		fn("pg_get_triggerdef", pgGetTriggerdefImpl, tText, tOid, tBool))
	// pg_get_indexdef(oid [, col, pretty]), pg_get_constraintdef(oid
	// [, pretty]), pg_get_viewdef(oid [, pretty]): NULL for unknown OIDs.
	for _, n := range []string{"pg_get_indexdef", "pg_get_constraintdef", "pg_get_viewdef"} {
		n := n
		im := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
			col, pretty := 0, false
			switch {
			case n == "pg_get_indexdef" && len(d) == 3:
				col, pretty = int(d[1].I), d[2].I != 0
			case len(d) == 2:
				pretty = d[1].I != 0
			}
			if s, ok := describe(ctx, n, d[0].I, col, pretty); ok {
				return dText(s)
			}
			return types.NullDatum, nil
		})
		if n == "pg_get_indexdef" {
			list = append(list, fn(n, im, tText, tOid), fn(n, im, tText, tOid, tI4, tBool))
		} else {
			list = append(list, fn(n, im, tText, tOid), fn(n, im, tText, tOid, tBool))
		}
	}
	list = append(list, fn("pg_get_statisticsobjdef_columns", row(nullFn), tText, tOid))
	pgGetRuledefImpl := row(nullFn)
	list = append(list, fn("pg_get_ruledef", pgGetRuledefImpl, tText, tOid),
		fn("pg_get_ruledef", pgGetRuledefImpl, tText, tOid, tBool)) // weir has no rules
	// A SQL-standard body (RETURN expr) of a user function, as the
	// session prints it; NULL for the others, whose body is prosrc.
	pgGetFunctionSqlbodyImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if s, ok := describe(ctx, "pg_get_function_sqlbody", d[0].I, 0, false); ok {
			return dText(s)
		}
		return types.NullDatum, nil
	})
	list = append(list, fn("pg_get_function_sqlbody", pgGetFunctionSqlbodyImpl, tText, tOid))
	// weir does not account the storage of a database (its data
	// directory holds them all): the size is NULL, which psql's \l+
	// prints empty.
	list = append(list, fn("pg_database_size", row(nullFn), tI8, tName))
	// A relation's size is what its tables hold in the store (see
	// syscat's relationSize); NULL for an OID no relation has.
	for _, n := range []string{"pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size"} {
		list = append(list, fn(n, row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
			s, ok := describe(ctx, n, d[0].I, 0, false)
			if !ok {
				return types.NullDatum, nil
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return types.NullDatum, pgerr.New(pgerr.InternalError, "%s: %v", n, err)
			}
			return dInt(v)
		}), tI8, tOid))
	}
	pgSizePrettyImpl := row(func(_ *Context, d []types.Datum) (types.Datum, error) { return dText(sizePretty(d[0].I)) })
	list = append(list, fn("pg_size_pretty", pgSizePrettyImpl, tText, tI8))
	list = append(list, fn("shobj_description", row(nullFn), tText, tOid, tName),
		fn("inet_server_addr", row(nullFn), tText), fn("inet_server_port", row(nullFn), tI4))
	// obj_description(oid [, catalog]) and col_description(oid, column)
	// print COMMENT ON's texts and the descriptions of weir's own views;
	// NULL otherwise.
	objDescriptionImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null || len(d) > 1 && !d[1].Null && d[1].S != "pg_class" {
			return types.NullDatum, nil
		}
		if s, ok := describe(ctx, "obj_description", d[0].I, 0, false); ok {
			return dText(s)
		}
		return types.NullDatum, nil
	})
	list = append(list, fn("obj_description", objDescriptionImpl, tText, tOid),
		fn("obj_description", objDescriptionImpl, tText, tOid, tName))
	colDescriptionImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		if d[0].Null || d[1].Null || d[1].I <= 0 {
			return types.NullDatum, nil
		}
		if s, ok := describe(ctx, "col_description", d[0].I, int(d[1].I), false); ok {
			return dText(s)
		}
		return types.NullDatum, nil
	})
	list = append(list, fn("col_description", colDescriptionImpl, tText, tOid, tI4))
	pgPostmasterStartTimeImpl := row(func(*Context, []types.Datum) (types.Datum, error) {
		return dInt(startTime.UnixMicro())
	})
	list = append(list, fn("pg_postmaster_start_time", pgPostmasterStartTimeImpl, tTSTZ))
	txidCurrentImpl := row(func(*Context, []types.Datum) (types.Datum, error) { return dInt(txidSeq.Add(1) + 1000) })
	list = append(list, volatile("txid_current", txidCurrentImpl, tI8))
	return list
}

// sizePretty is pg_size_pretty(bigint) of Postgres 15 (dbsize.c): bytes
// below 10 kB, then the largest unit whose value stays below 20480
// (10 * 1024 * 2), rounding half away from zero.
func sizePretty(size int64) string {
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	halfRounded := func(x int64) int64 {
		if x < 0 {
			return (x - 1) / 2
		}
		return (x + 1) / 2
	}
	const limit = 10 * 1024
	if abs(size) < limit {
		return fmt.Sprintf("%d bytes", size)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	// Keep one extra bit for rounding.
	size >>= 9
	for i, u := range units {
		if abs(size) < limit*2-1 || i == len(units)-1 {
			return fmt.Sprintf("%d %s", halfRounded(size), u)
		}
		size >>= 10
	}
	return ""
}

// pgEncodings are PostgreSQL's encoding names by number (pg_wchar.h's
// enum pg_enc), as pg_encoding_to_char prints them.
var pgEncodings = []string{"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8",
	"MULE_INTERNAL", "LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9",
	"LATIN10", "WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252", "ISO_8859_5",
	"ISO_8859_6", "ISO_8859_7", "ISO_8859_8", "WIN1250", "WIN1253", "WIN1254", "WIN1255", "WIN1257", "KOI8U",
	"SJIS", "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004"}

// Sequences is implemented by sessions that reach the database's
// sequences, for nextval, currval and setval. Names are as written in
// the text argument (an unquoted name is folded to lower case).
// Errors: 42P01 for an unknown sequence, 55000 for currval before
// nextval in the session, 2200H past the sequence's bounds, 22003 for
// setval out of them.
type Sequences interface {
	NextVal(name string) (int64, error)
	// IdentityNextVal is an identity column's next value
	// (IdentityNextValFn): nextval without the privilege check.
	IdentityNextVal(name string) (int64, error)
	CurrVal(name string) (int64, error)
	// LastVal is lastval(): the value of the sequence nextval was last
	// applied to in the session (55000 before any).
	LastVal() (int64, error)
	SetVal(name string, v int64, isCalled bool) (int64, error)
	// SerialSequence is pg_get_serial_sequence(table, column): the
	// schema-qualified name of the sequence of a serial or identity
	// column, ok false for another column.
	SerialSequence(table, column string) (name string, ok bool, err error)
}

// sequences returns the session's Sequences, or 0A000 without one.
func sequences(ctx *Context) (Sequences, error) {
	if ctx != nil {
		if s, ok := ctx.Session.(Sequences); ok {
			return s, nil
		}
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "sequences are not available here")
}

// seqImpl implements a sequence function by f: its first argument, of
// type at, is the sequence's name, or its regclass (OID) when at is oid.
func seqImpl(f func(s Sequences, name string, d []types.Datum) (int64, error)) ImplFactory {
	return func(args []types.T, _ types.T) (Impl, bool) {
		return Impl{Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
			s, err := sequences(ctx)
			if err != nil {
				return types.NullDatum, err
			}
			name := d[0].S
			if len(args) > 0 && args[0].ID == types.Oid {
				var ok bool
				if name, ok = describe(ctx, "regclassout", d[0].I, 0, false); !ok {
					return types.NullDatum, pgerr.New(pgerr.InternalError, "could not open relation with OID %d", uint32(d[0].I))
				}
			}
			v, err := f(s, name, d)
			return types.DInt(v), err
		}}, true
	}
}

// identityNextVal implements IdentityNextValFn.
func identityNextVal(args []types.T, ret types.T) (Impl, bool) {
	return seqImpl(func(s Sequences, name string, _ []types.Datum) (int64, error) { return s.IdentityNextVal(name) })(args, ret)
}

// sequenceOverloads lists the sequence functions (docs §9.17) on the
// sequences of serial and identity columns, named by text or by a
// regclass (an OID; the binder reads a 'name'::regclass literal as the
// text).
func sequenceOverloads() []*Overload {
	var list []*Overload
	nextvalImpl := seqImpl(func(s Sequences, name string, _ []types.Datum) (int64, error) { return s.NextVal(name) })
	list = append(list, volatile("nextval", nextvalImpl, tI8, tText), volatile("nextval", nextvalImpl, tI8, tOid))
	currvalImpl := seqImpl(func(s Sequences, name string, _ []types.Datum) (int64, error) { return s.CurrVal(name) })
	list = append(list, volatile("currval", currvalImpl, tI8, tText), volatile("currval", currvalImpl, tI8, tOid))
	lastvalImpl := row(func(ctx *Context, _ []types.Datum) (types.Datum, error) {
		s, err := sequences(ctx)
		if err != nil {
			return types.NullDatum, err
		}
		v, err := s.LastVal()
		return types.DInt(v), err
	})
	list = append(list, volatile("lastval", lastvalImpl, tI8))
	pgGetSerialSequenceImpl := row(func(ctx *Context, d []types.Datum) (types.Datum, error) {
		s, err := sequences(ctx)
		if err != nil {
			return types.NullDatum, err
		}
		name, ok, err := s.SerialSequence(d[0].S, d[1].S)
		if err != nil || !ok {
			return types.NullDatum, err
		}
		return types.DString(name), nil
	})
	list = append(list, volatile("pg_get_serial_sequence", pgGetSerialSequenceImpl, tText, tText, tText))
	setvalImpl := seqImpl(func(s Sequences, name string, d []types.Datum) (int64, error) {
		return s.SetVal(name, d[1].I, len(d) < 3 || d[2].I != 0)
	})
	list = append(list, volatile("setval", setvalImpl, tI8, tText, tI8),
		volatile("setval", setvalImpl, tI8, tText, tI8, tBool), volatile("setval", setvalImpl, tI8, tOid, tI8),
		volatile("setval", setvalImpl, tI8, tOid, tI8, tBool))
	return list
}

// Cursors is implemented by sessions with cursors, for WHERE CURRENT OF.
// CurrentOf returns the key of the row of relation rel (named table) the
// cursor stands on, with PostgreSQL's errors: 34000 for an unknown
// cursor, 24000 when it is held from a previous transaction, is not a
// simply updatable scan of rel or stands on no row.
type Cursors interface {
	CurrentOf(cursor, table string, rel uint32) ([]types.Datum, error)
}

// currentOf implements pg_current_of(cursor, table, rel, key...), the
// binder's WHERE CURRENT OF: true when the key columns given equal the
// key of the row the cursor stands on.
func currentOf(args []types.T, _ types.T) (Impl, bool) {
	if len(args) < 4 {
		return Impl{}, false
	}
	keyTypes := args[3:]
	return Impl{NonStrict: true, Row: func(ctx *Context, d []types.Datum) (types.Datum, error) {
		var cs Cursors
		if ctx != nil {
			cs, _ = ctx.Session.(Cursors)
		}
		if cs == nil {
			return types.NullDatum, pgerr.New(pgerr.FeatureNotSupported, "WHERE CURRENT OF is not supported here")
		}
		key, err := cs.CurrentOf(d[0].S, d[1].S, uint32(d[2].I))
		if err != nil {
			return types.NullDatum, err
		}
		for i, t := range keyTypes {
			v := d[3+i]
			if i >= len(key) || v.Null || key[i].Null || types.Compare(v, key[i], t) != 0 {
				return types.DBool(false), nil
			}
		}
		return types.DBool(true), nil
	}}, true
}

// backendController returns the session's BackendController, or 0A000
// when the function runs where there is no session to signal from (a
// streaming job).
func backendController(c *Context, fn string) (BackendController, error) {
	if c != nil {
		if bc, ok := c.Session.(BackendController); ok {
			return bc, nil
		}
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s cannot run here", fn).
		WithDetail("Only a client session can signal sessions or reload the configuration.")
}

// formatType is PostgreSQL's format_type_extended for type t and a
// typmod (given, or NULL): the SQL spelling of the types the grammar
// names specially, with the modifier their typmodout prints; other
// types print their pg_type name and any modifier given, in
// parentheses; an array its element's spelling and "[]".
func formatType(t types.T, typmod int32, given bool) (types.Datum, error) {
	suffix := ""
	if t.IsArray() {
		t, suffix = t.Elem(), "[]"
	}
	with := given && typmod >= 0
	mod := func(base, m string) string {
		if with {
			return base + m
		}
		return base
	}
	var out string
	switch t.ID {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8:
		out = t.ID.Name()
	case types.Bpchar:
		switch {
		case with:
			out = "character" + charMod(typmod)
		case given:
			// bpchar with typmod -1 is not character, which means
			// character(1).
			out = "bpchar"
		default:
			out = "character"
		}
	case types.Varchar:
		out = mod("character varying", charMod(typmod))
	case types.Numeric:
		m := ""
		if typmod >= 4 {
			m = fmt.Sprintf("(%d,%d)", ((typmod-4)>>16)&0xffff, (((typmod-4)&0x7ff)^1024)-1024)
		}
		out = mod("numeric", m)
	case types.Time:
		out = mod("time", fmt.Sprintf("(%d)", typmod)) + " without time zone"
	case types.Timestamp:
		out = mod("timestamp", fmt.Sprintf("(%d)", typmod)) + " without time zone"
	case types.Timestamptz:
		out = mod("timestamp", fmt.Sprintf("(%d)", typmod)) + " with time zone"
	case types.Interval:
		out = "interval"
		if with {
			m, err := intervalMod(typmod)
			if err != nil {
				return types.NullDatum, err
			}
			out += m
		}
	default:
		out = mod(t.ID.Name(), fmt.Sprintf("(%d)", typmod))
	}
	return dText(out + suffix)
}

// charMod is PostgreSQL's anychar_typmodout: the length, when the
// typmod holds one.
func charMod(typmod int32) string {
	if typmod > 4 {
		return fmt.Sprintf("(%d)", typmod-4)
	}
	return ""
}

// intervalMod is PostgreSQL's intervaltypmodout: the fields of the
// range (its high 15 bits) and the precision (its low 16), "" for the
// full range and precision.
func intervalMod(typmod int32) (string, error) {
	const (
		year, month, day, hour, minute, second = 1 << 2, 1 << 1, 1 << 3, 1 << 10, 1 << 11, 1 << 12
		fullRange, fullPrecision               = 0x7fff, 0xffff
	)
	fields := map[int32]string{
		year: " year", month: " month", day: " day", hour: " hour", minute: " minute", second: " second",
		year | month: " year to month", day | hour: " day to hour", day | hour | minute: " day to minute",
		day | hour | minute | second: " day to second", hour | minute: " hour to minute",
		hour | minute | second: " hour to second", minute | second: " minute to second", fullRange: "",
	}
	f, ok := fields[(typmod>>16)&0x7fff]
	if !ok {
		return "", pgerr.New(pgerr.InternalError, "invalid INTERVAL typmod: 0x%x", typmod)
	}
	if p := typmod & 0xffff; p != fullPrecision {
		f += fmt.Sprintf("(%d)", p)
	}
	return f, nil
}

// indeterminateCollation implements IndeterminateCollationFn:
// pg_indeterminate_collation stands, from the binder, for an
// operation that needs a collation where its operands have two
// different ones (planner.markIndeterminate): as PostgreSQL's, it
// fails once it runs on values, not on NULLs. Its last argument
// names the operation.
func indeterminateCollation([]types.T, types.T) (Impl, bool) {
	return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
		return types.Datum{}, pgerr.New(pgerr.IndeterminateCollation, "could not determine which collation to use for %s", d[len(d)-1].S).
			WithHint("Use the COLLATE clause to set the collation explicitly.")
	}}, true
}

// collate implements CollateFn: x COLLATE name is x.
func collate([]types.T, types.T) (Impl, bool) {
	return Impl{NonStrict: true, Row: func(_ *Context, d []types.Datum) (types.Datum, error) { return d[0], nil }}, true
}
