package checkpoint

import (
	"fmt"
	"time"
)

// EpochSeqBits is the number of low bits of an epoch that hold a sequence
// number; the bits above hold Unix milliseconds. An epoch is therefore
// (unix ms << 16) | seq, as in RisingWave: it reads as the wall-clock time
// its barrier was injected, it needs no counter of its own to stay
// monotonic across restarts (the next epoch is always above the last one
// handed out, which is at least the committed one read back from storage),
// and up to 65,536 barriers fit in one millisecond before the sequence
// carries into the millisecond bits (which keeps the order all the same).
const EpochSeqBits = 16

// NextEpoch returns the epoch of a barrier injected at now after the epoch
// last: the physical epoch of now, or last+1 when the clock has not moved
// past last (several barriers in one millisecond, or a clock that stepped
// back). It is strictly greater than last.
func NextEpoch(last uint64, now time.Time) uint64 {
	ms := now.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	return max(last+1, uint64(ms)<<EpochSeqBits)
}

// EpochTime returns the wall-clock time encoded in an epoch, to the
// millisecond.
func EpochTime(e uint64) time.Time {
	return time.UnixMilli(int64(e >> EpochSeqBits))
}

// epochString formats an epoch as <unix ms>.<seq>, which reads better
// than the raw number in logs and traces.
func epochString(e uint64) string {
	return fmt.Sprintf("%d.%d", e>>EpochSeqBits, e&(1<<EpochSeqBits-1))
}

// Epoch is the pair of epochs a barrier separates: the rows before the
// barrier belong to Curr, and Prev is the epoch of the barrier before it
// (after a start or recovery: the committed epoch state was restored
// from).
type Epoch struct {
	Prev, Curr uint64
}

// Kind says what a barrier asks of the operators it passes.
type Kind uint8

const (
	// KindCheckpoint is the ordinary barrier: operators write the epoch's
	// dirty state into its write set and forward the barrier.
	KindCheckpoint Kind = iota
	// KindInitial is the first barrier after a start or a recovery:
	// operators initialise their state as of Epoch.Prev, the committed
	// epoch, then treat it as a checkpoint barrier. It is committed like
	// any other.
	KindInitial
)

func (k Kind) String() string {
	switch k {
	case KindCheckpoint:
		return "checkpoint"
	case KindInitial:
		return "initial"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// JobID identifies a streaming job (the dataflow of one materialized view
// or sink).
type JobID uint32

// ActorID identifies one actor (a goroutine running a chain of operators)
// of a job.
type ActorID uint32

// WaiterID identifies someone waiting for a checkpoint to commit (a DML
// statement, FLUSH, or a DDL statement waiting for its mutation). The
// coordinator only passes it back; the caller maps it to whoever waits.
// Zero means nobody waits.
type WaiterID uint64

// Job is a streaming job as the coordinator sees it: the actors that must
// acknowledge every barrier. The engine injects a barrier into the job's
// source actors; it reaches every other actor through the dataflow.
type Job struct {
	ID     JobID
	Actors []ActorID
}

// MutationKind is the kind of control change a barrier carries.
type MutationKind uint8

const (
	// MutationNone: the barrier changes nothing.
	MutationNone MutationKind = iota
	// MutationAddJob: Mutation.Job's actors start with this barrier, which
	// is the first one they see (and acknowledge).
	MutationAddJob
	// MutationStopJob: Mutation.Job's actors acknowledge this barrier and
	// then stop; later barriers no longer await them.
	MutationStopJob
	// MutationPause: sources stop reading after this barrier (barriers
	// keep flowing).
	MutationPause
	// MutationResume: sources read again after this barrier.
	MutationResume
)

func (k MutationKind) String() string {
	switch k {
	case MutationNone:
		return "none"
	case MutationAddJob:
		return "add"
	case MutationStopJob:
		return "stop"
	case MutationPause:
		return "pause"
	case MutationResume:
		return "resume"
	}
	return fmt.Sprintf("MutationKind(%d)", uint8(k))
}

// Mutation is a control change carried by a barrier, so that every actor
// applies it at the same point of the stream.
type Mutation struct {
	Kind MutationKind
	// Job is the job added (with its actors) or stopped (ID only is
	// needed) by MutationAddJob and MutationStopJob.
	Job Job
}

// Barrier is a checkpoint barrier as injected by the coordinator.
type Barrier struct {
	Epoch    Epoch
	Kind     Kind
	Mutation Mutation
}

// WriteSet is an actor's contribution to a checkpoint, handed over with
// its acknowledgement: its state tables' dirty entries, source offsets,
// sink transaction records. The coordinator never looks inside; the IO
// layer commits it.
type WriteSet any

// ActorWriteSet is one actor's write set in a Commit action.
type ActorWriteSet struct {
	Actor    ActorID
	WriteSet WriteSet
}
