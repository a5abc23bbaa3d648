package types

import "github.com/cockroachdb/apd/v3"

// Op is a changelog operation on a row (DESIGN.md §2). Batch chunks use
// only Insert. An update is always an adjacent UpdateDelete, UpdateInsert
// pair in one chunk.
type Op uint8

// Changelog operations.
const (
	OpInsert       Op = iota // "+"
	OpDelete                 // "-"
	OpUpdateDelete           // "U-"
	OpUpdateInsert           // "U+"
)

// String returns the pretty form used by Chunk.String.
func (o Op) String() string {
	switch o {
	case OpInsert:
		return "+"
	case OpDelete:
		return "-"
	case OpUpdateDelete:
		return "U-"
	case OpUpdateInsert:
		return "U+"
	}
	return "?"
}

// IsInsert reports whether o adds a row (Insert or UpdateInsert).
func (o Op) IsInsert() bool { return o == OpInsert || o == OpUpdateInsert }

// Vec is one column of a Chunk: a typed vector plus a null map. Only the
// slice matching T.Family() is used; the others are nil. Nulls[i] true
// means row i is NULL (the value slot then holds the zero value).
type Vec struct {
	T     T
	Nulls []bool
	B     []bool
	I     []int64
	F     []float64
	S     []string
	D     []apd.Decimal
	Iv    []IntervalVal
}

// NewVec returns an empty vector of type t with capacity n.
func NewVec(t T, n int) *Vec {
	v := &Vec{T: t, Nulls: make([]bool, 0, n)}
	switch t.Family() {
	case FamBool:
		v.B = make([]bool, 0, n)
	case FamInt:
		v.I = make([]int64, 0, n)
	case FamFloat:
		v.F = make([]float64, 0, n)
	case FamDecimal:
		v.D = make([]apd.Decimal, 0, n)
	case FamString, FamNone:
		v.S = make([]string, 0, n)
	case FamInterval:
		v.Iv = make([]IntervalVal, 0, n)
	}
	return v
}

// Len returns the number of rows in v.
func (v *Vec) Len() int { return len(v.Nulls) }

// Append appends d to v.
func (v *Vec) Append(d Datum) {
	v.Nulls = append(v.Nulls, d.Null)
	switch v.T.Family() {
	case FamBool:
		v.B = append(v.B, !d.Null && d.I != 0)
	case FamInt:
		v.I = append(v.I, d.I)
	case FamFloat:
		v.F = append(v.F, d.F)
	case FamDecimal:
		var x apd.Decimal
		if !d.Null && d.D != nil {
			x.Set(d.D)
		}
		v.D = append(v.D, x)
	case FamString, FamNone:
		v.S = append(v.S, d.S)
	case FamInterval:
		v.Iv = append(v.Iv, d.Iv)
	}
}

// Get returns row i of v as a Datum. A numeric datum points into v.
func (v *Vec) Get(i int) Datum {
	if v.Nulls[i] {
		return NullDatum
	}
	switch v.T.Family() {
	case FamBool:
		if v.B[i] {
			return Datum{I: 1}
		}
		return Datum{}
	case FamInt:
		return Datum{I: v.I[i]}
	case FamFloat:
		return Datum{F: v.F[i]}
	case FamDecimal:
		return Datum{D: &v.D[i]}
	case FamString:
		return Datum{S: v.S[i]}
	case FamInterval:
		return Datum{Iv: v.Iv[i]}
	}
	return NullDatum
}

// Reset empties v, keeping its capacity.
func (v *Vec) Reset() {
	v.Nulls = v.Nulls[:0]
	v.B, v.I, v.F, v.S, v.D, v.Iv = v.B[:0], v.I[:0], v.F[:0], v.S[:0], v.D[:0], v.Iv[:0]
}

// ChunkCap is the usual number of rows in a chunk.
const ChunkCap = 1024

// Chunk is a columnar batch of rows (DESIGN.md §2): one Vec per column, an
// Ops vector (nil in batch execution, meaning all Insert) and a visibility
// map (nil means every row is visible; a filter clears entries instead of
// copying rows).
type Chunk struct {
	Cols []*Vec
	Ops  []Op
	Vis  []bool
	n    int
}

// NewChunk returns an empty chunk for the given column types with room for
// capacity rows.
func NewChunk(ts []T, capacity int) *Chunk {
	c := &Chunk{Cols: make([]*Vec, len(ts))}
	for i, t := range ts {
		c.Cols[i] = NewVec(t, capacity)
	}
	return c
}

// NewChunkFromVecs returns a chunk over vecs, which must have equal length n.
func NewChunkFromVecs(vecs []*Vec, n int) *Chunk { return &Chunk{Cols: vecs, n: n} }

// Len returns the number of rows in c, visible or not.
func (c *Chunk) Len() int { return c.n }

// SetLen sets the row count after columns were filled directly.
func (c *Chunk) SetLen(n int) { c.n = n }

// Visible reports whether row i is visible.
func (c *Chunk) Visible(i int) bool { return c.Vis == nil || c.Vis[i] }

// Op returns the changelog operation of row i (Insert when Ops is nil).
func (c *Chunk) Op(i int) Op {
	if c.Ops == nil {
		return OpInsert
	}
	return c.Ops[i]
}

// AppendRow appends a row with operation op.
func (c *Chunk) AppendRow(op Op, r Row) {
	for i, v := range c.Cols {
		v.Append(r[i])
	}
	if c.Ops != nil || op != OpInsert {
		if c.Ops == nil {
			c.Ops = make([]Op, c.n, cap(c.Cols[0].Nulls))
		}
		c.Ops = append(c.Ops, op)
	}
	if c.Vis != nil {
		c.Vis = append(c.Vis, true)
	}
	c.n++
}

// Row returns row i as a Row (numeric datums point into the chunk).
func (c *Chunk) Row(i int) Row {
	r := make(Row, len(c.Cols))
	for j, v := range c.Cols {
		r[j] = v.Get(i)
	}
	return r
}

// Reset empties c, keeping capacity.
func (c *Chunk) Reset() {
	for _, v := range c.Cols {
		v.Reset()
	}
	c.Ops = c.Ops[:0]
	if c.Ops != nil && len(c.Ops) == 0 {
		c.Ops = nil
	}
	c.Vis = nil
	c.n = 0
}

// VisibleCount returns the number of visible rows.
func (c *Chunk) VisibleCount() int {
	if c.Vis == nil {
		return c.n
	}
	k := 0
	for _, b := range c.Vis[:c.n] {
		if b {
			k++
		}
	}
	return k
}
