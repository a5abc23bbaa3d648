package checkpoint

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// Config holds the coordinator's timing. Zero fields take the defaults.
type Config struct {
	// Interval is the time between periodic barriers
	// (barrier_interval_ms); default 1 s.
	Interval time.Duration
	// MinPause is the least time between two injections when a barrier
	// was asked for (DML, FLUSH, a mutation): writers arriving within it
	// share one barrier and one fsync (group commit). Default 0: since
	// only one checkpoint is in flight at a time, writers arriving while
	// one is in flight already share the next one. Negative means 0.
	MinPause time.Duration
	// Timeout is how long a checkpoint waits for its acknowledgements
	// (checkpoint_timeout_ms), counted from its barrier's injection or
	// the last timeout; default 10 min. See TolerableFailures for what a
	// timeout does.
	Timeout time.Duration
	// MinPauseBetweenCheckpoints is the least time between the end of
	// one checkpoint (committed or failed) and the injection of the next
	// (checkpoint_min_pause_ms), as Flink's min pause: it bounds how much
	// of the time checkpoints take when they are slow. It applies to
	// every barrier, those DML and FLUSH ask for included, so it trades
	// write latency for fewer checkpoints; the Initial barrier of a
	// recovery is not held back. Default 0; negative means 0.
	MinPauseBetweenCheckpoints time.Duration
	// TolerableFailures is the number of consecutive checkpoint timeouts
	// tolerated (tolerable_checkpoint_failures). A tolerated timeout
	// does not abandon the checkpoint, whose epoch's state would be lost
	// with it: it is reported (CheckpointTimedOut) and the checkpoint is
	// given another Timeout. The next timeout reports the jobs holding
	// the checkpoint up (JobsStalled) and gives the caller one more
	// Timeout to take them out (JobFailed); the one after that fails the
	// checkpoint and recovery starts. A committed checkpoint resets the
	// count. Default 0: the first timeout reports the stalled jobs.
	TolerableFailures int
	// RecoveryBackoff is how long to wait before starting recovery again
	// after a recovery failed; default 1 s.
	RecoveryBackoff time.Duration
	// CommittedEpoch is the committed epoch read from storage at start;
	// the first (Initial) barrier restores state as of it.
	CommittedEpoch uint64
}

// Defaults for Config's zero fields.
const (
	DefaultInterval        = time.Second
	DefaultTimeout         = 10 * time.Minute
	DefaultRecoveryBackoff = time.Second
)

// Event is an input to Coordinator.Step: one of Tick, RequestBarrier,
// Ack, CommitDone, AddJob, StopJob, Pause, Resume, SetInterval,
// SetTimeout, SetMinPause, SetTolerableFailures, ActorFailed, JobFailed,
// RecoveryDone.
type Event interface{ isEvent() }

// JobFailed takes a failed job out of the checkpoints so that it can be
// restarted on its own while every other job goes on (per-job failure
// isolation): the checkpoint in flight stops waiting for the job's
// actors and commits none of their write sets for its epoch, so the
// job's committed state stays that of a checkpoint all its actors
// completed, and later barriers leave it out. The caller restarts the
// job from that state and adds it back with AddJob. With names jobs
// taken out together with Job, in the same step: a region (a view and
// the jobs reading its output) whose members must all stay at the same
// committed epoch, since each reader's state holds its upstream's output
// up to that epoch. During a recovery the event is ignored; a job not
// running is ErrUnknownJob (and nothing is taken out).
type JobFailed struct {
	Job  JobID
	With []JobID
	Err  error
}

// SetTimeout changes checkpoint_timeout_ms at run time; a checkpoint in
// flight gets the new timeout from the start of its current wait.
type SetTimeout struct{ Timeout time.Duration }

// SetMinPause changes checkpoint_min_pause_ms at run time.
type SetMinPause struct{ MinPause time.Duration }

// SetTolerableFailures changes tolerable_checkpoint_failures at run
// time.
type SetTolerableFailures struct{ N int }

// Tick advances the coordinator's clock to Now (a clock that goes back is
// ignored). Periodic barriers, min-pause waits, timeouts and recovery
// retries happen on ticks; NextDeadline says when the next one is due.
type Tick struct{ Now time.Time }

// RequestBarrier asks for a checkpoint covering everything written before
// the request (DML, FLUSH). Waiter is released (Committed) when the first
// barrier injected after the request commits, or failed (FailWaiters) if
// that checkpoint fails.
type RequestBarrier struct{ Waiter WaiterID }

