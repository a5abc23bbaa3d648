package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file runs CREATE FUNCTION and DROP FUNCTION for user SQL
// functions (catalog.Function), which the binder inlines where they
// are called (planner/bind_userfunc.go).
//
// What uses a function: a view, materialized view or sink records the
// functions its definition calls (catalog.Relation.Funcs); a table's
// defaults, generated columns and CHECK constraints and an index's
// expressions hold none, so DROP FUNCTION binds them again to find
// which call it (planner.WithFuncUse).

// Functions implements planner.FuncCatalog: a function named without a
// schema is looked for in public, as relations are. A materialized
// view's definition bound again sees the functions as they were when it
// was created (catalog.Relation.Funcs).
func (v catalogView) Functions(schema, name string) []*catalog.Function {
	if schema == "" {
		schema = catalog.PublicSchema
	}
	fs := v.s.eng.cat.FunctionsNamed(schema, name)
	for i, f := range fs {
		if p, ok := v.s.funcPins[f.OID]; ok {
			fs[i] = p
		}
	}
	return fs
}

// createFunction runs CREATE [OR REPLACE] FUNCTION.
func (s *Session) createFunction(ctx context.Context, st *sql.CreateFunction) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE FUNCTION"); err != nil {
		return nil, err
	}
	schema, err := s.typeCreationSchema(st.Name)
	if err != nil {
		return nil, err
	}
	if slices.Contains(catalog.SystemSchemas, schema) || !s.hasSchemaPrivilege(schema, catalog.PrivCreate) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema %s", schema)
	}
	switch st.Language {
	case "sql":
	case "plpgsql", "c", "internal", "plpython3u", "plperl", "pltcl", "plv8", "python", "javascript", "rust", "java", "wasm":
		return nil, pgerr.New(pgerr.FeatureNotSupported, "functions in language %s are not supported", st.Language).
			WithHint("weir has SQL functions whose body is one expression: LANGUAGE sql AS 'SELECT expr', or RETURN expr.")
	default:
		return nil, pgerr.New(pgerr.UndefinedObject, "language \"%s\" does not exist", st.Language)
	}
	e := s.eng
	f := &catalog.Function{Schema: schema, Name: st.Name.Name, Owner: s.role().OID, Volatility: st.Volatility, Strict: st.Strict,
		Src: st.Body, Return: st.Return}
	seen := map[string]bool{}
	for _, a := range st.Args {
		t, err := s.funcType(a.Type)
		if err != nil {
			return nil, err
		}
		if a.Name != "" {
			if seen[a.Name] {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "parameter name \"%s\" used more than once", a.Name)
			}
			seen[a.Name] = true
		}
		f.ArgNames = append(f.ArgNames, a.Name)
		f.ArgTypes = append(f.ArgTypes, t)
	}
	if f.Ret, err = s.funcType(st.Returns); err != nil {
		return nil, err
	}
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	old := findFunction(e.cat.FunctionsNamed(schema, f.Name), f.ArgTypes)
	if old != nil && st.OrReplace {
		if !s.hasPrivsOfRole(old.Owner) {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of function %s", old.Name)
		}
		if old.Ret.ID != f.Ret.ID {
			return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change return type of existing function").
				WithHint("Use DROP FUNCTION %s first.", old.ObjectSignature(false))
		}
		for i, n := range old.ArgNames {
			if n != "" && n != f.ArgNames[i] {
				return nil, pgerr.New(pgerr.InvalidFunctionDefinition, "cannot change name of input parameter \"%s\"", n).
					WithHint("Use DROP FUNCTION %s first.", old.ObjectSignature(false))
			}
		}
	}
	if old != nil && !st.OrReplace {
		return nil, pgerr.New(pgerr.DuplicateFunction, "function \"%s\" already exists with same argument types", f.Name)
	}
	if _, err := planner.CheckFunction(ctx, f, st.BodyPos, s.catalogView()); err != nil {
		return nil, err
	}
	if old == nil {
		if f.OID, err = e.cat.NextOID(); err != nil {
			return nil, err
		}
	}
	if _, err := e.cat.CreateFunction(f, st.OrReplace); err != nil {
		return nil, err
	}
	return done("CREATE FUNCTION")
}

