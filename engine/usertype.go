package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// searchSchemas returns the schemas of the session's search_path, in
// order ($user as the role's schema, pg_catalog left out), public when
// none.
func (s *Session) searchSchemas() []string {
	out := s.pathSchemas()
	if len(out) == 0 {
		out = []string{catalog.PublicSchema}
	}
	return out
}

// pathSchemas returns the schemas the session's search_path names, in
// order: $user as the session role's name, pg_catalog left out.
func (s *Session) pathSchemas() []string {
	var out []string
	for _, f := range strings.Split(s.searchPath(), ",") {
		f = strings.TrimSpace(f)
		if strings.HasPrefix(f, `"`) && strings.HasSuffix(f, `"`) && len(f) >= 2 {
			f = strings.ReplaceAll(f[1:len(f)-1], `""`, `"`)
		} else {
			f = strings.ToLower(f)
		}
		if f == "$user" {
			f = s.role().Name
		}
		if f == "" || f == "pg_catalog" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// lookupUserType finds the user type n names: in its schema, or the
// first schema of the search path that has it.
func (s *Session) lookupUserType(n sql.ObjectName) (*catalog.UserType, bool) {
	if n.Schema == "pg_catalog" || n.Schema == "information_schema" {
		return nil, false
	}
	if n.Schema != "" {
		return s.eng.cat.TypeByName(n.Schema, n.Name)
	}
	for _, sc := range s.searchSchemas() {
		if u, ok := s.eng.cat.TypeByName(sc, n.Name); ok {
			return u, true
		}
	}
	return nil, false
}

// resolveTypeName looks the user type tn names up (an enum, or a
// domain, whose base type T becomes and whose OID Domain records); a
// built-in type is left as it is. No such type is tn.Err (42704).
func (s *Session) resolveTypeName(tn *sql.TypeName) error {
	if tn.User == nil {
		return nil
	}
	u, ok := s.lookupUserType(*tn.User)
	if !ok {
		return tn.Err
	}
	if tn.UserArray {
		at, ok := types.ArrayOf(u.T)
		if u.ArrayOID == 0 || !ok {
			return sql.UserArrayUnsupported(u.Name)
		}
		tn.T, tn.User, tn.Err = at, nil, nil
		if u.Kind == 'd' {
			tn.T.Mod = u.T.Mod
			tn.Domain, tn.DomainArray = u.OID, true
		}
		return nil
	}
	tn.T, tn.User, tn.Err = u.T, nil, nil
	if u.Kind == 'd' {
		tn.Domain = u.OID
	}
	return nil
}

// resolveStmtTypes resolves the user type names of a statement's column
// definitions before it runs.
func (s *Session) resolveStmtTypes(stmt sql.Stmt) error {
	cols := func(defs []sql.ColumnDef) error {
		for i := range defs {
			if err := s.resolveTypeName(&defs[i].Type); err != nil {
				return err
			}
		}
		return nil
	}
	switch st := stmt.(type) {
	case *sql.CreateTable:
		return cols(st.Columns)
	case *sql.CreateSource:
		return cols(st.Columns)
	case *sql.AlterTable:
		for _, a := range append([]*sql.AlterTable{st}, st.More...) {
			if err := s.resolveTypeName(&a.Def.Type); err != nil {
				return err
			}
			if err := s.resolveTypeName(&a.Type); err != nil {
				return err
			}
		}
	case *sql.CreateDomain:
		if err := s.resolveTypeName(&st.Base); err != nil {
			return err
		}
	}
	return nil
}

// typeCreationSchema is the schema a new type named n goes to: the one
// named, else the first schema of the search path that exists, as
// PostgreSQL's QualifiedNameGetCreationNamespace; 3F000 when none does.
func (s *Session) typeCreationSchema(n sql.ObjectName) (string, error) {
	if n.Schema != "" {
		if !s.schemaExists(n.Schema) {
			return "", pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", n.Schema)
		}
		return n.Schema, nil
	}
	for _, sc := range s.pathSchemas() {
		if s.schemaExists(sc) {
			return sc, nil
		}
	}
	return "", pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
}

// typeSchemaToCreate is typeCreationSchema for CREATE TYPE, CREATE DOMAIN
// and CREATE FUNCTION, which need CREATE on the schema, as in
// PostgreSQL (42501 "permission denied for schema s").
func (s *Session) typeSchemaToCreate(n sql.ObjectName) (string, error) {
	schema, err := s.typeCreationSchema(n)
	if err != nil {
		return "", err
	}
	if !s.hasSchemaPrivilege(schema, catalog.PrivCreate) {
		return "", pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema %s", schema)
	}
	return schema, nil
}

// schemaExists reports whether the user schema sc exists.
func (s *Session) schemaExists(sc string) bool {
	for _, have := range s.eng.cat.Schemas() {
		if have == sc {
			return true
		}
	}
	return false
}

// createEnum runs CREATE TYPE ... AS ENUM.
func (s *Session) createEnum(ctx context.Context, st *sql.CreateEnum) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE TYPE"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	schema, err := s.typeSchemaToCreate(st.Name)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, l := range st.Labels {
		if seen[l] {
			return nil, pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"").
				WithDetail("Key (enumtypid, enumlabel)=(%d, %s) already exists.", 0, l)
		}
		seen[l] = true
	}
	oid, err := e.cat.NextOID()
	if err != nil {
		return nil, err
	}
	// The array type (_mood) takes the next OID, as in PostgreSQL.
	arrOID, err := e.cat.NextOID()
	if err != nil {
		return nil, err
	}
	u := &catalog.UserType{OID: oid, ArrayOID: arrOID, Schema: schema, Name: st.Name.Name, Kind: 'e', Owner: s.role().OID}
	for i, l := range st.Labels {
		lo, err := e.cat.NextOID()
		if err != nil {
			return nil, err
		}
		u.Labels = append(u.Labels, types.EnumLabel{OID: lo, Sort: float64(i + 1), Label: l})
	}
	if err := e.cat.CreateType(u); err != nil {
		return nil, err
	}
	return done("CREATE TYPE")
}

