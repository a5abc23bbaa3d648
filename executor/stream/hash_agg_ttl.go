package stream

import (
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is HashAgg's state TTL (planner/stream_ttl.go): a group whose
// state was last written more than the TTL before the epoch being closed
// is deleted at that epoch's barrier, without output. The groups are
// found by a range scan of the TTL index, keyed by (write time, group
// keys), whose entries flushGroup keeps in step with the Result rows.

// ttlKey returns the TTL index key of the group of key last written at ms.
func (a *HashAgg) ttlKey(key types.Row, ms int64) types.Row {
	k := make(types.Row, 0, len(key)+1)
	return append(append(k, types.DInt(ms)), key...)
}

// unindex removes the TTL index entry of the group of key last written at
// ms (nothing without a TTL).
func (a *HashAgg) unindex(key types.Row, ms int64) {
	if a.ttl > 0 {
		a.ttlIdx.Delete(a.ttlKey(key, ms))
	}
}

// expire deletes the groups not written since a.now - a.ttl: every index
// entry below that time, with its group's state.
func (a *HashAgg) expire() error {
	if a.ttl == 0 {
		return nil
	}
	entries, err := storage.Collect(a.ttlIdx.IterRange(nil, types.Row{types.DInt(a.now - a.ttl)}, false), nil)
	if err != nil {
		return err
	}
	for _, e := range entries {
		key := e[1:]
		row, ok, err := a.result.Get(key)
		if err != nil {
			return err
		}
		if !ok || row[len(row)-1].I != e[0].I {
			// An entry that outlived its group's write: drop it alone.
			a.ttlIdx.Delete(e)
			continue
		}
		if err := a.deleteGroup(key, row); err != nil {
			return err
		}
	}
	return nil
}
