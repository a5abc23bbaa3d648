package stream

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// partitionKeep returns the filter that tells the rows of a state table
// that belong to this actor's hash partition, for
// storage.StateTable.SetPartition, or nil when the actor holds every row
// (a fragment of one actor). The rows reached the operator hash
// partitioned by dist (its input's distribution, in input columns);
// rowCol maps an input column to its column in the state table's rows,
// or -1 when the rows do not hold it. ts are the types of the state
// table's rows. A row belongs to the actor when the dispatcher's hash of
// its distribution key values sends it to actx.Index, as the hash
// dispatcher (dispatch.go) did with the input row it came from.
//
// A parallel fragment whose distribution is not a hash of columns the
// rows hold cannot tell its rows apart: that is a planning error
// (XX000), since the planner partitions stateful operators by their
// keys.
func partitionKeep(actx *ActorContext, dist planner.Distribution, rowCol func(int) int, ts []types.T) (func(types.Row) bool, error) {
	if actx.Parallelism <= 1 || dist.Kind == planner.DistSingle {
		return nil, nil
	}
	if dist.Kind != planner.DistHash {
		return nil, pgerr.New(pgerr.InternalError, "state of %d actors without a hash distribution", actx.Parallelism)
	}
	cols := make([]int, len(dist.Keys))
	for i, k := range dist.Keys {
		if cols[i] = rowCol(k); cols[i] < 0 {
			return nil, pgerr.New(pgerr.InternalError, "state table rows lack distribution column %d", k)
		}
	}
	n, idx := actx.Parallelism, actx.Index
	return func(row types.Row) bool {
		return partitionOf(hashRow(row, cols, ts), n) == idx
	}, nil
}
