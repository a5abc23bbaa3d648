package executor

import (
	"context"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// compareDatum and hashDatum are the value order and hash of the types
// package. They are variables only so that this package's tests can run
// before the types package's real implementations are linked in.
var (
	compareDatum = types.Compare
	hashDatum    = types.Hash
)

// cmpNulls orders a and b of type t with NULLs placed first or last.
func cmpNulls(a, b types.Datum, t types.T, nullsFirst bool) int {
	if c, ok := types.CompareNullsOrdered(a, b, nullsFirst); ok {
		return c
	}
	return compareDatum(a, b, t)
}

// sameDatum reports whether a and b are equal, treating NULL as equal to
// NULL (the grouping semantics of GROUP BY, DISTINCT and set operations).
func sameDatum(a, b types.Datum, t types.T) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	return compareDatum(a, b, t) == 0
}

// hashRow hashes a row (NULLs hash alike) consistently with sameRow.
func hashRow(r types.Row, ts []types.T) uint64 {
	h := uint64(14695981039346656037)
	for i, d := range r {
		var x uint64 = 0x9e3779b97f4a7c15
		if !d.Null {
			x = hashDatum(d, ts[i])
		}
		h = (h ^ x) * 1099511628211
		h ^= h >> 29
	}
	return h
}

// sameRow reports whether rows a and b are equal column by column with
// NULLs equal.
func sameRow(a, b types.Row, ts []types.T) bool {
	for i := range a {
		if !sameDatum(a[i], b[i], ts[i]) {
			return false
		}
	}
	return true
}

// copyDatum returns d detached from any vector it points into (a numeric
// datum from Vec.Get points into the vector, which its producer reuses).
func copyDatum(d types.Datum) types.Datum {
	if !d.Null && d.D != nil {
		x := new(apd.Decimal)
		x.Set(d.D)
		d.D = x
	}
	return d
}

// detachRow returns row i of c with every datum detached from c.
func detachRow(c *types.Chunk, i int) types.Row {
	r := make(types.Row, len(c.Cols))
	for j, v := range c.Cols {
		r[j] = copyDatum(v.Get(i))
	}
	return r
}

// rowTable is a hash table of rows with NULLs equal, in insertion order.
// It backs grouping, DISTINCT, set operations and distinct aggregates.
type rowTable struct {
	ts      []types.T
	buckets map[uint64][]int32
	rows    []types.Row
}

func newRowTable(ts []types.T) *rowTable {
	return &rowTable{ts: ts, buckets: make(map[uint64][]int32)}
}

// find returns the index of the row equal to key (with hash h), or -1.
func (t *rowTable) find(h uint64, key types.Row) int {
	for _, i := range t.buckets[h] {
		if sameRow(t.rows[i], key, t.ts) {
			return int(i)
		}
	}
	return -1
}

// insert adds key (which the table keeps: callers pass a copy) and returns
// its index; the key must not be present.
func (t *rowTable) insert(h uint64, key types.Row) int {
	i := len(t.rows)
	t.rows = append(t.rows, key)
	t.buckets[h] = append(t.buckets[h], int32(i))
	return i
}

// findOrInsert returns the index of key, inserting a copy when absent, and
// whether it was inserted.
func (t *rowTable) findOrInsert(key types.Row) (int, bool) {
	h := hashRow(key, t.ts)
	if i := t.find(h, key); i >= 0 {
		return i, false
	}
	cp := make(types.Row, len(key))
	for j, d := range key {
		cp[j] = copyDatum(d)
	}
	return t.insert(h, cp), true
}

// oneRowChunk is an input with one row and no columns, for evaluating
// expressions without column references (VALUES, LIMIT, function
// arguments).
func oneRowChunk() *types.Chunk { return types.NewChunkFromVecs(nil, 1) }

// evalConst compiles e and evaluates it once, without an input row.
func evalConst(e planner.Expr, ec *ExecCtx) (types.Datum, error) {
	ev, err := Compile(e)
	if err != nil {
		return types.NullDatum, err
	}
	v, err := ev.Eval(&ec.Eval, oneRowChunk())
	if err != nil {
		return types.NullDatum, err
	}
	return copyDatum(v.Get(0)), nil
}

// evalAll evaluates evs over c.
func evalAll(ec *ExecCtx, evs []Evaluator, c *types.Chunk) ([]*types.Vec, error) {
	out := make([]*types.Vec, len(evs))
	for i, ev := range evs {
		v, err := ev.Eval(&ec.Eval, c)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// exprTypes returns the result types of es.
func exprTypes(es []planner.Expr) []types.T {
	ts := make([]types.T, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	return ts
}

// isTrue reports whether row i of the boolean vector v is true (not false,
// not NULL).
func isTrue(v *types.Vec, i int) bool {
	if v.Nulls[i] {
		return false
	}
	if v.B != nil {
		return v.B[i]
	}
	return v.I != nil && v.I[i] != 0
}

// nextVisible pulls chunks from in until one has a visible row, checking
// ctx per chunk. It returns nil at the end.
func nextVisible(ctx context.Context, in Operator) (*types.Chunk, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := in.Next(ctx)
		if err != nil || c == nil {
			return nil, err
		}
		if c.VisibleCount() > 0 {
			return c, nil
		}
	}
}

// rowBuffer hands out buffered rows as chunks of at most ChunkCap rows
// (ExecCtx.ChunkRows's, when ec is set).
type rowBuffer struct {
	ts   []types.T
	rows []types.Row
	pos  int
	ec   *ExecCtx
}

// next returns the next chunk of buffered rows, or nil when all are out.
func (b *rowBuffer) next() *types.Chunk {
	if b.pos >= len(b.rows) {
		b.rows = nil
		return nil
	}
	end := min(b.pos+b.ec.chunkRows(), len(b.rows))
	c := types.NewChunk(b.ts, end-b.pos)
	for _, r := range b.rows[b.pos:end] {
		c.AppendRow(types.OpInsert, r)
	}
	b.pos = end
	return c
}

// closeAll closes every operator in ops.
func closeAll(ops ...Operator) {
	for _, o := range ops {
		if o != nil {
			o.Close()
		}
	}
}

// endState makes an operator's end and errors sticky, as the Operator
// contract requires: once next reported the end or an error, Next repeats
// it without calling next again.
type endState struct {
	done bool
	err  error
}

// finish records the outcome of one next call.
func (s *endState) finish(c *types.Chunk, err error) (*types.Chunk, error) {
	if err != nil {
		s.done, s.err = true, err
		return nil, err
	}
	if c == nil {
		s.done = true
	}
	return c, nil
}
