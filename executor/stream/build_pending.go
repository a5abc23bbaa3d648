package stream

import (
	"github.com/weirdb/weir/planner"
)

// The stateful operators are built by their own constructors.

func newHashAgg(actx *ActorContext, input Operator, n *planner.StreamHashAgg) (Operator, error) {
	return NewHashAgg(actx, input, n)
}

func newTopN(actx *ActorContext, input Operator, n *planner.StreamTopN) (Operator, error) {
	return NewTopN(actx, input, n)
}

func newHashJoin(actx *ActorContext, left, right Operator, n *planner.StreamHashJoin) (Operator, error) {
	return NewHashJoin(actx, left, right, n)
}
