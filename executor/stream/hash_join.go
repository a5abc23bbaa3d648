package stream

import (
	"bytes"
	"context"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// HashJoin is the incremental equi-join of two changelogs (inner, left,
// right and full outer; semi and anti for EXISTS / NOT EXISTS; the
// null-aware anti join of NOT IN, hash_join_null_aware.go), after
// RisingWave's hash join executor. Each side's rows are kept in a state
// table keyed by join key + stream key (joinSide), so the rows of the
// other side that a row matches are one prefix scan. A match is equal,
// non-NULL join keys and a residual condition (Cond, over left ++ right
// columns) that is true; an expression error in Cond counts as NULL (no
// match) and is recorded. The rows an outer, semi or anti join emits
// depending on whether they match (the outer sides, the left side of
// semi/anti) store their degree, the number of rows of the other side
// they match, so that an unmatched row's NULL-padded output (for semi:
// its presence; for anti: its absence) is emitted exactly when the
// degree leaves or returns to 0. Output columns are left's then right's
// (left's only for semi and anti), with the planner's stream key. An
// interval join (planner.StreamHashJoin.Bounds) also drops the stored
// rows that the other side's watermark has put out of reach of any
// later match, so that its state stays bounded (hash_join_clean.go).
// A join whose right side is the maximum of its left key per window
// (planner.StreamHashJoin.MaxPrune, Nexmark q7) drops on arrival the left
// rows below their window's highest key seen so far, which can match no
// later right row (hash_join_prune.go).
//
//   - Chunk: each visible row is joined at once with the other side's
//     state and the changes are returned right away (a join's output
//     does not grow by waiting, so there is nothing to fold at the
//     barrier): an insert emits + for each joined row, a delete -, and
//     degree transitions retract or re-emit padded rows. An update pair
//     (U-, U+) is a delete then an insert; when these produce the same
//     number of retractions and insertions pairwise of equal output
//     stream key (the common case of a change outside the join key),
//     they leave as U-/U+ pairs, and a padded row retracted and
//     re-emitted identically by the pair is dropped. Rows with a NULL
//     join key match nothing and are not stored; in outer and anti joins
//     they are emitted (padded) and retracted like unmatched rows.
//   - Watermark: each side's latest watermark per column is kept, and
//     the interval join's bounds over that column (planner.JoinBound:
//     every match has s.x >= f(o.y)) are evaluated at it
//     (hash_join_clean.go). They raise the other side's clean bound:
//     from then on an arriving row of that side below it is joined but
//     not stored. A watermark is forwarded on the plan's output
//     watermark columns (a column x of a side never padded with NULLs,
//     with a bound on it) as min(W(x), highest f(W(y))), whenever that
//     rises: later output rows come from later rows of x's side or from
//     stored ones matched with later rows of the other side. On an
//     equal join key that is the minimum of both sides' watermarks.
//     Other watermarks are dropped: a row emitted later may carry an
//     older value (an old left row joined with a new right row, a
//     padded row re-emitted after a delete).
//   - Barrier: aligned across the two inputs (joinInputs). Then the
//     previous epoch is marked durable in the state tables, each side
//     whose clean bound rose deletes its stored rows below it (a range
//     scan of its state table or of its index table; nothing is
//     emitted), each side with a state TTL (StreamHashJoin.TTLMs,
//     hash_join_ttl.go) deletes the rows stored more than the TTL before
//     the barrier's epoch time (nothing is emitted either), the dirty
//     rows move into the epoch's write set, and the barrier is
//     forwarded.
type HashJoin struct {
	actx  *ActorContext
	in    joinReader
	kind  planner.JoinKind
	sides [2]*joinSide

	cond      *exprEval // nil without a residual condition
	condChunk *types.Chunk
	condRow   types.Row

	outTs  []types.T
	outKey []int // output stream key columns
	nl     int   // left input width

	pend []outRow // changes of the input chunk being processed
	// slab holds the joined rows in pend (joined): flush copies them into
	// chunks, after which the slab is reused.
	slab []types.Datum
	out  []types.Message // messages ready to return
	mbuf []types.Row
	// pbuf holds the other side's rows of an update pair's join key,
	// read once for both rows of the pair when pairProbe says so.
	pbuf   []types.Row
	preset bool
	pkeys  [2][]byte // pairProbe's encoded join keys
	kbuf   []byte
	// inRows holds the input rows being applied (two: an update pair), when
	// nothing keeps a reference to an input row past its apply
	// (reuseInput).
	inRows [2]types.Row

	// wm[s][col] is side s's latest watermark on col; bounds are the
	// plan's Bounds with their values at those watermarks; outWms the
	// output watermarks they give.
	wm     [2]map[int]types.Watermark
	bounds []*joinBound
	outWms []*outWatermark

	// na is the state of a null-aware anti join (NOT IN), nil otherwise.
	na *nullAware
	// prune drops left rows below their window's highest key
	// (hash_join_prune.go), nil when the plan has no MaxPrune.
	prune *maxPrune
}

// joinReader delivers a join's input messages with their side (0 left,
// 1 right), barriers aligned (joinInputs).
type joinReader interface {
	next(ctx context.Context) (side int, msg types.Message, err error)
	close()
}

// outRow is one change of the join's output.
type outRow struct {
	op  types.Op
	row types.Row
}

var _ Operator = (*HashJoin)(nil)

// maxOutRows is the number of rows in an output chunk (an update pair is
// never split, so a chunk may hold one more).
const maxOutRows = 1024

// NewHashJoin returns the join n of left and right. Both inputs' first
// messages must be barriers, as every operator's.
func NewHashJoin(actx *ActorContext, left, right Operator, n *planner.StreamHashJoin) (Operator, error) {
	if n.Left == nil || n.Right == nil {
		return nil, pgerr.New(pgerr.InternalError, "hash join: missing input node")
	}
	if len(n.LeftKeys) != len(n.RightKeys) {
		return nil, pgerr.New(pgerr.InternalError, "hash join: %d left keys for %d right keys", len(n.LeftKeys), len(n.RightKeys))
	}
	semi := n.Kind == planner.SemiJoin || n.Kind == planner.AntiJoin
	leftDegree := n.Kind == planner.LeftJoin || n.Kind == planner.FullJoin || semi
	rightDegree := n.Kind == planner.RightJoin || n.Kind == planner.FullJoin
	ls, err := newJoinSide(actx, n.Left, n.LeftKeys, n.LeftState, leftDegree, n.LeftTTL.ID != 0)
	if err != nil {
		return nil, err
	}
	rs, err := newJoinSide(actx, n.Right, n.RightKeys, n.RightState, rightDegree, n.RightTTL.ID != 0)
	if err != nil {
		return nil, err
	}
	for i := range n.LeftKeys {
		lt, rt := ls.ts[n.LeftKeys[i]], rs.ts[n.RightKeys[i]]
		if lt.Family() != rt.Family() {
			// Keys are compared by their memcomparable encoding, which
			// is per type family.
			return nil, pgerr.New(pgerr.InternalError, "hash join: key %d compares %s with %s", i, lt, rt)
		}
	}
	j := &HashJoin{
		actx: actx, kind: n.Kind, sides: [2]*joinSide{ls, rs},
		outTs: n.Out.Types(), outKey: n.StreamKey, nl: len(ls.ts),
		wm: [2]map[int]types.Watermark{{}, {}},
	}
	for _, b := range n.Bounds {
		jb, err := newJoinBound(actx, b, [2][]types.T{ls.ts, rs.ts})
		if err != nil {
			return nil, err
		}
		j.bounds = append(j.bounds, jb)
	}
	for i, c := range []*planner.JoinClean{n.LeftClean, n.RightClean} {
		if c == nil {
			continue
		}
		in := []planner.StreamNode{n.Left, n.Right}[i]
		if j.sides[i].clean, err = newSideClean(actx, j.sides[i], in, c, i, j.bounds); err != nil {
			return nil, err
		}
	}
	for i, d := range []planner.StateTableDesc{n.LeftTTL, n.RightTTL} {
		if d.ID == 0 {
			continue
		}
		if n.TTLMs <= 0 || j.sides[i].clean != nil {
			return nil, pgerr.New(pgerr.InternalError, "hash join: TTL table %s without a TTL, or on a cleaned side", d.Name)
		}
		in := []planner.StreamNode{n.Left, n.Right}[i]
		if j.sides[i].ttl, err = newSideTTL(actx, j.sides[i], in, d, n.TTLMs); err != nil {
			return nil, err
		}
	}
	want := len(ls.ts) + len(rs.ts)
	if semi {
		want = len(ls.ts)
	}
	if len(j.outTs) != want {
		return nil, pgerr.New(pgerr.InternalError, "hash join: %d output columns, want %d", len(j.outTs), want)
	}
	if j.outWms, err = newOutWatermarks(n, j.nl, j.bounds); err != nil {
		return nil, err
	}
	if n.Cond != nil {
		ev, err := executor.Compile(n.Cond)
		if err != nil {
			return nil, err
		}
		j.cond = &exprEval{ev: ev, t: types.TBool, ec: actx.Eval, op: "HashJoin"}
		ts := append(append([]types.T(nil), ls.ts...), rs.ts...)
		j.condChunk = types.NewChunk(ts, 16)
		j.condRow = make(types.Row, len(ts))
	}
	if n.NullAware {
		if j.na, err = newNullAware(actx, n, rs); err != nil {
			return nil, err
		}
	}
	if n.MaxPrune != nil {
		if n.Kind != planner.InnerJoin || n.NullAware {
			return nil, pgerr.New(pgerr.InternalError, "hash join: max prune on a join that is not inner")
		}
		if j.prune, err = newMaxPrune(n.MaxPrune, ls.ts); err != nil {
			return nil, err
		}
	}
	if j.in, err = newJoinInputs(left, right); err != nil {
		return nil, err
	}
	return j, nil
}

// Next implements Operator.
func (j *HashJoin) Next(ctx context.Context) (types.Message, error) {
	for {
		if len(j.out) > 0 {
			m := j.out[0]
			j.out[0] = nil
			j.out = j.out[1:]
			return m, nil
		}
		side, msg, err := j.in.next(ctx)
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *types.Chunk:
			if err := j.chunk(side, m); err != nil {
				return nil, err
			}
		case types.Watermark:
			j.watermark(side, m)
		case types.Barrier:
			// Output left with each chunk, so there is nothing pending.
			for _, s := range j.sides {
				if err := s.cleanState(); err != nil {
					return nil, err
				}
				if err := s.expire(types.EpochMillis(m.Epoch.Curr)); err != nil {
					return nil, err
				}
			}
			for _, s := range j.sides {
				if err := s.states.Barrier(j.actx.WriteSet, m.Epoch.Prev, m.Epoch.Curr); err != nil {
					return nil, err
				}
			}
			return m, nil
		}
	}
}

