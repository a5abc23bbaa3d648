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
// A call's FILTER skips the rows where it is not true. A call with
// DISTINCT or ORDER BY in it (not an ordered-set aggregate, which sorts
// its own input) keeps its rows in an aggSort, which holds WorkMem of
// them and puts the rest in sorted runs on tapes; once the table is
// complete, its rows go to the groups' accumulators sorted, and
// deduplicated with DISTINCT, as PostgreSQL's per-call tuplesort passes
// them.
//
// When the table's estimated size (keys and accumulator states) passes
// ExecCtx.WorkMem, it spills as PostgreSQL 13's hash aggregation does:
// no group is added any more, and each input row of a group not in the
// table goes, as it was read, to one of hashFanout partitions by its
// key's hash. After the input ends it emits the groups in the table,
// then aggregates each partition the same way (a partition that
// overflows is split again, with another seed). Every row of a group
// goes to one place, so distinct and ordered aggregates stay exact; only
// the order of the groups changes.
type HashAgg struct {
	endState
	in     Operator
	plan   *planner.Agg
	ec     *ExecCtx
	keys   []Evaluator
	keyTs  []types.T
	inTs   []types.T
	calls  []aggCall
	grows  []bool // per call: its state grows with its input
	groups *rowTable
	accs   [][]functions.Accumulator // per group, per call
	// sorts hold the input of the calls with DISTINCT or ORDER BY (nil
	// for the others) for the groups of the table.
	sorts []*aggSort

	// bytes estimates the memory of groups and accs; full is set once
	// it passed WorkMem, from when rows of new groups spill.
	bytes int64
	full  bool
	level int           // recursion level of the table's input
	spill *partitionSet // the partitions of the input being read
	// parts are the partitions still to aggregate, the last first.
	parts   []spilledPart
	reading *partReader // the partition being aggregated
	started bool
	emitPos int // the next group to emit
	usage   spillUsage
}

// spilledPart is a spilled partition of the input of a HashAgg, Distinct
// or UNION, and its recursion level.
type spilledPart struct {
	rows  *partReader
	level int
}

var _ Operator = (*HashAgg)(nil)

// aggCall is one compiled aggregate call.
type aggCall struct {
	args   []Evaluator // arguments, then ORDER BY keys
	filter Evaluator   // nil for none
	mk     func() functions.Accumulator
	// sorted: the call has DISTINCT or ORDER BY, which an aggSort
	// applies; mk's accumulators take its rows as they come.
	sorted bool
}

// sortedCall reports whether call c's input goes through an aggSort: it
// has DISTINCT or ORDER BY and is not an ordered-set aggregate.
func sortedCall(c planner.AggCall) bool {
	return (c.Distinct || len(c.OrderBy) > 0) && !functions.IsOrderedSet(c.Fn)
}

// compileAggCall compiles an AggCall into its evaluators and accumulator
// constructor. With sorted (and sortedCall(c)), the accumulators are the
// aggregate's own, without its DISTINCT and ORDER BY, which the caller
// applies through an aggSort.
func compileAggCall(c planner.AggCall, retractable, sorted bool, ec *ExecCtx) (aggCall, error) {
	sorted = sorted && sortedCall(c)
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
	inner := spec
	if sorted {
		inner.Distinct, inner.OrderBy = false, nil
	}
	mk, err := functions.NewAccumulatorFunc(inner)
	if err != nil {
		return aggCall{}, err
	}
	args, err := compileAll(exprs)
	if err != nil {
		return aggCall{}, err
	}
	ac := aggCall{args: args, mk: mk, sorted: sorted}
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
	a := &HashAgg{in: in, plan: p, ec: ec, keys: keys, keyTs: exprTypes(p.GroupBy), inTs: p.Input.Schema().Types()}
	for _, c := range p.Aggs {
		ac, err := compileAggCall(c, false, true, ec)
		if err != nil {
			return nil, err
		}
		a.calls = append(a.calls, ac)
		// A sorted call's rows are counted by its aggSort.
		a.grows = append(a.grows, aggStateGrows(c) && !ac.sorted)
	}
	a.newTable()
	return a, nil
}

