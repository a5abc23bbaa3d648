package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file holds what happens when a streaming job fails: an operator
// or connector error, or a panic in an actor.
//
// A job that can be restarted alone is taken out of the checkpoints
// (checkpoint.JobFailed), stopped, and started again after the delay its
// restart strategy decides, while every other job and all DML go on
// committing. Those are the jobs whose output no other job reads:
//
//   - a job whose inputs are sources restarts from its own last
//     committed state, and its sources replay from the offsets committed
//     with it;
//   - a materialized view fed by tables or views is rebuilt: its state
//     is dropped in the first checkpoint that leaves it out (so a crash
//     never finds it stale next to tables that moved on) and it is
//     backfilled from its inputs' current contents, as by CREATE; until
//     the backfill is done it is "rebuilding" and a query reading it
//     fails with 55000 rather than return a partial answer.
//
// Any other job (a sink fed by tables or views, or a job other jobs
// read) would miss or spoil changes committed while it is down, so its
// failure recovers every job from the last checkpoint, as before, but
// paced by the failed job's restart strategy. DESIGN.md §5a tells why.
//
// Either way a retry is logged once with its delay, and a job out of
// attempts is FAILED: it is left out of the checkpoints and of every
// recovery (its state stays as last committed, the failure is kept in
// the meta keyspace across restarts), shown with its reason in
// weir.jobs, until ALTER MATERIALIZED VIEW | SINK name RESUME.

// Job statuses as weir.jobs shows them.
const (
	jobRunning    = "running"
	jobRestarting = "restarting"
	jobFailed     = "failed"
	jobRebuilding = "rebuilding"
)

// jobHealth is a job's failure record: its restart strategy's state and
// what weir.jobs shows.
type jobHealth struct {
	restarts *checkpoint.Restarts
	status   string
	count    int // restarts so far
	lastErr  string
	// cause is the error of the last failure, its SQLSTATE kept (a
	// CREATE whose job fails while backfilling returns it).
	cause  error
	nextAt time.Time // when a restarting job restarts
	// gen changes whenever the job is started by anyone, so a restart
	// timer that fires late does nothing.
	gen   uint64
	timer *time.Timer
	// rebuild: the job's state is dropped and backfilled again when it
	// restarts; truncAt is the pending epoch whose commit drops it (nil
	// until the checkpoint leaving the job out is known).
	rebuild bool
	truncAt *pendingEpoch
}

// jobHealthTable holds every job's jobHealth, and the job whose failure
// caused the recovery under way.
type jobHealthTable struct {
	mu      sync.Mutex
	m       map[types.JobID]*jobHealth
	blamed  types.JobID
	blame   error
	rng     *rand.Rand
	ctx     context.Context // cancelled when streaming stops
	cancel  context.CancelFunc
	stopped bool
}

func newJobHealthTable() *jobHealthTable {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobHealthTable{m: map[types.JobID]*jobHealth{}, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13)), ctx: ctx, cancel: cancel}
}

// stop cancels pending restarts (the database is closing).
func (t *jobHealthTable) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	t.cancel()
	for _, h := range t.m {
		if h.timer != nil {
			h.timer.Stop()
		}
	}
}

// entry returns id's record, made with the strategy s when there is
// none; a record whose strategy changed (ALTER SYSTEM, say) starts over
// with the new one. Called under t.mu.
func (t *jobHealthTable) entry(id types.JobID, s checkpoint.RestartStrategy) *jobHealth {
	h := t.m[id]
	if h == nil {
		h = &jobHealth{status: jobRunning, restarts: checkpoint.NewRestarts(s)}
		t.m[id] = h
	} else if h.restarts.Strategy() != s {
		h.restarts = checkpoint.NewRestarts(s)
	}
	return h
}

func (t *jobHealthTable) isFailed(id types.JobID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.m[id]
	return h != nil && h.status == jobFailed
}

