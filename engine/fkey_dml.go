package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// fkRef is a foreign key with the table holding it (the referencing
// table).
type fkRef struct {
	fk    *catalog.ForeignKey
	child *catalog.Relation
}

// fkIndex lists, for the catalog at one generation, the foreign keys of
// each table (out) and those referencing it (in).
type fkIndex struct {
	gen     uint64
	in, out map[uint32][]fkRef
}

// fkCache keeps the engine's fkIndex for the catalog's generation.
type fkCache struct {
	mu  sync.Mutex
	idx *fkIndex
}

// foreignKeys returns the foreign keys by table for the catalog as it is.
func (e *Engine) foreignKeys() *fkIndex {
	gen := e.cat.Generation()
	e.fks.mu.Lock()
	defer e.fks.mu.Unlock()
	if e.fks.idx != nil && e.fks.idx.gen == gen {
		return e.fks.idx
	}
	idx := &fkIndex{gen: gen, in: map[uint32][]fkRef{}, out: map[uint32][]fkRef{}}
	for _, r := range e.cat.All() {
		for k := range r.ForeignKeys {
			ref := fkRef{fk: &r.ForeignKeys[k], child: r}
			idx.out[r.ID] = append(idx.out[r.ID], ref)
			idx.in[ref.fk.RefID] = append(idx.in[ref.fk.RefID], ref)
		}
	}
	e.fks.idx = idx
	return idx
}

// fkWriter is a statement's writer as the foreign keys act through it:
// the rows as the statement sees them, its own writes included.
type fkWriter interface {
	executor.Writer
	// fkCurrent returns the row of rel under primary key key.
	fkCurrent(rel *catalog.Relation, key []byte) (types.Row, bool, error)
	// fkKeys returns the key stores of the unique indexes.
	fkKeys() keyStore
	// fkScan calls fn with every row of rel.
	fkScan(rel *catalog.Relation, fn func(types.Row) error) error
}

// fkEvent is a row change a foreign key may act on at the end of the
// statement: old is nil for an insert, new for a delete.
type fkEvent struct {
	rel      *catalog.Relation
	old, new types.Row
}

// fkState collects a statement's row changes of tables taking part in
// foreign keys and acts on them when the statement ends (end), as
// PostgreSQL's RI triggers fire at the end of the statement.
type fkState struct {
	s   *Session
	ctx context.Context
	// off is set while TRUNCATE deletes rows: it fires no triggers.
	off bool
	// verify is set for COMMIT of a transaction block, whose actions ran
	// in its statements: a key still referenced fails, whatever the
	// action.
	verify bool
	// skip, when set, reports a foreign key whose NO ACTION checks are
	// not to run now: deferred to COMMIT in a transaction block, or not
	// asked for by SET CONSTRAINTS ... IMMEDIATE (fkCheckPending).
	skip func(fkRef) bool
	// pending, when set, records the checks skip defers: a statement's
	// in a transaction block (not SET CONSTRAINTS ... IMMEDIATE's, whose
	// skip leaves out what it was not asked to check).
	pending *fkPending
	idx     *fkIndex
	events  []fkEvent
	ec      *executor.ExecCtx
	rules   map[uint32]*executor.RowRules
}

func newFKState(s *Session) *fkState {
	return &fkState{s: s, ctx: context.Background()}
}

// note records a change of rel's row for the end of the statement.
func (f *fkState) note(rel *catalog.Relation, old, new types.Row) {
	if f == nil || f.off {
		return
	}
	if f.idx == nil {
		f.idx = f.s.eng.foreignKeys()
	}
	if len(f.idx.in[rel.ID]) == 0 && len(f.idx.out[rel.ID]) == 0 {
		return
	}
	f.events = append(f.events, fkEvent{rel: rel, old: slices.Clone(old), new: slices.Clone(new)})
}

// end acts on the statement's changes until no new ones come: the
// changes a cascade makes are noted in turn.
func (f *fkState) end(ctx context.Context, w fkWriter) error {
	if f == nil || len(f.events) == 0 {
		return nil
	}
	f.ctx = ctx
	defer func() {
		if f.ec != nil {
			f.ec.Release()
			f.ec = nil
		}
	}()
	for len(f.events) > 0 {
		evs := f.events
		f.events = nil
		if err := f.round(w, evs); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return ctxError(ctx)
		}
	}
	return nil
}

// fkMatches are the rows of a referencing table by the key they
// reference (fkChildKey), as scanned once per round.
type fkMatches map[string][][]byte

