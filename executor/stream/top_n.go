package stream

import (
	"context"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// TopN keeps the rows ranked Offset+1 .. Offset+Limit by the ORDER BY
// keys in each group (planner.StreamTopN): ORDER BY ... LIMIT n OFFSET m
// over a changelog (one group, optionally WITH TIES), and the per-group
// top-N of ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY ...
// ORDER BY ...) <= N.
//
// State: every input row, in an ordered state table keyed by group key,
// then per ORDER BY key a null rank and the value (descending for DESC,
// NULLs placed as NULLS FIRST/LAST asks), then the input's stream key
// (all columns when it has none); the stored row is the input row and a
// count of identical rows, held in memory as its encoding
// (storage.StateTable.EncodeRows). The first rows of a group's key range
// are its top-N, so when a row leaves, the next one enters.
//
// Chunk: each visible row is applied to the state table at once (+1 for
// + and U+, -1 for - and U-). The first time a group is touched in an
// epoch, its current top-N window is read and kept in memory (only
// the epoch's dirty groups are).
//
// Watermark: one on a group key column is held until the barrier and
// forwarded (no later row changes a group below it); others are dropped.
//
// Barrier: each dirty group's window is read again (unless every row the
// group got fell past its full window and was not stored, or the window
// was kept up to date as rows arrived: append-only input, row positions
// 1..N, see live) and diffed with the one kept (over an append-only input, the rows read past its end are
// deleted then: no retraction can ever bring them back into it): rows
// that left are emitted as -, rows whose contents or
// (when RankCol >= 0) rank changed as U-/U+, rows that entered as +,
// each kind for all groups before the next, so a row moving between
// groups leaves before it enters. Then the dirty state goes into the epoch's
// write set, held watermarks are emitted and the barrier is forwarded.
//
// Ranks follow Postgres: row_number counts rows, rank is 1 + the number
// of rows ordered strictly before, dense_rank counts distinct ORDER BY
// values. Rows tied on the ORDER BY keys are ordered by stream key, which
// decides which of them a plain LIMIT keeps.
type TopN struct {
	actx  *ActorContext
	input Operator
	plan  *planner.StreamTopN
	inTs  []types.T
	// orderCols are the input columns of the ORDER BY keys; tieCols the
	// columns that make a state key unique.
	orderCols []int
	tieCols   []int
	state     *storage.StateTable
	// states holds the operator's state tables, committed by one call at
	// a barrier.
	states storage.StateTables
	// lo < position (or rank) <= hi is the window.
	lo, hi int64
	// appendOnly: the input never retracts, so a row past a group's
	// window never enters it and is not kept.
	appendOnly bool
	// live: the input is append-only and the window is the first hi
	// row positions (no offset, no ties, hi <= liveMax), so each dirty
	// group's window is kept up to date as rows arrive and not read
	// again at the barrier; a row pushed out of it is deleted then.
	live bool

	started bool
	dirty   map[string]*topGroup
	groups  []*topGroup
	wms     []types.Watermark
	out     []types.Message
	ob      outBuilder
	kbuf    []byte
	// rowBuf and keyBuf hold the input row being applied and its state
	// key: the state table copies neither (keys are encoded, rows are
	// stored as new rows with their count), so only a stored row is
	// allocated.
	rowBuf, keyBuf types.Row
	// countWant asks GetCols for the stored count alone, decoded into
	// oldBuf; storeBuf is the row and count written (the table keeps
	// only their encoding: EncodeRows).
	countWant        []bool
	oldBuf, storeBuf types.Row
	// scan is window's reader, reused.
	scan windowScan
	// free are rows of len(inTs) datums that no window holds any more,
	// which place copies its rows into, and spare the groups of past
	// epochs, which touch reuses with their slices: the windows of an
	// epoch's dirty groups are dropped at its barrier, and over millions
	// of groups (q18's latest bid per bidder and auction) allocating
	// them anew each epoch made most of the operator's garbage, and with
	// it most of the collector's work. Each of the two holds at most
	// keepBytes: half the operator's buffer (Cache.OperatorBuffer).
	free       []types.Row
	spare      []*topGroup
	spareBytes int64
	keepBytes  int64
	// dirtyBytes approximates what the epoch's dirty groups hold (their
	// windows, before and as of now): past the operator's buffer
	// (Cache.OperatorBuffer) their changes are emitted early
	// (maybeFlushEarly).
	dirtyBytes int64
	// outRows are output's rows, reused: the output builder copies them.
	outRows [2]types.Row
}

// topGroup is one dirty group with its window before the epoch.
type topGroup struct {
	key types.Row
	old []topEntry
	// edge is the state key of the last row of a full window (row
	// positions, append-only input): a row with a greater key can never
	// enter the window; "" when the window is not full or ranks tie.
	edge string
	// changed: a row of the group was written in the epoch (not all fell
	// past edge); an unchanged group's window is old, not read again.
	changed bool
	// cur is the window as of the rows applied so far, kept when the
	// operator is live.
	cur []topEntry
}

// topEntry is one row of a window: copy is the index among identical
// rows (same state key).
type topEntry struct {
	id   topID
	row  types.Row
	rank int64
	// own: row is the operator's copy (place), which goes back to its
	// free rows when the entry leaves the window; otherwise it is shared
	// (read from the state, or held by the group's old window too).
	own bool
}

type topID struct {
	key  string
	copy int64
}

var _ Operator = (*TopN)(nil)

// NewTopN returns a TopN over input for n.
func NewTopN(actx *ActorContext, input Operator, n *planner.StreamTopN) (Operator, error) {
	in := n.Input.Base()
	t := &TopN{actx: actx, input: input, plan: n, inTs: in.Out.Types(), dirty: map[string]*topGroup{}}
	switch n.RankFn {
	case "", "row_number", "rank", "dense_rank":
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "top-N by %s is not supported", n.RankFn)
	}
	keyTs := make([]types.T, 0, len(n.GroupBy)+2*len(n.Order)+len(t.inTs))
	var desc []bool
	for _, g := range n.GroupBy {
		if g < 0 || g >= len(t.inTs) {
			return nil, pgerr.New(pgerr.InternalError, "top-N groups by column %d of %d", g, len(t.inTs))
		}
		keyTs = append(keyTs, t.inTs[g])
		desc = append(desc, false)
	}
	for _, k := range n.Order {
		c, ok := k.Expr.(*planner.ColRef)
		if !ok || c.Idx < 0 || c.Idx >= len(t.inTs) {
			return nil, pgerr.New(pgerr.InternalError, "top-N ORDER BY key is not an input column")
		}
		t.orderCols = append(t.orderCols, c.Idx)
		keyTs = append(keyTs, types.TInt2, t.inTs[c.Idx])
		desc = append(desc, false, k.Desc)
	}
	t.tieCols = in.StreamKey
	if len(t.tieCols) == 0 {
		t.tieCols = seqCols(len(t.inTs))
	}
	for _, c := range t.tieCols {
		keyTs = append(keyTs, t.inTs[c])
		desc = append(desc, false)
	}
	t.state = t.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.State.ID, keyTs, append(append([]types.T(nil), t.inTs...), types.TInt8), actx.Cache)))
	t.state.SetDesc(desc)
	// Rows are held as their encodings: a stored row is written once
	// and read when its group's window is (once an epoch at most over
	// an append-only input), and as datums q18's latest bid per
	// (bidder, auction) outgrew the state's share of the budget.
	t.state.EncodeRows()
	// A group's window is read by the group key: once the state no
	// longer fits, a group none of whose rows left memory (most of
	// q18's, a new (bidder, auction) pair) is still read from memory
	// alone.
	t.state.SetReadPrefix(len(n.GroupBy))
	t.countWant = make([]bool, len(t.inTs)+1)
	t.countWant[len(t.inTs)] = true
	if err := t.state.Exclusive(); err != nil {
		return nil, err
	}
	t.lo = max(n.Offset, 0)
	t.hi = math.MaxInt64
	if n.Limit >= 0 && n.Limit <= math.MaxInt64-t.lo {
		t.hi = t.lo + n.Limit
	}
	t.ob.ts = n.Out.Types()
	t.keepBytes = 1 << 20
	if actx.Cache != nil {
		t.keepBytes = actx.Cache.OperatorBuffer() / 2
	}
	t.appendOnly = in.AppendOnly
	t.live = t.appendOnly && t.lo == 0 && t.hi <= liveMax && !n.WithTies && (n.RankFn == "" || n.RankFn == "row_number")
	return t, nil
}

