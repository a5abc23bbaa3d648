package datagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/connector/splits"
	"github.com/weirdb/weir/types"
)

// Kind is how a column's values are made.
type Kind int

// Column kinds.
const (
	Sequence Kind = iota
	Random
	// RowIndex fills the column with the row's index in the stream (a
	// generated row id).
	RowIndex
)

// Field describes one column.
type Field struct {
	Name string
	T    types.T
	Kind Kind
	// Start and End bound a sequence (inclusive).
	Start, End int64
	// Min and Max bound a random number (inclusive for integers).
	Min, Max float64
	// Length is a random string's length.
	Length int
	// MaxPast is how far back from the base time a random timestamp
	// reaches.
	MaxPast time.Duration
	// Seed seeds a random column.
	Seed uint64
}

// Config configures a Reader.
type Config struct {
	Fields []Field
	// Splits is how many splits the stream is cut into (at least 1).
	Splits int
	// RowsPerSecond paces generation in wall-clock time (0: unpaced).
	RowsPerSecond float64
	// BaseMicros is the time random timestamps count back from
	// (microseconds since 1970-01-01).
	BaseMicros int64
	// Positions maps a split to the index of the next row it reads.
	Positions map[int32]int64
	// Now is the pacing's clock (time.Now when nil).
	Now func() time.Time
}