// started records that a job was (re)built by anyone: a restart pending
// for it is void.
func (t *jobHealthTable) started(id types.JobID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.m[id]; h != nil {
		h.gen++
		if h.status == jobRestarting {
			h.status = jobRunning
		}
		if h.timer != nil {
			h.timer.Stop()
			h.timer = nil
		}
	}
}

// forget drops a job's record (its relation was dropped).
func (t *jobHealthTable) forget(id types.JobID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.m[id]; h != nil && h.timer != nil {
		h.timer.Stop()
	}
	delete(t.m, id)
	if t.blamed == id {
		t.blamed, t.blame = 0, nil
	}
}

// cause returns the error of the job's last failure, nil when none.
func (t *jobHealthTable) cause(id types.JobID) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.m[id]; h != nil {
		return h.cause
	}
	return nil
}

// jobSnapshot is what weir.jobs shows of a job's health.
type jobSnapshot struct {
	status, lastErr, strategy string
	count                     int
}

func (t *jobHealthTable) snapshot(id types.JobID) (jobSnapshot, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.m[id]
	if h == nil {
		return jobSnapshot{}, false
	}
	return jobSnapshot{status: h.status, lastErr: h.lastErr, strategy: h.restarts.Strategy().String(), count: h.count}, true
}

// metaJobFailed is the meta entry recording that job id is FAILED, with
// the reason.
func metaJobFailed(id types.JobID) string { return fmt.Sprintf("job_failed/%d", id) }

// loadFailedJobs marks the jobs recorded FAILED in the meta keyspace.
func (e *Engine) loadFailedJobs() {
	for _, rel := range e.cat.All() {
		if !hasJob(rel) {
			continue
		}
		v, ok, err := e.db.Meta(metaJobFailed(types.JobID(rel.ID)))
		if err != nil || !ok {
			continue
		}
		s := e.strategyOrDefault(rel)
		t := e.st.health
		t.mu.Lock()
		h := t.entry(types.JobID(rel.ID), s)
		h.status, h.lastErr = jobFailed, string(v)
		// A view fed by tables or views had its state dropped to be
		// rebuilt: it stays unreadable until RESUME rebuilds it. (Not
		// one failed for a lost privilege, which keeps its rows.)
		h.rebuild = materialized(rel) && e.readsRelations(rel) && !strings.HasPrefix(string(v), reasonLostPrivilege)
		t.mu.Unlock()
	}
}