// Next implements Operator.
func (t *TopN) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(t.out) > 0 {
			m := t.out[0]
			t.out[0] = nil
			t.out = t.out[1:]
			return m, nil
		}
		msg, err := t.input.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if !t.started {
				return nil, pgerr.New(pgerr.InternalError, "top-N got a chunk before the first barrier")
			}
			if err := t.applyChunk(m); err != nil {
				return nil, err
			}
		case types.Watermark:
			for _, g := range t.plan.GroupBy {
				if g == m.Col {
					m.Col = t.outCol(g)
					t.wms = append(t.wms, m)
					break
				}
			}
		case types.Barrier:
			if err := t.barrier(m); err != nil {
				return nil, err
			}
		}
	}
}

// outCol returns the output column of input column c.
func (t *TopN) outCol(c int) int {
	if t.plan.RankCol >= 0 && c >= t.plan.RankCol {
		return c + 1
	}
	return c
}

func (t *TopN) applyChunk(c *types.Chunk) error {
	no := len(t.orderCols)
	vals := make([]types.Datum, no)
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		if err := t.maybeFlushEarly(); err != nil {
			return err
		}
		row := t.rowBuf[:0]
		for _, v := range c.Cols {
			row = append(row, detach(v.Get(i)))
		}
		t.rowBuf = row
		key := t.keyBuf[:0]
		for _, g := range t.plan.GroupBy {
			key = append(key, row[g])
		}
		g, err := t.touch(key)
		if err != nil {
			return err
		}
		for j, oc := range t.orderCols {
			vals[j] = row[oc]
		}
		key = appendOrderKey(key, vals, t.plan.Order)
		for _, tc := range t.tieCols {
			key = append(key, row[tc])
		}
		t.keyBuf = key
		if g.edge != "" {
			// Past the end of a full window, which rows of an
			// append-only input only move earlier: the barrier would
			// delete it, so it is not stored at all.
			t.kbuf = t.state.EncodeKey(t.kbuf[:0], key)
			if string(t.kbuf) > g.edge {
				continue
			}
		}
		g.changed = true
		old, ok, err := t.state.GetCols(t.oldBuf[:0], key, t.countWant)
		if err != nil {
			return err
		}
		var n int64
		if ok {
			n = old[len(t.inTs)].I
			t.oldBuf = old
		}
		n += signOf(c.Op(i))
		switch {
		case n > 0:
			// The stored row is the input row and its count.
			stored := append(t.storeBuf[:0], row...)
			stored = append(stored, types.DInt(n))
			t.storeBuf = stored
			t.state.Update(key, stored)
			if t.live {
				if g.edge == "" {
					t.kbuf = t.state.EncodeKey(t.kbuf[:0], key)
				}
				t.place(g, string(t.kbuf), row, n-1)
				t.dirtyBytes += t.rowBytes()
			}
		case n == 0:
			t.state.Delete(key)
		default:
			return pgerr.New(pgerr.InternalError, "top-N: retraction of a row that is not in the state")
		}
	}
	return nil
}

