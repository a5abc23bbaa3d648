package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// targetTable resolves the table an INSERT/UPDATE/DELETE writes, which
// needs p on it.
func (b *binder) targetTable(refs *ast.TableRefsClause, verb string, p catalog.Privilege) (*catalog.Relation, string) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		failf(pgerr.FeatureNotSupported, "%s over several tables is not supported", verb)
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		failf(pgerr.FeatureNotSupported, "%s target must be a table", verb)
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		failf(pgerr.FeatureNotSupported, "%s target must be a table", verb)
	}
	schema, name := tn.Schema.O, tn.Name.O
	rel, ok := b.relation(schema, name, p)
	if !ok {
		if oc, isOC := b.cat.(OwnedSequenceCatalog); isOC {
			if _, _, seq := oc.OwnedSequence(schema, name); seq {
				failf(pgerr.WrongObjectType, "cannot change sequence \"%s\"", name)
			}
		}
		if _, _, sys := b.cat.SystemTable(schema, name); sys {
			failf(pgerr.FeatureNotSupported, "cannot %s system table \"%s\"", dmlVerb(verb), name)
		}
		full := name
		if schema != "" {
			full = schema + "." + name
		}
		fail(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", full).WithPosition(b.pos(tn)))
	}
	switch rel.Kind {
	case catalog.KindView:
		failf(pgerr.WrongObjectType, "cannot %s view \"%s\"", dmlVerb(verb), name)
	case catalog.KindMView:
		failf(pgerr.WrongObjectType, "cannot change materialized view \"%s\"", name)
	case catalog.KindSequence:
		failf(pgerr.WrongObjectType, "cannot change sequence \"%s\"", name)
	case catalog.KindTable:
	case catalog.KindSource:
		fail(pgerr.New(pgerr.WrongObjectType, "cannot %s source \"%s\"", dmlVerb(verb), name).
			WithHint("A source's rows come from its connector. To write rows yourself, create a table (a table may also have a connector)."))
	default:
		failf(pgerr.WrongObjectType, "\"%s\" is not a table", name)
	}
	alias := ts.AsName.O
	if alias == "" {
		alias = name
	}
	return rel, alias
}

// targetPriv is what a DML statement needs on its target: p (INSERT,
// UPDATE or DELETE), with UPDATE too for INSERT ... ON CONFLICT DO
// UPDATE, and SELECT when it reads the target's rows: in a WHERE,
// RETURNING, or an ON CONFLICT with a conflict target, as in
// PostgreSQL. (SET expressions that read the target are
// found as they are bound: readsTarget.)
func (b *binder) targetPriv(p catalog.Privilege, where bool) catalog.Privilege {
	read := where || b.q.Returning != nil
	if oc := b.q.OnConflict; oc != nil && p == catalog.PrivInsert {
		// A conflict target (columns or a constraint) reads the
		// target's rows to find the conflicting one.
		read = read || len(oc.Columns) > 0 || oc.Constraint != ""
		if oc.Update {
			// DO UPDATE reads the row it updates, whatever names it.
			p |= catalog.PrivUpdate | catalog.PrivSelect
		}
	}
	if read {
		p |= catalog.PrivSelect
	}
	return p
}

// tableNameOf returns the table name a FROM item names, or nil.
func tableNameOf(n ast.ResultSetNode) *ast.TableName {
	if ts, ok := n.(*ast.TableSource); ok {
		tn, _ := ts.Source.(*ast.TableName)
		return tn
	}
	return nil
}

func dmlVerb(verb string) string {
	switch verb {
	case "INSERT":
		return "insert into"
	case "UPDATE":
		return "update"
	}
	return "delete from"
}

// tableScope is the scope of a DML target's full row (Rel.Cols order).
func tableScope(rel *catalog.Relation, alias string) *scope {
	sc := &scope{lvl: &level{}, tables: []string{alias}}
	for _, c := range rel.Cols {
		sc.cols = append(sc.cols, colInfo{table: alias, name: scopeName(c), t: c.T, notNull: c.NotNull, hidden: c.Hidden, domain: c.Domain, domainArray: c.DomainArray})
	}
	return sc
}