// Parse builds a column's Field from the source's options (with,
// lower-case keys): fields.<name>.kind and the rest.
func Parse(name string, t types.T, with map[string]string) (Field, error) {
	f := Field{Name: name, T: t, End: 32767, Max: 32767, Length: 10, MaxPast: 24 * time.Hour}
	opt := func(k string) (string, bool) {
		v, ok := with["fields."+name+"."+k]
		return v, ok
	}
	isNum, isString := false, false
	switch t.ID {
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric:
		isNum = true
		f.Kind = Sequence
	case types.Varchar, types.Text:
		isString = true
		f.Kind = Random
	case types.Bool, types.Timestamp, types.Timestamptz:
		f.Kind = Random
	default:
		return f, fmt.Errorf("datagen cannot generate column %s of type %s", name, t)
	}
	if v, ok := opt("kind"); ok {
		switch strings.ToLower(v) {
		case "sequence":
			if !isNum && !isString {
				return f, fmt.Errorf("column %s: a %s column cannot be a sequence", name, t)
			}
			f.Kind = Sequence
		case "random":
			f.Kind = Random
		default:
			return f, fmt.Errorf("column %s: unknown kind %q (want sequence or random)", name, v)
		}
	}
	ints := map[string]*int64{"start": &f.Start, "end": &f.End}
	for k, p := range ints {
		if v, ok := opt(k); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return f, fmt.Errorf("column %s: invalid %s %q", name, k, v)
			}
			*p = n
		}
	}
	for k, p := range map[string]*float64{"min": &f.Min, "max": &f.Max} {
		if v, ok := opt(k); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return f, fmt.Errorf("column %s: invalid %s %q", name, k, v)
			}
			*p = x
		}
	}
	if v, ok := opt("length"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 1<<20 {
			return f, fmt.Errorf("column %s: invalid length %q", name, v)
		}
		f.Length = n
	}
	if v, ok := opt("seed"); ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return f, fmt.Errorf("column %s: invalid seed %q", name, v)
		}
		f.Seed = n
	}
	if v, ok := opt("max_past"); ok {
		iv, err := types.ParseText(v, types.TInterval, time.UTC)
		if err != nil {
			return f, fmt.Errorf("column %s: invalid max_past %q", name, v)
		}
		d := time.Duration(iv.Iv.Micros)*time.Microsecond + time.Duration(iv.Iv.Days)*24*time.Hour +
			time.Duration(iv.Iv.Months)*30*24*time.Hour
		if d < 0 {
			return f, fmt.Errorf("column %s: max_past %q is negative", name, v)
		}
		f.MaxPast = d
	}
	if f.Kind == Sequence && f.End < f.Start {
		return f, fmt.Errorf("column %s: the sequence's end %d is before its start %d", name, f.End, f.Start)
	}
	if f.Kind == Random && f.Max < f.Min {
		return f, fmt.Errorf("column %s: max %v is below min %v", name, f.Max, f.Min)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.ID {
	case types.Int2:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.Int4:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if f.Kind == Sequence && (f.Start < lo || f.End > hi) || f.Kind == Random && isNum && t.Family() == types.FamInt && (f.Min < float64(lo) || f.Max > float64(hi)) {
		return f, fmt.Errorf("column %s: the bounds exceed the range of %s", name, t)
	}
	return f, nil
}

// Reader generates the rows of one source: its splits merged in row
// order. It is not safe for concurrent use.
type Reader struct {
	cfg   Config
	next  []int64
	rows  int64 // rows in the stream, -1 when unbounded
	start time.Time
	first int64
	paced bool
}

// Batch is what Reader.Next returns.
type Batch struct {
	// Chunk holds the rows (op Insert), nil when the stream is exhausted.
	Chunk *types.Chunk
	// Partitions is each row's split.
	Partitions []int32
	// Positions is, for every split, the index of its next row.
	Positions map[int32]int64
}

// NewReader returns a reader resuming at cfg.Positions.
func NewReader(cfg Config) (*Reader, error) {
	if cfg.Splits < 1 {
		return nil, fmt.Errorf("datagen.split.num must be at least 1, not %d", cfg.Splits)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Reader{cfg: cfg, rows: -1}
	for _, f := range cfg.Fields {
		if f.Kind == Sequence {
			n := f.End - f.Start + 1
			if r.rows < 0 || n < r.rows {
				r.rows = n
			}
		}
	}
	var err error
	if r.next, err = splits.Resume(cfg.Splits, cfg.Positions, "row"); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reader) nextSplit() int {
	best := -1
	for s, k := range r.next {
		if r.rows >= 0 && k >= r.rows {
			continue
		}
		if best < 0 || k < r.next[best] {
			best = s
		}
	}
	return best
}

// Exhausted reports whether every split has read its last row.
func (r *Reader) Exhausted() bool { return r.nextSplit() < 0 }

// Wait returns how long the pacing asks to wait before the next row.
func (r *Reader) Wait() time.Duration {
	if r.cfg.RowsPerSecond <= 0 {
		return 0
	}
	s := r.nextSplit()
	if s < 0 {
		return 0
	}
	k := r.next[s]
	if !r.paced {
		r.paced, r.start, r.first = true, r.cfg.Now(), k
		return 0
	}
	due := r.start.Add(time.Duration(float64(k-r.first) / r.cfg.RowsPerSecond * float64(time.Second)))
	return max(due.Sub(r.cfg.Now()), 0)
}

// Next generates up to max rows; a paced reader generates at most the
// rows due now (at least one).
func (r *Reader) Next(max int) Batch {
	if max <= 0 {
		max = types.ChunkCap
	}
	if r.cfg.RowsPerSecond > 0 && r.paced {
		s := r.nextSplit()
		if s >= 0 {
			due := int64(r.cfg.Now().Sub(r.start).Seconds()*r.cfg.RowsPerSecond) - (r.next[s] - r.first) + 1
			max = int(min(int64(max), maxI64(due, 1)))
		}
	}
	ts := make([]types.T, len(r.cfg.Fields))
	for i, f := range r.cfg.Fields {
		ts[i] = f.T
	}
	var b Batch
	var c *types.Chunk
	for range max {
		s := r.nextSplit()
		if s < 0 {
			break
		}
		if c == nil {
			c = types.NewChunk(ts, max)
		}
		k := r.next[s]
		r.next[s] += int64(r.cfg.Splits)
		for i, f := range r.cfg.Fields {
			c.Cols[i].Append(r.value(f, i, k))
		}
		b.Partitions = append(b.Partitions, int32(s))
	}
	if c != nil {
		c.SetLen(len(b.Partitions))
	}
	b.Chunk = c
	b.Positions = make(map[int32]int64, len(r.next))
	for s, k := range r.next {
		b.Positions[int32(s)] = k
	}
	return b
}

func maxI64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// mix is SplitMix64's finaliser: a well-spread 64-bit hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// rand returns the j-th random word of column col at row k.
func rand(seed uint64, col int, k int64, j uint64) uint64 {
	return mix(mix(seed^uint64(col)<<48) ^ mix(uint64(k)) ^ j*0x9e3779b97f4a7c15)
}

// unit maps a random word to [0, 1).
func unit(u uint64) float64 { return float64(u>>11) / (1 << 53) }

// value is field f's value (column col) in row k.
func (r *Reader) value(f Field, col int, k int64) types.Datum {
	switch f.Kind {
	case RowIndex:
		return types.DInt(k)
	case Sequence:
		v := f.Start + k
		switch f.T.Family() {
		case types.FamFloat:
			return types.DFloat(float64(v))
		case types.FamDecimal:
			d := new(apd.Decimal)
			d.SetInt64(v)
			return types.DDecimal(d)
		case types.FamString:
			return types.DString(strconv.FormatInt(v, 10))
		}
		return types.DInt(v)
	}
	u := rand(f.Seed, col, k, 0)
	switch {
	case f.T.ID == types.Bool:
		return types.DBool(u&1 == 1)
	case f.T.ID == types.Timestamp || f.T.ID == types.Timestamptz:
		span := f.MaxPast.Microseconds()
		if span <= 0 {
			return types.DInt(r.cfg.BaseMicros)
		}
		return types.DInt(r.cfg.BaseMicros - int64(u%uint64(span)))
	}
	switch f.T.Family() {
	case types.FamInt:
		lo, hi := int64(math.Ceil(f.Min)), int64(math.Floor(f.Max))
		if hi < lo {
			return types.DInt(lo)
		}
		return types.DInt(lo + int64(u%uint64(hi-lo+1)))
	case types.FamFloat:
		return types.DFloat(f.Min + unit(u)*(f.Max-f.Min))
	case types.FamDecimal:
		d := new(apd.Decimal)
		if _, err := d.SetFloat64(f.Min + unit(u)*(f.Max-f.Min)); err != nil {
			d.SetInt64(0)
		}
		return types.DDecimal(d)
	case types.FamString:
		b := make([]byte, f.Length)
		for i := range b {
			if i%8 == 0 && i > 0 {
				u = rand(f.Seed, col, k, uint64(i/8))
			}
			b[i] = byte('a' + (u>>(8*(i%8)))%26)
		}
		return types.DString(string(b))
	}
	return types.NullDatum
}
