package functions

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// Serialised accumulator states, for the streaming aggregation's state
// tables: an accumulator whose state is a fixed number of values is
// written as a row of datums and restored from it after a restart. The
// layouts (types in order):
//
//	count                          n int8
//	sum(smallint|integer)          sum int8, n int8
//	sum(bigint), avg(integers)     hi int8, lo int8 (128-bit sum), n int8
//	sum(numeric), avg(numeric)     sum numeric, n int8
//	sum(float), avg(float)         sum float8, n int8
//	sum(interval), avg(interval)   sum interval, n int8
//	bool_and, bool_or              true count int8, false count int8
//	bit_and, bit_or, bit_xor       n int8, per-bit counts text ("bit:count,...")
//	variance family (decimal)      n int8, ΣX numeric, ΣX² numeric
//	variance family (float)        n float8, ΣX float8, ΣX² term float8
//	corr, covar_*, regr_*          n, ΣX, Sxx, ΣY, Syy, Sxy, all float8
//	min, max (not retractable)     the current extreme (NULL: no input)
//
// Retractable min/max, string_agg and the DISTINCT and ORDER BY wrappers
// keep their inputs, which do not fit a row: a streaming aggregation
// keeps those inputs in state tables of their own.

// AccumulatorStateTypes returns the column types of a's serialised state,
// and false when a's state is not a fixed row.
func AccumulatorStateTypes(a Accumulator) ([]types.T, bool) {
	i8, f8, num, iv := types.TInt8, types.TFloat8, types.TNumeric, types.TInterval
	switch a := a.(type) {
	case *countAcc:
		return []types.T{i8}, true
	case *sumIntAcc:
		return []types.T{i8, i8}, true
	case *sumInt128Acc:
		return []types.T{i8, i8, i8}, true
	case *sumDecAcc:
		return []types.T{num, i8}, true
	case *sumFloatAcc, *avgFloatAcc:
		return []types.T{f8, i8}, true
	case *floatStepAcc:
		return a.stateTypes(), true
	case *sumIntervalAcc, *avgIntervalAcc:
		return []types.T{iv, i8}, true
	case *avgAcc:
		if a.numeric {
			return []types.T{num, i8}, true
		}
		return []types.T{i8, i8, i8}, true
	case *boolAcc:
		return []types.T{i8, i8}, true
	case *bitAcc:
		return []types.T{i8, types.TText}, true
	case *varDecAcc:
		return []types.T{i8, num, num}, true
	case *varFloatAcc:
		return []types.T{f8, f8, f8}, true
	case *regrAcc:
		return []types.T{f8, f8, f8, f8, f8, f8}, true
	case *minMaxAcc:
		if !a.retractable {
			return []types.T{a.t}, true
		}
	}
	return nil, false
}

// An accumulator's tail is state added after its state row's layout was
// fixed: a state table stores every call's tail after all the calls'
// state columns, so a row written before the tail existed still decodes
// (its tail reads NULL) and no later column moves. Tails come in
// generations, each stored after all the calls' tails of the one before,
// so that a call given a tail in a later generation moves no column of
// an earlier one:
//
//	generation 1: sum(numeric), avg(numeric): the inputs counted by
//	   display scale ("scale:count,...").
//	generation 2: sum, avg and the variance family over numeric and
//	   floats: the NaN and infinite inputs counted and the state of the
//	   finite ones ("nan pinf ninf finite-state...", NULL when none is
//	   counted); for float sum and avg the finite sum, its compensated
//	   form (hi, lo float8) and those counts; sum and avg of interval: a
//	   sum out of the interval range ("months days hi lo", NULL when in
//	   range).
//
// The state columns stay readable without the tail (state tables that
// have none, as an EMIT ON WINDOW CLOSE over window's): they hold the
// result's NaN or infinity, which then stays, as it did before the
// counts existed, and an interval sum out of range reads as zero.

// AccumulatorTailGens is the number of tail generations.
const AccumulatorTailGens = 2

// AccumulatorTailTypes returns the column types of a's tail of
// generation gen (1 to AccumulatorTailGens; none for most accumulators).
func AccumulatorTailTypes(a Accumulator, gen int) []types.T {
	text := []types.T{types.TText}
	if gen == 2 {
		switch a.(type) {
		case *sumFloatAcc, *avgFloatAcc:
			return []types.T{types.TFloat8, types.TFloat8, types.TFloat8, types.TText}
		}
	}
	switch a := a.(type) {
	case *sumDecAcc:
		return text
	case *avgAcc:
		if a.numeric {
			return text
		}
	case *varDecAcc, *varFloatAcc, *sumIntervalAcc, *avgIntervalAcc:
		if gen == 2 {
			return text
		}
	}
	return nil
}

