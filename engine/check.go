package engine

// CHECK constraints and stored generated columns: made by CREATE TABLE
// and ALTER TABLE, kept in the catalog as the expressions written, bound
// over the table's row by every statement that writes it (planner.RowRules)
// and printed as PostgreSQL's deparser does for psql's \d.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// tableRules checks the generated columns of a new table rel, built from
// st, and adds st's CHECK constraints to it, named as PostgreSQL names
// them. The table is not in the catalog yet.
func (s *Session) tableRules(ctx context.Context, rel *catalog.Relation, st *sql.CreateTable) error {
	for _, c := range st.Columns {
		if c.Generated == "" {
			continue
		}
		i := slices.IndexFunc(rel.Cols, func(col catalog.Column) bool { return col.Name == c.Name })
		if _, err := planner.BindGenerated(ctx, rel, i, c.Generated, c.GeneratedPos, s.catalogView()); err != nil {
			return err
		}
	}
	taken := s.eng.checkNamesIn(rel.Schema)
	for _, c := range st.Checks {
		if _, err := s.addCheckTo(ctx, rel, c, taken, true); err != nil {
			return err
		}
	}
	return nil
}

// addCheckTo binds the CHECK constraint c over rel's row, names it and
// appends it to rel.Checks; taken holds the constraint names in use in
// rel's schema, and gets the new one. create says whether this is CREATE
// TABLE, whose error for a name given twice differs from ALTER TABLE's.
func (s *Session) addCheckTo(ctx context.Context, rel *catalog.Relation, c sql.CheckDef, taken map[string]bool, create bool) (planner.Expr, error) {
	e, cols, err := planner.BindCheck(ctx, rel, c.Expr, c.Pos, s.catalogView())
	if err != nil {
		return nil, err
	}
	name := c.Name
	if name != "" {
		if slices.ContainsFunc(rel.Checks, func(k catalog.Check) bool { return k.Name == name }) ||
			!create && s.eng.indexConstraintNamed(rel, name) {
			if create {
				return nil, pgerr.New(pgerr.DuplicateObject, "check constraint \"%s\" already exists", name)
			}
			return nil, pgerr.New(pgerr.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", name, rel.Name)
		}
	} else {
		col := ""
		if len(cols) == 1 {
			col = rel.Cols[cols[0]].Name
		}
		name = chooseConstraintName(rel.Name, col, "check", taken)
	}
	taken[name] = true
	rel.Checks = append(rel.Checks, catalog.Check{Name: name, Expr: c.Expr, NoInherit: c.NoInherit, NotValid: c.NotValid})
	return e, nil
}

// indexConstraintNamed reports whether rel has a primary key or UNIQUE
// constraint called name.
func (e *Engine) indexConstraintNamed(rel *catalog.Relation, name string) bool {
	if len(rel.PK) > 0 && !rel.Cols[rel.PK[0]].Hidden && name == rel.Name+"_pkey" {
		return true
	}
	for _, d := range e.indexesOf(rel.ID) {
		if d.Name == name && d.With[catalog.IndexConstraintOption] == "true" {
			return true
		}
	}
	return false
}

// checkNamesIn returns the names of the CHECK constraints of the tables
// of schema: PostgreSQL picks a constraint's name unused in its schema.
func (e *Engine) checkNamesIn(schema string) map[string]bool {
	taken := map[string]bool{}
	for _, r := range e.cat.All() {
		if r.Schema != schema {
			continue
		}
		for _, c := range r.Checks {
			taken[c.Name] = true
		}
	}
	return taken
}

// chooseConstraintName follows PostgreSQL's ChooseConstraintName: table,
// column (when not "") and label joined by "_", cut to 63 bytes (the
// longer of table and column losing bytes first), with 1, 2, ... after
// the label until the name is not taken.
func chooseConstraintName(table, col, label string, taken map[string]bool) string {
	for n := 0; ; n++ {
		l := label
		if n > 0 {
			l += strconv.Itoa(n)
		}
		name := makeObjectName(table, col, l)
		if !taken[name] {
			return name
		}
	}
}

// makeObjectName is PostgreSQL's makeObjectName for names of at most 63
// bytes, cutting whole UTF-8 characters.
func makeObjectName(name1, name2, label string) string {
	const maxIdent = 63
	over := len(name1) + len(label) + 2 - maxIdent
	if name2 != "" {
		over += len(name2)
	} else {
		over--
	}
	cut := func(s string, n int) string {
		for len(s) > n {
			_, size := lastRune(s)
			s = s[:len(s)-size]
		}
		return s
	}
	l1, l2 := len(name1), len(name2)
	for over > 0 {
		if l1 > l2 {
			l1--
		} else {
			l2--
		}
		over--
	}
	name1 = cut(name1, l1)
	name2 = cut(name2, l2)
	out := name1
	if name2 != "" {
		out += "_" + name2
	}
	return out + "_" + label
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, 1
}

// addCheck runs ALTER TABLE ... ADD [CONSTRAINT name] CHECK (...): the
// table's rows must all pass it (23514 otherwise, as PostgreSQL's
// validation says).
func (s *Session) addCheck(ctx context.Context, rel *catalog.Relation, c sql.CheckDef) (wire.Result, error) {
	e := s.eng
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	up := rel.Clone()
	expr, err := s.addCheckTo(ctx, up, c, e.checkNamesIn(rel.Schema), false)
	if err != nil {
		return nil, err
	}
	if !c.NotValid {
		name := up.Checks[len(up.Checks)-1].Name
		if err := s.validateCheck(ctx, rel, expr, name, nil, types.T{}); err != nil {
			return nil, err
		}
	}
	return e.replaceTable(rel, up, false)
}

// validateConstraint runs ALTER TABLE ... VALIDATE CONSTRAINT name: a
// CHECK constraint added NOT VALID is checked against the stored rows
// (23514 when one fails it) and marked valid, as is a FOREIGN KEY
// constraint (23503); a valid one, or a UNIQUE constraint, is left as it
// is.
func (s *Session) validateConstraint(ctx context.Context, rel *catalog.Relation, name string) (wire.Result, error) {
	e := s.eng
	k := slices.IndexFunc(rel.Checks, func(c catalog.Check) bool { return c.Name == name })
	if f := slices.IndexFunc(rel.ForeignKeys, func(c catalog.ForeignKey) bool { return c.Name == name }); k < 0 && f >= 0 {
		if !rel.ForeignKeys[f].NotValid {
			return done("ALTER TABLE")
		}
		if err := e.writeMu.lockContext(ctx); err != nil {
			return nil, err
		}
		defer e.writeMu.Unlock()
		up := rel.Clone()
		if err := s.validateForeignKey(ctx, up, &up.ForeignKeys[f]); err != nil {
			return nil, err
		}
		up.ForeignKeys[f].NotValid = false
		return e.replaceTable(rel, up, false)
	}
	if k < 0 {
		if e.indexConstraintNamed(rel, name) {
			return done("ALTER TABLE")
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", name, rel.Name)
	}
	if !rel.Checks[k].NotValid {
		return done("ALTER TABLE")
	}
	if err := e.writeMu.lockContext(ctx); err != nil {
		return nil, err
	}
	defer e.writeMu.Unlock()
	expr, _, err := planner.BindCheck(ctx, rel, rel.Checks[k].Expr, 0, s.catalogView())
	if err != nil {
		return nil, err
	}
	if err := s.validateCheck(ctx, rel, expr, name, nil, types.T{}); err != nil {
		return nil, err
	}
	up := rel.Clone()
	up.Checks[k].NotValid = false
	return e.replaceTable(rel, up, false)
}

// validateCheck fails with 23514 when a stored row of rel makes the
// check expr false; added, when not nil, is the value of a column ADD
// COLUMN is adding, of type addedT, which expr reads after rel's. e.writeMu is held.
func (s *Session) validateCheck(ctx context.Context, rel *catalog.Relation, expr planner.Expr, name string, added *types.Datum, addedT types.T) error {
	ev, err := executor.Compile(expr)
	if err != nil {
		return err
	}
	ec := s.execCtx(ctx, nil, nil, nil)
	ts := relTypes(rel)
	if added != nil {
		ts = append(ts, addedT)
	}
	var evalErr error
	bad, err := s.eng.anyRow(ctx, rel, func(r types.Row) bool {
		if evalErr != nil {
			return true
		}
		c := types.NewChunk(ts, 1)
		if added != nil {
			r = append(r, *added)
		}
		c.AppendRow(types.OpInsert, r)
		v, err := ev.Eval(&ec.Eval, c)
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
	if bad {
		return pgerr.New(pgerr.CheckViolation, "check constraint \"%s\" of relation \"%s\" is violated by some row", name, rel.Name).
			WithTable(rel.Schema, rel.Name).WithConstraint(name)
	}
	return nil
}

// dropCheck removes rel's CHECK constraint name, reporting false when
// it has none of that name.
func (e *Engine) dropCheck(rel *catalog.Relation, name string) (wire.Result, bool, error) {
	k := slices.IndexFunc(rel.Checks, func(c catalog.Check) bool { return c.Name == name })
	return e.dropConstraint(rel, k, func(up *catalog.Relation) { up.Checks = slices.Delete(up.Checks, k, k+1) })
}

// dropConstraint replaces rel by a copy that drop removed constraint k
// from, reporting false (and changing nothing) when k < 0: rel has no
// constraint of the name asked for.
func (e *Engine) dropConstraint(rel *catalog.Relation, k int, drop func(up *catalog.Relation)) (wire.Result, bool, error) {
	if k < 0 {
		return nil, false, nil
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	up := rel.Clone()
	drop(up)
	res, err := e.replaceTable(rel, up, false)
	return res, true, err
}

// rulesOnDropColumn applies DROP COLUMN of rel's column i to up (rel's
// copy being altered): the CHECK constraints reading the column go with
// it, as in PostgreSQL; a generated column reading it stops the drop
// (with cascade too: weir does not drop the generated column with it).
func (s *Session) rulesOnDropColumn(ctx context.Context, rel, up *catalog.Relation, i int, cascade bool) error {
	var deps []string
	for j, c := range rel.Cols {
		if c.Generated == "" || c.Dropped || j == i {
			continue
		}
		e, err := planner.BindGenerated(ctx, rel, j, c.Generated, 0, s.catalogView())
		if err == nil && slices.Contains(colsOf(e), i) {
			deps = append(deps, fmt.Sprintf("column %s of table %s depends on column %s of table %s", c.Name, rel.Name, rel.Cols[i].Name, rel.Name))
		}
	}
	if len(deps) > 0 && cascade {
		return pgerr.New(pgerr.FeatureNotSupported, "DROP COLUMN ... CASCADE of a column that a generated column reads is not supported").
			WithDetail("%s", strings.Join(deps, "\n")).
			WithHint("Drop the generated columns first.")
	}
	if len(deps) > 0 {
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", rel.Cols[i].Name, rel.Name).
			WithDetail("%s", strings.Join(deps, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if err := s.eng.fkDropColumn(rel, up, i, cascade); err != nil {
		return err
	}
	up.Checks = nil
	for _, c := range rel.Checks {
		_, cols, err := planner.BindCheck(ctx, rel, c.Expr, 0, s.catalogView())
		if err == nil && slices.Contains(cols, i) {
			continue
		}
		up.Checks = append(up.Checks, c)
	}
	return nil
}

// rulesOnTypeChange refuses ALTER COLUMN ... TYPE of rel's column i
// when a generated column reads it (PostgreSQL's 0A000), or when it is
// generated or a CHECK constraint reads it: weir would have to compute
// the generated values and check the constraints anew over the
// rewritten rows, which it does not.
func (s *Session) rulesOnTypeChange(ctx context.Context, rel *catalog.Relation, i int) error {
	name := rel.Cols[i].Name
	for j, c := range rel.Cols {
		if c.Generated == "" || c.Dropped || j == i {
			continue
		}
		e, err := planner.BindGenerated(ctx, rel, j, c.Generated, 0, s.catalogView())
		if err == nil && slices.Contains(colsOf(e), i) {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a generated column").
				WithDetail("Column \"%s\" is used by generated column \"%s\".", name, c.Name)
		}
	}
	if rel.Cols[i].Generated != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN ... TYPE of a generated column is not supported").
			WithHint("Drop the column and add it again.")
	}
	for _, c := range rel.Checks {
		_, cols, err := planner.BindCheck(ctx, rel, c.Expr, 0, s.catalogView())
		if err == nil && slices.Contains(cols, i) {
			return pgerr.New(pgerr.FeatureNotSupported, "ALTER COLUMN ... TYPE of a column that CHECK constraint \"%s\" reads is not supported", c.Name).
				WithHint("Drop the constraint, alter the column, and add the constraint again.")
		}
	}
	return nil
}

// colsOf returns the columns of the row e reads.
func colsOf(e planner.Expr) []int {
	var cols []int
	planner.WalkExpr(e, func(x planner.Expr) {
		if c, ok := x.(*planner.ColRef); ok {
			cols = append(cols, c.Idx)
		}
	})
	return cols
}

// renameInRules rewrites the expressions of up's CHECK constraints and
// generated columns for RENAME COLUMN old TO new: each reference to the
// column, by its name alone or qualified by the table's, takes the new
// name. Function names are left alone.
func renameInRules(up *catalog.Relation, old, new string) error {
	for k, c := range up.Checks {
		t, err := renameColumnIn(c.Expr, up.Name, old, new)
		if err != nil {
			return err
		}
		up.Checks[k].Expr = t
	}
	for i, c := range up.Cols {
		if c.Generated == "" {
			continue
		}
		t, err := renameColumnIn(c.Generated, up.Name, old, new)
		if err != nil {
			return err
		}
		up.Cols[i].Generated = t
	}
	return nil
}

// renameColumnIn returns text with every token naming column old (not
// followed by "(", which would make it a function, nor preceded by "."
// unless what precedes is the table's name) replaced by new, quoted as
// PostgreSQL's quote_identifier quotes (a key word too).
func renameColumnIn(text, table, old, new string) (string, error) {
	toks, err := sql.Lex(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for k, t := range toks {
		if t.Kind != sql.TIdent && t.Kind != sql.TQIdent || t.Val != old {
			continue
		}
		if k+1 < len(toks) && toks[k+1].Kind == sql.TOp && toks[k+1].Val == "(" {
			continue
		}
		if k > 0 && toks[k-1].Kind == sql.TOp && toks[k-1].Val == "." && !(k > 1 && toks[k-2].Val == table) {
			continue
		}
		b.WriteString(text[last:t.Off])
		b.WriteString(planner.QuoteName(new))
		last = t.End
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// checkText is CHECK constraint k of r as pg_get_constraintdef prints
// it, pretty or not, or as written when it no longer binds.
func (s *Session) checkText(r *catalog.Relation, k int, pretty bool) string {
	c := r.Checks[k]
	text := c.Expr
	ctx, calls := planner.WithCalls(context.Background())
	if e, _, err := planner.BindCheck(ctx, r, c.Expr, 0, s.catalogView()); err == nil {
		text = calls.RowExprText(r, e, pretty)
	}
	text = "CHECK (" + text + ")"
	if c.NoInherit {
		text += " NO INHERIT"
	}
	if c.NotValid {
		text += " NOT VALID"
	}
	return text
}

// generatedText is generated column i of r's expression as pg_get_expr
// prints it, or as written when it no longer binds.
func (s *Session) generatedText(r *catalog.Relation, i int) string {
	ctx, calls := planner.WithCalls(context.Background())
	e, err := planner.BindGenerated(ctx, r, i, r.Cols[i].Generated, 0, s.catalogView())
	if err != nil {
		return r.Cols[i].Generated
	}
	return calls.RowExprText(r, e, true)
}
