package stream

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
)

// The stateful operators below are being written in their own files
// (hash_agg.go, top_n.go, hash_join.go); until they land, Build reports
// plans that need them as not supported yet. Each stub is replaced by a
// call to the operator's constructor (NewHashAgg, NewTopN, NewHashJoin).

func newHashAgg(actx *ActorContext, input Operator, n *planner.StreamHashAgg) (Operator, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "incremental aggregation is not supported yet")
}

func newTopN(actx *ActorContext, input Operator, n *planner.StreamTopN) (Operator, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "incremental top-N is not supported yet")
}

func newHashJoin(actx *ActorContext, left, right Operator, n *planner.StreamHashJoin) (Operator, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "incremental joins are not supported yet")
}
