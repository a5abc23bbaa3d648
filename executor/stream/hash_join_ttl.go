package stream

import (
	"slices"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is HashJoin's state TTL (planner/stream_ttl.go), for the
// sides that no interval bound cleans. A stored row records the
// processing time it was stored at: the epoch time of the last barrier
// before it (the start of its epoch). The side's TTL index, keyed by
// (that time, the state key), finds the rows stored more than the TTL
// before a barrier's epoch time; that barrier deletes them, without
// output. An expired row matches no later row of the other side; the
// joined rows it was part of stay.
//
// A row removed from the state (a retraction) leaves its index entry:
// the entry expires with the time it names, and an entry whose row is
// gone or was stored again later is then dropped alone. This costs no
// read on a retraction.

// sideTTL is the state TTL of one join side.
type sideTTL struct {
	idx *storage.StateTable
	ms  int64
	// now is the epoch time of the last barrier (ms): the time rows
	// stored in the open epoch are stored at.
	now int64
	// at is the position of the stored time in a stored row.
	at int
}

// newSideTTL returns the TTL of side s (whose input node is in), indexed
// by the state table d, for ttlMs milliseconds.
func newSideTTL(actx *ActorContext, s *joinSide, in planner.StreamNode, d planner.StateTableDesc, ttlMs int64) (*sideTTL, error) {
	if len(d.Cols) != 1+len(s.stateKey) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: TTL table %s has %d columns, want %d", d.Name, len(d.Cols), 1+len(s.stateKey))
	}
	ts := []types.T{types.TInt8}
	for _, k := range s.stateKey {
		ts = append(ts, s.ts[k])
	}
	at := len(s.ts)
	if s.degree {
		at++
	}
	// The index rows hold the state key after the time; the join key
	// columns the input is partitioned by are among them.
	keep, err := partitionKeep(actx, in.Base().Dist, func(k int) int {
		if i := slices.Index(s.stateKey, k); i >= 0 {
			return 1 + i
		}
		return -1
	}, ts)
	if err != nil {
		return nil, err
	}
	t := &sideTTL{idx: s.states.Add(actx.Track(storage.NewStateTable(actx.DB, d.ID, ts, ts, actx.Cache))), ms: ttlMs, at: at}
	t.idx.SetPartition(keep)
	return t, nil
}

// insert indexes the row of key, stored now.
func (t *sideTTL) insert(key types.Row) {
	r := append(types.Row{types.DInt(t.now)}, key...)
	t.idx.Insert(r, r)
}

// expire deletes the rows of s stored more than the TTL before nowMs,
// the epoch time of the barrier being processed, and makes nowMs the
// time of the rows stored next.
func (s *joinSide) expire(nowMs int64) error {
	t := s.ttl
	if t == nil {
		return nil
	}
	t.now = nowMs
	entries, err := storage.Collect(t.idx.IterRange(nil, types.Row{types.DInt(nowMs - t.ms)}, false), nil)
	if err != nil {
		return err
	}
	for _, e := range entries {
		t.idx.Delete(e)
		key := e[1:]
		row, ok, err := s.st.Get(key)
		if err != nil {
			return err
		}
		if ok && row[t.at].I == e[0].I {
			s.st.Delete(key)
		}
	}
	return nil
}
