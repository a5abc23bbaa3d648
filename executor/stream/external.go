package stream

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// This file is the contract between the stream executor and connectors
// (DESIGN.md §7). The executor knows nothing of Kafka: the engine
// implements these interfaces over connector/kafka and hands them to
// Build through Env.OpenSource and Env.OpenSink.

// SourceBatch is what one SourceReader.Poll returns.
type SourceBatch struct {
	// Chunk holds the rows read, in the source relation's column order
	// (StreamSource.Rel.Cols: declared columns, INCLUDE columns, hidden
	// _row_id), op Insert, or Delete for an UPSERT tombstone. It may be
	// nil or empty when only positions moved (skipped records).
	Chunk *types.Chunk
	// Positions is the next offset to read per partition after this
	// batch, for every partition being read.
	Positions map[int32]int64
	// Partitions, when set, is the partition of each row of Chunk; a
	// source with a watermark tracks event time per partition with it
	// (without it, all rows count as partition 0).
	Partitions []int32
	// Malformed is how many records the batch's positions moved past
	// without a row, skipped as malformed; the source counts them with
	// its positions, so a count survives a restart and a replay after a
	// recovery counts each record once.
	Malformed int64
}

// SourceReader reads an external source for one source actor. Poll and
// Close are called from one goroutine at a time.
type SourceReader interface {
	// Poll returns up to max rows; it waits for records until some arrive
	// or ctx ends (then it returns an empty batch and no error, or ctx's
	// error). Errors: the source cannot be read; the actor fails and the
	// job recovers from the last checkpoint.
	Poll(ctx context.Context, max int) (SourceBatch, error)
	// Close releases the reader's clients.
	Close()
}

// OpenSourceFunc opens the reader of source node n for the actor actx,
// resuming after positions (the next offset per partition from the last
// committed checkpoint; empty on the job's first start, when the source's
// scan.startup.mode applies).
type OpenSourceFunc func(ctx context.Context, actx *ActorContext, n *planner.StreamSource, positions map[int32]int64) (SourceReader, error)

// SinkTxn is a pre-committed transaction of a sink as the checkpoint
// stores it: ID is the transactional id, Epoch the checkpoint epoch whose
// rows it holds, Data the connector's encoding of everything recovery
// needs to commit it.
type SinkTxn struct {
	ID    string
	Epoch uint64
	Data  []byte
}

// SinkWriter writes one sink actor's rows, one transaction per
// checkpoint epoch (two-phase commit, DESIGN.md §5):
//
//	BeginEpoch(e) → Write... → barrier: PreCommit, TakeDone → checkpoint
//	e commits → Commit(txn_e)
//
// Calls come from one goroutine at a time (the sink operator serialises
// its actor and its committer).
type SinkWriter interface {
	// BeginEpoch starts writing epoch e.
	BeginEpoch(e uint64) error
	// Write encodes and sends the visible rows of c (the sink's columns,
	// StreamSink.Rel.Cols order) with their ops, as the sink's format
	// says. Records become visible to read_committed readers only at
	// Commit.
	Write(ctx context.Context, c *types.Chunk) error
	// PreCommit flushes the open epoch (phase one). ok is false when
	// there is nothing to record (at-least-once, or an epoch that wrote
	// nothing and opened no transaction).
	PreCommit(ctx context.Context) (txn SinkTxn, ok bool, err error)
	// TakeDone returns the transactions committed since the last call;
	// their rows are deleted from the sink's state in the checkpoint being
	// taken.
	TakeDone() []SinkTxn
	// Commit commits txn (phase two) once the checkpoint holding it is
	// committed. It is idempotent.
	Commit(ctx context.Context, txn SinkTxn) error
	// Abort gives up the open epoch and every pre-committed transaction
	// whose checkpoint will not commit.
	Abort(ctx context.Context) error
	// Close closes the writer's clients without ending transactions.
	Close()
}

// OpenSinkFunc opens the writer of sink node n for the actor actx.
// pending are the transactions the committed checkpoint recorded for this
// actor and that were not marked done: the function must commit them
// (recovery) before it starts any producer, which aborts whatever else
// was left open.
type OpenSinkFunc func(ctx context.Context, actx *ActorContext, n *planner.StreamSink, pending []SinkTxn) (SinkWriter, error)
