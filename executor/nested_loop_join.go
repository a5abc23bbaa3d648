package executor

import "github.com/weirdb/weir/planner"

// NewNestedLoopJoin returns the join of left and right for p when p has
// no equi-join keys (cross joins, non-equi conditions): every right row
// is a candidate for every left row, and the residual condition decides.
// It is a HashJoin whose build side is a plain list; the join kinds
// behave exactly as documented on HashJoin.
func NewNestedLoopJoin(left, right Operator, p *planner.Join, ec *ExecCtx) (*HashJoin, error) {
	q := *p
	q.LeftKeys, q.RightKeys = nil, nil
	return NewHashJoin(left, right, &q, ec)
}
