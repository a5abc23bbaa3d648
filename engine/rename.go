package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/wire"
)

// Stable identity. Everything a relation keeps is keyed by its id: its
// rows and state tables ([table id][key]), its sources' positions, its
// sinks' transactional ids, the jobs reading it. So ALTER ... RENAME TO
// changes only catalog entries: the relation's name, and the stored
// definitions of the relations that name it in their SQL: a view's or
// materialized view's deparsed from its binding with the new name
// (planner.ViewDefinition; PostgreSQL's views follow by oid), other
// definitions, and queries the deparser does not print, rewritten
// where they name the relation (as RisingWave rewrites them token by
// token, but never a column spelled like it).
// The rewritten definitions must plan exactly as before: the same
// relations (by id) and columns (by position) of the same plan, and
// for streaming relations the same state layout, or the rename is
// undone and refused: a word rewritten by token can name another
// schema's relation or a column spelled like the new name. Running jobs keep running; nothing is
// re-planned until the next start.

// renameKinds maps ALTER's kind words to catalog kinds.
var renameKinds = dropKinds

// pgRelKinds are the kinds of relation PostgreSQL has too.
var pgRelKinds = map[catalog.Kind]bool{
	catalog.KindTable: true, catalog.KindView: true, catalog.KindMView: true, catalog.KindSequence: true, catalog.KindIndex: true,
}

