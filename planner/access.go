package planner

import (
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// This file records what a statement touches, for privilege checks made
// on what the binder resolved rather than on the names the text spells:
// PostgreSQL's range table, whose entries it checks by OID before it
// runs a plan (ExecCheckPermissions). Every relation and system table
// the binder binds passes through relation or systemTable below, which
// record it with the privileges the statement needs on it; the caller
// checks Bound.Access after binding and before running the plan (an
// Authorizer catalog has Bind check it at once).

// Access is one relation a bound statement reads or writes, or one user
// function it calls.
type Access struct {
	// Rel is the user relation as it was bound; nil for a system table.
	Rel *catalog.Relation
	// Schema and Name name a system table (Rel nil): pg_catalog.pg_authid.
	Schema, Name string
	// Priv is what the statement needs on it: SELECT to read it, INSERT,
	// UPDATE or DELETE to write it. None (0) when it is only resolved
	// (an UPDATE ... FROM's target, which its join reads again).
	Priv catalog.Privilege
	// RowLock marks the access a locking clause (FOR UPDATE, FOR SHARE
	// ...) adds for a relation it locks rows of: it needs UPDATE but
	// writes nothing, so it takes PostgreSQL's ROW SHARE lock, not the
	// ROW EXCLUSIVE of a write.
	RowLock bool
	// View is the view whose definition reads the relation, nil when the
	// statement itself names it. As in PostgreSQL the relations a view
	// reads are checked against its owner's privileges, not the current
	// role's; a view within a view against the inner view's owner.
	View *catalog.Relation
	// Func is a user function the statement calls (Rel nil, Name ""):
	// directly, from a view's definition or from another function's
	// body, all of which PostgreSQL checks for EXECUTE against the
	// current role when it starts the plan (ExecInitFunc), not against
	// a view's owner.
	Func *catalog.Function
}

// Authorizer is implemented by a Catalog that checks a bound statement's
// accesses for the role binding it: Bind then returns its error (42501)
// instead of the statement.
type Authorizer interface {
	Authorize(acc []Access) error
}

// relation resolves a user relation (schema "" searches the path) for
// an access needing p, and records it. It is the one place the binder
// resolves a relation it reads or writes; only regclass literals, which
// read nothing, look names up elsewhere.
func (b *binder) relation(schema, name string, p catalog.Privilege) (*catalog.Relation, bool) {
	rel, ok := b.cat.Relation(schema, name)
	if ok {
		b.record(Access{Rel: rel, Priv: p, View: b.view})
	}
	return rel, ok
}

// systemTable resolves a system table for reading and records it.
func (b *binder) systemTable(schema, name string) (string, types.Schema, bool) {
	sch, cols, ok := b.cat.SystemTable(schema, name)
	if ok {
		b.record(Access{Schema: sch, Name: name, Priv: catalog.PrivSelect, View: b.view})
	}
	return sch, cols, ok
}

// record appends a to the statement's accesses.
func (b *binder) record(a Access) {
	if b.access == nil {
		b.access = &[]Access{}
	}
	*b.access = append(*b.access, a)
}

// accesses is how many accesses the statement has recorded so far.
func (b *binder) accesses() int {
	if b.access == nil {
		return 0
	}
	return len(*b.access)
}