// scopeName is the name a query refers to column c by: none for a
// dropped column.
func scopeName(c catalog.Column) string {
	if c.Dropped {
		return ""
	}
	return c.Name
}

func scanAll(rel *catalog.Relation) *Scan {
	s := &Scan{Rel: rel}
	for i, c := range rel.Cols {
		s.Cols = append(s.Cols, i)
		s.Out = append(s.Out, types.Column{Name: c.Name, T: c.T, NotNull: c.NotNull, Hidden: c.Hidden})
	}
	return s
}

// defaultExpr binds column i's DEFAULT (NULL when it has none; hidden row
// ids are left NULL for the executor to assign).
func (b *binder) defaultExpr(rel *catalog.Relation, i int) Expr {
	col := rel.Cols[i]
	if col.Identity != "" && col.Seq != "" && !col.Hidden {
		// PostgreSQL's NextValueExpr: the sequence's next value, with no
		// privilege check on the sequence.
		e := &Call{Fn: functions.IdentityNextValFn, Args: []Expr{&Const{V: types.DString(`"` + strings.ReplaceAll(col.Seq, `"`, `""`) + `"`), T: types.TText}}, T: types.TInt8}
		return b.assign(e, rel, i)
	}
	text := col.DefaultSQL()
	if text == "" && col.Domain != 0 {
		// A column of a domain type without a default of its own takes
		// the domain's.
		text = b.domainDefault(col.Domain)
	}
	if text == "" || col.Hidden {
		return &Const{V: types.NullDatum, T: col.T}
	}
	dq, err := parseExpr(text)
	if err != nil {
		fail(pgerr.As(err))
	}
	sel, ok := dq.Node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		failf(pgerr.InternalError, "bad default expression for column \"%s\"", col.Name)
	}
	db := &binder{q: dq, cat: b.cat, deps: b.deps, params: nil, access: b.access, view: b.view, late: b.late, fnUses: callsOf(b.ctx), ctx: b.ctx}
	e := db.expr(&exprCtx{s: &scope{lvl: &level{}}, clause: "DEFAULT expressions"}, sel.Fields.Fields[0].Expr)
	if db.fnUses != nil {
		// The functions a default calls are checked for EXECUTE by the
		// role running the statement, as those it calls itself.
		for _, oid := range db.fnUses.order {
			b.record(Access{Func: db.fnUses.funcs[oid]})
		}
	}
	return db.assign(e, rel, i)
}

// assign applies the assignment cast of a value stored into column i.
func (b *binder) assign(e Expr, rel *catalog.Relation, i int) Expr {
	col := rel.Cols[i]
	if out := b.tryCoerce(e, col.T, ctxAssignment); out != nil {
		if c, ok := out.(*Cast); ok && out != e {
			c.Assign = true
		}
		if k, ok := e.(*Const); ok && col.DomainArray && b.isUnknown(e) && !k.V.Null {
			// A string literal stored into an array of a domain is
			// checked as it is read, as PostgreSQL's array_in does:
			// a violation points at it (the row's own check follows).
			out = b.toArrayDomain(out, col.Domain, true, b.exprPos(e))
		}
		return out
	}
	fail(typeErrorf("column \"%s\" is of type %s but expression is of type %s", col.Name, b.columnTypeName(col), b.typeOf(e)).
		WithHint("You will need to rewrite or cast the expression.").WithPosition(b.exprPos(e)))
	return nil
}

// columnTypeName is column col's type as PostgreSQL names it in errors:
// its domain (posint, or posint[] for an array of it) or its type.
func (b *binder) columnTypeName(col catalog.Column) string {
	if dc, ok := b.cat.(DomainCatalog); ok && col.Domain != 0 {
		if _, name, ok := dc.DomainByOID(col.Domain); ok {
			if col.DomainArray {
				name += "[]"
			}
			return name
		}
	}
	return col.T.String()
}

