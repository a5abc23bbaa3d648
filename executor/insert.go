package executor

import (
	"context"
	"errors"
	"strings"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/sql/catalog"
	"github.com/weirdb/weir/types"
)

// RowCounter is implemented by the DML operators: RowsAffected is the
// number of rows written so far, complete once Next returned nil. The
// engine builds the command tag from it (INSERT 0 n, UPDATE n, DELETE n).
type RowCounter interface {
	RowsAffected() int64
}

// formatText formats values for error details; a variable only so that
// this package's tests can run before the types package's formatter is
// linked in.
var formatText = types.FormatText

// notNull returns Postgres's 23502 error when a NOT NULL column of rel
// is NULL in row (in rel.Cols order). modified marks the columns the
// statement gave or set, which the detail shows to a role that may not
// read rel (ExecCtx.MaySelect).
func notNull(rel *catalog.Relation, row types.Row, ec *EvalCtx, modified []bool) error {
	for i, c := range rel.Cols {
		if !c.NotNull || !row[i].Null || c.Hidden {
			continue
		}
		return withFailingRow(pgerr.New(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", c.Name, rel.Name).
			WithTable(rel.Schema, rel.Name).WithColumn(c.Name), rel, row, ec, modified)
	}
	return nil
}

// withFailingRow gives a constraint violation by row its "Failing row
// contains" detail, as PostgreSQL's ExecBuildSlotValueDescription:
// every column when the role may read rel, else the columns in modified
// by name ("Failing row contains (b) = (null)."), and no detail when
// there are none.
func withFailingRow(err *pgerr.Error, rel *catalog.Relation, row types.Row, ec *EvalCtx, modified []bool) *pgerr.Error {
	if ec.Exec == nil || ec.Exec.MaySelect == nil || ec.Exec.MaySelect(rel) {
		return err.WithDetail("Failing row contains (%s).", failingRow(rel, row, ec))
	}
	var names, vals []string
	for k, col := range rel.Cols {
		if col.Hidden || k >= len(modified) || !modified[k] {
			continue
		}
		names = append(names, col.Name)
		if row[k].Null {
			vals = append(vals, "null")
		} else {
			vals = append(vals, formatText(row[k], col.T, ec.Location))
		}
	}
	if len(names) == 0 {
		return err
	}
	return err.WithDetail("Failing row contains (%s) = (%s).", strings.Join(names, ", "), strings.Join(vals, ", "))
}

// hideKey leaves the key out of a unique violation's detail when the
// role may not read rel, as PostgreSQL's BuildIndexValueDescription
// does for a role that may not read every key column.
func hideKey(rel *catalog.Relation, ec *ExecCtx, err error) error {
	if err == nil || ec.MaySelect == nil || ec.MaySelect(rel) {
		return err
	}
	if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.UniqueViolation && pe.Detail != "" {
		cp := *pe
		cp.Detail = ""
		return &cp
	}
	return err
}

// setCols marks the columns whose set expression is not nil.
func setCols[T comparable](set []T) []bool {
	var zero T
	out := make([]bool, len(set))
	for i, e := range set {
		out[i] = e != zero
	}
	return out
}

// dml is what Insert, Update and Delete share: the input, the RETURNING
// evaluators and the affected-row count.
type dml struct {
	endState
	in        Operator
	rel       *catalog.Relation
	ec        *ExecCtx
	returning []Evaluator
	relTs     []types.T
	n         int64
	// rules computes the generated columns of each new row and checks it.
	rules *RowRules
}

func newDML(in Operator, rel *catalog.Relation, returning []planner.Expr, rules planner.RowRules, ec *ExecCtx) (dml, error) {
	evs, err := compileAll(returning)
	if err != nil {
		return dml{}, err
	}
	ts := make([]types.T, len(rel.Cols))
	for i, c := range rel.Cols {
		ts[i] = c.T
	}
	rr, err := NewRowRules(rel, rules)
	if err != nil {
		return dml{}, err
	}
	return dml{in: in, rel: rel, ec: ec, returning: evs, relTs: ts, rules: rr}, nil
}

// joined extends the row RETURNING is evaluated over with the columns
// input has after the target's (UPDATE ... FROM's and DELETE ... USING's
// other tables).
func (d *dml) joined(input types.Schema) {
	for _, c := range input[min(len(d.relTs), len(input)):] {
		d.relTs = append(d.relTs, c.T)
	}
}

// RowsAffected implements RowCounter.
func (d *dml) RowsAffected() int64 { return d.n }

// run pulls input chunks, calls prepare (when set) on each, applies write
// to each visible row (write returns the row RETURNING is evaluated
// over, or nil for a row it skipped), and returns the RETURNING rows a chunk at a time; without
// RETURNING it consumes the whole input and returns nil.
func (d *dml) run(ctx context.Context, prepare func(*types.Chunk) error, write func(old types.Row) (types.Row, error)) (*types.Chunk, error) {
	if d.ec.Writer == nil {
		return nil, pgerr.New(pgerr.InternalError, "DML without a writer")
	}
	for {
		c, err := nextVisible(ctx, d.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			d.in.Close()
			return nil, nil
		}
		if prepare != nil {
			if err := prepare(c); err != nil {
				return nil, err
			}
		}
		var written *types.Chunk
		if len(d.returning) > 0 {
			written = types.NewChunk(d.relTs, c.Len())
		}
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			r, err := write(detachRow(c, i))
			if err != nil {
				return nil, err
			}
			if r == nil {
				continue // a row write skipped (see Update)
			}
			d.n++
			if written != nil {
				written.AppendRow(types.OpInsert, r)
			}
		}
		if written != nil && written.Len() > 0 {
			vecs, err := evalAll(d.ec, d.returning, written)
			if err != nil {
				return nil, err
			}
			return types.NewChunkFromVecs(vecs, written.Len()), nil
		}
	}
}

