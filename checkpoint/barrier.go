package checkpoint

import (
	"fmt"
	"time"

	"github.com/weirdb/weir/types"
)

// EpochSeqBits is the number of low bits of an epoch that hold a sequence
// number (types.EpochSeqBits, where the layout is described).
const EpochSeqBits = types.EpochSeqBits

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
	return time.UnixMilli(types.EpochMillis(e))
}

// epochString formats an epoch as <unix ms>.<seq>, which reads better
// than the raw number in logs and traces.
func epochString(e uint64) string {
	return fmt.Sprintf("%d.%d", e>>EpochSeqBits, e&(1<<EpochSeqBits-1))
}

// The barrier vocabulary (Epoch, Kind, Barrier, Mutation, Job, ...) lives
// in package types so that stream operators (executor) and this package
// share it; these aliases keep the coordinator's own names.
type (
	Epoch        = types.Epoch
	Kind         = types.BarrierKind
	JobID        = types.JobID
	ActorID      = types.ActorID
	Job          = types.Job
	MutationKind = types.MutationKind
	Mutation     = types.Mutation
	Barrier      = types.Barrier
)

// Barrier kinds and mutation kinds, as in package types.
const (
	KindCheckpoint  = types.BarrierCheckpoint
	KindInitial     = types.BarrierInitial
	MutationNone    = types.MutationNone
	MutationAddJob  = types.MutationAddJob
	MutationStopJob = types.MutationStopJob
	MutationPause   = types.MutationPause
	MutationResume  = types.MutationResume
)

// WaiterID identifies someone waiting for a checkpoint to commit (a DML
// statement, FLUSH, or a DDL statement waiting for its mutation). The
// coordinator only passes it back; the caller maps it to whoever waits.
// Zero means nobody waits.
type WaiterID uint64

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
