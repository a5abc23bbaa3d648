package executor

import (
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// Expression evaluation is vectorized: an Evaluator computes a whole Vec
// per chunk. Every evaluator computes only the rows that are visible in its
// input chunk (rows that are not visible come back NULL). Lazy constructs
// (AND, OR, CASE, COALESCE) rely on this: they evaluate a later argument on
// a view of the chunk whose visibility map holds only the rows where that
// argument matters, so `x <> 0 AND 1/x > 1` never divides by zero and a
// CASE arm that no row takes never raises an error, as in Postgres.

// Compile compiles a bound expression into a vectorized evaluator.
// Functions and operators are resolved by name and argument types at
// compile time; an unknown one is 42883.
func Compile(e planner.Expr) (Evaluator, error) {
	switch e := e.(type) {
	case *planner.ColRef:
		return colEval{e.Idx}, nil
	case *planner.OuterRef:
		return &outerEval{depth: e.Depth, idx: e.Idx, t: e.T}, nil
	case *planner.Const:
		return &constEval{v: e.V, t: e.T}, nil
	case *planner.Param:
		return &paramEval{n: e.N, t: e.T}, nil
	case *planner.Call:
		return compileCall(e)
	case *planner.Cast:
		return compileCast(e)
	case *planner.And:
		args, err := compileAll(e.Args)
		if err != nil {
			return nil, err
		}
		return &logicEval{args: args, and: true}, nil
	case *planner.Or:
		args, err := compileAll(e.Args)
		if err != nil {
			return nil, err
		}
		return &logicEval{args: args}, nil
	case *planner.Not:
		arg, err := Compile(e.Arg)
		if err != nil {
			return nil, err
		}
		return notEval{arg}, nil
	case *planner.IsNull:
		arg, err := Compile(e.Arg)
		if err != nil {
			return nil, err
		}
		return isNullEval{arg, e.Not}, nil
	case *planner.IsBool:
		arg, err := Compile(e.Arg)
		if err != nil {
			return nil, err
		}
		return isBoolEval{arg, e.Want, e.Not}, nil
	case *planner.Case:
		return compileCase(e)
	case *planner.Coalesce:
		args, err := compileAll(e.Args)
		if err != nil {
			return nil, err
		}
		return &coalesceEval{args: args, t: e.T}, nil
	case *planner.InList:
		return compileInList(e)
	case *planner.Subquery:
		return compileSubquery(e)
	case *planner.Let:
		return compileLet(e)
	case *letSlot:
		return letSlotEval{e}, nil
	case nil:
		return nil, pgerr.New(pgerr.InternalError, "executor.Compile: nil expression")
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "executor.Compile: %T not supported", e)
}

func compileAll(es []planner.Expr) ([]Evaluator, error) {
	out := make([]Evaluator, len(es))
	for i, e := range es {
		ev, err := Compile(e)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// newOut returns a vector of type t with n rows, all zero and not NULL,
// whose typed slice can be assigned by index.
func newOut(t types.T, n int) *types.Vec {
	v := &types.Vec{T: t, Nulls: make([]bool, n)}
	switch t.Family() {
	case types.FamBool:
		v.B = make([]bool, n)
	case types.FamInt:
		v.I = make([]int64, n)
	case types.FamFloat:
		v.F = make([]float64, n)
	case types.FamDecimal:
		v.D = make([]apdDecimal, n)
	case types.FamInterval:
		v.Iv = make([]types.IntervalVal, n)
	default:
		v.S = make([]string, n)
	}
	return v
}

// copyRow sets dst row i to src row j (same family).
func copyRow(dst *types.Vec, i int, src *types.Vec, j int) {
	if src.Nulls[j] {
		dst.Nulls[i] = true
		return
	}
	dst.Nulls[i] = false
	switch dst.T.Family() {
	case types.FamBool:
		dst.B[i] = src.B[j]
	case types.FamInt:
		dst.I[i] = src.I[j]
	case types.FamFloat:
		dst.F[i] = src.F[j]
	case types.FamDecimal:
		dst.D[i].Set(&src.D[j])
	case types.FamInterval:
		dst.Iv[i] = src.Iv[j]
	default:
		dst.S[i] = src.S[j]
	}
}

// setDatum sets row i of v to d.
func setDatum(v *types.Vec, i int, d types.Datum) {
	if d.Null {
		v.Nulls[i] = true
		return
	}
	v.Nulls[i] = false
	switch v.T.Family() {
	case types.FamBool:
		v.B[i] = d.I != 0
	case types.FamInt:
		v.I[i] = d.I
	case types.FamFloat:
		v.F[i] = d.F
	case types.FamDecimal:
		if d.D != nil {
			v.D[i].Set(d.D)
		}
	case types.FamInterval:
		v.Iv[i] = d.Iv
	default:
		v.S[i] = d.S
	}
}

// withVis returns a view of in (sharing its columns) whose visibility map
// is vis.
func withVis(in *types.Chunk, vis []bool) *types.Chunk {
	c := types.NewChunkFromVecs(in.Cols, in.Len())
	c.Ops = in.Ops
	c.Vis = vis
	return c
}

// visMask returns a fresh copy of in's visibility (all true when nil).
func visMask(in *types.Chunk) []bool {
	m := make([]bool, in.Len())
	for i := range m {
		m[i] = in.Visible(i)
	}
	return m
}

func anyTrue(m []bool) bool {
	for _, b := range m {
		if b {
			return true
		}
	}
	return false
}

// broadcast returns a vector of n copies of d, reusing cached when it
// already has n rows.
func broadcast(cached **types.Vec, d types.Datum, t types.T, n int) *types.Vec {
	if v := *cached; v != nil && v.Len() == n {
		return v
	}
	v := newOut(t, n)
	for i := 0; i < n; i++ {
		setDatum(v, i, d)
	}
	*cached = v
	return v
}

type colEval struct{ idx int }

// Eval returns the input column itself (zero-copy).
func (c colEval) Eval(_ *EvalCtx, in *types.Chunk) (*types.Vec, error) { return in.Cols[c.idx], nil }

type constEval struct {
	v     types.Datum
	t     types.T
	cache *types.Vec
}

func (c *constEval) Eval(_ *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	return broadcast(&c.cache, c.v, c.t, in.Len()), nil
}

type paramEval struct {
	n int
	t types.T
}

func (p *paramEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	if p.n < 1 || p.n > len(ctx.Params) {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", p.n)
	}
	var v *types.Vec
	return broadcast(&v, ctx.Params[p.n-1], p.t, in.Len()), nil
}

type outerEval struct {
	depth, idx int
	t          types.T
}

func (o *outerEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	k := len(ctx.Outer) - o.depth
	if k < 0 || o.idx >= len(ctx.Outer[k]) {
		return nil, pgerr.New(pgerr.InternalError, "outer reference at depth %d out of range", o.depth)
	}
	var v *types.Vec
	return broadcast(&v, ctx.Outer[k][o.idx], o.t, in.Len()), nil
}

// logicEval is a three-valued AND or OR over two or more arguments. Each
// argument after the first is evaluated only on the rows whose result is
// not yet decided (AND: not false; OR: not true).
type logicEval struct {
	args []Evaluator
	and  bool
}

func (l *logicEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	n := in.Len()
	out := newOut(types.TBool, n)
	first, err := l.args[0].Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		out.Nulls[i] = first.Nulls[i]
		out.B[i] = first.B[i]
	}
	vis := visMask(in)
	for _, a := range l.args[1:] {
		// Rows already decided drop out of the next argument's view.
		mask := make([]bool, n)
		for i := 0; i < n; i++ {
			mask[i] = vis[i] && (out.Nulls[i] || out.B[i] == l.and)
		}
		if !anyTrue(mask) {
			break
		}
		r, err := a.Eval(ctx, withVis(in, mask))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if !mask[i] {
				continue
			}
			switch {
			case !r.Nulls[i] && r.B[i] != l.and:
				// false for AND, true for OR decides the row.
				out.Nulls[i], out.B[i] = false, !l.and
			case r.Nulls[i]:
				out.Nulls[i] = true
			}
		}
	}
	for i := 0; i < n; i++ {
		if !vis[i] {
			out.Nulls[i] = true
		}
	}
	return out, nil
}

type notEval struct{ arg Evaluator }

func (e notEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := e.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	out := newOut(types.TBool, in.Len())
	for i := range out.B {
		out.Nulls[i] = a.Nulls[i] || !in.Visible(i)
		out.B[i] = !a.B[i]
	}
	return out, nil
}

type isNullEval struct {
	arg Evaluator
	not bool
}

func (e isNullEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := e.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	out := newOut(types.TBool, in.Len())
	for i := range out.B {
		out.B[i] = a.Nulls[i] != e.not
	}
	return out, nil
}

type isBoolEval struct {
	arg  Evaluator
	want string
	not  bool
}

func (e isBoolEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := e.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	out := newOut(types.TBool, in.Len())
	for i := range out.B {
		var r bool
		switch e.want {
		case "true":
			r = !a.Nulls[i] && a.B[i]
		case "false":
			r = !a.Nulls[i] && !a.B[i]
		default:
			r = a.Nulls[i]
		}
		out.B[i] = r != e.not
	}
	return out, nil
}

type caseEval struct {
	conds, thens []Evaluator
	els          Evaluator
	t            types.T
}

func compileCase(e *planner.Case) (Evaluator, error) {
	c := &caseEval{t: e.T}
	for _, w := range e.Whens {
		cond, err := Compile(w.Cond)
		if err != nil {
			return nil, err
		}
		then, err := Compile(w.Then)
		if err != nil {
			return nil, err
		}
		c.conds, c.thens = append(c.conds, cond), append(c.thens, then)
	}
	if e.Else != nil {
		els, err := Compile(e.Else)
		if err != nil {
			return nil, err
		}
		c.els = els
	}
	return c, nil
}

// Eval evaluates each WHEN condition on the rows no earlier arm took, and
// each THEN only on the rows whose condition is true.
func (c *caseEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	n := in.Len()
	out := newOut(c.t, n)
	for i := range out.Nulls {
		out.Nulls[i] = true
	}
	rest := visMask(in)
	for k, cond := range c.conds {
		if !anyTrue(rest) {
			return out, nil
		}
		cv, err := cond.Eval(ctx, withVis(in, rest))
		if err != nil {
			return nil, err
		}
		take := make([]bool, n)
		for i := 0; i < n; i++ {
			take[i] = rest[i] && !cv.Nulls[i] && cv.B[i]
		}
		if !anyTrue(take) {
			continue
		}
		tv, err := c.thens[k].Eval(ctx, withVis(in, take))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if take[i] {
				copyRow(out, i, tv, i)
				rest[i] = false
			}
		}
	}
	if c.els != nil && anyTrue(rest) {
		ev, err := c.els.Eval(ctx, withVis(in, rest))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if rest[i] {
				copyRow(out, i, ev, i)
			}
		}
	}
	return out, nil
}

