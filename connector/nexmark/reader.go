package nexmark

import (
	"fmt"
	"time"

	"github.com/weirdb/weir/connector/splits"
	"github.com/weirdb/weir/types"
)

// FieldEventNumber, as an entry of Config.Fields, fills a column with the
// row's global event number: unique, and the same on every replay, so it
// serves as a source's generated row id.
const FieldEventNumber = -1

// Config configures a Reader.
type Config struct {
	// Table is the kind of event read.
	Table TableType
	// EventNum bounds the global event numbers read (all kinds count);
	// negative means no bound.
	EventNum int64
	// Clock gives the events' times.
	Clock Clock
	// Splits is how many splits the stream is cut into (at least 1).
	Splits int
	// MaxChunkSize bounds the rows of one batch (0: types.ChunkCap).
	MaxChunkSize int
	// MinEventGap paces generation in wall-clock time: event n+1 is not
	// generated before MinEventGap after event n (counting events of
	// every kind, as RisingWave's nexmark.min.event.gap.in.ns does). 0
	// generates as fast as the reader is polled.
	MinEventGap time.Duration
	// Fields lists, per output column, its index in Columns(Table) or
	// FieldEventNumber.
	Fields []int
	// Types are the output columns' types. An integer field may be read
	// as smallint, integer or bigint, a string one as varchar or text, a
	// timestamp as timestamp or timestamptz (as UTC).
	Types []types.T
	// Positions maps a split to the index, among events of Table, of the
	// next event it reads (from a checkpoint); a split not in it starts
	// at its first event.
	Positions map[int32]int64
	// Now is the clock of the pacing (time.Now when nil).
	Now func() time.Time
}

// CheckColumn reports whether a column of type t can hold field f of
// kind table.
func CheckColumn(table TableType, f int, t types.T) error {
	cols := Columns(table)
	if f == FieldEventNumber {
		if t.Family() != types.FamInt {
			return fmt.Errorf("the event number is an integer, not %s", t)
		}
		return nil
	}
	if f < 0 || f >= len(cols) {
		return fmt.Errorf("field %d of %d", f, len(cols))
	}
	want := cols[f].T
	ok := false
	switch want.ID {
	case types.Int8:
		ok = t.ID == types.Int8 || t.ID == types.Int4 || t.ID == types.Int2
	case types.Varchar:
		ok = t.ID == types.Varchar || t.ID == types.Text
	case types.Timestamp:
		ok = t.ID == types.Timestamp || t.ID == types.Timestamptz
	}
	if !ok {
		return fmt.Errorf("column %s of a Nexmark %s is %s, not %s", cols[f].Name, table, want, t)
	}
	return nil
}

// Reader generates the rows of one source: its splits merged in event
// order. It is not safe for concurrent use.
type Reader struct {
	cfg   Config
	gen   *Generator
	next  []int64 // per split: index among Table's events of its next event
	max   int
	start time.Time
	// firstEvent is the global number of the first event this reader
	// generated, the origin of the pacing.
	firstEvent int64
	paced      bool
}

// Batch is what Reader.Next returns.
type Batch struct {
	// Chunk holds the rows, op Insert, columns as Config.Fields; nil when
	// the stream is exhausted.
	Chunk *types.Chunk
	// Partitions is each row's split.
	Partitions []int32
	// Positions is, for every split, the index of its next event.
	Positions map[int32]int64
}

