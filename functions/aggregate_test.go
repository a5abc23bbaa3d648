package functions

import (
	"testing"

	"github.com/weirdb/weir/types"
)

// TestEveryAggregateImplemented checks that every aggregate overload
// carries its implementation, that a call with the overload's own
// argument types runs that implementation, and that it gives an
// accumulator, batch and retractable: bit_and and bit_or were once listed
// but failed at execution.
func TestEveryAggregateImplemented(t *testing.T) {
	n := 0
	for _, name := range Names() {
		for _, o := range Overloads(name) {
			if o.Kind != Aggregate {
				continue
			}
			if o.Agg == nil {
				t.Errorf("%s%v: no implementation", name, o.Args)
				continue
			}
			args := make([]types.T, len(o.Args))
			for i, a := range o.Args {
				if a == types.Unknown {
					a = types.Int4 // "any": one representative type
				}
				args[i] = types.T{ID: a, Mod: -1}
			}
			if got := findAggregate(name, args); got != o {
				t.Errorf("%s%v: a call with its own argument types runs another overload", name, o.Args)
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
