package stream

import (
	"context"
	"errors"
	"runtime/debug"
	"sync/atomic"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// BarrierSink receives what actors report to the checkpoint coordinator.
// The engine implements it over the checkpoint driver (checkpoint.Driver's
// Ack and ActorFailed).
type BarrierSink interface {
	// Ack acknowledges that barrier epoch (its Epoch.Curr) has left the
	// actor, handing over the actor's write set for that epoch: its state
	// tables' dirty entries. The sink owns ws from then on: it merges it
	// into the epoch's commit (storage.Batch.Apply) and closes it. ws is
	// nil when the actor wrote nothing in the epoch.
	Ack(ctx context.Context, epoch uint64, actor types.ActorID, ws *storage.Batch) error
	// ActorFailed reports an actor that stopped with err; the coordinator
	// then recovers the jobs from the last committed checkpoint.
	ActorFailed(ctx context.Context, actor types.ActorID, err error) error
}

// Actor is one goroutine pulling messages from the root of its chain of
// fused operators and pushing them to its dispatcher: the channels to
// the next fragment's actors, or nowhere for the job's root fragment
// (Materialize writes the view itself).
//
// On every barrier that leaves the root, the actor dispatches it, then
// acknowledges it to the BarrierSink with the epoch's write set
// (ActorContext.WriteSet, which the operators filled on the barrier) and
// starts a fresh write set for the next epoch; a write set left empty
// is kept for the next epoch and the acknowledgement carries none (most
// actors of a job write nothing in the epoch of a single-row INSERT). A barrier whose mutation
// stops the actor's job is acknowledged like any other, and then the
// actor ends. An error fails the actor: it is reported to the sink and
// the job is recovered by the coordinator; a panic in an operator is
// recovered and fails the actor the same way. When ctx is cancelled (the
// engine stops the job, or recovery stops every actor), the actor ends
// without reporting anything.
type Actor struct {
	ctx  *ActorContext
	root Operator
	out  dispatcher // nil for the job's root fragment
	sink BarrierSink
	// blocked counts the time spent waiting on full output channels
	// (OperatorStats.BlockedNanos of the fragment's root); may be nil.
	blocked *atomic.Int64
}

// ID returns the actor's id.
func (a *Actor) ID() types.ActorID { return a.ctx.Actor }

// Context returns the context its operators share.
func (a *Actor) Context() *ActorContext { return a.ctx }

// Run runs the actor until its job is stopped (nil), ctx is cancelled
// (nil), or an operator fails (the error, also reported to the sink). It
// closes the operator chain and gives its state tables' memory back to
// the cache before returning.
func (a *Actor) Run(ctx context.Context) error {
	// Last, once the operators are closed: their state tables' memory
	// goes back to the cache.
	defer a.ctx.ReleaseTables()
	defer a.root.Close()
	defer func() {
		if a.ctx.WriteSet != nil {
			a.ctx.WriteSet.Close()
			a.ctx.WriteSet = nil
		}
	}()
	err := a.runRecovered(ctx)
	if err == nil || ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return nil
	}
	if rerr := a.sink.ActorFailed(ctx, a.ctx.Actor, err); rerr != nil && ctx.Err() == nil {
		return errors.Join(err, rerr)
	}
	return err
}

// runRecovered runs the actor's loop and turns a panic inside it (an
// operator's bug) into an error, so that it fails this actor's job, which
// is restarted, rather than the process.
func (a *Actor) runRecovered(ctx context.Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			stack := debug.Stack()
			if len(stack) > 4096 {
				stack = stack[:4096]
			}
			err = pgerr.New(pgerr.InternalError, "stream operator panicked in actor %d: %v", a.ctx.Actor, r).
				WithDetail("%s", stack)
		}
	}()
	return a.run(ctx)
}

func (a *Actor) run(ctx context.Context) error {
	if a.ctx.WriteSet == nil {
		a.ctx.WriteSet = a.ctx.DB.NewWriteBatch()
	}
	// The write sets count in the state's budget until their
	// checkpoint commits (storage.Batch.Account).
	a.ctx.WriteSet.Account(a.ctx.Cache)
	ctx = withBlockedCounter(ctx, a.blocked)
	for {
		msg, err := a.root.Next(ctx)
		if err != nil {
			return err
		}
		if msg == nil {
			return pgerr.New(pgerr.InternalError, "stream operator %T returned no message", a.root)
		}
		if a.out != nil {
			if err := a.out.dispatch(ctx, msg); err != nil {
				return err
			}
		}
		b, ok := msg.(types.Barrier)
		if !ok {
			continue
		}
		ws := a.ctx.WriteSet
		if ws.Empty() {
			if err := a.sink.Ack(ctx, b.Epoch.Curr, a.ctx.Actor, nil); err != nil {
				return err
			}
			if b.Mutation.Kind == types.MutationStopJob && b.Mutation.Job.ID == a.ctx.Job {
				return nil
			}
			continue
		}
		// The next epoch's writes are foreseen to be about this one's,
		// with a quarter to spare: for growth, and so that the largest
		// write set of an epoch has room for the others to be merged
		// into it (engine streamIO.Commit) without copying it. Room not
		// written to costs no resident memory, but the Go runtime counts
		// it against its soft limit from the start: the room reserved is
		// at most an operator's share of the budget (OperatorBuffer), and
		// a larger epoch's write set grows as it fills. (Reserving
		// 1.25 times a 114 MB write set, as Nexmark q20 writes over 10M
		// events, put the live heap above the soft limit.)
		a.ctx.WriteSet = a.ctx.DB.NewWriteBatchSize(a.nextWriteSetSize(ws.Bytes()))
		a.ctx.WriteSet.Account(a.ctx.Cache)
		if err := a.sink.Ack(ctx, b.Epoch.Curr, a.ctx.Actor, ws); err != nil {
			return err
		}
		if b.Mutation.Kind == types.MutationStopJob && b.Mutation.Job.ID == a.ctx.Job {
			return nil
		}
	}
}

// nextWriteSetSize returns the bytes to reserve for the next epoch's
// write set after one of last bytes.
func (a *Actor) nextWriteSetSize(last int) int {
	n := last + last/4
	if a.ctx.Cache != nil {
		n = min(n, int(a.ctx.Cache.OperatorBuffer()))
	}
	return n + 4<<10
}
