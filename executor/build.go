package executor

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
)

// Build returns the operator tree that executes plan p in ec: one
// operator per plan node, children first. Errors are those of expression
// compilation and unsupported nodes (0A000); on error the operators built
// so far are closed. When ec.Analyze is set (EXPLAIN ANALYZE), every
// operator is wrapped to count its rows and time into it.
func Build(p planner.Plan, ec *ExecCtx) (Operator, error) {
	op, err := build(p, ec)
	if err != nil || ec.Analyze == nil {
		return op, err
	}
	return ec.Analyze.wrap(p, op), nil
}

func build(p planner.Plan, ec *ExecCtx) (Operator, error) {
	switch p := p.(type) {
	case *planner.Scan:
		return NewScan(p, ec), nil
	case *planner.IndexScan:
		return NewIndexScan(p, ec), nil
	case *planner.SystemScan:
		return NewSystemScan(p, ec), nil
	case *planner.Values:
		return NewValues(p, ec), nil
	case *planner.TableFunc:
		return NewTableFunc(p, ec), nil
	case *planner.Filter:
		in, err := Build(p.Input, ec)
		if err != nil {
			return nil, err
		}
		cond, err := Compile(p.Cond)
		if err != nil {
			in.Close()
			return nil, err
		}
		return NewFilter(in, cond, ec), nil
	case *planner.Project:
		in, err := Build(p.Input, ec)
		if err != nil {
			return nil, err
		}
		exprs, err := compileAll(p.Exprs)
		if err != nil {
			in.Close()
			return nil, err
		}
		return NewProject(in, exprs, ec), nil
	case *planner.Agg:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewHashAgg(in, p, ec) })
	case *planner.Sort:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewSort(in, p.Keys, p.Input.Schema(), ec) })
	case *planner.Limit:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewLimit(in, p, ec), nil })
	case *planner.Distinct:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewDistinct(in, p, ec) })
	case *planner.Window:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewWindow(in, p, ec), nil })
	case *planner.ProjectSet:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewProjectSet(in, p, ec) })
	case *planner.Expand:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewExpand(in, p), nil })
	case *planner.SessionWindow:
		return unary(p.Input, ec, func(in Operator) (Operator, error) {
			sorted, err := NewSort(in, sessionSortKeys(p), p.Input.Schema(), ec)
			if err != nil {
				return nil, err
			}
			return NewSessionWindow(sorted, p), nil
		})
	case *planner.HopWindow:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewHopWindow(in, p) })
	case *planner.Insert:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewInsert(in, p, ec) })
	case *planner.Update:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewUpdate(in, p, ec) })
	case *planner.Delete:
		return unary(p.Input, ec, func(in Operator) (Operator, error) { return NewDelete(in, p, ec) })
	case *planner.Join:
		if p.Lateral {
			return unary(p.Left, ec, func(in Operator) (Operator, error) { return NewLateralJoin(in, p, ec), nil })
		}
		return binary(p.Left, p.Right, ec, func(l, r Operator) (Operator, error) {
			if len(p.LeftKeys) == 0 {
				return NewNestedLoopJoin(l, r, p, ec)
			}
			return NewHashJoin(l, r, p, ec)
		})
	case *planner.RecursiveUnion:
		return unary(p.NonRecursive, ec, func(in Operator) (Operator, error) { return NewRecursiveUnion(in, p, ec), nil })
	case *planner.WorkTableScan:
		return NewWorkTableScan(p, ec), nil
	case *planner.SetOp:
		return binary(p.Left, p.Right, ec, func(l, r Operator) (Operator, error) { return NewSetOp(l, r, p, ec), nil })
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "executor: plan node %T is not supported", p)
}

// unary builds input and then the node over it, closing the input when
// the node cannot be built.
func unary(input planner.Plan, ec *ExecCtx, mk func(Operator) (Operator, error)) (Operator, error) {
	in, err := Build(input, ec)
	if err != nil {
		return nil, err
	}
	op, err := mk(in)
	if err != nil {
		in.Close()
		return nil, err
	}
	return op, nil
}

// binary builds both inputs and then the node over them.
func binary(left, right planner.Plan, ec *ExecCtx, mk func(l, r Operator) (Operator, error)) (Operator, error) {
	l, err := Build(left, ec)
	if err != nil {
		return nil, err
	}
	r, err := Build(right, ec)
	if err != nil {
		l.Close()
		return nil, err
	}
	op, err := mk(l, r)
	if err != nil {
		closeAll(l, r)
		return nil, err
	}
	return op, nil
}