type coalesceEval struct {
	args []Evaluator
	t    types.T
}

// Eval evaluates each argument only on the rows still NULL.
func (c *coalesceEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	n := in.Len()
	out := newOut(c.t, n)
	for i := range out.Nulls {
		out.Nulls[i] = true
	}
	rest := visMask(in)
	for _, a := range c.args {
		if !anyTrue(rest) {
			break
		}
		v, err := a.Eval(ctx, withVis(in, rest))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if rest[i] && !v.Nulls[i] {
				copyRow(out, i, v, i)
				rest[i] = false
			}
		}
	}
	return out, nil
}

type inListEval struct {
	arg  Evaluator
	list []Evaluator
	eq   []func(a, b types.Datum) int
	not  bool
}

func compileInList(e *planner.InList) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	if c, ok, err := compileConstInList(e, arg); ok || err != nil {
		return c, err
	}
	list, err := compileAll(e.List)
	if err != nil {
		return nil, err
	}
	ev := &inListEval{arg: arg, list: list, not: e.Not}
	for _, x := range e.List {
		cmp, err := functions.Comparer(e.Arg.Type(), x.Type())
		if err != nil {
			return nil, err
		}
		ev.eq = append(ev.eq, cmp)
	}
	return ev, nil
}

// Eval follows SQL's rules: true when some element equals the argument,
// else NULL when the argument or some element is NULL, else false.
func (e *inListEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := e.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	vs := make([]*types.Vec, len(e.list))
	for k, l := range e.list {
		if vs[k], err = l.Eval(ctx, in); err != nil {
			return nil, err
		}
	}
	return inListOut(in, a, e.not, func(i int, x types.Datum) (found, null bool) {
		for k, v := range vs {
			if v.Nulls[i] {
				null = true
				continue
			}
			if e.eq[k](x, v.Get(i)) == 0 {
				return true, null
			}
		}
		return false, null
	}), nil
}

