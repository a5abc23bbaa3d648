package engine

import (
	"context"

	"github.com/weirdb/weir/internal/pgerr"
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
func (e *Engine) ownerMayRead(rel *catalog.Relation) error {
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
		if err := e.checkViewOwner(dep, 0); err != nil {
			return err
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
