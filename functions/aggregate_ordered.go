package functions

import (
	"math"
	"sort"
	"strconv"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The ordered-set aggregates of docs §9.21 (table 9.62): percentile_cont,
// percentile_disc and mode, written f(direct args) WITHIN GROUP (ORDER BY
// x). An overload's Args are the direct arguments followed by the
// aggregated one (x); the call's one ORDER BY key is x again. The direct
// arguments are constants, given to the implementation in AggSpec.Direct
// (they decide the result even over no rows, as a fraction out of range
// does).

// orderedSetOverloads lists the ordered-set aggregates.
func orderedSetOverloads() []*Overload {
	os := []*Overload{}
	ordered := func(name string, args []types.TypeID, ret func([]types.T) types.T, kind osKind, multi bool) *Overload {
		return &Overload{Name: name, Args: args, RetFn: ret, Kind: Aggregate, OrderedSet: true, Agg: newOrderedSet(kind, multi)}
	}
	fixed := func(id types.TypeID) func([]types.T) types.T {
		return func([]types.T) types.T { return types.T{ID: id, Mod: -1} }
	}
	arrayOfArg := func(i int) func([]types.T) types.T {
		return func(args []types.T) types.T {
			at, _ := types.ArrayOf(types.T{ID: args[i].ID, Mod: -1})
			return at
		}
	}
	for _, t := range []types.TypeID{tF8, tIv} {
		at, _ := types.ArrayOf(types.T{ID: t, Mod: -1})
		os = append(os, ordered("percentile_cont", []types.TypeID{tF8, t}, fixed(t), osCont, false),
			ordered("percentile_cont", []types.TypeID{types.Float8Array, t}, fixed(at.ID), osCont, true))
	}
	os = append(os, ordered("percentile_disc", []types.TypeID{tF8, tAny}, sameAsArg(1), osDisc, false),
		ordered("percentile_disc", []types.TypeID{types.Float8Array, tAny}, arrayOfArg(1), osDisc, true),
		ordered("mode", []types.TypeID{tAny}, sameAsArg(0), osMode, false))
	return os
}

// osKind is one of the ordered-set aggregates.
type osKind uint8

const (
	osCont osKind = iota
	osDisc
	osMode
)

// newOrderedSet returns the implementation of an ordered-set aggregate;
// multi is the form taking an array of fractions.
func newOrderedSet(kind osKind, multi bool) AggFunc {
	return func(s AggSpec) func() Accumulator {
		nd := len(s.ArgTypes) - 1
		t := s.ArgTypes[nd]
		desc := len(s.OrderBy) > 0 && s.OrderBy[0].Desc
		direct := types.NullDatum
		known := false
		if len(s.Direct) > 0 {
			direct, known = s.Direct[0], true
		}
		return func() Accumulator {
			return &orderedSetAcc{kind: kind, multi: multi, t: t, desc: desc, nd: nd, direct: direct, known: known}
		}
	}
}

// orderedSetAcc keeps the sorted multiset of an ordered-set aggregate's
// non-NULL inputs (value and count), so a retraction is exact and the
// result is read from the sorted values.
type orderedSetAcc struct {
	kind  osKind
	multi bool
	t     types.T
	desc  bool
	nd    int // the number of direct arguments before the value
	// direct is the fraction (an array of them when multi); known is
	// false when the call gave no constant, and the fraction is then
	// read from the rows.
	direct types.Datum
	known  bool
	ms     []msEntry
	n      int64
}

func (a *orderedSetAcc) search(d types.Datum) (int, bool) {
	i := sort.Search(len(a.ms), func(i int) bool { return types.Compare(a.ms[i].d, d, a.t) >= 0 })
	return i, i < len(a.ms) && types.Compare(a.ms[i].d, d, a.t) == 0
}

func (a *orderedSetAcc) Add(args []types.Datum) error {
	if !a.known && a.nd > 0 {
		a.direct, a.known = copyDatum(args[0]), true
	}
	d := args[a.nd]
	if d.Null {
		return nil
	}
	a.n++
	i, found := a.search(d)
	if found {
		a.ms[i].n++
		return nil
	}
	a.ms = append(a.ms, msEntry{})
	copy(a.ms[i+1:], a.ms[i:])
	a.ms[i] = msEntry{d: copyDatum(d), n: 1}
	return nil
}

func (a *orderedSetAcc) Retract(args []types.Datum) error {
	d := args[a.nd]
	if d.Null {
		return nil
	}
	i, found := a.search(d)
	if !found {
		return pgerr.New(pgerr.InternalError, "retracting a value that was never added")
	}
	a.n--
	if a.ms[i].n--; a.ms[i].n == 0 {
		a.ms = append(a.ms[:i], a.ms[i+1:]...)
	}
	return nil
}

// at returns the k-th value (from 0) in the call's order.
func (a *orderedSetAcc) at(k int64) types.Datum {
	if a.desc {
		k = a.n - 1 - k
	}
	for _, e := range a.ms {
		if k < e.n {
			return e.d
		}
		k -= e.n
	}
	return types.NullDatum
}

// Result implements Accumulator; it is NULL where ResultErr fails.
func (a *orderedSetAcc) Result() types.Datum {
	d, _ := a.ResultErr()
	return d
}

// ResultErr returns the aggregate's value, or 22003 for a fraction that is
// not between 0 and 1, as PostgreSQL's final functions do.
func (a *orderedSetAcc) ResultErr() (types.Datum, error) {
	if a.kind == osMode {
		return a.mode(), nil
	}
	if !a.multi {
		if a.direct.Null {
			return types.NullDatum, nil
		}
		if err := checkPercentile(a.direct.F); err != nil {
			return types.NullDatum, err
		}
		if a.n == 0 {
			return types.NullDatum, nil
		}
		return a.percentile(a.direct.F)
	}
	if a.n == 0 || a.direct.Null {
		return types.NullDatum, nil
	}
	fracs, err := types.ArrayElems(a.direct.S, types.T{ID: types.Float8Array, Mod: -1}, nil)
	if err != nil {
		return types.NullDatum, err
	}
	out := make([]types.Datum, len(fracs))
	for i, f := range fracs {
		if f.Null {
			out[i] = types.NullDatum
			continue
		}
		if err := checkPercentile(f.F); err != nil {
			return types.NullDatum, err
		}
		if out[i], err = a.percentile(f.F); err != nil {
			return types.NullDatum, err
		}
	}
	return types.DString(types.FormatArray(out, a.t, nil)), nil
}

// checkPercentile is 22003 for a fraction outside [0, 1] (or NaN), with
// PostgreSQL's message (the value printed as C's %g).
func checkPercentile(p float64) error {
	if p >= 0 && p <= 1 {
		return nil
	}
	s := strconv.FormatFloat(p, 'g', 6, 64)
	if math.IsNaN(p) {
		s = "nan"
	}
	return pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", s)
}

// percentile returns percentile_disc's or percentile_cont's value at
// fraction p over a non-empty set, as orderedsetaggs.c computes it.
func (a *orderedSetAcc) percentile(p float64) (types.Datum, error) {
	if a.kind == osDisc {
		row := int64(math.Ceil(p * float64(a.n)))
		return a.at(max(row, 1) - 1), nil
	}
	pos := p * float64(a.n-1)
	first, second := int64(math.Floor(pos)), int64(math.Ceil(pos))
	lo := a.at(first)
	if first == second {
		return lo, nil
	}
	hi, frac := a.at(second), pos-float64(first)
	if a.t.ID == types.Interval {
		// interval_lerp: lo + (hi - lo) * frac.
		diff, err := subInterval(hi.Iv, lo.Iv)
		if err != nil {
			return types.NullDatum, err
		}
		m, err := mulInterval(diff, frac)
		if err != nil {
			return types.NullDatum, err
		}
		r, err := AddInterval(m, lo.Iv)
		if err != nil {
			return types.NullDatum, err
		}
		return types.DInterval(r), nil
	}
	return types.DFloat(lo.F + (hi.F-lo.F)*frac), nil
}

// mode returns the most frequent value, the first of those tied in the
// call's order; NULL over no rows.
func (a *orderedSetAcc) mode() types.Datum {
	best := -1
	for j := range a.ms {
		i := j
		if a.desc {
			i = len(a.ms) - 1 - j
		}
		if best < 0 || a.ms[i].n > a.ms[best].n {
			best = i
		}
	}
	if best < 0 {
		return types.NullDatum
	}
	return a.ms[best].d
}