// round acts on one round of changes, in their order: for each change
// first the actions of the keys referencing its table (its old key
// removed), then the checks of its own foreign keys (its new key).
func (f *fkState) round(w fkWriter, evs []fkEvent) error {
	e := f.s.eng
	matches := map[*catalog.ForeignKey]fkMatches{}
	for _, ev := range evs {
		if ev.old != nil {
			for _, ref := range f.idx.in[ev.rel.ID] {
				if fkParentUnchanged(ref, ev) {
					continue
				}
				if f.deferred(ref, ev) {
					f.pending.note(ev.rel.ID, ref)
					continue
				}
				child, ok := e.cat.ByID(ref.child.ID)
				if !ok {
					continue
				}
				m := matches[ref.fk]
				if m == nil {
					var err error
					if m, err = f.scanChild(w, ref, child, ev.rel, evs); err != nil {
						return err
					}
					matches[ref.fk] = m
				}
				if err := f.parentAction(w, ref, child, ev, m); err != nil {
					return err
				}
			}
		}
		if ev.new != nil {
			for _, ref := range f.idx.out[ev.rel.ID] {
				if f.skip != nil && f.skip(ref) {
					if fkChildQueues(ref, ev) {
						f.pending.note(ev.rel.ID, ref)
					}
					continue
				}
				if err := f.childCheck(w, ref, ev); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// deferred reports whether the action of foreign key ref on ev, a
// change removing a key of the table it references, is a NO ACTION
// check that is not to run now (skip). The other actions, RESTRICT
// included, always run.
func (f *fkState) deferred(ref fkRef, ev fkEvent) bool {
	if f.skip == nil || !f.skip(ref) {
		return false
	}
	action := ref.fk.OnDelete
	if ev.new != nil {
		action = ref.fk.OnUpdate
	}
	return f.verify || action == catalog.FKNoAction
}

// fkParentKey encodes the key of parent's row that foreign key fk
// references, false when a column of it is NULL (no row references it).
func fkParentKey(fk *catalog.ForeignKey, parent *catalog.Relation, row types.Row) ([]byte, bool) {
	var k []byte
	for _, c := range fk.RefCols {
		if c >= len(row) || row[c].Null {
			return nil, false
		}
		k = types.AppendKey(k, row[c], parent.Cols[c].T, false)
	}
	return k, true
}

// fkChildKey encodes the key child's row references through fk, as
// fkParentKey encodes it: each value cast to the referenced column's
// type. false when a value is NULL or has no equal of that type.
func (f *fkState) fkChildKey(fk *catalog.ForeignKey, child, parent *catalog.Relation, row types.Row) ([]byte, bool) {
	vals, ok := f.referencedValues(fk, child, parent, row)
	if !ok {
		return nil, false
	}
	return fkParentKey(fk, parent, vals)
}

// referencedValues returns a row of parent holding, in the referenced
// columns, the values child's row references (cast to their types);
// false when one is NULL or has no equal there.
func (f *fkState) referencedValues(fk *catalog.ForeignKey, child, parent *catalog.Relation, row types.Row) (types.Row, bool) {
	out := make(types.Row, len(parent.Cols))
	for i := range out {
		out[i] = types.NullDatum
	}
	for i, c := range fk.Cols {
		if c >= len(row) || row[c].Null {
			return nil, false
		}
		d := row[c]
		ct, pt := child.Cols[c].T, parent.Cols[fk.RefCols[i]].T
		if ct.ID != pt.ID {
			// A value with no equal of the key's type (out of its range)
			// references nothing.
			v, err := types.Cast(d, types.T{ID: ct.ID, Mod: -1}, types.T{ID: pt.ID, Mod: -1}, true, f.s.loc)
			if err != nil {
				return nil, false
			}
			d = v
		}
		out[fk.RefCols[i]] = d
	}
	return out, true
}

// fkParentUnchanged reports whether ev leaves the key ref references
// in place: an update keeping it, or a change of a row whose old key
// has a NULL (nothing references it). As in PostgreSQL (ri_KeysEqual
// on the referenced side), a key is kept only when its values are kept
// as they were, not merely equal: numeric 1.0 updated to 1.00 changes
// it, which ON UPDATE CASCADE carries to the referencing rows and
// RESTRICT refuses.
func fkParentUnchanged(ref fkRef, ev fkEvent) bool {
	ok, has := fkParentKey(ref.fk, ev.rel, ev.old)
	if !has {
		return true
	}
	if ev.new == nil {
		return false
	}
	nk, has := fkParentKey(ref.fk, ev.rel, ev.new)
	if !has || string(ok) != string(nk) {
		return false
	}
	for _, c := range ref.fk.RefCols {
		t := ev.rel.Cols[c].T
		if types.FormatText(ev.old[c], t, time.UTC) != types.FormatText(ev.new[c], t, time.UTC) {
			return false
		}
	}
	return true
}

// scanChild reads child once for the rows referencing a key that evs
// remove from parent.
func (f *fkState) scanChild(w fkWriter, ref fkRef, child, parent *catalog.Relation, evs []fkEvent) (fkMatches, error) {
	want := map[string]bool{}
	for _, ev := range evs {
		if ev.old == nil || ev.rel.ID != parent.ID || fkParentUnchanged(ref, ev) {
			continue
		}
		k, _ := fkParentKey(ref.fk, parent, ev.old)
		want[string(k)] = true
	}
	m := fkMatches{}
	err := w.fkScan(child, func(row types.Row) error {
		k, ok := f.fkChildKey(ref.fk, child, parent, row)
		if ok && want[string(k)] {
			m[string(k)] = append(m[string(k)], pkKey(child, row))
		}
		return nil
	})
	return m, err
}

// findParent reports whether parent holds, as the statement sees it, a
// row with the referenced values vals (a row of parent's shape).
func (f *fkState) findParent(w fkWriter, fk *catalog.ForeignKey, parent *catalog.Relation, vals types.Row) (bool, error) {
	if parent.HasPrimaryKey() && sameColumnSet(parent.PK, fk.RefCols) {
		_, found, err := w.fkCurrent(parent, pkKey(parent, vals))
		return found, err
	}
	for _, u := range f.s.eng.uniqueIndexes(parent) {
		if !u.plain() || !sameColumnSet(u.cols, fk.RefCols) {
			continue
		}
		k, ok, err := u.key(parent, vals)
		if err != nil || !ok {
			return false, err
		}
		pk, found, err := w.fkKeys().getKey(u.store, k)
		if err != nil || !found {
			return false, err
		}
		_, found, err = w.fkCurrent(parent, pk)
		return found, err
	}
	return false, pgerr.New(pgerr.InternalError, "no unique key of table \"%s\" serves foreign key \"%s\"", parent.Name, fk.Name)
}

// childCheck checks the new row of ev, in a table holding foreign key
// ref, as PostgreSQL's RI_FKey_check: a key with a NULL passes (MATCH
// SIMPLE) or must be all NULL (MATCH FULL); otherwise the referenced
// table must hold it. A row the statement has changed again since is
// checked in its later version.
func (f *fkState) childCheck(w fkWriter, ref fkRef, ev fkEvent) error {
	fk, child := ref.fk, ev.rel
	nulls := 0
	for _, c := range fk.Cols {
		if ev.new[c].Null {
			nulls++
		}
	}
	if ev.old != nil && !f.verify {
		// An update checks only a changed key.
		same := true
		for _, c := range fk.Cols {
			if ev.old[c].Null != ev.new[c].Null || !ev.old[c].Null && types.Compare(ev.old[c], ev.new[c], child.Cols[c].T) != 0 {
				same = false
			}
		}
		if same {
			return nil
		}
	}
	switch {
	case nulls == len(fk.Cols):
		return nil
	case nulls > 0 && fk.Match == catalog.FKMatchSimple:
		return nil
	case nulls > 0:
		return pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", child.Name, fk.Name).
			WithDetail("MATCH FULL does not allow mixing of null and nonnull key values.").
			WithTable(child.Schema, child.Name).WithConstraint(fk.Name)
	}
	cur, found, err := w.fkCurrent(child, pkKey(child, ev.new))
	if err != nil {
		return err
	}
	if !found || !sameRow(child, cur, ev.new) {
		return nil
	}
	parent := child
	if fk.RefID != child.ID {
		p, ok := f.s.eng.cat.ByID(fk.RefID)
		if !ok {
			return nil
		}
		parent = p
	}
	if vals, ok := f.referencedValues(fk, child, parent, ev.new); ok {
		found, err := f.findParent(w, fk, parent, vals)
		if err != nil || found {
			return err
		}
	}
	verr := pgerr.New(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", child.Name, fk.Name).
		WithTable(child.Schema, child.Name).WithConstraint(fk.Name)
	if !f.s.hasPrivilege(child, catalog.PrivSelect) {
		return verr.WithDetail("Key is not present in table \"%s\".", parent.Name)
	}
	names, vals := keyText(child, fk.Cols, ev.new)
	return verr.WithDetail("Key (%s)=(%s) is not present in table \"%s\".", names, vals, parent.Name)
}

// sameRow reports whether a and b, rows of rel, hold the same values.
func sameRow(rel *catalog.Relation, a, b types.Row) bool {
	ts := relTypes(rel)
	return string(types.AppendRow(nil, a, ts)) == string(types.AppendRow(nil, b, ts))
}

// keyText is a key as PostgreSQL's DETAIL shows it: the columns' names
// and the row's values, "a, b" and "1, x".
func keyText(rel *catalog.Relation, cols []int, row types.Row) (string, string) {
	names := make([]string, len(cols))
	vals := make([]string, len(cols))
	for i, c := range cols {
		names[i] = rel.Cols[c].Name
		if row[c].Null {
			vals[i] = "null"
		} else {
			vals[i] = types.FormatText(row[c], rel.Cols[c].T, nil)
		}
	}
	return strings.Join(names, ", "), strings.Join(vals, ", ")
}

// parentAction acts on ev, a change of a row of the referenced table
// removing the key ref references, for the rows referencing it (m):
// NO ACTION fails unless another row holds the key again, RESTRICT
// fails, CASCADE deletes them or sets their key to the new one, SET
// NULL and SET DEFAULT set it.
func (f *fkState) parentAction(w fkWriter, ref fkRef, child *catalog.Relation, ev fkEvent, m fkMatches) error {
	fk, parent := ref.fk, ev.rel
	key, _ := fkParentKey(fk, parent, ev.old)
	action := fk.OnDelete
	if ev.new != nil {
		action = fk.OnUpdate
	}
	if f.verify {
		action = catalog.FKNoAction
	}
	if action == catalog.FKNoAction {
		vals := make(types.Row, len(parent.Cols))
		for i := range vals {
			vals[i] = types.NullDatum
		}
		for _, c := range fk.RefCols {
			vals[c] = ev.old[c]
		}
		found, err := f.findParent(w, fk, parent, vals)
		if err != nil || found {
			return err
		}
	}
	for _, pk := range m[string(key)] {
		row, found, err := w.fkCurrent(child, pk)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		if k, ok := f.fkChildKey(fk, child, parent, row); !ok || string(k) != string(key) {
			continue
		}
		switch action {
		case catalog.FKNoAction, catalog.FKRestrict:
			return f.stillReferenced(ref, parent, child, ev)
		case catalog.FKCascade:
			if ev.new == nil {
				if err := w.Delete(child.ID, row); err != nil {
					return err
				}
				continue
			}
			up := slices.Clone(row)
			for i, c := range fk.Cols {
				v, err := types.Cast(ev.new[fk.RefCols[i]], parent.Cols[fk.RefCols[i]].T, child.Cols[c].T, false, f.s.loc)
				if err != nil {
					return err
				}
				up[c] = v
			}
			if err := f.update(w, child, row, up, fk.Cols); err != nil {
				return err
			}
		case catalog.FKSetNull, catalog.FKSetDefault:
			cols := fk.Cols
			if ev.new == nil && fk.DeleteSetCols != nil {
				cols = fk.DeleteSetCols
			}
			up := slices.Clone(row)
			if action == catalog.FKSetNull {
				for _, c := range cols {
					up[c] = types.NullDatum
				}
			} else {
				var listed []int
				for i := range child.Cols {
					if !slices.Contains(cols, i) {
						listed = append(listed, i)
					}
				}
				defaults, err := f.s.defaultsFor(child, listed)
				if err != nil {
					return err
				}
				d, err := defaults(f.ctx)
				if err != nil {
					return err
				}
				for _, c := range cols {
					up[c] = d[c]
				}
			}
			if err := f.update(w, child, row, up, cols); err != nil {
				return err
			}
			if action == catalog.FKSetDefault && sameRow(child, row, up) {
				// Set to the key being removed (the defaults): still
				// referenced, as ri_set finds with another lookup.
				return f.stillReferenced(ref, parent, child, ev)
			}
		}
	}
	return nil
}

// stillReferenced is the error of ev removing a key of parent that a
// row of child references through ref: DETAIL names the key unless the
// role may not read parent.
func (f *fkState) stillReferenced(ref fkRef, parent, child *catalog.Relation, ev fkEvent) error {
	fk := ref.fk
	err := pgerr.New(pgerr.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", parent.Name, fk.Name, child.Name).
		WithTable(child.Schema, child.Name).WithConstraint(fk.Name)
	if !f.s.hasPrivilege(parent, catalog.PrivSelect) {
		return err.WithDetail("Key is still referenced from table \"%s\".", child.Name)
	}
	names, vals := keyText(parent, fk.RefCols, ev.old)
	return err.WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", names, vals, child.Name)
}

// update writes a cascaded change of child's row old to up, whose
// columns set are those it sets, through the table's row rules (the
// domains of the columns set, generated columns, NOT NULL, CHECK) as an
// UPDATE by its owner would.
func (f *fkState) update(w fkWriter, child *catalog.Relation, old, up types.Row, set []int) error {
	rr := f.rules[child.ID]
	if rr == nil {
		r, err := planner.BindRowRules(f.ctx, child, f.s.catalogView())
		if err != nil {
			return err
		}
		if rr, err = executor.NewRowRules(child, r); err != nil {
			return err
		}
		if f.rules == nil {
			f.rules = map[uint32]*executor.RowRules{}
		}
		f.rules[child.ID] = rr
	}
	if f.ec == nil {
		f.ec = f.s.execCtx(f.ctx, nil, nil, w)
		f.ec.MaySelect = nil
	}
	setCols := make([]bool, len(child.Cols))
	for _, c := range set {
		setCols[c] = true
	}
	if err := rr.Domains(up, &f.ec.Eval, setCols); err != nil {
		return err
	}
	if err := rr.Apply(up, &f.ec.Eval, nil); err != nil {
		return err
	}
	return w.Update(child.ID, old, up)
}

// fkVerify checks the net changes of a transaction block, as COMMIT
// applies them through w, against the foreign keys as they stand with
// every other session's writes: the block's statements acted on them,
// so a key its rows reference must still be there and a key it removed
// must not be referenced by a row written since. Called under writeMu.
func (s *Session) fkVerify(ctx context.Context, w *stmtWriter) error {
	f := newFKState(s)
	f.verify = true
	for _, id := range w.order {
		tc := w.changes[id]
		for i := 0; i < len(tc.ops); i++ {
			switch op := tc.ops[i]; {
			case op == types.OpInsert:
				f.note(tc.rel, nil, tc.rows[i])
			case op == types.OpDelete:
				f.note(tc.rel, tc.rows[i], nil)
			case op == types.OpUpdateDelete && i+1 < len(tc.ops):
				f.note(tc.rel, tc.rows[i], tc.rows[i+1])
				i++
			}
		}
	}
	if len(f.events) == 0 {
		return nil
	}
	evs := f.events
	f.events = nil
	f.ctx = ctx
	return f.round(w, evs)
}

// fkCurrent implements fkWriter.
func (w *stmtWriter) fkCurrent(rel *catalog.Relation, key []byte) (types.Row, bool, error) {
	if r, ok := w.own[rel.ID][string(key)]; ok {
		return r, r != nil, nil
	}
	return w.view.Get(rel.ID, key, relTypes(rel))
}

// fkKeys implements fkWriter.
func (w *stmtWriter) fkKeys() keyStore { return &w.keys }

// fkScan implements fkWriter: the view's rows under the statement's own.
func (w *stmtWriter) fkScan(rel *catalog.Relation, fn func(types.Row) error) error {
	own := w.own[rel.ID]
	it := w.view.Scan(rel.ID, relTypes(rel))
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		if _, mine := own[string(pkKey(rel, r))]; mine {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	for _, r := range own {
		if r != nil {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// fkCurrent implements fkWriter.
func (w *batchWriter) fkCurrent(rel *catalog.Relation, key []byte) (types.Row, bool, error) {
	if err := w.touch(rel, key); err != nil {
		return nil, false, err
	}
	return w.batch.Get(rel.ID, key, relTypes(rel))
}

// fkKeys implements fkWriter.
func (w *batchWriter) fkKeys() keyStore { return batchKeys{w.batch} }

// fkScan implements fkWriter.
func (w *batchWriter) fkScan(rel *catalog.Relation, fn func(types.Row) error) error {
	it := w.batch.Scan(rel.ID, relTypes(rel))
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil || r == nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}
