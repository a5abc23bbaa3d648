package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// Deferred foreign keys. A DEFERRABLE foreign key's NO ACTION check (a
// referencing row must find its key; a removed key must not be
// referenced) runs, while the constraint is deferred in a transaction
// block, not at the end of each statement but at COMMIT, where
// fkVerify checks the block's net changes against every foreign key
// anyway, or when SET CONSTRAINTS ... IMMEDIATE names it. The actions
// (CASCADE, SET NULL, SET DEFAULT) and RESTRICT are never deferred, as
// in PostgreSQL. Outside a block a statement is its own transaction, so
// its end is its COMMIT and every check runs there.

// fkName names a foreign key of one table.
type fkName struct {
	rel  uint32
	name string
}

// fkModes is what SET CONSTRAINTS said in the open transaction block:
// all, when set, is ALL DEFERRED (true) or ALL IMMEDIATE; named are the
// constraints named since (deferred or not), which override it.
type fkModes struct {
	allSet, all bool
	named       map[fkName]bool
}

// clone returns a copy of m that later SET CONSTRAINTS leave alone.
func (m fkModes) clone() fkModes {
	m.named = maps.Clone(m.named)
	return m
}

// deferred reports whether foreign key fk of table rel is deferred
// under m: a deferrable constraint as SET CONSTRAINTS last set it, or
// as it was declared (INITIALLY DEFERRED).
func (m fkModes) deferred(rel uint32, fk *catalog.ForeignKey) bool {
	if !fk.Deferrable {
		return false
	}
	if d, ok := m.named[fkName{rel, fk.Name}]; ok {
		return d
	}
	if m.allSet {
		return m.all
	}
	return fk.Deferred
}

// fkPending are the tables on which, in the open transaction block,
// deferred checks wait: PostgreSQL's pending trigger events, which a
// table's row changes queue for each deferred foreign key they concern
// (a referencing row written, a referenced key removed) until COMMIT or
// SET CONSTRAINTS ... IMMEDIATE runs them. TRUNCATE refuses such a
// table (55006), as PostgreSQL does.
type fkPending map[uint32]map[fkName]bool

// note records that a change of table rel queued a check of foreign
// key ref; a nil p records nothing.
func (p *fkPending) note(rel uint32, ref fkRef) {
	if p == nil {
		return
	}
	if *p == nil {
		*p = fkPending{}
	}
	if (*p)[rel] == nil {
		(*p)[rel] = map[fkName]bool{}
	}
	(*p)[rel][fkName{ref.child.ID, ref.fk.Name}] = true
}

// clone returns a copy of p that later changes leave alone.
func (p fkPending) clone() fkPending {
	out := make(fkPending, len(p))
	for rel, fks := range p {
		out[rel] = maps.Clone(fks)
	}
	return out
}

// ran forgets the checks of the foreign keys for which which reports
// true: SET CONSTRAINTS ... IMMEDIATE ran them.
func (p fkPending) ran(which func(fkName) bool) {
	for rel, fks := range p {
		maps.DeleteFunc(fks, func(k fkName, _ bool) bool { return which(k) })
		if len(fks) == 0 {
			delete(p, rel)
		}
	}
}

// checkTruncate fails with PostgreSQL's 55006 when deferred checks wait
// on rel in the open block.
func (s *Session) checkTruncate(rel *catalog.Relation) error {
	if len(s.fkPending[rel.ID]) > 0 {
		return pgerr.New(pgerr.ObjectInUse, "cannot TRUNCATE \"%s\" because it has pending trigger events", rel.Name)
	}
	return nil
}

// fkChildQueues reports whether ev, a write of a row of the referencing
// table of foreign key ref, queues its check as PostgreSQL does: an
// insert always, an update when it changes the key to one without NULLs
// (RI_FKey_fk_upd_check_required).
func fkChildQueues(ref fkRef, ev fkEvent) bool {
	if ev.old == nil {
		return true
	}
	same, null := true, false
	for _, c := range ref.fk.Cols {
		o, n := ev.old[c], ev.new[c]
		null = null || n.Null
		if o.Null != n.Null || !o.Null && types.Compare(o, n, ev.rel.Cols[c].T) != 0 {
			same = false
		}
	}
	return !same && !null
}

// fkDeferredNow returns the check of a statement in the open block: it
// reports the foreign keys whose NO ACTION checks wait for COMMIT, as
// SET CONSTRAINTS stood when the statement began.
func (s *Session) fkDeferredNow() func(fkRef) bool {
	m := s.fkModes.clone()
	return func(ref fkRef) bool { return m.deferred(ref.child.ID, ref.fk) }
}

