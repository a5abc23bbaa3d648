package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/executor/stream"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
	"github.com/weirdb/weir/wire"
)

// This file holds the streaming side of the engine: the checkpoint
// driver and its IO (inject, commit, recover), the running jobs of the
// materialized views, and the epochs that DML statements write into.
//
// Writes and epochs. A DML statement computes its changes under
// writeMu against the tables' committed state plus the changes of
// earlier statements not yet committed (view), appends them to the open
// epoch (cur) and pushes them, as chunks, to every job that reads the
// table. Then it asks for a barrier and waits until the epoch holding its
// changes is committed. Inject seals cur as the epoch of the barrier
// under writeMu, so a statement's changes fall into exactly one epoch on
// every job and in the table's storage. Commit writes every actor's
// write set, the sealed epoch's table writes and the committed epoch in
// one synced Pebble batch: the tables and every view change together, so
// a snapshot read (SELECT) sees them all at one epoch.
//
// Views over views. A job's output (its Materialize's changes and the
// barriers behind them) is relayed into the table inputs of the jobs
// that read the view; those inputs get their barriers from the relay, not
// from Inject, so a downstream job sees an epoch's changes of the view
// before that epoch's barrier. A new downstream job is subscribed when
// its AddJob barrier passes the relay, and unsubscribed after its StopJob
// barrier, as RisingWave's dispatcher mutations do.

// Stream defaults.
const (
	// defaultBarrierInterval is barrier_interval_ms's default.
	defaultBarrierInterval = time.Second
	// metaBarrierInterval is the meta entry holding barrier_interval_ms
	// as set by ALTER SYSTEM (decimal milliseconds).
	metaBarrierInterval = "system/barrier_interval_ms"
)

// pendingEpoch is the table writes of one epoch not yet committed: the
// open epoch (cur) or the sealed one whose checkpoint is in flight.
type pendingEpoch struct {
	batch *storage.Batch
	// tables holds the tables DML wrote in the epoch (guarded by
	// writeMu): an index on any other table agrees with the view DML
	// reads (viewSource.IndexUsable).
	tables map[uint32]bool
	// done is closed once the epoch is committed (err nil) or discarded
	// by a recovery (err set).
	done chan struct{}
	err  error
	// epoch is the epoch's number once a barrier sealed it (0 before):
	// atomic, so a statement that stops waiting for it can name it
	// without writeMu, which a commit may hold.
	epoch atomic.Uint64
	// lastLSN is the LSN of the last redo record of the epoch's
	// statements (0: none), which its checkpoint truncates the log to;
	// unlogged is set once a statement committed into it without a
	// record (redo.go). Guarded by writeMu.
	lastLSN  uint64
	unlogged bool
}

func newPendingEpoch(db *storage.DB) *pendingEpoch {
	// Only written and applied, never read: no index.
	return &pendingEpoch{batch: db.NewWriteBatch(), done: make(chan struct{}), tables: map[uint32]bool{}}
}

func (p *pendingEpoch) finish(err error) {
	select {
	case <-p.done:
		return
	default:
	}
	p.err = err
	close(p.done)
	p.batch.Close()
	if err != nil {
		// The epoch's DML spill areas will not be committed.
		for _, a := range p.batch.Areas() {
			_ = a.Discard()
		}
	}
}

// result reports the epoch's outcome once it is known: nil when
// committed, the discard error otherwise, and false while neither.
func (p *pendingEpoch) result() (error, bool) {
	select {
	case <-p.done:
		return p.err, true
	default:
		return nil, false
	}
}

// errNotCommitted is what a statement whose epoch was discarded by a
// recovery returns.
func errNotCommitted(cause error) error {
	e := pgerr.New(pgerr.IOError, "the changes were not committed: the checkpoint failed and the database recovered")
	if cause != nil {
		// A cause that asks for a retry (40001: a rescale restarted the
		// jobs) keeps its code, so clients that retry on it do.
		code := pgerr.IOError
		if pgerr.CodeOf(cause) == pgerr.SerializationFailure {
			code = pgerr.SerializationFailure
		}
		e = pgerr.Wrap(code, cause, "the changes were not committed")
	}
	e.Hint = "Retry the statement."
	return e
}

// jobRun is one running job: the dataflow of a materialized view, of a
// table fed by a connector, or of a sink.
type jobRun struct {
	id  types.JobID
	rel *catalog.Relation
	// root is the plan's root: a *planner.StreamMaterialize (mat, whose
	// changes readers of the relation receive) or a *planner.StreamSink.
	root planner.StreamNode
	mat  *planner.StreamMaterialize
	job  *stream.Job
	out  stream.Operator

	ctx    context.Context
	cancel context.CancelFunc
	// ended is closed once every actor and the relay have returned.
	ended chan struct{}
	// active: the job gets DML changes and injected barriers (set under
	// writeMu when its AddJob barrier is injected, or at recovery).
	active bool

	// subMu guards the relay's subscribers: the jobs reading this view.
	subMu   sync.Mutex
	subs    []*jobRun
	pending map[types.JobID]*jobRun // subscribe at their AddJob barrier

	// progress is the latest backfill report per (actor, relation).
	progMu   sync.Mutex
	progress map[[2]uint32]stream.BackfillProgress
	// backfillFrom is when the first backfill report arrived (the
	// backfill's first barrier), backfillTo when every reporting actor
	// was done; zero until then.
	backfillFrom, backfillTo time.Time
	// readable is set once the view's backfill is known complete and
	// committed (see awaitReadable).
	readable atomic.Bool

	// wmMu guards wms, the view's watermarks per view column: the
	// highest the relay has passed on (or the committed ones it started
	// from), sent again to the readers ahead of every barrier, and
	// stored with the checkpoints (view_watermark.go). stored is the
	// value written last, per column.
	wmMu   sync.Mutex
	wms    map[int]types.Watermark
	stored map[int]int64
}