// chunk joins the visible rows of c, from side s, and queues the output.
func (j *HashJoin) chunk(s int, c *types.Chunk) error {
	n := c.Len()
	for i := 0; i < n; i++ {
		if !c.Visible(i) {
			continue
		}
		op := c.Op(i)
		if s == 0 && j.prune != nil {
			if !op.IsInsert() {
				return pgerr.New(pgerr.InternalError, "hash join: a retraction on a left side that drops rows below its window's maximum")
			}
			if j.prune.drop(c, i) {
				continue
			}
		}
		if op == types.OpUpdateDelete && i+1 < n && c.Visible(i+1) && c.Op(i+1) == types.OpUpdateInsert {
			start := len(j.pend)
			del, ins := j.inputRow(c, i, 0), j.inputRow(c, i+1, 1)
			if err := j.pairProbe(s, del, ins); err != nil {
				return err
			}
			err := j.apply(s, false, del)
			mid := len(j.pend)
			if err == nil {
				err = j.apply(s, true, ins)
			}
			j.preset = false
			if err != nil {
				return err
			}
			j.pairUpdate(start, mid)
			i++
		} else if err := j.apply(s, op.IsInsert(), j.inputRow(c, i, 0)); err != nil {
			return err
		}
		if len(j.pend) >= maxOutRows {
			j.flush()
		}
	}
	j.flush()
	return nil
}

