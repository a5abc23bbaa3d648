package stream

import (
	"context"
	"slices"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// HashAgg is the incremental GROUP BY (planner.StreamHashAgg) with full
// retraction.
//
// Chunk: each visible row is folded into its group's state, adding for +
// and U+ and retracting for - and U-; a call's FILTER skips the rows where
// it is not true. Only the groups touched in the epoch (dirty groups) are
// held in memory; the others live in the Result state table, one row per
// group: the group keys, each call's serialised state (executor's
// AccumulatorStateTypes; min/max keep their current extreme, string_agg
// its concatenation), and the group's row count. The plan's state table
// descriptors give the tables' IDs; their layouts are the operator's. min/max, DISTINCT aggregates and string_agg keep their inputs in
// their Extra state tables (see aggKind), so they stay exact after
// deletes. Nothing is emitted before the barrier.
//
// Watermark: one on a group key column is held until the barrier and
// forwarded on the output's column of that key (no later row changes a
// group below it); others are dropped. At the barrier, every group whose
// key is below it is closed (hash_agg_window.go): its state is deleted,
// and in EMIT ON WINDOW CLOSE mode (StreamHashAgg.EOWC) its row is
// emitted then, once, as an insert; without EOWC nothing is emitted for
// it (its last change went out with its epoch). Later input rows of a
// closed group are dropped. In EOWC mode nothing else is ever emitted:
// dirty groups only update their state at the barrier.
//
// With a state TTL (StreamHashAgg.TTLMs, planner/stream_ttl.go), each
// group's state records the processing time of its last write (the
// epoch time of the barrier that flushed it), and a TTL index orders the
// groups by it; at each barrier the groups not written for TTLMs are
// deleted without output (hash_agg_ttl.go). A retraction for a group
// without rows is then dropped, and one of a value its state does not
// hold is ignored: both can only be for rows counted in expired state.
//
// Barrier: the epoch's changes are emitted, one per dirty group in order
// of first touch: + for a new group, - for a group whose row count fell to
// 0 (its state row is deleted), U-/U+ for a group whose output changed,
// nothing otherwise. Then the dirty state goes into the epoch's write set,
// held watermarks are emitted and the barrier is forwarded. Without GROUP
// BY there is always exactly one output row, as in Postgres (count 0, sum
// NULL over no rows): it is created at the first barrier when the state
// holds none and emitted with the next epoch's changes.
type HashAgg struct {
	actx *ActorContext
	// states holds every state table of the operator (result, TTL index,
	// the calls' extra tables), committed by one call at a barrier.
	states storage.StateTables
	input  Operator
	plan   *planner.StreamHashAgg
	ectx   executor.EvalCtx
	keyTs  []types.T
	calls  []*aggCallState
	result *storage.StateTable
	// stateTs are the Result row's column types.
	stateTs []types.T

	started bool
	// dirty maps an encoded group key to the group's in-memory state for
	// the epoch; order lists the dirty groups in order of first touch.
	dirty map[string]*aggGroup
	order []*aggGroup
	// intKey: the only group key is of the integer family, whose key
	// encoding is its value's: dirty groups are then found by value
	// (dirtyInt, or dirtyNull for NULL) without encoding the key.
	intKey    bool
	dirtyInt  map[int64]*aggGroup
	dirtyNull *aggGroup
	// intPair: the group keys are two of the integer family (a window
	// and a key of it, say); groups whose keys are both non-NULL are
	// found by value in pairs, the others through dirty.
	intPair bool
	pairs   pairIndex
	// curBuf is flushGroup's output row, reused (the output chunks copy
	// it).
	curBuf types.Row
	// rowGroups is pairGroups' buffer: the group of each row of a chunk.
	rowGroups []*aggGroup
	// slabGroups, slabDatums and slabVals are what load cuts its groups
	// from (each group, key, old row and values were an allocation of
	// their own): blocks of groupSlab groups, handed out again once the
	// groups are flushed and forgotten (clearDirty), up to groupSlabKeep
	// blocks.
	slabGroups slab[aggGroup]
	slabDatums slab[types.Datum]
	slabVals   slab[aggCallVal]
	wms        []types.Watermark
	out        []types.Message
	ob         outBuilder

	// eowc: StreamHashAgg.EOWC. closed[i] is the last watermark applied
	// on group key i (valid when hasClosed[i]); anyClosed: one is.
	eowc      bool
	closed    []types.Datum
	hasClosed []bool
	anyClosed bool
	// closing is closeGroups' buffer of the rows a watermark passed.
	closing []types.Row

	// ttl is the state TTL in ms (StreamHashAgg.TTLMs, 0 for none);
	// ttlIdx orders the groups by the time of their last write, and now
	// is the processing time of the epoch being closed (ms).
	ttl    int64
	ttlIdx *storage.StateTable
	now    int64

	// keep reports whether a group key row belongs to this actor (nil:
	// every key does); the groups of StreamHashAgg.EmptySets are created
	// by the actor owning them.
	keep func(types.Row) bool

	kbuf []byte
	key  types.Row
	// rowBuf and stBuf are load's and flushGroup's Result rows, reused
	// (the Result table holds rows encoded, so it keeps neither);
	// allCols asks GetCols for every column.
	rowBuf, stBuf types.Row
	allCols       []bool
	args          [][]types.Datum
	vecs          [][]*types.Vec
	// distincts are the tables of values of the DISTINCT calls (which
	// applyChunk folds through them); pass is their FILTER buffer.
	distincts []*distinctTable
	pass      []bool
}

// aggGroup is one dirty group.
type aggGroup struct {
	key types.Row
	// existed: the group had a state row (and an output row, old) before
	// the epoch.
	existed bool
	old     types.Row
	rows    int64
	vals    []aggCallVal
	// writeMs is when the group's state was last written (with a TTL).
	writeMs int64
}

var _ Operator = (*HashAgg)(nil)

// NewHashAgg returns a HashAgg over input for n. Aggregates that cannot
// be kept exactly fail with 0A000 (string_agg(DISTINCT ...)) or 42883
// (unknown functions).
func NewHashAgg(actx *ActorContext, input Operator, n *planner.StreamHashAgg) (Operator, error) {
	a := &HashAgg{
		actx:  actx,
		input: input,
		plan:  n,
		dirty: map[string]*aggGroup{},
		ectx:  executor.EvalCtx{Context: functions.Context{Location: time.UTC}},
	}
	if actx.Eval != nil {
		a.ectx = *actx.Eval
	}
	inTs := n.Input.Base().Out.Types()
	for _, g := range n.GroupBy {
		if g < 0 || g >= len(inTs) {
			return nil, pgerr.New(pgerr.InternalError, "hash aggregation groups by column %d of %d", g, len(inTs))
		}
		a.keyTs = append(a.keyTs, inTs[g])
	}
	if len(n.Extra) != len(n.ExtraFor) {
		return nil, pgerr.New(pgerr.InternalError, "hash aggregation has %d extra state tables for %d calls", len(n.Extra), len(n.ExtraFor))
	}
	extraOf := make([]*planner.StateTableDesc, len(n.Aggs))
	for i, ai := range n.ExtraFor {
		if ai < 0 || ai >= len(n.Aggs) {
			return nil, pgerr.New(pgerr.InternalError, "extra state table for aggregate %d of %d", ai, len(n.Aggs))
		}
		extraOf[ai] = &n.Extra[i]
	}
	a.stateTs = append(a.stateTs, a.keyTs...)
	if n.GrowOnly != nil && len(n.GrowOnly) != len(n.Aggs) {
		return nil, pgerr.New(pgerr.InternalError, "hash aggregation marks %d of %d calls grow-only", len(n.GrowOnly), len(n.Aggs))
	}
	for i, c := range n.Aggs {
		cs, err := newAggCallState(c, extraOf[i], a.keyTs, n.Input.Base(), n.GrowOnly != nil && n.GrowOnly[i], actx)
		if err != nil {
			return nil, err
		}
		a.calls = append(a.calls, cs)
		a.stateTs = append(a.stateTs, cs.stateTs...)
		a.args = append(a.args, make([]types.Datum, len(cs.args)))
	}
	// The DISTINCT calls sharing a table of values (by its ID), in order.
	var ids []uint32
	byID := map[uint32][]int{}
	for i, cs := range a.calls {
		if cs.kind != aggDistinct {
			continue
		}
		id := extraOf[i].ID
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], i)
	}
	for _, id := range ids {
		idx := byID[id]
		for _, i := range idx[1:] {
			if !slices.Equal(a.calls[i].argTs, a.calls[idx[0]].argTs) {
				return nil, pgerr.New(pgerr.InternalError, "hash aggregation: DISTINCT aggregates over different arguments share state table %d", id)
			}
		}
		a.distincts = append(a.distincts, newDistinctTable(actx, id, a.keyTs, a.calls, idx))
	}
	for _, t := range extraTables(a.calls) {
		a.states.Add(t)
	}
	a.stateTs = append(a.stateTs, types.TInt8)
	if n.TTLMs > 0 {
		if len(a.keyTs) == 0 || n.TTL.ID == 0 {
			return nil, pgerr.New(pgerr.InternalError, "hash aggregation: a state TTL needs group keys and a TTL table")
		}
		a.ttl = n.TTLMs
		a.stateTs = append(a.stateTs, types.TInt8)
		for _, c := range a.calls {
			c.lenient = true
		}
	}
	for g := range functions.AccumulatorTailGens {
		for _, c := range a.calls {
			a.stateTs = append(a.stateTs, c.tailTs[g]...)
		}
	}
	if len(a.keyTs) == 1 && a.keyTs[0].Family() == types.FamInt && a.keyTs[0].ID != types.Unknown {
		a.intKey = true
		a.dirtyInt = map[int64]*aggGroup{}
	}
	if len(a.keyTs) == 2 && a.keyTs[0].Family() == types.FamInt && a.keyTs[1].Family() == types.FamInt &&
		a.keyTs[0].ID != types.Unknown && a.keyTs[1].ID != types.Unknown {
		a.intPair = true
	}
	a.vecs = make([][]*types.Vec, len(a.calls))
	a.result = a.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.Result.ID, a.keyTs, a.stateTs, actx.Cache)))
	// The groups' rows are held as their encodings: a few bytes of
	// values instead of a datum per column, which the garbage collector
	// does not scan, and written to the checkpoint as they are. A group
	// is decoded once per epoch it changes in (load).
	a.result.EncodeRows()
	a.allCols = make([]bool, len(a.stateTs))
	for i := range a.allCols {
		a.allCols[i] = true
	}
	// Closing windows scans the Result table across group keys; it must
	// see only this actor's groups.
	keep, err := partitionKeep(actx, n.Input.Base().Dist, func(c int) int { return slices.Index(n.GroupBy, c) }, a.stateTs)
	if err != nil {
		return nil, err
	}
	a.result.SetPartition(keep)
	a.keep = keep
	// Only this actor writes its groups' rows and values: a new
	// aggregation knows every group and value it holds without asking
	// Pebble about the ones it has never seen.
	for _, t := range append([]*storage.StateTable{a.result}, extraTables(a.calls)...) {
		if err := t.Exclusive(); err != nil {
			return nil, err
		}
		if actx.Parallelism <= 1 {
			// Closing windows may then delete their groups by range.
			t.SoleWriter()
		}
	}
	if a.ttl > 0 {
		idxTs := append([]types.T{types.TInt8}, a.keyTs...)
		a.ttlIdx = a.states.Add(actx.Track(storage.NewStateTable(actx.DB, n.TTL.ID, idxTs, idxTs, actx.Cache)))
		keep, err := partitionKeep(actx, n.Input.Base().Dist, func(c int) int {
			if i := slices.Index(n.GroupBy, c); i >= 0 {
				return i + 1
			}
			return -1
		}, idxTs)
		if err != nil {
			return nil, err
		}
		a.ttlIdx.SetPartition(keep)
	}
	a.ob.ts = n.Out.Types()
	a.key = make(types.Row, len(a.keyTs))
	a.eowc = n.EOWC
	a.closed = make([]types.Datum, len(a.keyTs))
	a.hasClosed = make([]bool, len(a.keyTs))
	return a, nil
}