// touch makes the group of key dirty, reading its window as it is before
// the change about to be applied.
func (t *TopN) touch(key types.Row) (*topGroup, error) {
	t.kbuf = t.state.EncodeKey(t.kbuf[:0], key)
	if g, ok := t.dirty[string(t.kbuf)]; ok {
		return g, nil
	}
	g := t.newGroup()
	g.key = append(g.key, key...)
	var err error
	if g.old, err = t.window(g.old, g.key, false); err != nil {
		return nil, err
	}
	if n := len(g.old); t.appendOnly && n > 0 && g.old[n-1].rank == t.hi && !t.plan.WithTies &&
		(t.plan.RankFn == "" || t.plan.RankFn == "row_number") {
		g.edge = g.old[n-1].id.key
	}
	if t.live {
		g.cur = append(g.cur, g.old...)
	}
	t.dirty[string(t.kbuf)] = g
	t.groups = append(t.groups, g)
	t.dirtyBytes += topGroupBytes(g) + int64(len(g.old)+len(g.cur))*t.rowBytes()
	return g, nil
}

// rowBytes approximates the bytes of one row of a window.
func (t *TopN) rowBytes() int64 {
	return int64(len(t.inTs)+1)*datumBytes + int64(unsafe.Sizeof(topEntry{}))
}