// streams is the engine's streaming state.
type streams struct {
	drv    *checkpoint.Driver
	cancel context.CancelFunc
	// running is the driver's context, done once the engine stops its
	// checkpoints (pastCancel).
	running context.Context
	wg      sync.WaitGroup
	cache   *storage.Cache
	errs    *streamErrors

	nextActor atomic.Uint32
	// ready is closed after the first recovery (start-up) is done.
	ready     chan struct{}
	readyOnce sync.Once

	// ioMu is held (shared) by Commit and Recover, which the driver runs
	// in goroutines of their own, and exclusively by stopStreams, so that
	// no commit or rebuild runs once the database is being closed.
	ioMu    sync.RWMutex
	closing bool

	committed atomic.Uint64   // last committed epoch
	interval  atomic.Int64    // barrier_interval_ms
	sys       *systemValues   // ALTER SYSTEM settings (system_settings.go)
	health    *jobHealthTable // failed and restarting jobs (job_restart.go)
	// sinkRuns counts the sink jobs whose actors run (from runJob until
	// they have ended): only they need to hear of a committed epoch.
	sinkRuns atomic.Int32

	// lastLogged is the epoch of the last statement acknowledged through
	// the redo log (nil: none yet), which reads wait for (readFence);
	// catalogChanges counts the statements changing the catalog, which
	// hold that path shut (quiesceRedo).
	lastLogged     atomic.Pointer[pendingEpoch]
	catalogChanges atomic.Int32

	// The fields below are guarded by Engine.writeMu.
	// lsn is the last redo log sequence number handed out.
	lsn uint64
	// batched holds, per table, the changes of statements committed
	// through the redo log not yet sent to the jobs (batchChanges).
	batched map[uint32]*types.Chunk
	// jobs are the running jobs; they change only through setJob,
	// dropJob and resetJobs, which count the changes in jobsGen.
	jobs    map[types.JobID]*jobRun
	jobsGen uint64
	// redoShut caches, for one jobsGen and catalog generation, the tables
	// whose statements cannot commit through the redo log because of the
	// jobs reading them (redoShutTables).
	redoShut struct {
		jobsGen, catGen uint64
		tables          map[uint32]bool
		valid           bool
	}
	cur    *pendingEpoch
	sealed *pendingEpoch
	// view holds the writes of sealed and cur over the database: what DML
	// statements read.
	view *storage.Batch
	// initialized is false from a recovery until its Initial barrier is
	// injected: the rebuilt jobs must see that barrier first, so changes
	// written meanwhile are held and pushed right after it (they belong to
	// the epoch after the Initial one, which carries no changes).
	initialized bool
	held        heldState
}

// startStreams starts the checkpoint driver; its first action is the
// recovery that rebuilds every job from the catalog.
func (e *Engine) startStreams() error {
	committed, err := e.db.CommittedEpoch()
	if err != nil {
		return err
	}
	interval := defaultBarrierInterval
	if v, ok, err := e.db.Meta(metaBarrierInterval); err == nil && ok {
		if ms, err := strconv.Atoi(string(v)); err == nil && ms > 0 {
			interval = time.Duration(ms) * time.Millisecond
		}
	}
	st := &streams{
		cache: storage.NewCache(storage.BudgetShares(e.cfg.MemoryBudget()).State),
		errs:  newStreamErrors(e.log),
		ready: make(chan struct{}),
		jobs:  map[types.JobID]*jobRun{},
	}
	st.committed.Store(committed)
	if st.lsn, err = e.db.LastRedoLSN(); err != nil {
		return err
	}
	st.interval.Store(interval.Milliseconds())
	st.sys = e.loadSystemValues()
	st.health = newJobHealthTable()
	st.cur = newPendingEpoch(e.db)
	st.view = e.db.NewBatch()
	e.st = st
	e.loadFailedJobs()
	st.drv = checkpoint.NewDriver(st.sys.checkpointConfig(streamCheckpointConfig(interval, committed)), &streamIO{e: e}, e.log)
	ctx, cancel := context.WithCancel(context.Background())
	st.cancel, st.running = cancel, ctx
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		_ = st.drv.Run(ctx)
	}()
	select {
	case <-st.ready:
	case <-time.After(5 * time.Minute):
		return pgerr.New(pgerr.InternalError, "streaming jobs did not start within 5 minutes")
	}
	return nil
}

// streamCheckpointConfig is the coordinator's configuration before the
// settings ALTER SYSTEM changes are applied. It sets no MinPause: a
// barrier DML asks for is injected as soon as no checkpoint is in
// flight, so a single session's INSERT waits for one trip through the
// dataflows and one fsync, not for a timer. Writers still share fsyncs:
// those arriving while a checkpoint is in flight share the next one.
func streamCheckpointConfig(interval time.Duration, committed uint64) checkpoint.Config {
	return checkpoint.Config{Interval: interval, CommittedEpoch: committed}
}