// Ack is an actor's acknowledgement of the barrier of Epoch, with its
// write set for that epoch.
type Ack struct {
	Epoch    uint64
	Actor    ActorID
	WriteSet WriteSet
}

// CommitDone reports the outcome of a Commit action: nil Err means the
// write sets and the committed epoch are durable.
type CommitDone struct {
	Epoch uint64
	Err   error
}

// AddJob adds a job whose actors are built and waiting for their first
// barrier; the next barrier carries MutationAddJob. With holds further
// jobs added by the same barrier (a region restarted together, see
// JobFailed). Waiter (optional) is released when that barrier commits.
type AddJob struct {
	Job    Job
	With   []Job
	Waiter WaiterID
}

// StopJob stops a job; the next barrier carries MutationStopJob. Waiter
// (optional) is released when that barrier commits.
type StopJob struct {
	Job    JobID
	Waiter WaiterID
}

// Pause asks sources to stop reading; the next barrier carries
// MutationPause.
type Pause struct{ Waiter WaiterID }

// Resume asks paused sources to read again; the next barrier carries
// MutationResume.
type Resume struct{ Waiter WaiterID }

// SetInterval changes the periodic barrier interval (barrier_interval_ms)
// at run time; it takes effect from the last injection.
type SetInterval struct{ Interval time.Duration }

// ActorFailed reports that an actor stopped with an error: the
// checkpoint in flight cannot complete, so the coordinator starts
// recovery (after the outcome of a commit in progress is known).
type ActorFailed struct {
	Actor ActorID
	Err   error
}

// RecoveryDone reports the end of a recovery started by StartRecovery:
// with nil Err, Jobs are the rebuilt jobs (all waiting for the Initial
// barrier, which is injected at once); with an Err, recovery is started
// again after Config.RecoveryBackoff.
type RecoveryDone struct {
	Jobs []Job
	Err  error
}

func (Tick) isEvent()           {}
func (RequestBarrier) isEvent() {}
func (Ack) isEvent()            {}
func (CommitDone) isEvent()     {}
func (AddJob) isEvent()         {}
func (StopJob) isEvent()        {}
func (Pause) isEvent()          {}
func (Resume) isEvent()         {}
func (SetInterval) isEvent()    {}
func (SetTimeout) isEvent()     {}
func (SetMinPause) isEvent()    {}

func (SetTolerableFailures) isEvent() {}
func (ActorFailed) isEvent()          {}
func (JobFailed) isEvent()            {}
func (RecoveryDone) isEvent()         {}

// Action is an output of the coordinator, for the caller to carry out in
// order: one of InjectBarrier, Commit, Committed, FailWaiters,
// StartRecovery, CheckpointTimedOut, JobsStalled, JobRemoved.
type Action interface{ isAction() }

// InjectBarrier asks the caller to inject Barrier into the source actors
// of every job; Targets are all the actors that must acknowledge it
// (sorted).
type InjectBarrier struct {
	Barrier Barrier
	Targets []ActorID
}

// Commit asks the caller to write every write set and committed_epoch =
// Epoch in ONE atomic, durable batch, then report CommitDone. Only one
// Commit is outstanding at a time.
type Commit struct {
	Epoch     uint64
	WriteSets []ActorWriteSet // sorted by actor
}

// Committed announces that Epoch is durable: sinks commit their
// transactions of the epoch (phase 2), reads move to the new snapshot,
// and Waiters are released. Mutation is the barrier's mutation (a stopped
// job's resources may now be dropped).
type Committed struct {
	Epoch    uint64
	Mutation Mutation
	Waiters  []WaiterID
}

// FailWaiters releases Waiters with Err: their checkpoint failed, so what
// they wrote was not committed.
type FailWaiters struct {
	Waiters []WaiterID
	Err     error
}

// StartRecovery asks the caller to stop every actor, rebuild the jobs
// with their state as of FromEpoch (the committed epoch), seek sources to
// their committed offsets, and report RecoveryDone. Err says why
// (nil at start).
type StartRecovery struct {
	FromEpoch uint64
	Err       error
}

