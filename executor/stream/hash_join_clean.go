package stream

import (
	"slices"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is HashJoin's handling of watermarks: the bounds of an
// interval join (planner.JoinBound) evaluated at the inputs' watermarks,
// the state cleaning they allow, and the output watermarks they imply.
//
// A bound says every matching pair has s.x >= f(o.y), f non-decreasing.
// A watermark W on o.y says no later row of o (insert or retraction) has
// y < W, so a row of s with x < f(W), or with x NULL, matches no later
// row of o. Such a row is not needed for any later probe from o: when a
// watermark raises a side's clean bound (the highest f(W) of the bounds
// on its clean column), the side's rows below it are deleted at the next
// barrier, after the epoch's own writes (a range scan of the state table
// when the column leads its key, of the side's index table otherwise),
// and an arriving row already below it is joined with the other side's
// state as usual but not stored. Cleaning deletes state only; it never
// emits anything.
//
// Cleaning keeps every output exact, for every join kind, as long as
// the inputs keep the watermark promise:
//
//   - Each probe finds the matches it would find in the uncleaned state.
//     A probe is a later row r of o; a stored row of s that r matches has
//     x >= f(r.y) >= f(W) and was therefore kept. This holds for
//     retractions too: a delete of a row whose partner was cleaned
//     cannot come, since it would be a later row below the watermark.
//   - A stored row's degree (outer, semi and anti joins) changes only
//     when a matching row of the other side arrives or leaves, which is
//     such a probe, so it stays what it would be without cleaning. A
//     cleaned row keeps no degree, but no row will ever match it again,
//     so its degree would never change, and no padded row of it would be
//     retracted or re-emitted: the padded rows and the semi/anti output
//     are those of the uncleaned join. A retraction of a cleaned row of
//     s itself finds its matches by probing o, so its output (the
//     retraction of its joined or padded rows) is exact as well; deleting
//     it from the state is a no-op.
//
// After a recovery the bounds are unknown until the next watermarks
// arrive (nothing but the state tables is persisted): until then nothing
// more is cleaned, and rows left over from an epoch that did not commit
// are cleaned with the next bound.
//
// With several actors, a state table holds every actor's rows under one
// id; each actor deletes only the rows of its own partition of the join
// key (the one the input's hash exchange sends it), so that no actor
// touches rows that another still holds in its cache or may probe
// before its own watermark arrives.

// joinBound is one bound of the plan with its value at the other side's
// latest watermark on OtherCol.
type joinBound struct {
	side, col, otherCol int
	t                   types.T // the bounded column's type, the value's
	ev                  executor.Evaluator
	ec                  *executor.EvalCtx
	otherTs             []types.T
	val                 types.Datum
	has                 bool
}

func newJoinBound(actx *ActorContext, b planner.JoinBound, ts [2][]types.T) (*joinBound, error) {
	if b.Side != 0 && b.Side != 1 || b.Col < 0 || b.Col >= len(ts[b.Side]) || b.OtherCol < 0 || b.OtherCol >= len(ts[1-b.Side]) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: bound on column %d of side %d over column %d out of range", b.Col, b.Side, b.OtherCol)
	}
	t := ts[b.Side][b.Col]
	if b.Expr == nil || b.Expr.Type().ID != t.ID || !planner.WatermarkTypeOK(t) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: bound on column %d of type %s is not of its type", b.Col, t)
	}
	ev, err := executor.Compile(b.Expr)
	if err != nil {
		return nil, err
	}
	return &joinBound{side: b.Side, col: b.Col, otherCol: b.OtherCol, t: t, ev: ev, ec: actx.Eval, otherTs: ts[1-b.Side]}, nil
}

// update raises the bound to its value at w, a watermark on the other
// side's column. A value that fails to evaluate (an overflow near the
// ends of the type's range) or is NULL leaves the bound as it was.
func (b *joinBound) update(w types.Watermark) {
	row := make(types.Row, len(b.otherTs))
	for i := range row {
		row[i] = types.NullDatum
	}
	row[b.otherCol] = w.Val
	c := types.NewChunk(b.otherTs, 1)
	c.AppendRow(types.OpInsert, row)
	v, err := b.ev.Eval(b.ec, c)
	if err != nil || v.Len() != 1 || v.Nulls[0] {
		return
	}
	if d := v.Get(0); !b.has || types.Compare(d, b.val, b.t) > 0 {
		b.val, b.has = detach(d), true
	}
}

// highest returns the highest value of bounds, and false when none has
// one yet.
func highest(bounds []*joinBound) (types.Datum, bool) {
	var best types.Datum
	has := false
	for _, b := range bounds {
		if b.has && (!has || types.Compare(b.val, best, b.t) > 0) {
			best, has = b.val, true
		}
	}
	return best, has
}