// rename runs ALTER TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK name
// RENAME TO new_name.
func (s *Session) rename(ctx context.Context, st *sql.Rename, io wire.ExecIO) (wire.Result, error) {
	tag := "ALTER " + strings.ToUpper(st.Kind)
	if err := s.noDDLInBlock(tag); err != nil {
		return nil, err
	}
	e := s.eng
	want := renameKinds[st.Kind]
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	if err := s.systemCatalogError(st.Name); err != nil {
		return nil, err
	}
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok && want == catalog.KindIndex {
		// A primary key's index <table>_pkey is named after its table.
		if tn, isPK := strings.CutSuffix(st.Name.Name, "_pkey"); isPK {
			if t, ok := e.cat.Lookup(s.schemaOf(sql.ObjectName{Schema: st.Name.Schema, Name: tn}), tn); ok && t.Kind == catalog.KindTable && len(t.PK) > 0 && !t.Cols[t.PK[0]].Hidden {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "renaming the index of the primary key of table \"%s\" is not supported", tn).
					WithDetail("A primary key's index and constraint are named %s_pkey after their table.", tn)
			}
		}
	}
	if !ok {
		if st.IfExists {
			io.Notice("NOTICE", "00000", fmt.Sprintf("relation \"%s\" does not exist, skipping", st.Name.Name))
			return done(tag)
		}
		if want == catalog.KindSource || want == catalog.KindSink {
			return nil, pgerr.New(pgerr.UndefinedObject, "%s \"%s\" does not exist", st.Kind, st.Name.Name)
		}
		// PostgreSQL names what it did not find a relation, whatever
		// the ALTER said (RangeVarGetRelidExtended).
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	if rel.Kind != want && !((want == catalog.KindTable || want == catalog.KindIndex) && pgRelKinds[rel.Kind]) {
		// PostgreSQL's ALTER TABLE ... RENAME and ALTER INDEX ...
		// RENAME rename any relation of pg_class; the other forms only
		// their own kind, without a hint. weir's own kinds are pointed
		// to their ALTER.
		err := pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind)
		if !pgRelKinds[rel.Kind] || !pgRelKinds[want] {
			err = err.WithHint("Use ALTER %s.", strings.ToUpper(kindWords[rel.Kind]))
		}
		return nil, err
	}
	if st.NewName == rel.Name {
		return done(tag)
	}
	if _, taken := e.cat.Lookup(rel.Schema, st.NewName); taken {
		return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.NewName)
	}
	if tn, isPK := strings.CutSuffix(st.NewName, "_pkey"); isPK {
		// A primary key's index <table>_pkey is a relation of pg_class
		// too, though the catalog holds no entry of its own for it.
		if t, ok := e.cat.Lookup(rel.Schema, tn); ok && t.Kind == catalog.KindTable && len(t.PK) > 0 && !t.Cols[t.PK[0]].Hidden {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.NewName)
		}
	}
	renamed := rel.Clone()
	renamed.Name = st.NewName
	if rel.Kind != catalog.KindView && rel.Kind != catalog.KindMView {
		// The definition is the whole CREATE statement, naming the
		// relation itself (SHOW CREATE prints it).
		renamed.SQL = renameOwn(rel.SQL, rel.Name, st.NewName)
	}
	if rel.Kind == catalog.KindTable {
		// A foreign key to itself names it after REFERENCES.
		renamed.SQL = renameReferencesTarget(renamed.SQL, rel.Schema, rel.Name, st.NewName)
	}
	// A table's CHECK constraints and generated columns may qualify its
	// columns with its name (t.col); they are bound again by name.
	for i, c := range renamed.Checks {
		renamed.Checks[i].Expr = renameQualifier(c.Expr, rel.Schema, rel.Name, st.NewName)
	}
	for i, c := range renamed.Cols {
		if c.Generated != "" {
			renamed.Cols[i].Generated = renameQualifier(c.Generated, rel.Schema, rel.Name, st.NewName)
		}
	}
	changes := []*catalog.Relation{renamed}
	originals := []*catalog.Relation{rel}
	// A view's or materialized view's definition is deparsed from its
	// binding with the new name (as PostgreSQL's follows by oid), which
	// no identifier that merely looks like the old name can confuse; the
	// rewritten text is the fallback for shapes the deparser does not
	// print, and for the other kinds.
	var fallbacks [][]*catalog.Relation
	var shapes []string // of the views' and materialized views' plans, bound before the rename
	for _, d := range e.cat.Dependents(rel.ID) {
		// The rewritten texts to try, in order, when the deparsed one
		// cannot be had or binds otherwise: the first that binds to
		// the same plan is kept.
		var texts []string
		if d.Kind == catalog.KindIndex {
			// Only the indexed relation's name after ON: its columns
			// may be named like the relation.
			// Its key expressions and predicate may qualify columns
			// with the relation's name (t.col).
			texts = []string{renameIndexTarget(renameQualifier(d.SQL, rel.Schema, rel.Name, st.NewName), rel.Name, st.NewName)}
		} else {
			texts = []string{
				renameRelationRefs(d.SQL, rel.Schema, rel.Name, st.NewName, true),
				renameRelationRefs(d.SQL, rel.Schema, rel.Name, st.NewName, false),
			}
			if d.Kind == catalog.KindView || d.Kind == catalog.KindMView || d.Kind == catalog.KindSink {
				// Word for word, last: only where the plan it binds to
				// is compared with the one before.
				texts = append(texts, renameInSQL(d.SQL, rel.Schema, rel.Name, st.NewName))
			}
		}
		var fb []*catalog.Relation
		for _, text := range texts {
			if text == d.SQL || slices.ContainsFunc(fb, func(r *catalog.Relation) bool { return r.SQL == text }) {
				continue
			}
			r := d.Clone()
			r.SQL = text
			if d.Kind == catalog.KindIndex {
				renameIndexQualifiers(r, rel.Schema, rel.Name, st.NewName)
			}
			fb = append(fb, r)
		}
		nd, ok := e.deparsedDefinition(d, renamed)
		if !ok {
			if len(fb) == 0 {
				continue
			}
			nd, fb = fb[0], fb[1:]
		}
		shape := ""
		if d.Kind == catalog.KindView || d.Kind == catalog.KindMView {
			// Whichever text is kept must bind to this very plan: the
			// same relations (by id) and columns (by position). A
			// rewritten text can name another relation, or a column
			// named like the new name, and still have the same
			// output columns.
			if shape, ok = e.definitionShape(d); !ok {
				shape = unboundShape
			}
		} else if d.Kind == catalog.KindSink {
			shape = unboundShape
			if root, err := e.planRel(d); err == nil {
				shape = planner.StreamShape(root)
			}
		}
		changes = append(changes, nd)
		originals = append(originals, d)
		fallbacks = append(fallbacks, fb)
		shapes = append(shapes, shape)
	}
	if rel.Kind == catalog.KindSequence {
		// The views calling nextval, currval or setval on it name it in
		// a literal, which follows the new name; they must bind as
		// before. One that also reads the sequence as a relation is
		// among the dependents already.
		for _, d := range e.cat.All() {
			if d.Kind != catalog.KindView && d.Kind != catalog.KindMView {
				continue
			}
			text, ok := e.renamedSequenceLiterals(d, d.SQL, rel, st.NewName)
			if !ok {
				continue
			}
			nd := d.Clone()
			nd.SQL = text
			// The literal is bound as text: the text with the new
			// literals bound now is the plan the rename must leave
			// the view with.
			shape, ok := e.definitionShape(nd)
			if !ok {
				shape = unboundShape
			}
			if i := slices.IndexFunc(originals, func(o *catalog.Relation) bool { return o.ID == d.ID }); i > 0 {
				changes[i].SQL, _ = e.renamedSequenceLiterals(d, changes[i].SQL, rel, st.NewName)
				for _, fb := range fallbacks[i-1] {
					fb.SQL, _ = e.renamedSequenceLiterals(d, fb.SQL, rel, st.NewName)
				}
				shapes[i-1] = shape
				continue
			}
			changes, originals = append(changes, nd), append(originals, d)
			fallbacks, shapes = append(fallbacks, nil), append(shapes, shape)
		}
	}
	// The tables whose foreign keys reference a renamed table keep the
	// key by id; their CREATE statements (SHOW CREATE TABLE) name it
	// after REFERENCES, which follows the new name.
	var referrers, referrersBefore []*catalog.Relation
	if rel.Kind == catalog.KindTable {
		for _, r := range e.cat.All() {
			if r.ID == rel.ID || r.Kind != catalog.KindTable || slices.ContainsFunc(originals, func(o *catalog.Relation) bool { return o.ID == r.ID }) ||
				!slices.ContainsFunc(r.ForeignKeys, func(fk catalog.ForeignKey) bool { return fk.RefID == rel.ID }) {
				continue
			}
			text := renameReferencesTarget(r.SQL, rel.Schema, rel.Name, st.NewName)
			if text == r.SQL {
				continue
			}
			nr := r.Clone()
			nr.SQL = text
			referrers, referrersBefore = append(referrers, nr), append(referrersBefore, r)
		}
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	if rel.Kind == catalog.KindSequence {
		// The column defaults calling nextval on it follow the new name.
		after, before := e.renamedSequenceDefaults(rel, st.NewName)
		referrers, referrersBefore = append(referrers, after...), append(referrersBefore, before...)
	}
	err := e.cat.ReplaceAll(append(slices.Clone(changes), referrers...)...)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	// Each rewritten definition must mean what it meant; a deparsed one
	// that does not gives way to the rewritten text, which must mean it
	// too, or the rename is refused.
	for i, nd := range changes[1:] {
		cur, _ := e.cat.ByID(nd.ID)
		err := e.sameDefinition(originals[i+1], cur, shapes[i])
		for _, fb := range fallbacks[i] {
			if err == nil {
				break
			}
			e.log.Debug("rename tries a definition's text rewritten", "relation", nd.Name, "err", err)
			e.writeMu.Lock()
			err = e.cat.Replace(fb)
			e.writeMu.Unlock()
			if err == nil {
				changes[i+1] = fb
				cur, _ = e.cat.ByID(fb.ID)
				err = e.sameDefinition(originals[i+1], cur, shapes[i])
			}
		}
		if err != nil {
			e.writeMu.Lock()
			undoErr := e.cat.ReplaceAll(append(slices.Clone(originals), referrersBefore...)...)
			e.writeMu.Unlock()
			if undoErr != nil {
				e.log.Error("could not undo a refused rename", "relation", rel.Name, "err", undoErr)
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot rename %s \"%s\": the definition of %s \"%s\" could not follow the new name",
				st.Kind, rel.Name, kindWords[nd.Kind], nd.Name).
				WithDetail("%v", err).
				WithHint("Drop %s, rename, and create it again.", nd.Name)
		}
	}
	// The running jobs keep their plans; their relations' names follow.
	e.writeMu.Lock()
	for _, j := range e.st.jobs {
		if r, ok := e.cat.ByID(j.rel.ID); ok && r.Name != j.rel.Name || ok && r.SQL != j.rel.SQL {
			j.rel = r
		}
	}
	e.writeMu.Unlock()
	e.log.Info("renamed relation", "kind", st.Kind, "from", rel.Name, "to", st.NewName, "id", rel.ID, "rewritten_definitions", len(changes)-1)
	return done(tag)
}

