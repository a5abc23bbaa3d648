package stream

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file holds the state of the streaming aggregation's calls (how each
// aggregate keeps what it needs to be exact under retraction, and how that
// state is laid out in state tables) and helpers HashAgg and TopN share:
// ORDER BY keys in memcomparable state keys, exact datum equality, and
// expression evaluation that isolates failing rows.

// aggKind says how one aggregate call keeps its state.
type aggKind uint8

const (
	// aggPlain: an accumulator whose state is a fixed row of values
	// (count, sum, avg, bool_and/or, variance, min/max over an
	// append-only input, and a grow-only max, which ignores
	// retractions), kept in the group's Result row.
	aggPlain aggKind = iota
	// aggMinMax: the current extreme in the Result row; the input values
	// in the call's Extra table, so that deleting the extreme finds the
	// next one by an ordered scan. When the input has a stream key, one
	// entry per input row, keyed by group key + value + stream key and
	// holding the value: inserts and deletes are blind writes, so a row
	// costs no read of the table (keyedMinMax). Otherwise the multiset
	// (value → count), keyed by group key + value, read and rewritten
	// for every row.
	aggMinMax
	// aggDistinct: per group distinct-value counts in the Extra table,
	// keyed by group key + arguments; a value is added to the inner
	// accumulator (state in the Result row) when its count becomes 1 and
	// retracted when it drops to 0.
	aggDistinct
	// aggStringAgg: the values in the Extra table keyed by group key +
	// ORDER BY keys + a tie-break (the input's stream key, or else the
	// value and delimiter), with a count; the Result row holds the
	// current concatenation. Rows tied on the ORDER BY keys thus come in
	// stream key order (for a table, its primary key or insertion order),
	// and a retraction finds its row exactly.
	aggStringAgg
)

// aggCallState is one compiled aggregate call of a HashAgg.
type aggCallState struct {
	kind  aggKind
	call  planner.AggCall
	nargs int
	// args evaluates the arguments, then the ORDER BY keys.
	args   []executor.Evaluator
	evalTs []types.T // the types of args' values
	argTs  []types.T
	filter executor.Evaluator
	mk     func() functions.Accumulator
	// stateTs are the call's columns in the Result row.
	stateTs []types.T
	// tailTs are the call's tail columns of each generation
	// (functions.AccumulatorTailTypes): a generation's columns of every
	// call are stored after every call's state columns and the tails
	// of the generations before.
	tailTs [functions.AccumulatorTailGens][]types.T
	// sumToInt8: sum(smallint|integer) runs on the 128-bit bigint sum and
	// its result is checked into bigint range (22003 as in the batch
	// aggregation, where the 64-bit sum would overflow).
	sumToInt8 bool
	isMax     bool
	extra     *storage.StateTable
	// extraKeyLen is the number of key columns of extra.
	extraKeyLen int
	// tieCols are the input's stream key columns that break string_agg's
	// ORDER BY ties (evaluated after the ORDER BY keys), or that key
	// min/max's entries (evaluated after the argument); 0 when the input
	// has no stream key.
	tieCols int
	// keyedMinMax: min/max keeps one Extra entry per input row (aggMinMax).
	keyedMinMax bool
	// kbuf is applyKeyedMinMax's key buffer.
	kbuf types.Row
	// lenient: a retraction of a value the state does not hold is
	// ignored instead of failing (the aggregation has a state TTL, and
	// the value may have been counted in state that expired).
	lenient bool
	// growOnly: a max whose retractions are always followed by a value at
	// least as large in the same group (planner.StreamHashAgg.GrowOnly):
	// a plain accumulator that ignores them.
	growOnly bool
}

// aggCallVal is a call's state in one group while the group is dirty.
type aggCallVal struct {
	acc functions.Accumulator
	// stale: the min/max extreme must be found again by a scan, or the
	// string_agg concatenation rebuilt, at the barrier.
	stale bool
	str   types.Datum
}