// readsRelations reports whether rel's job reads a table or a view
// (directly or through plain views), rather than only sources.
func (e *Engine) readsRelations(rel *catalog.Relation) bool {
	for _, d := range rel.Deps {
		dep, ok := e.cat.ByID(d)
		if !ok {
			continue
		}
		switch dep.Kind {
		case catalog.KindSource:
		case catalog.KindView:
			if e.readsRelations(dep) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// jobError names the view or sink whose job failed with err, keeping
// err's SQLSTATE (XX000 when it has none), so that a statement failing
// because of it says which object, why and what to do.
func jobError(rel *catalog.Relation, err error) error {
	code := pgerr.CodeOf(err)
	if code == "" {
		code = pgerr.InternalError
	}
	e := pgerr.Wrap(code, err, fmt.Sprintf("the streaming job of %s \"%s\" failed", kindWords[rel.Kind], rel.Name))
	if pe := pgerr.As(err); pe != nil && pe.Hint != "" {
		return e.WithHint("%s", pe.Hint)
	}
	return e.WithHint("It restarts by its restart strategy; weir.jobs shows its status and weir.stream_errors its errors.")
}

// jobBarrierSink is a job's stream.BarrierSink: acknowledgements go to
// the checkpoint driver, failures to Engine.jobFailed.
type jobBarrierSink struct {
	e *Engine
	j *jobRun
}

// Ack implements stream.BarrierSink.
func (s jobBarrierSink) Ack(ctx context.Context, epoch uint64, actor types.ActorID, ws *storage.Batch) error {
	if ws == nil {
		// Nothing written: no write set, rather than a nil *Batch in
		// the interface.
		return s.e.st.drv.Ack(ctx, epoch, actor, nil)
	}
	return s.e.st.drv.Ack(ctx, epoch, actor, ws)
}

// ActorFailed implements stream.BarrierSink.
func (s jobBarrierSink) ActorFailed(ctx context.Context, actor types.ActorID, err error) error {
	return s.e.jobFailed(ctx, s.j, actor, err)
}

// restartsAlone reports whether j can be restarted without the others:
// its AddJob barrier was injected, it reads no table or view (whose
// changes it would miss while down), and no job reads its output (which
// got part of the failed epoch). Called under writeMu.
func (e *Engine) restartsAlone(j *jobRun) bool {
	if !j.active || len(j.job.Tables) > 0 && !materialized(j.rel) {
		return false
	}
	j.subMu.Lock()
	defer j.subMu.Unlock()
	return len(j.subs) == 0 && len(j.pending) == 0
}

// jobFailed handles the failure of one of j's actors: a restart of j
// alone when it can be, a recovery of every job otherwise.
func (e *Engine) jobFailed(_ context.Context, j *jobRun, actor types.ActorID, err error) error {
	st := e.st
	named := jobError(j.rel, err)
	// Stop the whole job first: a statement or a view's relay pushing
	// changes into it (perhaps under writeMu) must not wait for actors
	// that no longer read.
	j.cancel()
	e.writeMu.Lock()
	if st.jobs[j.id] != j {
		// A job already stopped or replaced; its actors' last words.
		e.writeMu.Unlock()
		return nil
	}
	if !e.restartsAlone(j) {
		if members, ok := e.region(j); ok {
			return e.regionFailed(j, members, named)
		}
		e.writeMu.Unlock()
		st.health.mu.Lock()
		if st.health.blamed == 0 {
			st.health.blamed, st.health.blame = j.id, named
		}
		st.health.mu.Unlock()
		// Not ctx: it ended with the job above.
		return st.drv.ActorFailed(st.health.ctx, actor, named)
	}
	st.dropJob(j.id)
	j.active = false
	e.unsubscribe(j)
	if len(j.job.Tables) > 0 && !notRetried(named) {
		// (A job failed for a privilege is not restarted: its view
		// keeps its committed rows until RESUME rebuilds it.)
		s := e.strategyOrDefault(j.rel)
		st.health.mu.Lock()
		h := st.health.entry(j.id, s)
		h.rebuild, h.truncAt = true, nil
		st.health.mu.Unlock()
	}
	e.writeMu.Unlock()
	sctx, cancel := context.WithTimeout(st.health.ctx, 10*time.Second)
	derr := st.drv.JobFailed(sctx, j.id, named)
	cancel()
	j.cancel()
	if derr != nil {
		return derr
	}
	e.scheduleRestart(j.rel, named)
	return nil
}

// decide applies rel's restart strategy to a failure now: it records the
// failure, logs it once, and returns the delay before the restart, or
// false when the job is out of attempts (then FAILED, and kept so).
func (e *Engine) decide(rel *catalog.Relation, err error, how restartHow) (time.Duration, uint64, bool) {
	t := e.st.health
	s := e.strategyOrDefault(rel)
	now := time.Now()
	t.mu.Lock()
	h := t.entry(types.JobID(rel.ID), s)
	d := h.restarts.Failed(now, t.rng.Float64())
	if notRetried(err) {
		// A lost privilege stays lost until a GRANT (job_privileges.go).
		d.Restart, d.Reason = false, reasonLostPrivilege
	}
	h.lastErr, h.cause = pgerr.As(err).Message, err
	kind := kindWords[rel.Kind]
	if !d.Restart {
		h.status = jobFailed
		h.lastErr = d.Reason + ": " + h.lastErr
		reason := h.lastErr
		t.mu.Unlock()
		b := e.db.NewBatch()
		defer b.Close()
		if err := b.SetMeta(metaJobFailed(types.JobID(rel.ID)), []byte(reason)); err == nil {
			_ = b.Commit()
		}
		e.log.Error("streaming job failed and is not restarted", strings.ReplaceAll(kind, " ", "_"), rel.Name,
			"reason", d.Reason, "err", err, "hint", fmt.Sprintf("ALTER %s %s RESUME", strings.ToUpper(kind), sql.QuoteIdent(rel.Name)))
		return 0, 0, false
	}
	h.count++
	h.status = jobRestarting
	h.nextAt = now.Add(d.Delay)
	h.gen++
	gen := h.gen
	t.mu.Unlock()
	args := []any{strings.ReplaceAll(kind, " ", "_"), rel.Name, "attempt", d.Attempt, "delay", d.Delay, "strategy", s.String(), "err", err}
	if d := causeDetail(err); d != "" {
		// A panic's stack, say.
		args = append(args, "detail", d)
	}
	e.log.Warn("streaming job failed, "+string(how), args...)
	return d.Delay, gen, true
}

// restartHow is how a failed job is restarted, as the log says it.
type restartHow string

const (
	restartAlone  restartHow = "restarting it alone"
	restartRegion restartHow = "restarting it with the jobs reading its output"
	restartAll    restartHow = "recovering every job from the last checkpoint"
)

// scheduleRestart decides about a failure of rel's job, which is
// stopped and out of the checkpoints, and restarts it after the delay.
func (e *Engine) scheduleRestart(rel *catalog.Relation, err error) {
	delay, gen, ok := e.decide(rel, err, restartAlone)
	if !ok {
		return
	}
	t := e.st.health
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	h := t.m[types.JobID(rel.ID)]
	if h.timer != nil {
		h.timer.Stop()
	}
	id := types.JobID(rel.ID)
	h.timer = time.AfterFunc(delay, func() { e.restartJob(id, gen) })
}

// restartJob starts job id again from its committed state, unless
// someone started it since the restart was scheduled (gen), and adds it
// to the checkpoints. A failure to rebuild it counts as a failure.
func (e *Engine) restartJob(id types.JobID, gen uint64) {
	st := e.st
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	t := st.health
	t.mu.Lock()
	h := t.m[id]
	ok := h != nil && h.gen == gen && h.status == jobRestarting && !t.stopped
	t.mu.Unlock()
	if !ok {
		return
	}
	rel, found := e.cat.ByID(uint32(id))
	if !found {
		t.forget(id)
		return
	}
	if !e.awaitTruncation(id) {
		return
	}
	if err := e.startAgain(rel); err != nil {
		e.scheduleRestart(rel, jobError(rel, err))
	}
}

// startAgain builds rel's job, from its committed state (or empty, to be
// rebuilt), and adds it to the checkpoints. It returns an error when the
// job cannot be built; nil also when a recovery started it meanwhile or
// the addition was cut short by a recovery or by the database closing.
func (e *Engine) startAgain(rel *catalog.Relation) error {
	st := e.st
	t := st.health
	id := types.JobID(rel.ID)
	e.writeMu.Lock()
	if st.jobs[id] != nil {
		// A recovery rebuilt it meanwhile.
		e.writeMu.Unlock()
		t.started(id)
		return nil
	}
	j, err := e.buildJob(rel)
	if err == nil {
		err = st.checkUpstreams(j)
	}
	if err != nil {
		e.writeMu.Unlock()
		return err
	}
	e.subscribe(j, false)
	st.setJob(j)
	e.writeMu.Unlock()
	t.started(id)
	e.runJob(j)
	if err := st.drv.AddJob(t.ctx, j.job.Spec()); err != nil {
		// A recovery under way rebuilds it, or the database is closing.
		e.log.Warn("adding a restarted job", kindWords[rel.Kind], rel.Name, "err", err)
		return nil
	}
	e.log.Info("streaming job restarted", strings.ReplaceAll(kindWords[rel.Kind], " ", "_"), rel.Name)
	e.watchRebuild(j, false)
	return nil
}

// JobRemoved implements checkpoint.JobRemover: a job to be rebuilt has
// its state dropped in the first checkpoint that leaves it out, the one
// in flight (epoch) or the next. Between them the job's committed state
// and its inputs' always agree: a crash before that commit finds the job
// as committed with the inputs it had seen, a crash after it finds the
// job empty, with a backfill to do.
func (io *streamIO) JobRemoved(job checkpoint.JobID, epoch uint64) {
	e := io.e
	st := e.st
	rel, ok := e.cat.ByID(uint32(job))
	if !ok {
		return
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	st.health.mu.Lock()
	h := st.health.m[job]
	if h == nil || !h.rebuild || h.truncAt != nil {
		st.health.mu.Unlock()
		return
	}
	target := st.cur
	if epoch != 0 && st.sealed != nil {
		// The Commit of epoch follows this call: its batch still takes
		// writes.
		target = st.sealed
	}
	h.truncAt = target
	st.health.mu.Unlock()
	for _, tid := range jobTables(rel) {
		if err := target.batch.DeleteRange(tid); err != nil {
			e.log.Error("dropping the state of a failed job", kindWords[rel.Kind], rel.Name, "err", err)
		}
	}
}

// jobTables returns every table of rel's job: the view's rows and its
// state tables (the backfill positions among them).
func jobTables(rel *catalog.Relation) []uint32 {
	ids := []uint32{}
	if materialized(rel) {
		ids = append(ids, rel.ID)
	}
	return append(ids, rel.StateTables...)
}

// awaitTruncation waits, for a job to be rebuilt, until the epoch
// dropping its state is committed. It returns false when that will not
// happen (a recovery discarded the epoch and rebuilds the job, or the
// database is closing).
func (e *Engine) awaitTruncation(id types.JobID) bool {
	t := e.st.health
	for {
		t.mu.Lock()
		h := t.m[id]
		var p *pendingEpoch
		rebuild := h != nil && h.rebuild
		if rebuild {
			p = h.truncAt
		}
		t.mu.Unlock()
		if !rebuild {
			return true
		}
		if p == nil {
			// The coordinator has not yet taken the job out.
			select {
			case <-time.After(10 * time.Millisecond):
				continue
			case <-t.ctx.Done():
				return false
			}
		}
		// Ask for the checkpoint rather than wait for a periodic one.
		go func() {
			ctx, cancel := context.WithTimeout(t.ctx, time.Minute)
			defer cancel()
			_ = e.st.drv.Barrier(ctx)
		}()
		select {
		case <-p.done:
			return p.err == nil
		case <-t.ctx.Done():
			return false
		}
	}
}

// dropForRebuild drops, during a recovery, the state of a job that was
// to be rebuilt and whose state the discarded epochs did not drop.
// Called under writeMu with no commit running.
func (e *Engine) dropForRebuild(rel *catalog.Relation) error {
	t := e.st.health
	t.mu.Lock()
	h := t.m[types.JobID(rel.ID)]
	needed := h != nil && h.rebuild
	t.mu.Unlock()
	if !needed {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	for _, tid := range jobTables(rel) {
		if err := b.DeleteRange(tid); err != nil {
			return err
		}
	}
	return b.Commit()
}

// watchRebuild marks a rebuilt job running once its backfill is done
// and committed.
// held says whether the caller holds writeMu.
func (e *Engine) watchRebuild(j *jobRun, held bool) {
	t := e.st.health
	// The job may have failed again since it was added: then its
	// failure's status (restarting, failed) stands.
	if !held {
		e.writeMu.Lock()
	}
	current := e.st.jobs[j.id] == j
	t.mu.Lock()
	h := t.m[j.id]
	rebuilding := current && h != nil && h.rebuild && h.status == jobRunning
	if rebuilding {
		h.status = jobRebuilding
	}
	t.mu.Unlock()
	if !held {
		e.writeMu.Unlock()
	}
	if !rebuilding {
		return
	}
	go func() {
		for {
			ctx, cancel := context.WithTimeout(t.ctx, time.Minute)
			err := e.st.drv.Barrier(ctx)
			cancel()
			if t.ctx.Err() != nil {
				return
			}
			e.writeMu.Lock()
			cur := e.st.jobs[j.id]
			e.writeMu.Unlock()
			if cur != j {
				return
			}
			if _, _, _, done := j.backfillState(); done && err == nil {
				t.mu.Lock()
				if h := t.m[j.id]; h != nil && h.status == jobRebuilding {
					h.status, h.rebuild, h.truncAt = jobRunning, false, nil
				}
				t.mu.Unlock()
				e.log.Info("streaming job rebuilt", strings.ReplaceAll(kindWords[j.rel.Kind], " ", "_"), j.rel.Name)
				return
			}
			select {
			case <-time.After(50 * time.Millisecond):
			case <-t.ctx.Done():
				return
			}
		}
	}()
}

// checkReadable fails with 55000 when a query reads a view being rebuilt
// after its job failed: its rows are only partly back.
func (e *Engine) checkReadable(deps []uint32) error {
	t := e.st.health
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range deps {
		if h := t.m[types.JobID(id)]; h != nil && h.rebuild && (h.status == jobRebuilding || h.status == jobFailed || h.truncAt != nil && h.truncAt.isCommitted()) {
			name := fmt.Sprintf("#%d", id)
			if rel, ok := e.cat.ByID(id); ok {
				name = rel.Name
			}
			if h.status == jobFailed {
				return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view \"%s\" is failed: its streaming job ran out of restart attempts while being rebuilt", name).
					WithDetail("%s", h.lastErr).
					WithHint("ALTER MATERIALIZED VIEW %s RESUME rebuilds it.", sql.QuoteIdent(name))
			}
			return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "materialized view \"%s\" is being rebuilt after its streaming job failed", name).
				WithDetail("Its rows are only partly back; weir.jobs shows its status and backfill progress.").
				WithHint("Retry the query when weir.jobs shows the job running.")
		}
	}
	return nil
}

// beforeRebuild is called by a recovery once every job is stopped and
// before they are rebuilt. When a job's failure caused the recovery, its
// restart strategy applies: the recovery waits the delay it decides (no
// job runs meanwhile, so nothing spins), or the job is FAILED and left
// out. It returns false when ctx ended while waiting.
func (e *Engine) beforeRebuild(ctx context.Context) bool {
	t := e.st.health
	t.mu.Lock()
	id, cause := t.blamed, t.blame
	t.blamed, t.blame = 0, nil
	t.mu.Unlock()
	if id == 0 {
		return true
	}
	rel, ok := e.cat.ByID(uint32(id))
	if !ok {
		return true
	}
	delay, _, restart := e.decide(rel, cause, restartAll)
	if !restart || delay <= 0 {
		return true
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	case <-t.ctx.Done():
		return false
	}
}

// resumeJob runs ALTER MATERIALIZED VIEW | SINK name RESUME: a FAILED
// job gets its attempts back and is started again. A job that restarts
// alone resumes from its committed state; a view fed by tables or views
// is rebuilt from their current contents (its state is dropped and
// backfilled, as by CREATE), since the changes it missed while FAILED
// are not kept. Errors: 42P01, 42809 for an object of another kind,
// 55000 for a job that is not FAILED, 0A000 for a sink fed by tables or
// views.
func (s *Session) resumeJob(ctx context.Context, kind, schema, name string, io wire.ExecIO) error {
	e := s.eng
	if err := e.ddlMu.lockContext(ctx); err != nil {
		return err
	}
	defer e.ddlMu.Unlock()
	rel, ok := e.cat.Lookup(schema, name)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "%s \"%s\" does not exist", kind, name)
	}
	if kindWords[rel.Kind] != kind {
		return pgerr.New(pgerr.WrongObjectType, "\"%s\" is not a %s", name, kind).
			WithHint("It is a %s.", kindWords[rel.Kind])
	}
	if rel.Unpopulated {
		// No job to resume: REFRESH starts one.
		return e.unpopulatedRelation(rel)
	}
	id := types.JobID(rel.ID)
	t := e.st.health
	t.mu.Lock()
	h := t.m[id]
	if h == nil || h.status != jobFailed {
		status := jobRunning
		if h != nil {
			status = h.status
		}
		t.mu.Unlock()
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the streaming job of %s \"%s\" is %s, not failed", kind, name, status).
			WithHint("RESUME restarts a job that ran out of restart attempts.")
	}
	t.mu.Unlock()
	if err := e.ownerMayRead(rel); err != nil {
		return pgerr.Wrap(pgerr.CodeOf(err), err, fmt.Sprintf("cannot resume %s \"%s\"", kind, name))
	}

	if err := e.writeMu.lockContext(ctx); err != nil {
		return err
	}
	if e.st.jobs[id] != nil {
		e.writeMu.Unlock()
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "the streaming job of %s \"%s\" is running", kind, name)
	}
	j, err := e.buildJob(rel)
	if err == nil {
		err = e.st.checkUpstreams(j)
	}
	if err != nil {
		e.writeMu.Unlock()
		return pgerr.Wrap(pgerr.CodeOf(err), err, fmt.Sprintf("cannot resume %s \"%s\"", kind, name))
	}
	fresh := len(j.job.Tables) > 0
	if fresh && rel.Kind == catalog.KindSink {
		e.writeMu.Unlock()
		j.cancel()
		return pgerr.New(pgerr.FeatureNotSupported, "cannot resume sink \"%s\": it reads tables or views whose changes while it was failed are not kept", name).
			WithHint("Drop the sink and create it again (its snapshot option decides whether the current contents are delivered).")
	}
	if fresh {
		// Rebuild from the inputs' current contents: drop every state
		// table of the job (the view's rows and its backfill positions
		// included), then build again so the operators start empty.
		j.cancel()
		b := e.db.NewBatch()
		defer b.Close()
		for _, tid := range append([]uint32{rel.ID}, rel.StateTables...) {
			if err := b.DeleteRange(tid); err != nil {
				e.writeMu.Unlock()
				return err
			}
		}
		if err := b.DeleteKey(storage.MetaKey(metaJobFailed(id))); err != nil {
			e.writeMu.Unlock()
			return err
		}
		if err := b.Commit(); err != nil {
			e.writeMu.Unlock()
			return err
		}
		if j, err = e.buildJob(rel); err != nil {
			e.writeMu.Unlock()
			return err
		}
	} else {
		b := e.db.NewBatch()
		defer b.Close()
		if err := b.DeleteKey(storage.MetaKey(metaJobFailed(id))); err == nil {
			_ = b.Commit()
		}
	}
	t.mu.Lock()
	h.restarts.Reset()
	h.status, h.gen = jobRunning, h.gen+1
	h.rebuild, h.truncAt = false, nil
	t.mu.Unlock()
	e.subscribe(j, false)
	e.st.setJob(j)
	e.writeMu.Unlock()
	e.runJob(j)
	if err := e.addJob(ctx, j); err != nil {
		return err
	}
	if fresh && materialized(rel) {
		return e.awaitBackfill(ctx, j, io)
	}
	e.log.Info("streaming job resumed", strings.ReplaceAll(kind, " ", "_"), name)
	return nil
}

