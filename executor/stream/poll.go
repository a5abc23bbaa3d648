package stream

import (
	"context"

	"github.com/weirdb/weir/types"
)

// poller is an Operator that can hand out its next message without
// waiting for an input: an operator whose own output may take long to
// produce (a ProjectSet expanding one row into millions) polls its input
// between output chunks, so that a barrier behind the row passes it
// mid-expansion instead of holding up the checkpoint.
//
// poll returns the next message and true when one is ready, or false
// when returning one would mean waiting on a channel. A message poll
// consumed but produced nothing for (a chunk a Filter dropped whole) also
// reports false: nothing is lost, the caller polls again later. poll and
// Next may be called in any order; each message is returned once.
type poller interface {
	poll(ctx context.Context) (types.Message, bool, error)
}

// pollable reports whether in implements poll; the operators that
// forward their input's messages implement it by polling their input,
// so an operator over one that cannot be polled (an aggregation in the
// same fragment) is told nothing is ready until it asks with Next.
func pollable(in Operator) bool {
	_, ok := in.(poller)
	return ok
}

// pollOf polls in, reporting nothing ready when in cannot be polled.
func pollOf(ctx context.Context, in Operator) (types.Message, bool, error) {
	if p, ok := in.(poller); ok {
		return p.poll(ctx)
	}
	return nil, false, nil
}
