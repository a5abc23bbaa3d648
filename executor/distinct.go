package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Distinct passes the first row of each group of equal rows (all columns,
// or the On expressions for DISTINCT ON), NULLs equal, in input order. It
// streams: seen keys live in a hash table, and rows already seen are made
// invisible in the input chunk rather than copied out.
//
// When the table passes ExecCtx.WorkMem, rows of keys not in it go to
// hashFanout tapes by their key's hash instead, and after the input each
// tape is deduplicated the same way, as HashAgg does: a key's first row
// is still the one passed, but the output is no longer in input order.
//
// DISTINCT ON over a sort (the binder sorts by the On expressions
// first) holds no table: equal keys are next to each other in the sort's
// order, so each row is compared with the last key passed only, as
// PostgreSQL's Unique node does.
type Distinct struct {
	endState
	in    Operator
	on    []Evaluator // nil: all columns
	ec    *ExecCtx
	seen  *rowTable
	keyTs []types.T
	inTs  []types.T
	// sorted: the input is sorted by the On expressions first; last is
	// the key of the last row passed (nil before the first).
	sorted bool
	last   types.Row
	hashSpill
}

var _ Operator = (*Distinct)(nil)

// NewDistinct returns a Distinct of in; on is nil for plain DISTINCT.
func NewDistinct(in Operator, p *planner.Distinct, ec *ExecCtx) (*Distinct, error) {
	ts := p.Input.Schema().Types()
	d := &Distinct{in: in, ec: ec, inTs: ts}
	if len(p.On) > 0 {
		evs, err := compileAll(p.On)
		if err != nil {
			return nil, err
		}
		d.on, ts = evs, exprTypes(p.On)
		_, d.sorted = p.Input.(*planner.Sort)
	}
	d.keyTs = ts
	d.seen = newRowTable(ts)
	return d, nil
}

// Next implements Operator.
func (d *Distinct) Next(ctx context.Context) (*types.Chunk, error) {
	if d.done {
		return nil, d.err
	}
	c, err := d.next(ctx)
	if err != nil || c == nil {
		d.release()
	}
	return d.finish(c, err)
}

func (d *Distinct) next(ctx context.Context) (*types.Chunk, error) {
	for {
		c, err := d.read(ctx, d.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if !d.nextPart(d.inTs) {
				return nil, nil
			}
			d.seen = newRowTable(d.keyTs)
			continue
		}
		keyVecs := c.Cols
		if d.on != nil {
			if keyVecs, err = evalAll(d.ec, d.on, c); err != nil {
				return nil, err
			}
		}
		vis := make([]bool, c.Len())
		kept := false
		key := make(types.Row, len(keyVecs))
		for i := range vis {
			if !c.Visible(i) {
				continue
			}
			for j, v := range keyVecs {
				key[j] = v.Get(i)
			}
			if d.sorted {
				if d.last != nil && sameRow(d.last, key, d.keyTs) {
					continue
				}
				d.last = make(types.Row, len(key))
				for j, x := range key {
					d.last[j] = copyDatum(x)
				}
				vis[i], kept = true, true
				continue
			}
			h := hashRow(key, d.keyTs)
			if d.seen.find(h, key) >= 0 {
				continue
			}
			if d.full {
				if err := d.spillRow(d.ec, d.inTs, h, c, i); err != nil {
					return nil, err
				}
				continue
			}
			cp := make(types.Row, len(key))
			for j, x := range key {
				cp[j] = copyDatum(x)
			}
			d.seen.insert(h, cp)
			d.bytes += types.RowMemSize(cp) + hashTableEntry
			d.full = d.ec.spillable(d.bytes)
			vis[i], kept = true, true
		}
		if kept {
			c.Vis = vis
			return c, nil
		}
	}
}

// release drops the table and removes the tapes.
func (d *Distinct) release() {
	d.seen, d.last = nil, nil
	d.discardSpill()
}

// Close implements Operator.
func (d *Distinct) Close() {
	d.done = true
	d.release()
	d.in.Close()
}
