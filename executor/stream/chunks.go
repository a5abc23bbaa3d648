package stream

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/types"
)

// This file holds the chunk helpers the runtime's operators share:
// copying visible rows, repairing update pairs after rows were hidden,
// hashing rows for partitioning, and expression evaluation that isolates
// the rows whose expressions fail.

// compactChunk returns a fresh chunk holding the visible rows of c with
// their ops, and nil when c has no visible row. Dispatchers hand every
// receiver its own chunk this way: the sender's vectors may be reused by
// its next evaluation, and a receiver may change the chunk it got (a
// filter sets Vis, for instance).
func compactChunk(c *types.Chunk) *types.Chunk {
	if c.Vis == nil {
		if c.Len() == 0 {
			return nil
		}
		var ops []types.Op
		if c.Ops != nil {
			ops = insertsAsNil(append([]types.Op(nil), c.Ops[:c.Len()]...))
		}
		return gatherChunk(c, nil, c.Len(), ops)
	}
	sel := make([]int, 0, c.Len())
	var ops []types.Op
	for i := 0; i < c.Len(); i++ {
		if c.Vis[i] {
			sel = append(sel, i)
			ops = append(ops, c.Op(i))
		}
	}
	if len(sel) == 0 {
		return nil
	}
	return gatherChunk(c, sel, len(sel), insertsAsNil(ops))
}

// insertsAsNil returns nil when every op is an insert (a chunk's Ops may
// then be nil), and ops otherwise.
func insertsAsNil(ops []types.Op) []types.Op {
	for _, op := range ops {
		if op != types.OpInsert {
			return ops
		}
	}
	return nil
}

// gatherChunk returns a fresh chunk of the n rows sel of c, in that order
// (the first n rows when sel is nil), with ops (nil: all inserts). It
// copies column by column: a dispatcher copies every row that crosses an
// actor boundary, so this is on every row's path.
func gatherChunk(c *types.Chunk, sel []int, n int, ops []types.Op) *types.Chunk {
	out := types.NewChunkFromVecs(make([]*types.Vec, len(c.Cols)), n)
	for j, v := range c.Cols {
		out.Cols[j] = gatherVec(v, sel, n)
	}
	out.Ops = ops
	return out
}

// gatherVec returns a fresh vector of the n values sel of v (the first n
// when sel is nil). Numeric values are copied, since a numeric datum read
// from a vector points into it.
func gatherVec(v *types.Vec, sel []int, n int) *types.Vec {
	out := &types.Vec{T: v.T, Nulls: gather(v.Nulls, sel, n)}
	l := len(v.Nulls)
	switch v.T.Family() {
	case types.FamBool:
		if len(v.B) == l {
			out.B = gather(v.B, sel, n)
			return out
		}
	case types.FamInt:
		if len(v.I) == l {
			out.I = gather(v.I, sel, n)
			return out
		}
	case types.FamFloat:
		if len(v.F) == l {
			out.F = gather(v.F, sel, n)
			return out
		}
	case types.FamString, types.FamNone:
		if len(v.S) == l {
			out.S = gather(v.S, sel, n)
			return out
		}
	case types.FamInterval:
		if len(v.Iv) == l {
			out.Iv = gather(v.Iv, sel, n)
			return out
		}
	}
	// Numerics, and vectors whose value slice does not follow their type's
	// family: value by value.
	slow := types.NewVec(v.T, n)
	for k := 0; k < n; k++ {
		i := k
		if sel != nil {
			i = sel[k]
		}
		slow.Append(v.Get(i))
	}
	return slow
}

// gather returns a fresh slice of the n elements sel of xs (the first n
// when sel is nil).
func gather[E any](xs []E, sel []int, n int) []E {
	if sel == nil {
		return append(make([]E, 0, n), xs[:n]...)
	}
	out := make([]E, n)
	for k, i := range sel {
		out[k] = xs[i]
	}
	return out
}

