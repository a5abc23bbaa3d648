package stream

import (
	"github.com/weirdb/weir/types"
)

// This file is HashAgg's handling of watermarks on group keys: closing
// the groups a watermark has passed (state cleaning, and the output of
// EMIT ON WINDOW CLOSE) and dropping input rows of closed groups.
//
// A watermark W on group key i says no later input row has key i below
// W, so a group whose key i is below W is final. Its state is deleted
// (which bounds the state of a windowed aggregation by the windows still
// open); in EOWC mode its row is emitted at that moment, once. Deleting
// state never emits a retraction.

// behind reports whether the group key in a.key lies in a group closed by
// a watermark; such a row is late and dropped.
func (a *HashAgg) behind() bool {
	for i, ok := range a.hasClosed {
		if ok && !a.key[i].Null && types.Compare(a.key[i], a.closed[i], a.keyTs[i]) < 0 {
			return true
		}
	}
	return false
}

// pairBehind is behind for two integer keys (intPair) of values k.
func (a *HashAgg) pairBehind(k [2]int64) bool {
	for i, ok := range a.hasClosed {
		if ok && types.Compare(types.Datum{I: k[i]}, a.closed[i], a.keyTs[i]) < 0 {
			return true
		}
	}
	return false
}

// closeGroups closes the groups passed by the watermarks held for this
// barrier, after the epoch's dirty groups went into the state tables.
// Groups are visited in key order when the watermark is on the first
// group key (a range scan of the Result table), and by a full scan
// otherwise.
func (a *HashAgg) closeGroups() error {
	for n, w := range a.wms {
		if a.superseded(n) {
			continue
		}
		i := w.Col
		if a.hasClosed[i] && types.Compare(w.Val, a.closed[i], a.keyTs[i]) <= 0 {
			continue
		}
		a.closed[i], a.hasClosed[i], a.anyClosed = detach(w.Val), true, true
		if i == 0 && a.rangeClose() {
			if err := a.closeRange(w.Val); err != nil {
				return err
			}
			continue
		}
		var rows []types.Row
		var err error
		if i == 0 {
			rows, err = a.result.AppendRange(a.closing[:0], nil, types.Row{w.Val})
		} else {
			rows, err = a.result.AppendRows(a.closing[:0], nil)
		}
		if err != nil {
			return err
		}
		for _, row := range rows {
			if row[i].Null || types.Compare(row[i], w.Val, a.keyTs[i]) >= 0 {
				continue
			}
			if err := a.closeGroup(row); err != nil {
				return err
			}
		}
		clear(rows)
		a.closing = rows[:0]
	}
	return nil
}

// closeGroup emits a closed group's row in EOWC mode and deletes its
// state: its Result row and its rows in every Extra table.
func (a *HashAgg) closeGroup(row types.Row) error {
	key := row[:len(a.keyTs)]
	if a.eowc {
		g := &aggGroup{key: key, vals: make([]aggCallVal, len(a.calls))}
		if err := a.decodeGroup(g, row); err != nil {
			return err
		}
		a.ob.add(types.OpInsert, g.old)
	}
	return a.deleteGroup(key, row)
}

// deleteGroup deletes the state of the group of key, whose Result row is
// row: that row, its rows in every Extra table and its TTL index entry.
func (a *HashAgg) deleteGroup(key, row types.Row) error {
	a.result.Delete(key)
	if a.ttl > 0 {
		a.unindex(key, row[len(row)-1].I)
	}
	for _, t := range extraTables(a.calls) {
		// The rows of the group's values (some layouts store no key
		// columns in the row).
		if err := t.DeletePrefix(key); err != nil {
			return err
		}
	}
	return nil
}

// rangeClose reports whether the groups a watermark on the first group
// key closes can be deleted by one range deletion per state table
// (storage.StateTable.DeleteBefore): without a TTL index, whose keys do
// not start with the group key, and with every table able to.
func (a *HashAgg) rangeClose() bool {
	if a.ttl > 0 || !a.result.CanDeleteBefore() {
		return false
	}
	for _, t := range extraTables(a.calls) {
		if !t.CanDeleteBefore() {
			return false
		}
	}
	return true
}

// closeRange closes the groups whose first key is below w (not NULL)
// when rangeClose holds: in EOWC mode it emits their rows first, then
// deletes them, and their rows in every Extra table, by range.
func (a *HashAgg) closeRange(w types.Datum) error {
	if a.eowc {
		rows, err := a.result.AppendRange(a.closing[:0], nil, types.Row{w})
		if err != nil {
			return err
		}
		for _, row := range rows {
			if row[0].Null {
				continue
			}
			g := &aggGroup{key: row[:len(a.keyTs)], vals: make([]aggCallVal, len(a.calls))}
			if err := a.decodeGroup(g, row); err != nil {
				return err
			}
			a.ob.add(types.OpInsert, g.old)
		}
		clear(rows)
		a.closing = rows[:0]
	}
	a.result.DeleteBefore(w)
	for _, t := range extraTables(a.calls) {
		t.DeleteBefore(w)
	}
	return nil
}

// superseded reports whether a later watermark held for this barrier on
// the same group key is at least a.wms[n]: closing the groups below it
// closes those below a.wms[n] too, in one pass instead of one per
// watermark.
func (a *HashAgg) superseded(n int) bool {
	w := a.wms[n]
	for _, l := range a.wms[n+1:] {
		if l.Col == w.Col && types.Compare(l.Val, w.Val, a.keyTs[w.Col]) >= 0 {
			return true
		}
	}
	return false
}