// setConstraints runs SET CONSTRAINTS. Outside a transaction block it
// warns (25P01) and, as in PostgreSQL, still looks the names up. A name
// is looked up in each schema of the search path until one has a
// constraint of that name; every constraint of that name there is
// meant, and one that is not deferrable fails DEFERRED with 42809 (and
// is left out of IMMEDIATE, which it always is). IMMEDIATE runs at once
// the checks the named constraints had put off: a violation fails the
// statement (and so the block) with PostgreSQL's 23503.
func (s *Session) setConstraints(ctx context.Context, st *sql.SetConstraints, io wire.ExecIO) (wire.Result, error) {
	inBlock := s.txn == 'T'
	if !inBlock {
		io.Notice("WARNING", "25P01", "SET CONSTRAINTS can only be used in transaction blocks")
	}
	var named []fkName
	for _, n := range st.Names {
		schemas := []string{s.schemaOf(n)}
		if n.Schema != "" && !s.schemaExists(schemas[0]) {
			return nil, pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", n.Schema)
		}
		if n.Schema == "" {
			schemas = s.searchSchemas()
			if s.tempSchema != "" {
				schemas = append([]string{s.tempSchema}, schemas...)
			}
		}
		found := false
		for _, schema := range schemas {
			for _, r := range s.eng.cat.All() {
				if r.Schema != schema || !s.eng.constraintNamesOf(r)[n.Name] {
					continue
				}
				found = true
				k := slices.IndexFunc(r.ForeignKeys, func(f catalog.ForeignKey) bool { return f.Name == n.Name })
				switch {
				case k >= 0 && r.ForeignKeys[k].Deferrable:
					named = append(named, fkName{r.ID, n.Name})
				case st.Deferred:
					return nil, pgerr.New(pgerr.WrongObjectType, "constraint \"%s\" is not deferrable", n.Name)
				}
			}
			for _, u := range s.eng.cat.Types() {
				// A domain's CHECK constraints are in pg_constraint too.
				if u.Schema == schema && slices.ContainsFunc(u.Checks, func(c catalog.DomainCheck) bool { return c.Name == n.Name }) {
					if st.Deferred {
						return nil, pgerr.New(pgerr.WrongObjectType, "constraint \"%s\" is not deferrable", n.Name)
					}
					found = true
				}
			}
			if found {
				break
			}
		}
		if !found {
			return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" does not exist", n.Name)
		}
	}
	if !inBlock {
		return done("SET CONSTRAINTS")
	}
	before := s.fkModes.clone()
	if st.Names == nil {
		s.fkModes = fkModes{allSet: true, all: st.Deferred}
	} else {
		if s.fkModes.named == nil {
			s.fkModes.named = map[fkName]bool{}
		}
		for _, k := range named {
			s.fkModes.named[k] = st.Deferred
		}
	}
	if st.Deferred {
		return done("SET CONSTRAINTS")
	}
	// The checks put off so far by the constraints now immediate.
	now := func(ref fkRef) bool {
		if !before.deferred(ref.child.ID, ref.fk) {
			return false
		}
		return st.Names == nil || slices.Contains(named, fkName{ref.child.ID, ref.fk.Name})
	}
	if err := s.fkCheckPending(ctx, now); err != nil {
		return nil, err
	}
	s.fkPending.ran(func(k fkName) bool { return st.Names == nil || slices.Contains(named, k) })
	return done("SET CONSTRAINTS")
}

// fkCheckPending runs, over the open block's writes so far, the NO
// ACTION checks of the foreign keys for which which reports true: each
// row the block changed is taken as it was before the block against as
// it is in the block's batch, as COMMIT takes it.
func (s *Session) fkCheckPending(ctx context.Context, which func(fkRef) bool) error {
	t := s.tx
	if t == nil {
		return nil
	}
	f := newFKState(s)
	f.ctx = ctx
	f.verify = true
	f.skip = func(ref fkRef) bool { return !which(ref) }
	w := &batchWriter{eng: s.eng, batch: t.batch, tx: t, fk: f}
	for _, pk := range slices.Clone(t.order) {
		rel := t.rels[pk]
		if cur, ok := s.eng.cat.ByID(rel.ID); ok {
			rel = cur
		}
		ts := relTypes(rel)
		key := []byte(pk[4:])
		var before types.Row
		if enc := t.prior[pk]; enc != nil {
			missing, _ := rel.MissingRow()
			var err error
			if before, err = types.DecodeRowFill(enc[1:], ts, missing); err != nil {
				return err
			}
		}
		after, found, err := t.batch.Get(rel.ID, key, ts)
		if err != nil {
			return err
		}
		if !found {
			after = nil
		}
		if before == nil && after == nil || before != nil && after != nil && sameRow(rel, before, after) {
			continue
		}
		f.note(rel, before, after)
	}
	if len(f.events) == 0 {
		return nil
	}
	evs := f.events
	f.events = nil
	return f.round(w, evs)
}

// alterConstraints runs the actions ALTER TABLE ... ALTER CONSTRAINT
// name [NOT] DEFERRABLE [INITIALLY DEFERRED | IMMEDIATE], in order, as
// one change: only a foreign key's attributes change (42809 for another
// constraint, as PostgreSQL 15).
func (s *Session) alterConstraints(ctx context.Context, rel *catalog.Relation, acts []*sql.AlterTable) (wire.Result, error) {
	e := s.eng
	up := rel.Clone()
	for _, st := range acts {
		k := slices.IndexFunc(up.ForeignKeys, func(f catalog.ForeignKey) bool { return f.Name == st.Column })
		if k < 0 {
			if e.constraintNamesOf(rel)[st.Column] {
				return nil, pgerr.New(pgerr.WrongObjectType, "constraint \"%s\" of relation \"%s\" is not a foreign key constraint", st.Column, rel.Name)
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", st.Column, rel.Name)
		}
		up.ForeignKeys[k].Deferrable, up.ForeignKeys[k].Deferred = st.Deferrable, st.Deferred
	}
	if slices.EqualFunc(rel.ForeignKeys, up.ForeignKeys, func(a, b catalog.ForeignKey) bool {
		return a.Deferrable == b.Deferrable && a.Deferred == b.Deferred
	}) {
		return done("ALTER TABLE")
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	return e.replaceTable(rel, up, false)
}