// newTable starts an empty table, with empty sorts for the sorted calls.
func (a *HashAgg) newTable() {
	a.groups, a.accs, a.bytes, a.full, a.emitPos = newRowTable(a.keyTs), nil, 0, false, 0
	a.sorts = make([]*aggSort, len(a.calls))
	for j, c := range a.calls {
		if c.sorted {
			a.sorts[j] = newAggSort(a.ec, a.plan.Aggs[j])
		}
	}
}

// aggStateGrows reports whether call c's accumulator keeps what it is
// given (array_agg, string_agg, the JSON aggregates, ordered-set and
// DISTINCT or ORDER BY calls) rather than a fixed-size state.
func aggStateGrows(c planner.AggCall) bool {
	switch c.Fn {
	case "array_agg", "string_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "xmlagg":
		return true
	}
	return c.Distinct || len(c.OrderBy) > 0 || functions.IsOrderedSet(c.Fn)
}

// aggStateBytes is the estimated size of an accumulator's fixed state.
const aggStateBytes = 64

// Next implements Operator.
func (a *HashAgg) Next(ctx context.Context) (*types.Chunk, error) {
	if a.done {
		return nil, a.err
	}
	c, err := a.next(ctx)
	if err != nil || c == nil {
		a.release()
	}
	return a.finish(c, err)
}

func (a *HashAgg) next(ctx context.Context) (*types.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if a.groups != nil && a.emitPos < len(a.groups.rows) && a.started {
			return a.emit()
		}
		if a.started {
			// The table is out: aggregate the next partition.
			if len(a.parts) == 0 {
				return nil, nil
			}
			p := a.parts[len(a.parts)-1]
			a.parts = a.parts[:len(a.parts)-1]
			a.reading, a.level = p.rows, p.level
			a.newTable()
			err := a.consume(ctx, func(ctx context.Context) (*types.Chunk, error) { return a.reading.chunk(ctx) })
			_ = a.reading.tape.Discard()
			a.reading = nil
			if err != nil {
				return nil, err
			}
			continue
		}
		a.started = true
		a.usage.batches = 1
		if err := a.seed(); err != nil {
			return nil, err
		}
		if err := a.consume(ctx, func(ctx context.Context) (*types.Chunk, error) { return nextVisible(ctx, a.in) }); err != nil {
			return nil, err
		}
		a.in.Close()
	}
}

// emit returns the next chunk of the table's groups, releasing the
// table after its last.
func (a *HashAgg) emit() (*types.Chunk, error) {
	end := min(a.emitPos+a.ec.chunkRows(), len(a.groups.rows))
	c := types.NewChunk(a.plan.Out.Types(), end-a.emitPos)
	r := make(types.Row, 0, len(a.keys)+len(a.calls))
	for g := a.emitPos; g < end; g++ {
		r = append(r[:0], a.groups.rows[g]...)
		for _, acc := range a.accs[g] {
			d, err := functions.AccumulatorResult(acc)
			if err != nil {
				return nil, err
			}
			r = append(r, d)
		}
		c.AppendRow(types.OpInsert, r)
		a.groups.rows[g], a.accs[g] = nil, nil
	}
	a.emitPos = end
	if end == len(a.groups.rows) {
		a.groups, a.accs = nil, nil
	}
	return c, nil
}

func (a *HashAgg) newGroup() []functions.Accumulator {
	accs := make([]functions.Accumulator, len(a.calls))
	for i, c := range a.calls {
		accs[i] = c.mk()
	}
	return accs
}

// seed adds the groups that exist even over no input: the one group
// without GROUP BY, and each empty grouping set's.
func (a *HashAgg) seed() error {
	if len(a.keys) == 0 {
		a.groups.insert(0, types.Row{})
		a.accs = append(a.accs, a.newGroup())
	}
	for _, s := range a.plan.EmptySets {
		key := make(types.Row, len(a.keys))
		for i := range key {
			key[i] = types.NullDatum
		}
		key[len(key)-1] = types.DInt(s)
		if _, added := a.groups.findOrInsert(key); added {
			a.accs = append(a.accs, a.newGroup())
			a.bytes += a.groupBytes(key)
			a.usage.held(a.bytes)
		}
	}
	return nil
}