// extraTables returns the calls' Extra state tables, each once.
func extraTables(calls []*aggCallState) []*storage.StateTable {
	var ts []*storage.StateTable
	for _, c := range calls {
		if c.extra != nil && !slices.Contains(ts, c.extra) {
			ts = append(ts, c.extra)
		}
	}
	return ts
}

// Next implements Operator.
func (a *HashAgg) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(a.out) > 0 {
			m := a.out[0]
			a.out[0] = nil
			a.out = a.out[1:]
			return m, nil
		}
		msg, err := a.input.Next(ctx)
		if err != nil || msg == nil {
			return msg, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if !a.started {
				return nil, pgerr.New(pgerr.InternalError, "hash aggregation got a chunk before the first barrier")
			}
			if err := a.applyChunk(m); err != nil {
				return nil, err
			}
			if err := a.maybeFlushEarly(); err != nil {
				return nil, err
			}
		case types.Watermark:
			for i, g := range a.plan.GroupBy {
				if g == m.Col {
					m.Col = i
					a.wms = append(a.wms, m)
					break
				}
			}
		case types.Barrier:
			if err := a.barrier(m); err != nil {
				return nil, err
			}
		}
	}
}

// group returns the dirty group of the key in a.key, loading it from the
// Result table (or creating it) on first touch in the epoch.
func (a *HashAgg) group() (*aggGroup, error) {
	if a.intKey {
		d := a.key[0]
		if d.Null {
			if a.dirtyNull != nil {
				return a.dirtyNull, nil
			}
		} else if g, ok := a.dirtyInt[d.I]; ok {
			return g, nil
		}
		g, err := a.load()
		if err != nil {
			return nil, err
		}
		if d.Null {
			a.dirtyNull = g
		} else {
			a.dirtyInt[d.I] = g
		}
		return g, nil
	}
	if a.intPair && !a.key[0].Null && !a.key[1].Null {
		return a.pairGroup([2]int64{a.key[0].I, a.key[1].I})
	}
	a.kbuf = a.result.EncodeKey(a.kbuf[:0], a.key)
	if g, ok := a.dirty[string(a.kbuf)]; ok {
		return g, nil
	}
	ek := string(a.kbuf)
	g, err := a.load()
	if err != nil {
		return nil, err
	}
	a.dirty[ek] = g
	return g, nil
}