// stopStreams stops the driver and every job.
func (e *Engine) stopStreams() {
	st := e.st
	if st == nil {
		return
	}
	st.health.stop()
	st.cancel()
	st.wg.Wait()
	st.ioMu.Lock()
	st.closing = true
	st.ioMu.Unlock()
	e.writeMu.Lock()
	jobs := st.jobs
	st.resetJobs()
	e.writeMu.Unlock()
	for _, j := range jobs {
		j.cancel()
	}
	for _, j := range jobs {
		<-j.ended
	}
	e.writeMu.Lock()
	closed := errors.New("the server is shutting down")
	if st.sealed != nil {
		st.sealed.finish(closed)
	}
	st.cur.finish(closed)
	st.view.Close()
	e.writeMu.Unlock()
}

// waitCommitted asks for a barrier and waits until the epoch p (holding
// the caller's writes) is committed. When ctx ends first it returns its
// error, though writes already in p still commit with it: a statement
// waiting for its own applied writes goes through Session.waitApplied.
func (e *Engine) waitCommitted(ctx context.Context, p *pendingEpoch) (err error) {
	defer e.obs.dmlWaited(time.Now(), &err)
	for {
		if err, ok := p.result(); ok {
			if err != nil {
				return errNotCommitted(err)
			}
			return nil
		}
		// The commit closes p.done before it tells the coordinator, so
		// the statement resumes from the committing goroutine.
		committed := func() bool { res, ok := p.result(); return ok && res == nil }
		if err := e.st.drv.BarrierUntil(ctx, p.done, committed); err != nil {
			if res, ok := p.result(); ok && res == nil {
				// The epoch committed before a later checkpoint failed.
				return nil
			}
			return err
		}
	}
}

// streamIO implements checkpoint.IO over the engine.
type streamIO struct{ e *Engine }

// Inject seals the open epoch as the barrier's and delivers the barrier
// to every active job's table inputs (views' inputs get it through their
// relays).
func (io *streamIO) Inject(b checkpoint.InjectBarrier) {
	e := io.e
	e.ckpt.inject(b.Barrier.Epoch.Curr, time.Now())
	st := e.st
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	// The epoch's batched changes reach the jobs ahead of its barrier.
	if err := e.flushBatched(); err != nil {
		e.log.Error("sending batched changes to the jobs", "err", err)
	}
	if st.sealed != nil {
		// Cannot happen: one checkpoint is in flight at a time, and a
		// commit either clears sealed or fails into a recovery, which
		// discards it. Its statements fail rather than wait forever.
		e.log.Error("checkpoint injected while the previous epoch is not committed", "epoch", b.Barrier.Epoch.Curr)
		st.sealed.finish(errors.New("the previous epoch was not committed"))
	}
	initial := b.Barrier.Kind == types.BarrierInitial
	e.obs.checkpointInjected(b.Barrier.Epoch.Curr, initial, st.sortedJobs(), time.Now())
	if initial {
		// The Initial epoch is empty: what was written since the recovery
		// joins the next epoch, after the barrier.
		st.sealed = newPendingEpoch(e.db)
	} else {
		st.sealed = st.cur
		st.sealed.epoch.Store(b.Barrier.Epoch.Curr)
		st.cur = newPendingEpoch(e.db)
	}
	e.storeTableWatermarks(st.sealed.batch)
	e.storeViewWatermarks(st.sealed.batch)
	m := b.Barrier.Mutation
	if m.Kind == types.MutationAddJob {
		for _, j := range st.jobs {
			if m.Adds(j.id) {
				j.active = true
			}
		}
	}
	// A view's output goes to its relay once a job reads it or is being
	// added to read it (at this barrier or a later one): from this
	// barrier on. Decided under writeMu, which every subscription holds,
	// and for every job before any gets the barrier, which reaches the
	// readers of views through their relays.
	for _, j := range st.jobs {
		if j.hasReaders() {
			j.job.TapFrom(b.Barrier.Epoch.Curr)
		}
	}
	for _, j := range st.sortedJobs() {
		if !j.active {
			continue
		}
		// The tables' watermarks go ahead of the barrier, except to jobs
		// whose first message this barrier is.
		if !initial && !m.Adds(j.id) {
			if err := e.injectTableWatermarks(j.ctx, j); err != nil && j.ctx.Err() == nil {
				e.log.Error("injecting watermarks", "job", j.rel.Name, "err", err)
			}
		}
		if err := j.job.Inject(j.ctx, b.Barrier); err != nil && j.ctx.Err() == nil {
			e.log.Error("injecting a barrier", "job", j.rel.Name, "err", err)
		}
	}
	if m.Kind == types.MutationStopJob {
		if j := st.jobs[m.Job.ID]; j != nil {
			j.active = false
		}
	}
	if initial {
		st.initialized = true
		e.replayHeld()
	}
}

// setJob records j as a running job.
func (st *streams) setJob(j *jobRun) {
	st.jobs[j.id] = j
	st.jobsGen++
}

// dropJob forgets the running job id.
func (st *streams) dropJob(id types.JobID) {
	delete(st.jobs, id)
	st.jobsGen++
}

// resetJobs forgets every running job.
func (st *streams) resetJobs() {
	st.jobs = map[types.JobID]*jobRun{}
	st.jobsGen++
}

func (st *streams) sortedJobs() []*jobRun {
	js := make([]*jobRun, 0, len(st.jobs))
	for _, j := range st.jobs {
		js = append(js, j)
	}
	slices.SortFunc(js, func(a, b *jobRun) int { return int(a.id) - int(b.id) })
	return js
}

