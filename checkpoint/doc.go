// Package checkpoint is the barrier coordinator: it injects checkpoint
// barriers into the streaming jobs, collects every actor's
// acknowledgement with its write set, has the epoch committed to storage
// in one atomic batch, and only then announces the epoch committed, which
// is when sinks commit their transactions (phase 2 of two-phase commit)
// and waiting DML and FLUSH statements return. This is Flink's aligned
// checkpoint protocol with a transactional sink, as RisingWave runs it
// over a single store.
//
// # Protocol
//
//	Coordinator             sources        operators          MV / sink
//	   | InjectBarrier e      |                 |                   |
//	   |--------------------->| offsets->write set                  |
//	   |                      |---- barrier --->| dirty state->write set
//	   |                      |                 |---- barrier ----->| pre-commit txn,
//	   |                      |                 |                   | txn record->write set
//	   |<----------------------------------- Ack e (+ write set) ---| (every actor acks)
//	   | Commit e: all write sets + committed_epoch=e, ONE batch (fsync)
//	   |<- CommitDone e
//	   |---- Committed e ---------------------------------------------->| commit txn (phase 2)
//	   | release waiters (DML, FLUSH, DDL); reads move to the new snapshot
//
// One checkpoint is in flight at a time. While one is in flight, requests
// for a barrier (DML, FLUSH, job mutations) queue and share the next
// barrier, which is injected as soon as the commit is done: that is group
// commit, one fsync for every writer that arrived meanwhile. Config.MinPause
// can stretch the gap between two injections to batch more. Periodic
// barriers are injected every Config.Interval (barrier_interval_ms) while
// jobs run, at a fixed rate: a barrier injected late by less than an
// interval (the timer fired late, or a checkpoint was in flight when it
// was due) leaves the next one due an interval after the time it was
// due, not after its injection. An injection asked for (DML, FLUSH, a
// mutation), a change of the interval or a barrier late by a whole
// interval restart the schedule from that injection.
//
// # Epochs
//
// An epoch is a uint64 (unix ms << 16) | seq (see NextEpoch), strictly
// increasing across barriers, failures and restarts. A barrier carries
// Epoch{Prev, Curr}: rows before it belong to Curr. The first barrier
// after a start or a recovery is KindInitial and has Prev = the committed
// epoch that state was restored from.
//
// # Jobs and mutations
//
// AddJob, StopJob, Pause and Resume travel as the Mutation of a barrier,
// one per barrier, so that every actor applies them at the same point of
// its stream. A new job's actors start with the barrier that adds them
// and acknowledge it; a stopped job's actors acknowledge the barrier that
// stops them and no later one.
//
// # Failure and recovery
//
// A failed commit, a failed actor, or a checkpoint not acknowledged
// within Config.Timeout and not rescued by failing the jobs holding it
// up (below) abandons the checkpoint: its waiters and those
// queued behind it are failed (their writes were not committed), pending
// mutations are dropped, and StartRecovery asks the engine to rebuild
// every job from the committed epoch. An actor failure while a commit is
// outstanding waits for the commit's outcome, so recovery always starts
// from the exact committed epoch. After RecoveryDone the Initial barrier
// is injected at once; a failed recovery is retried after
// Config.RecoveryBackoff. Starting up is a recovery from the committed
// epoch read from storage.
//
// A job that can be restarted on its own (the engine decides) is not a
// reason to stop the others: JobFailed takes it out of the checkpoints,
// dropping what its actors handed over for the epoch in flight, and the
// engine adds it back with AddJob once restarted from its own committed
// state. When, and whether, a failed job is restarted is decided by its
// restart strategy (Restarts: fixed-delay, exponential-delay,
// failure-rate), a state machine of its own with the time and the
// randomness passed in.
//
// Config.Timeout (checkpoint_timeout_ms), Config.MinPauseBetweenCheckpoints
// (checkpoint_min_pause_ms) and Config.TolerableFailures
// (tolerable_checkpoint_failures) can be changed at run time. A timeout
// within the tolerated count is reported (CheckpointTimedOut) and the
// checkpoint waits on: dropping it would drop its epoch's state. The
// next timeout reports the jobs of the missing actors (JobsStalled) for
// the caller to fail them alone (JobFailed), so that the checkpoint
// commits for the others; the checkpoint fails only when they are not
// taken out within one more timeout.
//
// # Shape
//
// Coordinator is a deterministic state machine in the manner of
// etcd-io/raft: Step feeds it an Event (Tick carries the time), Ready
// returns the Actions to carry out, NextDeadline says when the next Tick
// matters. It does no IO and reads no clock, so its tests are interaction
// traces (testdata/*.trace, regenerated with go test -rewrite) and a
// randomized run that checks the protocol's invariants. Driver runs one
// in a goroutine against the real clock and an IO implemented by the
// engine.
package checkpoint