// inListOut is x [NOT] IN (...)'s result over a chunk, whose argument
// values are a: match reports for row i, whose value x is not NULL,
// whether some element equals x, and else whether some element was
// NULL. True when found, else NULL when the argument or an element is
// NULL, else false (inverted by not).
func inListOut(in *types.Chunk, a *types.Vec, not bool, match func(i int, x types.Datum) (found, null bool)) *types.Vec {
	n := in.Len()
	out := newOut(types.TBool, n)
	for i := 0; i < n; i++ {
		if !in.Visible(i) || a.Nulls[i] {
			out.Nulls[i] = true
			continue
		}
		found, null := match(i, a.Get(i))
		switch {
		case found:
			out.B[i] = !not
		case null:
			out.Nulls[i] = true
		default:
			out.B[i] = not
		}
	}
	return out
}

// letEval computes a Let's values on its input, then its body, whose
// references read them through letSlots.
type letEval struct {
	vals []Evaluator
	body Evaluator
	// cur holds the values computed for the chunk being evaluated.
	cur []*types.Vec
}

// letSlot stands, in a Let's body as compiled, for a LetRef to value idx
// of the letEval l.
type letSlot struct {
	l   *letEval
	idx int
	t   types.T
}

// Type implements planner.Expr.
func (s *letSlot) Type() types.T { return s.t }

type letSlotEval struct{ s *letSlot }

// Eval returns the value the Let computed for the chunk (zero-copy).
// The body is evaluated on views of the Let's input, of its rows.
func (e letSlotEval) Eval(_ *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	return e.s.l.cur[e.s.idx], nil
}

func compileLet(e *planner.Let) (Evaluator, error) {
	vals, err := compileAll(e.Vals)
	if err != nil {
		return nil, err
	}
	l := &letEval{vals: vals, cur: make([]*types.Vec, len(vals))}
	body := e.Resolve(func(r *planner.LetRef) planner.Expr { return &letSlot{l: l, idx: r.Idx, t: r.T} })
	if l.body, err = Compile(body); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *letEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	for i, v := range l.vals {
		r, err := v.Eval(ctx, in)
		if err != nil {
			return nil, err
		}
		l.cur[i] = r
	}
	out, err := l.body.Eval(ctx, in)
	clear(l.cur)
	return out, err
}