// Commit writes every actor's write set, the epoch's table writes and
// the committed epoch in one synced batch.
func (io *streamIO) Commit(ctx context.Context, epoch uint64, writeSets []checkpoint.ActorWriteSet) error {
	e := io.e
	st := e.st
	st.ioMu.RLock()
	defer st.ioMu.RUnlock()
	defer func() {
		for _, w := range writeSets {
			if b, ok := w.WriteSet.(*storage.Batch); ok {
				b.Close()
			}
		}
	}()
	if st.closing {
		return errors.New("the server is shutting down")
	}
	if err := beforeCheckpointCommit(); err != nil {
		return err
	}
	e.writeMu.Lock()
	sealed := st.sealed
	// An epoch with DML spill areas holds writeMu until the view no
	// longer reads them: the commit moves them into their tables, and the
	// view puts its other writes of those tables under them, so in
	// between it would read the table's older writes over the moved
	// rows.
	moves := sealed != nil && len(sealed.batch.Areas()) > 0
	if !moves {
		e.writeMu.Unlock()
	}
	locked := moves
	defer func() {
		if locked {
			e.writeMu.Unlock()
		}
	}()
	// The batch is only applied and committed, never read. The largest
	// write set is the batch when it has room for all the others (an
	// actor's write set has room to spare, see Actor): merging then
	// copies only the smaller ones. Otherwise a batch sized for all the
	// write sets is, so that merging them copies each once. The write
	// sets of one epoch write keys of their own actors, so the order
	// they are merged in does not matter; the DML batch comes last.
	size := 0
	var largest *storage.Batch
	for _, w := range writeSets {
		if b, ok := w.WriteSet.(*storage.Batch); ok && b != nil {
			size += b.Bytes()
			if largest == nil || b.Bytes() > largest.Bytes() {
				largest = b
			}
		}
	}
	if sealed != nil {
		size += sealed.batch.Bytes()
	}
	var batch *storage.Batch
	if largest != nil && largest.Room() >= size-largest.Bytes() {
		batch = largest
	} else {
		batch = e.db.NewWriteBatchSize(size)
	}
	defer batch.Close()
	// The batch counts in the state's budget as the write sets do, and
	// each write set, once copied into it, is let go at once rather
	// than held through the commit.
	batch.Account(st.cache)
	for _, w := range writeSets {
		b, ok := w.WriteSet.(*storage.Batch)
		if !ok || b == nil || b == batch {
			continue
		}
		if err := batch.Apply(b); err != nil {
			return err
		}
		b.Close()
	}
	if sealed != nil {
		if err := batch.Apply(sealed.batch); err != nil {
			return err
		}
		if sealed.lastLSN > 0 {
			// The statements acknowledged through the redo log are in
			// the tables from now on.
			if err := batch.TruncateRedo(sealed.lastLSN); err != nil {
				return err
			}
		}
	}
	if err := batch.SetCommittedEpoch(epoch); err != nil {
		return err
	}
	committed := int64(batch.Bytes())
	if err := batch.Commit(); err != nil {
		return err
	}
	if sealed != nil && sealed.lastLSN > 0 {
		// The redo log's segments the checkpoint made obsolete.
		if err := e.db.DropRedo(sealed.lastLSN); err != nil {
			e.log.Warn("removing redo log segments", "err", err)
		}
	}
	if moves {
		if st.sealed == sealed {
			st.sealed = nil
		}
		if err := e.rebuildView(); err != nil {
			return err
		}
		locked = false
		e.writeMu.Unlock()
	}
	e.obs.checkpointCommitted(epoch, committed, time.Now())
	if e.conns.anyPending() {
		// The point of the protocol between the two commits is there only
		// while a sink transaction waits for its Kafka commit.
		fault.Hit(fault.CheckpointAfterCommit)
	}
	st.committed.Store(epoch)
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if st.sealed == sealed {
		st.sealed = nil
	}
	if err := e.rebuildView(); err != nil {
		return err
	}
	if sealed != nil {
		sealed.finish(nil)
	}
	return nil
}

// beforeCheckpointCommit is called as a checkpoint's commit starts; a
// test of this package replaces it to fail a checkpoint in the process.
var beforeCheckpointCommit = func() error { return nil }

// rebuildView makes the view DML reads the open epoch's writes over the
// database, once the sealed epoch's are in it. Called under writeMu.
func (e *Engine) rebuildView() error {
	st := e.st
	view := e.db.NewBatch()
	if err := view.Apply(st.cur.batch); err != nil {
		view.Close()
		return err
	}
	st.view.Close()
	st.view = view
	return nil
}

// Committed records the committed epoch; statements waiting for it are
// released by the driver.
func (io *streamIO) Committed(epoch uint64, m checkpoint.Mutation) {
	e := io.e
	e.ckpt.committed(epoch, time.Now())
	e.st.committed.Store(epoch)
	// Phase two of the sinks' two-phase commit. Not on the driver's
	// goroutine: writeMu may be held by a statement waiting on a job that
	// waits on the driver. A late notification is harmless: a sink
	// commits every transaction up to the epoch it is told. Without a
	// running sink there is no one to tell, and no goroutine to start
	// (a sink job counts from before its actors run, so before it can
	// prepare a transaction in any epoch).
	if e.st.sinkRuns.Load() == 0 {
		return
	}
	go func() {
		e.writeMu.Lock()
		jobs := e.st.sortedJobs()
		e.writeMu.Unlock()
		for _, j := range jobs {
			if _, ok := j.root.(*planner.StreamSink); ok {
				j.job.Committed(epoch)
			}
		}
	}()
}