// sideClean is the state cleaning of one join side (planner.JoinClean).
type sideClean struct {
	col    int
	t      types.T
	bounds []*joinBound
	// index is the side's index table (nil when the state table is
	// ordered by col): its rows are the input columns idxCols of every
	// stored row, all key; keyAt[i] is the position in idxCols of the
	// state key's column i.
	index   *storage.StateTable
	idxCols []int
	keyAt   []int
	// ibuf is indexRow's row.
	ibuf types.Row
	// keep tells this actor's stored rows from other actors' in a scan
	// of the state table (nil: every row is this actor's); the index
	// table filters its scans itself (StateTable.SetPartition). Probes
	// need neither: a join key's rows are all in one partition.
	keep func(types.Row) bool
	// bound: rows with col below it (or NULL) match no later row of the
	// other side (valid when has). done: the bound applied at the last
	// barrier, below which this actor stores no row (valid when
	// hasDone); scans start there, past what was deleted already.
	bound, done  types.Datum
	has, hasDone bool
}

// newSideClean returns the cleaning of side s (whose input node is in)
// described by c, with the bounds on its clean column among bounds.
func newSideClean(actx *ActorContext, s *joinSide, in planner.StreamNode, c *planner.JoinClean, side int, bounds []*joinBound) (*sideClean, error) {
	if c.Col < 0 || c.Col >= len(s.ts) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: clean column %d out of range", c.Col)
	}
	sc := &sideClean{col: c.Col, t: s.ts[c.Col]}
	for _, b := range bounds {
		if b.side == side && b.col == c.Col {
			sc.bounds = append(sc.bounds, b)
		}
	}
	if len(sc.bounds) == 0 {
		return nil, pgerr.New(pgerr.InternalError, "hash join: side %d cleaned by column %d, which has no bound", side, c.Col)
	}
	dist := in.Base().Dist
	if c.Index.ID == 0 {
		if len(s.stateKey) == 0 || s.stateKey[0] != c.Col {
			return nil, pgerr.New(pgerr.InternalError, "hash join: side %d cleaned by column %d without an index table", side, c.Col)
		}
		// Stored rows lead with the input row.
		var err error
		sc.keep, err = partitionKeep(actx, dist, func(k int) int { return k }, s.ts)
		return sc, err
	}
	if len(c.IndexCols) == 0 || c.IndexCols[0] != c.Col || len(c.Index.Cols) != len(c.IndexCols) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: index table %s does not lead with the clean column", c.Index.Name)
	}
	sc.idxCols = c.IndexCols
	ts := make([]types.T, len(c.IndexCols))
	for i, k := range c.IndexCols {
		if k < 0 || k >= len(s.ts) {
			return nil, pgerr.New(pgerr.InternalError, "hash join: index table %s column %d out of range", c.Index.Name, k)
		}
		ts[i] = s.ts[k]
	}
	at := func(col int) (int, error) {
		for i, k := range c.IndexCols {
			if k == col {
				return i, nil
			}
		}
		return 0, pgerr.New(pgerr.InternalError, "hash join: index table %s lacks column %d", c.Index.Name, col)
	}
	for _, k := range s.stateKey {
		i, err := at(k)
		if err != nil {
			return nil, err
		}
		sc.keyAt = append(sc.keyAt, i)
	}
	keep, err := partitionKeep(actx, dist, func(k int) int { return slices.Index(c.IndexCols, k) }, ts)
	if err != nil {
		return nil, err
	}
	sc.index = s.states.Add(actx.Track(storage.NewStateTable(actx.DB, c.Index.ID, ts, ts, actx.Cache)))
	sc.index.SetPartition(keep)
	// Its rows are only read back when cleaning: held encoded, they
	// take a few bytes each that the garbage collector does not scan,
	// and indexRow's row is reused.
	sc.index.EncodeRows()
	// Only this side writes its index rows: a new join's index holds
	// them all in memory, so that cleaning reads them from its B-tree
	// and, as the sole writer, deletes them by range.
	if err := sc.index.Exclusive(); err != nil {
		return nil, err
	}
	if actx.Parallelism <= 1 {
		sc.index.SoleWriter()
	}
	return sc, nil
}

// raise sets the clean bound to the highest of the bounds' values.
func (c *sideClean) raise() {
	if v, ok := highest(c.bounds); ok && (!c.has || types.Compare(v, c.bound, c.t) > 0) {
		c.bound, c.has = v, true
	}
}

// keeps reports whether an input row of the side can still match a
// later row of the other side, and so must be stored.
func (c *sideClean) keeps(row types.Row) bool {
	d := row[c.col]
	return !d.Null && (!c.has || types.Compare(d, c.bound, c.t) >= 0)
}

// indexRow returns the index row of an input row, in storage reused by
// the next call (the index holds its rows encoded and keeps none).
func (c *sideClean) indexRow(row types.Row) types.Row {
	r := c.ibuf[:0]
	for _, k := range c.idxCols {
		r = append(r, row[k])
	}
	c.ibuf = r
	return r
}

// insert stores an input row of s with its degree, in the state table
// and the index (and the TTL index).
func (s *joinSide) insert(row types.Row, degree int64) {
	key := s.key(row)
	s.st.Insert(key, s.stored(row, degree))
	if s.clean != nil && s.clean.index != nil {
		r := s.clean.indexRow(row)
		s.clean.index.Insert(r, r)
	}
	if s.ttl != nil {
		s.ttl.insert(key)
	}
}

