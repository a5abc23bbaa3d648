package executor

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
)

// STUB: replaced by the batch operators (build.go).

// Build returns the operator tree that executes plan p in ec.
func Build(p planner.Plan, ec *ExecCtx) (Operator, error) {
	return nil, pgerr.New(pgerr.FeatureNotSupported, "executor.Build: not implemented")
}