// reuseInput reports whether apply keeps no reference to its input row
// once it returns: the changes it emits are new rows (joined or padded,
// not the input row itself as semi and anti joins emit it), and both
// sides hold their stored rows encoded (EncodeRows), so the state
// does not keep the row either (keys, index and TTL rows are new rows
// of its datums, which ownDatum detaches from the chunk).
func (j *HashJoin) reuseInput() bool {
	return j.na == nil && j.kind != planner.SemiJoin && j.kind != planner.AntiJoin
}

// inputRow returns row i of c with every datum detached from c, in the
// storage of j.inRows[slot] when reuseInput allows (instead of a new row
// for every input row).
func (j *HashJoin) inputRow(c *types.Chunk, i, slot int) types.Row {
	if !j.reuseInput() {
		return ownRow(c, i)
	}
	r := j.inRows[slot][:0]
	for _, v := range c.Cols {
		r = append(r, ownDatum(v.Get(i)))
	}
	j.inRows[slot] = r
	return r
}

// apply inserts (ins) or deletes row of side s: it joins the row with the
// other side's state, emits the joined rows and the degree transitions,
// and stores or removes the row.
func (j *HashJoin) apply(s int, ins bool, row types.Row) error {
	if j.na != nil && s == 1 {
		return j.applyNullAwareRight(ins, row)
	}
	me, ot := j.sides[s], j.sides[1-s]
	keyNull := me.joinKeyNull(row)
	var matches []types.Row
	if !keyNull {
		if j.preset {
			// filter keeps the matches in place: each apply of the
			// pair filters a copy.
			j.mbuf = append(j.mbuf[:0], j.pbuf...)
		} else {
			var err error
			if j.mbuf, err = ot.matches(me, row, j.mbuf[:0]); err != nil {
				return err
			}
		}
		matches = j.filter(s, row, j.mbuf)
	}
	op := types.OpDelete
	if ins {
		op = types.OpInsert
	}
	semi := j.kind == planner.SemiJoin || j.kind == planner.AntiJoin
	for _, m := range matches {
		or := ot.input(m)
		var d, nd int64
		if ot.degree {
			d = ot.degreeOf(m)
			if ins {
				nd = d + 1
			} else if nd = d - 1; nd < 0 {
				if strictChangelog && ot.ttl == nil && me.ttl == nil {
					// With a TTL, a retraction may meet a row whose
					// partner it matched expired meanwhile.
					return pgerr.New(pgerr.InternalError, "hash join: degree below zero")
				}
				nd = 0
			}
			ot.st.Update(ot.key(or), ot.withDegree(m, nd))
			switch {
			case j.kind == planner.SemiJoin:
				// Only the left side has degrees in a semi join.
				if ins && d == 0 {
					j.emit(types.OpInsert, or)
				} else if !ins && nd == 0 {
					j.emit(types.OpDelete, or)
				}
			case j.kind == planner.AntiJoin:
				if ins && d == 0 {
					j.emit(types.OpDelete, or)
				} else if !ins && nd == 0 {
					j.emit(types.OpInsert, or)
				}
			case ins && d == 0:
				j.emit(types.OpDelete, j.padded(1-s, or))
			}
		}
		if !semi {
			j.emit(op, j.joined(s, row, or))
		}
		if ot.degree && !semi && !ins && nd == 0 {
			j.emit(types.OpInsert, j.padded(1-s, or))
		}
	}
	deg := int64(len(matches))
	if me.degree {
		switch j.kind {
		case planner.SemiJoin:
			if deg > 0 {
				j.emit(op, row)
			}
		case planner.AntiJoin:
			if j.na != nil {
				if j.na.kept(j.na.mode(), keyNull, deg) {
					j.emit(op, row)
				}
			} else if deg == 0 {
				j.emit(op, row)
			}
		default:
			if deg == 0 {
				j.emit(op, j.padded(s, row))
			}
		}
	}
	if !keyNull || j.na != nil {
		// A row below its side's clean bound can match no later row of
		// the other side: joined above, it is not stored. A null-aware
		// anti join stores its left rows of NULL key too: they come and
		// go with the right side's emptiness.
		if !ins {
			me.remove(row)
		} else if me.keeps(row) {
			me.insert(row, deg)
		}
	}
	return nil
}

