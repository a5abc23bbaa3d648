package executor

import (
	"container/heap"
	"context"
	"fmt"
	"math"

	"github.com/weirdb/weir/internal/pgsort"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Sort orders its input by the sort keys (types.Compare per key, DESC
// inverting it, NULLs placed by NullsFirst) and emits the rows in chunks
// of up to ChunkCap rows. Like PostgreSQL's tuplesort it has three ways
// to do it:
//
//   - In memory: while the rows read (with their keys, by
//     types.RowMemSize) fit in ExecCtx.WorkMem, they are sorted with
//     PostgreSQL's own quicksort (pgsort), so that rows with equal keys
//     come out in the order PostgreSQL gives them.
//   - Bounded (top-N heapsort): a Limit directly above the Sort tells it
//     how many rows it will take (SetBound); once more than twice as
//     many rows were read, or more than that many and they outgrow
//     WorkMem, the Sort keeps only the best ones in a heap, following
//     tuplesort's bounded heap step by step, ties included.
//   - External: beyond WorkMem, the rows held are sorted and written to
//     a tape of the statement's TempSpace as a sorted run, and the Sort
//     goes on reading. Whenever sortMergeOrder runs of one level are
//     on tapes they are merged into one run of the next level, so a
//     sort holds at most sortMergeOrder open tapes per level, however
//     long its input (each tape is an open file). At the end the runs
//     are merged, sortMergeOrder at a time, in as many passes as needed until
//     the last pass merges the remaining runs with the rows still in
//     memory and streams its output. Memory stays within WorkMem plus
//     a tape's read buffer per run merged. Rows with equal keys keep the
//     order of their runs, which need not be PostgreSQL's.
//
// The Sort discards its tapes when it ends, fails or is closed, and
// stops with the context's error when it is cancelled while reading or
// merging.
type Sort struct {
	endState
	in   Operator
	keys []planner.SortKey
	evs  []Evaluator
	ec   *ExecCtx
	ts   []types.T
	// bound is the number of rows the consumer will take, zero when
	// unknown (SetBound).
	bound int64
	buf   *rowBuffer
	// sortRuns are the sorted runs on tapes; merge streams the output
	// once the input spilled.
	sortRuns
	merge *runMerge
}

// sortRuns are the sorted runs of an external sort, on tapes of the
// statement's TempSpace: Sort's, and those of the aggregate calls with
// DISTINCT or ORDER BY (aggSort).
type sortRuns struct {
	ec *ExecCtx
	// lay says where each key lives in a run's records.
	lay  *sortLayout
	runs []*rowTape
	// levels[i] is how many merges runs[i] went through: runs of level
	// 0 are written from memory, and sortMergeOrder runs of one level
	// become one of the next (cascade).
	levels []int
	// usage is what the sort used, and method how it sorted, for EXPLAIN
	// ANALYZE.
	usage  spillUsage
	method string
}

// sortLayout is the layout of a sorted run's records: the row's columns,
// then the values of the keys that are not one of its columns. A key
// that is a plain column reference (as every key of a window's sort is)
// is not copied: in memory it shares the row's value, and on a tape it
// is read back from the row.
type sortLayout struct {
	keys []planner.SortKey
	nrow int
	// keyAt[j] is the record's column holding key j; extra lists the
	// keys stored after the row's columns.
	keyAt []int
	extra []int
	ts    []types.T
}

func newSortLayout(keys []planner.SortKey, ts []types.T) *sortLayout {
	l := &sortLayout{keys: keys, nrow: len(ts), ts: append([]types.T(nil), ts...)}
	for j, k := range keys {
		if c, ok := k.Expr.(*planner.ColRef); ok && c.Idx < len(ts) && c.T == ts[c.Idx] {
			l.keyAt = append(l.keyAt, c.Idx)
			continue
		}
		l.keyAt = append(l.keyAt, l.nrow+len(l.extra))
		l.extra = append(l.extra, j)
		l.ts = append(l.ts, k.Expr.Type())
	}
	return l
}

// shared reports whether key j is a column of the row.
func (l *sortLayout) shared(j int) bool { return l.keyAt[j] < l.nrow }

// record returns r as a run's record, in buf's storage.
func (l *sortLayout) record(r sortedRow, buf types.Row) types.Row {
	buf = append(buf[:0], r.row...)
	for _, j := range l.extra {
		buf = append(buf, r.key[j])
	}
	return buf
}

// fromRecord returns the row and keys of a run's record.
func (l *sortLayout) fromRecord(rec types.Row) sortedRow {
	key := make(types.Row, len(l.keys))
	for j, at := range l.keyAt {
		key[j] = rec[at]
	}
	return sortedRow{row: rec[:l.nrow:l.nrow], key: key}
}

// keyMemSize is what r's keys cost beyond its row: the key row and the
// values that are not the row's.
func (l *sortLayout) keyMemSize(r sortedRow) int64 {
	n := int64(24 + 80*len(r.key))
	for _, j := range l.extra {
		n += int64(len(r.key[j].S))
		if r.key[j].D != nil {
			n += 48
		}
	}
	return n
}

var _ Operator = (*Sort)(nil)

// NewSort returns a Sort of in by keys.
func NewSort(in Operator, keys []planner.SortKey, schema types.Schema, ec *ExecCtx) (*Sort, error) {
	evs := make([]Evaluator, len(keys))
	for i, k := range keys {
		ev, err := Compile(k.Expr)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	ts := schema.Types()
	return &Sort{in: in, keys: keys, evs: evs, ec: ec, ts: ts, sortRuns: sortRuns{ec: ec, lay: newSortLayout(keys, ts)}}, nil
}

// SetBound tells the Sort, before its first Next, that its consumer
// takes at most n rows (PostgreSQL's ExecSetTupleBound), which lets it
// keep only the best n. Bounds PostgreSQL would not use (beyond
// MaxInt32/2, where tuplesort cannot compute twice the bound) are
// ignored.
func (s *Sort) SetBound(n int64) {
	if n > 0 && n <= math.MaxInt32/2 {
		s.bound = n
	}
}

// sortedRow is an input row with its evaluated sort keys.
type sortedRow struct {
	row types.Row
	key types.Row
}

// sortedRowOverhead is what a sortedRow costs beyond its two rows.
const sortedRowOverhead = 48

// sortMergeOrder returns how many runs one merge reads at once: as many
// as the work memory holds a tape's buffers for (a read block and a
// write buffer, 128 kB), but at least 6, as PostgreSQL's tuplesort
// merges at least 6 tapes, and at most 500.
func sortMergeOrder(workMem int64) int {
	return int(min(max(workMem/(128<<10), 6), 500))
}

// compareKeys orders two key rows by keys.
func compareKeys(a, b types.Row, keys []planner.SortKey) int {
	for i, k := range keys {
		c := cmpNulls(a[i], b[i], k.Expr.Type(), k.NullsFirst != k.Desc)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Next implements Operator.
func (s *Sort) Next(ctx context.Context) (*types.Chunk, error) {
	if s.done {
		return nil, s.err
	}
	if s.buf == nil && s.merge == nil {
		rows, err := s.load(ctx)
		if err != nil {
			s.discard()
			return s.finish(nil, err)
		}
		if s.merge == nil {
			s.buf = &rowBuffer{ts: s.ts, rows: rows, ec: s.ec}
		}
	}
	if s.merge != nil {
		c, err := s.merge.next(ctx, s.ts, s.ec.chunkRows())
		if err != nil || c == nil {
			s.discard()
		}
		return s.finish(c, err)
	}
	return s.finish(s.buf.next(), nil)
}

// load reads the input. It returns the sorted rows when they stayed in
// memory; when they spilled it sets s.merge instead.
func (s *Sort) load(ctx context.Context) ([]types.Row, error) {
	var rows []sortedRow
	var held int64
	var top *boundedHeap
	for {
		c, err := nextVisible(ctx, s.in)
		if err != nil {
			return nil, err
		}
		if c == nil {
			break
		}
		kv, err := evalAll(s.ec, s.evs, c)
		if err != nil {
			return nil, err
		}
		for i := 0; i < c.Len(); i++ {
			if !c.Visible(i) {
				continue
			}
			row := detachRow(c, i)
			key := make(types.Row, len(kv))
			for j, v := range kv {
				if s.lay.shared(j) {
					key[j] = row[s.lay.keyAt[j]]
				} else {
					key[j] = copyDatum(v.Get(i))
				}
			}
			sr := sortedRow{row: row, key: key}
			if top != nil {
				top.add(sr)
				continue
			}
			rows = append(rows, sr)
			held += types.RowMemSize(sr.row) + s.lay.keyMemSize(sr) + sortedRowOverhead
			s.usage.held(held)
			// tuplesort_puttuple_common's order of tests: the switch
			// to a bounded heap comes before a spill, and once spilled
			// the sort stays external.
			n := int64(len(rows))
			if s.bound > 0 && len(s.runs) == 0 && (n > 2*s.bound || (n > s.bound && s.ec.spillable(held))) {
				top = newBoundedHeap(rows, s.bound, s.keys)
				rows, held = nil, 0
				continue
			}
			if s.ec.spillable(held) {
				if err := s.spillRun(ctx, rows); err != nil {
					return nil, err
				}
				clear(rows)
				rows, held = rows[:0], 0
			}
		}
	}
	s.in.Close()
	if top != nil {
		rows = top.sorted()
		s.method, s.usage.mem = "top-N heapsort", 0
		for _, r := range rows {
			s.usage.mem += types.RowMemSize(r.row) + s.lay.keyMemSize(r) + sortedRowOverhead
		}
	} else {
		s.sortRun(rows)
		s.method = "quicksort"
		if len(s.runs) > 0 {
			s.method = "external merge"
		}
	}
	if len(s.runs) > 0 {
		return nil, s.startMerge(ctx, rows)
	}
	out := make([]types.Row, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out, nil
}

// sortRun sorts rows in memory with Postgres's own quicksort, so rows
// with equal keys come out in the order Postgres gives them.
func (s *Sort) sortRun(rows []sortedRow) {
	pgsort.Sort(len(rows), func(a, b int) int { return compareKeys(rows[a].key, rows[b].key, s.keys) },
		func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
}

// spillRun sorts rows and writes them to a new tape as a sorted run.
func (s *Sort) spillRun(ctx context.Context, rows []sortedRow) error {
	s.sortRun(rows)
	return s.write(ctx, rows)
}

// write writes rows, sorted, to a new tape as a sorted run, and merges
// runs as cascade says.
func (s *sortRuns) write(ctx context.Context, rows []sortedRow) error {
	t, err := newRowTape(s.ec, s.lay.ts)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, t)
	s.levels = append(s.levels, 0)
	var rec types.Row
	for i, r := range rows {
		if i%types.ChunkCap == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec = s.lay.record(r, rec)
		if err := t.append(rec); err != nil {
			return err
		}
	}
	if err := t.seal(); err != nil {
		return err
	}
	s.usage.disk += t.tape.Size()
	return s.cascade(ctx)
}

// explainUsage implements usageReporter: how the sort sorted and what it
// used, as PostgreSQL prints it (the disk being the sorted runs written
// from memory).
func (s *Sort) explainUsage() string {
	switch s.method {
	case "":
		return ""
	case "external merge":
		return fmt.Sprintf("Sort Method: external merge  Disk: %dkB", kB(s.usage.disk))
	}
	return fmt.Sprintf("Sort Method: %s  Memory: %dkB", s.method, kB(s.usage.mem))
}

// cascade merges the last sortMergeOrder runs into one run of the next
// level while they are all of one level. Runs are appended in order and
// a merge replaces runs at the end, so the levels never grow towards
// the end and the runs of one level are always the last ones; the
// number of runs, and of open tapes, stays below sortMergeOrder times
// the number of levels.
func (s *sortRuns) cascade(ctx context.Context) error {
	order := sortMergeOrder(s.ec.WorkMem)
	for n := len(s.runs); n >= order && s.levels[n-order] == s.levels[n-1]; n = len(s.runs) {
		group := s.runs[n-order:]
		t, err := newRowTape(s.ec, s.lay.ts)
		if err != nil {
			return err
		}
		m, err := newRunMerge(group, nil, s.lay)
		if err == nil {
			err = m.writeTo(ctx, t)
		}
		for _, g := range group {
			g.discard()
		}
		level := s.levels[n-1] + 1
		s.runs = append(s.runs[:n-order], t)
		s.levels = append(s.levels[:n-order], level)
		if err != nil {
			return err
		}
	}
	return nil
}

// startMerge merges the runs with the rows still in memory (sorted)
// and sets s.merge to stream them.
func (s *Sort) startMerge(ctx context.Context, mem []sortedRow) error {
	m, err := s.mergeAll(ctx, mem)
	s.merge = m
	return err
}

// mergeAll merges the runs, sortMergeOrder at a time, into fewer runs
// until one merge of them with the rows still in memory (sorted)
// remains, and returns it.
func (s *sortRuns) mergeAll(ctx context.Context, mem []sortedRow) (*runMerge, error) {
	order := sortMergeOrder(s.ec.WorkMem)
	for len(s.runs)+1 > order {
		var next []*rowTape
		for lo := 0; lo < len(s.runs); lo += order {
			group := s.runs[lo:min(lo+order, len(s.runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			t, err := newRowTape(s.ec, s.lay.ts)
			if err != nil {
				s.runs = append(s.runs, next...)
				return nil, err
			}
			next = append(next, t)
			m, err := newRunMerge(group, nil, s.lay)
			if err == nil {
				err = m.writeTo(ctx, t)
			}
			for _, g := range group {
				g.discard()
			}
			if err != nil {
				s.runs = append(s.runs, next...)
				return nil, err
			}
		}
		s.runs = next
	}
	s.levels = nil
	return newRunMerge(s.runs, mem, s.lay)
}

// discard removes the Sort's tapes.
func (s *Sort) discard() {
	s.sortRuns.discard()
	s.merge = nil
}

// discard removes the runs' tapes.
func (s *sortRuns) discard() {
	for _, t := range s.runs {
		t.discard()
	}
	s.runs, s.levels = nil, nil
}

// Close implements Operator.
func (s *Sort) Close() {
	s.done = true
	s.buf = nil
	s.discard()
	s.in.Close()
}

// runMerge merges sorted runs, some on tapes and one in memory, into one
// sorted stream (a k-way merge through a heap). Rows with equal keys come
// out in the order of their runs, the in-memory one last.
type runMerge struct {
	srcs []*mergeSource
	lay  *sortLayout
	rec  types.Row
}

// mergeSource is one run of a merge and its current row (row nil after
// the last).
type mergeSource struct {
	idx int
	cur sortedRow
	rd  *rowTapeReader
	mem []sortedRow
	pos int
}

// advance moves src to its next row.
func (src *mergeSource) advance(lay *sortLayout) error {
	if src.rd != nil {
		rec, err := src.rd.next()
		if err != nil || rec == nil {
			src.cur = sortedRow{}
			return err
		}
		src.cur = lay.fromRecord(rec)
		return nil
	}
	if src.pos >= len(src.mem) {
		src.cur, src.mem = sortedRow{}, nil
		return nil
	}
	src.cur = src.mem[src.pos]
	src.mem[src.pos] = sortedRow{}
	src.pos++
	return nil
}

func newRunMerge(runs []*rowTape, mem []sortedRow, lay *sortLayout) (*runMerge, error) {
	m := &runMerge{lay: lay}
	for i, t := range runs {
		m.srcs = append(m.srcs, &mergeSource{idx: i, rd: t.reader()})
	}
	if len(mem) > 0 {
		m.srcs = append(m.srcs, &mergeSource{idx: len(runs), mem: mem})
	}
	live := m.srcs[:0]
	for _, src := range m.srcs {
		if err := src.advance(lay); err != nil {
			return nil, err
		}
		if src.cur.row != nil {
			live = append(live, src)
		}
	}
	m.srcs = live
	heap.Init(m)
	return m, nil
}

// Len, Less, Swap, Push and Pop make runMerge a heap of its sources by
// their current rows.
func (m *runMerge) Len() int { return len(m.srcs) }
func (m *runMerge) Less(i, j int) bool {
	a, b := m.srcs[i], m.srcs[j]
	if c := compareKeys(a.cur.key, b.cur.key, m.lay.keys); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}
func (m *runMerge) Swap(i, j int) { m.srcs[i], m.srcs[j] = m.srcs[j], m.srcs[i] }
func (m *runMerge) Push(x any)    { m.srcs = append(m.srcs, x.(*mergeSource)) }
func (m *runMerge) Pop() any {
	src := m.srcs[len(m.srcs)-1]
	m.srcs = m.srcs[:len(m.srcs)-1]
	return src
}

// pop returns the least current row, or one with a nil row when every
// run is exhausted.
func (m *runMerge) pop() (sortedRow, error) {
	if len(m.srcs) == 0 {
		return sortedRow{}, nil
	}
	src := m.srcs[0]
	r := src.cur
	if err := src.advance(m.lay); err != nil {
		return sortedRow{}, err
	}
	if src.cur.row == nil {
		heap.Pop(m)
	} else {
		heap.Fix(m, 0)
	}
	return r, nil
}

// writeTo writes the merged rows to t.
func (m *runMerge) writeTo(ctx context.Context, t *rowTape) error {
	for n := 0; ; n++ {
		if n%types.ChunkCap == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := m.pop()
		if err != nil {
			return err
		}
		if r.row == nil {
			return t.seal()
		}
		m.rec = m.lay.record(r, m.rec)
		if err := t.append(m.rec); err != nil {
			return err
		}
	}
}

// next returns the next chunk of at most n merged rows (their input
// columns, of types ts), or nil at the end.
func (m *runMerge) next(ctx context.Context, ts []types.T, n int) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var c *types.Chunk
	for c == nil || c.Len() < n {
		r, err := m.pop()
		if err != nil {
			return nil, err
		}
		if r.row == nil {
			break
		}
		if c == nil {
			c = types.NewChunk(ts, n)
		}
		c.AppendRow(types.OpInsert, r.row)
	}
	return c, nil
}

// boundedHeap keeps the best bound rows read, as tuplesort's bounded
// heap keeps them (make_bounded_heap, tuplesort_heap_insert,
// tuplesort_heap_replace_top and sort_bounded_heap of PostgreSQL's
// tuplesort.c), so that rows with equal keys come out in the order
// PostgreSQL's top-N heapsort gives them. The heap is ordered by the
// reversed comparison, its top the worst row kept.
type boundedHeap struct {
	h    []sortedRow
	n    int
	keys []planner.SortKey
}

// newBoundedHeap makes the heap of the best bound of rows (more than
// bound of them), in place of rows.
func newBoundedHeap(rows []sortedRow, bound int64, keys []planner.SortKey) *boundedHeap {
	b := &boundedHeap{h: rows, keys: keys}
	for i := range rows {
		r := rows[i]
		if int64(b.n) < bound {
			b.insert(r)
		} else {
			b.add(r)
		}
	}
	clear(rows[b.n:])
	b.h = rows[:b.n]
	return b
}

// cmp is the heap's reversed comparison.
func (b *boundedHeap) cmp(x, y sortedRow) int { return -compareKeys(x.key, y.key, b.keys) }

// insert sifts r up from a new last place (tuplesort_heap_insert).
func (b *boundedHeap) insert(r sortedRow) {
	j := b.n
	b.n++
	for j > 0 {
		i := (j - 1) >> 1
		if b.cmp(r, b.h[i]) >= 0 {
			break
		}
		b.h[j] = b.h[i]
		j = i
	}
	b.h[j] = r
}

// add offers r to the full heap: it replaces the top unless it is no
// better than it.
func (b *boundedHeap) add(r sortedRow) {
	if b.cmp(r, b.h[0]) <= 0 {
		return
	}
	b.replaceTop(r)
}

// replaceTop puts r in the top's place and sifts it down
// (tuplesort_heap_replace_top).
func (b *boundedHeap) replaceTop(r sortedRow) {
	i := 0
	for {
		j := 2*i + 1
		if j >= b.n {
			break
		}
		if j+1 < b.n && b.cmp(b.h[j+1], b.h[j]) < 0 {
			j++
		}
		if b.cmp(r, b.h[j]) <= 0 {
			break
		}
		b.h[i] = b.h[j]
		i = j
	}
	b.h[i] = r
}

// sorted returns the rows kept, best first (sort_bounded_heap).
func (b *boundedHeap) sorted() []sortedRow {
	count := b.n
	for b.n > 1 {
		top := b.h[0]
		b.n--
		b.replaceTop(b.h[b.n])
		b.h[b.n] = top
	}
	b.n = count
	return b.h[:count]
}