// Recover stops every job, discards the writes of epochs that did not
// commit, and rebuilds every materialized view's job from the catalog,
// with its state as of the committed epoch.
func (io *streamIO) Recover(ctx context.Context, fromEpoch uint64, cause error) ([]checkpoint.Job, error) {
	jobs, err := io.rebuild(ctx, fromEpoch, cause)
	if err == nil {
		// A test's hold point keeps the jobs waiting for their Initial
		// barrier, and DML held meanwhile (held.go).
		err = holdBeforeInitialBarrier(ctx)
	}
	return jobs, err
}

// holdBeforeInitialBarrier is the hold point of Recover; a test of this
// package replaces it to keep a recovery in that window in-process.
var holdBeforeInitialBarrier = func(ctx context.Context) error {
	return fault.Hold(ctx, fault.RecoveryBeforeInitialBarrier)
}

// rebuild is Recover up to the jobs' report to the coordinator.
func (io *streamIO) rebuild(ctx context.Context, fromEpoch uint64, cause error) ([]checkpoint.Job, error) {
	e := io.e
	st := e.st
	st.ioMu.RLock()
	defer st.ioMu.RUnlock()
	if st.closing {
		return nil, errors.New("the server is shutting down")
	}
	if cause != nil {
		e.log.Info("recovering streaming jobs", "from_epoch", fromEpoch, "cause", cause)
	}
	e.writeMu.Lock()
	old := st.jobs
	e.obs.recoveryStarted(cause, slices.Collect(maps.Keys(old)), time.Now())
	st.resetJobs()
	for _, j := range old {
		j.active = false
		j.cancel()
	}
	e.writeMu.Unlock()
	for _, j := range old {
		<-j.ended
	}
	if !e.beforeRebuild(ctx) {
		return nil, errors.New("the server is shutting down")
	}
	// No actor runs: the state tables' early flushes of the epochs that
	// did not commit are dropped, and a committed epoch whose move into
	// the tables failed is moved now.
	if err := e.db.ResolveSpills(); err != nil {
		return nil, err
	}

	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	discard := cause
	if discard == nil {
		discard = errors.New("recovery")
	}
	if st.sealed != nil {
		st.sealed.finish(discard)
		st.sealed = nil
	}
	st.cur.finish(discard)
	st.cur = newPendingEpoch(e.db)
	// The discarded epoch's batched changes; the redo log's records
	// bring back those of acknowledged statements.
	st.batched = nil
	st.view.Close()
	st.view = e.db.NewBatch()
	// A unique index created in a discarded epoch lost its key store
	// with it.
	if err := e.rebuildUniqueStores(); err != nil {
		return nil, err
	}
	st.initialized = false
	e.discardHeld()
	e.reloadTableWatermarks()
	// The acknowledged statements of the discarded epochs (or of the
	// epochs a crash lost) are applied again.
	if err := e.replayRedo(); err != nil {
		return nil, err
	}

	var specs []checkpoint.Job
	rels := e.cat.All()
	slices.SortFunc(rels, func(a, b *catalog.Relation) int { return int(a.ID) - int(b.ID) })
	for _, rel := range rels {
		if !hasJob(rel) || st.health.isFailed(types.JobID(rel.ID)) {
			continue
		}
		if err := e.dropForRebuild(rel); err != nil {
			return nil, err
		}
		j, err := e.buildJob(rel)
		if err == nil {
			err = st.checkUpstreams(j)
		}
		if err != nil {
			e.log.Error("cannot rebuild a streaming job", "relation", rel.Name, "kind", kindWords[rel.Kind], "err", err)
			st.errs.Record(types.JobID(rel.ID), "build", err)
			st.health.broken(e, rel, err)
			e.obs.jobFailed(types.JobID(rel.ID), err, time.Now())
			continue
		}
		st.health.started(j.id)
		j.active = true
		e.subscribe(j, true)
		st.setJob(j)
		e.watchRebuild(j, true)
		specs = append(specs, j.job.Spec())
	}
	for _, j := range st.sortedJobs() {
		e.runJob(j)
	}
	st.readyOnce.Do(func() { close(st.ready) })
	return specs, nil
}

// checkUpstreams fails when a view the job reads has no running job (its
// rebuild failed): the job would never see a barrier on that input.
func (st *streams) checkUpstreams(j *jobRun) error {
	for _, t := range j.job.Tables {
		if hasJob(t.Rel) && st.jobs[types.JobID(t.Rel.ID)] == nil {
			return pgerr.New(pgerr.DependentObjectsStillExist, "%s \"%s\" it reads has no running job", kindWords[t.Rel.Kind], t.Rel.Name)
		}
	}
	return nil
}

// hasJob reports whether rel is maintained by a streaming job of its
// own: a materialized view (not an unpopulated one, nor an index on
// one), a table fed by a connector, or a sink.
func hasJob(rel *catalog.Relation) bool {
	return materialized(rel) && !rel.Unpopulated || rel.Kind == catalog.KindSink ||
		rel.Kind == catalog.KindTable && planner.HasConnector(rel)
}

// materialized reports whether rel is kept by a job from its query over
// other relations into rows of its own: a materialized view, or an index
// (a view of its relation's index columns and key, planned like one).
func materialized(rel *catalog.Relation) bool {
	return rel.Kind == catalog.KindMView || rel.Kind == catalog.KindIndex
}

// relayed reports whether readers of rel get its changes from its job's
// output (a view, or a table fed by a connector) rather than from DML.
func relayed(rel *catalog.Relation) bool {
	return hasJob(rel) && rel.Kind != catalog.KindSink && rel.Kind != catalog.KindIndex
}

