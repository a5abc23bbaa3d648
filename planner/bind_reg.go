package planner

import (
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
)

// The to_reg* functions (to_regproc, to_regprocedure, to_regnamespace,
// to_regrole) and the regnamespace and regrole casts read a name as
// PostgreSQL's reg* input functions do. weir's reg* values are OIDs;
// a select item that is one prints as the reg* output function prints
// it (regOut).

// regNameList splits s into the names of a possibly qualified name as
// PostgreSQL's stringToQualifiedNameList does: identifiers separated by
// dots, blanks around them ignored, unquoted ones folded to lower case,
// "" in a quoted one a quote. ok is false for anything else ("invalid
// name syntax").
func regNameList(s string) (names []string, ok bool) {
	i := 0
	blank := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
			i++
		}
	}
	blank()
	if i == len(s) {
		return nil, false
	}
	for {
		var name string
		if s[i] == '"' {
			var b strings.Builder
			for i++; ; i++ {
				if i == len(s) {
					return nil, false
				}
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i++
						continue
					}
					i++
					break
				}
				b.WriteByte(s[i])
			}
			name = b.String()
		} else {
			j := i
			for i < len(s) && s[i] != '.' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				i++
			}
			if i == j {
				return nil, false
			}
			name = strings.ToLower(s[j:i])
		}
		names = append(names, name)
		blank()
		if i == len(s) {
			return names, true
		}
		if s[i] != '.' {
			return nil, false
		}
		i++
		blank()
		if i == len(s) {
			return nil, false
		}
	}
}

// regName is regNameList failing as PostgreSQL does: 42602 for a name
// it cannot read, 42601 for more than three names. It returns the last
// name and its qualifier ("" for none). pos is the errors' position (0
// for none).
func regName(s string, pos int) (schema, name string) {
	names, ok := regNameList(s)
	if !ok {
		fail(pgerr.New(pgerr.InvalidName, "invalid name syntax").WithPosition(pos))
	}
	if len(names) > 3 {
		fail(pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(names, ".")).WithPosition(pos))
	}
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	return schema, names[len(names)-1]
}

// toRegproc is to_regproc(s): the OID of the one function named s,
// none for no function or several.
func (b *binder) toRegproc(s string) (uint32, bool) {
	schema, name := regName(s, 0)
	cs := b.procCandidates(schema, name)
	if len(cs) != 1 {
		return 0, false
	}
	return cs[0].oid, true
}

// toRegprocedure is to_regprocedure(s): the OID of the function
// name(types) names, none when there is none. Text that is not of that
// form, and a type that does not exist, fail as in PostgreSQL.
func (b *binder) toRegprocedure(s string) (uint32, bool) {
	nameText, argTexts := procArgsText(s, 0)
	schema, name := regName(nameText, 0)
	var want []uint32
	for _, a := range argTexts {
		if a == `"any"` {
			want = append(want, 0)
			continue
		}
		want = append(want, b.typeOID(a, nil))
	}
	for _, c := range b.procCandidates(schema, name) {
		if slices.Equal(c.args, want) {
			return c.oid, true
		}
	}
	return 0, false
}

// procCandidate is a function a reg* name may name: its OID and its
// parameter types as pg_proc's proargtypes holds them.
type procCandidate struct {
	oid  uint32
	args []uint32
}

// procCandidates lists the functions named name in schema, or on the
// search path (pg_catalog, then public) when schema is "".
func (b *binder) procCandidates(schema, name string) []procCandidate {
	var out []procCandidate
	if schema == "" || schema == "pg_catalog" {
		for _, p := range functions.Procs() {
			if p.Name != name {
				continue
			}
			args := make([]uint32, len(p.Args))
			for i, a := range p.Args {
				args[i] = procArgOID(p, i, a)
			}
			out = append(out, procCandidate{p.OID, args})
		}
	}
	if schema == "pg_catalog" {
		return out
	}
	if fc, ok := unpinned(b.cat).(FuncCatalog); ok {
		for _, f := range fc.Functions(schema, name) {
			args := make([]uint32, len(f.ArgTypes))
			for i, t := range f.ArgTypes {
				args[i] = t.OID()
			}
			out = append(out, procCandidate{f.OID, args})
		}
	}
	return out
}