// broken records that a recovery could not rebuild rel's job (a view it
// reads is FAILED, say): it is FAILED too, for this run of the server.
func (t *jobHealthTable) broken(e *Engine, rel *catalog.Relation, err error) {
	s := e.strategyOrDefault(rel)
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(types.JobID(rel.ID), s)
	h.status, h.lastErr = jobFailed, "cannot be rebuilt: "+pgerr.As(err).Message
}

// forgetJobHealth drops what is known of job id's failures (its view or
// sink is dropped).
func (e *Engine) forgetJobHealth(id types.JobID) {
	e.st.health.forget(id)
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.DeleteKey(storage.MetaKey(metaJobFailed(id))); err == nil {
		_ = b.Commit()
	}
}

// isCommitted reports whether the epoch committed.
func (p *pendingEpoch) isCommitted() bool {
	err, ok := p.result()
	return ok && err == nil
}

// unsubscribe removes j from the relays of the views it reads. Called
// under writeMu.
func (e *Engine) unsubscribe(j *jobRun) {
	for _, t := range j.job.Tables {
		up := e.st.jobs[types.JobID(t.Rel.ID)]
		if up == nil {
			continue
		}
		up.subMu.Lock()
		up.subs = slices.DeleteFunc(up.subs, func(s *jobRun) bool { return s == j })
		if up.pending[j.id] == j {
			delete(up.pending, j.id)
		}
		up.subMu.Unlock()
	}
}