// buildJob plans and builds the job of rel (not yet running). The plan's
// state table ids are the ones recorded in the catalog when the relation
// was created.
func (e *Engine) buildJob(rel *catalog.Relation) (*jobRun, error) {
	var root planner.StreamNode
	var err error
	switch {
	case materialized(rel):
		root, err = e.planView(rel)
	case rel.Kind == catalog.KindSink:
		root, err = e.planSinkRel(rel)
	default:
		root, err = planConnectorTable(rel)
	}
	if err == nil {
		err = checkStateLayout(rel, root)
	}
	if err != nil {
		return nil, err
	}
	return e.newJob(rel, root)
}

// replayAlloc returns a state table id allocator that hands out rel's
// recorded ids in order, and a check that all were used: a plan with
// another number of state tables than the catalog records (planned by a
// weir that plans rel differently) is refused with 55000.
func replayAlloc(rel *catalog.Relation) (alloc func() uint32, check func() error) {
	next := 0
	alloc = func() uint32 {
		next++
		if next <= len(rel.StateTables) {
			return rel.StateTables[next-1]
		}
		return 0
	}
	check = func() error {
		if next != len(rel.StateTables) {
			return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "%s \"%s\" cannot run on this weir: its plan has %d state tables, the catalog records %d", kindWords[rel.Kind], rel.Name, next, len(rel.StateTables)).
				WithHint("Run the weir version that created it, or drop and create it again.")
		}
		return nil
	}
	return alloc, check
}

// planConnectorTable plans the job of a table fed by a connector.
func planConnectorTable(rel *catalog.Relation) (*planner.StreamMaterialize, error) {
	alloc, check := replayAlloc(rel)
	return planConnectorTableAlloc(rel, alloc, check)
}

// planConnectorTableAlloc is planConnectorTable taking its state table
// ids from alloc, and check's verdict on them.
func planConnectorTableAlloc(rel *catalog.Relation, alloc func() uint32, check func() error) (*planner.StreamMaterialize, error) {
	root, err := planner.PlanConnectorTable(rel, alloc)
	if err != nil {
		return nil, err
	}
	return root, check()
}

// planView binds rel's query and plans it into a stream plan whose state
// table ids replay rel.StateTables.
func (e *Engine) planView(rel *catalog.Relation) (*planner.StreamMaterialize, error) {
	return e.planViewOver(rel, nil)
}

// planViewOver is planView seeing the relations of over in place of the
// catalog's.
func (e *Engine) planViewOver(rel *catalog.Relation, over map[uint32]*catalog.Relation) (*planner.StreamMaterialize, error) {
	alloc, check := replayAlloc(rel)
	return e.planViewAlloc(rel, over, alloc, check)
}

// planViewAlloc is planViewOver taking its state table ids from alloc,
// and check's verdict on them.
func (e *Engine) planViewAlloc(rel *catalog.Relation, over map[uint32]*catalog.Relation, alloc func() uint32, check func() error) (*planner.StreamMaterialize, error) {
	q, err := parseQuery(rel.SQL)
	if err != nil {
		return nil, err
	}
	s := e.definitionSession(rel, over)
	b, err := planner.Bind(q, s.catalogView(), nil)
	if err != nil {
		return nil, err
	}
	mv := rel.Clone()
	root, err := planner.PlanStream(b.Plan, mv, alloc)
	if err != nil {
		return nil, err
	}
	assignScanStates(root, alloc)
	if err := check(); err != nil {
		return nil, err
	}
	// The catalog's relation (with its column names) is what the job
	// writes and downstream jobs read.
	root.Rel = rel
	return root, nil
}

// optBarrierAlignment is the view and sink option that, set to 'false',
// lets the job's multi-input operators skip barrier alignment
// (stream.Env.Unaligned): at-least-once processing for jobs whose inputs
// run at different speeds.
const optBarrierAlignment = "streaming.barrier_alignment"

// barrierAlignment reads streaming.barrier_alignment (true by default).
// Errors: 22023 for a value that is not a boolean.
func barrierAlignment(with map[string]string) (bool, error) {
	v, ok := with[optBarrierAlignment]
	if !ok {
		return true, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "1":
		return true, nil
	case "false", "off", "0":
		return false, nil
	}
	return false, pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", optBarrierAlignment, v).
		WithHint("Use 'true' (aligned barriers, the default) or 'false' (at-least-once).")
}

// newJob builds the actors of a planned job.
func (e *Engine) newJob(rel *catalog.Relation, root planner.StreamNode) (*jobRun, error) {
	st := e.st
	par := 0
	if v, ok := rel.With["streaming_parallelism"]; ok {
		par, _ = strconv.Atoi(v)
	}
	aligned, err := barrierAlignment(rel.With)
	if err != nil {
		return nil, err
	}
	mat, _ := root.(*planner.StreamMaterialize)
	j := &jobRun{
		id: types.JobID(rel.ID), rel: rel, root: root, mat: mat,
		ended:    make(chan struct{}),
		pending:  map[types.JobID]*jobRun{},
		progress: map[[2]uint32]stream.BackfillProgress{},
	}
	if err := e.loadViewWatermarks(j); err != nil {
		return nil, err
	}
	job, err := stream.Build(root, stream.Env{
		Job:         j.id,
		DB:          e.db,
		Cache:       st.cache,
		Sink:        jobBarrierSink{e, j},
		Errors:      st.errs,
		Eval:        &executor.EvalCtx{Context: functions.Context{Location: jobLocation(rel.With)}},
		Parallelism: par,
		NewActorID: func() (types.ActorID, error) {
			return types.ActorID(st.nextActor.Add(1)), nil
		},
		Progress:      j.report,
		OpenSource:    e.openSource,
		OpenSink:      e.openSink,
		Watermarks:    e.wms,
		Unaligned:     !aligned,
		Decoupling:    e.sinkDecoupling(),
		Now:           time.Now,
		ExpansionHold: e.expansionHold,
	})
	if err != nil {
		return nil, err
	}
	out, err := job.Output()
	if err != nil {
		return nil, err
	}
	j.job, j.out = job, out
	j.ctx, j.cancel = context.WithCancel(context.Background())
	return j, nil
}