// pairProbe reads, for an update pair (del, ins) of side s whose rows
// have the same join key, the other side's rows of that key once, for
// both applies (apply takes them from pbuf while preset holds). Only
// where applying del leaves the other side's rows as they were: when
// the other side stores no degrees (an inner join's, the inner side of
// an outer join) and the join is not null-aware.
func (j *HashJoin) pairProbe(s int, del, ins types.Row) error {
	me, ot := j.sides[s], j.sides[1-s]
	if j.na != nil || ot.degree || me.joinKeyNull(del) {
		return nil
	}
	// Equal as the probes compare them: by their keys' encodings.
	a, b := j.pkeys[0][:0], j.pkeys[1][:0]
	for _, k := range me.keys {
		a = types.AppendKey(a, del[k], me.ts[k], false)
		b = types.AppendKey(b, ins[k], me.ts[k], false)
	}
	j.pkeys = [2][]byte{a, b}
	if !bytes.Equal(a, b) {
		return nil
	}
	var err error
	j.pbuf, err = ot.matches(me, del, j.pbuf[:0])
	j.preset = err == nil
	return err
}

// filter returns the candidates (stored rows of the other side with the
// same join key as row, from side s) for which the residual condition is
// true, reusing cands' storage.
func (j *HashJoin) filter(s int, row types.Row, cands []types.Row) []types.Row {
	if j.cond == nil || len(cands) == 0 {
		return cands
	}
	ot := j.sides[1-s]
	c := j.condChunk
	c.Reset()
	for _, m := range cands {
		or := ot.input(m)
		if s == 0 {
			copy(j.condRow, row)
			copy(j.condRow[j.nl:], or)
		} else {
			copy(j.condRow, or)
			copy(j.condRow[j.nl:], row)
		}
		c.AppendRow(types.OpInsert, j.condRow)
	}
	v, _ := j.cond.eval(j.actx, c)
	kept := cands[:0]
	for i, m := range cands {
		if v != nil && isTrueAt(v, i) {
			kept = append(kept, m)
		}
	}
	return kept
}

