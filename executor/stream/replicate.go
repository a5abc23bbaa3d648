package stream

import (
	"bytes"
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Replicate emits each input row as many times as its multiplicity column
// says (planner.StreamReplicate), for INTERSECT ALL and EXCEPT ALL: copy k
// (1, 2, ...) is the row without that column, followed by k. A NULL or a
// multiplicity below 1 yields no copy.
//
//   - Chunk: an insert emits its copies as inserts and a delete retracts
//     exactly the copies its insert produced. An update pair (U-, U+)
//     whose rows differ only in the multiplicity, as the aggregation
//     below emits when a row's counts change, inserts the new row's
//     copies above the old multiplicity or deletes the old row's copies
//     above the new one, so a change of one count costs one copy, not
//     all of them. Another pair becomes a U-/U+ pair per copy number both
//     rows have, then deletes or inserts of the rest. A U- or U+ whose
//     other half is not visible is a delete or an insert. Output chunks
//     hold about types.ChunkCap rows and never split a pair; a row of a
//     large multiplicity is emitted over as many chunks as it needs.
//   - Watermark: forwarded on the other columns (renumbered), dropped on
//     the multiplicity.
//   - Barrier: forwarded (Replicate has no state).
type Replicate struct {
	in    Operator
	ts    []types.T // output column types
	inTs  []types.T
	count int

	// The input chunk being expanded (nil when none) and its next row.
	cur *types.Chunk
	row int
	// While a row (or an update pair) is being emitted: its old and new
	// copies without the copy number (old nil for an insert, new nil for
	// a delete), their multiplicities, whether they are the same row,
	// the next copy number, and how many input rows it spans.
	busy       bool
	old, new   types.Row
	mOld, mNew int64
	same       bool
	k          int64
	span       int

	buf  types.Row
	kbuf []byte
}

var _ Operator = (*Replicate)(nil)

// NewReplicate returns a Replicate of in for n.
func NewReplicate(in Operator, n *planner.StreamReplicate) *Replicate {
	return &Replicate{in: in, ts: n.Out.Types(), inTs: n.Input.Base().Out.Types(), count: n.Count, buf: make(types.Row, len(n.Out))}
}

// Next implements Operator.
func (r *Replicate) Next(ctx context.Context) (types.Message, error) {
	for {
		if out := r.expand(); out != nil {
			return out, nil
		}
		msg, err := r.in.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			r.cur, r.row = m, 0
		case types.Watermark:
			if m.Col == r.count {
				continue
			}
			if m.Col > r.count {
				m.Col--
			}
			return m, nil
		default:
			return msg, nil
		}
	}
}

// multiplicity returns the number of copies of input row row.
func (r *Replicate) multiplicity(row types.Row) int64 {
	d := row[r.count]
	if d.Null || d.I < 1 {
		return 0
	}
	return d.I
}

// strip returns input row row without its multiplicity column, with room
// for the copy number.
func (r *Replicate) strip(row types.Row) types.Row {
	out := make(types.Row, 0, len(row))
	out = append(out, row[:r.count]...)
	return append(out, row[r.count+1:]...)
}

// start sets up the emission of input row i of cur (with the next one,
// for an update pair).
func (r *Replicate) start(c *types.Chunk, i int) {
	op := c.Op(i)
	row := c.Row(i)
	r.busy, r.k, r.span, r.same = true, 1, 1, false
	r.old, r.new, r.mOld, r.mNew = nil, nil, 0, 0
	switch {
	case op == types.OpUpdateDelete && i+1 < c.Len() && c.Visible(i+1) && c.Op(i+1) == types.OpUpdateInsert:
		next := c.Row(i + 1)
		r.old, r.mOld = r.strip(row), r.multiplicity(row)
		r.new, r.mNew = r.strip(next), r.multiplicity(next)
		r.span = 2
		r.kbuf = types.AppendRow(r.kbuf[:0], r.old, r.ts[:len(r.ts)-1])
		n := len(r.kbuf)
		r.kbuf = types.AppendRow(r.kbuf, r.new, r.ts[:len(r.ts)-1])
		if r.same = bytes.Equal(r.kbuf[:n], r.kbuf[n:]); r.same {
			// Only the copies above the smaller multiplicity change.
			r.k = min(r.mOld, r.mNew) + 1
		}
	case op.IsInsert():
		r.new, r.mNew = r.strip(row), r.multiplicity(row)
	default:
		r.old, r.mOld = r.strip(row), r.multiplicity(row)
	}
}

// copyOf appends copy k of row (stripped) to out with op.
func (r *Replicate) copyOf(out *types.Chunk, op types.Op, row types.Row, k int64) {
	n := copy(r.buf, row)
	r.buf[n] = types.DInt(k)
	out.AppendRow(op, r.buf)
}

// expand returns the next output chunk of the current input chunk, or
// nil when it is used up.
func (r *Replicate) expand() *types.Chunk {
	c := r.cur
	if c == nil {
		return nil
	}
	out := types.NewChunk(r.ts, types.ChunkCap)
	for out.Len()+2 <= types.ChunkCap {
		if !r.busy {
			for r.row < c.Len() && !c.Visible(r.row) {
				r.row++
			}
			if r.row >= c.Len() {
				break
			}
			r.start(c, r.row)
		}
		top := max(r.mOld, r.mNew)
		if r.k > top {
			r.busy = false
			r.row += r.span
			continue
		}
		k := r.k
		r.k++
		switch {
		case k <= r.mOld && k <= r.mNew:
			r.copyOf(out, types.OpUpdateDelete, r.old, k)
			r.copyOf(out, types.OpUpdateInsert, r.new, k)
		case k <= r.mOld:
			r.copyOf(out, types.OpDelete, r.old, k)
		default:
			r.copyOf(out, types.OpInsert, r.new, k)
		}
	}
	if !r.busy && r.row >= c.Len() {
		r.cur = nil
	}
	if out.Len() == 0 {
		return nil
	}
	return out
}

// Close implements Operator.
func (r *Replicate) Close() { r.in.Close() }
