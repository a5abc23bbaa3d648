package engine

import (
	"context"
	"fmt"
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
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
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
	var role *catalog.Role
	switch {
	case st.Special && st.Role == "session_user":
		role = s.sessionRole()
	case st.Special:
		role = s.role()
	default:
		r, ok := e.cat.RoleByName(st.Role)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", st.Role)
		}
		role = r
	}
	if role.OID != rel.Owner {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "changing the owner of %s \"%s\" is not supported", kindWords[rel.Kind], rel.Name).
			WithHint("Create it as the role that is to own it, or GRANT that role the privileges it needs.")
	}
	return done(tag)
}