// newAggCallState compiles call; extra is its Extra state table (nil
// when the plan has none), retractable whether the input may retract.
// growOnly is planner.StreamHashAgg.GrowOnly for the call.
func newAggCallState(call planner.AggCall, extra *planner.StateTableDesc, keyTs []types.T, in *planner.StreamBase, growOnly bool, actx *ActorContext) (*aggCallState, error) {
	retractable := !in.AppendOnly
	s := &aggCallState{call: call, nargs: len(call.Args)}
	exprs := append([]planner.Expr(nil), call.Args...)
	for _, e := range call.Args {
		s.argTs = append(s.argTs, e.Type())
	}
	spec := functions.AggSpec{Fn: call.Fn, ArgTypes: s.argTs, T: call.T, Retractable: false, WideSums: true}
	switch {
	case call.Fn == "min" || call.Fn == "max":
		s.isMax = call.Fn == "max"
		if growOnly {
			if extra != nil || !s.isMax || call.Distinct || call.Filter != nil {
				return nil, pgerr.New(pgerr.InternalError, "streaming %s marked grow-only with a state table, DISTINCT or FILTER", call.Fn)
			}
			s.growOnly = true
		} else if extra != nil {
			s.kind = aggMinMax
			if len(in.StreamKey) > 0 {
				s.keyedMinMax = true
				for _, c := range in.StreamKey {
					exprs = append(exprs, &planner.ColRef{Idx: c, T: in.Out[c].T})
				}
				s.tieCols = len(in.StreamKey)
			}
		} else if retractable {
			return nil, pgerr.New(pgerr.InternalError, "streaming %s over a retracting input needs a state table", call.Fn)
		}
	case call.Fn == "string_agg":
		if call.Distinct {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "string_agg(DISTINCT ...) is not supported in materialized views")
		}
		if extra == nil {
			return nil, pgerr.New(pgerr.InternalError, "streaming string_agg needs a state table")
		}
		s.kind = aggStringAgg
		for _, k := range call.OrderBy {
			exprs = append(exprs, k.Expr)
		}
		for _, c := range in.StreamKey {
			exprs = append(exprs, &planner.ColRef{Idx: c, T: in.Out[c].T})
		}
		s.tieCols = len(in.StreamKey)
	case call.Distinct:
		if extra == nil {
			return nil, pgerr.New(pgerr.InternalError, "streaming %s(DISTINCT ...) needs a state table", call.Fn)
		}
		s.kind = aggDistinct
	}
	if call.Fn == "sum" && len(s.argTs) == 1 && (s.argTs[0].ID == types.Int2 || s.argTs[0].ID == types.Int4) {
		spec.ArgTypes = []types.T{types.TInt8}
		s.sumToInt8 = true
	}
	for _, e := range exprs {
		s.evalTs = append(s.evalTs, e.Type())
	}
	var err error
	if s.args, err = compileExprs(exprs); err != nil {
		return nil, err
	}
	if call.Filter != nil {
		if s.filter, err = executor.Compile(call.Filter); err != nil {
			return nil, err
		}
	}
	if s.kind != aggStringAgg {
		if s.mk, err = functions.NewAccumulatorFunc(spec); err != nil {
			return nil, err
		}
		ts, ok := functions.AccumulatorStateTypes(s.mk())
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregate %s is not supported in materialized views", call.Fn)
		}
		s.stateTs = ts
		for g := range s.tailTs {
			s.tailTs[g] = functions.AccumulatorTailTypes(s.mk(), g+1)
		}
	} else {
		s.stateTs = []types.T{call.T}
	}
	if extra == nil || s.kind == aggPlain {
		return s, nil
	}
	// The Extra table's layout is the operator's own (only its ID comes
	// from the plan): group keys, then per kind the value, the arguments,
	// or the ORDER BY keys and a tie-break; the stored row is the key
	// columns followed by a count (string_agg: its arguments and a count).
	extraKey := append([]types.T(nil), keyTs...)
	desc := make([]bool, len(keyTs))
	var rowTail []types.T
	switch s.kind {
	case aggMinMax:
		extraKey = append(extraKey, s.argTs[0])
		desc = append(desc, false)
		rowTail = []types.T{types.TInt8}
		if s.keyedMinMax {
			for _, c := range in.StreamKey {
				extraKey = append(extraKey, in.Out[c].T)
				desc = append(desc, false)
			}
		}
	case aggDistinct:
		extraKey = append(extraKey, s.argTs...)
		desc = append(desc, make([]bool, len(s.argTs))...)
		rowTail = []types.T{types.TInt8}
	case aggStringAgg:
		for _, k := range call.OrderBy {
			extraKey = append(extraKey, types.TInt2, k.Expr.Type())
			desc = append(desc, false, k.Desc)
		}
		if s.tieCols > 0 {
			for _, c := range in.StreamKey {
				extraKey = append(extraKey, in.Out[c].T)
			}
		} else {
			extraKey = append(extraKey, s.argTs...)
		}
		desc = append(desc, make([]bool, len(extraKey)-len(desc))...)
		rowTail = append(append([]types.T(nil), s.argTs...), types.TInt8)
	}
	s.extraKeyLen = len(extraKey)
	if s.kind == aggDistinct {
		// The table may be shared with other DISTINCT calls over the
		// same arguments: HashAgg opens it (newDistinctTable).
		return s, nil
	}
	rowTs := append(append([]types.T(nil), extraKey...), rowTail...)
	if s.keyedMinMax {
		// The stored row is the value alone: it is all a scan for the
		// extreme reads, and nothing reads an entry by its key.
		rowTs = []types.T{s.argTs[0]}
	}
	s.extra = actx.Track(storage.NewStateTable(actx.DB, extra.ID, extraKey, rowTs, actx.Cache))
	s.extra.SetDesc(desc)
	if s.keyedMinMax {
		// Written blindly and read only by scans for a group's extreme:
		// its durable entries would only crowd the cache.
		s.extra.DropClean()
	}
	return s, nil
}