// pairGroup is group for two integer keys (intPair) of values k, which
// a.key holds or, when the group is not dirty yet, is set to.
func (a *HashAgg) pairGroup(k [2]int64) (*aggGroup, error) {
	if p, ok := a.pairs.get(k); ok {
		return a.order[p], nil
	}
	a.key[0], a.key[1] = types.Datum{I: k[0]}, types.Datum{I: k[1]}
	g, err := a.load()
	if err != nil {
		return nil, err
	}
	a.pairs.put(k, len(a.order)-1)
	return g, nil
}

// load reads the group of the key in a.key from the Result table (or
// creates it) and lists it as dirty.
func (a *HashAgg) load() (*aggGroup, error) {
	g := a.newGroup()
	for i, d := range a.key {
		g.key[i] = detach(d)
	}
	row, ok, err := a.result.GetCols(a.rowBuf, g.key, a.allCols)
	if err != nil {
		return nil, err
	}
	if ok {
		a.rowBuf = row
		if err := a.decodeGroup(g, row); err != nil {
			return nil, err
		}
	} else {
		for i, c := range a.calls {
			g.vals[i] = c.newVal()
		}
	}
	a.order = append(a.order, g)
	return g, nil
}

// decodeGroup fills g (with its key set) from its Result row.
func (a *HashAgg) decodeGroup(g *aggGroup, row types.Row) error {
	g.existed = true
	p := len(a.keyTs)
	for i, c := range a.calls {
		var err error
		if g.vals[i], err = c.decode(row[p : p+len(c.stateTs)]); err != nil {
			return err
		}
		p += len(c.stateTs)
	}
	g.rows = row[p].I
	p++
	if a.ttl > 0 {
		g.writeMs = row[p].I
		p++
	}
	for gen := range functions.AccumulatorTailGens {
		for i, c := range a.calls {
			if ts := c.tailTs[gen]; len(ts) > 0 {
				functions.SetAccumulatorTail(g.vals[i].acc, row[p:p+len(ts)], gen+1)
				p += len(ts)
			}
		}
	}
	g.old = a.output(a.slabRow(len(a.ob.ts))[:0], g)
	return nil
}

