package executor

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

type apdDecimal = apd.Decimal

// rowFn computes a scalar function for one row. Strict functions are never
// called with a NULL argument.
type rowFn func(ctx *EvalCtx, args []types.Datum) (types.Datum, error)

// vecFn computes a scalar function over whole vectors: it fills out (n
// rows, allocated by newOut) for the rows visible in vis (nil: all rows),
// handling NULL arguments itself.
type vecFn func(ctx *EvalCtx, args []*types.Vec, n int, vis []bool, out *types.Vec) error

// impl is the implementation of one function overload.
type impl struct {
	row       rowFn
	vec       vecFn
	nonStrict bool
}

// implFactory returns the implementation of function name for the given
// argument and result types, and false if it has none for them.
type implFactory func(args []types.T, ret types.T) (impl, bool)

var impls = map[string][]implFactory{}

// def registers an implementation factory for a function or operator.
func def(name string, f implFactory) { impls[name] = append(impls[name], f) }

// defRow registers a strict row function that works for every overload of
// name.
func defRow(name string, f rowFn) {
	def(name, func([]types.T, types.T) (impl, bool) { return impl{row: f}, true })
}

// defRowNS registers a non-strict row function for every overload of name.
func defRowNS(name string, f rowFn) {
	def(name, func([]types.T, types.T) (impl, bool) { return impl{row: f, nonStrict: true}, true })
}

// lookupImpl finds the implementation of name for argument types args.
func lookupImpl(name string, args []types.T, ret types.T) (impl, error) {
	for _, f := range impls[name] {
		if im, ok := f(args, ret); ok {
			return im, nil
		}
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.ID.Name()
	}
	if len(args) == 1 && isOperator(name) {
		return impl{}, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", name, names[0])
	}
	if len(args) == 2 && isOperator(name) {
		return impl{}, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", names[0], name, names[1])
	}
	return impl{}, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", "))
}

func isOperator(name string) bool {
	return name == "neg" || strings.IndexFunc(name, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0
}

type callEval struct {
	args []Evaluator
	ret  types.T
	impl impl
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
	im, err := lookupImpl(e.Fn, ts, e.T)
	if err != nil {
		return nil, err
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
	if c.impl.vec != nil {
		return out, c.impl.vec(ctx, c.vs, n, in.Vis, out)
	}
rows:
	for i := 0; i < n; i++ {
		if !in.Visible(i) {
			out.Nulls[i] = true
			continue
		}
		for j, v := range c.vs {
			c.ds[j] = v.Get(i)
			if c.ds[j].Null && !c.impl.nonStrict {
				out.Nulls[i] = true
				continue rows
			}
		}
		d, err := c.impl.row(ctx, c.ds)
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
	return &castEval{arg: arg, from: e.Arg.Type(), to: e.T, explicit: !e.Assign}, nil
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
			if err := checkIntRange(a.I[i], c.to.ID); err != nil {
				return nil, err
			}
			out.I[i] = a.I[i]
		case ff == types.FamInt && c.from.IsInteger() && tf == types.FamFloat:
			out.F[i] = roundFloat(float64(a.I[i]), c.to.ID)
		case ff == types.FamFloat && tf == types.FamFloat:
			f := roundFloat(a.F[i], c.to.ID)
			if c.to.ID == types.Float4 && isInf(f) && !isInf(a.F[i]) {
				return nil, errFloatOverflow
			}
			if f == 0 && a.F[i] != 0 {
				return nil, errFloatUnderflow
			}
			out.F[i] = f
		case c.from.ID == c.to.ID && c.to.Mod < 0:
			copyRow(out, i, a, i)
		case ff == types.FamInt && c.from.IsInteger() && tf == types.FamDecimal && c.to.Mod < 0:
			out.D[i].SetInt64(a.I[i])
		case ff == types.FamDecimal && tf == types.FamFloat && c.to.ID == types.Float8 && a.D[i].Form == apd.Finite && decimalFitsFloat8(&a.D[i]):
			f, _ := a.D[i].Float64()
			out.F[i] = f
		case c.from.IsString() && c.to.ID == types.Text:
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
	if from.ID == types.Unknown && to.IsString() {
		return d, nil
	}
	return types.Cast(d, from, to, explicit, ctx.loc())
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
