package types

import "fmt"

// This file holds the vocabulary of checkpoint barriers shared by the
// stream operators (executor) and the barrier coordinator (checkpoint):
// DESIGN.md §2 and §5.

// Epoch is the pair of epochs a barrier separates: the rows before the
// barrier belong to Curr, and Prev is the epoch of the barrier before it
// (after a start or recovery: the committed epoch state was restored
// from).
type Epoch struct {
	Prev, Curr uint64
}

// EpochSeqBits is the number of low bits of an epoch that hold a sequence
// number; the bits above hold Unix milliseconds. An epoch is therefore
// (unix ms << 16) | seq, as in RisingWave: it reads as the wall-clock time
// its barrier was injected, it needs no counter of its own to stay
// monotonic across restarts (the next epoch is always above the last one
// handed out, which is at least the committed one read back from storage),
// and up to 65,536 barriers fit in one millisecond before the sequence
// carries into the millisecond bits (which keeps the order all the same).
const EpochSeqBits = 16

// EpochMillis returns the wall-clock time encoded in epoch e, in Unix
// milliseconds. Operators use it as the processing time of the epoch a
// barrier closes (state TTL).
func EpochMillis(e uint64) int64 { return int64(e >> EpochSeqBits) }

// BarrierKind says what a barrier asks of the operators it passes.
type BarrierKind uint8

const (
	// BarrierCheckpoint is the ordinary barrier: operators write the epoch's
	// dirty state into its write set and forward the barrier.
	BarrierCheckpoint BarrierKind = iota
	// BarrierInitial is the first barrier after a start or a recovery:
	// operators initialise their state as of Epoch.Prev, the committed
	// epoch, then treat it as a checkpoint barrier. It is committed like
	// any other.
	BarrierInitial
)

func (k BarrierKind) String() string {
	switch k {
	case BarrierCheckpoint:
		return "checkpoint"
	case BarrierInitial:
		return "initial"
	}
	return fmt.Sprintf("BarrierKind(%d)", uint8(k))
}

// JobID identifies a streaming job (the dataflow of one materialized view
// or sink).
type JobID uint32

// ActorID identifies one actor (a goroutine running a chain of operators)
// of a job.
type ActorID uint32

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
	// MutationAddJob: Mutation.Job's actors (and those of Mutation.With)
	// start with this barrier, which is the first one they see (and
	// acknowledge).
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
	// With holds further jobs MutationAddJob adds with Job: a region of
	// jobs (a view and the jobs reading it) restarted together, so that
	// each reader sees its upstream's output from the same barrier on.
	With []Job
}

// Adds reports whether the barrier carrying m starts job id: it is
// MutationAddJob's Job or one of With.
func (m Mutation) Adds(id JobID) bool {
	if m.Kind != MutationAddJob {
		return false
	}
	if m.Job.ID == id {
		return true
	}
	for _, j := range m.With {
		if j.ID == id {
			return true
		}
	}
	return false
}

// Barrier is a checkpoint barrier as injected by the coordinator.
type Barrier struct {
	Epoch    Epoch
	Kind     BarrierKind
	Mutation Mutation
}

// Watermark says that no later row will have a value below Val in column
// Col (of type T) of the stream it travels in (DESIGN.md §2). Multi-input
// operators forward the minimum over their inputs.
type Watermark struct {
	Col int
	T   T
	Val Datum
}

// Message is what flows between stream operators: exactly *Chunk, Barrier
// or Watermark (DESIGN.md §2). The interface is sealed by an unexported
// method.
type Message interface{ isMessage() }

func (*Chunk) isMessage()    {}
func (Barrier) isMessage()   {}
func (Watermark) isMessage() {}
