package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Update rewrites the rows its input yields (old rows in Rel.Cols order,
// possibly followed by the columns of UPDATE ... FROM's other tables):
// the new row takes Set[i] evaluated over the old row for each column
// with a Set expression and keeps the old value otherwise. New rows get
// their generated columns computed, are checked for NOT NULL (23502) and
// CHECK constraints (23514), and are written with Writer.Update, whose
// errors (23505 when a changed key exists) pass through. RETURNING is
// evaluated over the new rows. It never commits.
type Update struct {
	dml
	set []Evaluator // nil entries keep the column
	// seen holds the target rows UPDATE ... FROM has updated.
	seen *rowTable
}

var (
	_ Operator   = (*Update)(nil)
	_ RowCounter = (*Update)(nil)
)

// NewUpdate returns an Update of in's rows for p.
func NewUpdate(in Operator, p *planner.Update, ec *ExecCtx) (*Update, error) {
	d, err := newDML(in, p.Rel, p.Returning, p.Rules, ec)
	if err != nil {
		return nil, err
	}
	d.joined(p.Input.Schema())
	u := &Update{dml: d, set: make([]Evaluator, len(p.Set))}
	for i, e := range p.Set {
		if e == nil {
			continue
		}
		if u.set[i], err = Compile(e); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// Next implements Operator.
func (u *Update) Next(ctx context.Context) (*types.Chunk, error) {
	if u.done {
		return nil, u.err
	}
	// The Set expressions are evaluated over each whole input chunk before
	// its rows are written; write takes each visible row's values in turn.
	var newVals [][]types.Datum
	pos := 0
	prepare := func(c *types.Chunk) error {
		newVals, pos = newVals[:0], 0
		vecs := make([]*types.Vec, len(u.set))
		for i, ev := range u.set {
			if ev == nil {
				continue
			}
			v, err := ev.Eval(&u.ec.Eval, c)
			if err != nil {
				return err
			}
			vecs[i] = v
		}
		for r := 0; r < c.Len(); r++ {
			if !c.Visible(r) {
				continue
			}
			vals := make([]types.Datum, len(u.set))
			for i, v := range vecs {
				if v != nil {
					vals[i] = copyDatum(v.Get(r))
				}
			}
			newVals = append(newVals, vals)
		}
		return nil
	}
	return u.finish(u.run(ctx, prepare, func(old types.Row) (types.Row, error) {
		vals := newVals[pos]
		pos++
		var others types.Row
		if len(old) > len(u.rel.Cols) {
			others = old[len(u.rel.Cols):]
			// UPDATE ... FROM joins more columns after the target's row.
			// A target row joined more than once is updated once, with
			// its first match, as in Postgres (which leaves the choice
			// of match unspecified).
			old = old[:len(u.rel.Cols)]
			if u.seen == nil {
				ts := make([]types.T, len(u.rel.Cols))
				for i, c := range u.rel.Cols {
					ts[i] = c.T
				}
				u.seen = newRowTable(ts)
			}
			if _, added := u.seen.findOrInsert(old); !added {
				return nil, nil
			}
		}
		nr := append(types.Row(nil), old...)
		for i, ev := range u.set {
			if ev != nil {
				nr[i] = vals[i]
			}
		}
		if err := u.rules.Domains(nr, &u.ec.Eval, setCols(u.set)); err != nil {
			return nil, err
		}
		if err := u.rules.Apply(nr, &u.ec.Eval, setCols(u.set)); err != nil {
			return nil, err
		}
		if err := u.ec.Writer.Update(u.rel.ID, old, nr); err != nil {
			return nil, hideKey(u.rel, u.ec, err)
		}
		return append(nr, others...), nil
	}))
}

// Close implements Operator.
func (u *Update) Close() {
	u.done = true
	u.in.Close()
}