// maybeFlushEarly emits the changes of the epoch's dirty groups now, as
// the barrier would, once they hold more than the operator's share of
// the memory budget (Cache.OperatorBuffer), and the epoch goes on with
// no dirty group; their rows are in the state table already. Without it
// an epoch's dirty groups grew with the epoch's input, whatever the
// budget: Nexmark q18's (the latest bid of each bidder and auction),
// about 60 MiB at the peak with a state of 66 MiB.
func (t *TopN) maybeFlushEarly() error {
	if t.actx.Cache == nil || len(t.groups) == 0 || t.dirtyBytes < t.actx.Cache.OperatorBuffer() {
		return nil
	}
	return t.emitGroups()
}

// emitGroups emits the changes of the dirty groups from their windows
// before the epoch (or the last early flush) to their windows now, and
// lets the groups go.
func (t *TopN) emitGroups() error {
	// Retractions of every group go first: a row that moved to another
	// group (or to another place in its own) must leave before it enters.
	curs := make([][]topEntry, len(t.groups))
	for phase := range 3 {
		for i, g := range t.groups {
			if !g.changed {
				continue
			}
			if phase == 0 && t.live {
				curs[i] = g.cur
			} else if phase == 0 {
				var err error
				if curs[i], err = t.window(nil, g.key, t.appendOnly); err != nil {
					return err
				}
			}
			t.diff(phase, g.old, curs[i])
		}
	}
	clear(t.dirty)
	t.out = t.ob.take(t.out)
	for _, g := range t.groups {
		t.recycle(g)
	}
	clear(t.groups)
	t.groups = t.groups[:0]
	t.dirtyBytes = 0
	return nil
}

// liveMax is the largest window kept up to date as rows arrive (live).
const liveMax = 1024

// place puts copy c of the row stored under state key k, just written,
// into g's window (live): after the rows with smaller keys and the
// earlier copies. The window keeps a copy of row, which the caller
// reuses. A row pushed out of the full window is deleted from
// the state when it was its first copy (no copy of it is in the window
// then, and over an append-only input none can come back).
func (t *TopN) place(g *topGroup, k string, row types.Row, c int64) {
	i := sort.Search(len(g.cur), func(i int) bool {
		id := g.cur[i].id
		return id.key > k || (id.key == k && id.copy >= c)
	})
	if int64(i) >= t.hi {
		return
	}
	g.cur = slices.Insert(g.cur, i, topEntry{id: topID{k, c}, row: t.copyRow(row), own: true})
	if n := len(g.cur); int64(n) > t.hi {
		last := g.cur[n-1]
		g.cur[n-1] = topEntry{}
		g.cur = g.cur[:n-1]
		if last.id.copy == 0 {
			t.state.DeleteKey([]byte(last.id.key))
		}
		if last.own {
			t.release(last.row)
		}
	}
	for j := i; j < len(g.cur); j++ {
		g.cur[j].rank = int64(j + 1)
	}
	if n := len(g.cur); int64(n) == t.hi {
		g.edge = g.cur[n-1].id.key
	}
}

