package functions

import (
	"math"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// The aggregates for statistics of two variables (docs §9.21, Table
// 9.59): corr, covar_pop, covar_samp and the regr_* family, each called
// as f(Y, X) over double precision and skipping rows where either is
// NULL. They share PostgreSQL's float8_regr_accum state (float.c): the
// count N, the sums of X and Y, and Sxx, Syy and Sxy, the sums of
// squared and crossed deviations from the running means, kept with the
// Youngs-Cramer update; each aggregate is a final function of that
// state. Retraction applies the update's inverse, as varFloatAcc does.

// regrFinal computes one aggregate's result from a regrAcc's state.
type regrFinal func(a *regrAcc) types.Datum

// regrFinals are the aggregates of the family, by name, with
// PostgreSQL's final functions (float8_corr, float8_covar_pop, ...).
var regrFinals = map[string]regrFinal{
	"regr_count": func(a *regrAcc) types.Datum { return types.DInt(int64(a.n)) },
	"regr_sxx":   func(a *regrAcc) types.Datum { return a.ifRows(a.sxx) },
	"regr_syy":   func(a *regrAcc) types.Datum { return a.ifRows(a.syy) },
	"regr_sxy":   func(a *regrAcc) types.Datum { return a.ifRows(a.sxy) },
	"regr_avgx":  func(a *regrAcc) types.Datum { return a.ifRows(a.sx / a.n) },
	"regr_avgy":  func(a *regrAcc) types.Datum { return a.ifRows(a.sy / a.n) },
	"covar_pop":  func(a *regrAcc) types.Datum { return a.ifRows(a.sxy / a.n) },
	"covar_samp": func(a *regrAcc) types.Datum {
		if a.n < 2 {
			return types.NullDatum
		}
		return types.DFloat(a.sxy / (a.n - 1))
	},
	"corr": func(a *regrAcc) types.Datum {
		// Per the standard, NULL for horizontal and vertical lines.
		if a.n < 1 || a.sxx == 0 || a.syy == 0 {
			return types.NullDatum
		}
		return types.DFloat(a.sxy / math.Sqrt(a.sxx*a.syy))
	},
	"regr_r2": func(a *regrAcc) types.Datum {
		// NULL for a vertical line, 1 for a horizontal one.
		switch {
		case a.n < 1 || a.sxx == 0:
			return types.NullDatum
		case a.syy == 0:
			return types.DFloat(1)
		}
		return types.DFloat(a.sxy * a.sxy / (a.sxx * a.syy))
	},
	"regr_slope": func(a *regrAcc) types.Datum {
		if a.n < 1 || a.sxx == 0 {
			return types.NullDatum
		}
		return types.DFloat(a.sxy / a.sxx)
	},
	"regr_intercept": func(a *regrAcc) types.Datum {
		if a.n < 1 || a.sxx == 0 {
			return types.NullDatum
		}
		return types.DFloat((a.sy - a.sx*a.sxy/a.sxx) / a.n)
	},
}

// regrAggregates lists the family's overloads: (float8, float8), to
// float8 but regr_count's bigint.
func regrAggregates() []*Overload {
	var os []*Overload
	for _, name := range []string{"corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count",
		"regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy"} {
		final, ret := regrFinals[name], tF8
		if name == "regr_count" {
			ret = tI8
		}
		os = append(os, aggOv(name, ret, accOf(func() Accumulator { return &regrAcc{final: final} }), tF8, tF8))
	}
	return os
}

// regrAcc is float8_regr_accum's state: n, Σx, Sxx, Σy, Syy, Sxy.
type regrAcc struct {
	final                    regrFinal
	n, sx, sxx, sy, syy, sxy float64
}

// ifRows is v, or NULL when no row was aggregated.
func (a *regrAcc) ifRows(v float64) types.Datum {
	if a.n < 1 {
		return types.NullDatum
	}
	return types.DFloat(v)
}

func (a *regrAcc) Add(args []types.Datum) error {
	if args[0].Null || args[1].Null {
		return nil
	}
	y, x := args[0].F, args[1].F
	n0, sx0, sy0 := a.n, a.sx, a.sy
	a.n++
	a.sx += x
	a.sy += y
	if n0 > 0 {
		tmpX, tmpY := x*a.n-a.sx, y*a.n-a.sy
		scale := 1 / (a.n * n0)
		a.sxx += tmpX * tmpX * scale
		a.syy += tmpY * tmpY * scale
		a.sxy += tmpX * tmpY * scale
		inf := math.IsInf
		if inf(a.sx, 0) || inf(a.sxx, 0) || inf(a.sy, 0) || inf(a.syy, 0) || inf(a.sxy, 0) {
			// An overflow is an error only when finite inputs made
			// it; an infinite input makes the dependent sums NaN.
			if (inf(a.sx, 0) || inf(a.sxx, 0)) && !inf(sx0, 0) && !inf(x, 0) ||
				(inf(a.sy, 0) || inf(a.syy, 0)) && !inf(sy0, 0) && !inf(y, 0) ||
				inf(a.sxy, 0) && !inf(sx0, 0) && !inf(x, 0) && !inf(sy0, 0) && !inf(y, 0) {
				return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
			}
			for _, s := range []*float64{&a.sxx, &a.syy, &a.sxy} {
				if inf(*s, 0) {
					*s = math.NaN()
				}
			}
		}
		return nil
	}
	// At the first input the sums of deviations stay 0, unless it is
	// infinite or NaN: then they are NaN, or one more finite row would
	// report a variance of zero.
	if math.IsNaN(x) || math.IsInf(x, 0) {
		a.sxx, a.sxy = math.NaN(), math.NaN()
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		a.syy, a.sxy = math.NaN(), math.NaN()
	}
	return nil
}

// Retract takes a row back by inverting Add's update; the state of no
// rows is all zeros again.
func (a *regrAcc) Retract(args []types.Datum) error {
	if args[0].Null || args[1].Null {
		return nil
	}
	y, x := args[0].F, args[1].F
	n := a.n - 1
	if n <= 0 {
		*a = regrAcc{final: a.final}
		return nil
	}
	tmpX, tmpY := x*a.n-a.sx, y*a.n-a.sy
	scale := 1 / (a.n * n)
	a.sxx -= tmpX * tmpX * scale
	a.syy -= tmpY * tmpY * scale
	a.sxy -= tmpX * tmpY * scale
	a.n, a.sx, a.sy = n, a.sx-x, a.sy-y
	return nil
}

func (a *regrAcc) Result() types.Datum { return a.final(a) }