// funcType is the type of a function's parameter or result as
// PostgreSQL keeps it: without its modifier. User types (enums,
// domains) are refused with 0A000.
func (s *Session) funcType(tn sql.TypeName) (types.T, error) {
	if tn.User != nil {
		if err := s.resolveTypeName(&tn); err != nil {
			return types.TUnknown, err
		}
		return types.TUnknown, pgerr.New(pgerr.FeatureNotSupported, "functions over user-defined types (%s) are not supported", tn.Text)
	}
	if tn.Err != nil {
		return types.TUnknown, tn.Err
	}
	t := tn.T
	t.Mod = -1
	return t, nil
}

// findFunction returns the function of fs taking exactly args, or nil.
func findFunction(fs []*catalog.Function, args []types.T) *catalog.Function {
	for _, f := range fs {
		if f.SameArgs(args) {
			return f
		}
	}
	return nil
}

// funcDependent is something that uses a function: a relation (a view,
// materialized view, sink or index), or a part of a table (a default, a
// generated column, a CHECK constraint) that DROP FUNCTION ... CASCADE
// removes as ALTER TABLE does, or a function whose RETURN body calls it.
type funcDependent struct {
	rel *catalog.Relation
	// fn is set instead of rel for a function whose RETURN body calls
	// the function.
	fn   *catalog.Function
	desc string
	// part is set for a part of a table: drop says which ("default",
	// "column" or "check"), and name is the column's or constraint's.
	part bool
	drop string
	name string
}

// funcDependents lists what uses f, in the order of the relations'
// ids, each as PostgreSQL's dependency messages describe it.
func (s *Session) funcDependents(ctx context.Context, f *catalog.Function) []funcDependent {
	e := s.eng
	var out []funcDependent
	cat := s.catalogView()
	for _, rel := range e.cat.All() {
		if slices.Contains(rel.FuncDeps, f.OID) {
			out = append(out, funcDependent{rel: rel, desc: kindWords[rel.Kind] + " " + rel.Name})
			continue
		}
		used := false
		uctx := planner.WithFuncUse(ctx, func(oid uint32) { used = used || oid == f.OID })
		switch rel.Kind {
		case catalog.KindTable:
			for i, c := range rel.Cols {
				if c.Dropped {
					continue
				}
				used = false
				switch {
				case c.Generated != "":
					planner.BindGenerated(uctx, rel, i, c.Generated, 0, cat)
					if used {
						out = append(out, funcDependent{rel: rel, desc: fmt.Sprintf("column %s of table %s", c.Name, rel.Name), part: true, drop: "column", name: c.Name})
					}
				case c.Default != "":
					planner.DefaultType(uctx, c.Default, c.T, cat)
					if used {
						out = append(out, funcDependent{rel: rel, desc: fmt.Sprintf("default value for column %s of table %s", c.Name, rel.Name), part: true, drop: "default", name: c.Name})
					}
				}
			}
			for _, c := range rel.Checks {
				used = false
				planner.BindCheck(uctx, rel, c.Expr, 0, cat)
				if used {
					out = append(out, funcDependent{rel: rel, desc: fmt.Sprintf("constraint %s on table %s", c.Name, rel.Name), part: true, drop: "check", name: c.Name})
				}
			}
		case catalog.KindIndex:
			on, ok := e.indexedRelation(rel)
			if !ok {
				continue
			}
			for _, x := range rel.IndexExprs() {
				if x != "" {
					planner.BindIndexExpr(uctx, on, x, 0, cat)
				}
			}
			if p := rel.IndexPredicate(); p != "" {
				planner.BindIndexPredicate(uctx, on, p, 0, cat)
			}
			if used {
				out = append(out, funcDependent{rel: rel, desc: "index " + rel.Name})
			}
		}
	}
	// A function whose SQL-standard body (RETURN expr) calls f depends
	// on it, as PostgreSQL records for prosqlbody; a body of AS '...'
	// is only text there, and depends on nothing.
	for _, g := range e.cat.Functions() {
		if !g.Return || g.OID == f.OID {
			continue
		}
		used := false
		uctx := planner.WithFuncUse(ctx, func(oid uint32) { used = used || oid == f.OID })
		planner.CheckFunction(uctx, g, 0, cat)
		if used {
			out = append(out, funcDependent{fn: g, desc: "function " + g.ObjectSignature(false), part: true})
		}
	}
	return out
}

