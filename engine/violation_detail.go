package engine

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// hideUnreadableKey leaves the key out of a unique violation's detail
// when the session's role may not read the table it names, as
// executor.ExecCtx.MaySelect does for a statement's own violations (here
// for those COMMIT of a transaction block finds).
func (s *Session) hideUnreadableKey(err error) error {
	pe := pgerr.As(err)
	if pe == nil || pe.Code != pgerr.UniqueViolation || pe.Detail == "" || pe.TableName == "" {
		return err
	}
	if rel, ok := s.eng.cat.Lookup(orDefault(pe.SchemaName, catalog.PublicSchema), pe.TableName); ok && !s.hasPrivilege(rel, catalog.PrivSelect) {
		cp := *pe
		cp.Detail = ""
		return &cp
	}
	return err
}
