package stream

import (
	"context"

	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// TableInput is where the engine feeds one table's changes into a job
// that scans it: one channel per actor of the scan's fragment. The
// engine pushes each DML statement's changes (whole rows in Rel.Cols
// order, with ops +, -, U-, U+) with Push, after assigning them to the
// epoch in progress, and the coordinator's barriers reach the same
// channels through Job.Inject, so every actor sees an epoch's changes
// before the barrier that ends it.
//
// Rows are partitioned across the channels by a hash of the table's
// primary key, as the backfill partitions the table's snapshot, so a key
// is always handled by the actor with the same Index (no-shuffle
// backfill).
//
// The engine must start pushing a table's changes to a new job from the
// epoch after the barrier that adds the job (the AddJob barrier ends the
// last epoch the job does not see), and it must write a table's changes
// to storage in the checkpoint of the epoch they were assigned to: a
// backfill reads the table's storage as the state of the last committed
// epoch.
type TableInput struct {
	Rel *catalog.Relation
	// Relayed is set (before the job runs) when the relation is a view
	// whose changes, and barriers, come from the view's own job through
	// the engine (Job.Output): Job.Inject then leaves this input alone,
	// since its barriers arrive with the view's changes.
	Relayed bool
	outs    []chan<- types.Message
	disp    *hashDispatcher
}

// Push sends a chunk of the table's changes in the open epoch, blocking
// while the job's input is full (backpressure), unless ctx is done first.
// The chunk is copied: the caller may reuse it.
func (t *TableInput) Push(ctx context.Context, c *types.Chunk) error {
	return t.disp.dispatch(ctx, c)
}

// Inject sends a barrier or watermark to every actor reading the table
// (the engine relays a view's barriers this way).
func (t *TableInput) Inject(ctx context.Context, b types.Message) error {
	return broadcastAll(ctx, t.outs, b)
}

// inject sends a barrier to every actor reading the table.
func (t *TableInput) inject(ctx context.Context, b types.Barrier) error {
	return broadcastAll(ctx, t.outs, b)
}

// TableSource is the stream of a table's changes as one actor of the
// scan's fragment receives it from its TableInput channel: chunks of
// whole rows (Rel.Cols order) assigned to epochs, and the barriers the
// coordinator injects. It is the input of a Backfill.
//
//   - Chunk: returned as received.
//   - Watermark: returned as received.
//   - Barrier: returned as received (a table source has no state; the
//     engine commits the table's rows itself).
type TableSource struct {
	ch <-chan types.Message
}

var _ Operator = (*TableSource)(nil)

// Next implements Operator.
func (s *TableSource) Next(ctx context.Context) (types.Message, error) {
	select {
	case m := <-s.ch:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// poll implements poller: the next message if one is waiting.
func (s *TableSource) poll(context.Context) (types.Message, bool, error) {
	select {
	case m := <-s.ch:
		return m, true, nil
	default:
		return nil, false, nil
	}
}

// Close implements Operator.
func (s *TableSource) Close() {}