// dropFunction runs DROP FUNCTION. A function that something uses is
// dropped only with CASCADE, which drops, as PostgreSQL does, the
// views, materialized views, sinks and indexes using it (and what
// depends on them), and the defaults, generated columns and CHECK
// constraints of tables that call it; a function whose body calls it
// is not dropped (0A000: drop it first).
func (s *Session) dropFunction(ctx context.Context, st *sql.DropFunction, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("DROP FUNCTION"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	var targets []*catalog.Function
	for _, r := range st.Funcs {
		schema := r.Name.Schema
		if schema == "" {
			schema = catalog.PublicSchema
		}
		fs := e.cat.FunctionsNamed(schema, r.Name.Name)
		var f *catalog.Function
		if r.HasArgs {
			var ts []types.T
			for _, a := range r.Args {
				t, err := s.funcType(a)
				if err != nil {
					return nil, err
				}
				ts = append(ts, t)
			}
			if f = findFunction(fs, ts); f == nil && (r.Name.Schema == "" || r.Name.Schema == "pg_catalog") && builtinWithArgs(r.Name.Name, ts) {
				return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop function %s because it is required by the database system", funcObjectSig(r.Name.Name, ts))
			}
			if f == nil {
				sig := funcRefSig(r.Name, ts)
				if st.IfExists {
					written := make([]string, len(r.Args))
					for i, a := range r.Args {
						written[i] = grammarTypeName(a.Text)
					}
					io.Notice("NOTICE", "00000", fmt.Sprintf("function %s(%s) does not exist, skipping", r.Name, strings.Join(written, ",")))
					continue
				}
				return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", sig)
			}
		} else {
			switch len(fs) {
			case 0:
				if st.IfExists {
					io.Notice("NOTICE", "00000", fmt.Sprintf("function %s() does not exist, skipping", r.Name))
					continue
				}
				return nil, pgerr.New(pgerr.UndefinedFunction, "could not find a function named \"%s\"", r.Name)
			case 1:
				f = fs[0]
			default:
				return nil, pgerr.New(pgerr.AmbiguousFunction, "function name \"%s\" is not unique", r.Name).
					WithHint("Specify the argument list to select the function unambiguously.")
			}
		}
		if !s.hasPrivsOfRole(f.Owner) {
			// Named as written, qualified or not, as PostgreSQL does.
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of function %s", r.Name)
		}
		if !slices.Contains(targets, f) {
			targets = append(targets, f)
		}
	}
	var deps []funcDependent
	var lines []string
	for _, f := range targets {
		for _, d := range s.funcDependents(ctx, f) {
			if d.fn != nil && slices.Contains(targets, d.fn) {
				continue
			}
			if d.rel != nil && slices.ContainsFunc(deps, func(x funcDependent) bool { return !x.part && !d.part && x.rel.ID == d.rel.ID }) {
				continue
			}
			deps = append(deps, d)
			lines = append(lines, d.desc+" depends on function "+f.ObjectSignature(false))
		}
	}
	if ctx.Err() != nil {
		// The bindings that find the dependents stopped: what they
		// found is not all there is.
		return nil, ctxError(ctx)
	}
	if len(deps) > 0 && !st.Cascade {
		msg := fmt.Sprintf("cannot drop function %s because other objects depend on it", targets[0].ObjectSignature(false))
		if len(targets) > 1 {
			msg = "cannot drop desired object(s) because other objects depend on them"
		}
		return nil, pgerr.New(pgerr.DependentObjectsStillExist, "%s", msg).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	rels, parts, notices, err := s.funcCascade(deps, "DROP FUNCTION ... CASCADE of a function that %s calls is not supported")
	if err != nil {
		return nil, err
	}
	var order []*catalog.Relation
	if len(rels) > 0 {
		if err := e.writeMu.lockContext(ctx); err != nil {
			return nil, err
		}
		var err error
		order, err = e.dropOrder(rels, true, func(d *catalog.Relation) {
			notices = append(notices, fmt.Sprintf("drop cascades to %s %s", kindWords[d.Kind], d.Name))
		})
		e.writeMu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	cascadeNotice(io, notices)
	if len(order) > 0 {
		if err := e.dropRelations(ctx, order); err != nil {
			return nil, err
		}
	}
	for _, d := range parts {
		if err := s.dropFuncPart(ctx, d, io); err != nil {
			return nil, err
		}
	}
	for _, f := range targets {
		if err := e.cat.DropFunction(f.OID); err != nil {
			return nil, err
		}
	}
	return done("DROP FUNCTION")
}

// funcCascade is what DROP ... CASCADE does to deps, the dependents of
// functions it drops: the relations to drop, the parts of tables
// (defaults, generated columns, CHECK constraints) to drop after them,
// and the NOTICE lines, in PostgreSQL's order. A dependent function is
// refused with refused, a format naming it (weir drops no function a
// cascade reaches).
func (s *Session) funcCascade(deps []funcDependent, refused string) (rels []*catalog.Relation, parts []funcDependent, notices []string, err error) {
	e := s.eng
	for _, d := range deps {
		if d.fn != nil {
			return nil, nil, nil, pgerr.New(pgerr.FeatureNotSupported, refused, d.desc).
				WithHint("Drop %s first.", d.desc)
		}
		if !d.part && slices.ContainsFunc(rels, func(x *catalog.Relation) bool { return x.ID == d.rel.ID }) {
			continue
		}
		notices = append(notices, "drop cascades to "+d.desc)
		if d.part {
			parts = append(parts, d)
			if i := visibleColumn(d.rel, d.name); d.drop == "column" && i >= 0 {
				// What reads the generated column goes before it, as
				// ALTER TABLE ... DROP COLUMN ... CASCADE drops it
				// (its indexes go with it unnamed).
				e.writeMu.Lock()
				readers := e.columnReaders(d.rel, d.rel, i)
				e.writeMu.Unlock()
				for _, r := range readers {
					if r.Kind != catalog.KindIndex && !slices.ContainsFunc(rels, func(x *catalog.Relation) bool { return x.ID == r.ID }) {
						rels = append(rels, r)
						notices = append(notices, fmt.Sprintf("drop cascades to %s %s", kindWords[r.Kind], r.Name))
					}
				}
			}
			continue
		}
		rels = append(rels, d.rel)
	}
	return rels, parts, notices, nil
}

// funcRefSig is how PostgreSQL names a function DROP FUNCTION did not
// find: name(integer, text).
func funcRefSig(n sql.ObjectName, ts []types.T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return n.String() + "(" + strings.Join(parts, ", ") + ")"
}

// funcObjectSig is a built-in function as PostgreSQL describes the
// object (getObjectDescription): quoted as an identifier, its argument
// types with no space after the commas.
func funcObjectSig(name string, ts []types.T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return sql.QuoteName(name) + "(" + strings.Join(parts, ",") + ")"
}

// describeFunction answers the pg_get_function_* functions for user
// function f as PostgreSQL's ruleutils.c prints them.
func (s *Session) describeFunction(fn string, f *catalog.Function) string {
	var args []string
	for i, t := range f.ArgTypes {
		a := t.TypeName()
		if f.ArgNames[i] != "" {
			a = sql.QuoteName(f.ArgNames[i]) + " " + a
		}
		args = append(args, a)
	}
	switch fn {
	case "pg_get_function_result":
		return f.Ret.TypeName()
	case "pg_get_function_arguments", "pg_get_function_identity_arguments":
		return strings.Join(args, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE OR REPLACE FUNCTION %s.%s(%s)\n RETURNS %s\n LANGUAGE sql\n", sql.QuoteName(f.Schema), sql.QuoteName(f.Name),
		strings.Join(args, ", "), f.Ret.TypeName())
	var attrs string
	switch f.Volatility {
	case catalog.Immutable:
		attrs += " IMMUTABLE"
	case catalog.Stable:
		attrs += " STABLE"
	}
	if f.Strict {
		attrs += " STRICT"
	}
	if attrs != "" {
		b.WriteString(attrs + "\n")
	}
	if f.Return {
		b.WriteString("RETURN " + s.returnBodyText(f) + "\n")
		return b.String()
	}
	tag := "$function$"
	for i := 0; strings.Contains(f.Src, tag); i++ {
		tag = fmt.Sprintf("$function%d$", i)
	}
	b.WriteString("AS " + tag + f.Src + tag + "\n")
	return b.String()
}

// returnBodyText is the expression of f's RETURN body as
// pg_get_functiondef prints it (deparsed, each operator in
// parentheses), or as written when it cannot be deparsed.
func (s *Session) returnBodyText(f *catalog.Function) string {
	rel := &catalog.Relation{Name: f.Name, Kind: catalog.KindTable}
	for i, t := range f.ArgTypes {
		name := f.ArgNames[i]
		if name == "" {
			return f.Src
		}
		rel.Cols = append(rel.Cols, catalog.Column{Name: name, T: t})
	}
	ctx, calls := planner.WithCalls(context.Background())
	x, err := planner.BindRowExpr(ctx, rel, f.Src, s.catalogView())
	if err != nil {
		return f.Src
	}
	return calls.RowExprText(rel, x, false)
}

// FunctionByOID implements planner.UserFuncCatalog.
func (v catalogView) FunctionByOID(oid uint32) (*catalog.Function, bool) {
	return v.s.eng.cat.FunctionByOID(oid)
}

// grammarTypeName is a type name as PostgreSQL's grammar turns the SQL
// keyword types into names (int becomes pg_catalog.int4), which its
// DROP ... IF EXISTS notices print; other names stay as written.
func grammarTypeName(text string) string {
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	arr := ""
	if i := strings.IndexByte(t, '['); i >= 0 {
		t, arr = strings.TrimSpace(t[:i]), "[]"
	}
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i]) + strings.TrimSpace(t[strings.IndexByte(t, ')')+1:])
	}
	names := map[string]string{"int": "int4", "integer": "int4", "smallint": "int2", "bigint": "int8", "real": "float4",
		"float": "float8", "double precision": "float8", "decimal": "numeric", "dec": "numeric", "numeric": "numeric",
		"boolean": "bool", "char": "bpchar", "character": "bpchar", "varchar": "varchar", "character varying": "varchar",
		"timestamp": "timestamp", "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
		"time": "time", "time without time zone": "time", "time with time zone": "timetz", "interval": "interval", "bit": "bit"}
	if n, ok := names[t]; ok {
		return "pg_catalog." + n + arr
	}
	return strings.TrimSpace(text)
}

// lookupFuncRef finds the function r names, with the errors
// PostgreSQL's LookupFuncWithArgs gives: 42883 when there is none,
// 42725 for a name without arguments that several functions have.
func (s *Session) lookupFuncRef(r sql.FuncRef) (*catalog.Function, error) {
	schema := r.Name.Schema
	if schema == "" {
		schema = catalog.PublicSchema
	}
	fs := s.eng.cat.FunctionsNamed(schema, r.Name.Name)
	if !r.HasArgs {
		switch len(fs) {
		case 0:
			return nil, pgerr.New(pgerr.UndefinedFunction, "could not find a function named \"%s\"", r.Name)
		case 1:
			return fs[0], nil
		}
		return nil, pgerr.New(pgerr.AmbiguousFunction, "function name \"%s\" is not unique", r.Name).
			WithHint("Specify the argument list to select the function unambiguously.")
	}
	var ts []types.T
	for _, a := range r.Args {
		t, err := s.funcType(a)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	if f := findFunction(fs, ts); f != nil {
		return f, nil
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", funcRefSig(r.Name, ts))
}

// grantOnFunctions runs GRANT and REVOKE EXECUTE (or ALL) ON FUNCTION.
// The owner always holds EXECUTE; the first grant or revoke makes the
// default explicit (PUBLIC's EXECUTE), as PostgreSQL's acldefault. Only
// a superuser or a role with the owner's privileges grants and revokes,
// as the owner; another role that may call the function is warned that
// nothing changed, as in PostgreSQL.
func (s *Session) grantOnFunctions(ctx context.Context, st *sql.Grant, apply func(catalog.ACL, catalog.Privilege) catalog.ACL, io wire.ExecIO) error {
	for _, p := range st.Privileges {
		if p != "execute" && p != "all" {
			return pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type %s for function", strings.ToUpper(p))
		}
	}
	if err := s.eng.ddlMu.lockContext(ctx); err != nil {
		return err
	}
	defer s.eng.ddlMu.Unlock()
	for _, r := range st.Funcs {
		f, err := s.lookupFuncRef(r)
		if pgerr.CodeOf(err) == pgerr.UndefinedFunction && (r.Name.Schema == "" || r.Name.Schema == "pg_catalog") && len(planner.Overloads(r.Name.Name)) > 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "GRANT and REVOKE on built-in functions are not supported").
				WithHint("EXECUTE on a built-in function is PUBLIC's.")
		}
		if err != nil {
			return err
		}
		acl := maps.Clone(f.ACL)
		if !f.ExplicitACL {
			acl = catalog.ACL{catalog.PublicGrantee: catalog.PrivExecute}
		}
		switch {
		case s.hasPrivsOfRole(f.Owner):
			acl = apply(acl, catalog.PrivExecute)
		case s.eng.holdsExecute(s.role(), f, false):
			// A role that may call the function but holds no grant
			// option changes nothing; PostgreSQL warns and writes the
			// ACL back (the default made explicit).
			if st.Revoke {
				io.Notice("WARNING", "01006", fmt.Sprintf("no privileges could be revoked for \"%s\"", f.Name))
			} else {
				io.Notice("WARNING", "01007", fmt.Sprintf("no privileges were granted for \"%s\"", f.Name))
			}
		default:
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function %s", f.Name)
		}
		delete(acl, f.Owner)
		if err := s.eng.cat.SetFunctionACL(f.OID, acl); err != nil {
			return err
		}
	}
	return nil
}

// canExecute reports whether the session's role may call f: EXECUTE
// is PUBLIC's until a REVOKE, and always its owner's.
func (s *Session) canExecute(f *catalog.Function) bool {
	return s.internal || s.eng.holdsExecute(s.role(), f, false)
}

// holdsExecute reports whether role r (nil for PUBLIC) holds EXECUTE on
// f, with the grant option when grantOption: a superuser and (a member
// of) its owner hold both; others hold EXECUTE through PUBLIC's default
// or grants to them, their roles or PUBLIC, and never the grant option,
// which weir's GRANT does not give.
func (e *Engine) holdsExecute(r *catalog.Role, f *catalog.Function, grantOption bool) bool {
	if r != nil && r.Superuser {
		return true
	}
	have := f.ACL[catalog.PublicGrantee]
	if r != nil {
		for _, o := range e.effectiveRoles(r) {
			if o == f.Owner {
				return true
			}
			have |= f.ACL[o]
		}
	}
	if grantOption {
		return false
	}
	return !f.ExplicitACL || have&catalog.PrivExecute != 0
}

var _ functions.FunctionPrivilegeChecker = (*Session)(nil)

// HasFunctionPrivilege implements functions.FunctionPrivilegeChecker:
// has_function_privilege([user,] function, privileges), as PostgreSQL
// checks them: the role, then the function, then the privileges. A
// built-in function's EXECUTE is PUBLIC's; its grant option a
// superuser's.
func (s *Session) HasFunctionPrivilege(user, fn string, oid uint32, privs string) (held, found bool, err error) {
	var r *catalog.Role
	if user != "public" {
		var ok bool
		if r, ok = s.eng.cat.RoleByName(user); !ok {
			return false, false, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", user)
		}
	}
	byOID := oid != 0
	if !byOID {
		if oid, err = s.ResolveReg("regprocedure", fn); err != nil {
			return false, false, err
		}
	}
	var plain, withGrant bool
	for _, p := range strings.Split(privs, ",") {
		switch strings.ToUpper(strings.TrimSpace(p)) {
		case "EXECUTE":
			plain = true
		case "EXECUTE WITH GRANT OPTION":
			withGrant = true
		default:
			return false, false, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(p))
		}
	}
	if f, ok := s.eng.cat.FunctionByOID(oid); ok {
		return (plain && s.eng.holdsExecute(r, f, false)) || (withGrant && s.eng.holdsExecute(r, f, true)), true, nil
	}
	if !slices.ContainsFunc(functions.Procs(), func(p functions.Proc) bool { return p.OID == oid }) {
		if byOID {
			return false, false, nil
		}
		return false, false, pgerr.New(pgerr.UndefinedFunction, "function with OID %d does not exist", oid)
	}
	return plain || (withGrant && r != nil && r.Superuser), true, nil
}