// groupSlab is the number of groups in a block of load's memory.
const groupSlab = 128

// groupSlabKeep is the most blocks of each kind a flush keeps for the
// next (16,384 groups, about 9 MB with their keys, old rows and values
// for Nexmark q5's count): more would stay in memory between epochs,
// where the groups of a large flush are the collector's to reclaim.
const groupSlabKeep = 128

// newGroup returns a new group with room for a key and the calls'
// values, cut from the current blocks.
func (a *HashAgg) newGroup() *aggGroup {
	g := &a.slabGroups.take(1, groupSlab)[0]
	g.key = a.slabRow(len(a.key))
	n := len(a.calls)
	g.vals = a.slabVals.take(n, groupSlab*n)
	return g
}

// slabRow returns a row of n datums cut from the current block (its
// capacity is n: an append to it copies).
func (a *HashAgg) slabRow(n int) types.Row {
	return a.slabDatums.take(n, groupSlab*(len(a.keyTs)+len(a.ob.ts)))
}

// output appends the group's output row (keys, then each call's result)
// to r, which it allocates when r is nil.
func (a *HashAgg) output(r types.Row, g *aggGroup) types.Row {
	if r == nil {
		r = make(types.Row, 0, len(a.ob.ts))
	}
	r = append(r, g.key...)
	for i, c := range a.calls {
		d, err := c.result(&g.vals[i])
		if err != nil {
			recordError(a.actx, "HashAgg", err)
		}
		r = append(r, d)
	}
	return r
}