// deparsedDefinition returns view or materialized view d with its
// definition deparsed (planner.ViewDefinition) from its binding before
// a rename, naming every relation and column as they are after it, when
// renamed stands for the relation being renamed; the tables d pins keep
// their pinned columns under today's names, as the text now names them.
// ok is false for other kinds and for shapes the deparser does not print.
func (e *Engine) deparsedDefinition(d, renamed *catalog.Relation) (*catalog.Relation, bool) {
	if d.Kind != catalog.KindView && d.Kind != catalog.KindMView {
		return nil, false
	}
	s := e.definitionSession(d, nil)
	cat := s.catalogView()
	if d.Temp {
		s.tempSchema = d.Schema
	} else if pc, ok := cat.(planner.PermanentCatalog); ok {
		cat = pc.Permanent()
	}
	current := func(id uint32) (*catalog.Relation, bool) {
		if id == renamed.ID {
			return renamed, true
		}
		return e.cat.ByID(id)
	}
	// The text is bound again under the definition's own search path:
	// names it finds print unqualified.
	text, err := planner.ViewDefinitionFor(d, cat, current, false, s.relVisible)
	if err != nil {
		return nil, false
	}
	nd := d.Clone()
	nd.SQL = strings.TrimSuffix(strings.TrimPrefix(text, " "), ";")
	nd.Deparsed = true
	if len(d.DepCols) > 0 {
		nd.DepCols = map[uint32][]string{}
		for id, names := range d.DepCols {
			t, ok := current(id)
			if !ok {
				return nil, false
			}
			now := slices.Clone(names)
			for i := range now {
				if i < len(t.Cols) {
					now[i] = t.Cols[i].Name
				}
			}
			nd.DepCols[id] = now
		}
	}
	return nd, true
}

