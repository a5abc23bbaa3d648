package functions

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
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

// TestEveryWindowFunctionImplemented checks that every window-only
// overload carries its implementation and that ntile and nth_value
// refuse arguments below one with PostgreSQL's SQLSTATEs.
func TestEveryWindowFunctionImplemented(t *testing.T) {
	n := 0
	for _, name := range Names() {
		for _, o := range Overloads(name) {
			if o.Kind != WindowOnly {
				continue
			}
			n++
			if o.Window == nil || WindowFunction(name) == nil {
				t.Errorf("%s%v: no implementation", name, o.Args)
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d window-only overloads", n)
	}
	// Two rows in one peer group, each frame the whole partition.
	p := &testRows{n: 2, args: [][]types.Datum{{types.DInt(0), types.DInt(0)}, {types.DInt(0), types.DInt(0)}}}
	for name, code := range map[string]pgerr.Code{"ntile": "22014", "nth_value": "22016"} {
		if _, err := WindowFunction(name).Window(p); pgerr.CodeOf(err) != code {
			t.Errorf("%s(0): %v, want %s", name, err, code)
		}
	}
	if v, err := WindowFunction("cume_dist").Window(p); err != nil || v.F != 1 {
		t.Errorf("cume_dist over two peers = %v, %v; want 1", v, err)
	}
}

// testRows is a partition of n rows in one peer group, at its first row,
// each frame the whole partition.
type testRows struct {
	n    int
	args [][]types.Datum
}

func (p *testRows) Len() int                          { return p.n }
func (p *testRows) Row() int                          { return 0 }
func (p *testRows) Args(j int) ([]types.Datum, error) { return p.args[j], nil }
func (p *testRows) PeerStart() int                    { return 0 }
func (p *testRows) PeerEnd() int                      { return p.n - 1 }
func (p *testRows) Group() int                        { return 0 }
func (p *testRows) Frame(buf [][2]int) ([][2]int, error) {
	return append(buf, [2]int{0, p.n - 1}), nil
}
