package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// This file resolves a SELECT's locking clause (FOR UPDATE, FOR SHARE,
// ... [OF name, ...]) as PostgreSQL's transformLockingClause does, for
// the privileges it needs: locking rows needs UPDATE on their table as
// well as SELECT. weir takes no row locks (its transaction blocks are
// checked at COMMIT), so the clause changes nothing else.
//
// Without OF the clause locks every table of the FROM clause, and
// through the subqueries of FROM what their FROM clauses read, and
// through a view what its FROM clause reads (for the view's owner, who
// needs UPDATE on those tables, as the view's reader needs it on the
// view); CTEs, functions and joins are passed over. OF names FROM items by their
// range variable, an alias when one is given, else the relation's or
// CTE's name: a name no item has is 42P01, a join, function or CTE
// 0A000, as in PostgreSQL. The relations WHERE or the select list read
// through subqueries are not locked.

// lockTarget is one item of a SELECT's FROM as its locking clause finds
// it.
type lockTarget struct {
	// name is the item's range variable.
	name string
	// cannot says what the item is when no row of it can be locked ("a
	// join", "a function", "a WITH query"), "" for a relation or a
	// subquery.
	cannot string
	// setOp is set for a subquery that is a UNION, INTERSECT or EXCEPT,
	// which PostgreSQL refuses to lock.
	setOp bool
	// locks are the indexes, in the statement's accesses, of the reads
	// that locking the item locks: the relation's own, or those of the
	// tables a subquery's FROM clause locks.
	locks []int
}

// addLockTarget adds FROM item n, bound with the accesses from index
// start on, to the lock targets of the FROM clause being bound.
func (b *binder) addLockTarget(n *ast.TableSource, start int) {
	if b.lockTargets == nil {
		return
	}
	t := lockTarget{name: n.AsName.O}
	switch src := n.Source.(type) {
	case *ast.TableName:
		if t.name == "" {
			t.name = src.Name.O
		}
		switch {
		case src.Schema.O == "" && b.findCTE(src.Name.O) != nil:
			t.cannot = "a WITH query"
		case src.Schema.O == "" && b.q != nil && b.q.TVFs[src.Name.O] != nil:
			t.cannot = "a function"
		default:
			// The relation's own read is the first its binding recorded
			// (a view's definition comes after it, read for its owner).
			for i := start; i < b.accesses(); i++ {
				if a := (*b.access)[i]; a.Rel != nil && a.View == b.view && a.Priv == catalog.PrivSelect {
					t.locks = append([]int{i}, b.viewLocks[i]...)
					break
				}
			}
		}
	case *ast.SelectStmt:
		if src.From != nil {
			for _, in := range b.fromTargets[src.From] {
				if in.setOp {
					t.setOp = true
				}
				t.locks = append(t.locks, in.locks...)
			}
		}
	case *ast.SetOprStmt:
		t.setOp = true
	case *ast.Join:
		t.cannot = "a join"
	}
	*b.lockTargets = append(*b.lockTargets, t)
}

// keepViewLocks notes what locking view rel, read at index at of the
// accesses and bound by vb from its query node, locks: the tables its
// FROM clause locks.
func (b *binder) keepViewLocks(at int, rel *catalog.Relation, vb *binder, node ast.Node) {
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.From == nil || at < 0 || (*b.access)[at].Rel == nil || (*b.access)[at].Rel.ID != rel.ID {
		return
	}
	var locks []int
	for _, t := range vb.fromTargets[sel.From] {
		locks = append(locks, t.locks...)
	}
	if b.viewLocks == nil {
		b.viewLocks = map[int][]int{}
	}
	b.viewLocks[at] = locks
}

// keepLockTargets keeps the lock targets of a SELECT's FROM clause for a
// locking clause of a query that reads the SELECT as a subquery.
func (b *binder) keepLockTargets(from *ast.TableRefsClause, targets []lockTarget) {
	if b.fromTargets == nil {
		b.fromTargets = map[*ast.TableRefsClause][]lockTarget{}
	}
	b.fromTargets[from] = targets
}

// lockedAccess records UPDATE on the relations a SELECT's locking
// clause locks, from the lock targets of its FROM clause.
func (b *binder) lockedAccess(lock *ast.SelectLockInfo, targets []lockTarget) {
	if lock == nil || lock.LockType == ast.SelectLockNone {
		return
	}
	clause := lockClause(lock.LockType)
	var locks []int
	if len(lock.Tables) == 0 {
		for _, t := range targets {
			if t.setOp {
				failf(pgerr.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", clause)
			}
			locks = append(locks, t.locks...)
		}
	}
	for _, tn := range lock.Tables {
		clause := b.lockClauseAt(clause, b.pos(tn))
		if tn.Schema.O != "" {
			fail(pgerr.New(pgerr.SyntaxError, "%s must specify unqualified relation names", clause).WithPosition(b.pos(tn)))
		}
		i := slices.IndexFunc(targets, func(t lockTarget) bool { return t.name == tn.Name.O })
		if i < 0 {
			fail(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" in %s clause not found in FROM clause", tn.Name.O, clause).WithPosition(b.pos(tn)))
		}
		t := targets[i]
		switch {
		case t.cannot != "":
			fail(pgerr.New(pgerr.FeatureNotSupported, "%s cannot be applied to %s", clause, t.cannot).WithPosition(b.pos(tn)))
		case t.setOp:
			failf(pgerr.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", clause)
		}
		locks = append(locks, t.locks...)
	}
	for _, i := range locks {
		a := (*b.access)[i]
		b.record(Access{Rel: a.Rel, Priv: catalog.PrivUpdate, RowLock: true, View: a.View})
	}
}

// rowLockError is PostgreSQL's CheckValidRowMarkRel for a statement's
// accesses: the rows of a materialized view or a sequence cannot be
// locked (42809). PostgreSQL's executor finds it, after the privilege
// checks and with no position, and so does Bind.
func rowLockError(acc []Access) error {
	for _, a := range acc {
		if !a.RowLock || a.Rel == nil {
			continue
		}
		switch a.Rel.Kind {
		case catalog.KindMView:
			return pgerr.New(pgerr.WrongObjectType, "cannot lock rows in materialized view \"%s\"", a.Rel.Name)
		case catalog.KindSequence:
			return pgerr.New(pgerr.WrongObjectType, "cannot lock rows in sequence \"%s\"", a.Rel.Name)
		}
	}
	return nil
}

// lockClauseAt names the locking clause clause whose OF list has a name
// at character position pos as it was written: FOR NO KEY UPDATE and
// FOR KEY SHARE reach the binder as FOR UPDATE and FOR SHARE, and the
// clause is the last one written before pos (sql.Query.LockClauses).
func (b *binder) lockClauseAt(clause string, pos int) string {
	if b.q == nil || pos == 0 {
		return clause
	}
	at, written := 0, ""
	for p, w := range b.q.LockClauses {
		if p < pos && p > at {
			at, written = p, w
		}
	}
	if strings.HasSuffix(written, clause[len("FOR "):]) {
		return written
	}
	return clause
}

// lockClause is how PostgreSQL's messages name a locking clause of type
// t.
func lockClause(t ast.SelectLockType) string {
	switch t {
	case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
		return "FOR SHARE"
	}
	return "FOR UPDATE"
}