// datumBytes is the size of a datum.
const datumBytes = int64(unsafe.Sizeof(types.Datum{}))

// copyRow returns a copy of row (of len(inTs) datums), in one of the
// free rows when there is one.
func (t *TopN) copyRow(row types.Row) types.Row {
	if n := len(t.free); n > 0 && len(t.free[n-1]) == len(row) {
		r := t.free[n-1]
		t.free[n-1] = nil
		t.free = t.free[:n-1]
		copy(r, row)
		return r
	}
	return slices.Clone(row)
}

// release takes back row, a copy made by copyRow that nothing holds
// any more.
func (t *TopN) release(row types.Row) {
	if int64(len(t.free)+1)*int64(len(row))*datumBytes <= t.keepBytes {
		t.free = append(t.free, row)
	}
}

// newGroup returns an empty group, a spare one when there is one.
func (t *TopN) newGroup() *topGroup {
	if n := len(t.spare); n > 0 {
		g := t.spare[n-1]
		t.spare[n-1] = nil
		t.spare = t.spare[:n-1]
		t.spareBytes -= topGroupBytes(g)
		return g
	}
	return &topGroup{}
}

// recycle takes back the group g at the barrier that ends its epoch:
// its own rows go back to the free rows and it to the spare groups,
// emptied (its slices keep their room, and nothing they held stays
// reachable through them).
func (t *TopN) recycle(g *topGroup) {
	for i := range g.cur {
		if g.cur[i].own {
			t.release(g.cur[i].row)
		}
	}
	n := topGroupBytes(g)
	if t.spareBytes+n > t.keepBytes {
		return
	}
	clear(g.key)
	clear(g.old)
	clear(g.cur)
	*g = topGroup{key: g.key[:0], old: g.old[:0], cur: g.cur[:0]}
	t.spare = append(t.spare, g)
	t.spareBytes += n
}

// topGroupBytes approximates the bytes of group g and its slices' room.
func topGroupBytes(g *topGroup) int64 {
	return int64(unsafe.Sizeof(*g)) + int64(cap(g.key))*datumBytes +
		int64(cap(g.old)+cap(g.cur))*int64(unsafe.Sizeof(topEntry{}))
}

// sameOrder reports whether rows a and b tie on the ORDER BY keys.
func (t *TopN) sameOrder(a, b types.Row) bool {
	for _, c := range t.orderCols {
		x, y := a[c], b[c]
		if x.Null || y.Null {
			if x.Null != y.Null {
				return false
			}
			continue
		}
		if types.Compare(x, y, t.inTs[c]) != 0 {
			return false
		}
	}
	return true
}

// window reads the group's rows in order up to the end of its window and
// appends those in it, with their ranks, to dst. With prune, it deletes
// the rows past the end (whose first copy is past it) from the state.
func (t *TopN) window(dst []topEntry, key types.Row, prune bool) ([]topEntry, error) {
	w := &t.scan
	*w = windowScan{t: t, prune: prune, mode: t.plan.RankFn, past: w.past[:0], out: dst}
	if w.mode == "" && t.plan.WithTies {
		w.mode = "ties"
	}
	if err := t.state.Scan(key, w.step); err != nil {
		return nil, err
	}
	for i, k := range w.past {
		t.state.DeleteKey([]byte(k))
		w.past[i] = ""
	}
	out := w.out
	w.out, w.prev, w.edge = nil, nil, nil
	return out, nil
}

// windowScan reads a group's window from its rows in order, one call
// of step per stored row.
type windowScan struct {
	t     *TopN
	prune bool
	mode  string
	// ended: the window's end has been read; with prune, the keys of the
	// rows past it are collected in past.
	ended bool
	out   []topEntry
	past  []string
	// pos, rank and dense count the rows read; prev is the previous row,
	// edge the row at position hi.
	pos, rank, dense int64
	prev, edge       types.Row
}