// CheckpointTimedOut reports a checkpoint that timed out within
// tolerable_checkpoint_failures: it stays in flight for another timeout.
// Missing are the actors whose acknowledgements have not arrived;
// Failures counts the consecutive timeouts so far (1-based), of at most
// Tolerable tolerated.
type CheckpointTimedOut struct {
	Epoch     uint64
	Missing   []ActorID
	Failures  int
	Tolerable int
	Timeout   time.Duration
}

// JobsStalled reports the jobs whose actors have not acknowledged the
// checkpoint in flight although its timeout passed more often than
// tolerable_checkpoint_failures allows: an actor stuck on one input row,
// say. The caller fails those jobs (JobFailed, with their regions), so
// that the checkpoint commits for every other job, and restarts them by
// their restart strategies. The checkpoint waits one more timeout for
// that; then it fails, and every job recovers, as before. Err says why,
// for the jobs' errors.
type JobsStalled struct {
	Epoch   uint64
	Jobs    []JobID
	Missing []ActorID
	Err     error
}

// JobRemoved confirms that a failed job (JobFailed) left the
// checkpoints. Dropped are the write sets its actors had handed over for
// the checkpoint in flight, which will not be committed: the caller
// releases them.
type JobRemoved struct {
	Job     JobID
	Epoch   uint64 // the checkpoint in flight, 0 when none
	Dropped []ActorWriteSet
}

func (JobRemoved) isAction()         {}
func (JobsStalled) isAction()        {}
func (CheckpointTimedOut) isAction() {}
func (InjectBarrier) isAction()      {}
func (Commit) isAction()             {}
func (Committed) isAction()          {}
func (FailWaiters) isAction()        {}
func (StartRecovery) isAction()      {}

// Errors returned by Step for events that do not fit the coordinator's
// state. The event is ignored; they are for logging, never fatal.
var (
	ErrStaleAck     = errors.New("checkpoint: acknowledgement of an epoch not in flight")
	ErrDuplicateAck = errors.New("checkpoint: duplicate acknowledgement")
	ErrUnknownActor = errors.New("checkpoint: acknowledgement from an actor the barrier was not sent to")
	ErrStaleCommit  = errors.New("checkpoint: commit outcome for an epoch not being committed")
	ErrNotRecovery  = errors.New("checkpoint: recovery outcome while not recovering")
	ErrDuplicateJob = errors.New("checkpoint: job already exists")
	ErrUnknownJob   = errors.New("checkpoint: no such job")
)

// phase is where the coordinator is in its cycle.
type phase uint8

const (
	// phaseRecovering: StartRecovery was emitted (or is due at retryAt),
	// waiting for RecoveryDone.
	phaseRecovering phase = iota
	// phaseIdle: no checkpoint in flight.
	phaseIdle
	// phaseCollecting: a barrier is in flight, acknowledgements arrive.
	phaseCollecting
	// phaseCommitting: a Commit is outstanding.
	phaseCommitting
)

func (p phase) String() string {
	return [...]string{"recovering", "idle", "collecting", "committing"}[p]
}

// inflight is the checkpoint whose barrier is in flight.
type inflight struct {
	barrier    Barrier
	injectedAt time.Time
	// waitFrom is when the current timeout period began: the injection,
	// or the last tolerated timeout.
	waitFrom  time.Time
	expected  map[ActorID]bool // true once acknowledged
	remaining int
	writeSets []ActorWriteSet
	waiters   []WaiterID
	// stalled: the jobs of the actors missing at a timeout past the
	// tolerated ones were reported (JobsStalled); the next timeout
	// fails the checkpoint.
	stalled bool
}

// pendingMutation is a mutation waiting for the next barrier.
type pendingMutation struct {
	m      Mutation
	waiter WaiterID
}

// Coordinator is the barrier coordinator as a deterministic state
// machine: Step feeds it an event, Ready returns the actions it decided
// on. It does no IO, starts no goroutines, reads no clock (time comes in
// with Tick) and uses no randomness, so the same events always give the
// same actions. It is not safe for concurrent use; Driver runs one in a
// goroutine.
type Coordinator struct {
	cfg Config
	now time.Time

	phase        phase
	committed    uint64 // last committed epoch
	prev         uint64 // Prev of the next barrier
	last         uint64 // highest epoch handed out
	lastInjectAt time.Time
	// anchor is what the next periodic barrier is due an Interval after:
	// the last injection's time, or, for a periodic barrier injected
	// late by less than an Interval, the time it was due. A late timer
	// or a checkpoint in flight at the due time thus delays one barrier,
	// not every later one (fixed rate, as Flink's periodic trigger).
	anchor      time.Time
	lastEndAt   time.Time // when the last checkpoint committed or failed
	failures    int       // consecutive checkpoint timeouts
	needInitial bool
	paused      bool
	retryAt     time.Time // phaseRecovering: when to emit StartRecovery again
	retryDue    bool
	failAfter   error // failure seen while committing, acted on after CommitDone

	jobs      map[JobID]Job
	cur       *inflight
	waiters   []WaiterID        // for the next barrier
	mutations []pendingMutation // FIFO, one per barrier

	actions []Action
}

