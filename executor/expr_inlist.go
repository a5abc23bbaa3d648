package executor

import (
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// hashInListMin is the length from which a list of constants is looked
// up through a hash table rather than compared element by element:
// PostgreSQL hashes a constant = ANY array from 9 elements on
// (MIN_ARRAY_SIZE_FOR_HASHED_SAOP).
const hashInListMin = 9

// constInListEval is x [NOT] IN (c1, c2, ...) over constants. The
// constants are held once as values, not broadcast into a vector each
// per chunk, and a list of hashInListMin elements or more, all of the
// argument's type, is looked up by hash (types.Hash agrees with the
// type's equality), so a list of a million constants costs a lookup
// per row rather than a million comparisons and a million vectors.
type constInListEval struct {
	arg    Evaluator
	consts []types.Datum
	eq     []func(a, b types.Datum) int
	// hasNull: some constant is NULL, so a value found nowhere is NULL.
	hasNull bool
	// byHash maps a hash to the first constant of that hash, plus one,
	// when the list is hashed; next chains the constants of one hash
	// (next[k] is the following one, plus one; 0 ends the chain).
	// argType is the type they and the argument share.
	byHash  map[uint64]int32
	next    []int32
	argType types.T
	not     bool
}

// compileConstInList compiles an IN list whose elements are all
// constants; ok is false for any other list.
func compileConstInList(e *planner.InList, arg Evaluator) (_ Evaluator, ok bool, _ error) {
	for _, x := range e.List {
		if _, c := x.(*planner.Const); !c {
			return nil, false, nil
		}
	}
	at := e.Arg.Type()
	ev := &constInListEval{arg: arg, not: e.Not, argType: at}
	sameType := true
	for _, x := range e.List {
		c := x.(*planner.Const)
		if c.V.Null {
			ev.hasNull = true
			continue
		}
		cmp, err := functions.Comparer(at, c.T)
		if err != nil {
			return nil, true, err
		}
		ev.consts = append(ev.consts, c.V)
		ev.eq = append(ev.eq, cmp)
		sameType = sameType && c.T.ID == at.ID
	}
	if sameType && len(ev.consts) >= hashInListMin && hashable(at) {
		ev.byHash = make(map[uint64]int32, len(ev.consts))
		ev.next = make([]int32, len(ev.consts))
		for k, d := range ev.consts {
			h := types.Hash(d, at)
			ev.next[k] = ev.byHash[h]
			ev.byHash[h] = int32(k) + 1
		}
	}
	return ev, true, nil
}

// hashable reports whether values of t can be looked up by hash:
// types.Hash agrees with Compare for every type but Unknown's.
func hashable(t types.T) bool { return t.Family() != types.FamNone }

// Eval follows SQL's rules: true when some element equals the argument,
// else NULL when the argument or some element is NULL, else false.
func (e *constInListEval) Eval(ctx *EvalCtx, in *types.Chunk) (*types.Vec, error) {
	a, err := e.arg.Eval(ctx, in)
	if err != nil {
		return nil, err
	}
	return inListOut(in, a, e.not, func(_ int, x types.Datum) (found, null bool) {
		return e.find(x), e.hasNull
	}), nil
}

// find reports whether x (not NULL) equals a non-NULL constant.
func (e *constInListEval) find(x types.Datum) bool {
	if e.byHash != nil {
		for k := e.byHash[types.Hash(x, e.argType)]; k != 0; k = e.next[k-1] {
			if e.eq[k-1](x, e.consts[k-1]) == 0 {
				return true
			}
		}
		return false
	}
	for k, c := range e.consts {
		if e.eq[k](x, c) == 0 {
			return true
		}
	}
	return false
}
