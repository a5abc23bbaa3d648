package stream

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
)

// The stateful operators are built by their own constructors; the join is
// being written in its own file (hash_join.go) and, until it lands, Build
// reports plans that need it as not supported yet.

func newHashAgg(actx *ActorContext, input Operator, n *planner.StreamHashAgg) (Operator, error) {
	return NewHashAgg(actx, input, n)
}

func newTopN(actx *ActorContext, input Operator, n *planner.StreamTopN) (Operator, error) {
	return NewTopN(actx, input, n)
}

func newHashJoin(actx *ActorContext, left, right Operator, n *planner.StreamHashJoin) (Operator, error) {
	return NewHashJoin(actx, left, right, n)
}
