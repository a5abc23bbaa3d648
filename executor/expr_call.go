package executor

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

type apdDecimal = apd.Decimal

type callEval struct {
	args []Evaluator
	ret  types.T
	impl functions.Impl
	ds   []types.Datum
	vs   []*types.Vec
}

func compileCall(e *planner.Call) (Evaluator, error) {
	args, err := compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	ts := make([]types.T, len(e.Args))
	for i, a := range e.Args {
		ts[i] = a.Type()
	}
	im, err := functions.Lookup(e.Fn, ts, e.T)
	if err != nil {
		return nil, err
	}
	if e.CLocale {
		im = functions.InCLocale(im)
	}
	return &callEval{args: args, ret: e.T, impl: im,
		ds: make([]types.Datum, len(args)), vs: make([]*types.Vec, len(args))}, nil
}

func (c *callEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	for i, a := range c.args {
		v, err := a.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		c.vs[i] = v
	}
	n := in.Len()
	out := newOut(c.ret, n)
	if c.impl.Vec != nil {
		return out, c.impl.Vec(&ctx.Context, c.vs, n, in.Vis, out)
	}
rows:
	for i := 0; i < n; i++ {
		if !in.Visible(i) {
			out.Nulls[i] = true
			continue
		}
		for j, v := range c.vs {
			c.ds[j] = v.Get(i)
			if c.ds[j].Null && !c.impl.NonStrict {
				out.Nulls[i] = true
				continue rows
			}
		}
		d, err := c.impl.Row(&ctx.Context, c.ds)
		if err != nil {
			return nil, err
		}
		setDatum(out, i, d)
	}
	return out, nil
}

type castEval struct {
	arg      Evaluator
	from, to types.T
	// explicit is false for assignment casts (INSERT/UPDATE targets),
	// where a too-long varchar is an error rather than truncated.
	explicit bool
}

func compileCast(e *planner.Cast) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	dc, err := compileDomain(e.Domain)
	if err != nil {
		return nil, err
	}
	if dc != nil {
		return &domainCastEval{castEval{arg: arg, from: e.Arg.Type(), to: e.T, explicit: !e.Assign}, dc}, nil
	}
	return &castEval{arg: arg, from: e.Arg.Type(), to: e.T, explicit: !e.Assign}, nil
}

// domainCastEval is a coercion to a domain: the cast to its base type,
// then its constraints.
type domainCastEval struct {
	castEval
	dc *domainCheck
}

// Eval casts and checks the visible rows.
func (c *domainCastEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	out, err := c.castEval.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := c.dc.vec(ctx, out, in); err != nil {
		return nil, err
	}
	return out, nil
}

// Eval casts row by row (explicit or assignment semantics), with fast
// paths for the integer and float conversions.
func (c *castEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := c.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	n := in.Len()
	out := newOut(c.to, n)
	ff, tf := c.from.Family(), c.to.Family()
	for i := 0; i < n; i++ {
		if a.Nulls[i] || !in.Visible(i) {
			out.Nulls[i] = true
			continue
		}
		switch {
		case ff == types.FamInt && tf == types.FamInt && (c.from.IsInteger() || c.from.ID == types.Oid) && (c.to.IsInteger() || c.to.ID == types.Oid):
			if err := functions.CheckIntRange(a.I[i], c.to.ID); err != nil {
				return nil, err
			}
			out.I[i] = a.I[i]
		case ff == types.FamInt && c.from.IsInteger() && tf == types.FamFloat:
			out.F[i] = functions.RoundFloat(float64(a.I[i]), c.to.ID)
		case ff == types.FamFloat && tf == types.FamFloat:
			f := functions.RoundFloat(a.F[i], c.to.ID)
			if c.to.ID == types.Float4 && functions.IsInf(f) && !functions.IsInf(a.F[i]) {
				return nil, functions.ErrFloatOverflow
			}
			if f == 0 && a.F[i] != 0 {
				return nil, functions.ErrFloatUnderflow
			}
			out.F[i] = f
		case c.from.ID == c.to.ID && c.to.Mod < 0:
			copyRow(out, i, a, i)
		case ff == types.FamInt && c.from.IsInteger() && tf == types.FamDecimal && c.to.Mod < 0:
			out.D[i].SetInt64(a.I[i])
		case ff == types.FamDecimal && tf == types.FamFloat && c.to.ID == types.Float8 && a.D[i].Form == apd.Finite && decimalFitsFloat8(&a.D[i]):
			f, _ := a.D[i].Float64()
			out.F[i] = f
		case c.from.IsString() && c.from.ID != types.Bpchar && c.to.ID == types.Text:
			out.S[i] = a.S[i]
		default:
			d, err := castDatum(ctx, a.Get(i), c.from, c.to, c.explicit)
			if err != nil {
				return nil, err
			}
			setDatum(out, i, d)
		}
	}
	return out, nil
}

// castDatum casts one non-NULL value with explicit-cast semantics, or
// assignment semantics when explicit is false.
func castDatum(ctx *EvalCtx, d types.Datum, from, to types.T, explicit bool) (types.Datum, error) {
	if from.ID == types.Unknown && to.IsString() && to.ID != types.Bpchar {
		return d, nil
	}
	if from.IsString() || from.ID == types.Unknown {
		// 'now', 'today', ... read the transaction's start time.
		if v, ok := ctx.RelativeTime(d.S, to.ID); ok {
			return v, nil
		}
	}
	r, err := types.Cast(d, from, to, explicit, ctx.loc())
	if err == nil && to.ID == types.Jsonpath && from.ID != types.Jsonpath {
		// jsonpath_in compiles like_regex's patterns.
		err = functions.CheckJSONPathRegexes(r.S)
	}
	return r, err
}

// decimalFitsFloat8 reports whether d's magnitude is well inside double
// precision's range (or d is zero), so that converting it can neither
// overflow nor underflow; other values take types.Cast's exact path,
// which reports 22003 as Postgres's numeric_float8 does.
func decimalFitsFloat8(d *apd.Decimal) bool {
	if d.Coeff.Sign() == 0 {
		return true
	}
	adj := int64(d.Exponent) + d.NumDigits() - 1
	return adj > -300 && adj < 300
}