// rowGroup returns the dirty group of visible row i of c, or nil for a
// row of a closed group.
func (a *HashAgg) rowGroup(c *types.Chunk, i int) (*aggGroup, error) {
	for k, col := range a.plan.GroupBy {
		a.key[k] = c.Cols[col].Get(i)
	}
	if a.anyClosed && a.behind() {
		return nil, nil
	}
	return a.group()
}

// pairGroups returns the dirty group of each row of c for two integer
// keys (intPair), nil for a row hidden or of a closed group; nil
// altogether when c's key vectors do not hold integers.
func (a *HashAgg) pairGroups(c *types.Chunk) ([]*aggGroup, error) {
	k0, k1 := c.Cols[a.plan.GroupBy[0]], c.Cols[a.plan.GroupBy[1]]
	if k0.T.Family() != types.FamInt || k1.T.Family() != types.FamInt {
		return nil, nil
	}
	groups := a.rowGroups[:0]
	for i := 0; i < c.Len(); i++ {
		var g *aggGroup
		switch {
		case !c.Visible(i):
		case !k0.Nulls[i] && !k1.Nulls[i]:
			k := [2]int64{k0.I[i], k1.I[i]}
			if a.anyClosed && a.pairBehind(k) {
				break
			}
			if p, ok := a.pairs.get(k); ok {
				g = a.order[p]
				break
			}
			var err error
			if g, err = a.pairGroup(k); err != nil {
				return nil, err
			}
		default:
			var err error
			if g, err = a.rowGroup(c, i); err != nil {
				return nil, err
			}
		}
		groups = append(groups, g)
	}
	a.rowGroups = groups
	return groups, nil
}