// outputPos is the position of the expression that makes column k of
// plan p (for a set operation, its first branch's), or 0 when none is
// known: where Postgres points an error about an INSERT's source column.
func (b *binder) outputPos(p Plan, k int) int {
	for {
		switch x := p.(type) {
		case *Project:
			return b.exprPos(x.Exprs[k])
		case *Sort:
			p = x.Input
		case *Limit:
			p = x.Input
		case *SetOp:
			p = x.Left
		default:
			return 0
		}
	}
}

// typeUnknownOutput gives output k of an INSERT's source query, an
// untyped literal or NULL, the type of target column i, as Postgres does
// for a plain SELECT or VALUES feeding INSERT (INSERT INTO t SELECT NULL,
// 1): the literal is read as that type, not as text. It reports whether
// it could (the plan ends in a projection or VALUES whose expression k is
// untyped); a set operation has resolved its outputs to text already.
func (b *binder) typeUnknownOutput(p Plan, k int, rel *catalog.Relation, i int) bool {
	switch p := p.(type) {
	case *Project:
		if !b.isUnknown(p.Exprs[k]) {
			return false
		}
		p.Exprs[k] = b.assign(p.Exprs[k], rel, i)
		p.Out[k].T = rel.Cols[i].T
		return true
	case *Values:
		for _, row := range p.Rows {
			if !b.isUnknown(row[k]) {
				return false
			}
		}
		for _, row := range p.Rows {
			row[k] = b.assign(row[k], rel, i)
		}
		p.Out[k].T = rel.Cols[i].T
		return true
	}
	return false
}

