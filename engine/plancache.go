package engine

import (
	"context"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// cachedQuery is a prepared SELECT / INSERT / UPDATE / DELETE that stays
// true to its text when the catalog changes under it, as a cached plan
// does in Postgres: it remembers the catalog generation and the
// search_path it was bound under, and when it is about to run and either
// has moved it binds its text again, with the parameter types it was
// prepared with. A table dropped and created again is thus the new
// table, and a dropped one is 42P01 until it comes back.
//
// The result columns must not change (names, types and typmods), since
// a client that prepared the statement knows them already: a new binding
// that changes them is refused with 0A000, as Postgres refuses it.
type cachedQuery struct {
	s      *Session
	text   string
	params []types.T
	fields []wire.Field
	q      *queryPrepared
	gen    uint64
	path   string
	// role is the OID of the role (current_user) the statement was
	// last checked for. Its accesses are checked at every run
	// (queryPrepared.execute); a change of role is noticed here too, so
	// a statement is never reused on the strength of a role's name.
	role uint32
	// bulk is set when text is the template of a bulk INSERT whose
	// later rows each binding's Values reads (bulkinsert.go).
	bulk *sql.BulkInsert
}

// prepareCached binds a query parsed from text.
func (s *Session) prepareCached(ctx context.Context, st *sql.Query, text string, hints []types.T) (*cachedQuery, error) {
	// The generation is read before binding: a change made meanwhile
	// makes the next run bind again rather than go unnoticed.
	gen, path, role := s.eng.cat.Generation(), s.searchPath(), s.role().OID
	q, err := s.prepareQuery(ctx, st, hints)
	if err != nil {
		return nil, err
	}
	return &cachedQuery{s: s, text: text, params: q.ParamTypes(), fields: q.Fields(), q: q, gen: gen, path: path, role: role}, nil
}

func (c *cachedQuery) ParamTypes() []types.T { return c.params }
func (c *cachedQuery) Fields() []wire.Field  { return c.fields }

// Revalidate implements wire.Revalidator: it binds the statement again
// when the catalog or search_path changed since it was bound, which
// checks its privileges again; when only the current role changed (SET
// ROLE) it checks the accesses the binding recorded for the new role.
func (c *cachedQuery) Revalidate(ctx context.Context) error {
	s := c.s
	gen, path, role := s.eng.cat.Generation(), s.searchPath(), s.role().OID
	if gen == c.gen && path == c.path {
		if role != c.role {
			if err := s.checkAccess(c.q.bound.Access); err != nil {
				return err
			}
			c.role = role
		}
		return nil
	}
	ctx, cancel := s.withTimeout(ctx)
	defer cancel()
	stmt, err := s.parseCtx(ctx, c.text)
	if err != nil {
		return err
	}
	st, ok := stmt.(*sql.Query)
	if !ok {
		return pgerr.New(pgerr.InternalError, "prepared query text no longer parses as a query")
	}
	// Binding checks the privileges again: a REVOKE is a catalog change.
	q, err := s.prepareQuery(ctx, st, c.params)
	if err != nil {
		return err
	}
	fields := q.Fields()
	if !sameResult(c.fields, fields) {
		return pgerr.New(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	if c.bulk != nil && !s.attachBulk(q, c.bulk) {
		return pgerr.New(pgerr.InternalError, "a bulk INSERT no longer binds as an INSERT of its rows")
	}
	c.q, c.fields, c.gen, c.path, c.role = q, fields, gen, path, role
	return nil
}

// Execute revalidates the statement and runs it.
func (c *cachedQuery) Execute(ctx context.Context, params []types.Datum, io wire.ExecIO) (wire.Result, error) {
	if err := c.Revalidate(ctx); err != nil {
		return nil, err
	}
	return c.q.Execute(ctx, params, io)
}

// sameResult reports whether two bindings return the same columns as far
// as a client can tell from RowDescription: the number of columns, and
// each one's name, type and typmod (Postgres's equalTupleDescs). Where a
// column comes from may differ: a table created again has a new OID.
func sameResult(a, b []wire.Field) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].T.OID() != b[i].T.OID() || a[i].T.Mod != b[i].T.Mod {
			return false
		}
	}
	return true
}