// Insert writes its input rows (full rows in Rel.Cols order) into the
// table through ExecCtx.Writer: hidden row id columns get
// Writer.NextRowID, generated columns are computed, NOT NULL columns and
// CHECK constraints are checked (23502 and 23514 with Postgres's
// messages and "Failing row contains (...)" detail), and the Writer's
// errors (23505 for a duplicate key) pass through unchanged. With
// RETURNING it emits the RETURNING expressions over each inserted row;
// without, it consumes its input on the first Next and emits nothing. It
// never commits: the engine commits the Writer's batch after Next
// returned nil.
//
// With ON CONFLICT, a row whose primary key exists (stored, or written
// earlier by the same statement) is skipped (DO NOTHING), or the existing
// row is updated with the Set expressions over the existing and the
// proposed row when Where holds (DO UPDATE), through Writer.Update, so
// that views see an ordinary update. DO UPDATE fails with 21000 when a
// key it inserted or updated is proposed again, as in PostgreSQL.
type Insert struct {
	dml
	conflict *planner.OnConflict
	set      []Evaluator
	where    Evaluator
	// pairTs are the types of an existing row followed by a proposed one.
	pairTs []types.T
	// touched holds the keys of rows this statement inserted or updated
	// (DO UPDATE only).
	touched map[string]bool
	// given marks the columns the statement gives (planner.Insert.Given).
	given []bool
}

var (
	_ Operator   = (*Insert)(nil)
	_ RowCounter = (*Insert)(nil)
)

// NewInsert returns an Insert of in's rows for p.
func NewInsert(in Operator, p *planner.Insert, ec *ExecCtx) (*Insert, error) {
	d, err := newDML(in, p.Rel, p.Returning, p.Rules, ec)
	if err != nil {
		return nil, err
	}
	ins := &Insert{dml: d, conflict: p.OnConflict, given: make([]bool, len(p.Rel.Cols))}
	for _, i := range p.Given {
		ins.given[i] = true
	}
	if oc := p.OnConflict; oc != nil && oc.Update {
		ins.set = make([]Evaluator, len(oc.Set))
		for i, e := range oc.Set {
			if e == nil {
				continue
			}
			if ins.set[i], err = Compile(e); err != nil {
				return nil, err
			}
		}
		if oc.Where != nil {
			if ins.where, err = Compile(oc.Where); err != nil {
				return nil, err
			}
		}
		ins.pairTs = append(append([]types.T(nil), d.relTs...), d.relTs...)
		ins.touched = map[string]bool{}
	}
	return ins, nil
}