// fixUpdatePairs restores the invariant that an update is an adjacent
// U-, U+ pair of visible rows after some rows of c were hidden: a visible
// U- whose U+ is hidden becomes a delete, and a visible U+ whose U- is
// hidden becomes an insert. Ops is copied before it is changed, since it
// may be shared with the chunk's producer.
func fixUpdatePairs(c *types.Chunk) {
	if c.Ops == nil || c.Vis == nil {
		return
	}
	copied := false
	set := func(i int, op types.Op) {
		if !copied {
			c.Ops = append([]types.Op(nil), c.Ops...)
			copied = true
		}
		c.Ops[i] = op
	}
	n := c.Len()
	for i := 0; i < n; i++ {
		if c.Ops[i] != types.OpUpdateDelete || i+1 >= n || c.Ops[i+1] != types.OpUpdateInsert {
			continue
		}
		del, ins := c.Vis[i], c.Vis[i+1]
		switch {
		case del && !ins:
			set(i, types.OpDelete)
		case !del && ins:
			set(i+1, types.OpInsert)
		}
		i++
	}
}

// hashSeed starts a row hash; hashCombine folds one column's hash into
// it (boost's hash_combine with a 64-bit constant). The same functions
// partition rows in hash exchanges, table inputs and backfill scans, so
// a key always lands on the actor with the same index.
const hashSeed uint64 = 0x2545f4914f6cdd1d

func hashCombine(h, v uint64) uint64 {
	return h ^ (v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2))
}

// hashChunkRow returns the hash of the key columns keys of row i of c.
func hashChunkRow(c *types.Chunk, i int, keys []int) uint64 {
	h := hashSeed
	for _, k := range keys {
		v := c.Cols[k]
		h = hashCombine(h, types.Hash(v.Get(i), v.T))
	}
	return h
}

// hashRow returns the hash of the key columns keys of row (of types ts),
// equal to hashChunkRow of the same values.
func hashRow(row types.Row, keys []int, ts []types.T) uint64 {
	h := hashSeed
	for _, k := range keys {
		h = hashCombine(h, types.Hash(row[k], ts[k]))
	}
	return h
}

// partitionOf maps a row hash to one of n actors.
func partitionOf(h uint64, n int) int { return int(h % uint64(n)) }

// exprEval evaluates one compiled expression over stream chunks. In a
// stream, an error in one row must not fail the job: when the vectorized
// evaluation fails, the chunk is evaluated again row by row, each failing
// row gets NULL, and its error is recorded through the actor's
// ErrorRecorder.
type exprEval struct {
	ev  executor.Evaluator
	t   types.T
	ec  *executor.EvalCtx
	op  string // operator name for the error record
	one *types.Chunk
}

func (e *exprEval) eval(actx *ActorContext, c *types.Chunk) (*types.Vec, error) {
	v, err := e.ev.Eval(e.ec, c)
	if err == nil {
		return v, nil
	}
	out := types.NewVec(e.t, c.Len())
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			out.Append(types.NullDatum)
			continue
		}
		out.Append(e.evalRow(actx, c, i))
	}
	return out, nil
}

// evalRow evaluates row i of c alone; a failure is recorded through the
// actor's ErrorRecorder and gives NULL.
func (e *exprEval) evalRow(actx *ActorContext, c *types.Chunk, i int) types.Datum {
	if e.one == nil {
		ts := make([]types.T, len(c.Cols))
		for j, cv := range c.Cols {
			ts[j] = cv.T
		}
		e.one = types.NewChunk(ts, 1)
	}
	e.one.Reset()
	e.one.AppendRow(types.OpInsert, c.Row(i))
	rv, err := e.ev.Eval(e.ec, e.one)
	if err != nil {
		if actx.Errors != nil {
			actx.Errors.Record(actx.Job, e.op, err)
		}
		return types.NullDatum
	}
	return rv.Get(0)
}

// isTrueAt reports whether row i of a boolean vector is true (not false,
// not NULL).
func isTrueAt(v *types.Vec, i int) bool {
	if v.Nulls[i] {
		return false
	}
	if v.B != nil {
		return v.B[i]
	}
	return v.I != nil && v.I[i] != 0
}

// ownDatum returns d detached from the chunk it was read from: a numeric
// datum read from a chunk points into the chunk's vector, which its
// producer may reuse.
func ownDatum(d types.Datum) types.Datum {
	if d.D != nil {
		d.D = new(apd.Decimal).Set(d.D)
	}
	return d
}

// ownRow returns row i of c with every datum detached from c.
func ownRow(c *types.Chunk, i int) types.Row {
	r := c.Row(i)
	for j := range r {
		r[j] = ownDatum(r[j])
	}
	return r
}
