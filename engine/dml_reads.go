package engine

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
)

// authorizeTargetReads checks, on the bound statement, the SELECT a
// write needs because it reads its target's columns where the parsed
// statement does not show it, as PostgreSQL does: an UPDATE whose SET
// expressions read the table's columns, and an INSERT ... ON CONFLICT
// with a conflict target (its columns are read to find the conflicting
// row) or whose DO UPDATE reads the existing row. Without SELECT on the
// table such a statement would be an oracle for values the role may not
// read (SET id = 1 / (CASE WHEN secret LIKE 'a%' THEN 0 ELSE 1 END)).
// EXCLUDED's columns are the role's own row and need nothing.
func (s *Session) authorizeTargetReads(q *sql.Query, b *planner.Bound) error {
	if s.superuser() || b == nil {
		return nil
	}
	var rel *catalog.Relation
	reads := false
	switch n := dmlNode(b.Plan).(type) {
	case *planner.Update:
		rel = n.Rel
		for _, e := range n.Set {
			reads = reads || e != nil && planner.ReadsInput(e, len(n.Rel.Cols))
		}
	case *planner.Insert:
		rel = n.Rel
		if oc := q.OnConflict; oc != nil && (len(oc.Columns) > 0 || oc.Constraint != "") {
			reads = true
		}
		if oc := n.OnConflict; oc != nil {
			for _, e := range append(append([]planner.Expr{}, oc.Set...), oc.Where) {
				reads = reads || e != nil && planner.ReadsInput(e, len(n.Rel.Cols))
			}
		}
	}
	if !reads || rel == nil {
		return nil
	}
	if cur, ok := s.eng.cat.ByID(rel.ID); ok && !s.hasPrivilege(cur, catalog.PrivSelect) {
		return denied(cur)
	}
	return nil
}

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

// dmlNode finds the Insert or Update node of a bound write: its root,
// or below what a WITH clause put over it.
func dmlNode(p planner.Plan) planner.Plan {
	if p == nil {
		return nil
	}
	switch p.(type) {
	case *planner.Insert, *planner.Update:
		return p
	}
	for _, in := range p.Inputs() {
		if n := dmlNode(in); n != nil {
			return n
		}
	}
	return nil
}
