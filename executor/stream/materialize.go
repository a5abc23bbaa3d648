package stream

import (
	"context"
	"strings"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// strictChangelog turns changelog inconsistencies found by Materialize
// (an insert of a key the view holds, a delete of a key it does not) into
// errors. It costs a state lookup per row, so it is on in tests and off
// in production, where an insert overwrites and a delete of a missing
// key is ignored.
var strictChangelog = false

// Materialize writes a view's rows into its storage: the state table
// n.State, whose id is the view's relation id, keyed by the view's stream
// key and holding whole rows in the relation's column order (so batch
// queries scan it like a table). It is the root of its job.
//
//   - Chunk: each visible row is mapped to the relation's columns
//     (n.Cols); + and U+ set the row of its key, - and U- delete its key.
//     An update pair that keeps its key is a delete then a set, which
//     amounts to the new row. The chunk is then returned unchanged.
//     With n.Upsert (a table fed FORMAT UPSERT), each row is looked up
//     by key instead, and the chunk returned is the exact changelog of
//     the relation: an insert of a stored key becomes U-(stored row)
//     U+(row), an insert of a new key stays an insert, a delete of a
//     stored key becomes a delete of the stored row, and a delete of a
//     missing key is dropped (U+ counts as an insert, U- as a delete).
//     Its columns are the input's; a stored row maps back through
//     n.Cols, and input columns the relation does not store are NULL in
//     it. A chunk left without rows is not returned.
//   - Watermark: forwarded.
//   - Barrier: rows written since the previous barrier are moved into the
//     epoch's write set (StateTable.Commit), the previous epoch is marked
//     durable in the table's cache, and the barrier is forwarded.
type Materialize struct {
	actx *ActorContext
	in   Operator
	st   *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables
	cols   []int
	keys   []int
	kts    []types.T
	vts    []types.T
	name   string
	// upsert: overwrite semantics (planner.StreamMaterialize.Upsert).
	upsert bool
	// changed: a chunk came since the last barrier (for the error point
	// fault.BarrierError).
	changed bool
}

var _ Operator = (*Materialize)(nil)

// NewMaterialize returns a Materialize of in into n.State.
func NewMaterialize(actx *ActorContext, in Operator, n *planner.StreamMaterialize) (*Materialize, error) {
	if n.State.ID == 0 {
		return nil, pgerr.New(pgerr.InternalError, "materialize: no state table")
	}
	vts := n.State.Cols.Types()
	if len(n.Cols) != len(vts) {
		return nil, pgerr.New(pgerr.InternalError, "materialize: %d columns mapped for %d stored", len(n.Cols), len(vts))
	}
	kts := make([]types.T, len(n.State.KeyCols))
	for i, k := range n.State.KeyCols {
		kts[i] = vts[k]
	}
	m := &Materialize{actx: actx, in: in, cols: n.Cols, keys: n.State.KeyCols, kts: kts, vts: vts, upsert: n.Upsert}
	st := m.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, kts, vts, actx.Cache)))
	if len(n.State.OrderDesc) == len(kts) {
		st.SetDesc(n.State.OrderDesc)
	}
	name := n.State.Name
	if n.Rel != nil {
		name = n.Rel.Name
	}
	m.st, m.name = st, name
	return m, nil
}

// Next implements Operator.
func (m *Materialize) Next(ctx context.Context) (types.Message, error) {
	for {
		msg, err := m.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		switch x := msg.(type) {
		case *types.Chunk:
			m.changed = true
			if err := fault.Fail(fault.OperatorError, m.name); err != nil {
				return nil, err
			}
			if m.upsert {
				out, err := m.applyUpsert(x)
				if err != nil {
					return nil, err
				}
				if out == nil {
					continue
				}
				return out, nil
			}
			if err := m.apply(x); err != nil {
				return nil, err
			}
		case types.Barrier:
			if m.changed {
				m.changed = false
				if err := fault.Fail(fault.BarrierError, m.name); err != nil {
					return nil, err
				}
			}
			if err := m.states.Barrier(m.actx.WriteSet, x.Epoch.Prev, x.Epoch.Curr); err != nil {
				return nil, err
			}
		}
		return msg, nil
	}
}

// applyUpsert applies a chunk with overwrite semantics and returns the
// changelog it made, or nil when it changed nothing.
func (m *Materialize) applyUpsert(c *types.Chunk) (*types.Chunk, error) {
	ts := make([]types.T, len(c.Cols))
	for j, v := range c.Cols {
		ts[j] = v.T
	}
	var out *types.Chunk
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		row := make(types.Row, len(m.cols))
		for j, src := range m.cols {
			row[j] = ownDatum(c.Cols[src].Get(i))
		}
		key := make(types.Row, len(m.keys))
		for j, k := range m.keys {
			key[j] = row[k]
		}
		old, found, err := m.st.Get(key)
		if err != nil {
			return nil, err
		}
		if !c.Op(i).IsInsert() && !found {
			continue
		}
		if out == nil {
			out = types.NewChunk(ts, 2*c.Len())
		}
		switch {
		case c.Op(i).IsInsert() && found:
			out.AppendRow(types.OpUpdateDelete, m.inputRow(old, len(ts)))
			out.AppendRow(types.OpUpdateInsert, c.Row(i))
		case c.Op(i).IsInsert():
			out.AppendRow(types.OpInsert, c.Row(i))
		default:
			out.AppendRow(types.OpDelete, m.inputRow(old, len(ts)))
		}
		if c.Op(i).IsInsert() {
			m.st.Insert(key, row)
		} else {
			m.st.Delete(key)
		}
	}
	return out, nil
}

// inputRow maps a stored row back to the input's n columns (NULL where
// the relation stores no input column).
func (m *Materialize) inputRow(stored types.Row, n int) types.Row {
	r := make(types.Row, n)
	for j := range r {
		r[j] = types.NullDatum
	}
	for j, src := range m.cols {
		r[src] = stored[j]
	}
	return r
}

func (m *Materialize) apply(c *types.Chunk) error {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		row := make(types.Row, len(m.cols))
		for j, src := range m.cols {
			row[j] = ownDatum(c.Cols[src].Get(i))
		}
		key := make(types.Row, len(m.keys))
		for j, k := range m.keys {
			key[j] = row[k]
		}
		op := c.Op(i)
		if strictChangelog {
			_, found, err := m.st.Get(key)
			if err != nil {
				return err
			}
			if op.IsInsert() && found {
				return m.violation("insert of a key the view already holds", key)
			}
			if !op.IsInsert() && !found {
				return m.violation("delete of a key the view does not hold", key)
			}
		}
		if op.IsInsert() {
			m.st.Insert(key, row)
		} else {
			m.st.Delete(key)
		}
	}
	return nil
}

func (m *Materialize) violation(what string, key types.Row) error {
	parts := make([]string, len(key))
	for i, d := range key {
		if d.Null {
			parts[i] = "NULL"
		} else {
			parts[i] = types.FormatText(d, m.kts[i], nil)
		}
	}
	return pgerr.New(pgerr.InternalError, "materialize %s: changelog inconsistency: %s (%s)", m.name, what, strings.Join(parts, ", "))
}

// Close implements Operator.
func (m *Materialize) Close() { m.in.Close() }