// NewReader returns a reader resuming at cfg.Positions.
func NewReader(cfg Config) (*Reader, error) {
	if cfg.Splits < 1 {
		return nil, fmt.Errorf("nexmark.split.num must be at least 1, not %d", cfg.Splits)
	}
	if len(cfg.Fields) != len(cfg.Types) {
		return nil, fmt.Errorf("%d fields for %d types", len(cfg.Fields), len(cfg.Types))
	}
	for i, f := range cfg.Fields {
		if err := CheckColumn(cfg.Table, f, cfg.Types[i]); err != nil {
			return nil, err
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Reader{cfg: cfg, gen: NewGenerator(cfg.Clock), max: cfg.MaxChunkSize}
	if r.max <= 0 {
		r.max = types.ChunkCap
	}
	var err error
	if r.next, err = splits.Resume(cfg.Splits, cfg.Positions, "event"); err != nil {
		return nil, err
	}
	return r, nil
}

// nextSplit returns the split whose next event comes first, or -1 when
// every split is exhausted.
func (r *Reader) nextSplit() int {
	best := -1
	for s, k := range r.next {
		if r.cfg.EventNum >= 0 && EventNumber(r.cfg.Table, k) >= r.cfg.EventNum {
			continue
		}
		if best < 0 || k < r.next[best] {
			best = s
		}
	}
	return best
}

// Exhausted reports whether every split has read its last event.
func (r *Reader) Exhausted() bool { return r.nextSplit() < 0 }

// Wait returns how long the pacing asks to wait before the next batch
// (zero without MinEventGap or when generation is behind the pace).
func (r *Reader) Wait() time.Duration {
	if r.cfg.MinEventGap <= 0 {
		return 0
	}
	s := r.nextSplit()
	if s < 0 {
		return 0
	}
	n := EventNumber(r.cfg.Table, r.next[s])
	if !r.paced {
		r.paced, r.start, r.firstEvent = true, r.cfg.Now(), n
		return 0
	}
	due := r.start.Add(time.Duration(n-r.firstEvent) * r.cfg.MinEventGap)
	return max(due.Sub(r.cfg.Now()), 0)
}

// Next generates up to max rows (at most Config.MaxChunkSize).
func (r *Reader) Next(max int) Batch {
	if max <= 0 || max > r.max {
		max = r.max
	}
	var b Batch
	var c *types.Chunk
	for range max {
		s := r.nextSplit()
		if s < 0 {
			break
		}
		if c == nil {
			c = types.NewChunk(r.cfg.Types, max)
			b.Partitions = make([]int32, 0, max)
		}
		k := r.next[s]
		r.next[s] += int64(r.cfg.Splits)
		r.appendEvent(c, EventNumber(r.cfg.Table, k))
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

func appendInt(v *types.Vec, i int64) {
	v.Nulls = append(v.Nulls, false)
	v.I = append(v.I, i)
}

func appendString(v *types.Vec, s string) {
	v.Nulls = append(v.Nulls, false)
	v.S = append(v.S, s)
}

// appendEvent appends event n's row to c.
func (r *Reader) appendEvent(c *types.Chunk, n int64) {
	const msUs = 1000
	switch r.cfg.Table {
	case Person:
		p := r.gen.Person(n)
		for i, f := range r.cfg.Fields {
			v := c.Cols[i]
			switch f {
			case FieldEventNumber:
				appendInt(v, n)
			case 0:
				appendInt(v, p.ID)
			case 1:
				appendString(v, p.Name)
			case 2:
				appendString(v, p.EmailAddress)
			case 3:
				appendString(v, p.CreditCard)
			case 4:
				appendString(v, p.City)
			case 5:
				appendString(v, p.State)
			case 6:
				appendInt(v, p.DateTime*msUs)
			case 7:
				appendString(v, p.Extra)
			}
		}
	case Auction:
		a := r.gen.Auction(n)
		for i, f := range r.cfg.Fields {
			v := c.Cols[i]
			switch f {
			case FieldEventNumber:
				appendInt(v, n)
			case 0:
				appendInt(v, a.ID)
			case 1:
				appendString(v, a.ItemName)
			case 2:
				appendString(v, a.Description)
			case 3:
				appendInt(v, a.InitialBid)
			case 4:
				appendInt(v, a.Reserve)
			case 5:
				appendInt(v, a.DateTime*msUs)
			case 6:
				appendInt(v, a.Expires*msUs)
			case 7:
				appendInt(v, a.Seller)
			case 8:
				appendInt(v, a.Category)
			case 9:
				appendString(v, a.Extra)
			}
		}
	default:
		bd := r.gen.Bid(n)
		for i, f := range r.cfg.Fields {
			v := c.Cols[i]
			switch f {
			case FieldEventNumber:
				appendInt(v, n)
			case 0:
				appendInt(v, bd.Auction)
			case 1:
				appendInt(v, bd.Bidder)
			case 2:
				appendInt(v, bd.Price)
			case 3:
				appendString(v, bd.Channel)
			case 4:
				appendString(v, bd.URL)
			case 5:
				appendInt(v, bd.DateTime*msUs)
			case 6:
				appendString(v, bd.Extra)
			}
		}
	}
}
