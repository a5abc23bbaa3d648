package stream

import "github.com/weirdb/weir/types"

// sinkCompactor folds one epoch's changelog into what a keyed sink
// (StreamSink.Compact) writes at the barrier: per sink key, the row the
// key ends the epoch with, or its delete. The sink needs it when the rows
// of one sink key can have several stream keys: the changes of one stream
// key arrive in order, but those of different stream keys come from
// different upstream actors, so a delete of one may arrive after the
// insert of another that replaced it in the same epoch.
//
// It folds in two steps. Per stream key it keeps the net change of the
// epoch: the row the key had before the epoch (the row of its first
// change, when that change is a retraction: only a row that existed can
// be retracted first) and the row it has now (the row of its last change,
// when that is an insert). A key inserted then deleted within the epoch
// leaves nothing. Then, per sink key, in the order the keys first
// changed:
//
//   - some stream key ends with a row under the sink key: the last of
//     them to be inserted is written, as an insert (+ row), or as an
//     update U-(before), U+(row) when a stream key had a row under the
//     sink key before the epoch (so DEBEZIUM gets the before image;
//     nothing is written when that row is the same);
//   - else some stream key had a row under the sink key before the epoch:
//     its delete (- row) is written;
//   - else the sink key was transient: nothing is written.
//
// This is exact when the sink key identifies the input's rows at every
// barrier (at most one row per sink key before and after each epoch),
// which is why a sink's primary_key must identify the rows of what it
// reads. Memory is bounded by the epoch's changes: one entry per stream
// key changed, holding at most two rows of the sink's columns; the
// entries are dropped at the barrier.
type sinkCompactor struct {
	streamKey []int // input columns of the stream key
	sinkKey   []int // input columns of the sink's key
	cols      []int // input columns of the sink's columns
	outTs     []types.T

	byStream map[string]*streamChange
	// changed lists the entries of byStream in the order their stream
	// keys first changed in the epoch.
	changed []*streamChange
	seq     int
	kbuf    []byte
}

// streamChange is the net change of one stream key in the epoch. A nil
// row means no row: before is nil for a key that did not exist before
// the epoch, after for a key deleted by its last change.
type streamChange struct {
	before, after       types.Row // of the sink's columns
	beforeKey, afterKey string    // their sink keys
	// afterSeq orders the inserts of the epoch, so the last one of a sink
	// key wins.
	afterSeq int
}

// newSinkCompactor returns a compactor of an input with stream key
// streamKey for a sink of the input columns cols, keyed by the input
// columns sinkKey; outTs are the sink's column types.
func newSinkCompactor(streamKey, sinkKey, cols []int, outTs []types.T) *sinkCompactor {
	return &sinkCompactor{streamKey: streamKey, sinkKey: sinkKey, cols: cols, outTs: outTs,
		byStream: map[string]*streamChange{}}
}

// add folds the visible rows of an input chunk into the epoch.
func (k *sinkCompactor) add(c *types.Chunk) {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		sk := k.key(c, i, k.streamKey)
		e := k.byStream[sk]
		first := e == nil
		if first {
			e = &streamChange{}
			k.byStream[sk] = e
			k.changed = append(k.changed, e)
		}
		if !c.Op(i).IsInsert() {
			if first {
				e.before, e.beforeKey = k.row(c, i), k.key(c, i, k.sinkKey)
			}
			e.after, e.afterKey = nil, ""
			continue
		}
		e.after, e.afterKey = k.row(c, i), k.key(c, i, k.sinkKey)
		e.afterSeq = k.seq
		k.seq++
	}
}

// empty reports whether no change was added since the last flush.
func (k *sinkCompactor) empty() bool { return len(k.changed) == 0 }

// flush returns the epoch's compacted changes as chunks of the sink's
// columns (at most types.ChunkCap rows each, an update pair never split)
// and starts the next epoch.
func (k *sinkCompactor) flush() []*types.Chunk {
	type sinkChange struct {
		before, after types.Row
		afterSeq      int
	}
	bySink := make(map[string]*sinkChange, len(k.changed))
	var order []*sinkChange
	get := func(key string) *sinkChange {
		s := bySink[key]
		if s == nil {
			s = &sinkChange{}
			bySink[key] = s
			order = append(order, s)
		}
		return s
	}
	for _, e := range k.changed {
		if e.before != nil {
			if s := get(e.beforeKey); s.before == nil {
				s.before = e.before
			}
		}
		if e.after != nil {
			if s := get(e.afterKey); s.after == nil || e.afterSeq > s.afterSeq {
				s.after, s.afterSeq = e.after, e.afterSeq
			}
		}
	}
	out := &outBuilder{ts: k.outTs}
	for _, s := range order {
		switch {
		case s.after != nil && s.before != nil:
			if !sameRow(s.before, s.after) {
				out.update(s.before, s.after)
			}
		case s.after != nil:
			out.add(types.OpInsert, s.after)
		case s.before != nil:
			out.add(types.OpDelete, s.before)
		}
	}
	// A new map rather than clear: clear keeps the buckets of the largest
	// epoch seen for as long as the sink runs.
	k.byStream = map[string]*streamChange{}
	k.changed = nil
	k.seq = 0
	return out.chunks
}

// key returns the key encoding of columns cols of row i of c.
func (k *sinkCompactor) key(c *types.Chunk, i int, cols []int) string {
	k.kbuf = k.kbuf[:0]
	for _, col := range cols {
		v := c.Cols[col]
		k.kbuf = types.AppendKey(k.kbuf, v.Get(i), v.T, false)
	}
	return string(k.kbuf)
}

// row returns the sink's columns of row i of c, detached from c (the
// chunk's vectors may be reused once the sink returns).
func (k *sinkCompactor) row(c *types.Chunk, i int) types.Row {
	r := make(types.Row, len(k.cols))
	for j, col := range k.cols {
		r[j] = ownDatum(c.Cols[col].Get(i))
	}
	return r
}