// joined returns the output row of row (from side s) joined with or (a
// row of the other side).
func (j *HashJoin) joined(s int, row, or types.Row) types.Row {
	l, r := row, or
	if s == 1 {
		l, r = or, row
	}
	n := len(l) + len(r)
	if len(j.slab)+n > cap(j.slab) {
		// The rows in pend keep the full slab; a new one takes over.
		j.slab = make([]types.Datum, 0, max(2*cap(j.slab), 64*n))
	}
	at := len(j.slab)
	j.slab = append(append(j.slab, l...), r...)
	return types.Row(j.slab[at : at+n : at+n])
}

// padded returns the output row of an unmatched row of side s: the other
// side's columns are NULL.
func (j *HashJoin) padded(s int, row types.Row) types.Row {
	out := make(types.Row, len(j.outTs))
	if s == 0 {
		copy(out, row)
	} else {
		copy(out[j.nl:], row)
	}
	for i := range out {
		if (s == 0 && i >= j.nl) || (s == 1 && i < j.nl) {
			out[i] = types.NullDatum
		}
	}
	return out
}

func (j *HashJoin) emit(op types.Op, row types.Row) {
	j.pend = append(j.pend, outRow{op: op, row: row})
}

// pairUpdate rewrites the changes of one input update, pend[start:mid]
// from its old row and pend[mid:] from its new row. A row inserted by the
// first part and deleted by the second (a padded row that stays) is
// dropped. When the rest is n deletes then n inserts pairwise of equal
// output stream key, they become n U-/U+ pairs; otherwise they stay
// deletes and inserts.
func (j *HashJoin) pairUpdate(start, mid int) {
	end := len(j.pend)
	if start == mid || mid == end {
		return
	}
	// Drop rows re-emitted unchanged. Update pairs are small (one
	// key's matches), so the quadratic search stays cheap in practice;
	// it is skipped for large fan-outs.
	if (mid-start)*(end-mid) <= 4096 {
		for a := start; a < mid; a++ {
			if j.pend[a].op != types.OpInsert {
				continue
			}
			for b := mid; b < end; b++ {
				if j.pend[b].op == types.OpDelete && j.sameRow(j.pend[a].row, j.pend[b].row) {
					j.pend[a].op, j.pend[b].op = 0xff, 0xff
					break
				}
			}
		}
	}
	var dels, inss []outRow
	for _, r := range j.pend[start:end] {
		switch r.op {
		case 0xff:
		case types.OpDelete:
			if len(inss) > 0 {
				j.compact(start)
				return
			}
			dels = append(dels, r)
		default:
			inss = append(inss, r)
		}
	}
	if len(dels) != len(inss) {
		j.compact(start)
		return
	}
	for i := range dels {
		if !j.sameKey(dels[i].row, inss[i].row) {
			j.compact(start)
			return
		}
	}
	j.pend = j.pend[:start]
	for i := range dels {
		j.pend = append(j.pend, outRow{types.OpUpdateDelete, dels[i].row}, outRow{types.OpUpdateInsert, inss[i].row})
	}
}