// CanExecute implements planner.FuncAuthorizer.
func (v catalogView) CanExecute(f *catalog.Function) bool { return v.s.canExecute(f) }

// funcACLText is f's proacl as aclitem[] text, nil for the default:
// PUBLIC's entry first, then the owner's, then the other grantees.
func (e *Engine) funcACLText(f *catalog.Function) []string {
	if !f.ExplicitACL {
		return nil
	}
	owner := aclName(e.roleName(f.Owner))
	var items []string
	if p := f.ACL[catalog.PublicGrantee]; p != 0 {
		items = append(items, "="+p.Letters()+"/"+owner)
	}
	items = append(items, owner+"="+catalog.PrivExecute.Letters()+"/"+owner)
	for _, g := range f.ACL.Grantees() {
		if g != catalog.PublicGrantee {
			items = append(items, aclName(e.roleName(g))+"="+f.ACL[g].Letters()+"/"+owner)
		}
	}
	return items
}

// builtinWithArgs reports whether a built-in function called name takes
// exactly the argument types ts.
func builtinWithArgs(name string, ts []types.T) bool {
	for _, o := range planner.Overloads(name) {
		if o.Kind != planner.Scalar || o.Variadic || len(o.Args) != len(ts) {
			continue
		}
		same := true
		for i, t := range ts {
			same = same && o.Args[i] == t.ID
		}
		if same {
			return true
		}
	}
	return false
}

// dropFuncPart drops d, a part of a table that calls a function DROP
// FUNCTION ... CASCADE drops: a column's default, a generated column,
// or a CHECK constraint, as ALTER TABLE does (ddlMu is held). A part
// gone already (with a column dropped before) is skipped.
func (s *Session) dropFuncPart(ctx context.Context, d funcDependent, io wire.ExecIO) error {
	e := s.eng
	rel, ok := e.cat.ByID(d.rel.ID)
	if !ok {
		return nil
	}
	switch d.drop {
	case "column":
		if visibleColumn(rel, d.name) < 0 {
			return nil
		}
		_, err := s.dropColumn(ctx, rel, &sql.AlterTable{Action: "drop column", Column: d.name, Cascade: true}, io)
		return err
	case "check":
		_, _, err := e.dropCheck(rel, d.name)
		return err
	case "default":
		e.writeMu.Lock()
		defer e.writeMu.Unlock()
		i := visibleColumn(rel, d.name)
		if i < 0 {
			return nil
		}
		up := rel.Clone()
		up.Cols[i].Default = ""
		_, err := e.replaceTable(rel, up, false)
		return err
	}
	return nil
}