// generatedAlways fails with 428C9 when column i is GENERATED ALWAYS AS
// IDENTITY and is given a value other than DEFAULT (update: by UPDATE's
// SET), unless an INSERT says OVERRIDING SYSTEM VALUE.
func (b *binder) generatedAlways(rel *catalog.Relation, i int, update bool) {
	c := rel.Cols[i]
	if c.Identity != "always" || !update && b.q.Overriding == "system" {
		return
	}
	var err *pgerr.Error
	if update {
		err = pgerr.New(pgerr.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", c.Name)
	} else {
		err = pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", c.Name).
			WithHint("Use OVERRIDING SYSTEM VALUE to override.")
	}
	fail(err.WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", c.Name))
}

// userOverridden reports whether column i of rel takes its default
// whatever value an INSERT gives it: an identity column under OVERRIDING
// USER VALUE.
func (b *binder) userOverridden(rel *catalog.Relation, i int) bool {
	return b.q.Overriding == "user" && rel.Cols[i].Identity != ""
}

// findColumn finds a target column by name.
func findColumn(rel *catalog.Relation, name string) int {
	for i, c := range rel.Cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func (b *binder) bindInsert(n *ast.InsertStmt) Plan {
	if n.IsReplace || len(n.OnDuplicate) > 0 || n.Setlist {
		failf(pgerr.FeatureNotSupported, "this form of INSERT is not supported")
	}
	rel, alias := b.targetTable(n.Table, "INSERT", b.targetPriv(catalog.PrivInsert, false))
	if b.q.InsertAlias != "" {
		alias = b.q.InsertAlias
	}
	var targets []int
	if len(n.Columns) > 0 {
		seen := map[int]bool{}
		for _, c := range n.Columns {
			i := findColumn(rel, c.Name.O)
			if i < 0 || rel.Cols[i].Hidden {
				fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c.Name.O, rel.Name).WithPosition(b.pos(c)))
			}
			if seen[i] {
				fail(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" specified more than once", c.Name.O).WithPosition(b.pos(c)))
			}
			seen[i] = true
			targets = append(targets, i)
		}
	} else {
		for i, c := range rel.Cols {
			if !c.Hidden {
				targets = append(targets, i)
			}
		}
	}
	var input Plan
	var given []int
	switch {
	case n.Select != nil:
		r := b.bindQuery(n.Select.(ast.ResultSetNode), nil, &level{}, &qopts{keepUnknown: true})
		sch := r.plan.Schema()
		if len(sch) <= len(targets) {
			given = targets[:len(sch)]
		}
		if len(sch) > len(targets) {
			failf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(sch) < len(targets) && len(n.Columns) > 0 {
			failf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
		}
		pr := &Project{Input: r.plan}
		pos := map[int]int{}
		for k, t := range targets[:len(sch)] {
			pos[t] = k
			b.generatedColumn(rel, t, false)
			b.generatedAlways(rel, t, false)
		}
		for i, c := range rel.Cols {
			var e Expr
			if k, ok := pos[i]; ok && !b.userOverridden(rel, i) {
				if sch[k].T.ID == types.Unknown && b.typeUnknownOutput(r.plan, k, rel, i) {
					sch = r.plan.Schema()
				}
				var ref Expr = &ColRef{Idx: k, T: sch[k].T, Name: sch[k].Name}
				if sch[k].T.ID == types.Unknown {
					ref = &Cast{Arg: ref, T: types.TText}
				}
				b.notePosAt(ref, b.outputPos(r.plan, k))
				e = b.assign(ref, rel, i)
			} else {
				e = b.defaultExpr(rel, i)
			}
			pr.Exprs = append(pr.Exprs, e)
			pr.Out = append(pr.Out, types.Column{Name: c.Name, T: c.T, Hidden: c.Hidden})
		}
		input = pr
	default:
		vals := &Values{}
		for _, c := range rel.Cols {
			vals.Out = append(vals.Out, types.Column{Name: c.Name, T: c.T, Hidden: c.Hidden})
		}
		ctx := &exprCtx{s: &scope{lvl: &level{}}, clause: "VALUES"}
		lists := n.Lists
		if len(lists) == 0 {
			lists = [][]ast.ExprNode{{}}
		}
		if len(lists[0]) <= len(targets) {
			given = targets[:len(lists[0])]
		}
		for k, list := range lists {
			if k > 0 && len(list) != len(lists[0]) {
				// As PostgreSQL's transformInsertStmt, before the row's
				// own checks.
				err := pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
				if len(list) > 0 {
					err = err.WithPosition(b.pos(list[0]))
				}
				fail(err)
			}
			if len(list) > len(targets) {
				fail(pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns").WithPosition(b.pos(list[len(targets)])))
			}
			if len(list) < len(targets) && len(n.Columns) > 0 && len(list) > 0 {
				failf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
			}
			row := make([]Expr, len(rel.Cols))
			set := map[int]bool{}
			for k, x := range list {
				i := targets[k]
				set[i] = true
				if _, isDef := x.(*ast.DefaultExpr); isDef || b.userOverridden(rel, i) {
					row[i] = b.defaultExpr(rel, i)
					continue
				}
				b.generatedColumn(rel, i, false)
				b.generatedAlways(rel, i, false)
				row[i] = b.assign(b.expr(ctx, x), rel, i)
			}
			for i := range rel.Cols {
				if !set[i] {
					row[i] = b.defaultExpr(rel, i)
				}
			}
			vals.Rows = append(vals.Rows, row)
		}
		input = vals
	}
	ins := &Insert{Rel: rel, Input: input, Given: given, Rules: b.rowRules(rel)}
	if oc := b.q.OnConflict; oc != nil {
		ins.OnConflict = b.onConflict(oc, rel, alias)
	}
	ins.Returning, ins.Out = b.returning(rel, alias)
	return ins
}

// onConflict binds INSERT's ON CONFLICT clause. Its arbiters are the
// unique indexes, the primary key's among them, whose key columns are
// exactly the target's (in any order), or the constraint the target
// names (<table>_pkey or a UNIQUE constraint's); without a target DO
// NOTHING skips rows conflicting on any of them.
func (b *binder) onConflict(oc *sql.OnConflict, rel *catalog.Relation, alias string) *OnConflict {
	hasPK := len(rel.PK) > 0 && !rel.Cols[rel.PK[0]].Hidden
	var uniques []*catalog.Relation
	if ic, ok := b.cat.(IndexCatalog); ok {
		for _, idx := range ic.Indexes(rel.ID) {
			if idx.UniqueStore() != 0 {
				uniques = append(uniques, idx)
			}
		}
	}
	out := &OnConflict{Update: oc.Update}
	switch {
	case oc.Constraint != "":
		if hasPK && oc.Constraint == rel.Name+"_pkey" {
			out.PK = true
			break
		}
		for _, idx := range uniques {
			if idx.Name == oc.Constraint && idx.With[catalog.IndexConstraintOption] == "true" {
				out.Arbiters = append(out.Arbiters, idx.ID)
			}
		}
		if out.Arbiters == nil {
			fail(pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", oc.Constraint, rel.Name))
		}
	case oc.Columns != nil || oc.Exprs != nil:
		for k, c := range oc.Columns {
			if i := findColumn(rel, c); i < 0 || rel.Cols[i].Hidden {
				fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", c).WithPosition(oc.ColumnPos[k]))
			}
		}
		target := b.inferenceTarget(oc, rel)
		out.PK = hasPK && len(target.exprs) == 0 && sameNames(target.cols, rel, rel.PK)
		for _, idx := range uniques {
			if target.infers(b, idx, rel) {
				out.Arbiters = append(out.Arbiters, idx.ID)
			}
		}
		if !out.PK && out.Arbiters == nil {
			fail(pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification"))
		}
	case oc.Update:
		fail(pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name).").WithPosition(oc.Pos))
	default:
		out.PK = hasPK
		for _, idx := range uniques {
			out.Arbiters = append(out.Arbiters, idx.ID)
		}
	}
	if !oc.Update {
		return out
	}
	// The scope is the existing row (by the table's name or alias) and
	// the proposed one (EXCLUDED).
	sc := tableScope(rel, alias)
	for _, c := range tableScope(rel, "excluded").cols {
		sc.cols = append(sc.cols, c)
	}
	sc.tables = append(sc.tables, "excluded")
	b.inConflict = true
	defer func() { b.inConflict = false }()
	out.Set = make([]Expr, len(rel.Cols))
	ctx := &exprCtx{s: sc, clause: "UPDATE"}
	for _, a := range oc.Set {
		if t := a.Column.Table.O; t != "" && t != alias {
			fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s.%s\" of relation \"%s\" does not exist", t, a.Column.Name.O, rel.Name).WithPosition(b.pos(a.Column)))
		}
		if i, assigned := b.bindSet(rel, out.Set, a, ctx); assigned {
			out.Set[i] = b.finalize(out.Set[i])
		}
	}
	if oc.Where != nil {
		ctx.clause = "WHERE"
		out.Where = b.finalize(b.boolArg(b.expr(ctx, oc.Where), "WHERE"))
	}
	// Reading EXCLUDED (the columns after rel's) needs no privilege.
	b.readsTarget(rel, out.Set)
	return out
}

// inference is ON CONFLICT's inference specification, bound: the
// columns it names, its expressions and the conjuncts of its index
// predicate, each expression printed (planner.RowExprText) so that an
// index's can be compared with them.
type inference struct {
	cols  map[string]bool
	exprs []string
	where []string
}

// inferenceTarget binds oc's inference specification over rel's row.
func (b *binder) inferenceTarget(oc *sql.OnConflict, rel *catalog.Relation) inference {
	t := inference{cols: map[string]bool{}}
	for _, c := range oc.Columns {
		t.cols[c] = true
	}
	for k, text := range oc.Exprs {
		x, err := BindIndexExpr(b.ctx, rel, text, oc.ExprPos[k], b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		if ref, ok := x.(*ColRef); ok {
			t.cols[rel.Cols[ref.Idx].Name] = true
			continue
		}
		t.exprs = append(t.exprs, RowExprText(rel, x, false))
	}
	if oc.IndexWhere != "" {
		x, err := BindIndexPredicate(b.ctx, rel, oc.IndexWhere, oc.IndexWherePos, b.cat)
		if err != nil {
			fail(pgerr.As(err))
		}
		for _, c := range conjuncts(x) {
			t.where = append(t.where, RowExprText(rel, c, false))
		}
	}
	return t
}

// infers reports whether unique index idx on rel is an arbiter of t, as
// PostgreSQL's infer_arbiter_indexes decides: its key columns are t's
// columns and its key expressions t's expressions (in any order), and,
// for a partial index, each conjunct of its predicate is one of t's
// predicate (which must then imply it).
func (t inference) infers(b *binder, idx, rel *catalog.Relation) bool {
	pos, _ := catalog.IndexPositions(idx)
	k := idx.IndexKeys()
	if len(pos) < k {
		return false
	}
	texts := idx.IndexExprs()
	pinned := PinRelation(rel, idx.DepCols)
	cols := map[string]bool{}
	var exprs []string
	for i := 0; i < k; i++ {
		if i < len(texts) && texts[i] != "" {
			x, err := BindIndexExpr(b.ctx, pinned, texts[i], 0, b.cat)
			if err != nil {
				return false
			}
			exprs = append(exprs, RowExprText(rel, x, false))
			continue
		}
		if pos[i] < 0 || pos[i] >= len(rel.Cols) {
			return false
		}
		cols[rel.Cols[pos[i]].Name] = true
	}
	if len(cols) != len(t.cols) || len(exprs) != len(t.exprs) {
		return false
	}
	for c := range cols {
		if !t.cols[c] {
			return false
		}
	}
	for _, x := range exprs {
		if !slices.Contains(t.exprs, x) {
			return false
		}
	}
	for _, x := range t.exprs {
		if !slices.Contains(exprs, x) {
			return false
		}
	}
	if text := idx.IndexPredicate(); text != "" {
		pred, err := BindIndexPredicate(b.ctx, pinned, text, 0, b.cat)
		if err != nil || t.where == nil {
			return false
		}
		for _, c := range conjuncts(pred) {
			if !slices.Contains(t.where, RowExprText(rel, c, false)) {
				return false
			}
		}
	}
	return true
}

// sameNames reports whether the columns of rel at positions cols are
// the columns named in names, in any order.
func sameNames(names map[string]bool, rel *catalog.Relation, cols []int) bool {
	if len(names) != len(cols) {
		return false
	}
	for _, i := range cols {
		if i < 0 || i >= len(rel.Cols) || !names[rel.Cols[i].Name] {
			return false
		}
	}
	return true
}

// returning binds the RETURNING list over the affected row.
func (b *binder) returning(rel *catalog.Relation, alias string) ([]Expr, types.Schema) {
	return b.returningIn(tableScope(rel, alias))
}

// returningIn binds the RETURNING list in scope sc: the target table's
// row, followed by the other tables' of UPDATE ... FROM and DELETE ...
// USING.
func (b *binder) returningIn(sc *scope) ([]Expr, types.Schema) {
	if b.q.Returning == nil {
		return nil, nil
	}
	ctx := &exprCtx{s: sc, clause: "RETURNING"}
	b.inReturning = true
	defer func() { b.inReturning = false }()
	var es []Expr
	var out types.Schema
	for _, f := range b.q.Returning {
		if f.WildCard != nil {
			for _, it := range b.expandStar(ctx, sc, f.WildCard, f) {
				es = append(es, it.e)
				out = append(out, types.Column{Name: it.name, T: it.e.Type()})
			}
			continue
		}
		e := b.finalize(b.expr(ctx, f.Expr))
		name := f.AsName.O
		if name == "" {
			name = b.colName(f.Expr)
		}
		es = append(es, e)
		out = append(out, types.Column{Name: name, T: e.Type()})
	}
	return es, out
}

func (b *binder) bindUpdate(n *ast.UpdateStmt) Plan {
	if n.Order != nil || n.Limit != nil {
		failf(pgerr.FeatureNotSupported, "this form of UPDATE is not supported")
	}
	pop := b.pushWith(n.With)
	defer pop()
	var rel *catalog.Relation
	var alias string
	var sc *scope
	var input Plan
	if j := n.TableRefs; j != nil && j.TableRefs != nil && j.TableRefs.Right != nil {
		// UPDATE t SET ... FROM u, v arrives as TiDB's UPDATE t, u, v SET
		// (the target first): the input is the join of all of them, whose
		// first columns are the target's full row (the old row).
		first := j.TableRefs
		for {
			l, ok := first.Left.(*ast.Join)
			if !ok {
				break
			}
			first = l
		}
		rel, alias = b.targetTable(&ast.TableRefsClause{TableRefs: &ast.Join{Left: first.Left}}, "UPDATE", b.targetPriv(catalog.PrivUpdate, n.Where != nil))
		b.dmlTarget, b.targetRef = alias, tableNameOf(first.Left)
		input, sc = b.fromItem(j.TableRefs, nil, &level{})
		b.dmlTarget, b.targetRef = "", nil
	} else {
		rel, alias = b.targetTable(n.TableRefs, "UPDATE", b.targetPriv(catalog.PrivUpdate, n.Where != nil))
		sc = tableScope(rel, alias)
		input = scanAll(rel)
	}
	if c := currentOf(n.Where, rel); c != nil {
		input = &Filter{Input: input, Cond: c}
	} else if n.Where != nil {
		input = &Filter{Input: input, Cond: b.boolArg(b.expr(&exprCtx{s: sc, clause: "WHERE"}, n.Where), "WHERE")}
	}
	upd := &Update{Rel: rel, Input: input, Set: make([]Expr, len(rel.Cols)), Rules: b.rowRules(rel)}
	ctx := &exprCtx{s: sc, clause: "UPDATE"}
	for _, a := range n.List {
		if t := a.Column.Table.O; t != "" {
			// Postgres reads SET t.a as field a of a column t: SET
			// names no table.
			if findColumn(rel, t) >= 0 {
				fail(pgerr.New(pgerr.DatatypeMismatch, "cannot assign to field \"%s\" of column \"%s\" because its type %s is not a composite type",
					a.Column.Name.O, t, rel.Cols[findColumn(rel, t)].T).WithPosition(b.setTargetPos(a)))
			}
			fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", t, rel.Name).WithPosition(b.setTargetPos(a)))
		}
		b.bindSet(rel, upd.Set, a, ctx)
	}
	b.readsTarget(rel, upd.Set)
	upd.Returning, upd.Out = b.returningIn(sc)
	return upd
}

// readsTarget records that the statement needs SELECT on its target rel
// when the expressions es, bound over a row whose first columns are
// rel's, read any of them: SET b = b || 'x' reads the rows it updates,
// which PostgreSQL allows only with SELECT on the columns read. A
// correlated subquery counts as a read.
func (b *binder) readsTarget(rel *catalog.Relation, es []Expr) {
	reads := false
	for _, e := range es {
		WalkExpr(e, func(x Expr) {
			switch r := x.(type) {
			case *ColRef:
				reads = reads || r.Idx < len(rel.Cols)
			case *Subquery:
				reads = reads || r.Correlated
			}
		})
	}
	if reads {
		b.record(Access{Rel: rel, Priv: catalog.PrivSelect, View: b.view})
	}
}

// setTargetPos is the position of the column an UPDATE's SET assignment
// names, which the parser does not record: the name written just before
// the "=" that precedes the assigned expression (0 when not found).
func (b *binder) setTargetPos(a *ast.Assignment) int {
	if b.q == nil || a.Expr == nil {
		return 0
	}
	text, m := b.q.Rewritten, b.curMap()
	if m == nil {
		text = b.q.Text
	}
	i := a.Expr.OriginTextPosition()
	if i <= 0 || i > len(text) {
		return 0
	}
	skip := func() {
		for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' || text[i-1] == '\r') {
			i--
		}
	}
	skip()
	if i == 0 || text[i-1] != '=' {
		return 0
	}
	i--
	skip()
	end := i
	for i > 0 && (text[i-1] == '.' || text[i-1] == '_' || text[i-1] == '"' || text[i-1] == '`' || text[i-1] == '$' ||
		text[i-1] >= 'a' && text[i-1] <= 'z' || text[i-1] >= 'A' && text[i-1] <= 'Z' || text[i-1] >= '0' && text[i-1] <= '9' || text[i-1] >= 0x80) {
		i--
	}
	if i == end {
		return 0
	}
	if m == nil {
		return len([]rune(text[:i])) + 1
	}
	return m.Pos(i)
}

// bindSet binds one SET assignment of an UPDATE or an ON CONFLICT DO
// UPDATE into set, indexed by rel's columns: the column must exist and
// be assigned once; DEFAULT is its default, anything else an expression
// assigned to its type (assigned is then true, and set[i] holds it).
func (b *binder) bindSet(rel *catalog.Relation, set []Expr, a *ast.Assignment, ctx *exprCtx) (i int, assigned bool) {
	i = findColumn(rel, a.Column.Name.O)
	if i < 0 || rel.Cols[i].Hidden {
		fail(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", a.Column.Name.O, rel.Name).WithPosition(b.pos(a.Column)))
	}
	if set[i] != nil {
		failf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", a.Column.Name.O)
	}
	if _, isDef := a.Expr.(*ast.DefaultExpr); isDef {
		set[i] = b.defaultExpr(rel, i)
		return i, false
	}
	b.generatedColumn(rel, i, true)
	b.generatedAlways(rel, i, true)
	set[i] = b.assign(b.expr(ctx, a.Expr), rel, i)
	return i, true
}

func (b *binder) bindDelete(n *ast.DeleteStmt) Plan {
	using := n.IsMultiTable && n.BeforeFrom && n.Tables != nil && len(n.Tables.Tables) == 1 &&
		n.TableRefs != nil && n.TableRefs.TableRefs != nil && n.TableRefs.TableRefs.Right != nil
	if n.IsMultiTable && !using || n.Order != nil || n.Limit != nil {
		failf(pgerr.FeatureNotSupported, "this form of DELETE is not supported")
	}
	pop := b.pushWith(n.With)
	defer pop()
	var rel *catalog.Relation
	var alias string
	var sc *scope
	var input Plan
	if using {
		// DELETE FROM t USING u, v arrives as TiDB's DELETE t FROM t,
		// u, v (the target first): the input is the join of all of
		// them, whose first columns are the target's row.
		first := n.TableRefs.TableRefs
		for {
			l, ok := first.Left.(*ast.Join)
			if !ok {
				break
			}
			first = l
		}
		rel, alias = b.targetTable(&ast.TableRefsClause{TableRefs: &ast.Join{Left: first.Left}}, "DELETE", b.targetPriv(catalog.PrivDelete, n.Where != nil))
		b.dmlTarget, b.targetRef = alias, tableNameOf(first.Left)
		input, sc = b.fromItem(n.TableRefs.TableRefs, nil, &level{})
		b.dmlTarget, b.targetRef = "", nil
	} else {
		rel, alias = b.targetTable(n.TableRefs, "DELETE", b.targetPriv(catalog.PrivDelete, n.Where != nil))
		sc = tableScope(rel, alias)
		input = scanAll(rel)
	}
	if c := currentOf(n.Where, rel); c != nil {
		input = &Filter{Input: input, Cond: c}
	} else if n.Where != nil {
		input = &Filter{Input: input, Cond: b.boolArg(b.expr(&exprCtx{s: sc, clause: "WHERE"}, n.Where), "WHERE")}
	}
	del := &Delete{Rel: rel, Input: input}
	del.Returning, del.Out = b.returningIn(sc)
	return del
}

// currentOf binds WHERE CURRENT OF cursor, the bridge's
// pg_current_of('cursor') (sql/doc.go #40), of an UPDATE or DELETE of
// rel: pg_current_of(cursor, rel's name, rel's id, rel's key columns),
// true for the row of rel the cursor stands on, which the session
// answers as the statement runs (functions.Cursors). The input's first
// columns are rel's. nil when where is not that form.
func currentOf(where ast.ExprNode, rel *catalog.Relation) Expr {
	f, ok := where.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_current_of" || len(f.Args) != 1 {
		return nil
	}
	l, ok := f.Args[0].(*sql.Literal)
	if !ok {
		return nil
	}
	name, ok := l.Value.(string)
	if !ok {
		return nil
	}
	args := []Expr{
		&Const{V: types.DString(name), T: types.TText},
		&Const{V: types.DString(rel.Name), T: types.TText},
		&Const{V: types.DInt(int64(rel.ID)), T: types.TInt8},
	}
	for _, i := range rel.PK {
		args = append(args, &ColRef{Idx: i, T: rel.Cols[i].T, Name: rel.Cols[i].Name})
	}
	return &Call{Fn: "pg_current_of", Args: args, T: types.TBool}
}

var _ = sql.Parse
