package stream

import (
	"context"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// Operator is a pull-based stream operator (DESIGN.md §3). Next returns
// the next message: a *types.Chunk, a types.Barrier or a types.Watermark.
// The first message every operator sees and returns is a barrier; state is
// initialised from it (no Open). An error fails the actor, and the job
// recovers from the last committed checkpoint. Close releases resources
// and is idempotent.
//
// Every operator file has the same shape: a struct doc stating how it
// handles Chunk, Watermark and Barrier; a constructor; one Next loop; on a
// barrier, in this order: emit pending output → write dirty state into
// the epoch's write set → emit watermarks → forward the barrier.
type Operator interface {
	Next(ctx context.Context) (types.Message, error)
	Close()
}

// ActorContext is what operators of one actor share: the actor's identity
// and the write set of the epoch in progress. Stateful operators, on a
// barrier, move their state tables' dirty entries into WriteSet (via
// StateTable.Commit); the actor hands WriteSet to the checkpoint
// coordinator with its acknowledgement and starts a fresh one. Only the
// actor's goroutine touches it.
type ActorContext struct {
	Job   types.JobID
	Actor types.ActorID
	// Index is the actor's position among its fragment's Parallelism
	// actors (for hash partitioning).
	Index, Parallelism int
	DB                 *storage.DB
	Cache              *storage.Cache
	// WriteSet is the current epoch's batch of state writes.
	WriteSet *storage.Batch
	// Errors records expression errors that were turned into NULLs
	// (division by zero in one row never stops the job).
	Errors ErrorRecorder
	// Eval is what expressions read besides their input row (the time
	// zone for timestamptz arithmetic, for instance); never nil in an
	// actor built by Build. Operators must not change it.
	Eval *executor.EvalCtx
	// Watermarks learns of the sources' watermarks and late rows; may be
	// nil.
	Watermarks WatermarkRecorder
	// Now reads the clock (nil: time.Now), and ExpansionHold says how
	// long a ProjectSet holds a barrier behind an expansion in progress
	// (nil: DefaultExpansionHold); both come from Env.
	Now           func() time.Time
	ExpansionHold func() time.Duration
	// Hold is shared by the job's actors: its sinks hold it while their
	// log store is full, and its sources then take no input. May be nil.
	Hold *JobHold
	// sinkGates are shared by the job's actors: a decoupled sink's actors
	// meet at its gate (sink_log.go). May be nil: each actor then has a
	// gate of its own.
	sinkGates *sinkGates
	// tables are the state tables the actor's operators made (Track),
	// whose memory the actor gives back to Cache when it ends.
	tables []*storage.StateTable
}

// Track records t as a state table of the actor, which gives its memory
// back to the cache when it ends (ReleaseTables), and returns t. A nil
// context tracks nothing.
func (c *ActorContext) Track(t *storage.StateTable) *storage.StateTable {
	if c != nil {
		c.tables = append(c.tables, t)
	}
	return t
}

// ReleaseTables gives the memory of the actor's state tables back to the
// cache: the actor has ended, and nothing reads them any more.
func (c *ActorContext) ReleaseTables() {
	for _, t := range c.tables {
		t.Release()
	}
	c.tables = nil
}

// WatermarkRecorder learns of the watermarks that sources generate and
// of the rows they drop for arriving behind them (the engine shows both
// in a system view and logs the drops). Calls come from actor
// goroutines, concurrently.
type WatermarkRecorder interface {
	// LateRows reports that n rows of relation rel arrived behind the
	// source's watermark w and were dropped.
	LateRows(job types.JobID, rel uint32, n int64, w types.Watermark)
	// Watermark reports the watermark w the source of relation rel in job
	// emitted.
	Watermark(job types.JobID, rel uint32, w types.Watermark)
	// MalformedRecords reports that n records of the source of relation
	// rel were skipped as malformed.
	MalformedRecords(job types.JobID, rel uint32, n int64)
	// RestoreSourceCounts reports that the source of relation rel in job
	// resumed from a checkpoint that had counted late rows and malformed
	// records: job's counts are these (what was counted after the
	// checkpoint is read, and reported, again).
	RestoreSourceCounts(job types.JobID, rel uint32, late, malformed int64)
}

// ErrorRecorder counts and remembers errors raised while evaluating one
// row's expressions; the row gets NULL and the job goes on. The engine
// shows them in a system view and the log.
type ErrorRecorder interface {
	Record(job types.JobID, operator string, err error)
}
