package executor

import (
	"testing"

	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/types"
)

// TestEveryAggregateImplemented checks that every aggregate overload of
// package functions has an accumulator, batch and retractable: bit_and
// and bit_or were once listed but failed at execution.
func TestEveryAggregateImplemented(t *testing.T) {
	n := 0
	for _, name := range functions.Names() {
		for _, o := range functions.Overloads(name) {
			if o.Kind != functions.Aggregate {
				continue
			}
			args := make([]types.T, len(o.Args))
			for i, a := range o.Args {
				if a == types.Unknown {
					a = types.Int4 // "any": one representative type
				}
				args[i] = types.T{ID: a, Mod: -1}
			}
			for _, retract := range []bool{false, true} {
				n++
				spec := AggSpec{Fn: name, ArgTypes: args, T: o.Result(args), Retractable: retract}
				mk, err := NewAccumulatorFunc(spec)
				if err != nil {
					t.Errorf("%s%v (retractable %v): %v", name, args, retract, err)
					continue
				}
				if mk() == nil {
					t.Errorf("%s%v: nil accumulator", name, args)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d aggregate overloads checked", n)
	}
}