func compileExprs(es []planner.Expr) ([]executor.Evaluator, error) {
	out := make([]executor.Evaluator, len(es))
	for i, e := range es {
		ev, err := executor.Compile(e)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// newVal returns the call's state for a group with no rows.
func (s *aggCallState) newVal() aggCallVal {
	v := aggCallVal{str: types.NullDatum}
	if s.mk != nil {
		v.acc = s.mk()
	}
	return v
}

// decode restores a call's state from its columns of a Result row.
func (s *aggCallState) decode(src types.Row) (aggCallVal, error) {
	v := s.newVal()
	if s.kind == aggStringAgg {
		v.str = src[0]
		return v, nil
	}
	return v, functions.SetAccumulatorState(v.acc, src)
}

// encodeTail appends a call's tail columns of generation gen (from 1)
// of a Result row to dst.
func (s *aggCallState) encodeTail(dst types.Row, v *aggCallVal, gen int) types.Row {
	if len(s.tailTs[gen-1]) == 0 {
		return dst
	}
	return functions.AppendAccumulatorTail(dst, v.acc, gen)
}

// encode appends a call's state columns of a Result row to dst.
func (s *aggCallState) encode(dst types.Row, v *aggCallVal) types.Row {
	if s.kind == aggStringAgg {
		return append(dst, v.str)
	}
	return functions.AppendAccumulatorState(dst, v.acc)
}

// result returns the call's current aggregate value; an error is a
// value out of the result type's range, reported by the caller while
// the value becomes NULL.
func (s *aggCallState) result(v *aggCallVal) (types.Datum, error) {
	if s.kind == aggStringAgg {
		return v.str, nil
	}
	d, err := functions.AccumulatorResult(v.acc)
	if err != nil {
		return types.NullDatum, err
	}
	if s.sumToInt8 && !d.Null {
		i, err := d.D.Int64()
		if err != nil {
			return types.NullDatum, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
		}
		return types.DInt(i), nil
	}
	return d, nil
}

// apply folds one input row's arguments (args, then ORDER BY values) into
// group key's state v: sign is +1 for an insert, -1 for a retraction.
func (s *aggCallState) apply(key types.Row, v *aggCallVal, args []types.Datum, sign int64) error {
	switch s.kind {
	case aggPlain:
		if sign > 0 {
			return v.acc.Add(args)
		}
		if s.growOnly {
			// The group receives this value or a larger one again
			// before the barrier: the maximum stays.
			return nil
		}
		return v.acc.Retract(args)
	case aggMinMax:
		if args[0].Null {
			return nil
		}
		if s.keyedMinMax {
			return s.applyKeyedMinMax(key, v, args, sign)
		}
		n, err := s.bumpCount(key, args[:1], sign)
		if err != nil {
			return err
		}
		if sign > 0 {
			return v.acc.Add(args[:1])
		}
		if n == 0 && !v.stale {
			cur := v.acc.Result()
			if cur.Null || types.Compare(cur, args[0], s.argTs[0]) == 0 {
				v.stale = true
			}
		}
		return nil
	case aggDistinct:
		return pgerr.New(pgerr.InternalError, "a DISTINCT aggregate is applied through its table of values")
	default:
		return s.applyStringAgg(key, v, args, sign)
	}
}

// bumpCount adds sign to the count of key+vals in the Extra table and
// returns the new count (the row is deleted at 0).
func (s *aggCallState) bumpCount(key types.Row, vals []types.Datum, sign int64) (int64, error) {
	k := make(types.Row, 0, s.extraKeyLen+1)
	k = append(k, key...)
	for _, d := range vals {
		k = append(k, detach(d))
	}
	old, ok, err := s.extra.Get(k)
	if err != nil {
		return 0, err
	}
	var n int64
	if ok {
		n = old[s.extraKeyLen].I
	}
	n += sign
	switch {
	case n > 0:
		s.extra.Update(k, append(k, types.DInt(n)))
	case n == 0:
		s.extra.Delete(k)
	case s.lenient:
		// Ignored: -1 tells the caller the value was not held.
		return -1, nil
	default:
		return 0, pgerr.New(pgerr.InternalError, "aggregate state: retracting a value that was never added")
	}
	return n, nil
}

// distinctTable is the table of values of the DISTINCT aggregate calls
// of a HashAgg over the same arguments (the plan gives them one state
// table; a lone call has its own): keyed by group key + arguments, its
// row is the key columns then one count per call (slot), the number of
// input rows holding the value that passed the call's FILTER. A value is
// added to a call's accumulator when its count becomes 1 and retracted
// when it drops to 0; the entry is deleted when every count is 0. One
// lookup per input row and value serves every call.
//
// The table holds its rows encoded (storage.StateTable.EncodeRows): a
// row is the key columns again and small counts, a few dozen bytes
// encoded against 72 per column as datums, and a query such as Nexmark
// q16 keeps hundreds of thousands of values per table. Its lookups
// decode the counts alone, into a buffer of the table's, and the rows
// written are built in another, since the table keeps neither.
type distinctTable struct {
	t *storage.StateTable
	// keyLen is the number of key columns (group keys + arguments).
	keyLen int
	// calls are the calls' indexes in HashAgg.calls, by slot.
	calls []int
	nargs int
	// want marks the count columns (what a lookup decodes); old and row
	// are the lookup's and the write's buffers.
	want     []bool
	old, row types.Row
}

// newDistinctTable opens the table of values of the DISTINCT calls
// (indexes in calls, first is the one whose layout it takes).
func newDistinctTable(actx *ActorContext, id uint32, keyTs []types.T, calls []*aggCallState, idx []int) *distinctTable {
	c := calls[idx[0]]
	keyCols := append(append([]types.T(nil), keyTs...), c.argTs...)
	rowTs := append([]types.T(nil), keyCols...)
	for range idx {
		rowTs = append(rowTs, types.TInt8)
	}
	t := actx.Track(storage.NewStateTable(actx.DB, id, keyCols, rowTs, actx.Cache))
	t.SetDesc(make([]bool, len(keyCols)))
	t.EncodeRows()
	for _, i := range idx {
		calls[i].extra = t
	}
	want := make([]bool, len(rowTs))
	for i := len(keyCols); i < len(rowTs); i++ {
		want[i] = true
	}
	return &distinctTable{t: t, keyLen: len(keyCols), calls: idx, nargs: c.nargs, want: want}
}

// apply folds one input row into the table and the group's calls: args
// are the arguments, pass[slot] whether the row passes that call's
// FILTER. It returns the first error of a call's accumulator.
func (d *distinctTable) apply(key types.Row, calls []*aggCallState, vals []aggCallVal, args []types.Datum, pass []bool, sign int64) error {
	// The table keeps no reference to the rows built here: it encodes
	// them (EncodeRows).
	k := append(append(d.row[:0], key...), args[:d.nargs]...)
	old, ok, err := d.t.GetCols(d.old, k, d.want)
	if err != nil {
		return err
	}
	if ok {
		d.old = old
	}
	row := k
	for slot := range d.calls {
		n := int64(0)
		if ok {
			n = old[d.keyLen+slot].I
		}
		row = append(row, types.DInt(n))
	}
	d.row = row
	live := false
	var first error
	for slot, ci := range d.calls {
		n := row[d.keyLen+slot].I
		if pass[slot] {
			n += sign
			c := calls[ci]
			var err error
			switch {
			case n < 0 && c.lenient:
				// A retraction of a value counted in expired state.
				n = 0
			case n < 0:
				return pgerr.New(pgerr.InternalError, "aggregate state: retracting a value that was never added")
			case sign > 0 && n == 1:
				err = vals[ci].acc.Add(args[:d.nargs])
			case sign < 0 && n == 0:
				err = vals[ci].acc.Retract(args[:d.nargs])
			}
			if err != nil && first == nil {
				first = err
			}
			row[d.keyLen+slot] = types.DInt(n)
		}
		live = live || n > 0
	}
	switch {
	case live:
		d.t.Update(k[:d.keyLen], row)
	case ok:
		d.t.Delete(k[:d.keyLen])
	}
	return first
}

// applyKeyedMinMax records an input row's value under its stream key
// (args: the value, then the stream key columns) and folds it into the
// extreme. A retraction of the extreme makes it stale: the barrier scans
// for the new one (other rows may hold the same value).
func (s *aggCallState) applyKeyedMinMax(key types.Row, v *aggCallVal, args []types.Datum, sign int64) error {
	// The table keeps only the encoding of a key: one buffer serves every
	// row.
	k := append(append(s.kbuf[:0], key...), args[:1+s.tieCols]...)
	s.kbuf = k
	if strictChangelog && !s.lenient {
		// Tests check the changelog: a row is added once and retracted
		// only after it was added.
		_, found, err := s.extra.Get(k)
		if err != nil {
			return err
		}
		if found == (sign > 0) {
			return pgerr.New(pgerr.InternalError, "aggregate state: %s", map[bool]string{true: "adding a row twice", false: "retracting a row that was never added"}[sign > 0])
		}
	}
	if sign > 0 {
		s.extra.Insert(k, types.Row{detach(args[0])})
		return v.acc.Add(args[:1])
	}
	s.extra.Delete(k)
	if !v.stale {
		cur := v.acc.Result()
		if cur.Null || types.Compare(cur, args[0], s.argTs[0]) == 0 {
			v.stale = true
		}
	}
	return nil
}

func (s *aggCallState) applyStringAgg(key types.Row, v *aggCallVal, args []types.Datum, sign int64) error {
	if args[0].Null {
		return nil
	}
	v.stale = true
	k := make(types.Row, 0, s.extraKeyLen+3)
	k = append(k, key...)
	nord := len(s.call.OrderBy)
	k = appendOrderKey(k, args[s.nargs:s.nargs+nord], s.call.OrderBy)
	if s.tieCols > 0 {
		for _, d := range args[s.nargs+nord:] {
			k = append(k, detach(d))
		}
	} else {
		k = append(k, detach(args[0]), detach(args[1]))
	}
	old, ok, err := s.extra.Get(k)
	if err != nil {
		return err
	}
	var n int64
	if ok {
		n = old[s.extraKeyLen+2].I
	}
	n += sign
	switch {
	case n > 0:
		row := append(k[:len(k):len(k)], detach(args[0]), detach(args[1]), types.DInt(n))
		s.extra.Update(k, row)
	case n == 0:
		s.extra.Delete(k)
	case s.lenient:
	default:
		return pgerr.New(pgerr.InternalError, "string_agg state: retracting a value that was never added")
	}
	return nil
}

// refresh recomputes a stale min/max extreme or string_agg value from the
// Extra table.
func (s *aggCallState) refresh(key types.Row, v *aggCallVal) error {
	if !v.stale {
		return nil
	}
	v.stale = false
	it := s.extra.Iter(key, s.isMax && s.kind == aggMinMax)
	defer it.Close()
	if s.kind == aggMinMax {
		r, err := it.Next()
		if err != nil {
			return err
		}
		d := types.NullDatum
		switch {
		case r == nil:
		case s.keyedMinMax:
			d = r[0]
		default:
			d = r[len(key)]
		}
		return functions.SetAccumulatorState(v.acc, types.Row{d})
	}
	var buf []byte
	n := 0
	for {
		r, err := it.Next()
		if err != nil {
			return err
		}
		if r == nil {
			break
		}
		for c := r[s.extraKeyLen+2].I; c > 0; c-- {
			if n > 0 && !r[s.extraKeyLen+1].Null {
				buf = append(buf, r[s.extraKeyLen+1].S...)
			}
			buf = append(buf, r[s.extraKeyLen].S...)
			n++
		}
	}
	v.str = types.NullDatum
	if n > 0 {
		v.str = types.DString(string(buf))
	}
	return nil
}

// appendOrderKey appends the state-key columns of ORDER BY values vals:
// per key a null rank (0 before 1) then the value, so NULLs sort first or
// last as NULLS FIRST/LAST asks whatever the direction; the value column
// is descending for DESC keys (orderKeyDesc).
func appendOrderKey(dst types.Row, vals []types.Datum, keys []planner.SortKey) types.Row {
	for i, k := range keys {
		d := vals[i]
		var rank int64
		if d.Null != k.NullsFirst {
			rank = 1
		}
		dst = append(dst, types.DInt(rank), detach(d))
	}
	return dst
}

// detach returns d without references into a chunk.
func detach(d types.Datum) types.Datum {
	if !d.Null && d.D != nil {
		d.D = new(apd.Decimal).Set(d.D)
	}
	return d
}

// sameDatum reports whether a and b are the same value exactly as they
// would print (1.0 and 1.00 differ, as do 0 and -0), so that a change of
// display is emitted as a change.
func sameDatum(a, b types.Datum) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	if a.I != b.I || a.S != b.S || a.Iv != b.Iv || math.Float64bits(a.F) != math.Float64bits(b.F) {
		return false
	}
	if (a.D == nil) != (b.D == nil) {
		return false
	}
	if a.D != nil {
		return a.D.Form == b.D.Form && a.D.Negative == b.D.Negative && a.D.Exponent == b.D.Exponent && a.D.Coeff.Cmp(&b.D.Coeff) == 0
	}
	return true
}

func sameRow(a, b types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameDatum(a[i], b[i]) {
			return false
		}
	}
	return true
}

