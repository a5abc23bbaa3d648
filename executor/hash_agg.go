package executor

import (
	"context"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HashAgg groups its input by the GroupBy expressions in a hash table
// (group keys compare with types.Compare and hash with types.Hash, NULLs
// forming one group) and computes one accumulator (functions.Accumulator)
// per aggregate call and group. It reads its whole input on the first
// Next, then emits one row per group (group keys, then aggregates) in
// order of each group's first appearance. Without GroupBy it emits
// exactly one row, even for empty input (count is 0, the others NULL), as Postgres does.
//
// A call's FILTER skips the rows where it is not true; its ORDER BY values
// are passed to the accumulator after the arguments.
type HashAgg struct {
	endState
	in     Operator
	plan   *planner.Agg
	ec     *ExecCtx
	keys   []Evaluator
	keyTs  []types.T
	calls  []aggCall
	groups *rowTable
	accs   [][]functions.Accumulator // per group, per call
	buf    *rowBuffer
}

var _ Operator = (*HashAgg)(nil)

// aggCall is one compiled aggregate call.
type aggCall struct {
	args   []Evaluator // arguments, then ORDER BY keys
	filter Evaluator   // nil for none
	mk     func() functions.Accumulator
}

// compileAggCall compiles an AggCall into its evaluators and accumulator
// constructor.
func compileAggCall(c planner.AggCall, retractable bool, ec *ExecCtx) (aggCall, error) {
	spec := functions.AggSpec{Fn: c.Fn, ArgTypes: exprTypes(c.Args), T: c.T, Distinct: c.Distinct, Retractable: retractable}
	if functions.IsOrderedSet(c.Fn) {
		// An ordered-set aggregate's direct arguments (all but the
		// last) are constants that decide the result even over no rows.
		for _, e := range c.Args[:len(c.Args)-1] {
			d, err := evalConst(e, ec)
			if err != nil {
				return aggCall{}, err
			}
			spec.Direct = append(spec.Direct, d)
		}
	}
	exprs := append([]planner.Expr(nil), c.Args...)
	for _, k := range c.OrderBy {
		spec.OrderBy = append(spec.OrderBy, functions.OrderSpec{T: k.Expr.Type(), Desc: k.Desc, NullsFirst: k.NullsFirst})
		exprs = append(exprs, k.Expr)
	}
	mk, err := functions.NewAccumulatorFunc(spec)
	if err != nil {
		return aggCall{}, err
	}
	args, err := compileAll(exprs)
	if err != nil {
		return aggCall{}, err
	}
	ac := aggCall{args: args, mk: mk}
	if c.Filter != nil {
		if ac.filter, err = Compile(c.Filter); err != nil {
			return aggCall{}, err
		}
	}
	return ac, nil
}

// NewHashAgg returns a HashAgg of in for p.
func NewHashAgg(in Operator, p *planner.Agg, ec *ExecCtx) (*HashAgg, error) {
	keys, err := compileAll(p.GroupBy)
	if err != nil {
		return nil, err
	}
	a := &HashAgg{in: in, plan: p, ec: ec, keys: keys, keyTs: exprTypes(p.GroupBy)}
	for _, c := range p.Aggs {
		ac, err := compileAggCall(c, false, ec)
		if err != nil {
			return nil, err
		}
		a.calls = append(a.calls, ac)
	}
	a.groups = newRowTable(a.keyTs)
	return a, nil
}

// Next implements Operator.
func (a *HashAgg) Next(ctx context.Context) (*types.Chunk, error) {
	if a.done {
		return nil, a.err
	}
	if a.buf == nil {
		if err := a.consume(ctx); err != nil {
			return a.finish(nil, err)
		}
		rows, err := a.results()
		if err != nil {
			return a.finish(nil, err)
		}
		a.buf = &rowBuffer{ts: a.plan.Out.Types(), rows: rows, ec: a.ec}
		a.groups, a.accs = nil, nil
	}
	return a.finish(a.buf.next(), nil)
}

func (a *HashAgg) newGroup() []functions.Accumulator {
	accs := make([]functions.Accumulator, len(a.calls))
	for i, c := range a.calls {
		accs[i] = c.mk()
	}
	return accs
}

// consume folds the whole input into the groups.
func (a *HashAgg) consume(ctx context.Context) error {
	if len(a.keys) == 0 {
		a.groups.insert(0, types.Row{})
		a.accs = append(a.accs, a.newGroup())
	}
	// An empty grouping set has its group even over no input.
	for _, s := range a.plan.EmptySets {
		key := make(types.Row, len(a.keys))
		for i := range key {
			key[i] = types.NullDatum
		}
		key[len(key)-1] = types.DInt(s)
		if _, added := a.groups.findOrInsert(key); added {
			a.accs = append(a.accs, a.newGroup())
		}
	}
	key := make(types.Row, len(a.keys))
	argVecs := make([][]*types.Vec, len(a.calls))
	filters := make([]*types.Vec, len(a.calls))
	args := make([][]types.Datum, len(a.calls))
	for j, c := range a.calls {
		args[j] = make([]types.Datum, len(c.args))
	}
	gids := make([]int, types.ChunkCap)
	for {
		c, err := nextVisible(ctx, a.in)
		if err != nil {
			return err
		}
		if c == nil {
			break
		}
		keyVecs, err := evalAll(a.ec, a.keys, c)
		if err != nil {
			return err
		}
		if cap(gids) < c.Len() {
			gids = make([]int, c.Len())
		}
		gids = gids[:c.Len()]
		// Assign groups first: evaluators may reuse their vectors, so the
		// key vectors must be consumed before the arguments are evaluated.
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			if len(a.keys) == 0 {
				gids[i] = 0
				continue
			}
			for k, v := range keyVecs {
				key[k] = v.Get(i)
			}
			g, added := a.groups.findOrInsert(key)
			if added {
				a.accs = append(a.accs, a.newGroup())
			}
			gids[i] = g
		}
		for j, call := range a.calls {
			if argVecs[j], err = evalAll(a.ec, call.args, c); err != nil {
				return err
			}
			filters[j] = nil
			if call.filter != nil {
				if filters[j], err = call.filter.Eval(&a.ec.Eval, c); err != nil {
					return err
				}
			}
			vecs, f, buf := argVecs[j], filters[j], args[j]
			for i := 0; i < c.Len(); i++ {
				if !c.Visible(i) || (f != nil && !isTrue(f, i)) {
					continue
				}
				for k, v := range vecs {
					buf[k] = v.Get(i)
				}
				if err := a.accs[gids[i]][j].Add(buf); err != nil {
					return err
				}
			}
		}
	}
	a.in.Close()
	return nil
}

// results returns one output row per group.
func (a *HashAgg) results() ([]types.Row, error) {
	rows := make([]types.Row, len(a.groups.rows))
	for g, key := range a.groups.rows {
		r := make(types.Row, 0, len(key)+len(a.calls))
		r = append(r, key...)
		for _, acc := range a.accs[g] {
			d, err := functions.AccumulatorResult(acc)
			if err != nil {
				return nil, err
			}
			r = append(r, d)
		}
		rows[g] = r
	}
	return rows, nil
}

// Close implements Operator.
func (a *HashAgg) Close() {
	a.done = true
	a.groups, a.accs, a.buf = nil, nil, nil
	a.in.Close()
}