// unboundShape stands for the plan of a definition that could not be
// bound before a rename: no text after it can be shown to mean the same.
const unboundShape = "\x00unbound"

// sameDefinition checks that now, the relation before with its
// definition rewritten, binds as before: samePlan, and, when shape is
// not empty, to a plan of that planner.PlanShape (the same relations
// and columns).
func (e *Engine) sameDefinition(before, now *catalog.Relation, shape string) error {
	if err := e.samePlan(before, now); err != nil {
		return err
	}
	if shape == "" {
		return nil
	}
	if shape == unboundShape {
		return fmt.Errorf("its definition did not bind before the rename")
	}
	got, ok := "", false
	if now.Kind == catalog.KindSink {
		if root, err := e.planRel(now); err == nil {
			got, ok = planner.StreamShape(root), true
		}
	} else {
		got, ok = e.definitionShape(now)
	}
	if !ok || got != shape {
		return fmt.Errorf("its definition would read other relations or columns")
	}
	return nil
}

// definitionShape binds the definition of view or materialized view d
// as it is bound at start and returns its plan's planner.PlanShape.
func (e *Engine) definitionShape(d *catalog.Relation) (string, bool) {
	q, err := parseQuery(d.SQL)
	if err != nil {
		return "", false
	}
	s := e.definitionSession(d, nil)
	cat := s.catalogView()
	if d.Temp {
		s.tempSchema = d.Schema
	} else if pc, ok := cat.(planner.PermanentCatalog); ok {
		cat = pc.Permanent()
	}
	b, err := planner.Bind(q, cat, nil)
	if err != nil {
		return "", false
	}
	return planner.PlanShape(b.Plan), true
}

// samePlan checks that now, a relation whose definition was rewritten,
// binds to the columns of before and, when it is streaming, plans to the
// same state layout.
func (e *Engine) samePlan(before, now *catalog.Relation) error {
	return e.samePlanOver(before, now, nil)
}

