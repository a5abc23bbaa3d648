package engine

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weirdb/weir/engine/syscat"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// This file checks privileges as PostgreSQL does. A superuser may do
// anything. Otherwise:
//
//   - the owner of a relation (its creator) holds every privilege on it
//     until it revokes some from itself (its ACL's first item,
//     catalog.RelACL); other roles hold what GRANT gave them or PUBLIC;
//   - reading a relation needs SELECT on it, writing INSERT, UPDATE or
//     DELETE (also SELECT when the write reads the target's rows: a
//     WHERE, RETURNING, SET expressions over its columns, ON CONFLICT
//     with a conflict target);
//     the relations a view reads are checked for its owner, when the
//     view is created and at every read, so a role granted SELECT on a
//     view can read it while the owner may (a superuser reading the view
//     too, as in PostgreSQL); pg_authid is for superusers only;
//   - creating a table, view or materialized view needs CREATE on its
//     schema (PostgreSQL 15 grants it on public to no one by default),
//     and SELECT on every relation the view reads;
//   - truncating a table needs TRUNCATE; dropping a relation needs
//     ownership;
//   - creating a source, a sink or a table with a connector (which make
//     the server connect to other hosts), creating or dropping a schema,
//     ALTER SYSTEM, BACKUP and FLUSH (which forces a checkpoint, as
//     PostgreSQL's CHECKPOINT) need a superuser;
//   - the weir schema's views of streaming jobs and connectors (weir.jobs,
//     weir.operators, weir.sources, ...) and EXPLAIN MATERIALIZED VIEW show
//     the relations the role owns or may SELECT (system.go);
//   - the error texts of streaming jobs and connectors (weir.stream_errors,
//     weir.source_errors, last_error of weir.jobs and weir.sinks), which
//     hold row values, are shown for the relations the role owns (or has
//     the owner's privileges of), all of them to a superuser (system.go).
//
// Denials are 42501 with Postgres's messages.
//
// What a query reads and writes is checked on what the binder resolved
// (planner.Access, checkAccess): every relation and system table it
// binds, through views, CTEs, subqueries, functions in FROM and window
// functions, is recorded with the privileges it needs, and checked when
// the statement is bound and again at every run of a prepared one, so no
// spelling of a name (quoted, shadowed by a CTE, aliased) reaches a
// relation unchecked. authorize checks the rest before a statement is
// prepared: DDL, ownership, schemas.