// New returns a coordinator starting from cfg.CommittedEpoch. Its first
// action is StartRecovery: starting is recovering from the committed
// epoch, with no jobs yet; the Initial barrier follows RecoveryDone.
func New(cfg Config) *Coordinator {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.MinPause < 0 {
		cfg.MinPause = 0
	}
	if cfg.MinPauseBetweenCheckpoints < 0 {
		cfg.MinPauseBetweenCheckpoints = 0
	}
	if cfg.TolerableFailures < 0 {
		cfg.TolerableFailures = 0
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RecoveryBackoff <= 0 {
		cfg.RecoveryBackoff = DefaultRecoveryBackoff
	}
	c := &Coordinator{
		cfg:       cfg,
		now:       time.UnixMilli(0),
		phase:     phaseRecovering,
		committed: cfg.CommittedEpoch,
		prev:      cfg.CommittedEpoch,
		last:      cfg.CommittedEpoch,
		jobs:      map[JobID]Job{},
	}
	c.emit(StartRecovery{FromEpoch: c.committed})
	return c
}

// Ready returns the actions decided since the last call, in the order the
// caller must carry them out, and forgets them.
func (c *Coordinator) Ready() []Action {
	a := c.actions
	c.actions = nil
	return a
}

// CommittedEpoch returns the last committed epoch.
func (c *Coordinator) CommittedEpoch() uint64 { return c.committed }

// Interval returns the current periodic barrier interval.
func (c *Coordinator) Interval() time.Duration { return c.cfg.Interval }

// Timeout returns the current checkpoint timeout.
func (c *Coordinator) Timeout() time.Duration { return c.cfg.Timeout }

// InFlight returns the epoch of the checkpoint in flight (collecting or
// committing), and false when there is none.
func (c *Coordinator) InFlight() (uint64, bool) {
	if c.cur == nil {
		return 0, false
	}
	return c.cur.barrier.Epoch.Curr, true
}

// NextDeadline returns the time at which a Tick will next have something
// to do (a periodic barrier, the end of a min-pause, a timeout, a
// recovery retry), and false when only an event can move the coordinator
// on. The driver sets its timer to it.
func (c *Coordinator) NextDeadline() (time.Time, bool) {
	switch c.phase {
	case phaseRecovering:
		return c.retryAt, c.retryDue
	case phaseCollecting:
		return c.cur.waitFrom.Add(c.cfg.Timeout), true
	case phaseIdle:
		if c.needInitial {
			return c.now, true
		}
		pause := c.lastEndAt.Add(c.cfg.MinPauseBetweenCheckpoints)
		if len(c.waiters) > 0 || len(c.mutations) > 0 {
			return latest(c.lastInjectAt.Add(c.cfg.MinPause), pause), true
		}
		if len(c.jobs) > 0 {
			return latest(c.anchor.Add(c.cfg.Interval), pause), true
		}
	}
	return time.Time{}, false
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// String describes the coordinator's state on one line (for traces and
// logs).
func (c *Coordinator) String() string {
	ids := make([]JobID, 0, len(c.jobs))
	for id := range c.jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	s := fmt.Sprintf("phase=%s committed=%s jobs=%v waiting=%v mutations=%d interval=%s",
		c.phase, epochString(c.committed), ids, c.waiters, len(c.mutations), c.cfg.Interval)
	if c.cfg.Timeout != DefaultTimeout {
		s += fmt.Sprintf(" timeout=%s", c.cfg.Timeout)
	}
	if c.cfg.MinPauseBetweenCheckpoints > 0 {
		s += fmt.Sprintf(" min-pause=%s", c.cfg.MinPauseBetweenCheckpoints)
	}
	if c.cfg.TolerableFailures > 0 || c.failures > 0 {
		s += fmt.Sprintf(" failures=%d/%d", c.failures, c.cfg.TolerableFailures)
	}
	if c.paused {
		s += " paused"
	}
	return s
}

func (c *Coordinator) emit(a Action) { c.actions = append(c.actions, a) }

// Step feeds one event to the coordinator. Events that do not fit its
// state (a stale or duplicate acknowledgement, an unknown job) are
// ignored and reported with one of the Err* errors; the coordinator is
// unchanged then.
func (c *Coordinator) Step(ev Event) error {
	var err error
	switch ev := ev.(type) {
	case Tick:
		if ev.Now.After(c.now) {
			c.now = ev.Now
		}
	case RequestBarrier:
		c.waiters = append(c.waiters, ev.Waiter)
	case Ack:
		err = c.ack(ev)
	case CommitDone:
		err = c.commitDone(ev)
	case AddJob:
		err = c.addJob(ev)
	case StopJob:
		err = c.stopJob(ev)
	case Pause:
		c.mutations = append(c.mutations, pendingMutation{Mutation{Kind: MutationPause}, ev.Waiter})
	case Resume:
		c.mutations = append(c.mutations, pendingMutation{Mutation{Kind: MutationResume}, ev.Waiter})
	case SetInterval:
		if ev.Interval > 0 {
			// The new interval counts from the last injection.
			c.cfg.Interval = ev.Interval
			c.anchor = c.lastInjectAt
		}
	case SetTimeout:
		if ev.Timeout > 0 {
			c.cfg.Timeout = ev.Timeout
		}
	case SetMinPause:
		c.cfg.MinPauseBetweenCheckpoints = max(ev.MinPause, 0)
	case SetTolerableFailures:
		c.cfg.TolerableFailures = max(ev.N, 0)
	case ActorFailed:
		err = c.actorFailed(ev)
	case JobFailed:
		err = c.jobFailed(ev)
	case RecoveryDone:
		err = c.recoveryDone(ev)
	default:
		err = fmt.Errorf("checkpoint: unknown event %T", ev)
	}
	c.advance()
	return err
}

func (c *Coordinator) ack(ev Ack) error {
	if c.phase != phaseCollecting || ev.Epoch != c.cur.barrier.Epoch.Curr {
		return fmt.Errorf("%w: epoch %s from actor %d", ErrStaleAck, epochString(ev.Epoch), ev.Actor)
	}
	done, ok := c.cur.expected[ev.Actor]
	if !ok {
		return fmt.Errorf("%w: actor %d, epoch %s", ErrUnknownActor, ev.Actor, epochString(ev.Epoch))
	}
	if done {
		return fmt.Errorf("%w: actor %d, epoch %s", ErrDuplicateAck, ev.Actor, epochString(ev.Epoch))
	}
	c.cur.expected[ev.Actor] = true
	c.cur.remaining--
	c.cur.writeSets = append(c.cur.writeSets, ActorWriteSet{ev.Actor, ev.WriteSet})
	if c.cur.remaining == 0 {
		c.startCommit()
	}
	return nil
}

// startCommit asks for the commit of the in-flight checkpoint, all of
// whose acknowledgements have arrived.
func (c *Coordinator) startCommit() {
	slices.SortFunc(c.cur.writeSets, func(a, b ActorWriteSet) int { return cmp.Compare(a.Actor, b.Actor) })
	c.phase = phaseCommitting
	c.emit(Commit{Epoch: c.cur.barrier.Epoch.Curr, WriteSets: c.cur.writeSets})
}

func (c *Coordinator) commitDone(ev CommitDone) error {
	if c.phase != phaseCommitting || ev.Epoch != c.cur.barrier.Epoch.Curr {
		return fmt.Errorf("%w: epoch %s", ErrStaleCommit, epochString(ev.Epoch))
	}
	if ev.Err != nil {
		c.fail(pgerr.Wrap(pgerr.IOError, ev.Err, fmt.Sprintf("checkpoint of epoch %s failed to commit", epochString(ev.Epoch))))
		return nil
	}
	cur := c.cur
	c.committed = cur.barrier.Epoch.Curr
	c.cur = nil
	c.phase = phaseIdle
	c.lastEndAt = c.now
	c.failures = 0
	c.emit(Committed{Epoch: c.committed, Mutation: cur.barrier.Mutation, Waiters: cur.waiters})
	if err := c.failAfter; err != nil {
		c.failAfter = nil
		c.fail(err)
	}
	return nil
}

// jobExists reports whether job id will exist once the pending
// mutations have been carried out in order.
func (c *Coordinator) jobExists(id JobID) bool {
	_, exists := c.jobs[id]
	for _, p := range c.mutations {
		switch {
		case p.m.Adds(id):
			exists = true
		case p.m.Kind == MutationStopJob && p.m.Job.ID == id:
			exists = false
		}
	}
	return exists
}

func (c *Coordinator) addJob(ev AddJob) error {
	m := Mutation{Kind: MutationAddJob}
	seen := map[JobID]bool{}
	for i, ej := range append([]Job{ev.Job}, ev.With...) {
		if c.jobExists(ej.ID) || seen[ej.ID] {
			return fmt.Errorf("%w: job %d", ErrDuplicateJob, ej.ID)
		}
		seen[ej.ID] = true
		j := Job{ID: ej.ID, Actors: slices.Clone(ej.Actors)}
		slices.Sort(j.Actors)
		if i == 0 {
			m.Job = j
		} else {
			m.With = append(m.With, j)
		}
	}
	c.mutations = append(c.mutations, pendingMutation{m, ev.Waiter})
	return nil
}

func (c *Coordinator) stopJob(ev StopJob) error {
	if !c.jobExists(ev.Job) {
		return fmt.Errorf("%w: job %d", ErrUnknownJob, ev.Job)
	}
	c.mutations = append(c.mutations, pendingMutation{Mutation{Kind: MutationStopJob, Job: Job{ID: ev.Job}}, ev.Waiter})
	return nil
}

func (c *Coordinator) actorFailed(ev ActorFailed) error {
	if c.phase == phaseRecovering {
		// Actors of the old generation are expected to fail while they
		// are torn down.
		return nil
	}
	// An error with a SQLSTATE of its own (a sink's broker that does not
	// answer, say) keeps it: the statements failing with it learn why.
	// The caller names the job in it (a user knows views and sinks, not
	// actors).
	code := pgerr.CodeOf(ev.Err)
	if code == "" {
		code = pgerr.InternalError
	}
	err := pgerr.Wrap(code, ev.Err, "")
	if pe := pgerr.As(ev.Err); pe != nil && pe.Hint != "" {
		err = err.WithHint("%s", pe.Hint)
	}
	if c.phase == phaseCommitting {
		// The commit may still succeed; recovery must start from its
		// outcome, not guess it.
		if c.failAfter == nil {
			c.failAfter = err
		}
		return nil
	}
	c.fail(err)
	return nil
}

func (c *Coordinator) jobFailed(ev JobFailed) error {
	if c.phase == phaseRecovering {
		// Recovery rebuilds every job anyway.
		return nil
	}
	ids := append([]JobID{ev.Job}, ev.With...)
	jobs := make([]Job, len(ids))
	for i, id := range ids {
		j, ok := c.jobs[id]
		if !ok && c.cur != nil && c.cur.barrier.Mutation.Kind == MutationStopJob && c.cur.barrier.Mutation.Job.ID == id {
			// It failed on the barrier stopping it: that barrier need
			// not wait for it either.
			j, ok = c.cur.barrier.Mutation.Job, true
		}
		if !ok {
			return fmt.Errorf("%w: job %d", ErrUnknownJob, id)
		}
		jobs[i] = j
	}
	for _, j := range jobs {
		c.removeJob(j)
	}
	if c.phase == phaseCollecting && c.cur.remaining == 0 {
		c.startCommit()
	}
	return nil
}

// removeJob takes a failed job out of the checkpoints: the one in flight
// stops waiting for its actors and drops their write sets.
func (c *Coordinator) removeJob(j Job) {
	delete(c.jobs, j.ID)
	removed := JobRemoved{Job: j.ID}
	if c.phase == phaseCollecting {
		// A commit already under way holds only complete write sets of
		// the job (every actor acknowledged): it may go on.
		removed.Epoch = c.cur.barrier.Epoch.Curr
		for _, a := range j.Actors {
			done, ok := c.cur.expected[a]
			if !ok {
				continue
			}
			delete(c.cur.expected, a)
			if !done {
				c.cur.remaining--
			}
		}
		keep := c.cur.writeSets[:0]
		for _, w := range c.cur.writeSets {
			if slices.Contains(j.Actors, w.Actor) {
				removed.Dropped = append(removed.Dropped, w)
			} else {
				keep = append(keep, w)
			}
		}
		c.cur.writeSets = keep
	}
	c.emit(removed)
}

func (c *Coordinator) recoveryDone(ev RecoveryDone) error {
	if c.phase != phaseRecovering || c.retryDue {
		return ErrNotRecovery
	}
	if ev.Err != nil {
		c.retryDue = true
		c.retryAt = c.now.Add(c.cfg.RecoveryBackoff)
		return nil
	}
	c.jobs = map[JobID]Job{}
	for _, j := range ev.Jobs {
		j.Actors = slices.Clone(j.Actors)
		slices.Sort(j.Actors)
		c.jobs[j.ID] = j
	}
	c.phase = phaseIdle
	c.needInitial = true
	return nil
}

// fail abandons the checkpoint in flight (if any), fails every waiter,
// drops pending mutations (recovery rebuilds the jobs the engine decides
// on) and starts recovery from the committed epoch. It is never called
// while a Commit is outstanding, so the committed epoch is exact.
func (c *Coordinator) fail(err error) {
	var ws []WaiterID
	if c.cur != nil {
		ws = append(ws, c.cur.waiters...)
	}
	ws = append(ws, c.waiters...)
	for _, p := range c.mutations {
		if p.waiter != 0 {
			ws = append(ws, p.waiter)
		}
	}
	if len(ws) > 0 {
		e := pgerr.Wrap(pgerr.CodeOf(err), err, "")
		e.Hint = "The changes were not committed; retry the statement."
		c.emit(FailWaiters{Waiters: ws, Err: e})
	}
	c.cur, c.waiters, c.mutations, c.failAfter = nil, nil, nil, nil
	c.lastEndAt = c.now
	c.failures = 0
	c.jobs = map[JobID]Job{}
	c.phase = phaseRecovering
	c.retryDue = false
	c.prev = c.committed
	c.emit(StartRecovery{FromEpoch: c.committed, Err: err})
}

// advance takes the steps that are due at the current time.
func (c *Coordinator) advance() {
	switch c.phase {
	case phaseRecovering:
		if c.retryDue && !c.now.Before(c.retryAt) {
			c.retryDue = false
			c.emit(StartRecovery{FromEpoch: c.committed, Err: errors.New("retrying failed recovery")})
		}
	case phaseCollecting:
		if c.now.Sub(c.cur.waitFrom) >= c.cfg.Timeout {
			c.timedOut()
		}
	case phaseIdle:
		paused := c.now.Sub(c.lastEndAt) < c.cfg.MinPauseBetweenCheckpoints
		switch {
		case c.needInitial:
			c.needInitial = false
			c.inject(KindInitial)
		case paused:
		case len(c.waiters) > 0 || len(c.mutations) > 0:
			if c.now.Sub(c.lastInjectAt) >= c.cfg.MinPause {
				c.inject(KindCheckpoint)
			}
		case len(c.jobs) > 0:
			// Without jobs a periodic checkpoint would only fsync an
			// empty batch.
			due := c.anchor.Add(c.cfg.Interval)
			if !c.now.Before(due) {
				c.inject(KindCheckpoint)
				if c.now.Sub(due) < c.cfg.Interval {
					c.anchor = due
				}
			}
		}
	}
}

// timedOut handles a checkpoint whose acknowledgements did not all
// arrive within the timeout: within tolerable_checkpoint_failures it
// waits another timeout (dropping it would drop its epoch's state).
// Beyond it, the jobs of the missing actors are reported (JobsStalled)
// for the caller to fail them alone, and the checkpoint waits one more
// timeout for the JobFailed that takes them out; after that it fails
// and recovery starts.
func (c *Coordinator) timedOut() {
	c.failures++
	var missing []ActorID
	for a, done := range c.cur.expected {
		if !done {
			missing = append(missing, a)
		}
	}
	slices.Sort(missing)
	if c.failures <= c.cfg.TolerableFailures {
		c.cur.waitFrom = c.now
		c.emit(CheckpointTimedOut{Epoch: c.cur.barrier.Epoch.Curr, Missing: missing,
			Failures: c.failures, Tolerable: c.cfg.TolerableFailures, Timeout: c.cfg.Timeout})
		return
	}
	waited := c.now.Sub(c.cur.injectedAt)
	if !c.cur.stalled {
		if jobs := c.jobsOf(missing); len(jobs) > 0 {
			c.cur.stalled = true
			c.cur.waitFrom = c.now
			err := pgerr.New(pgerr.QueryCanceled, "its actors did not pass the barrier of epoch %s within %s (checkpoint_timeout_ms), holding up every checkpoint",
				epochString(c.cur.barrier.Epoch.Curr), waited).
				WithHint("An operator stuck on one input (a row expanding into too many rows, say) stops its job and no other; the job restarts by its restart strategy.")
			c.emit(JobsStalled{Epoch: c.cur.barrier.Epoch.Curr, Jobs: jobs, Missing: missing, Err: err})
			return
		}
	}
	err := pgerr.New(pgerr.QueryCanceled, "checkpoint of epoch %s timed out after %s waiting for %d acknowledgements",
		epochString(c.cur.barrier.Epoch.Curr), waited, c.cur.remaining)
	if c.cfg.TolerableFailures > 0 {
		err = err.WithDetail("%d consecutive checkpoint timeouts exceed tolerable_checkpoint_failures = %d.", c.failures, c.cfg.TolerableFailures)
	}
	c.fail(err.WithHint("Raise checkpoint_timeout_ms (ALTER SYSTEM SET) if checkpoints are slow rather than stuck."))
}

// inject starts a checkpoint: it picks the next epoch and the barrier's
// mutation (the oldest pending one; an Initial barrier carries only a
// pause the sources must keep), applies the mutation to the set of jobs
// and emits the barrier for every actor to acknowledge.
func (c *Coordinator) inject(kind Kind) {
	b := Barrier{Kind: kind}
	var waiters []WaiterID
	if kind == KindInitial {
		if c.paused {
			b.Mutation = Mutation{Kind: MutationPause}
		}
	} else if len(c.mutations) > 0 {
		p := c.mutations[0]
		c.mutations = c.mutations[1:]
		b.Mutation = p.m
		if p.waiter != 0 {
			waiters = append(waiters, p.waiter)
		}
	}
	var stopped *Job
	switch m := b.Mutation; m.Kind {
	case MutationAddJob:
		c.jobs[m.Job.ID] = m.Job
		for _, j := range m.With {
			c.jobs[j.ID] = j
		}
	case MutationStopJob:
		// The stopped job's actors acknowledge this barrier, and no later
		// one.
		j := c.jobs[m.Job.ID]
		stopped = &j
		b.Mutation.Job = j
		delete(c.jobs, m.Job.ID)
	case MutationPause:
		c.paused = true
	case MutationResume:
		c.paused = false
	}
	c.last = NextEpoch(c.last, c.now)
	b.Epoch = Epoch{Prev: c.prev, Curr: c.last}
	c.prev = c.last
	c.lastInjectAt = c.now
	c.anchor = c.now

	cur := &inflight{barrier: b, injectedAt: c.now, waitFrom: c.now, expected: map[ActorID]bool{}}
	cur.waiters = append(c.waiters, waiters...)
	c.waiters = nil
	for _, j := range c.jobs {
		for _, a := range j.Actors {
			cur.expected[a] = false
		}
	}
	if stopped != nil {
		for _, a := range stopped.Actors {
			cur.expected[a] = false
		}
	}
	cur.remaining = len(cur.expected)
	targets := make([]ActorID, 0, len(cur.expected))
	for a := range cur.expected {
		targets = append(targets, a)
	}
	slices.Sort(targets)
	c.cur = cur
	c.phase = phaseCollecting
	c.emit(InjectBarrier{Barrier: b, Targets: targets})
	if cur.remaining == 0 {
		c.startCommit()
	}
}

// jobsOf returns the jobs (sorted) that own any of actors: the running
// jobs and the one the barrier in flight stops.
func (c *Coordinator) jobsOf(actors []ActorID) []JobID {
	var jobs []JobID
	owns := func(j Job) {
		for _, a := range j.Actors {
			if slices.Contains(actors, a) {
				jobs = append(jobs, j.ID)
				return
			}
		}
	}
	for _, j := range c.jobs {
		owns(j)
	}
	if m := c.cur.barrier.Mutation; m.Kind == MutationStopJob {
		if _, ok := c.jobs[m.Job.ID]; !ok {
			owns(m.Job)
		}
	}
	slices.Sort(jobs)
	return slices.Compact(jobs)
}