// samePlanOver is samePlan binding now with the relations of over in
// place of the catalog's (ALTER TABLE trying a change of a table on the
// relations that read it).
func (e *Engine) samePlanOver(before, now *catalog.Relation, over map[uint32]*catalog.Relation) error {
	switch now.Kind {
	case catalog.KindView:
		q, err := parseQuery(now.SQL)
		if err != nil {
			return err
		}
		b, err := planner.Bind(q, e.definitionSession(now, over).catalogView(), nil)
		if err != nil {
			return err
		}
		// The view's columns are named by its catalog entry (a column
		// list, ALTER VIEW ... RENAME COLUMN), not by its query: only
		// their number and types must stay.
		got := b.Plan.Schema()
		if len(got) != len(before.Cols) {
			return fmt.Errorf("it has %d columns, not %d", len(got), len(before.Cols))
		}
		for i, c := range got {
			if c.T.OID() != before.Cols[i].T.OID() {
				return fmt.Errorf("column %d is of type %s, not %s", i+1, c.T, before.Cols[i].T)
			}
		}
		return nil
	}
	if !hasJob(now) {
		return nil
	}
	root, err := e.planRelOver(now, over)
	if err != nil {
		return err
	}
	want := before.StateLayout
	if len(want) == 0 {
		if r0, err := e.planRel(before); err == nil {
			want = stateLayout(r0, before.StateTables)
		}
	}
	if got := stateLayout(root, now.StateTables); !slices.Equal(got, want) {
		return fmt.Errorf("its state layout would change from %q to %q", want, got)
	}
	if m, ok := root.(*planner.StreamMaterialize); ok {
		out := m.Input.Base().Out
		if len(m.Cols) != len(before.Cols) {
			return fmt.Errorf("it would have %d columns, not %d", len(m.Cols), len(before.Cols))
		}
		for i, src := range m.Cols {
			if i < len(before.Cols) && src < len(out) && out[src].T.OID() != before.Cols[i].T.OID() {
				return fmt.Errorf("column %s would change type", before.Cols[i].Name)
			}
		}
	}
	if k, ok := root.(*planner.StreamSink); ok {
		out := k.Input.Base().Out
		if len(k.Cols) != len(before.Cols) {
			return fmt.Errorf("it would write %d columns, not %d", len(k.Cols), len(before.Cols))
		}
		for i, src := range k.Cols {
			if src < len(out) && (out[src].T.OID() != before.Cols[i].T.OID() || out[src].Name != before.Cols[i].Name) {
				return fmt.Errorf("its column %d would be %s %s, not %s %s", i+1, out[src].Name, out[src].T, before.Cols[i].Name, before.Cols[i].T)
			}
		}
	}
	return nil
}

// renameInSQL rewrites the references to the relation schema.old in a
// stored definition to name new: every identifier old that is not
// qualified by something other than schema (a column of another
// relation), including qualifiers of columns (old.col). Strings,
// comments and other identifiers are kept byte for byte.
func renameInSQL(text, schema, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	ident := func(t sql.Token) bool { return t.Kind == sql.TIdent || t.Kind == sql.TQIdent }
	dot := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == "." }
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if !ident(t) || t.Val != old {
			continue
		}
		if dot(i - 1) {
			// qualifier.old: a reference only when the qualifier is the
			// relation's schema.
			if i < 2 || !ident(toks[i-2]) || toks[i-2].Val != schema {
				continue
			}
		}
		b.WriteString(text[last:t.Off])
		b.WriteString(planner.QuoteName(new))
		last = t.End
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// renameOwn rewrites the name in a relation's own CREATE statement: the
// identifier old that follows CREATE [modifiers] <kind> [CONCURRENTLY]
// [IF NOT EXISTS] [schema.], and nothing else: not a schema named old,
// nor a key word spelled like it, nor a column. A statement of another
// form is kept as it is.
func renameOwn(text, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	word := func(i int, ws ...string) bool {
		return i < len(toks) && toks[i].Kind == sql.TIdent && slices.Contains(ws, toks[i].Val)
	}
	ident := func(i int) bool { return i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent) }
	if !word(0, "create") {
		return text
	}
	i := 1
	for word(i, "or", "replace", "temp", "temporary", "unlogged", "global", "local", "materialized", "unique") {
		i++
	}
	if !word(i, "table", "view", "source", "sink", "sequence", "index") {
		return text
	}
	i++
	if word(i, "concurrently") && (ident(i+1) || word(i+1, "if")) && !word(i+1, "on") {
		i++
	}
	if word(i, "if") && word(i+1, "not") && word(i+2, "exists") {
		i += 3
	}
	if ident(i+2) && toks[i+1].Kind == sql.TOp && toks[i+1].Val == "." {
		i += 2
	}
	if !ident(i) || toks[i].Val != old {
		return text
	}
	return text[:toks[i].Off] + planner.QuoteName(new) + text[toks[i].End:]
}

