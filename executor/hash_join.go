package executor

import (
	"context"

	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HashJoin joins its left input with its right input on LeftKeys =
// RightKeys (a NULL key never matches), keeping the pairs for which the
// residual condition (over the left columns followed by the right ones)
// is true. It reads the whole right input into a hash table on the first
// Next (the build side, with a matched flag per row), then streams the
// left input through it (the probe side):
//
//   - Inner: each matching pair.
//   - Left / Full: also each left row without a match, null-extended.
//   - Right / Full: at the end, each right row never matched,
//     null-extended on the left.
//   - Semi: each left row with at least one match, once; Anti: each left
//     row without one. NOT IN's NULL semantics are the binder's business.
//
// Without equi-join keys every right row is a candidate for every left
// row: that is the nested-loop join (see NewNestedLoopJoin), used for
// cross joins and non-equi conditions. Output rows follow the probe order.
type HashJoin struct {
	endState
	plan        *planner.Join
	left, right Operator
	ec          *ExecCtx
	lkeys       []Evaluator
	rkeys       []Evaluator
	keyTs       []types.T
	cond        Evaluator
	leftTs      []types.T
	rightTs     []types.T
	outTs       []types.T
	nested      bool

	built    bool
	rrows    []types.Row
	rmatched []bool
	table    map[uint64][]int32
	rkeyRows []types.Row

	// Probe state, kept across Next calls so that a left chunk with many
	// matches yields its output a chunk at a time.
	leftDone     bool
	rightEmitted bool
	lrows        []types.Row
	lkeyRows     []types.Row // nil entry: a NULL key, no match
	lmatched     []bool
	li, ci       int
	cands        []int32
	pairs        []joinPair
	out          *types.Chunk
	queue        []*types.Chunk
}

type joinPair struct {
	l int
	r int32
}

var _ Operator = (*HashJoin)(nil)

// NewHashJoin returns a HashJoin of left and right for p; p has equi-join
// keys, or none for a nested-loop join.
func NewHashJoin(left, right Operator, p *planner.Join, ec *ExecCtx) (*HashJoin, error) {
	j := &HashJoin{
		plan: p, left: left, right: right, ec: ec,
		keyTs:   exprTypes(p.LeftKeys),
		leftTs:  p.Left.Schema().Types(),
		rightTs: p.Right.Schema().Types(),
		outTs:   p.Out.Types(),
		nested:  len(p.LeftKeys) == 0,
	}
	var err error
	if j.lkeys, err = compileAll(p.LeftKeys); err != nil {
		return nil, err
	}
	if j.rkeys, err = compileAll(p.RightKeys); err != nil {
		return nil, err
	}
	if p.Cond != nil {
		if j.cond, err = Compile(p.Cond); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Next implements Operator.
func (j *HashJoin) Next(ctx context.Context) (*types.Chunk, error) {
	if j.done {
		return nil, j.err
	}
	return j.finish(j.next(ctx))
}

// build reads the right input into the hash table.
func (j *HashJoin) build(ctx context.Context) error {
	j.built = true
	j.table = make(map[uint64][]int32)
	for {
		c, err := nextVisible(ctx, j.right)
		if err != nil {
			return err
		}
		if c == nil {
			break
		}
		kv, err := evalAll(j.ec, j.rkeys, c)
		if err != nil {
			return err
		}
	rows:
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			idx := int32(len(j.rrows))
			j.rrows = append(j.rrows, detachRow(c, i))
			if j.nested {
				continue
			}
			key := make(types.Row, len(kv))
			for k, v := range kv {
				if key[k] = copyDatum(v.Get(i)); key[k].Null {
					j.rkeyRows = append(j.rkeyRows, nil)
					continue rows
				}
			}
			j.rkeyRows = append(j.rkeyRows, key)
			h := hashRow(key, j.keyTs)
			j.table[h] = append(j.table[h], idx)
		}
	}
	j.right.Close()
	j.rmatched = make([]bool, len(j.rrows))
	return nil
}

// emit appends an output row, queueing full chunks.
func (j *HashJoin) emit(r types.Row) {
	if j.out == nil {
		j.out = types.NewChunk(j.outTs, types.ChunkCap)
	}
	j.out.AppendRow(types.OpInsert, r)
	if j.out.Len() == types.ChunkCap {
		j.queue = append(j.queue, j.out)
		j.out = nil
	}
}

func (j *HashJoin) flushOut() {
	if j.out != nil && j.out.Len() > 0 {
		j.queue = append(j.queue, j.out)
	}
	j.out = nil
}

func concatRows(l, r types.Row) types.Row {
	out := make(types.Row, 0, len(l)+len(r))
	return append(append(out, l...), r...)
}

func nullRow(n int) types.Row {
	r := make(types.Row, n)
	for i := range r {
		r[i] = types.NullDatum
	}
	return r
}

func (j *HashJoin) next(ctx context.Context) (*types.Chunk, error) {
	if !j.built {
		if err := j.build(ctx); err != nil {
			return nil, err
		}
	}
	for len(j.queue) == 0 {
		if j.lrows == nil {
			if j.leftDone {
				k := j.plan.Kind
				if (k == planner.RightJoin || k == planner.FullJoin) && !j.rightEmitted {
					j.rightEmitted = true
					for r, m := range j.rmatched {
						if !m {
							j.emit(concatRows(nullRow(len(j.leftTs)), j.rrows[r]))
						}
					}
				}
				j.flushOut()
				if len(j.queue) == 0 {
					return nil, nil
				}
				break
			}
			if err := j.loadLeft(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j.probe()
		if err := j.flushPairs(); err != nil {
			return nil, err
		}
		if j.li == len(j.lrows) {
			j.finishLeftChunk()
		}
	}
	c := j.queue[0]
	j.queue = j.queue[1:]
	return c, nil
}

// loadLeft reads the next left chunk and its keys into the probe state.
func (j *HashJoin) loadLeft(ctx context.Context) error {
	c, err := nextVisible(ctx, j.left)
	if err != nil {
		return err
	}
	if c == nil {
		j.leftDone = true
		j.left.Close()
		return nil
	}
	kv, err := evalAll(j.ec, j.lkeys, c)
	if err != nil {
		return err
	}
	j.lrows, j.lkeyRows = j.lrows[:0], j.lkeyRows[:0]
rows:
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		j.lrows = append(j.lrows, detachRow(c, i))
		if j.nested {
			continue
		}
		key := make(types.Row, len(kv))
		for k, v := range kv {
			if key[k] = v.Get(i); key[k].Null {
				j.lkeyRows = append(j.lkeyRows, nil)
				continue rows
			}
		}
		j.lkeyRows = append(j.lkeyRows, key)
	}
	j.lmatched = make([]bool, len(j.lrows))
	j.li, j.ci, j.cands = 0, 0, nil
	return nil
}

// probe collects up to ChunkCap candidate pairs from the current left
// chunk, resuming where the last call stopped.
func (j *HashJoin) probe() {
	semi := j.plan.Kind == planner.SemiJoin || j.plan.Kind == planner.AntiJoin
	for j.li < len(j.lrows) && len(j.pairs) < types.ChunkCap {
		if j.ci == 0 && !j.nested {
			j.cands = nil
			if key := j.lkeyRows[j.li]; key != nil {
				for _, r := range j.table[hashRow(key, j.keyTs)] {
					if sameRow(j.rkeyRows[r], key, j.keyTs) {
						j.cands = append(j.cands, r)
					}
				}
			}
		}
		n := len(j.cands)
		if j.nested {
			n = len(j.rrows)
		}
		if semi && j.lmatched[j.li] {
			n = j.ci // a semi or anti join needs one match only
		}
		for j.ci < n && len(j.pairs) < types.ChunkCap {
			r := int32(j.ci)
			if !j.nested {
				r = j.cands[j.ci]
			}
			j.pairs = append(j.pairs, joinPair{j.li, r})
			j.ci++
		}
		if j.ci >= n {
			j.li++
			j.ci = 0
		}
	}
}

// flushPairs evaluates the residual condition over the collected pairs
// and records and emits the matches.
func (j *HashJoin) flushPairs() error {
	if len(j.pairs) == 0 {
		return nil
	}
	var pass *types.Vec
	if j.cond != nil {
		pc := types.NewChunk(append(append([]types.T(nil), j.leftTs...), j.rightTs...), len(j.pairs))
		for _, p := range j.pairs {
			pc.AppendRow(types.OpInsert, concatRows(j.lrows[p.l], j.rrows[p.r]))
		}
		v, err := j.cond.Eval(&j.ec.Eval, pc)
		if err != nil {
			return err
		}
		pass = v
	}
	emitPairs := j.plan.Kind != planner.SemiJoin && j.plan.Kind != planner.AntiJoin
	for i, p := range j.pairs {
		if pass != nil && !isTrue(pass, i) {
			continue
		}
		j.lmatched[p.l] = true
		j.rmatched[p.r] = true
		if emitPairs {
			j.emit(concatRows(j.lrows[p.l], j.rrows[p.r]))
		}
	}
	j.pairs = j.pairs[:0]
	return nil
}

// finishLeftChunk emits what depends on all of a left row's matches.
func (j *HashJoin) finishLeftChunk() {
	for l, r := range j.lrows {
		switch j.plan.Kind {
		case planner.LeftJoin, planner.FullJoin:
			if !j.lmatched[l] {
				j.emit(concatRows(r, nullRow(len(j.rightTs))))
			}
		case planner.SemiJoin:
			if j.lmatched[l] {
				j.emit(r)
			}
		case planner.AntiJoin:
			if !j.lmatched[l] {
				j.emit(r)
			}
		}
	}
	j.lrows = nil
	j.flushOut()
}

// Close implements Operator.
func (j *HashJoin) Close() {
	j.done = true
	j.rrows, j.table, j.rkeyRows, j.lrows, j.queue = nil, nil, nil, nil, nil
	j.left.Close()
	j.right.Close()
}
