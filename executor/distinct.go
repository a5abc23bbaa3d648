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
type Distinct struct {
	endState
	in   Operator
	on   []Evaluator // nil: all columns
	ec   *ExecCtx
	seen *rowTable
}

var _ Operator = (*Distinct)(nil)

// NewDistinct returns a Distinct of in; on is nil for plain DISTINCT.
func NewDistinct(in Operator, p *planner.Distinct, ec *ExecCtx) (*Distinct, error) {
	d := &Distinct{in: in, ec: ec}
	ts := p.Input.Schema().Types()
	if len(p.On) > 0 {
		evs, err := compileAll(p.On)
		if err != nil {
			return nil, err
		}
		d.on, ts = evs, exprTypes(p.On)
	}
	d.seen = newRowTable(ts)
	return d, nil
}

// Next implements Operator.
func (d *Distinct) Next(ctx context.Context) (*types.Chunk, error) {
	if d.done {
		return nil, d.err
	}
	return d.finish(d.next(ctx))
}

func (d *Distinct) next(ctx context.Context) (*types.Chunk, error) {
	for {
		c, err := nextVisible(ctx, d.in)
		if err != nil || c == nil {
			return nil, err
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
			if _, added := d.seen.findOrInsert(key); added {
				vis[i], kept = true, true
			}
		}
		if kept {
			c.Vis = vis
			return c, nil
		}
	}
}

// Close implements Operator.
func (d *Distinct) Close() {
	d.done = true
	d.seen = nil
	d.in.Close()
}