// deliver runs send, a push of the view's changes or barriers to sub,
// with a context that ends when either job stops. It returns false when
// the view's own job stopped (its relay ends); a subscriber that stopped
// (it failed, and restarts on its own) is dropped and the relay goes on.
func (j *jobRun) deliver(sub *jobRun, send func(context.Context) error) bool {
	ctx, cancel := context.WithCancel(j.ctx)
	stop := context.AfterFunc(sub.ctx, cancel)
	err := send(ctx)
	stop()
	cancel()
	if err == nil {
		return true
	}
	if j.ctx.Err() != nil {
		return false
	}
	j.subMu.Lock()
	j.subs = slices.DeleteFunc(j.subs, func(s *jobRun) bool { return s == sub })
	j.subMu.Unlock()
	return true
}

// causeDetail returns the first Detail found along err's chain.
func causeDetail(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if pe, ok := e.(*pgerr.Error); ok && pe.Detail != "" {
			return pe.Detail
		}
	}
	return ""
}

// failedInput returns an error (55000) when a new job would read a
// relation whose job is failed, directly or through plain views: that
// job sends no barriers, so the new job's first checkpoint, and with it
// every write of every session, would wait for it until the checkpoint
// timed out.
func (e *Engine) failedInput(deps []uint32) error {
	seen := map[uint32]bool{}
	var walk func(ids []uint32, depth int) error
	walk = func(ids []uint32, depth int) error {
		for _, id := range ids {
			if seen[id] || depth > 64 {
				continue
			}
			seen[id] = true
			r, ok := e.cat.ByID(id)
			if !ok {
				continue
			}
			if e.st.health.isFailed(types.JobID(id)) {
				return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" is failed", aclNoun(r.Kind), r.Name).
					WithDetail("Its job stopped: see last_error in weir.jobs.").
					WithHint("Bring it back with ALTER %s %s RESUME first.", strings.ToUpper(aclNoun(r.Kind)), sql.QuoteIdent(r.Name))
			}
			if r.Kind == catalog.KindView {
				if err := walk(r.Deps, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(deps, 0)
}

// JobsStalled implements checkpoint.StallHandler: each job holding up a
// checkpoint past tolerable_checkpoint_failures (its error recorded in
// weir.stream_errors) fails as if one of its
// actors had failed with err (jobFailed): alone, or with its region, and
// restarted by its restart strategy, so the checkpoint commits for every
// other job; a job that cannot fail alone recovers every job, as any
// failure of it does.
func (io *streamIO) JobsStalled(jobs []checkpoint.JobID, err error) {
	e := io.e
	for _, id := range jobs {
		e.writeMu.Lock()
		j := e.st.jobs[types.JobID(id)]
		e.writeMu.Unlock()
		if j == nil {
			continue
		}
		// weir.stream_errors shows it with its SQLSTATE, weir.jobs as
		// the job's last error.
		e.st.errs.Record(j.id, "checkpoint", err)
		if ferr := e.jobFailed(e.st.health.ctx, j, 0, err); ferr != nil {
			e.log.Error("failing a stalled streaming job", kindWords[j.rel.Kind], j.rel.Name, "err", ferr)
		}
	}
}

var _ checkpoint.StallHandler = (*streamIO)(nil)
