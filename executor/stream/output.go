package stream

import (
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
		a.out = &simpleDispatcher{outs: []chan<- types.Message{ch}}
		ins[i] = ch
	}
	return newMerge(ins), nil
}