// mustOwnType refuses, as PostgreSQL does, to let a role that does not
// have the privileges of u's owner (or is not a superuser) alter or drop
// it. The owner is checked against the role the session acts as
// (current_user), which SET ROLE changes.
func (s *Session) mustOwnType(u *catalog.UserType) error {
	if !s.hasPrivsOfRole(u.Owner) {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s", s.userTypeName(u))
	}
	return nil
}

// mustFindType finds the user type n names, 42704 when none.
func (s *Session) mustFindType(n sql.ObjectName) (*catalog.UserType, error) {
	u, ok := s.lookupUserType(n)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", n.String())
	}
	return u, nil
}

// alterType runs ALTER TYPE.
func (s *Session) alterType(ctx context.Context, st *sql.AlterType, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("ALTER TYPE"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	u, err := s.mustFindType(st.Name)
	if err != nil {
		return nil, err
	}
	if st.Action == "rename" {
		// RENAME checks the owner first, the enum actions after the
		// kind, as PostgreSQL's RenameType and checkEnumOwner do.
		if err := s.mustOwnType(u); err != nil {
			return nil, err
		}
	}
	u = u.Clone()
	sort.SliceStable(u.Labels, func(i, j int) bool { return u.Labels[i].Sort < u.Labels[j].Sort })
	find := func(label string) int {
		for i, l := range u.Labels {
			if l.Label == label {
				return i
			}
		}
		return -1
	}
	switch st.Action {
	case "rename":
		u.Name = st.NewName
		if err := e.cat.ReplaceType(u); err != nil {
			return nil, err
		}
		return done("ALTER TYPE")
	}
	if u.Kind != 'e' {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not an enum", u.Name)
	}
	if err := s.mustOwnType(u); err != nil {
		return nil, err
	}
	switch st.Action {
	case "add value":
		if len(st.Value) > 63 {
			return nil, pgerr.New(pgerr.InvalidName, "invalid enum label \"%s\"", st.Value).WithDetail("Labels must be 63 bytes or less.")
		}
		if find(st.Value) >= 0 {
			if st.IfNotExists {
				io.Notice("NOTICE", "42710", fmt.Sprintf("enum label \"%s\" already exists, skipping", st.Value))
				return done("ALTER TYPE")
			}
			return nil, pgerr.New(pgerr.DuplicateObject, "enum label \"%s\" already exists", st.Value)
		}
		var sort float64
		n := len(u.Labels)
		switch {
		case st.Neighbor == "" && n == 0:
			sort = 1
		case st.Neighbor == "":
			sort = u.Labels[n-1].Sort + 1
		default:
			i := find(st.Neighbor)
			if i < 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "\"%s\" is not an existing enum label", st.Neighbor)
			}
			lo, hi := u.Labels[i].Sort, 0.0
			switch {
			case st.Before && i == 0:
				sort = lo - 1
			case st.Before:
				sort = (u.Labels[i-1].Sort + lo) / 2
				hi, lo = lo, u.Labels[i-1].Sort
			case i == n-1:
				sort = lo + 1
			default:
				hi = u.Labels[i+1].Sort
				sort = (lo + hi) / 2
			}
			if hi != 0 && (sort <= lo || sort >= hi) {
				// The stored values are sort orders, which never
				// change: there is no renumbering as in PostgreSQL.
				return nil, pgerr.New(pgerr.ProgramLimitExceeded, "too many enum labels added between \"%s\" and its neighbour", st.Neighbor)
			}
		}
		lo, err := e.cat.NextOID()
		if err != nil {
			return nil, err
		}
		u.Labels = append(u.Labels, types.EnumLabel{OID: lo, Sort: sort, Label: st.Value})
	case "rename value":
		i := find(st.Value)
		if i < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "\"%s\" is not an existing enum label", st.Value)
		}
		if find(st.NewName) >= 0 {
			if st.NewName == st.Value {
				return done("ALTER TYPE")
			}
			return nil, pgerr.New(pgerr.DuplicateObject, "enum label \"%s\" already exists", st.NewName)
		}
		if len(st.NewName) > 63 {
			return nil, pgerr.New(pgerr.InvalidName, "invalid enum label \"%s\"", st.NewName).WithDetail("Labels must be 63 bytes or less.")
		}
		// An array of the enum is stored in its output form, labels
		// and all, which a rename would leave behind.
		cols, _ := e.typeUsers(u)
		for _, c := range cols {
			if c.array {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TYPE ... RENAME VALUE is not supported while %s is of type %s[]", c, s.userTypeName(u))
			}
		}
		// A materialized view or sink that converts the enum to or from
		// text, or holds arrays of it, keeps state computed from the
		// labels' text; one that names the label in its definition,
		// bound again at every start, would no longer bind. Either way
		// a rename would leave it behind. Enum values themselves are
		// kept by their sort order, which a rename does not change.
		if rel := e.enumStreamUser(u.T, u.Labels[i].Label); rel != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER TYPE ... RENAME VALUE is not supported while %s \"%s\" uses type %s", kindWords[rel.Kind], rel.Name, s.userTypeName(u)).
				WithDetail("A materialized view or sink that converts an enum to or from text, holds arrays of it, or names the label keeps the labels' text.")
		}
		u.Labels[i].Label = st.NewName
	}
	if err := e.cat.ReplaceType(u); err != nil {
		return nil, err
	}
	return done("ALTER TYPE")
}

