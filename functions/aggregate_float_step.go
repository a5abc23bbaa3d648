package functions

import (
	"math"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// floatStepOp says which aggregate a floatStepAcc computes.
type floatStepOp uint8

const (
	floatStepSum floatStepOp = iota // sum(real | double precision)
	floatStepAvg                    // avg(real | double precision)
	floatStepVar                    // the variance/stddev family
)

// floatStepAcc is sum, avg and the variance family over floats when rows
// are only added (a query's aggregation, a window frame, an EMIT ON
// WINDOW CLOSE running frame): it keeps PostgreSQL's own transition
// state and applies its transition functions row by row, so the result
// and the errors are PostgreSQL's for the rows in the order they come.
// sum is float8pl (float4pl for real: each step rounded to real), the
// others float8_accum (float4_accum): N, Sx and the Youngs-Cramer Sxx.
// A step fails with 22003 when finite inputs give an infinite result (a
// NaN or infinite input, or a sum already NaN or infinite, gives NaN or
// Infinity without error), and the state stays as it was, as it does
// when PostgreSQL's transition function raises.
//
// The streaming aggregation (AggSpec.WideSums) and callers that retract
// (AggSpec.Retractable) get sumFloatAcc, avgFloatAcc and varFloatAcc
// instead, which count the non-finite inputs apart so a retraction can
// take them out, and check overflow on their result.
type floatStepAcc struct {
	op   floatStepOp
	kind varKind // floatStepVar
	f32  bool    // floatStepSum of real
	// n is the number of non-NULL inputs; s is the sum (Sx) and sxx the
	// sum of squared differences (float8_accum's; unused by sum).
	n      int64
	s, sxx float64
}

// newFloatStep returns the AggFunc of a float sum, average or variance:
// mk when the call needs retractions or the streaming aggregation's
// wide sums, else a floatStepAcc.
func newFloatStep(op floatStepOp, kind varKind, f32 bool, mk func() Accumulator) AggFunc {
	return func(s AggSpec) func() Accumulator {
		if s.WideSums || s.Retractable {
			return mk
		}
		return func() Accumulator { return &floatStepAcc{op: op, kind: kind, f32: f32} }
	}
}

func (a *floatStepAcc) Add(args []types.Datum) error {
	if args[0].Null {
		return nil
	}
	x := args[0].F
	if a.op == floatStepSum {
		if a.n == 0 {
			a.s, a.n = x, 1 // the first input is the state (float8pl is strict)
			return nil
		}
		r := a.s + x
		if a.f32 {
			r = float64(float32(r))
		}
		if math.IsInf(r, 0) && !math.IsInf(a.s, 0) && !math.IsInf(x, 0) {
			return ErrFloatOverflow
		}
		a.s = r
		a.n++
		return nil
	}
	// float8_accum.
	n := float64(a.n + 1)
	sx, sxx := a.s+x, a.sxx
	if a.n > 0 {
		tmp := x*n - sx
		sxx += tmp * tmp / (n * float64(a.n))
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
			if !math.IsInf(a.s, 0) && !math.IsInf(x, 0) {
				return ErrFloatOverflow
			}
			sxx = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		sxx = math.NaN()
	}
	a.n, a.s, a.sxx = a.n+1, sx, sxx
	return nil
}

// Retract is not supported: NewAccumulatorFunc gives callers that
// retract another accumulator.
func (a *floatStepAcc) Retract([]types.Datum) error {
	return pgerr.New(pgerr.InternalError, "retracting from a float aggregate without retractions")
}

// Result is float8pl's sum, float8_avg's Sx/N, or float8_var_samp's
// Sxx/(N-1) (var_pop: /N, stddev: its square root).
func (a *floatStepAcc) Result() types.Datum {
	switch a.op {
	case floatStepSum, floatStepAvg:
		if a.n == 0 {
			return types.NullDatum
		}
		if a.op == floatStepSum {
			return types.DFloat(a.s)
		}
		return types.DFloat(a.s / float64(a.n))
	}
	d := float64(a.n)
	if a.kind.sample {
		d--
	}
	if a.n == 0 || d <= 0 {
		return types.NullDatum
	}
	v := a.sxx / d
	if !a.kind.variance {
		v = math.Sqrt(v)
	}
	return types.DFloat(v)
}

// stateTypes, appendState and setState serialise a floatStepAcc in the
// layouts of the accumulators it stands for (see AccumulatorStateTypes):
// sum and avg as the sum and the count, the variance family as N, Sx and
// Sxx. An average's Sxx, which only its overflow check reads, is not
// kept: it restores as NaN after a NaN or infinite input, as
// float8_accum leaves it, else as zero, so after a restore only a step
// whose own term overflows fails.
func (a *floatStepAcc) stateTypes() []types.T {
	if a.op == floatStepVar {
		return []types.T{types.TFloat8, types.TFloat8, types.TFloat8}
	}
	return []types.T{types.TFloat8, types.TInt8}
}

func (a *floatStepAcc) appendState(dst types.Row) types.Row {
	if a.op == floatStepVar {
		return append(dst, types.DFloat(float64(a.n)), types.DFloat(a.s), types.DFloat(a.sxx))
	}
	return append(dst, types.DFloat(a.s), types.DInt(a.n))
}

func (a *floatStepAcc) setState(src types.Row) {
	if a.op == floatStepVar {
		a.n, a.s, a.sxx = int64(src[0].F), src[1].F, src[2].F
		return
	}
	a.s, a.n, a.sxx = src[0].F, src[1].I, 0
	if math.IsNaN(a.s) || math.IsInf(a.s, 0) {
		a.sxx = math.NaN()
	}
}