// procArgsText splits regprocedure input, name(type, ...), as
// PostgreSQL's parseNameAndArgTypes does: the first "(" outside double
// quotes ends the name; the rest ends with ")" (blanks after it
// ignored); the types between are separated by the commas outside
// quotes, parentheses and brackets, blanks around them dropped. It fails
// with 22P02 as PostgreSQL does, at position pos.
func procArgsText(s string, pos int) (name string, args []string) {
	bad := func(msg string) {
		fail(pgerr.New(pgerr.InvalidTextRepresentation, "%s", msg).WithPosition(pos))
	}
	open, quoted := -1, false
	for i := 0; i < len(s) && open < 0; i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case s[i] == '(' && !quoted:
			open = i
		}
	}
	if open < 0 {
		bad("expected a left parenthesis")
	}
	rest := s[open+1:]
	end := len(rest) - 1
	for end > 0 && isRegSpace(rest[end]) {
		end--
	}
	if end < 0 || rest[end] != ')' {
		bad("expected a right parenthesis")
	}
	inner := rest[:end]
	p, comma := 0, false
	for {
		for p < len(inner) && isRegSpace(inner[p]) {
			p++
		}
		if p == len(inner) {
			if comma {
				bad("expected a type name")
			}
			return s[:open], args
		}
		start, quoted, depth := p, false, 0
	scan:
		for ; p < len(inner); p++ {
			switch c := inner[p]; {
			case c == '"':
				quoted = !quoted
			case quoted:
			case c == ',' && depth == 0:
				break scan
			case c == '(' || c == '[':
				depth++
			case c == ')' || c == ']':
				depth--
			}
		}
		if quoted || depth != 0 {
			bad("improper type name")
		}
		t := inner[start:p]
		for len(t) > 0 && isRegSpace(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		args = append(args, t)
		comma = p < len(inner)
		if comma {
			p++
		}
	}
}

// isRegSpace is PostgreSQL's scanner_isspace.
func isRegSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// procArgOID is the type OID of p's parameter i, of element type a: the
// array type for a variadic one.
func procArgOID(p functions.Proc, i int, a uint32) uint32 {
	if p.Variadic && i == len(p.Args)-1 && a != 0 {
		if t, ok := types.ByOID(a); ok && t.ArrayOID() != 0 {
			return t.ArrayOID()
		}
	}
	return a
}

// procText is how regprocout (withArgs false) and regprocedureout print
// the function with OID oid: its name, or name(types) with the types as
// format_type names them; the number for an OID that names none.
func procText(oid uint32, withArgs bool) string {
	p, ok := functions.ProcByOID(oid)
	if !ok {
		return strconv.FormatUint(uint64(oid), 10)
	}
	name := sql.QuoteName(p.Name)
	if !withArgs {
		return name
	}
	args := make([]string, len(p.Args))
	for i, a := range p.Args {
		args[i] = `"any"`
		if t, ok := types.ByOID(procArgOID(p, i, a)); ok && a != 0 {
			args[i] = t.TypeName()
		}
	}
	return name + "(" + strings.Join(args, ",") + ")"
}

// toRegnamespace is to_regnamespace(s) and regnamespace's input: the
// OID of the schema s names.
func (b *binder) toRegnamespace(s string) (uint32, bool) {
	names, ok := regNameList(s)
	if !ok || len(names) != 1 {
		fail(pgerr.New(pgerr.InvalidName, "invalid name syntax"))
	}
	if nc, ok := b.cat.(NameCatalog); ok {
		return nc.NamespaceOID(names[0])
	}
	return 0, false
}

// toRegrole is to_regrole(s) and regrole's input: the OID of the role s
// names.
func (b *binder) toRegrole(s string) (uint32, bool) {
	names, ok := regNameList(s)
	if !ok || len(names) != 1 {
		fail(pgerr.New(pgerr.InvalidName, "invalid name syntax"))
	}
	if nc, ok := b.cat.(NameCatalog); ok {
		return nc.RoleOID(names[0])
	}
	return 0, false
}

// regOutText prints oid as the output function of reg prints it
// ("regproc", "regprocedure", "regnamespace", "regrole"): the object's
// name, or the number for an OID that names none.
func (b *binder) regOutText(reg string, oid uint32) string {
	return RegOutText(b.cat, reg, oid)
}

// RegOutText prints oid as the output function of reg prints it
// ("regproc", "regprocedure", "regnamespace", "regrole"), names looked up
// in cat: the object's name, "-" for OID 0 (as the output functions
// print InvalidOid: a catalog's "none", pg_foreign_data_wrapper's
// fdwhandler say), or the number for an OID that names none.
func RegOutText(cat Catalog, reg string, oid uint32) string {
	if oid == 0 {
		return "-"
	}
	switch reg {
	case "regproc", "regprocedure":
		if fc, ok := unpinned(cat).(UserFuncCatalog); ok {
			if f, ok := fc.FunctionByOID(oid); ok {
				return userProcText(f, reg == "regprocedure")
			}
		}
		return procText(oid, reg == "regprocedure")
	}
	if nc, ok := cat.(NameCatalog); ok {
		name, found := nc.NamespaceName(oid)
		if reg == "regrole" {
			name, found = nc.RoleName(oid)
		}
		if found {
			return sql.QuoteIdent(name)
		}
	}
	return strconv.FormatUint(uint64(oid), 10)
}
