package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Delete removes the rows its input yields (old rows in Rel.Cols order,
// possibly followed by the columns of DELETE ... USING's other tables)
// with Writer.Delete; a target row joined more than once is deleted and
// counted once. RETURNING is evaluated over the deleted rows. It never
// commits.
type Delete struct {
	dml
	// seen holds the target rows DELETE ... USING has deleted.
	seen *rowTable
}

var (
	_ Operator   = (*Delete)(nil)
	_ RowCounter = (*Delete)(nil)
)

// NewDelete returns a Delete of in's rows for p.
func NewDelete(in Operator, p *planner.Delete, ec *ExecCtx) (*Delete, error) {
	d, err := newDML(in, p.Rel, p.Returning, planner.RowRules{}, ec)
	if err != nil {
		return nil, err
	}
	d.joined(p.Input.Schema())
	return &Delete{dml: d}, nil
}

// Next implements Operator.
func (o *Delete) Next(ctx context.Context) (*types.Chunk, error) {
	if o.done {
		return nil, o.err
	}
	return o.finish(o.run(ctx, nil, func(old types.Row) (types.Row, error) {
		if full := old; len(old) > len(o.rel.Cols) {
			old = old[:len(o.rel.Cols)]
			if o.seen == nil {
				ts := make([]types.T, len(o.rel.Cols))
				for i, c := range o.rel.Cols {
					ts[i] = c.T
				}
				o.seen = newRowTable(ts)
			}
			if _, added := o.seen.findOrInsert(old); !added {
				return nil, nil
			}
			return full, o.ec.Writer.Delete(o.rel.ID, old)
		}
		return old, o.ec.Writer.Delete(o.rel.ID, old)
	}))
}

// Close implements Operator.
func (o *Delete) Close() {
	o.done = true
	o.in.Close()
}