// AppendAccumulatorTail appends a's tail of generation gen (see
// AccumulatorTailTypes) to dst.
func AppendAccumulatorTail(dst types.Row, a Accumulator, gen int) types.Row {
	if gen == 1 {
		switch a := a.(type) {
		case *sumDecAcc:
			return append(dst, a.scalesText())
		case *avgAcc:
			if a.numeric {
				return append(dst, a.dec.scalesText())
			}
		}
		return dst
	}
	switch a := a.(type) {
	case *sumDecAcc:
		return append(dst, a.nf.text(a.sum.String()))
	case *avgAcc:
		if a.numeric {
			return append(dst, a.dec.nf.text(a.dec.sum.String()))
		}
	case *sumFloatAcc:
		return a.tail(dst)
	case *avgFloatAcc:
		return a.tail(dst)
	case *varDecAcc:
		return append(dst, a.nf.text(strconv.FormatInt(a.n, 10), a.sx.String(), a.sx2.String()))
	case *varFloatAcc:
		return append(dst, a.nf.text(floatText(a.n), floatText(a.sx), floatText(a.sxx)))
	case *sumIntervalAcc:
		return append(dst, a.wideText())
	case *avgIntervalAcc:
		return append(dst, a.wideText())
	}
	return dst
}

// SetAccumulatorTail restores a's tail of generation gen from src, after
// SetAccumulatorState. A NULL tail (a row written before the tail
// existed) leaves the accumulator as the state columns made it: a
// numeric sum then keeps the scale of its sum.
func SetAccumulatorTail(a Accumulator, src types.Row, gen int) {
	if len(src) == 0 {
		return
	}
	if gen == 1 {
		switch a := a.(type) {
		case *sumDecAcc:
			a.setScales(src[0])
		case *avgAcc:
			if a.numeric {
				a.dec.setScales(src[0])
			}
		}
		return
	}
	switch a := a.(type) {
	case *sumDecAcc:
		a.setNonFinite(src[0])
	case *avgAcc:
		if a.numeric {
			a.dec.setNonFinite(src[0])
		}
	case *sumFloatAcc:
		a.setTail(src)
	case *avgFloatAcc:
		a.setTail(src)
	case *varDecAcc:
		if v := a.nf.setText(src[0], 3); v != nil {
			a.n, _ = strconv.ParseInt(v[0], 10, 64)
			parseDecText(v[1], &a.sx)
			parseDecText(v[2], &a.sx2)
		}
	case *varFloatAcc:
		if v := a.nf.setText(src[0], 3); v != nil {
			a.n, a.sx, a.sxx = parseFloatText(v[0]), parseFloatText(v[1]), parseFloatText(v[2])
		}
	case *sumIntervalAcc:
		a.setWideText(src[0])
	case *avgIntervalAcc:
		a.setWideText(src[0])
	}
}

// tail and setTail write and read a float sum's generation 2 tail: the
// finite sum, its compensated form (hi, lo) and the counts of NaN and
// infinite inputs (NULL when none is counted).
func (a *floatSum) tail(dst types.Row) types.Row {
	return append(dst, types.DFloat(a.sum), types.DFloat(a.hi), types.DFloat(a.lo), a.nf.text())
}

func (a *floatSum) setTail(src types.Row) {
	if len(src) < 4 || src[0].Null || src[1].Null || src[2].Null {
		return // a row written before the tail: setSum's sum stays
	}
	a.sum, a.hi, a.lo = src[0].F, src[1].F, src[2].F
	a.nf.setText(src[3], 0)
}

// setNonFinite restores the counts of NaN and infinite inputs and the
// finite sum from a generation 2 tail.
func (a *sumDecAcc) setNonFinite(d types.Datum) {
	if v := a.nf.setText(d, 1); v != nil {
		parseDecText(v[0], &a.sum)
	}
}

// stateDec is the numeric sum a state column holds: the finite sum, or
// the result's NaN or infinity while such inputs are counted.
func stateDec(nf *nonFinite, finite *apd.Decimal) types.Datum {
	if nf.any() {
		return types.DDecimal(nf.decimal(finite))
	}
	return decDatum(finite)
}

// stateFloat is stateDec for a float sum.
func stateFloat(nf *nonFinite, finite float64) types.Datum {
	return types.DFloat(nf.float(finite))
}

// stateInterval is the interval a sum's state column holds: the sum, or
// zero when it is out of range (the tail holds it then).
func stateInterval(a *sumIntervalAcc) types.Datum {
	v, _ := a.value()
	return types.DInterval(v)
}

func decDatum(d *apd.Decimal) types.Datum {
	return types.DDecimal(new(apd.Decimal).Set(d))
}