// remove deletes an input row of s from the state table and the index
// (a no-op for a row that was never stored or was cleaned).
func (s *joinSide) remove(row types.Row) {
	s.st.Delete(s.key(row))
	if s.clean != nil && s.clean.index != nil {
		s.clean.index.Delete(s.clean.indexRow(row))
	}
}

// keeps reports whether an input row of s is to be stored: always,
// unless the side is cleaned and the row is below its clean bound.
func (s *joinSide) keeps(row types.Row) bool { return s.clean == nil || s.clean.keeps(row) }

// cleanState deletes this actor's stored rows of s below the clean
// bound, when it rose since the last barrier. The scan is a range scan
// of the keys in [done, bound) of the state table, or of the index
// (whose rows name the state rows to delete), read to its end before
// anything is deleted.
func (s *joinSide) cleanState() error {
	c := s.clean
	if c == nil || !c.has || c.hasDone && types.Compare(c.bound, c.done, c.t) <= 0 {
		return nil
	}
	var lo types.Row
	if c.hasDone {
		lo = types.Row{c.done}
	}
	hi := types.Row{c.bound}
	if c.index == nil && c.keep == nil && s.st.DeleteBefore(c.bound) {
		// One range deletion (the rows below done are deleted already,
		// and none whose column is NULL is stored).
	} else if c.index == nil {
		rows, err := storage.Collect(s.st.IterRange(lo, hi, false), c.keep)
		if err != nil {
			return err
		}
		for _, r := range rows {
			s.st.Delete(s.key(r))
		}
	} else {
		rows, err := c.index.AppendRange(nil, lo, hi)
		if err != nil {
			return err
		}
		key := make(types.Row, len(c.keyAt))
		for _, r := range rows {
			for i, p := range c.keyAt {
				key[i] = r[p]
			}
			s.st.Delete(key)
		}
		// The index rows by one range deletion where the index can (no
		// row below done, nor any whose column is NULL, is stored).
		if !c.index.DeleteBefore(c.bound) {
			for _, r := range rows {
				c.index.Delete(r)
			}
		}
	}
	c.done, c.hasDone = c.bound, true
	return nil
}

// outWatermark is a watermark the join emits on output column col: the
// watermark of input column in of side side, held back to the highest
// of bounds (those on that column) at the other side's watermarks.
type outWatermark struct {
	col, side, in int
	bounds        []*joinBound
	sent          types.Datum
	has           bool
}

// newOutWatermarks returns the join's output watermarks, on the plan's
// watermark columns of n, whose left input is nl columns wide. Only
// sides never padded with NULLs may carry them (planner's
// joinWatermarks); each needs a bound on its column.
func newOutWatermarks(n *planner.StreamHashJoin, nl int, bounds []*joinBound) ([]*outWatermark, error) {
	var ok [2]bool
	switch n.Kind {
	case planner.InnerJoin:
		ok = [2]bool{true, true}
	case planner.LeftJoin, planner.SemiJoin, planner.AntiJoin:
		ok[0] = true
	case planner.RightJoin:
		ok[1] = true
	}
	var out []*outWatermark
	for _, c := range n.Watermarks {
		o := &outWatermark{col: c, in: c}
		if c >= nl {
			o.side, o.in = 1, c-nl
		}
		if !ok[o.side] {
			return nil, pgerr.New(pgerr.InternalError, "hash join: watermark on output column %d of a side padded with NULLs", c)
		}
		for _, b := range bounds {
			if b.side == o.side && b.col == o.in {
				o.bounds = append(o.bounds, b)
			}
		}
		if len(o.bounds) == 0 {
			return nil, pgerr.New(pgerr.InternalError, "hash join: watermark on output column %d, which has no bound", c)
		}
		out = append(out, o)
	}
	return out, nil
}

// watermark records side s's watermark w, raises the bounds over its
// column and the other side's clean bound, and queues the output
// watermarks that rise: each is min(side's watermark, highest bound),
// once both exist.
func (j *HashJoin) watermark(s int, w types.Watermark) {
	if prev, ok := j.wm[s][w.Col]; ok && types.Compare(w.Val, prev.Val, w.T) <= 0 {
		return
	}
	j.wm[s][w.Col] = w
	if s == 0 && j.prune != nil {
		j.prune.watermark(w)
	}
	for _, b := range j.bounds {
		if b.side == 1-s && b.otherCol == w.Col {
			b.update(w)
		}
	}
	if c := j.sides[1-s].clean; c != nil {
		c.raise()
	}
	for _, o := range j.outWms {
		own, ok := j.wm[o.side][o.in]
		if !ok {
			continue
		}
		v, ok := highest(o.bounds)
		if !ok {
			continue
		}
		t := j.outTs[o.col]
		if types.Compare(own.Val, v, t) < 0 {
			v = own.Val
		}
		if o.has && types.Compare(v, o.sent, t) <= 0 {
			continue
		}
		o.sent, o.has = v, true
		j.out = append(j.out, types.Watermark{Col: o.col, T: t, Val: v})
	}
}
