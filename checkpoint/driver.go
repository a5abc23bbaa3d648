package checkpoint

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/weirdb/weir/internal/pgerr"
)

// IO is what the driver needs from the engine; it is declared here, where
// it is consumed, and implemented by the engine.
type IO interface {
	// Inject delivers a barrier to the source actors of every job (the
	// rest of the actors get it through the dataflow). It is called from
	// the driver's goroutine and must not block for long.
	Inject(b InjectBarrier)
	// Commit writes every write set and committed_epoch = epoch in one
	// atomic batch and returns once it is durable. It runs in its own
	// goroutine; only one Commit runs at a time.
	Commit(ctx context.Context, epoch uint64, writeSets []ActorWriteSet) error
	// Committed announces that epoch is durable: sinks commit the epoch's
	// transactions (phase 2) and reads move to a snapshot taken after it.
	// It is called from the driver's goroutine and must not block for
	// long.
	Committed(epoch uint64, m Mutation)
	// Recover stops every actor, rebuilds the jobs with their state as of
	// fromEpoch and returns them, each waiting for the Initial barrier.
	// It runs in its own goroutine; cause says why (nil at start).
	Recover(ctx context.Context, fromEpoch uint64, cause error) ([]Job, error)
}

// JobRemover is implemented by an IO that wants to know when a failed
// job has left the checkpoints (JobRemoved): epoch is the checkpoint in
// flight that will commit without the job, 0 when there is none or when
// its commit, which holds the job's whole epoch, is already under way.
// It is called from the driver's goroutine before that checkpoint's
// Commit, and must not block for long.
type JobRemover interface {
	JobRemoved(job JobID, epoch uint64)
}

// StallHandler is implemented by an IO that fails jobs on their own: it
// is told of the jobs holding up a checkpoint past the tolerated
// timeouts (JobsStalled) and fails each (JobFailed, its region
// included) or, when one cannot be failed alone, every job (ActorFailed).
// It is called in a goroutine of its own, so it may call the Driver.
type StallHandler interface {
	JobsStalled(jobs []JobID, err error)
}

// Driver runs a Coordinator in one goroutine (Run) with the real clock,
// carries out its actions through an IO, and turns its waiters into
// blocking calls. Its methods are safe for concurrent use.
type Driver struct {
	io     IO
	log    *slog.Logger
	c      *Coordinator
	events chan Event

	mu      sync.Mutex
	nextW   WaiterID
	waiters map[WaiterID]chan error
}

// NewDriver returns a driver for a coordinator configured by cfg; nothing
// happens until Run. A nil log means slog.Default().
func NewDriver(cfg Config, io IO, log *slog.Logger) *Driver {
	if log == nil {
		log = slog.Default()
	}
	return &Driver{
		io:      io,
		log:     log,
		c:       New(cfg),
		events:  make(chan Event, 1024),
		waiters: map[WaiterID]chan error{},
	}
}

// Run drives the coordinator until ctx is done, then fails every waiter
// with an AdminShutdown (57P01) error and returns ctx.Err(). It must be
// called once.
func (d *Driver) Run(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	d.carryOut(ctx)
	for {
		if dl, ok := d.c.NextDeadline(); ok {
			timer.Reset(max(0, time.Until(dl)))
		} else {
			timer.Stop()
		}
		select {
		case <-ctx.Done():
			d.failAll(pgerr.New(pgerr.AdminShutdown, "terminating checkpoints because the server is shutting down"))
			return ctx.Err()
		case ev := <-d.events:
			d.step(ctx, Tick{Now: time.Now()})
			d.step(ctx, ev)
		case <-timer.C:
			d.step(ctx, Tick{Now: time.Now()})
		}
	}
}

func (d *Driver) step(ctx context.Context, ev Event) {
	if err := d.c.Step(ev); err != nil {
		if w := waiterOf(ev); w != 0 {
			d.release(w, pgerr.Wrap(pgerr.ObjectNotInPrerequisiteState, err, ""))
		} else {
			d.log.Debug("checkpoint event ignored", "err", err)
		}
	}
	d.carryOut(ctx)
}

func waiterOf(ev Event) WaiterID {
	switch ev := ev.(type) {
	case AddJob:
		return ev.Waiter
	case StopJob:
		return ev.Waiter
	}
	return 0
}