// evalIsolated evaluates ev over c. When the chunk fails, it evaluates
// row by row: a failing row's value becomes NULL and its error is
// recorded, so that one bad row never fails the job (DESIGN.md §3).
func evalIsolated(actx *ActorContext, op string, ectx *executor.EvalCtx, ev executor.Evaluator, t types.T, c *types.Chunk) (*types.Vec, error) {
	v, err := ev.Eval(ectx, c)
	if err == nil {
		return v, nil
	}
	out := types.NewVec(t, c.Len())
	ts := make([]types.T, len(c.Cols))
	for j, col := range c.Cols {
		ts[j] = col.T
	}
	one := types.NewChunk(ts, 1)
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			out.Append(types.NullDatum)
			continue
		}
		one.Reset()
		one.AppendRow(types.OpInsert, c.Row(i))
		rv, err := ev.Eval(ectx, one)
		if err != nil {
			recordError(actx, op, err)
			out.Append(types.NullDatum)
			continue
		}
		out.Append(rv.Get(0))
	}
	return out, nil
}

// recordError reports an error that turned a value into NULL.
func recordError(actx *ActorContext, op string, err error) {
	if actx != nil && actx.Errors != nil {
		actx.Errors.Record(actx.Job, op, err)
	}
}

// isTrue reports whether row i of the boolean vector v is true (FILTER
// keeps only those rows).
func isTrue(v *types.Vec, i int) bool { return !v.Nulls[i] && v.B[i] }

