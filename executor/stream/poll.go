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

// pollable reports whether in can be polled down to the operator that
// receives its messages (a channel's reader, or a backfill). The
// operators that forward their input's messages (Project, Filter, the
// stats wrapper) poll their input, so over one that cannot be polled (an
// aggregation in the same fragment) they report nothing ready until
// asked with Next.
func pollable(in Operator) bool {
	switch o := in.(type) {
	case counted:
		return pollable(o.Operator)
	case *Project:
		return pollable(o.in)
	case *Filter:
		return pollable(o.in)
	case *Values:
		return pollable(o.in)
	}
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