// typeUsers returns, for the user type u, the columns of relations whose
// type it is (as "column c of table t" and the relation and column),
// and the domains directly over it.
func (e *Engine) typeUsers(u *catalog.UserType) (cols []typeUse, domains []*catalog.UserType) {
	for _, rel := range e.cat.All() {
		for _, c := range rel.Cols {
			if c.Dropped {
				continue
			}
			if u.Kind == 'd' && c.Domain == u.OID && derivedColumns(rel) {
				// A view's column of the domain depends on the column
				// or cast it comes from, which the view depends on.
				continue
			}
			if u.Kind == 'e' && c.T.ID == u.T.ID || u.Kind == 'd' && c.Domain == u.OID {
				cols = append(cols, typeUse{rel: rel, col: c.Name, array: c.DomainArray})
			} else if u.Kind == 'e' && c.T.IsArray() && c.T.Elem().ID == u.T.ID {
				cols = append(cols, typeUse{rel: rel, col: c.Name, array: true})
			}
		}
	}
	for _, d := range e.cat.Types() {
		if d.Kind != 'd' {
			continue
		}
		if u.Kind == 'e' && d.BaseDomain == 0 && d.T.ID == u.T.ID || u.Kind == 'd' && d.BaseDomain == u.OID {
			domains = append(domains, d)
		}
	}
	return cols, domains
}

type typeUse struct {
	rel *catalog.Relation
	col string
	// array is set when the column is of the type's array type (mood[]).
	array bool
}