// effectiveRoles returns r and, when r inherits, the roles it is a
// member of (directly or through other inheriting roles): the roles
// whose privileges r uses, as in Postgres.
func (e *Engine) effectiveRoles(r *catalog.Role) []uint32 {
	out := []uint32{r.OID}
	seen := map[uint32]bool{r.OID: true}
	for i := 0; i < len(out); i++ {
		cur, ok := e.cat.RoleByOID(out[i])
		if !ok || !cur.Inherit {
			continue
		}
		for _, m := range cur.MemberOf {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// holds reports whether role r holds p on rel: as a superuser, or
// through its ACL (catalog.RelACL: the owner's privileges and grants)
// to it, its roles or PUBLIC.
func (e *Engine) holds(r *catalog.Role, rel *catalog.Relation, p catalog.Privilege) bool {
	if r.Superuser || rel.Kind == catalog.KindSystem {
		return true
	}
	return rel.ACL.Privileges(rel.Owner, relPrivAll(rel), e.effectiveRoles(r))&p == p
}

// relPrivAll is every privilege rel can have: a sequence's or a
// relation's.
func relPrivAll(rel *catalog.Relation) catalog.Privilege {
	if rel.Kind == catalog.KindSequence {
		return catalog.PrivSequenceAll
	}
	return catalog.PrivTableAll
}

// hasPrivilege reports whether the session's role holds p on rel.
func (s *Session) hasPrivilege(rel *catalog.Relation, p catalog.Privilege) bool {
	return s.eng.holds(s.role(), rel, p)
}

// hasSchemaPrivilege reports whether the session's role holds p on the
// schema.
func (s *Session) hasSchemaPrivilege(schema string, p catalog.Privilege) bool {
	me := s.role()
	if me.Superuser {
		return true
	}
	if schema != catalog.PublicSchema && s.hasPrivsOfRole(s.eng.cat.SchemaOwner(schema)) {
		// The owner holds every privilege on its schema.
		return true
	}
	acl := s.eng.cat.SchemaACL(schema)
	have := acl[catalog.PublicGrantee]
	for _, o := range s.eng.effectiveRoles(me) {
		have |= acl[o]
	}
	return have&p == p
}

// owns reports whether the session's role owns rel or inherits from its
// owner.
func (s *Session) owns(rel *catalog.Relation) bool {
	return slices.Contains(s.eng.effectiveRoles(s.role()), rel.Owner)
}

// denied is Postgres's `permission denied for table t`.
func denied(rel *catalog.Relation) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", aclNoun(rel.Kind), rel.Name)
}

// aclNoun names a relation kind in privilege messages, as Postgres's
// aclcheck_error does.
func aclNoun(k catalog.Kind) string {
	switch k {
	case catalog.KindView:
		return "view"
	case catalog.KindMView:
		return "materialized view"
	case catalog.KindIndex:
		return "index"
	case catalog.KindSource:
		return "source"
	case catalog.KindSink:
		return "sink"
	case catalog.KindSequence:
		return "sequence"
	}
	return "table"
}

// mustOwn refuses, as PostgreSQL does, to let a role that does not own
// the relation named n alter it (a missing relation is left to the
// statement to report); a superuser passes, as PostgreSQL's
// ownership checks let it.
func (s *Session) mustOwn(n sql.ObjectName) error {
	if s.superuser() {
		return nil
	}
	if rel, ok := s.eng.cat.Lookup(s.schemaOf(n), n.Name); ok && !s.owns(rel) {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", aclNoun(rel.Kind), rel.Name)
	}
	return nil
}

func mustBeSuperuser(what string) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to %s", what).
		WithDetail("Only superusers may %s.", what)
}

// createNameAt finds where the name of a CREATE TABLE or CREATE [OR
// REPLACE] [MATERIALIZED] VIEW statement starts, for the error position
// Postgres gives a schema privilege error.
var createNameAt = regexp.MustCompile(`(?is)^\s*create\s+(or\s+replace\s+)?(materialized\s+)?(table|view)\s+(if\s+not\s+exists\s+)?`)

// authorizeText is authorize with the statement's text, which places the
// error of a CREATE in a schema the role may not create in, as Postgres
// does.
func (s *Session) authorizeText(stmt sql.Stmt, text string) error {
	err := s.authorize(stmt)
	if pe, ok := err.(*pgerr.Error); ok && pe.Position == 0 && strings.HasPrefix(pe.Message, "permission denied for schema") {
		if m := createNameAt.FindString(text); m != "" {
			return pe.WithPosition(utf8.RuneCountInString(m) + 1)
		}
	}
	return err
}

// authorize checks the session's privileges for stmt.
func (s *Session) authorize(stmt sql.Stmt) error {
	if s.superuser() {
		return nil
	}
	switch st := stmt.(type) {
	case *sql.Query:
		// Checked on what the binder resolves (checkAccess).
		return nil
	case *sql.Explain:
		return s.authorize(st.Stmt)
	case *sql.CreateTable:
		if st.With["connector"] != "" || st.Format != "" {
			return mustBeSuperuser("create a table with a connector")
		}
		// The query of CREATE TABLE AS is checked as it is bound.
		return s.authorizeCreate(st.Name, st.Temp)
	case *sql.CreateView:
		if err := s.authorizeCreate(st.Name, st.Temp); err != nil {
			return err
		}
		if old, ok := s.eng.cat.Lookup(s.schemaOf(st.Name), st.Name.Name); ok && st.OrReplace && !s.owns(old) {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", aclNoun(old.Kind), old.Name)
		}
		// Its query is checked as it is bound.
	case *sql.CreateIndex:
		// PostgreSQL: only the owner of a relation indexes it.
		return s.mustOwn(st.Rel)
	case *sql.CreateSource:
		return mustBeSuperuser("create a source")
	case *sql.CreateSink:
		return mustBeSuperuser("create a sink")
	case *sql.AlterSystem:
		// Checked when it runs, after the transaction block, as
		// PostgreSQL does (noAlterSystemHere).
		return nil
	case *sql.Backup:
		// A backup copies every relation and every role's verifier.
		return mustBeSuperuser("take a backup")
	case *sql.Flush:
		// FLUSH forces a checkpoint, as PostgreSQL's CHECKPOINT does,
		// which a role could otherwise run in a loop to keep the
		// server writing. PostgreSQL 15 lets superusers and members of
		// pg_checkpoint run CHECKPOINT; weir has no predefined roles.
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to do FLUSH")
	case *sql.Rename:
		return s.mustOwn(st.Name)
	case *sql.AlterTable:
		return s.mustOwn(st.Name)
	case *sql.Comment:
		return s.mustOwn(st.Name)
	case *sql.SetParallelism:
		return s.mustOwn(st.Name)
	case *sql.AlterJob:
		return s.mustOwn(st.Name)
	case *sql.CreateSchema:
		// PostgreSQL looks up the owner named before it checks CREATE
		// on the database, which weir grants no role.
		if !st.OwnerSpecial && st.Owner != "" {
			if _, ok := s.eng.cat.RoleByName(st.Owner); !ok {
				return pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", st.Owner)
			}
		}
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for database %s", DatabaseName)
	case *sql.CreateSequence:
		return s.authorizeCreate(st.Name, false)
	case *sql.CreateFunction:
		// createFunction checks CREATE on the schema the search path
		// chooses, and that the role owns a function it replaces.
		return nil
	case *sql.AlterSequence:
		return s.mustOwn(st.Name)
	case *sql.Drop:
		if st.Kind == "schema" {
			// The owner of a schema drops it, and with CASCADE what is
			// in it, whoever owns that; a missing schema is left to
			// the statement to report.
			for _, n := range st.Names {
				system := n.Name == catalog.PublicSchema || n.Name == "weir" || slices.Contains(catalog.SystemSchemas, n.Name)
				switch {
				case !system && !slices.Contains(s.eng.cat.Schemas(), n.Name):
				case system || !s.hasPrivsOfRole(s.eng.cat.SchemaOwner(n.Name)):
					return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of schema %s", n.Name)
				}
			}
			return nil
		}
		if st.Kind == "type" || st.Kind == "domain" {
			// Types are not relations: dropTypes checks their owners.
			return nil
		}
		for _, n := range st.Names {
			if rel, ok := s.eng.cat.Lookup(s.schemaOf(n), n.Name); ok && !s.owns(rel) {
				return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", aclNoun(rel.Kind), rel.Name)
			}
		}
	case *sql.Truncate:
		for _, n := range st.Names {
			if rel, ok := s.eng.cat.Lookup(s.schemaOf(n), n.Name); ok && !s.hasPrivilege(rel, catalog.PrivTruncate) {
				return denied(rel)
			}
		}
	case *sql.Copy:
		// COPY (query) TO and COPY table TO are checked as their query
		// is bound, COPY table FROM where its table is resolved
		// (prepareCopy).
	}
	return nil
}

// authorizeCreate checks CREATE on the schema a new relation goes to. A
// temporary relation needs PostgreSQL's TEMPORARY privilege on the
// database, which every role has.
func (s *Session) authorizeCreate(name sql.ObjectName, temp bool) error {
	if temp || name.Schema == catalog.TempSchemaAlias || (name.Schema != "" && name.Schema == s.tempSchema) {
		return nil
	}
	schema := name.Schema
	if schema == "" {
		if schema = s.creationTarget(); schema == "" || schema == catalog.TempSchemaAlias || schema == s.tempSchema {
			// None (3F000 where the relation is placed) or temporary.
			return nil
		}
	}
	if !s.hasSchemaPrivilege(schema, catalog.PrivCreate) {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema %s", schema)
	}
	return nil
}

// checkAccess checks the accesses of a bound statement (planner.Access:
// what the binder resolved, by relation, not the names the text spells)
// for the session's role, as PostgreSQL checks a plan's range table
// before it runs it: the role must hold the privileges each needs, and
// the relations a view reads need them held by the view's owner. Of the
// system tables only pg_authid, which holds the verifiers, is refused to
// roles that are not superusers.
func (s *Session) checkAccess(acc []planner.Access) error {
	if s.internal {
		// The engine's own bindings (a view's definition bound again, a
		// job restarted) were checked when their statement ran.
		return nil
	}
	for _, a := range acc {
		if a.Rel != nil {
			if err := s.otherTempRel(a.Rel); err != nil {
				return err
			}
		}
	}
	me := s.role()
	for _, a := range acc {
		if a.Func != nil {
			f := a.Func
			if cur, ok := s.eng.cat.FunctionByOID(f.OID); ok {
				// Today's grants, as for a relation below.
				f = cur
			}
			if !s.eng.holdsExecute(me, f, false) {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for function %s", f.Name)
			}
			continue
		}
		who := me
		if a.View != nil {
			who = s.eng.viewOwner(a.View)
		}
		if a.Rel == nil {
			if a.Schema == syscat.PgCatalog && a.Name == "pg_authid" && !who.Superuser {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table pg_authid")
			}
			continue
		}
		if who.Superuser {
			continue
		}
		rel := a.Rel
		if cur, ok := s.eng.cat.ByID(rel.ID); ok {
			// A cached plan is checked against today's grants and owner.
			rel = cur
		}
		if !s.eng.holds(who, rel, a.Priv) {
			return denied(rel)
		}
	}
	return nil
}

// viewOwner returns the role whose privileges the relations a view reads
// are checked against: its owner as the catalog has it now. A view
// made before roles had owners (owner 0) belongs to the bootstrap
// superuser.
func (e *Engine) viewOwner(view *catalog.Relation) *catalog.Role {
	owner := view.Owner
	if cur, ok := e.cat.ByID(view.ID); ok {
		owner = cur.Owner
	}
	if owner == 0 {
		owner = catalog.BootstrapRoleOID
	}
	if r, ok := e.cat.RoleByOID(owner); ok {
		return r
	}
	// A role that no longer exists holds nothing.
	return &catalog.Role{OID: owner}
}

// Authorize implements planner.Authorizer: a statement bound in a
// session is checked for its role before it is planned further.
func (v catalogView) Authorize(acc []planner.Access) error { return v.s.checkAccess(acc) }

var _ planner.Authorizer = catalogView{}

// splitRelName splits a relation name as written ("s.t", `"T"`).
func splitRelName(text string) (string, string) {
	text = strings.TrimSpace(text)
	schema, name := "", text
	if i := strings.LastIndexByte(text, '.'); i >= 0 {
		schema, name = text[:i], text[i+1:]
	}
	fold := func(x string) string {
		if len(x) >= 2 && x[0] == '"' && x[len(x)-1] == '"' {
			return strings.ReplaceAll(x[1:len(x)-1], `""`, `"`)
		}
		return strings.ToLower(x)
	}
	return fold(schema), fold(name)
}

// grant runs GRANT and REVOKE.
func (s *Session) grant(ctx context.Context, st *sql.Grant, io wire.ExecIO) (wire.Result, error) {
	tag := "GRANT"
	if st.Revoke {
		tag = "REVOKE"
	}
	var grantees []uint32
	for _, g := range st.Grantees {
		if g == "public" {
			grantees = append(grantees, catalog.PublicGrantee)
			continue
		}
		r, ok := s.eng.cat.RoleByName(g)
		if !ok {
			return nil, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", g)
		}
		grantees = append(grantees, r.OID)
	}
	apply := func(acl catalog.ACL, p catalog.Privilege) catalog.ACL {
		if acl == nil {
			acl = catalog.ACL{}
		}
		for _, g := range grantees {
			if st.Revoke {
				acl[g] &^= p
				if acl[g] == 0 {
					delete(acl, g)
				}
			} else {
				acl[g] |= p
			}
		}
		return acl
	}
	if st.On == "role" {
		return s.grantRoles(st, grantees, io)
	}
	if st.On == "function" {
		if err := s.grantOnFunctions(ctx, st, apply, io); err != nil {
			return nil, err
		}
		return done(tag)
	}
	if st.On == "sequence" || st.On == "all sequences in schema" {
		if err := s.grantOnSequences(ctx, st, grantees); err != nil {
			return nil, err
		}
		return done(tag)
	}
	if st.On == "table" {
		// GRANT ... ON TABLE may name sequences too.
		var seqs []seqRef
		var rest []sql.ObjectName
		for _, o := range st.Objects {
			if q, ok, _ := s.eng.sequenceByName(s.schemaOf(o), o); ok {
				seqs = append(seqs, q)
			} else {
				rest = append(rest, o)
			}
		}
		cp := *st
		cp.Objects = rest
		if len(rest) > 0 {
			// The relations that are no sequences are checked before
			// any sequence changes: a GRANT that fails changes nothing.
			_, rels, err := s.tableGrantTargets(&cp)
			if err != nil {
				return nil, err
			}
			if err := s.checkTableGrant(rels); err != nil {
				return nil, err
			}
		}
		if len(seqs) > 0 {
			var p catalog.Privilege
			for _, q := range seqs {
				p = tablePrivilegesOnSequence(st.Privileges, q.name(), io)
			}
			if err := s.grantSequences(ctx, seqs, grantees, st.Revoke, p); err != nil {
				return nil, err
			}
		}
		if len(rest) == 0 {
			return done(tag)
		}
		st = &cp
	}
	if st.On == "schema" {
		var p catalog.Privilege
		for _, w := range st.Privileges {
			switch w {
			case "create":
				p |= catalog.PrivCreate
			case "usage":
				p |= catalog.PrivUsage
			case "all":
				p |= catalog.PrivCreate | catalog.PrivUsage
			default:
				return nil, pgerr.New(codeInvalidGrantOperation, "invalid privilege type %s for schema", strings.ToUpper(w))
			}
		}
		if !s.superuser() {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema %s", st.Objects[0].Name)
		}
		for _, o := range st.Objects {
			if err := s.eng.cat.SetSchemaACL(o.Name, apply(s.eng.cat.SchemaACL(o.Name), p)); err != nil {
				return nil, err
			}
		}
		return done(tag)
	}
	p, rels, err := s.tableGrantTargets(st)
	if err != nil {
		return nil, err
	}
	if err := s.eng.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer s.eng.writeMu.Unlock()
	// Every relation is checked before any is changed: a GRANT that
	// fails changes nothing, as PostgreSQL's transaction does.
	if err := s.checkTableGrant(rels); err != nil {
		return nil, err
	}
	changed := map[uint32]*catalog.Relation{}
	var order []*catalog.Relation
	for _, r := range rels {
		// Read the relation again under writeMu so a concurrent change
		// to it is not lost (and once if it is named twice).
		cp, ok := changed[r.ID]
		if !ok {
			cur, found := s.eng.cat.ByID(r.ID)
			if !found {
				continue
			}
			cp = cur.Clone()
			changed[r.ID] = cp
			order = append(order, cp)
		}
		cp.ACL = cp.ACL.Update(cp.Owner, catalog.PrivTableAll, grantees, p, st.Revoke)
	}
	if len(order) > 0 {
		if err := s.eng.cat.ReplaceAll(order...); err != nil {
			return nil, err
		}
	}
	return done(tag)
}

// tableGrantTargets reads the privileges of a GRANT or REVOKE on
// relations (0LP01 for one a table does not have) and looks
// its relations up (42P01 for a missing one).
func (s *Session) tableGrantTargets(st *sql.Grant) (catalog.Privilege, []*catalog.Relation, error) {
	var p catalog.Privilege
	for _, w := range st.Privileges {
		switch w {
		case "select":
			p |= catalog.PrivSelect
		case "insert":
			p |= catalog.PrivInsert
		case "update":
			p |= catalog.PrivUpdate
		case "delete":
			p |= catalog.PrivDelete
		case "all":
			p |= catalog.PrivTableAll
		case "truncate":
			p |= catalog.PrivTruncate
		case "references":
			p |= catalog.PrivReferences
		case "trigger":
			p |= catalog.PrivTrigger
		default:
			return 0, nil, pgerr.New(codeInvalidGrantOperation, "invalid privilege type %s for table", strings.ToUpper(w))
		}
	}
	var rels []*catalog.Relation
	if st.On == "all tables in schema" {
		for _, o := range st.Objects {
			for _, r := range s.eng.cat.All() {
				// As in PostgreSQL, sequences are not among them (ALL
				// SEQUENCES IN SCHEMA names those), nor indexes.
				if r.Schema == o.Name && r.Kind != catalog.KindSink && r.Kind != catalog.KindSystem && r.Kind != catalog.KindSequence && r.Kind != catalog.KindIndex {
					rels = append(rels, r)
				}
			}
		}
	} else {
		for _, o := range st.Objects {
			r, ok := s.eng.cat.Lookup(s.schemaOf(o), o.Name)
			if !ok {
				return 0, nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", o.Name)
			}
			rels = append(rels, r)
		}
	}
	return p, rels, nil
}

// checkTableGrant refuses a GRANT or REVOKE on rels if one of them is an
// index (42809) or the session's role does not own it (42501).
func (s *Session) checkTableGrant(rels []*catalog.Relation) error {
	for _, r := range rels {
		if r.Kind == catalog.KindIndex {
			return pgerr.New(pgerr.WrongObjectType, "\"%s\" is an index", r.Name)
		}
		if !s.superuser() && !s.owns(r) {
			if r.Kind == catalog.KindSequence {
				return denied(r)
			}
			// PostgreSQL's ExecGrant_Relation names every relation but
			// a sequence a table here, views included.
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table %s", r.Name)
		}
	}
	return nil
}

// aclText renders a relation's ACL as Postgres's aclitem[] text
// ({owner=arwdDxt/owner,grantee=r/owner}), nil when it is not explicit
// (relacl is then NULL).
func (e *Engine) aclText(rel *catalog.Relation) []string {
	return e.relACLText(rel.Owner, rel.ACL)
}

// relACLText renders an ACL as Postgres's aclitem[] text, every item
// granted by the owner; nil when the ACL is not explicit, empty (not
// nil) when it holds no item.
func (e *Engine) relACLText(owner uint32, acl catalog.RelACL) []string {
	if !acl.Explicit() {
		return nil
	}
	o := aclName(e.roleName(owner))
	items := make([]string, 0, len(acl))
	for _, it := range acl {
		name := ""
		if it.Grantee != catalog.PublicGrantee {
			name = aclName(e.roleName(it.Grantee))
		}
		items = append(items, name+"="+it.Privs.Letters()+"/"+o)
	}
	return items
}

// aclName quotes a role name inside an aclitem where Postgres would.
func aclName(n string) string {
	for _, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
		}
	}
	return n
}

