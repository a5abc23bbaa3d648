package executor

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// STUB: replaced by the expression compiler (expr.go): only ColRef and
// Const are supported here.

// Compile compiles a bound expression into a vectorized evaluator.
func Compile(e planner.Expr) (Evaluator, error) {
	switch e := e.(type) {
	case *planner.ColRef:
		return colEval{e.Idx}, nil
	case *planner.Const:
		return constEval{e.V, e.T}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "executor.Compile: %T not implemented", e)
}

type colEval struct{ idx int }

func (c colEval) Eval(_ *EvalCtx, in *types.Chunk) (*types.Vec, error) { return in.Cols[c.idx], nil }

type constEval struct {
	v types.Datum
	t types.T
}

func (c constEval) Eval(_ *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	v := types.NewVec(c.t, in.Len())
	for i := 0; i < in.Len(); i++ {
		v.Append(c.v)
	}
	return v, nil
}