func (t typeUse) String() string {
	return fmt.Sprintf("column %s of %s %s", t.col, kindWords[t.rel.Kind], t.rel.Name)
}

// dropTypes runs DROP TYPE and DROP DOMAIN. CASCADE drops the columns of
// the type (and domains over an enum, and their columns), as PostgreSQL
// does.
func (s *Session) dropTypes(ctx context.Context, st *sql.Drop, io wire.ExecIO) (wire.Result, error) {
	if err := s.noDDLInBlock("DROP " + strings.ToUpper(st.Kind)); err != nil {
		return nil, err
	}
	e := s.eng
	tag := "DROP " + strings.ToUpper(st.Kind)
	var targets []*catalog.UserType
	for _, n := range st.Names {
		u, ok := s.lookupUserType(n)
		if !ok {
			if st.IfExists {
				io.Notice("NOTICE", "00000", fmt.Sprintf("type \"%s\" does not exist, skipping", n.String()))
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", n.String())
		}
		if st.Kind == "domain" && u.Kind != 'd' {
			return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a domain", u.Name)
		}
		if err := s.mustOwnType(u); err != nil {
			return nil, err
		}
		targets = append(targets, u)
	}
	var lines []string
	var dropCols []typeUse
	var dropDomains []*catalog.UserType
	for _, u := range targets {
		cols, domains := e.typeUsers(u)
		// The domains over u, and those over them, go with it, and so
		// do their columns.
		var over func(u *catalog.UserType, domains []*catalog.UserType)
		over = func(u *catalog.UserType, domains []*catalog.UserType) {
			for _, d := range domains {
				lines = append(lines, fmt.Sprintf("type %s depends on type %s", s.userTypeName(d), s.userTypeName(u)))
				dc, dd := e.typeUsers(d)
				for _, c := range dc {
					lines = append(lines, fmt.Sprintf("%s depends on type %s", c, s.userTypeName(d)))
				}
				dropCols = append(dropCols, dc...)
				dropDomains = append(dropDomains, d)
				over(d, dd)
			}
		}
		over(u, domains)
		for _, c := range cols {
			name := s.userTypeName(u)
			if c.array {
				name += "[]"
			}
			lines = append(lines, fmt.Sprintf("%s depends on type %s", c, name))
		}
		dropCols = append(dropCols, cols...)
		if len(lines) > 0 && !st.Cascade {
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", s.userTypeName(u)).
				WithDetail("%s", strings.Join(lines, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	if st.Cascade && len(lines) > 0 {
		var notices []string
		for _, l := range lines {
			what, _, _ := strings.Cut(l, " depends on ")
			notices = append(notices, "drop cascades to "+what)
		}
		cascadeNotice(io, notices)
		for _, c := range dropCols {
			at := &sql.AlterTable{Name: sql.ObjectName{Schema: c.rel.Schema, Name: c.rel.Name}, Action: "drop column", Column: c.col, Cascade: true}
			if _, err := s.alterTable(ctx, at, quietIO{io}); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range dropDomains {
		if err := e.cat.DropType(d.OID); err != nil {
			return nil, err
		}
	}
	for _, u := range targets {
		if err := e.cat.DropType(u.OID); err != nil {
			return nil, err
		}
	}
	return done(tag)
}

// createDomain runs CREATE DOMAIN.
func (s *Session) createDomain(ctx context.Context, st *sql.CreateDomain) (wire.Result, error) {
	if err := s.noDDLInBlock("CREATE DOMAIN"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	schema, err := s.typeSchemaToCreate(st.Name)
	if err != nil {
		return nil, err
	}
	oid, err := e.cat.NextOID()
	if err != nil {
		return nil, err
	}
	if err := s.checkDomainDefault(st.Default, st.Name.Name, st.Base.T); err != nil {
		return nil, err
	}
	if st.Base.DomainArray {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "domains over arrays of domains are not supported")
	}
	u := &catalog.UserType{OID: oid, Schema: schema, Name: st.Name.Name, Kind: 'd', Owner: s.role().OID,
		T: st.Base.T, BaseDomain: st.Base.Domain, Default: st.Default}
	if _, ok := types.ArrayOf(st.Base.T); ok {
		// The array type (_posint) takes the next OID, as in PostgreSQL.
		if u.ArrayOID, err = e.cat.NextOID(); err != nil {
			return nil, err
		}
	}
	for _, c := range st.Constraints {
		if err := s.addDomainConstraint(u, c); err != nil {
			return nil, err
		}
	}
	if err := e.cat.CreateType(u); err != nil {
		return nil, err
	}
	return done("CREATE DOMAIN")
}

// addDomainConstraint adds c to domain u, naming a CHECK as PostgreSQL
// does (<domain>_check, then _check1, ...), once its expression binds.
func (s *Session) addDomainConstraint(u *catalog.UserType, c sql.DomainConstraint) error {
	if c.NotNull {
		u.NotNull = true
		return nil
	}
	name := c.Name
	taken := func(n string) bool {
		for _, have := range u.Checks {
			if have.Name == n {
				return true
			}
		}
		return false
	}
	if name == "" {
		name = u.Name + "_check"
		for i := 1; taken(name); i++ {
			name = fmt.Sprintf("%s_check%d", u.Name, i)
		}
	} else if taken(name) {
		return pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", name, u.Name)
	}
	if _, err := planner.BindDomainCheck(context.Background(), u, c.Expr, 0, s.catalogView()); err != nil {
		return err
	}
	oid, err := s.eng.cat.NextOID()
	if err != nil {
		return err
	}
	u.Checks = append(u.Checks, catalog.DomainCheck{OID: oid, Name: name, Expr: c.Expr, NotValid: c.NotValid})
	return nil
}

// alterDomain runs ALTER DOMAIN. A constraint it adds (SET NOT NULL,
// ADD CONSTRAINT without NOT VALID, VALIDATE CONSTRAINT) must hold for
// the values stored in the columns of the domain, or of the domains
// over it, as in PostgreSQL.
func (s *Session) alterDomain(ctx context.Context, st *sql.AlterDomain) (wire.Result, error) {
	if err := s.noDDLInBlock("ALTER DOMAIN"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	u, err := s.mustFindType(st.Name)
	if err != nil {
		return nil, err
	}
	if u.Kind != 'd' {
		return nil, pgerr.New(pgerr.WrongObjectType, "%s is not a domain", u.Name)
	}
	if err := s.mustOwnType(u); err != nil {
		return nil, err
	}
	u = u.Clone()
	switch st.Action {
	case "set default":
		if err := s.checkDomainDefault(st.Default, u.Name, u.T); err != nil {
			return nil, err
		}
		u.Default = st.Default
	case "drop default":
		u.Default = ""
	case "set not null":
		if !u.NotNull {
			if err := s.validateDomain(ctx, u, nil); err != nil {
				return nil, err
			}
		}
		u.NotNull = true
	case "drop not null":
		u.NotNull = false
	case "add constraint":
		if st.Constraint.NotNull {
			if err := s.validateDomain(ctx, u, nil); err != nil {
				return nil, err
			}
		}
		if err := s.addDomainConstraint(u, st.Constraint); err != nil {
			return nil, err
		}
		if c := u.Checks[len(u.Checks)-1]; !st.Constraint.NotNull && !c.NotValid {
			if err := s.validateDomain(ctx, u, &c); err != nil {
				return nil, err
			}
		}
	case "validate constraint":
		i := slices.IndexFunc(u.Checks, func(c catalog.DomainCheck) bool { return c.Name == st.ConstraintName })
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", st.ConstraintName, u.Name)
		}
		if u.Checks[i].NotValid {
			if err := s.validateDomain(ctx, u, &u.Checks[i]); err != nil {
				return nil, err
			}
			u.Checks[i].NotValid = false
		}
	case "drop constraint":
		i := -1
		for j, c := range u.Checks {
			if c.Name == st.ConstraintName {
				i = j
			}
		}
		if i < 0 {
			if st.IfExists {
				return done("ALTER DOMAIN")
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of domain \"%s\" does not exist", st.ConstraintName, u.Name)
		}
		u.Checks = append(u.Checks[:i], u.Checks[i+1:]...)
	}
	if err := e.cat.ReplaceType(u); err != nil {
		return nil, err
	}
	return done("ALTER DOMAIN")
}

// userTypeName is u's name as format_type prints it: qualified when its
// schema is not on the search path.
func (s *Session) userTypeName(u *catalog.UserType) string {
	for _, sc := range s.searchSchemas() {
		if sc == u.Schema {
			return sql.QuoteIdent(u.Name)
		}
	}
	return sql.QuoteIdent(u.Schema) + "." + sql.QuoteIdent(u.Name)
}

// derivedColumns reports whether rel's columns are computed by a query
// (a view or materialized view), whose domains come from the query.
func derivedColumns(rel *catalog.Relation) bool {
	return rel.Kind == catalog.KindView || rel.Kind == catalog.KindMView
}

// domainColumns returns the columns whose type is the domain oid or a
// domain over it.
func (e *Engine) domainColumns(oid uint32) []typeUse {
	var out []typeUse
	for _, rel := range e.cat.All() {
		if derivedColumns(rel) {
			// A view's values are its query's: the tables' columns
			// are checked.
			continue
		}
		for _, c := range rel.Cols {
			if c.Dropped || c.Domain == 0 {
				continue
			}
			for d := c.Domain; d != 0; {
				if d == oid {
					out = append(out, typeUse{rel: rel, col: c.Name, array: c.DomainArray})
					break
				}
				u, ok := e.cat.TypeByOID(d)
				if !ok {
					break
				}
				d = u.BaseDomain
			}
		}
	}
	return out
}

// validateDomain checks the values stored in the columns of domain u
// (and of the domains over it) against check, or, when check is nil,
// that none is NULL: 23514 "column "x" of table "t" contains values
// that violate the new constraint", 23502 "... contains null values".
func (s *Session) validateDomain(ctx context.Context, u *catalog.UserType, check *catalog.DomainCheck) error {
	e := s.eng
	// PostgreSQL does not look into arrays of the domain: a column of
	// one stops the validation.
	for _, c := range e.domainColumns(u.OID) {
		if c.array {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type \"%s\" because column \"%s.%s\" uses it", u.Name, c.rel.Name, c.col)
		}
	}
	var ev executor.Evaluator
	if check != nil {
		x, err := planner.BindDomainCheck(ctx, u, check.Expr, 0, s.catalogView())
		if err != nil {
			return err
		}
		if ev, err = executor.Compile(x); err != nil {
			return err
		}
	}
	cols := e.domainColumns(u.OID)
	if len(cols) == 0 {
		return nil
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	defer e.writeMu.Unlock()
	ec := s.execCtx(ctx, nil, nil, nil)
	for _, c := range cols {
		if c.rel.Kind != catalog.KindTable || c.rel.With[optConnector] != "" {
			// A reader checks its rows against the constraints it
			// started with, and a source's rows are not stored to check.
			return pgerr.New(pgerr.FeatureNotSupported, "cannot add a constraint to domain %s: %s is read from a connector", u.Name, c)
		}
		i := visibleColumn(c.rel, c.col)
		var evalErr error
		bad, err := e.anyRow(ctx, c.rel, func(r types.Row) bool {
			if ev == nil {
				return r[i].Null
			}
			ch := types.NewChunk([]types.T{c.rel.Cols[i].T}, 1)
			ch.AppendRow(types.OpInsert, types.Row{r[i]})
			v, err := ev.Eval(&ec.Eval, ch)
			if err != nil {
				evalErr = err
				return true
			}
			d := v.Get(0)
			return !d.Null && d.I == 0
		})
		if evalErr != nil {
			return evalErr
		}
		if err != nil {
			return err
		}
		if bad && ev == nil {
			return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of table \"%s\" contains null values", c.col, c.rel.Name).
				WithTable(c.rel.Schema, c.rel.Name).WithColumn(c.col)
		}
		if bad {
			return pgerr.New(pgerr.CheckViolation, "column \"%s\" of table \"%s\" contains values that violate the new constraint", c.col, c.rel.Name).
				WithTable(c.rel.Schema, c.rel.Name).WithColumn(c.col)
		}
	}
	return nil
}

// columnDefault is the DEFAULT of column c as an INSERT takes it: its
// own, else, for a column of a domain type, the domain's (the nearest
// level of a domain stack that has one), "" when none.
func (s *Session) columnDefault(c catalog.Column) string {
	if d := c.DefaultSQL(); d != "" || c.Domain == 0 || c.DomainArray {
		// An array of a domain does not take the domain's default.
		return d
	}
	for oid := c.Domain; oid != 0; {
		u, ok := s.eng.cat.TypeByOID(oid)
		if !ok {
			break
		}
		if u.Default != "" {
			return u.Default
		}
		oid = u.BaseDomain
	}
	return ""
}

// checkDomainValue checks v, a value of column col, against the
// constraints of col's domain.
func (s *Session) checkDomainValue(ctx context.Context, col catalog.Column, v types.Datum) error {
	one := &catalog.Relation{Cols: []catalog.Column{col}}
	doms, err := planner.DomainRules(ctx, one, s.catalogView())
	if err != nil {
		return err
	}
	checks, err := executor.NewDomainChecks(doms, []types.T{col.T})
	if err != nil {
		return err
	}
	ec := s.execCtx(ctx, nil, nil, nil)
	return checks.Check(types.Row{v}, &ec.Eval, nil)
}

// checkDomainDefault reports the errors of a domain's DEFAULT text (""
// when none) as CREATE DOMAIN does: it must bind, without subqueries or
// column references, and convert to the base type t, a literal being
// converted now.
func (s *Session) checkDomainDefault(text, domain string, t types.T) error {
	if text == "" {
		return nil
	}
	if err := s.checkDefault(text, 0, domain, t); err != nil {
		return err
	}
	r := &catalog.Relation{Cols: []catalog.Column{{Name: "value", T: t, Default: text}}}
	if _, err := planner.DefaultText(r, 0, s.catalogView()); err != nil {
		// Positions are in the default's text, which PostgreSQL does
		// not point into here.
		pe := *pgerr.As(err)
		pe.Position = 0
		return &pe
	}
	return nil
}

// enumStreamUser returns a materialized view or sink that a rename of
// enum t's label old would leave behind, nil if there is none: one whose
// plan converts t (or an array of it) to or from another type at run
// time, or holds an array of t (kept as the labels' text), or whose
// definition names old as a string literal.
func (e *Engine) enumStreamUser(t types.T, old string) *catalog.Relation {
	uses := func(x types.T) bool { return x.ID == t.ID || x.IsArray() && x.Elem().ID == t.ID }
	array := func(x types.T) bool { return x.IsArray() && x.Elem().ID == t.ID }
	for _, rel := range e.cat.All() {
		if rel.Kind != catalog.KindMView && rel.Kind != catalog.KindSink {
			continue
		}
		if toks, err := sql.Lex(rel.SQL); err != nil {
			return rel
		} else if slices.ContainsFunc(toks, func(k sql.Token) bool { return k.Kind == sql.TString && k.Val == old }) {
			return rel
		}
		p := e.definitionPlan(rel)
		if p == nil {
			// Not bindable now: count it as a user, the safe answer.
			return rel
		}
		found := false
		var walk func(p planner.Plan)
		walk = func(p planner.Plan) {
			if _, scan := p.(*planner.Scan); scan {
				// A scan lists every column of its table; what
				// reads them is above it.
				return
			}
			for _, c := range p.Schema() {
				if array(c.T) {
					found = true
				}
			}
			for _, in := range p.Inputs() {
				walk(in)
			}
		}
		walk(p)
		planner.WalkPlanExprs(p, func(x planner.Expr) {
			if array(x.Type()) {
				found = true
			}
			// Comparisons cast the enum to its sort order (double
			// precision), which a rename keeps.
			c, ok := x.(*planner.Cast)
			if !ok || c.Arg.Type().ID == c.T.ID || c.T.ID == types.Float8 {
				return
			}
			if _, isConst := c.Arg.(*planner.Const); uses(c.Arg.Type()) || uses(c.T) && !isConst {
				found = true
			}
		})
		if found {
			return rel
		}
	}
	return nil
}

// definitionPlan binds the query of materialized view or sink rel as it
// is bound at start, nil if it does not bind.
func (e *Engine) definitionPlan(rel *catalog.Relation) planner.Plan {
	var q *sql.Query
	if rel.Kind == catalog.KindSink {
		stmt, err := sql.ParseDefinition(rel.SQL)
		if err != nil {
			return nil
		}
		st, ok := stmt.(*sql.CreateSink)
		if !ok {
			return nil
		}
		if q, err = sinkQuery(st); err != nil {
			return nil
		}
	} else {
		var err error
		if q, err = parseQuery(rel.SQL); err != nil {
			return nil
		}
	}
	b, err := planner.Bind(q, e.definitionSession(rel, nil).catalogView(), nil)
	if err != nil {
		return nil
	}
	return b.Plan
}
