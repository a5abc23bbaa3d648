package stream

import (
	"context"
	"sync"

	"github.com/weirdb/weir/types"
)

// dispatcher sends an actor's output to the channels of the next
// fragment's actors. Barriers and watermarks go to every output; chunks
// go where the dispatcher's distribution says, each receiver getting a
// chunk of its own (compacted to the visible rows).
type dispatcher interface {
	dispatch(ctx context.Context, m types.Message) error
}

// broadcastAll sends a barrier or watermark to every output.
func broadcastAll(ctx context.Context, outs []chan<- types.Message, m types.Message) error {
	for _, o := range outs {
		if err := send(ctx, o, m); err != nil {
			return err
		}
	}
	return nil
}

// hashDispatcher partitions rows by a hash of the key columns keys:
// row r goes to output partitionOf(hash(r.keys), len(outs)), which is
// the downstream actor with that Index. An update pair whose key moves to
// another partition is split: its U- leaves as a delete to the old key's
// actor and its U+ as an insert to the new key's actor, so each actor
// still sees well-formed pairs.
type hashDispatcher struct {
	outs []chan<- types.Message
	keys []int
	// sels and ops are scratch kept between calls, guarded by mu: each
	// partition's rows of a chunk and their ops. A call that finds mu
	// taken (a TableInput's Push callers are not known) uses its own.
	mu   sync.Mutex
	sels [][]int
	ops  [][]types.Op
}

func (d *hashDispatcher) dispatch(ctx context.Context, m types.Message) error {
	c, ok := m.(*types.Chunk)
	if !ok {
		return broadcastAll(ctx, d.outs, m)
	}
	n := len(d.outs)
	if n == 1 {
		if cc := compactChunk(c); cc != nil {
			return send(ctx, d.outs[0], cc)
		}
		return nil
	}
	// Each partition's rows (and ops, which a split update pair changes)
	// are gathered first, then copied column by column.
	var sels [][]int
	var ops [][]types.Op
	locked := d.mu.TryLock()
	if locked {
		if len(d.sels) != n {
			d.sels, d.ops = make([][]int, n), make([][]types.Op, n)
		}
		sels, ops = d.sels, d.ops
	} else {
		sels, ops = make([][]int, n), make([][]types.Op, n)
	}
	for p := range sels {
		sels[p], ops[p] = sels[p][:0], ops[p][:0]
	}
	put := func(p int, op types.Op, i int) {
		sels[p] = append(sels[p], i)
		ops[p] = append(ops[p], op)
	}
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		op := c.Op(i)
		p := partitionOf(hashChunkRow(c, i, d.keys), n)
		if op == types.OpUpdateDelete && i+1 < c.Len() && c.Op(i+1) == types.OpUpdateInsert && c.Visible(i+1) {
			q := partitionOf(hashChunkRow(c, i+1, d.keys), n)
			if p == q {
				put(p, types.OpUpdateDelete, i)
				put(p, types.OpUpdateInsert, i+1)
			} else {
				put(p, types.OpDelete, i)
				put(q, types.OpInsert, i+1)
			}
			i++
			continue
		}
		put(p, op, i)
	}
	parts := make([]*types.Chunk, n)
	for p, sel := range sels {
		if len(sel) > 0 {
			pops := insertsAsNil(ops[p])
			if pops != nil {
				pops = append([]types.Op(nil), pops...)
			}
			parts[p] = gatherChunk(c, sel, len(sel), pops)
		}
	}
	if locked {
		d.mu.Unlock()
	}
	for p, pc := range parts {
		if pc != nil {
			if err := send(ctx, d.outs[p], pc); err != nil {
				return err
			}
		}
	}
	return nil
}

// broadcastDispatcher sends every message, chunks included, to every
// output (each output gets its own copy of a chunk).
type broadcastDispatcher struct {
	outs []chan<- types.Message
}

func (d *broadcastDispatcher) dispatch(ctx context.Context, m types.Message) error {
	c, ok := m.(*types.Chunk)
	if !ok {
		return broadcastAll(ctx, d.outs, m)
	}
	for _, o := range d.outs {
		if cc := compactChunk(c); cc != nil {
			if err := send(ctx, o, cc); err != nil {
				return err
			}
		}
	}
	return nil
}

// simpleDispatcher sends every chunk to one output, target: the single
// actor of a DistSingle fragment, or, between fragments joined without
// repartitioning, the downstream actor paired with the sender. Barriers
// and watermarks still go to every output.
type simpleDispatcher struct {
	outs   []chan<- types.Message
	target int
}

func (d *simpleDispatcher) dispatch(ctx context.Context, m types.Message) error {
	c, ok := m.(*types.Chunk)
	if !ok {
		return broadcastAll(ctx, d.outs, m)
	}
	if cc := compactChunk(c); cc != nil {
		return send(ctx, d.outs[d.target], cc)
	}
	return nil
}

// multiDispatcher sends an actor's output to several fragments: the
// consumers of a shared subplan (planner.StreamShare), each through its
// own dispatcher, in order. Each consumer gets its own copy of a chunk
// and every barrier and watermark, so each aligns them as it would the
// output of a subplan of its own.
type multiDispatcher []dispatcher

func (d multiDispatcher) dispatch(ctx context.Context, m types.Message) error {
	for _, o := range d {
		if err := o.dispatch(ctx, m); err != nil {
			return err
		}
	}
	return nil
}
