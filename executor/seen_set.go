package executor

import (
	bin "encoding/binary"
	"slices"
	"sort"

	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// seenSet is the set of rows a WITH RECURSIVE UNION (without ALL) has
// emitted, which every new row is looked up in as it comes, so that a
// LIMIT above the recursion still stops it; an uncorrelated IN or NOT IN
// hashes its subquery's values into one too. Rows enter a hash table in
// memory; when the table holds ExecCtx.WorkMem of them (by
// types.RowMemSize) they go to a tape as a run sorted by their hash,
// and the table starts empty again. A lookup that misses the table
// looks in each run: a Bloom filter of the run's hashes (10 bits a row)
// answers most misses without reading the tape, and a mark every
// seenStride records (its hash and offset) leads a hit to the few
// records it reads, straight from the file. Runs are merged seenFanin
// at a time once that many of one generation pile up, so a row is
// rewritten a few times at most and the runs stay few. What stays in
// memory past the table is the filters and marks, under 2 bytes a row.
//
// PostgreSQL keeps a recursion's set in a hash table that grows past
// work_mem; the answers are the same, as rows are equal here exactly
// when they are in its table (NULLs equal, by hashRow and sameRow).
type seenSet struct {
	ec   *ExecCtx
	ts   []types.T
	enc  []types.T
	mem  *rowTable
	hash []uint64 // the hash of each row of mem, by index
	held int64
	runs []*seenRun
	buf  []byte
	// probe holds the records a lookup read.
	probe []byte
}

// seenStride is how many records of a run lie between two marks.
const seenStride = 32

// seenFanin is how many runs of one generation are merged into one run
// of the next.
const seenFanin = 8

// seenRun is one sorted run of a seenSet: records of an 8-byte
// big-endian hash followed by the row (types.AppendRow), in hash order.
type seenRun struct {
	tape  *storage.Tape
	n     int64
	gen   int
	marks []seenMark
	bloom []uint64
}

// seenMark is the hash and offset of every seenStride-th record of a run.
type seenMark struct {
	hash uint64
	off  int64
}

func newSeenSet(ec *ExecCtx, ts []types.T) *seenSet {
	return &seenSet{ec: ec, ts: ts, enc: spillTypes(ts), mem: newRowTable(ts)}
}

// has reports whether a row equal to row is in the set.
func (s *seenSet) has(row types.Row) (bool, error) {
	return s.find(hashRow(row, s.ts), row)
}

// find reports whether a row equal to row, whose hash is h, is in the
// set.
func (s *seenSet) find(h uint64, row types.Row) (bool, error) {
	if s.mem.find(h, row) >= 0 {
		return true, nil
	}
	for _, r := range s.runs {
		if found, err := r.contains(s, h, row); err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// add inserts a copy of row unless an equal row is in the set, and
// reports whether it did.
func (s *seenSet) add(row types.Row) (bool, error) {
	h := hashRow(row, s.ts)
	if found, err := s.find(h, row); err != nil || found {
		return false, err
	}
	cp := make(types.Row, len(row))
	for j, d := range row {
		cp[j] = copyDatum(d)
	}
	s.mem.insert(h, cp)
	s.hash = append(s.hash, h)
	s.held += types.RowMemSize(cp) + hashTableEntry
	if s.ec.spillable(s.held) {
		if err := s.flush(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// flush writes the table's rows to a new run in hash order and empties
// the table, then merges runs when a generation is full.
func (s *seenSet) flush() error {
	order := make([]int, len(s.mem.rows))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return s.hash[order[a]] < s.hash[order[b]] })
	w, err := s.newRunWriter(int64(len(order)), 0)
	if err != nil {
		return err
	}
	for _, i := range order {
		s.buf = bin.BigEndian.AppendUint64(s.buf[:0], s.hash[i])
		s.buf = types.AppendRow(s.buf, s.mem.rows[i], s.enc)
		if err := w.append(s.hash[i], s.buf); err != nil {
			w.run.discard()
			return err
		}
	}
	run, err := w.done()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	s.mem, s.hash, s.held = newRowTable(s.ts), nil, 0
	return s.merge()
}

// merge merges the last seenFanin runs into one while they are all of
// one generation.
func (s *seenSet) merge() error {
	for len(s.runs) >= seenFanin {
		last := s.runs[len(s.runs)-seenFanin:]
		gen := last[0].gen
		var n int64
		for _, r := range last {
			if r.gen != gen {
				return nil
			}
			n += r.n
		}
		w, err := s.newRunWriter(n, gen+1)
		if err != nil {
			return err
		}
		type cursor struct {
			rd   *storage.TapeReader
			size int64
			off  int64
			rec  []byte
			hash uint64
		}
		cs := make([]*cursor, 0, len(last))
		advance := func(c *cursor) (bool, error) {
			if c.off >= c.size {
				return false, nil
			}
			rec, next, err := c.rd.Next(c.off, c.rec)
			if err != nil {
				return false, err
			}
			c.rec, c.off, c.hash = rec, next, bin.BigEndian.Uint64(rec)
			return true, nil
		}
		for _, r := range last {
			c := &cursor{rd: r.tape.NewReader(), size: r.tape.Size()}
			ok, err := advance(c)
			if err != nil {
				w.run.discard()
				return err
			}
			if ok {
				cs = append(cs, c)
			}
		}
		for len(cs) > 0 {
			m := 0
			for i, c := range cs {
				if c.hash < cs[m].hash {
					m = i
				}
			}
			c := cs[m]
			if err := w.append(c.hash, c.rec); err != nil {
				w.run.discard()
				return err
			}
			ok, err := advance(c)
			if err != nil {
				w.run.discard()
				return err
			}
			if !ok {
				cs = slices.Delete(cs, m, m+1)
			}
		}
		run, err := w.done()
		if err != nil {
			return err
		}
		for _, r := range last {
			r.discard()
		}
		s.runs = append(s.runs[:len(s.runs)-seenFanin], run)
	}
	return nil
}

// seenRunWriter writes a run's records, its marks and its filter.
type seenRunWriter struct {
	run *seenRun
	i   int64
}

// newRunWriter starts a run of n records of generation gen.
func (s *seenSet) newRunWriter(n int64, gen int) (*seenRunWriter, error) {
	t, err := s.ec.Temp.NewTape()
	if err != nil {
		return nil, err
	}
	words := (n*10 + 63) / 64
	return &seenRunWriter{run: &seenRun{tape: t, gen: gen, bloom: make([]uint64, words)}}, nil
}

// append adds the record rec of hash h, which follows every record
// appended before it in hash order.
func (w *seenRunWriter) append(h uint64, rec []byte) error {
	if w.i%seenStride == 0 {
		w.run.marks = append(w.run.marks, seenMark{hash: h, off: w.run.tape.Size()})
	}
	w.i++
	w.run.n++
	w.run.setBloom(h)
	return w.run.tape.Append(rec)
}

// done ends the run's writing.
func (w *seenRunWriter) done() (*seenRun, error) {
	if err := w.run.tape.Seal(); err != nil {
		w.run.discard()
		return nil, err
	}
	return w.run, nil
}

// bloomBit returns the i-th of the seenBloomK bit positions of hash h
// in a filter of m bits (double hashing).
func bloomBit(h uint64, i int, m uint64) uint64 {
	h2 := (h>>33 | h<<31) * 0x9e3779b97f4a7c15
	return (h + uint64(i)*(h2|1)) % m
}

// seenBloomK is how many bits of a run's filter each hash sets: with 10
// bits a row, about 1% of the lookups of a row not in the run read it.
const seenBloomK = 6

func (r *seenRun) setBloom(h uint64) {
	m := uint64(len(r.bloom)) * 64
	for i := 0; i < seenBloomK; i++ {
		b := bloomBit(h, i, m)
		r.bloom[b/64] |= 1 << (b % 64)
	}
}

func (r *seenRun) mayContain(h uint64) bool {
	m := uint64(len(r.bloom)) * 64
	for i := 0; i < seenBloomK; i++ {
		b := bloomBit(h, i, m)
		if r.bloom[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// contains reports whether the run holds a row equal to row, of hash h.
func (r *seenRun) contains(s *seenSet, h uint64, row types.Row) (bool, error) {
	if r.n == 0 || !r.mayContain(h) {
		return false, nil
	}
	// Records of hash h follow the last mark of a smaller hash (the
	// first record has a mark); they are read a stride at a time, as
	// long as the next stride may still hold some.
	k := sort.Search(len(r.marks), func(i int) bool { return r.marks[i].hash >= h })
	if k > 0 {
		k--
	}
	for ; k < len(r.marks); k++ {
		if k > 0 && r.marks[k].hash > h {
			return false, nil
		}
		end := r.tape.Size()
		if k+1 < len(r.marks) {
			end = r.marks[k+1].off
		}
		b, err := r.tape.ReadRecords(r.marks[k].off, end, s.probe)
		if err != nil {
			return false, err
		}
		s.probe = b
		for len(b) > 0 {
			var rec []byte
			if rec, b, err = storage.SplitRecord(b); err != nil {
				return false, err
			}
			rh := bin.BigEndian.Uint64(rec)
			if rh > h {
				return false, nil
			}
			if rh < h {
				continue
			}
			got, err := types.DecodeRow(rec[8:], s.enc)
			if err != nil {
				return false, err
			}
			if sameRow(got, row, s.ts) {
				return true, nil
			}
		}
	}
	return false, nil
}

// discard removes the run's tape.
func (r *seenRun) discard() {
	if r.tape != nil {
		_ = r.tape.Discard()
		r.tape = nil
	}
}

// discard drops the set's rows and removes its tapes.
func (s *seenSet) discard() {
	for _, r := range s.runs {
		r.discard()
	}
	s.runs, s.mem, s.hash = nil, nil, nil
}
