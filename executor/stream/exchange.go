package stream

import (
	"context"
	"time"

	"github.com/weirdb/weir/types"
)

// An exchange joins the actors of two fragments (DESIGN.md §3): the N
// actors upstream each hold a dispatcher with one bounded channel to each
// of the M actors downstream, and every downstream actor reads its N
// channels through a Merge. The full N×M matrix of channels exists even
// when a dispatcher sends rows to only some outputs, because barriers and
// watermarks go to every output: each downstream actor must see every
// upstream actor's barrier to align them.
//
// Channels carry types.Message values and are the only place where actors
// meet. A chunk sent on a channel belongs to its receiver.

// ChannelCap is the capacity, in messages, of a channel between two
// actors. A chunk holds at most about types.ChunkCap rows, so a channel
// buffers a few thousand rows before its sender blocks (backpressure).
const ChannelCap = 8

// exchange is the channel matrix of one fragment boundary: chans[i][j]
// carries upstream actor i's messages to downstream actor j.
type exchange struct {
	chans [][]chan types.Message
}

func newExchange(n, m int) *exchange {
	x := &exchange{chans: make([][]chan types.Message, n)}
	for i := range x.chans {
		x.chans[i] = make([]chan types.Message, m)
		for j := range x.chans[i] {
			x.chans[i][j] = make(chan types.Message, ChannelCap)
		}
	}
	return x
}

// outputs returns upstream actor i's channels, indexed by downstream
// actor.
func (x *exchange) outputs(i int) []chan<- types.Message {
	out := make([]chan<- types.Message, len(x.chans[i]))
	for j, c := range x.chans[i] {
		out[j] = c
	}
	return out
}

// inputs returns downstream actor j's channels, indexed by upstream
// actor.
func (x *exchange) inputs(j int) []<-chan types.Message {
	in := make([]<-chan types.Message, len(x.chans))
	for i := range x.chans {
		in[i] = x.chans[i][j]
	}
	return in
}

// send puts m on ch, blocking while ch is full, unless ctx is done first.
func send(ctx context.Context, ch chan<- types.Message, m types.Message) error {
	select {
	case ch <- m:
		return nil
	default:
	}
	// The channel is full: the receiver is behind, and the time until it
	// takes m is this actor's backpressure.
	defer addBlocked(ctx, time.Now())
	select {
	case ch <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