// applyChunk folds a chunk into the dirty groups.
func (a *HashAgg) applyChunk(c *types.Chunk) error {
	// Evaluate every call's arguments and FILTER over the chunk first:
	// column references cost nothing, and other expressions run
	// vectorized.
	filters := make([]*types.Vec, len(a.calls))
	for j, cs := range a.calls {
		a.vecs[j] = a.vecs[j][:0]
		for k, ev := range cs.args {
			v, err := evalIsolated(a.actx, "HashAgg", &a.ectx, ev, cs.evalTs[k], c)
			if err != nil {
				return err
			}
			a.vecs[j] = append(a.vecs[j], v)
		}
		if cs.filter != nil {
			v, err := evalIsolated(a.actx, "HashAgg", &a.ectx, cs.filter, types.TBool, c)
			if err != nil {
				return err
			}
			filters[j] = v
		}
	}
	// Two integer keys: every row's group is found first, by the keys'
	// values read from their vectors (its key row is built only when the
	// group is loaded), in a loop short enough that the processor
	// overlaps the lookups' cache misses; then the rows are folded.
	// Folding a row writes nothing a lookup reads.
	var groups []*aggGroup
	if a.intPair {
		var err error
		if groups, err = a.pairGroups(c); err != nil {
			return err
		}
	}
	for i := 0; i < c.Len(); i++ {
		var g *aggGroup
		if groups != nil {
			if g = groups[i]; g == nil {
				continue
			}
		} else {
			if !c.Visible(i) {
				continue
			}
			var err error
			if g, err = a.rowGroup(c, i); err != nil {
				return err
			}
			if g == nil {
				continue
			}
		}
		sign := signOf(c.Op(i))
		if sign < 0 && g.rows <= 0 && a.ttl > 0 {
			// A retraction for a group without rows: its state expired
			// (stream_ttl.go), so there is nothing to retract it from.
			continue
		}
		g.rows += sign
		for j, cs := range a.calls {
			if cs.kind == aggDistinct {
				continue
			}
			if f := filters[j]; f != nil && !isTrue(f, i) {
				continue
			}
			args := a.args[j]
			for k, v := range a.vecs[j] {
				args[k] = v.Get(i)
			}
			if err := cs.apply(g.key, &g.vals[j], args, sign); err != nil {
				if pgerr.CodeOf(err) == pgerr.InternalError {
					return err
				}
				// A value the state cannot take (an interval or numeric
				// sum out of range) is left out and reported; the row's
				// later retraction is left out the same way.
				recordError(a.actx, "HashAgg", err)
			}
		}
		for _, d := range a.distincts {
			a.pass = a.pass[:0]
			any := false
			for _, j := range d.calls {
				ok := filters[j] == nil || isTrue(filters[j], i)
				a.pass = append(a.pass, ok)
				any = any || ok
			}
			if !any {
				continue
			}
			args := a.args[d.calls[0]]
			for k, v := range a.vecs[d.calls[0]] {
				args[k] = v.Get(i)
			}
			if err := d.apply(g.key, a.calls, g.vals, args, a.pass, sign); err != nil {
				if pgerr.CodeOf(err) == pgerr.InternalError {
					return err
				}
				recordError(a.actx, "HashAgg", err)
			}
		}
	}
	return nil
}

// barrier emits the epoch's changes, commits the dirty state and
// forwards b with the held watermarks.
func (a *HashAgg) barrier(b types.Barrier) error {
	a.now = types.EpochMillis(b.Epoch.Curr)
	for _, g := range a.order {
		if err := a.flushGroup(g); err != nil {
			return err
		}
	}
	if err := a.closeGroups(); err != nil {
		return err
	}
	if err := a.expire(); err != nil {
		return err
	}
	a.clearDirty()
	if !a.started {
		a.started = true
		if len(a.keyTs) == 0 {
			// The global aggregate's row exists from the start: loaded
			// (or created) now, it is emitted with the next epoch's
			// changes, since nothing precedes the first barrier.
			if _, err := a.group(); err != nil {
				return err
			}
		}
		// So do the groups of empty grouping sets.
		for _, s := range a.plan.EmptySets {
			for i := range a.key {
				a.key[i] = types.NullDatum
			}
			a.key[len(a.key)-1] = types.DInt(s)
			if a.keep != nil && !a.keep(a.key) {
				continue
			}
			if _, err := a.group(); err != nil {
				return err
			}
		}
	}
	a.out = a.ob.take(a.out)
	if err := a.states.Barrier(a.actx.WriteSet, b.Epoch.Prev, b.Epoch.Curr); err != nil {
		return err
	}
	for _, w := range a.wms {
		a.out = append(a.out, w)
	}
	a.wms = a.wms[:0]
	a.out = append(a.out, b)
	return nil
}