// AppendAccumulatorState appends a's serialised state (see
// AccumulatorStateTypes) to dst. Numeric values are copied, so the row
// does not alias a.
func AppendAccumulatorState(dst types.Row, a Accumulator) types.Row {
	switch a := a.(type) {
	case *countAcc:
		return append(dst, types.DInt(a.n))
	case *sumIntAcc:
		return append(dst, types.DInt(a.sum), types.DInt(a.n))
	case *sumInt128Acc:
		return append(dst, types.DInt(a.hi), types.DInt(int64(a.lo)), types.DInt(a.n))
	case *sumDecAcc:
		return append(dst, stateDec(&a.nf, &a.sum), types.DInt(a.n))
	case *sumFloatAcc:
		return append(dst, stateFloat(&a.nf, a.sum), types.DInt(a.n))
	case *floatStepAcc:
		return a.appendState(dst)
	case *avgFloatAcc:
		return append(dst, stateFloat(&a.nf, a.sum), types.DInt(a.n))
	case *sumIntervalAcc:
		return append(dst, stateInterval(a), types.DInt(a.n))
	case *avgIntervalAcc:
		return append(dst, stateInterval(&a.sumIntervalAcc), types.DInt(a.n))
	case *avgAcc:
		if a.numeric {
			return append(dst, stateDec(&a.dec.nf, &a.dec.sum), types.DInt(a.dec.n))
		}
		return append(dst, types.DInt(a.sum.hi), types.DInt(int64(a.sum.lo)), types.DInt(a.sum.n))
	case *boolAcc:
		return append(dst, types.DInt(a.nTrue), types.DInt(a.nFals))
	case *bitAcc:
		return append(dst, types.DInt(a.n), a.bitsText())
	case *varDecAcc:
		if a.nf.any() {
			nan := types.DDecimal(&apd.Decimal{Form: apd.NaN})
			return append(dst, types.DInt(a.total()), nan, nan)
		}
		return append(dst, types.DInt(a.n), decDatum(&a.sx), decDatum(&a.sx2))
	case *varFloatAcc:
		if a.nf.any() {
			return append(dst, types.DFloat(a.total()), types.DFloat(math.NaN()), types.DFloat(math.NaN()))
		}
		return append(dst, types.DFloat(a.n), types.DFloat(a.sx), types.DFloat(a.sxx))
	case *regrAcc:
		return append(dst, types.DFloat(a.n), types.DFloat(a.sx), types.DFloat(a.sxx),
			types.DFloat(a.sy), types.DFloat(a.syy), types.DFloat(a.sxy))
	case *minMaxAcc:
		if !a.has {
			return append(dst, types.NullDatum)
		}
		return append(dst, copyDatum(a.cur))
	}
	return dst
}

// SetAccumulatorState restores a's state from src, a row written by
// AppendAccumulatorState for an accumulator of the same AggSpec. It fails
// with XX001 (data corrupted) when src is too short or an accumulator
// without a fixed state is given.
func SetAccumulatorState(a Accumulator, src types.Row) error {
	want, ok := AccumulatorStateTypes(a)
	if !ok || len(src) < len(want) {
		return pgerr.New(pgerr.DataCorrupted, "aggregate state of %d values does not fit %T", len(src), a)
	}
	dec := func(d types.Datum, dst *apd.Decimal) {
		if d.Null || d.D == nil {
			dst.SetInt64(0)
			return
		}
		dst.Set(d.D)
	}
	switch a := a.(type) {
	case *countAcc:
		a.n = src[0].I
	case *sumIntAcc:
		a.sum, a.n = src[0].I, src[1].I
	case *sumInt128Acc:
		a.hi, a.lo, a.n = src[0].I, uint64(src[1].I), src[2].I
	case *sumDecAcc:
		dec(src[0], &a.sum)
		a.n, a.nf = src[1].I, nonFinite{}
		a.setScales(types.NullDatum) // until SetAccumulatorTail says more
	case *sumFloatAcc:
		a.setSum(src[0].F)
		a.n = src[1].I
	case *floatStepAcc:
		a.setState(src)
	case *avgFloatAcc:
		a.setSum(src[0].F)
		a.n = src[1].I
	case *sumIntervalAcc:
		a.setValue(src[0].Iv)
		a.n = src[1].I
	case *avgIntervalAcc:
		a.setValue(src[0].Iv)
		a.n = src[1].I
	case *avgAcc:
		if a.numeric {
			dec(src[0], &a.dec.sum)
			a.dec.n, a.dec.nf = src[1].I, nonFinite{}
			a.dec.setScales(types.NullDatum) // until SetAccumulatorTail says more
		} else {
			a.sum.hi, a.sum.lo, a.sum.n = src[0].I, uint64(src[1].I), src[2].I
		}
	case *boolAcc:
		a.nTrue, a.nFals = src[0].I, src[1].I
	case *bitAcc:
		a.n = src[0].I
		return a.setBitsText(src[1])
	case *varDecAcc:
		a.n, a.nf = src[0].I, nonFinite{}
		dec(src[1], &a.sx)
		dec(src[2], &a.sx2)
	case *varFloatAcc:
		a.n, a.sx, a.sxx, a.nf = src[0].F, src[1].F, src[2].F, nonFinite{}
	case *regrAcc:
		a.n, a.sx, a.sxx, a.sy, a.syy, a.sxy = src[0].F, src[1].F, src[2].F, src[3].F, src[4].F, src[5].F
	case *minMaxAcc:
		a.has = !src[0].Null
		a.cur = types.NullDatum
		if a.has {
			a.cur = copyDatum(src[0])
		}
	}
	return nil
}