// groupBytes estimates the memory a new group of key costs.
func (a *HashAgg) groupBytes(key types.Row) int64 {
	return types.RowMemSize(key) + hashTableEntry + int64(len(a.calls))*aggStateBytes
}

// consume folds the input that read returns into the table: rows of the
// groups in it, and of new groups while it is within WorkMem; the others
// go to the partitions of the next level, pushed on a.parts at the end.
func (a *HashAgg) consume(ctx context.Context, read func(context.Context) (*types.Chunk, error)) error {
	key := make(types.Row, len(a.keys))
	argVecs := make([][]*types.Vec, len(a.calls))
	filters := make([]*types.Vec, len(a.calls))
	args := make([][]types.Datum, len(a.calls))
	for j, c := range a.calls {
		args[j] = make([]types.Datum, len(c.args))
	}
	gids := make([]int, types.ChunkCap)
	var scratch types.Row
	for {
		c, err := read(ctx)
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
			h := hashRow(key, a.keyTs)
			g := a.groups.find(h, key)
			if g < 0 && a.full {
				// A new group with the table full: the row waits in
				// its partition.
				if a.spill == nil {
					a.spill = newPartitionSet(a.ec.Temp, a.inTs, hashFanout)
				}
				scratch = scratchRow(c, i, scratch)
				if err := a.spill.add(hashPartition(h, a.level, hashFanout), scratch); err != nil {
					return err
				}
				gids[i] = -1
				continue
			}
			if g < 0 {
				cp := make(types.Row, len(key))
				for j, d := range key {
					cp[j] = copyDatum(d)
				}
				g = a.groups.insert(h, cp)
				a.accs = append(a.accs, a.newGroup())
				a.bytes += a.groupBytes(cp)
				a.usage.held(a.bytes)
				a.full = a.ec.spillable(a.bytes)
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
				if !c.Visible(i) || gids[i] < 0 || (f != nil && !isTrue(f, i)) {
					continue
				}
				for k, v := range vecs {
					buf[k] = v.Get(i)
				}
				if s := a.sorts[j]; s != nil {
					if err := s.add(ctx, gids[i], buf); err != nil {
						return err
					}
					continue
				}
				if err := a.accs[gids[i]][j].Add(buf); err != nil {
					return err
				}
				if a.grows[j] {
					a.bytes += types.RowMemSize(buf)
					a.usage.held(a.bytes)
				}
			}
		}
		if !a.full && len(a.keys) > 0 && a.ec.spillable(a.bytes) {
			a.full = true
		}
	}
	if a.spill != nil {
		for p := hashFanout - 1; p >= 0; p-- {
			if t, n := a.spill.take(p); t != nil && n > 0 {
				a.parts = append(a.parts, spilledPart{rows: newPartReader(t, a.inTs), level: a.level + 1})
				a.usage.batches++
				a.usage.disk += t.Size()
			}
		}
		a.spill = nil
	}
	// The table is complete: the sorted calls' rows go to its groups.
	for j, s := range a.sorts {
		if s != nil {
			if err := s.feed(ctx, a.accs, j); err != nil {
				return err
			}
			a.sorts[j] = nil
		}
	}
	return nil
}

// explainUsage implements usageReporter, as PostgreSQL prints a hash
// aggregation's batches and memory.
// An aggregation without GROUP BY holds one group: PostgreSQL's plain
// Aggregate says nothing.
func (a *HashAgg) explainUsage() string {
	if len(a.keys) == 0 {
		return ""
	}
	return a.usage.hashText()
}

// release drops the table and removes every tape still held.
func (a *HashAgg) release() {
	a.groups, a.accs = nil, nil
	for j, s := range a.sorts {
		s.discard()
		a.sorts[j] = nil
	}
	a.spill.discard()
	a.spill = nil
	if a.reading != nil {
		_ = a.reading.tape.Discard()
		a.reading = nil
	}
	for _, p := range a.parts {
		_ = p.rows.tape.Discard()
	}
	a.parts = nil
}

// Close implements Operator.
func (a *HashAgg) Close() {
	a.done = true
	a.release()
	a.in.Close()
}