// carryOut performs the coordinator's pending actions. Commit and Recover
// run in goroutines of their own and report back through the event
// channel, so acknowledgements and requests keep flowing meanwhile.
func (d *Driver) carryOut(ctx context.Context) {
	for _, a := range d.c.Ready() {
		switch a := a.(type) {
		case InjectBarrier:
			d.io.Inject(a)
		case Commit:
			go func() {
				err := d.io.Commit(ctx, a.Epoch, a.WriteSets)
				d.send(ctx, CommitDone{Epoch: a.Epoch, Err: err})
			}()
		case Committed:
			d.io.Committed(a.Epoch, a.Mutation)
			for _, w := range a.Waiters {
				d.release(w, nil)
			}
		case FailWaiters:
			for _, w := range a.Waiters {
				d.release(w, a.Err)
			}
		case JobRemoved:
			if r, ok := d.io.(JobRemover); ok {
				r.JobRemoved(a.Job, a.Epoch)
			}
			for _, w := range a.Dropped {
				if c, ok := w.WriteSet.(interface{ Close() }); ok {
					c.Close()
				}
			}
		case CheckpointTimedOut:
			d.log.Warn("checkpoint timed out, waiting on (tolerable_checkpoint_failures)",
				"epoch", a.Epoch, "timeout", a.Timeout, "missing_actors", a.Missing,
				"failures", a.Failures, "tolerable", a.Tolerable)
		case JobsStalled:
			d.log.Warn("checkpoint timed out past tolerable_checkpoint_failures, failing the jobs holding it up",
				"epoch", a.Epoch, "jobs", a.Jobs, "missing_actors", a.Missing)
			if h, ok := d.io.(StallHandler); ok {
				go h.JobsStalled(a.Jobs, a.Err)
			}
		case StartRecovery:
			if a.Err != nil {
				// The failure itself is logged where it is handled (a
				// job's failure with its restart delay).
				d.log.Info("checkpoint failed, recovering", "from_epoch", a.FromEpoch, "err", a.Err)
			}
			go func() {
				jobs, err := d.io.Recover(ctx, a.FromEpoch, a.Err)
				if err != nil && ctx.Err() == nil {
					// The coordinator tries again after RecoveryBackoff;
					// meanwhile nothing commits, so say why.
					d.log.Error("recovery failed, trying again", "from_epoch", a.FromEpoch, "err", err)
				}
				d.send(ctx, RecoveryDone{Jobs: jobs, Err: err})
			}()
		}
	}
}

func (d *Driver) send(ctx context.Context, ev Event) error {
	select {
	case d.events <- ev:
		return nil
	case <-ctx.Done():
		return pgerr.New(pgerr.AdminShutdown, "terminating checkpoints because the server is shutting down")
	}
}

func (d *Driver) release(w WaiterID, err error) {
	d.mu.Lock()
	ch := d.waiters[w]
	delete(d.waiters, w)
	d.mu.Unlock()
	if ch != nil {
		ch <- err // buffered: never blocks
	}
}

func (d *Driver) failAll(err error) {
	d.mu.Lock()
	ws := d.waiters
	d.waiters = map[WaiterID]chan error{}
	d.mu.Unlock()
	for _, ch := range ws {
		ch <- err
	}
}

// canceled is the error of a wait that ctx ended: the context's cause
// when it is a PostgreSQL error (statement_timeout's "canceling
// statement due to statement timeout"), else PostgreSQL's message for a
// cancel request, never the Go context's text.
func canceled(ctx context.Context) error {
	var pe *pgerr.Error
	if errors.As(context.Cause(ctx), &pe) {
		return pe
	}
	return pgerr.Wrap(pgerr.QueryCanceled, nil, "canceling statement due to user request")
}

// wait registers a waiter, sends the event mk builds for it and blocks
// until the waiter is released or ctx is done.
func (d *Driver) wait(ctx context.Context, mk func(WaiterID) Event) error {
	return d.waitUntil(ctx, nil, nil, mk)
}

// waitUntil is wait that also returns nil once done (nil: never) is
// closed and ok reports true. The waiter then stays registered and is
// released into its buffered channel later; nobody reads it. When ok
// reports false, the wait goes on for the waiter's release.
func (d *Driver) waitUntil(ctx context.Context, done <-chan struct{}, ok func() bool, mk func(WaiterID) Event) error {
	d.mu.Lock()
	d.nextW++
	w := d.nextW
	ch := make(chan error, 1)
	d.waiters[w] = ch
	d.mu.Unlock()
	if err := d.send(ctx, mk(w)); err != nil {
		d.release(w, nil)
		if ctx.Err() != nil {
			return canceled(ctx)
		}
		return err
	}
	select {
	case err := <-ch:
		return err
	case <-done:
		if ok() {
			return nil
		}
	case <-ctx.Done():
		// The waiter stays registered and is released into its
		// buffered channel later; nobody reads it.
		return canceled(ctx)
	}
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		// The waiter stays registered and is released into its buffered
		// channel later; nobody reads it.
		return canceled(ctx)
	}
}