// step takes the stored row r of state key id; it returns false once
// nothing more is wanted.
func (w *windowScan) step(id string, r types.Row) bool {
	if w.ended {
		w.past = append(w.past, id)
		return true
	}
	t := w.t
	row := r[:len(t.inTs)]
	for c := int64(0); c < r[len(t.inTs)].I; c++ {
		w.pos++
		if w.prev == nil || !t.sameOrder(w.prev, row) {
			w.rank = w.pos
			w.dense++
		}
		w.prev = row
		var in, past bool
		var rk int64
		switch w.mode {
		case "rank":
			past, in, rk = w.rank > t.hi, w.rank > t.lo, w.rank
		case "dense_rank":
			past, in, rk = w.dense > t.hi, w.dense > t.lo, w.dense
		case "ties":
			past = w.pos > t.hi && (w.edge == nil || !t.sameOrder(w.edge, row))
			if w.pos == t.hi {
				w.edge = row
			}
			in, rk = w.pos > t.lo, w.pos
		default:
			past, in, rk = w.pos > t.hi, w.pos > t.lo, w.pos
		}
		if past {
			// The window ends here; with prune, the row goes when none
			// of its copies is in the window.
			if !w.prune {
				return false
			}
			w.ended = true
			if c == 0 {
				w.past = append(w.past, id)
			}
			return true
		}
		if in {
			w.out = append(w.out, topEntry{id: topID{id, c}, row: row, rank: rk})
		}
	}
	return true
}

// output returns the output row of e: the input row with the rank
// inserted at RankCol when the rank is selected. The row is valid until
// the next call with the same slot (0 or 1): the output builder copies
// it.
func (t *TopN) output(e *topEntry, slot int) types.Row {
	rc := t.plan.RankCol
	if rc < 0 {
		return e.row
	}
	r := t.outRows[slot][:0]
	r = append(r, e.row[:rc]...)
	r = append(r, types.DInt(e.rank))
	r = append(r, e.row[rc:]...)
	t.outRows[slot] = r
	return r
}

func (t *TopN) barrier(b types.Barrier) error {
	t.started = true
	if err := t.emitGroups(); err != nil {
		return err
	}
	if err := t.states.Barrier(t.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	for _, w := range t.wms {
		t.out = append(t.out, w)
	}
	t.wms = t.wms[:0]
	t.out = append(t.out, b)
	return nil
}

// diff emits one phase of the changes from window old to window cur:
// 0 the rows that left (-), 1 the rows whose contents or selected rank
// changed (U-/U+), 2 the rows that entered (+).
func (t *TopN) diff(phase int, old, cur []topEntry) {
	switch phase {
	case 0:
		in := t.finder(cur)
		for i := range old {
			if in(old[i].id) == nil {
				t.ob.add(types.OpDelete, t.output(&old[i], 0))
			}
		}
		return
	}
	was := t.finder(old)
	ranked := t.plan.RankCol >= 0
	for i := range cur {
		o := was(cur[i].id)
		switch {
		case phase == 2 && o == nil:
			t.ob.add(types.OpInsert, t.output(&cur[i], 0))
		case phase == 1 && o != nil && (!sameRow(o.row, cur[i].row) || (ranked && o.rank != cur[i].rank)):
			t.ob.update(t.output(o, 0), t.output(&cur[i], 1))
		}
	}
}

// linearFind is the largest window searched entry by entry rather than
// through a map: a diff's lookups are then cheaper than building the
// map (windows are often a handful of rows: top 10, the latest one).
const linearFind = 32

// finder returns a function that finds the entry of window w with a
// given id (nil when there is none).
func (t *TopN) finder(w []topEntry) func(topID) *topEntry {
	if len(w) <= linearFind {
		return func(id topID) *topEntry {
			for i := range w {
				if w[i].id == id {
					return &w[i]
				}
			}
			return nil
		}
	}
	m := make(map[topID]*topEntry, len(w))
	for i := range w {
		m[w[i].id] = &w[i]
	}
	return func(id topID) *topEntry { return m[id] }
}

// Close implements Operator.
func (t *TopN) Close() {
	if t.input != nil {
		t.input.Close()
		t.input = nil
	}
}