// pkKey encodes row's primary key.
func (o *Insert) pkKey(row types.Row) string {
	var k []byte
	for _, i := range o.rel.PK {
		k = types.AppendKey(k, row[i], o.rel.Cols[i].T, false)
	}
	return string(k)
}

// onConflict handles a proposed row r whose key may exist: it returns
// handled false when there is no conflict (r is to be inserted), else
// the row written (nil when skipped).
func (o *Insert) onConflict(r types.Row) (types.Row, bool, error) {
	var old types.Row
	var found bool
	var err error
	if o.conflict.PK {
		old, found, err = o.ec.Writer.Get(o.rel.ID, r)
	}
	for _, idx := range o.conflict.Arbiters {
		if found || err != nil {
			break
		}
		old, found, err = o.ec.Writer.Conflicting(o.rel.ID, r, idx)
	}
	if err != nil || !found {
		return nil, false, err
	}
	if !o.conflict.Update {
		return nil, true, nil
	}
	key := o.pkKey(old)
	if o.touched[key] {
		return nil, true, pgerr.New(pgerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	pair := types.NewChunk(o.pairTs, 1)
	pair.AppendRow(types.OpInsert, append(append(types.Row(nil), old...), r...))
	if o.where != nil {
		v, err := o.where.Eval(&o.ec.Eval, pair)
		if err != nil {
			return nil, true, err
		}
		if d := v.Get(0); d.Null || d.I == 0 {
			return nil, true, nil
		}
	}
	nr := append(types.Row(nil), old...)
	for i, ev := range o.set {
		if ev == nil {
			continue
		}
		v, err := ev.Eval(&o.ec.Eval, pair)
		if err != nil {
			return nil, true, err
		}
		nr[i] = copyDatum(v.Get(0))
	}
	if err := o.rules.Domains(nr, &o.ec.Eval, setCols(o.set)); err != nil {
		return nil, true, err
	}
	if err := o.rules.Apply(nr, &o.ec.Eval, setCols(o.set)); err != nil {
		return nil, true, err
	}
	if err := o.ec.Writer.Update(o.rel.ID, old, nr); err != nil {
		return nil, true, hideKey(o.rel, o.ec, err)
	}
	o.touched[o.pkKey(nr)] = true
	return nr, true, nil
}

// Next implements Operator.
func (o *Insert) Next(ctx context.Context) (*types.Chunk, error) {
	if o.done {
		return nil, o.err
	}
	return o.finish(o.run(ctx, nil, func(r types.Row) (types.Row, error) {
		for i, c := range o.rel.Cols {
			if c.Hidden && !c.Dropped && r[i].Null {
				id, err := o.ec.Writer.NextRowID(o.rel.ID)
				if err != nil {
					return nil, err
				}
				r[i] = types.DInt(id)
			}
		}
		if err := o.rules.Domains(r, &o.ec.Eval, nil); err != nil {
			return nil, err
		}
		if err := o.rules.Apply(r, &o.ec.Eval, o.given); err != nil {
			return nil, err
		}
		if o.conflict != nil {
			if nr, handled, err := o.onConflict(r); handled || err != nil {
				return nr, err
			}
		}
		if err := o.ec.Writer.Insert(o.rel.ID, r); err != nil {
			if errors.Is(err, ErrRowDropped) {
				return nil, nil
			}
			return nil, hideKey(o.rel, o.ec, err)
		}
		if o.touched != nil {
			o.touched[o.pkKey(r)] = true
		}
		return r, nil
	}))
}

// Close implements Operator.
func (o *Insert) Close() {
	o.done = true
	o.in.Close()
}