// renameRelationRefs rewrites the references to relation schema.old in
// a stored definition to name new, by their place in the query: a
// qualified name schema.old, a qualifier of a column (old.col,
// schema.old.col), and, when bare, a name old where a relation is
// named (after FROM, JOIN, ONLY, or a comma of a FROM list). A column
// or alias spelled old elsewhere is kept. What it gives must still be
// checked to bind as before: a bare old may be another schema's
// relation, an alias or a CTE.
func renameRelationRefs(text, schema, old, new string, bare bool) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	ident := func(i int) bool {
		return i >= 0 && i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent)
	}
	op := func(i int, v string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == v
	}
	word := func(i int, ws ...string) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == sql.TIdent && slices.Contains(ws, toks[i].Val)
	}
	// Per parenthesis level: inside a FROM list, and inside a join's ON.
	type level struct{ from, on bool }
	levels := []level{{}}
	var b strings.Builder
	last := 0
	for k, t := range toks {
		cur := &levels[len(levels)-1]
		switch {
		case op(k, "("):
			levels = append(levels, level{})
			continue
		case op(k, ")"):
			if len(levels) > 1 {
				levels = levels[:len(levels)-1]
			}
			continue
		case word(k, "from"):
			cur.from, cur.on = true, false
		case word(k, "join"):
			cur.on = false
		case word(k, "on", "using"):
			cur.on = true
		case word(k, "where", "group", "having", "window", "order", "limit", "offset", "fetch", "union", "intersect", "except", "select", "with", "returning", "for"):
			cur.from, cur.on = false, false
		}
		if !ident(k) || t.Val != old {
			continue
		}
		switch {
		case op(k-1, "."):
			// schema.old or schema.old.col: the relation when the
			// schema is its own; x.old.col or tbl.old: not it.
			if !ident(k-2) || toks[k-2].Val != schema || op(k-3, ".") {
				continue
			}
		case op(k+1, ".") && ident(k+2) && !op(k+3, "(") && !op(k+3, "."):
			// old.col: a qualifier.
			if !bare {
				continue
			}
		case bare && (word(k-1, "from", "join", "only") || op(k-1, ",") && cur.from && !cur.on):
			// A relation named where relations are.
		default:
			continue
		}
		b.WriteString(text[last:t.Off])
		b.WriteString(planner.QuoteName(new))
		last = t.End
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// renameQualifier rewrites the qualifier old of column references
// old.col and schema.old.col in an expression of relation schema.old to
// name new; a schema named old (old.fn(...), old.tbl.col) and columns
// named old are kept.
func renameQualifier(text, schema, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	ident := func(i int) bool {
		return i >= 0 && i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent)
	}
	dot := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].Kind == sql.TOp && toks[i].Val == "." }
	var b strings.Builder
	last := 0
	for k, t := range toks {
		if !ident(k) || t.Val != old || !dot(k+1) || !ident(k+2) || dot(k+3) {
			continue
		}
		if k+3 < len(toks) && toks[k+3].Kind == sql.TOp && toks[k+3].Val == "(" {
			continue // schema.function(...)
		}
		if dot(k-1) && (!ident(k-2) || toks[k-2].Val != schema) {
			continue
		}
		b.WriteString(text[last:t.Off])
		b.WriteString(planner.QuoteName(new))
		last = t.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// renameReferencesTarget rewrites the name of the referenced table in
// a table's CREATE TABLE statement: the identifier old right after
// REFERENCES, or after REFERENCES schema. where schema is its own, and
// nothing else (a column may be named old).
func renameReferencesTarget(text, schema, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	ident := func(i int) bool { return i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent) }
	var b strings.Builder
	last := 0
	for i, t := range toks {
		if t.Kind != sql.TIdent || t.Val != "references" {
			continue
		}
		j := i + 1
		if ident(j+2) && toks[j+1].Kind == sql.TOp && toks[j+1].Val == "." {
			if toks[j].Val != schema {
				continue
			}
			j += 2
		}
		if !ident(j) || toks[j].Val != old {
			continue
		}
		b.WriteString(text[last:toks[j].Off])
		b.WriteString(planner.QuoteName(new))
		last = toks[j].End
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// renameIndexQualifiers rewrites, in the key expressions and predicate
// of index idx, the qualifier old of column references (t.col) to new,
// as renameQualifier does.
func renameIndexQualifiers(idx *catalog.Relation, schema, old, new string) {
	if exprs := idx.IndexExprs(); exprs != nil {
		for i, x := range exprs {
			if x != "" {
				exprs[i] = renameQualifier(x, schema, old, new)
			}
		}
		if b, err := json.Marshal(exprs); err == nil {
			idx.With[catalog.IndexExprsOption] = string(b)
		}
	}
	if p := idx.IndexPredicate(); p != "" {
		idx.With[catalog.IndexPredicateOption] = renameQualifier(p, schema, old, new)
	}
}

// renameIndexTarget rewrites the name of the indexed relation in an
// index's definition, the query SELECT keys FROM schema.rel [WHERE
// predicate] (addIndexLocked): the identifier old right after the FROM
// outside parentheses (a key expression may hold one, as in
// extract(year FROM ts)) and its schema, and nothing else (its columns
// may be named old).
func renameIndexTarget(text, old, new string) string {
	toks, err := sql.Lex(text)
	if err != nil {
		return text
	}
	ident := func(i int) bool { return i < len(toks) && (toks[i].Kind == sql.TIdent || toks[i].Kind == sql.TQIdent) }
	depth := 0
	for i, t := range toks {
		switch {
		case t.Kind == sql.TOp && (t.Val == "(" || t.Val == "["):
			depth++
			continue
		case t.Kind == sql.TOp && (t.Val == ")" || t.Val == "]"):
			depth--
			continue
		}
		if depth != 0 || t.Kind != sql.TIdent || t.Val != "from" {
			continue
		}
		j := i + 1
		if ident(j+2) && toks[j+1].Kind == sql.TOp && toks[j+1].Val == "." {
			j += 2
		}
		if ident(j) && toks[j].Val == old {
			return text[:toks[j].Off] + planner.QuoteName(new) + text[toks[j].End:]
		}
		return text
	}
	return text
}

// comment runs COMMENT ON ... IS 'text' | NULL.
func (s *Session) comment(ctx context.Context, st *sql.Comment) (wire.Result, error) {
	if err := s.noDDLInBlock("COMMENT"); err != nil {
		return nil, err
	}
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.ddlMu.Unlock()
	rel, ok := e.cat.Lookup(s.schemaOf(st.Name), st.Name.Name)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", st.Name.Name)
	}
	if st.Kind != "column" && rel.Kind != renameKinds[st.Kind] {
		return nil, pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", rel.Name, st.Kind)
	}
	text := st.Text
	up := rel.Clone()
	if st.Kind == "column" {
		if !slices.ContainsFunc(rel.Cols, func(c catalog.Column) bool { return c.Name == st.Column && !c.Hidden }) {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", st.Column, rel.Name)
		}
		if up.ColComments == nil {
			up.ColComments = map[string]string{}
		}
		if text == "" {
			delete(up.ColComments, st.Column)
		} else {
			up.ColComments[st.Column] = text
		}
	} else {
		up.Comment = text
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	err := e.cat.Replace(up)
	e.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	return done("COMMENT")
}
