package stream

import (
	"context"
	"sync/atomic"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Output taps the job's root fragment: every message its actors emit
// (the chunks Materialize applied, in its input's column order, and the
// barriers and watermarks after them) is also sent to the returned
// operator, which merges the actors' streams with barrier alignment, as
// an exchange does. It is how a view's changes reach the jobs that read
// the view: the engine relays them into those jobs' table inputs
// (TableInput.Relayed), barriers included, so a downstream job sees a
// view's changes of an epoch before that epoch's barrier.
//
// The taps are shut until the caller opens them (TapFrom): while no job
// reads the view there is no one to relay its changes to, and every
// chunk and barrier sent on a tap would wake the reader for nothing, on
// the path of every checkpoint. Watermarks always pass (the engine
// keeps a view's latest watermarks for the readers created later).
//
// Output must be called before Run, at most once, and the caller must
// keep reading the operator until the job ends (or its context is
// cancelled): the taps are bounded channels, and an actor blocks on a
// full one (backpressure).
func (j *Job) Output() (Operator, error) {
	if len(j.Fragments) == 0 {
		return nil, pgerr.New(pgerr.InternalError, "stream job %d has no fragments", j.ID)
	}
	root := j.Fragments[0]
	ins := make([]<-chan types.Message, len(root.Actors))
	for i, a := range root.Actors {
		if a.out != nil {
			return nil, pgerr.New(pgerr.InternalError, "stream job %d: root actor %d already has an output", j.ID, a.ID())
		}
		ch := make(chan types.Message, ChannelCap)
		a.out = &tapDispatcher{out: simpleDispatcher{outs: []chan<- types.Message{ch}}, gate: &j.tap}
		ins[i] = ch
	}
	return newMerge(ins), nil
}

// TapFrom opens the taps of Output from the barrier of epoch on: each
// root actor sends that barrier and every message after it. The first
// call decides, later ones change nothing, so that every root actor
// opens its tap at the same barrier (the operator reading the taps
// aligns their barriers). Call it before epoch's barrier is injected.
func (j *Job) TapFrom(epoch uint64) {
	j.tap.from.CompareAndSwap(0, epoch)
}

// tapGate is the epoch from which a job's Output taps are open; 0 while
// they are shut.
type tapGate struct {
	from atomic.Uint64
}

// tapDispatcher is a root actor's tap (Job.Output): shut, it drops
// chunks and barriers and passes watermarks; it opens at the first
// barrier of an epoch at or past its gate's, and stays open.
type tapDispatcher struct {
	out  simpleDispatcher
	gate *tapGate
	open bool
}

func (d *tapDispatcher) dispatch(ctx context.Context, m types.Message) error {
	if !d.open {
		switch m := m.(type) {
		case types.Barrier:
			from := d.gate.from.Load()
			if from == 0 || m.Epoch.Curr < from {
				return nil
			}
			d.open = true
		case *types.Chunk:
			return nil
		}
	}
	return d.out.dispatch(ctx, m)
}
