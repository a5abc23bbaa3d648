package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Delete removes the rows its input yields (old rows in Rel.Cols order)
// with Writer.Delete. RETURNING is evaluated over the deleted rows. It
// never commits.
type Delete struct {
	dml
}

var (
	_ Operator   = (*Delete)(nil)
	_ RowCounter = (*Delete)(nil)
)

// NewDelete returns a Delete of in's rows for p.
func NewDelete(in Operator, p *planner.Delete, ec *ExecCtx) (*Delete, error) {
	d, err := newDML(in, p.Rel, p.Returning, ec)
	if err != nil {
		return nil, err
	}
	return &Delete{d}, nil
}

// Next implements Operator.
func (o *Delete) Next(ctx context.Context) (*types.Chunk, error) {
	if o.done {
		return nil, o.err
	}
	return o.finish(o.run(ctx, nil, func(old types.Row) (types.Row, error) {
		return old, o.ec.Writer.Delete(o.rel.ID, old)
	}))
}

// Close implements Operator.
func (o *Delete) Close() {
	o.done = true
	o.in.Close()
}