// roleName names a role by OID, as pg_get_userbyid does.
func (e *Engine) roleName(oid uint32) string {
	if r, ok := e.cat.RoleByOID(oid); ok {
		return r.Name
	}
	return "unknown (OID=" + strconv.FormatUint(uint64(oid), 10) + ")"
}

// HasTablePrivilege implements executor.PrivilegeChecker.
func (s *Session) HasTablePrivilege(user, table string, oid uint32, privs string) (bool, error) {
	r, ok := s.eng.cat.RoleByName(user)
	if !ok {
		return false, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", user)
	}
	var rel *catalog.Relation
	if oid != 0 {
		rel, ok = s.eng.cat.ByOID(oid)
		if !ok {
			// Postgres answers NULL for an OID that names nothing; a
			// system table's OID falls here too, which everyone reads.
			return true, nil
		}
	} else {
		schema, name := splitRelName(table)
		rel, ok = s.eng.cat.Lookup(s.schemaOf(sql.ObjectName{Schema: schema, Name: name}), name)
		if !ok {
			if _, _, sys := syscat.Lookup(schema, name); sys {
				return name != "pg_authid" || r.Superuser, nil
			}
			return false, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", table)
		}
	}
	for _, p := range strings.Split(privs, ",") {
		var want catalog.Privilege
		switch strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), " WITH GRANT OPTION"))) {
		case "SELECT":
			want = catalog.PrivSelect
		case "INSERT":
			want = catalog.PrivInsert
		case "UPDATE":
			want = catalog.PrivUpdate
		case "DELETE":
			want = catalog.PrivDelete
		case "TRUNCATE":
			want = catalog.PrivTruncate
		case "REFERENCES":
			want = catalog.PrivReferences
		case "TRIGGER":
			want = catalog.PrivTrigger
		default:
			return false, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(p))
		}
		if s.eng.holds(r, rel, want) {
			return true, nil
		}
	}
	return false, nil
}