// Barrier asks for a checkpoint and returns once everything written
// before the call is committed (DML acknowledgement, FLUSH). It fails when
// that checkpoint fails (the writes are lost and the statement may be
// retried), or with QueryCanceled (57014) when ctx is done first: the
// writes still commit then, so a statement waiting for its own applied
// writes must not report that error as its outcome (the engine turns
// it into a WARNING and the statement's normal completion).
func (d *Driver) Barrier(ctx context.Context) error {
	return d.wait(ctx, func(w WaiterID) Event { return RequestBarrier{Waiter: w} })
}

// BarrierUntil is Barrier for a caller that learns on its own that what
// it waits for is committed: it also returns nil as soon as done is
// closed and committed reports true (the engine's commit closes an
// epoch's done before it reports the commit to the coordinator). The
// caller then resumes without waiting for the coordinator's goroutine
// to take in the commit and release it, one goroutine hand-off fewer on
// a DML statement's path. When committed reports false (done closed on
// a failure), it returns what Barrier would.
func (d *Driver) BarrierUntil(ctx context.Context, done <-chan struct{}, committed func() bool) error {
	return d.waitUntil(ctx, done, committed, func(w WaiterID) Event { return RequestBarrier{Waiter: w} })
}

// AddJob adds a job whose actors are built and waiting for their first
// barrier, and returns once the barrier carrying the addition commits.
func (d *Driver) AddJob(ctx context.Context, j Job) error {
	return d.wait(ctx, func(w WaiterID) Event { return AddJob{Job: j, Waiter: w} })
}

// AddJobs adds several jobs with one barrier (a region restarted
// together) and returns once it commits.
func (d *Driver) AddJobs(ctx context.Context, jobs []Job) error {
	if len(jobs) == 0 {
		return nil
	}
	return d.wait(ctx, func(w WaiterID) Event { return AddJob{Job: jobs[0], With: jobs[1:], Waiter: w} })
}

// StopJob stops a job and returns once the barrier carrying the stop
// commits; the job's actors end after acknowledging it.
func (d *Driver) StopJob(ctx context.Context, id JobID) error {
	return d.wait(ctx, func(w WaiterID) Event { return StopJob{Job: id, Waiter: w} })
}

// Ack hands an actor's acknowledgement of epoch and its write set to the
// coordinator. It blocks only while the event queue is full.
func (d *Driver) Ack(ctx context.Context, epoch uint64, actor ActorID, ws WriteSet) error {
	return d.send(ctx, Ack{Epoch: epoch, Actor: actor, WriteSet: ws})
}

// ActorFailed reports an actor that stopped with err; the coordinator
// recovers.
func (d *Driver) ActorFailed(ctx context.Context, actor ActorID, err error) error {
	if err == nil {
		err = errors.New("actor stopped")
	}
	return d.send(ctx, ActorFailed{Actor: actor, Err: err})
}

// JobFailed takes a failed job out of the checkpoints, to be restarted
// on its own (see the JobFailed event). It returns once the coordinator
// has the event queued.
func (d *Driver) JobFailed(ctx context.Context, job JobID, err error) error {
	return d.send(ctx, JobFailed{Job: job, Err: err})
}

// JobsFailed takes a failed job and the jobs of its region (see the
// JobFailed event's With) out of the checkpoints in one step.
func (d *Driver) JobsFailed(ctx context.Context, job JobID, with []JobID, err error) error {
	return d.send(ctx, JobFailed{Job: job, With: with, Err: err})
}

// SetInterval changes barrier_interval_ms at run time.
func (d *Driver) SetInterval(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "barrier interval must be positive, not %s", interval)
	}
	return d.send(ctx, SetInterval{Interval: interval})
}

// SetTimeout changes checkpoint_timeout_ms at run time.
func (d *Driver) SetTimeout(ctx context.Context, timeout time.Duration) error {
	if timeout <= 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "checkpoint timeout must be positive, not %s", timeout)
	}
	return d.send(ctx, SetTimeout{Timeout: timeout})
}

// SetMinPause changes checkpoint_min_pause_ms at run time.
func (d *Driver) SetMinPause(ctx context.Context, pause time.Duration) error {
	if pause < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "checkpoint min pause must not be negative, not %s", pause)
	}
	return d.send(ctx, SetMinPause{MinPause: pause})
}

// SetTolerableFailures changes tolerable_checkpoint_failures at run
// time.
func (d *Driver) SetTolerableFailures(ctx context.Context, n int) error {
	if n < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "tolerable checkpoint failures must not be negative, not %d", n)
	}
	return d.send(ctx, SetTolerableFailures{N: n})
}
