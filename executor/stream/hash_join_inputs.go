package stream

import (
	"context"
	"sync"

	"github.com/weirdb/weir/types"
)

// joinInputs reads a join's two inputs fairly, whichever has data, and
// aligns their barriers (DESIGN.md §3): after one input delivered barrier
// e it is not read again until the other delivered e too, and e is then
// reported once.
//
// In a built job both inputs are exchange receivers (Build runs each
// input of a multi-input operator in actors of its own), so their
// channels are read directly by one aligner, with no goroutine of the
// join's own. Any other input (an operator, a test's scripted input) is
// pulled by a small goroutine, its pump, that feeds a channel the aligner
// reads: blocking on one input's Next while the other has data could
// stall the dataflow. A pump stops pulling after it passed a barrier and
// waits until the join is asked for its next message after forwarding
// that barrier, so an input's operators never write the actor's WriteSet
// while the join commits or after the actor took the epoch's write set.
// The two pumps do run at the same time, so at most one of two pumped
// inputs may hold state of its own (two would write the WriteSet at
// once); Build never pumps.
type joinInputs struct {
	inputs [2]Operator
	al     *aligner
	pumps  []*pump

	// resume: the last message returned was an aligned barrier, so the
	// pumps must be released before reading on.
	resume bool
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// pump pulls one input in a goroutine of its own.
type pump struct {
	in     Operator
	ch     chan types.Message
	resume chan struct{}
	// err is the input's error, set before ch is closed.
	err error
}

func newJoinInputs(left, right Operator) (*joinInputs, error) {
	ji := &joinInputs{inputs: [2]Operator{left, right}}
	_, lm := left.(*Merge)
	_, rm := right.(*Merge)
	if lm && rm {
		al, err := alignInputs(left, right)
		if err != nil {
			return nil, err
		}
		ji.al = al
		return ji, nil
	}
	chans := make([]<-chan types.Message, 2)
	for i, in := range ji.inputs {
		p := &pump{in: in, ch: make(chan types.Message, 1), resume: make(chan struct{}, 1)}
		ji.pumps = append(ji.pumps, p)
		chans[i] = p.ch
	}
	ji.al = newAligner(chans, []int{0, 1}, 2)
	return ji, nil
}

// next returns the next message and its side (0 left, 1 right); an
// aligned barrier reports side 0.
func (ji *joinInputs) next(ctx context.Context) (int, types.Message, error) {
	if ji.pumps != nil {
		if ji.cancel == nil {
			// The pumps run under the first call's context (the actor's)
			// and stop when it ends or Close cancels them.
			pctx, cancel := context.WithCancel(ctx)
			ji.cancel = cancel
			for _, p := range ji.pumps {
				ji.wg.Add(1)
				go p.run(pctx, &ji.wg)
			}
		}
		if ji.resume {
			for _, p := range ji.pumps {
				p.resume <- struct{}{}
			}
		}
	}
	ji.resume = false
	side, msg, err := ji.al.next(ctx)
	if err != nil {
		// A pump whose input failed closed its channel after setting
		// err; report the input's error rather than the closed channel.
		for _, p := range ji.pumps {
			select {
			case _, ok := <-p.ch:
				if !ok && p.err != nil {
					return 0, nil, p.err
				}
			default:
			}
		}
		return 0, nil, err
	}
	if _, ok := msg.(types.Barrier); ok {
		ji.resume = true
	}
	return side, msg, nil
}

func (p *pump) run(ctx context.Context, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		msg, err := p.in.Next(ctx)
		if err != nil {
			p.err = err
			close(p.ch)
			return
		}
		select {
		case p.ch <- msg:
		case <-ctx.Done():
			return
		}
		if _, ok := msg.(types.Barrier); ok {
			select {
			case <-p.resume:
			case <-ctx.Done():
				return
			}
		}
	}
}

// close stops the pumps, waits for them, and closes both inputs.
func (ji *joinInputs) close() {
	if ji.cancel != nil {
		ji.cancel()
		ji.wg.Wait()
		ji.cancel = nil
	}
	for _, in := range ji.inputs {
		if in != nil {
			in.Close()
		}
	}
	ji.inputs = [2]Operator{}
}
