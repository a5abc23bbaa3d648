package stream

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// OperatorStats counts what one operator of a job (one plan node, summed
// over the actors that run it) has done since the job was built: the rows
// it emitted, and how long the actors whose chain it ends were blocked
// sending to a full channel of the next fragment (backpressure: the
// consumer is slower than this operator). Rows into a node are the rows
// out of its inputs. All fields are updated by actor goroutines and may
// be read from any goroutine.
type OperatorStats struct {
	// Node is the plan node the operator was built from.
	Node planner.StreamNode
	// RowsOut counts the visible rows of the chunks the operator
	// returned (an update pair counts two rows).
	RowsOut atomic.Int64
	// BlockedNanos is the time, in nanoseconds, that actors ending with
	// this operator waited for room in a full output channel.
	BlockedNanos atomic.Int64
}

// Stats returns the statistics of every operator of the job, by plan
// node. The map is fixed once Build returns; the counters move while the
// job runs.
func (j *Job) Stats() map[planner.StreamNode]*OperatorStats { return j.stats }

// statsOf returns the statistics of node, creating them.
func (b *builder) statsOf(node planner.StreamNode) *OperatorStats {
	if b.job.stats == nil {
		b.job.stats = map[planner.StreamNode]*OperatorStats{}
	}
	s := b.job.stats[node]
	if s == nil {
		s = &OperatorStats{Node: node}
		b.job.stats[node] = s
	}
	return s
}

// counted wraps an operator to count the rows it returns. Only operators
// built from plan nodes are wrapped; exchange receivers (Merge) are not,
// as multi-input operators need them as they are.
type counted struct {
	Operator
	s *OperatorStats
}

func (c counted) Next(ctx context.Context) (types.Message, error) {
	m, err := c.Operator.Next(ctx)
	if ch, ok := m.(*types.Chunk); ok && ch != nil {
		c.s.RowsOut.Add(int64(ch.VisibleCount()))
	}
	return m, err
}

// poll implements poller over the wrapped operator's poll.
func (c counted) poll(ctx context.Context) (types.Message, bool, error) {
	m, ok, err := pollOf(ctx, c.Operator)
	if ch, isChunk := m.(*types.Chunk); ok && isChunk && ch != nil {
		c.s.RowsOut.Add(int64(ch.VisibleCount()))
	}
	return m, ok, err
}

// blockedKey is the context key of the counter that send adds its
// blocked time to.
type blockedKey struct{}

// withBlockedCounter returns ctx carrying the counter of the time an
// actor spends blocked sending on full channels.
func withBlockedCounter(ctx context.Context, c *atomic.Int64) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, blockedKey{}, c)
}

// addBlocked adds the time since start to ctx's blocked-time counter, if
// it has one. It is called only on send's slow path (the channel was
// full), so the context lookup costs nothing on the fast path.
func addBlocked(ctx context.Context, start time.Time) {
	if c, ok := ctx.Value(blockedKey{}).(*atomic.Int64); ok {
		c.Add(int64(time.Since(start)))
	}
}