// signOf returns +1 for an insert (+, U+) and -1 for a retraction (-, U-).
func signOf(op types.Op) int64 {
	if op.IsInsert() {
		return 1
	}
	return -1
}

// outBuilder collects an epoch's output rows into chunks of at most
// types.ChunkCap rows, never splitting a U-/U+ pair.
type outBuilder struct {
	ts     []types.T
	chunks []*types.Chunk
}

func (b *outBuilder) room(n int) *types.Chunk {
	switch {
	case len(b.chunks) == 0:
		// The first chunk starts small and grows as rows come: an
		// epoch that changes a few groups (a single-row INSERT's) would
		// otherwise allocate and clear a full chunk per column.
		b.chunks = append(b.chunks, types.NewChunk(b.ts, firstOutCap))
	case b.chunks[len(b.chunks)-1].Len()+n > types.ChunkCap:
		b.chunks = append(b.chunks, types.NewChunk(b.ts, types.ChunkCap))
	}
	return b.chunks[len(b.chunks)-1]
}

// firstOutCap is the capacity an outBuilder's first chunk starts with.
const firstOutCap = 8

func (b *outBuilder) add(op types.Op, r types.Row) { b.room(1).AppendRow(op, r) }

func (b *outBuilder) update(old, new types.Row) {
	c := b.room(2)
	c.AppendRow(types.OpUpdateDelete, old)
	c.AppendRow(types.OpUpdateInsert, new)
}

// take returns the collected chunks as messages and empties b.
func (b *outBuilder) take(dst []types.Message) []types.Message {
	for _, c := range b.chunks {
		dst = append(dst, c)
	}
	b.chunks = nil
	return dst
}

// seqCols returns the column indexes 0..n-1.
func seqCols(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