// compact removes the changes pairUpdate dropped from pend[start:].
func (j *HashJoin) compact(start int) {
	k := start
	for _, r := range j.pend[start:] {
		if r.op != 0xff {
			j.pend[k] = r
			k++
		}
	}
	clear(j.pend[k:])
	j.pend = j.pend[:k]
}

// sameKey reports whether two output rows have equal stream keys (NULLs
// equal, values by their key encoding).
func (j *HashJoin) sameKey(a, b types.Row) bool {
	j.kbuf = j.kbuf[:0]
	for _, k := range j.outKey {
		j.kbuf = types.AppendKey(j.kbuf, a[k], j.outTs[k], false)
	}
	n := len(j.kbuf)
	for _, k := range j.outKey {
		j.kbuf = types.AppendKey(j.kbuf, b[k], j.outTs[k], false)
	}
	return bytes.Equal(j.kbuf[:n], j.kbuf[n:])
}

// sameRow reports whether two output rows are identical (by their value
// encoding, so 1.0 and 1.00 differ).
func (j *HashJoin) sameRow(a, b types.Row) bool {
	j.kbuf = types.AppendRow(j.kbuf[:0], a, j.outTs)
	n := len(j.kbuf)
	j.kbuf = types.AppendRow(j.kbuf, b, j.outTs)
	return bytes.Equal(j.kbuf[:n], j.kbuf[n:])
}

// flush moves the pending changes into output chunks of about
// maxOutRows rows, never splitting an update pair.
func (j *HashJoin) flush() {
	for len(j.pend) > 0 {
		n := min(len(j.pend), maxOutRows)
		if j.pend[n-1].op == types.OpUpdateDelete && n < len(j.pend) {
			n++
		}
		c := types.NewChunk(j.outTs, n)
		for _, r := range j.pend[:n] {
			c.AppendRow(r.op, r.row)
		}
		j.out = append(j.out, c)
		clear(j.pend[:n])
		j.pend = j.pend[n:]
	}
	j.pend = j.pend[:0]
	// No row of the slab is pending any more.
	clear(j.slab)
	j.slab = j.slab[:0]
}

// Close implements Operator.
func (j *HashJoin) Close() { j.in.close() }
