package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// alterOwner runs ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE ...
// OWNER TO role. Naming the relation's owner changes nothing, as in
// PostgreSQL (which then checks no privilege): a pg_dump restored by
// the role that owned its objects runs. Giving the relation to another
// role is not supported (0A000).
func (s *Session) alterOwner(ctx context.Context, st *sql.AlterOwner, io wire.ExecIO) (wire.Result, error) {
	e := s.eng
	tag := "ALTER " + strings.ToUpper(st.Kind)
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	switch st.Kind {
	case "schema":
		return s.alterSchemaOwner(st, tag)
	case "function":
		f, err := s.lookupFuncRef(*st.Func)
		if err != nil {
			return nil, err
		}
		role, err := s.ownerRole(st)
		if err != nil {
			return nil, err
		}
		if role.OID != f.Owner {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "changing the owner of function %s is not supported", f.Name).
				WithHint("Create it as the role that is to own it.")
		}
		return done(tag)
	}
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		if st.IfExists {
			io.Notice("NOTICE", "00000", fmt.Sprintf("relation \"%s\" does not exist, skipping", st.Name.Name))
			return done(tag)
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	want := map[string]catalog.Kind{"view": catalog.KindView, "materialized view": catalog.KindMView, "sequence": catalog.KindSequence}
	if k, ok := want[st.Kind]; ok && rel.Kind != k {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind)
	}
	role, err := s.ownerRole(st)
	if err != nil {
		return nil, err
	}
	if role.OID != rel.Owner {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "changing the owner of %s \"%s\" is not supported", kindWords[rel.Kind], rel.Name).
			WithHint("Create it as the role that is to own it, or GRANT that role the privileges it needs.")
	}
	return done(tag)
}

// alterSchemaOwner runs ALTER SCHEMA name OWNER TO role as PostgreSQL
// 15 does: naming the owner changes nothing; otherwise the session's
// role must own the schema and be a member of the new owner, and have
// CREATE on the database, which weir gives only superusers.
func (s *Session) alterSchemaOwner(st *sql.AlterOwner, tag string) (wire.Result, error) {
	e := s.eng
	name := st.Name.Name
	if name == catalog.PublicSchema || !slices.Contains(e.cat.Schemas(), name) {
		if name == catalog.PublicSchema || slices.Contains(catalog.SystemSchemas, name) || name == "weir" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "changing the owner of schema %s is not supported", name)
		}
		return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	owner, err := s.schemaOwner(&sql.CreateSchema{Owner: st.Role, OwnerSpecial: st.Special})
	if err != nil {
		return nil, err
	}
	old := e.cat.SchemaOwner(name)
	if owner.OID == old {
		return done(tag)
	}
	if !s.hasPrivsOfRole(old) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of schema %s", name)
	}
	if !s.superuser() {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for database %s", DatabaseName)
	}
	if err := e.cat.SetSchemaOwner(name, owner.OID); err != nil {
		return nil, err
	}
	return done(tag)
}

// ownerRole resolves the role after OWNER TO: 42704 when there is none.
func (s *Session) ownerRole(st *sql.AlterOwner) (*catalog.Role, error) {
	switch {
	case st.Special && st.Role == "session_user":
		return s.sessionRole(), nil
	case st.Special:
		return s.role(), nil
	}
	r, ok := s.eng.cat.RoleByName(st.Role)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", st.Role)
	}
	return r, nil
}