func (j *jobRun) report(p stream.BackfillProgress) { j.reportAt(p, time.Now()) }

// reportAt records a backfill report that arrived at now.
func (j *jobRun) reportAt(p stream.BackfillProgress, now time.Time) {
	var relID uint32
	if p.Rel != nil {
		relID = p.Rel.ID
	}
	j.progMu.Lock()
	defer j.progMu.Unlock()
	j.progress[[2]uint32{uint32(p.Actor), relID}] = p
	if j.backfillFrom.IsZero() {
		j.backfillFrom = now
	}
	done := true
	for _, q := range j.progress {
		done = done && q.Done
	}
	if done && j.backfillTo.IsZero() {
		j.backfillTo = now
	}
}

// backfillTime is how long the job's backfill ran: until now while it
// runs, its whole duration once done; false when the job reported none.
func (j *jobRun) backfillTime(now time.Time) (time.Duration, bool) {
	j.progMu.Lock()
	defer j.progMu.Unlock()
	switch {
	case j.backfillFrom.IsZero():
		return 0, false
	case j.backfillTo.IsZero():
		return now.Sub(j.backfillFrom), true
	}
	return j.backfillTo.Sub(j.backfillFrom), true
}

// backfillState sums the job's backfill progress: rows read, estimated
// total, and whether every reporting actor is done.
func (j *jobRun) backfillState() (rows, total int64, reported int, done bool) {
	j.progMu.Lock()
	defer j.progMu.Unlock()
	done = true
	for _, p := range j.progress {
		rows += p.Rows
		total += p.Total
		done = done && p.Done
	}
	return rows, total, len(j.progress), done
}

// subscribe marks the job's inputs that read views as relayed and
// registers the job with the views' jobs: at once (recovery: every job
// starts with the Initial barrier) or at its AddJob barrier. Called
// under writeMu.
func (e *Engine) subscribe(j *jobRun, now bool) {
	for _, t := range j.job.Tables {
		if !relayed(t.Rel) {
			continue
		}
		t.Relayed = true
		up := e.st.jobs[types.JobID(t.Rel.ID)]
		if up == nil {
			continue
		}
		up.subMu.Lock()
		if now {
			if !slices.Contains(up.subs, j) {
				up.subs = append(up.subs, j)
			}
		} else {
			up.pending[j.id] = j
		}
		up.subMu.Unlock()
	}
}

// runJob starts the job's actors and its relay.
func (e *Engine) runJob(j *jobRun) {
	_, sink := j.root.(*planner.StreamSink)
	if sink {
		e.st.sinkRuns.Add(1)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := j.job.Run(j.ctx); err != nil && j.ctx.Err() == nil {
			// Logged where the failure is handled, with what follows.
			e.log.Debug("streaming job failed", "relation", j.rel.Name, "err", err)
		}
		// The relay may be blocked on an actor that ended.
		j.cancel()
	}()
	go func() {
		defer wg.Done()
		e.relay(j)
	}()
	go func() {
		wg.Wait()
		if sink {
			e.st.sinkRuns.Add(-1)
		}
		close(j.ended)
	}()
}

// relay forwards the job's output to the jobs that read its view, until
// the barrier stopping the job, or until the job is cancelled.
func (e *Engine) relay(j *jobRun) {
	for {
		msg, err := j.out.Next(j.ctx)
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if j.mat == nil {
				continue
			}
			c := j.project(m)
			for _, sub := range j.subscribers() {
				if !j.deliver(sub, func(ctx context.Context) error { return sub.job.PushDML(ctx, j.rel.ID, c) }) {
					return
				}
			}
		case types.Barrier:
			// The view's watermarks go ahead of the barrier to the readers
			// that had one already (a reader's first message is its first
			// barrier), so that one created since they last moved, or one
			// that has just finished its backfill, gets them too.
			if m.Kind != types.BarrierInitial {
				if wms := j.watermarks(); len(wms) > 0 {
					for _, sub := range j.subscribers() {
						for _, w := range wms {
							if !j.deliver(sub, func(ctx context.Context) error { return sub.injectRelayed(ctx, j.rel.ID, w) }) {
								return
							}
						}
					}
				}
			}
			j.subMu.Lock()
			if m.Mutation.Kind == types.MutationAddJob {
				for _, id := range slices.Sorted(maps.Keys(j.pending)) {
					if m.Mutation.Adds(id) {
						j.subs = append(j.subs, j.pending[id])
						delete(j.pending, id)
					}
				}
			}
			subs := slices.Clone(j.subs)
			j.subMu.Unlock()
			for _, sub := range subs {
				if !j.deliver(sub, func(ctx context.Context) error { return sub.injectRelayed(ctx, j.rel.ID, m) }) {
					return
				}
			}
			if m.Mutation.Kind == types.MutationStopJob {
				j.subMu.Lock()
				j.subs = slices.DeleteFunc(j.subs, func(s *jobRun) bool { return s.id == m.Mutation.Job.ID })
				j.subMu.Unlock()
				if m.Mutation.Job.ID == j.id {
					return
				}
			}
		case types.Watermark:
			// Watermarks are in the Materialize input's columns; readers
			// of the view get them on the view's columns.
			if j.mat == nil {
				continue
			}
			for col, in := range j.mat.Cols {
				if in != m.Col {
					continue
				}
				w := m
				w.Col = col
				if !j.raiseWatermark(w) {
					continue
				}
				for _, sub := range j.subscribers() {
					if !j.deliver(sub, func(ctx context.Context) error { return sub.injectRelayed(ctx, j.rel.ID, w) }) {
						return
					}
				}
			}
		}
	}
}

