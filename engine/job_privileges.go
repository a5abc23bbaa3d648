package engine

import (
	"context"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// A materialized view's job reads its inputs with its owner's
// privileges, as a view is read with its owner's at every read. When the
// owner loses SELECT on an input (a REVOKE of the privilege or of a
// role that carried it, an ALTER ROLE ... NOSUPERUSER or NOINHERIT, a
// DROP ROLE of a role it was a member of), the job fails at once with the 42501 a
// REFRESH would give in PostgreSQL, and a privilege failure is not
// retried: the job is FAILED (weir.jobs shows the error, as for a job
// out of restart attempts) and the view keeps what it had computed
// under the old privileges, as a PostgreSQL materialized view does
// until a refresh, or is rebuilt on RESUME like any FAILED view over
// tables. ALTER MATERIALIZED VIEW ... RESUME checks the privileges
// again and is refused (42501) while the owner still lacks one.

// ownerMayRead checks that rel's owner holds SELECT on every relation
// rel reads, and through the views among them on what those read.
//
// The relations are those rel's definition, bound again, accesses
// (planner.Access), each checked against the role PostgreSQL checks it
// against: rel's owner for what the definition names, a view's owner
// for what that view reads. (rel's Deps list the relations behind its
// views too, so checking them all against rel's owner failed a view
// whose owner may read a view but not the tables behind it, which
// PostgreSQL allows.) A definition that no longer binds is checked
// through its Deps as before.
func (e *Engine) ownerMayRead(rel *catalog.Relation) error {
	q, err := parseQuery(rel.SQL)
	if err != nil {
		return e.ownerReads(rel, 0)
	}
	b, err := planner.Bind(q, e.definitionSession(rel, nil).catalogView(), nil)
	if err != nil {
		return e.ownerReads(rel, 0)
	}
	owner, ok := e.cat.RoleByOID(rel.Owner)
	if !ok {
		// The bootstrap superuser (0), or a role since dropped.
		return nil
	}
	for _, a := range b.Access {
		if a.Rel == nil || a.Func != nil || a.Priv&catalog.PrivSelect == 0 {
			continue
		}
		who := owner
		if a.View != nil {
			who = e.viewOwner(a.View)
		}
		cur, ok := e.cat.ByID(a.Rel.ID)
		if !ok {
			continue
		}
		if !e.holds(who, cur, catalog.PrivSelect) {
			return denied(cur)
		}
	}
	return nil
}

// failJobsWithoutPrivileges fails the running job of every materialized
// view whose owner no longer may read its inputs; called after a
// statement that may take privileges away.
func (e *Engine) failJobsWithoutPrivileges(ctx context.Context) {
	if e.st == nil {
		return
	}
	type lost struct {
		j   *jobRun
		err error
	}
	var fail []lost
	e.writeMu.Lock()
	for _, j := range e.st.jobs {
		if j.rel.Kind != catalog.KindMView {
			continue
		}
		rel, ok := e.cat.ByID(j.rel.ID)
		if !ok {
			continue
		}
		if err := e.ownerMayRead(rel); err != nil {
			fail = append(fail, lost{j, err})
		}
	}
	e.writeMu.Unlock()
	for _, l := range fail {
		var actor types.ActorID
		if ids := l.j.job.ActorIDs(); len(ids) > 0 {
			actor = ids[0]
		}
		if err := e.jobFailed(ctx, l.j, actor, l.err); err != nil {
			e.log.Warn("failing a job whose owner lost a privilege", kindWords[l.j.rel.Kind], l.j.rel.Name, "err", err)
		}
	}
}

// thenCheckJobs returns a function that, after a statement that may
// take privileges away succeeded, fails the jobs whose owners lost one
// (failJobsWithoutPrivileges), and passes the statement's result on.
func (e *Engine) thenCheckJobs(ctx context.Context) func(wire.Result, error) (wire.Result, error) {
	return func(res wire.Result, err error) (wire.Result, error) {
		if err == nil {
			e.failJobsWithoutPrivileges(ctx)
		}
		return res, err
	}
}

// reasonLostPrivilege is the reason a job failed for a lost privilege
// is FAILED with, first in its persisted record (job_failed/<id>).
const reasonLostPrivilege = "its owner lacks a privilege it needs"

// notRetried reports whether a job's failure is one no restart can
// cure: its owner lacks a privilege (42501) until someone grants it.
func notRetried(err error) bool {
	return pgerr.CodeOf(err) == pgerr.InsufficientPrivilege
}

// checkViewOwner checks, when rel is a view, that its owner still holds
// SELECT on every relation the view reads, and so on through the views
// among them (a materialized view's job reads through them with their
// owners' privileges, as a query does: planner.Access).
func (e *Engine) checkViewOwner(rel *catalog.Relation, depth int) error {
	if rel.Kind != catalog.KindView || depth > 64 {
		return nil
	}
	return e.ownerReads(rel, depth)
}

// ownerReads checks that rel's owner holds SELECT on every relation rel
// reads (its Deps), and through the views among them on what those
// read; depth is rel's depth below the first view. It is the check of
// a definition that no longer binds (ownerMayRead): stricter than
// PostgreSQL's, as the Deps of a relation read through a view are held
// against rel's owner too.
func (e *Engine) ownerReads(rel *catalog.Relation, depth int) error {
	owner, ok := e.cat.RoleByOID(rel.Owner)
	if !ok {
		// The bootstrap superuser (0), or a role since dropped.
		return nil
	}
	for _, id := range rel.Deps {
		dep, ok := e.cat.ByID(id)
		if !ok {
			continue
		}
		if !e.holds(owner, dep, catalog.PrivSelect) {
			return denied(dep)
		}
		if err := e.checkViewOwner(dep, depth+1); err != nil {
			return err
		}
	}
	return nil
}