// groupBytes estimates the memory of one dirty group (the group, its
// key, old row and values, and its map entry) for the early flush.
const groupBytes = 512

// maybeFlushEarly bounds the epoch's dirty groups (DESIGN.md §4): past
// the operator's share of the memory budget, their changes are emitted
// and their state written now, as a barrier would, and the epoch goes on
// with no dirty group. Output then batches churn over a part of the
// epoch only. Aggregations that emit on window close or expire groups by
// processing time keep the whole epoch's groups.
func (a *HashAgg) maybeFlushEarly() error {
	if a.eowc || a.ttl > 0 || len(a.keyTs) == 0 || a.actx.Cache == nil ||
		int64(len(a.order))*groupBytes < a.actx.Cache.OperatorBuffer() {
		return nil
	}
	for _, g := range a.order {
		if err := a.flushGroup(g); err != nil {
			return err
		}
	}
	a.clearDirty()
	a.out = a.ob.take(a.out)
	return nil
}

// clearDirty forgets the dirty groups once flushed.
func (a *HashAgg) clearDirty() {
	clear(a.dirty)
	clear(a.dirtyInt)
	a.pairs.reset()
	clear(a.rowGroups)
	a.dirtyNull = nil
	clear(a.order)
	a.order = a.order[:0]
	// No group is referenced any more: the output rows are copies, and
	// the state tables keep encodings or rows of their own.
	a.slabGroups.reset(groupSlabKeep)
	a.slabDatums.reset(groupSlabKeep)
	a.slabVals.reset(groupSlabKeep)
}

// emptySet reports whether key is the group of one of
// StreamHashAgg.EmptySets: NULL keys, then that set's number.
func (a *HashAgg) emptySet(key types.Row) bool {
	if len(a.plan.EmptySets) == 0 {
		return false
	}
	last := key[len(key)-1]
	if last.Null || !slices.Contains(a.plan.EmptySets, last.I) {
		return false
	}
	for _, d := range key[:len(key)-1] {
		if !d.Null {
			return false
		}
	}
	return true
}

// flushGroup emits a dirty group's change and writes its state.
func (a *HashAgg) flushGroup(g *aggGroup) error {
	global := len(a.keyTs) == 0 || a.emptySet(g.key)
	if g.rows < 0 {
		return pgerr.New(pgerr.InternalError, "hash aggregation: group row count %d below zero", g.rows)
	}
	if g.rows == 0 && !global {
		if g.existed {
			if !a.eowc {
				a.ob.add(types.OpDelete, g.old)
			}
			a.result.Delete(g.key)
			a.unindex(g.key, g.writeMs)
		}
		return nil
	}
	for i, c := range a.calls {
		if err := c.refresh(g.key, &g.vals[i]); err != nil {
			return err
		}
	}
	cur := a.output(a.curBuf[:0], g)
	a.curBuf = cur
	switch {
	case a.eowc:
		// Emitted when the watermark closes the group.
	case !g.existed:
		a.ob.add(types.OpInsert, cur)
	case !sameRow(g.old, cur):
		a.ob.update(g.old, cur)
	}
	st := append(a.stBuf[:0], g.key...)
	for i, c := range a.calls {
		st = c.encode(st, &g.vals[i])
	}
	st = append(st, types.DInt(g.rows))
	if a.ttl > 0 {
		st = append(st, types.DInt(a.now))
		if !g.existed || g.writeMs != a.now {
			if g.existed {
				a.unindex(g.key, g.writeMs)
			}
			k := a.ttlKey(g.key, a.now)
			a.ttlIdx.Insert(k, k)
		}
	}
	for gen := 1; gen <= functions.AccumulatorTailGens; gen++ {
		for i, c := range a.calls {
			st = c.encodeTail(st, &g.vals[i], gen)
		}
	}
	a.result.Update(g.key, st)
	a.stBuf = st
	return nil
}

// Close implements Operator.
func (a *HashAgg) Close() {
	if a.input != nil {
		a.input.Close()
		a.input = nil
	}
}