// hasReaders reports whether a job reads the view or is being added to
// read it.
func (j *jobRun) hasReaders() bool {
	j.subMu.Lock()
	defer j.subMu.Unlock()
	return len(j.subs) > 0 || len(j.pending) > 0
}

func (j *jobRun) subscribers() []*jobRun {
	j.subMu.Lock()
	defer j.subMu.Unlock()
	return slices.Clone(j.subs)
}

// injectRelayed delivers a barrier or watermark relayed from view relID
// to the job's inputs reading it.
func (j *jobRun) injectRelayed(ctx context.Context, relID uint32, b types.Message) error {
	for _, t := range j.job.Tables {
		if t.Rel.ID == relID && t.Relayed {
			if err := t.Inject(ctx, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// project maps a chunk of the Materialize's input to the view's columns
// (the rows as stored), which is what readers of the view receive.
func (j *jobRun) project(c *types.Chunk) *types.Chunk {
	vecs := make([]*types.Vec, len(j.mat.Cols))
	for i, src := range j.mat.Cols {
		vecs[i] = c.Cols[src]
	}
	out := types.NewChunkFromVecs(vecs, c.Len())
	out.Ops, out.Vis = c.Ops, c.Vis
	return out
}

// pushChanges sends a statement's changes of table relID to every active
// job that reads the table. Called under writeMu, after the changes
// joined the open epoch: a push is never abandoned halfway for the
// statement's sake (a cancelled statement would leave the views and the
// table apart), only when the job stops, and then a recovery discards
// the epoch.
func (e *Engine) pushChanges(relID uint32, chunks []*types.Chunk) error {
	if !e.st.initialized {
		e.hold(relID, chunks)
		return nil
	}
	for _, j := range e.st.sortedJobs() {
		if !j.active || !j.job.Scans(relID) {
			continue
		}
		for _, c := range chunks {
			if err := j.job.PushDML(j.ctx, relID, c); err != nil {
				if j.ctx.Err() != nil {
					// The job failed: a restart rebuilds it from the
					// table, or a recovery discards this epoch (and the
					// statement learns it from the epoch's outcome).
					break
				}
				return errNotCommitted(fmt.Errorf("the job of %s stopped", j.rel.Name))
			}
		}
	}
	return nil
}

// parseQuery parses a view's stored query text.
func parseQuery(text string) (*sql.Query, error) {
	stmt, err := sql.ParseDefinition(text)
	if err != nil {
		return nil, err
	}
	q, ok := stmt.(*sql.Query)
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "the stored definition is not a query: %T", stmt)
	}
	return q, nil
}

// internalSession is the session the engine binds stored queries in. It
// has the built-in defaults, not those of ALTER SYSTEM: a stored
// definition means at every start what it meant when it was made.
func (e *Engine) internalSession() *Session {
	s := newSession(e, wire.StartupParams{User: "root", Database: "dev"})
	s.builtinDefaults, s.loc, s.internal = true, time.UTC, true
	return s
}

// definitionSession is the session the stored definition of rel is
// bound in: it sees the tables rel pins as rel was bound against them
// (catalog.Relation.DepCols), and the relations of over in place of the
// catalog's.
func (e *Engine) definitionSession(rel *catalog.Relation, over map[uint32]*catalog.Relation) *Session {
	s := e.internalSession()
	s.pins, s.over = rel.DepCols, over
	s.schemaFirst = rel.With[catalog.SearchSchemaOption]
	// Its names mean what they meant under the search path it was
	// created with.
	s.vars["search_path"] = definitionPath(rel.SearchPath)
	if len(rel.Funcs) > 0 {
		s.funcPins = map[uint32]*catalog.Function{}
		for _, f := range rel.Funcs {
			s.funcPins[f.OID] = f
		}
	}
	return s
}

// sysExpansionHold is the ALTER SYSTEM setting bounding how long a
// barrier waits behind a set-returning function's expansion in progress
// (stream.ProjectSet): expansions that end within it stay in the epoch
// of their input (read-your-writes, whole-input snapshots); a longer one
// lets the barrier pass, so it holds up checkpoints, and the writers
// waiting for them, no longer than this.
const sysExpansionHold = "expansion_barrier_hold_ms"

// expansionHold is the current expansion_barrier_hold_ms; running jobs
// read it at each barrier they hold.
func (e *Engine) expansionHold() time.Duration {
	if e.st != nil && e.st.sys != nil {
		if v, ok := e.st.sys.get(sysExpansionHold); ok {
			return msOf(v)
		}
	}
	return stream.DefaultExpansionHold
}

// defaultExpansionHoldMillis is expansion_barrier_hold_ms's default.
const defaultExpansionHoldMillis = int64(stream.DefaultExpansionHold / time.Millisecond)