// grantRoles runs GRANT role TO role and REVOKE role FROM role: a
// superuser may grant any role, a role with CREATEROLE any role that is
// not a superuser. A grant that would make a role a member of itself is
// refused (0LP01), as in Postgres.
func (s *Session) grantRoles(st *sql.Grant, grantees []uint32, io wire.ExecIO) (wire.Result, error) {
	tag := "GRANT ROLE"
	if st.Revoke {
		tag = "REVOKE ROLE"
	}
	for _, o := range st.Objects {
		granted, ok := s.eng.cat.RoleByName(o.Name)
		if !ok {
			return nil, pgerr.New(codeUndefinedObject, "role \"%s\" does not exist", o.Name)
		}
		if err := s.checkRoleAdmin("grant", granted); err != nil {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to grant role \"%s\"", granted.Name)
		}
		for _, g := range grantees {
			if g == catalog.PublicGrantee {
				return nil, pgerr.New(codeUndefinedObject, "role \"public\" does not exist")
			}
			member, _ := s.eng.cat.RoleByOID(g)
			r := *member
			has := slices.Contains(r.MemberOf, granted.OID)
			switch {
			case st.Revoke && !has:
				io.Notice("WARNING", "01000", "role \""+member.Name+"\" is not a member of role \""+granted.Name+"\"")
				continue
			case st.Revoke:
				r.MemberOf = slices.DeleteFunc(slices.Clone(r.MemberOf), func(x uint32) bool { return x == granted.OID })
			case has:
				io.Notice("NOTICE", "00000", "role \""+member.Name+"\" is already a member of role \""+granted.Name+"\"")
				continue
			default:
				// granted must not already be a member of member.
				loop := granted.OID == member.OID
				for _, x := range s.eng.effectiveRolesAll(granted) {
					loop = loop || x == member.OID
				}
				if loop {
					return nil, pgerr.New(codeInvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", granted.Name, member.Name)
				}
				r.MemberOf = append(slices.Clone(r.MemberOf), granted.OID)
			}
			if err := s.eng.cat.ReplaceRole(&r); err != nil {
				return nil, err
			}
		}
	}
	return done(tag)
}

// effectiveRolesAll is effectiveRoles ignoring INHERIT: every role r is
// a member of, directly or not.
func (e *Engine) effectiveRolesAll(r *catalog.Role) []uint32 {
	out := []uint32{r.OID}
	seen := map[uint32]bool{r.OID: true}
	for i := 0; i < len(out); i++ {
		if cur, ok := e.cat.RoleByOID(out[i]); ok {
			for _, m := range cur.MemberOf {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	}
	return out
}
