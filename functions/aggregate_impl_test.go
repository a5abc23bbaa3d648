package functions

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

func dints(is ...int64) []types.Datum {
	out := make([]types.Datum, len(is))
	for i, x := range is {
		out[i] = types.DInt(x)
	}
	return out
}

func decs(ss ...string) []types.Datum {
	out := make([]types.Datum, len(ss))
	for i, s := range ss {
		out[i] = dec(s)
	}
	return out
}

func strs(ss ...string) []types.Datum {
	out := make([]types.Datum, len(ss))
	for i, s := range ss {
		out[i] = types.DString(s)
	}
	return out
}

func fmtDatum(d types.Datum, t types.T) string {
	c := types.NewChunk([]types.T{t}, 1)
	c.AppendRow(types.OpInsert, types.Row{d})
	s := c.String()
	// Drop the header line and the op.
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[i+1:]
			break
		}
	}
	return s[2 : len(s)-1]
}

// TestAccumulators checks each aggregate's result, then retracts the
// listed inputs and checks the result again. Expected values with
// numeric scales were checked against PostgreSQL 15.
func TestAccumulators(t *testing.T) {
	null := types.NullDatum
	i4arr := types.T{ID: types.Int4Array, Mod: -1}
	cases := []struct {
		fn      string
		arg     types.T
		res     types.T
		in      []types.Datum
		want    string
		retract []types.Datum
		after   string
	}{
		{"count", types.TInt4, types.TInt8, append(dints(1, 2), null), "2", dints(1), "1"},
		{"sum", types.TInt4, types.TInt8, append(dints(1, 2, 4), null), "7", dints(4, 2), "1"},
		{"sum", types.TInt4, types.TInt8, nil, ".", nil, "."},
		{"sum", types.TInt8, types.TNumeric, dints(9223372036854775807, 1), "9223372036854775808", dints(1), "9223372036854775807"},
		{"sum", types.TInt8, types.TNumeric, dints(-9223372036854775808, -1), "-9223372036854775809", dints(-1, -9223372036854775808), "."},
		{"sum", types.TNumeric, types.TNumeric, decs("1.5", "2.25"), "3.75", decs("2.25"), "1.5"},
		{"sum", types.TFloat8, types.TFloat8, []types.Datum{types.DFloat(0.5), types.DFloat(2)}, "2.5", []types.Datum{types.DFloat(2)}, "0.5"},
		{"avg", types.TInt4, types.TNumeric, dints(1, 2), "1.5000000000000000", dints(2), "1.00000000000000000000"},
		{"avg", types.TNumeric, types.TNumeric, decs("1.5", "2.25", "7"), "3.5833333333333333", decs("7"), "1.8750000000000000"},
		{"avg", types.TInt8, types.TNumeric, dints(1, 2, 4), "2.3333333333333333", nil, "2.3333333333333333"},
		{"avg", types.TFloat8, types.TFloat8, []types.Datum{types.DFloat(1), types.DFloat(2)}, "1.5", nil, "1.5"},
		{"min", types.TInt4, types.TInt4, append(dints(3, 1, 2, 1), null), "1", dints(1, 1), "2"},
		{"max", types.TText, types.TText, []types.Datum{types.DString("b"), types.DString("c"), types.DString("a")}, "c", []types.Datum{types.DString("c")}, "b"},
		{"max", types.TNumeric, types.TNumeric, decs("1.5", "10"), "10", decs("10", "1.5"), "."},
		// max(anyarray), min(anyarray): element by element, a NULL
		// element after every value, a prefix before the longer array.
		{"max", i4arr, i4arr, strs("{1,2}", "{1,10}", "{2}", "{}", "{1,NULL}"), "{2}", strs("{2}"), "{1,NULL}"},
		{"min", i4arr, i4arr, strs("{1,2}", "{1,10}", "{2}", "{1}"), "{1}", strs("{1}"), "{1,2}"},
		{"bool_and", types.TBool, types.TBool, []types.Datum{types.DBool(true), types.DBool(false), null}, "f", []types.Datum{types.DBool(false)}, "t"},
		{"bool_or", types.TBool, types.TBool, []types.Datum{types.DBool(true), types.DBool(false)}, "t", []types.Datum{types.DBool(true)}, "f"},
		{"every", types.TBool, types.TBool, nil, ".", nil, "."},
		{"array_agg", types.TInt4, types.TTextArray, append(dints(3, 1), null, types.DInt(-2)), "{3,1,NULL,-2}", dints(1), "{3,NULL,-2}"},
		{"array_agg", types.TText, types.TTextArray, []types.Datum{types.DString("a b"), types.DString("")}, `"{\"a b\",\"\"}"`, nil, `"{\"a b\",\"\"}"`},
		// variance/stddev of 1, 2 (and 1, 2, 4).
		{"stddev", types.TInt4, types.TNumeric, dints(1, 2), "0.70710678118654752440", nil, "0.70710678118654752440"},
		{"variance", types.TInt4, types.TNumeric, dints(1, 2, 4), "2.3333333333333333", dints(4), "0.50000000000000000000"},
		{"var_pop", types.TInt4, types.TNumeric, dints(1, 2, 4), "1.5555555555555556", nil, "1.5555555555555556"},
		{"stddev_pop", types.TInt4, types.TNumeric, dints(1, 2, 4), "1.2472191289246471", dints(2, 4), "0"},
		{"stddev_samp", types.TInt4, types.TNumeric, dints(5), ".", nil, "."},
		{"stddev_samp", types.TFloat8, types.TFloat8, []types.Datum{types.DFloat(1), types.DFloat(2)}, "0.7071067811865476", []types.Datum{types.DFloat(2)}, "."},
		{"var_pop", types.TFloat8, types.TFloat8, []types.Datum{types.DFloat(1), types.DFloat(2), types.DFloat(4)}, "1.5555555555555556", []types.Datum{types.DFloat(4)}, "0.25"},
		{"sum", types.TInterval, types.TInterval, []types.Datum{types.DInterval(types.IntervalVal{Months: 1}), types.DInterval(types.IntervalVal{Days: 1, Micros: 5})}, "1m1d5us", nil, "1m1d5us"},
		// avg('1 mon', '1 day', '3 hours') = 10 days 09:00:00.
		{"avg", types.TInterval, types.TInterval, []types.Datum{types.DInterval(types.IntervalVal{Months: 1}), types.DInterval(types.IntervalVal{Days: 1}), types.DInterval(types.IntervalVal{Micros: 3 * 3600e6})}, "0m10d32400000000us", nil, "0m10d32400000000us"},
	}
	for _, c := range cases {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: c.fn, ArgTypes: []types.T{c.arg}, T: c.res, Retractable: true})
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		acc := mk()
		for _, d := range c.in {
			if err := acc.Add([]types.Datum{d}); err != nil {
				t.Fatalf("%s: %v", c.fn, err)
			}
		}
		if got := fmtDatum(acc.Result(), c.res); got != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.fn, c.arg, got, c.want)
		}
		for _, d := range c.retract {
			if err := acc.Retract([]types.Datum{d}); err != nil {
				t.Fatalf("%s retract: %v", c.fn, err)
			}
		}
		if got := fmtDatum(acc.Result(), c.res); got != c.after {
			t.Errorf("%s(%s) after retraction = %s, want %s", c.fn, c.arg, got, c.after)
		}
	}
}

func TestSumOverflow(t *testing.T) {
	mk, _ := NewAccumulatorFunc(AggSpec{Fn: "sum", ArgTypes: []types.T{types.TInt4}, T: types.TInt8})
	acc := mk()
	acc.Add(dints(9223372036854775807))
	err := acc.Add(dints(1))
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.NumericValueOutOfRange || pe.Message != "bigint out of range" {
		t.Fatalf("got %v", err)
	}
}

func TestCountStarAndDistinctAndOrderedStringAgg(t *testing.T) {
	mk, _ := NewAccumulatorFunc(AggSpec{Fn: "count", T: types.TInt8, Retractable: true})
	acc := mk()
	acc.Add(nil)
	acc.Add(nil)
	acc.Retract(nil)
	if acc.Result().I != 1 {
		t.Fatalf("count(*) = %d", acc.Result().I)
	}
	mk, _ = NewAccumulatorFunc(AggSpec{Fn: "count", ArgTypes: []types.T{types.TInt4}, T: types.TInt8, Distinct: true, Retractable: true})
	acc = mk()
	for _, d := range append(dints(1, 1, 2), types.NullDatum) {
		acc.Add([]types.Datum{d})
	}
	if acc.Result().I != 2 {
		t.Fatalf("count(DISTINCT) = %d", acc.Result().I)
	}
	acc.Retract(dints(1))
	if acc.Result().I != 2 {
		t.Fatalf("count(DISTINCT) after retracting one of two copies = %d", acc.Result().I)
	}
	acc.Retract(dints(1))
	if acc.Result().I != 1 {
		t.Fatalf("count(DISTINCT) after retracting both copies = %d", acc.Result().I)
	}
	// string_agg(v, ',' ORDER BY k DESC); NULL values are skipped.
	mk, _ = NewAccumulatorFunc(AggSpec{Fn: "string_agg", ArgTypes: []types.T{types.TText, types.TText}, T: types.TText,
		OrderBy: []OrderSpec{{T: types.TInt4, Desc: true}}, Retractable: true})
	acc = mk()
	s := types.DString
	acc.Add([]types.Datum{s("a"), s(","), types.DInt(1)})
	acc.Add([]types.Datum{s("c"), s(","), types.DInt(3)})
	acc.Add([]types.Datum{types.NullDatum, s(","), types.DInt(4)})
	acc.Add([]types.Datum{s("b"), s(";"), types.DInt(2)})
	if got := acc.Result().S; got != "c;b,a" {
		t.Fatalf("string_agg = %q", got)
	}
	acc.Retract([]types.Datum{s("c"), s(","), types.DInt(3)})
	if got := acc.Result().S; got != "b,a" {
		t.Fatalf("string_agg after retraction = %q", got)
	}
	mk, _ = NewAccumulatorFunc(AggSpec{Fn: "string_agg", ArgTypes: []types.T{types.TText, types.TText}, T: types.TText})
	if !mk().Result().Null {
		t.Fatal("string_agg over no rows is not NULL")
	}
	if _, err := NewAccumulatorFunc(AggSpec{Fn: "sum", ArgTypes: []types.T{types.TText}}); pgerr.CodeOf(err) != pgerr.UndefinedFunction {
		t.Fatalf("sum(text): %v", err)
	}
}

// TestSumNumericScaleAfterRetract: a numeric sum shows the largest scale
// of the values it holds now, as PostgreSQL's sum over them does, also
// after its state is written and read back.
func TestSumNumericScaleAfterRetract(t *testing.T) {
	num := func(s string) []types.Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return []types.Datum{types.DDecimal(d)}
	}
	for _, fn := range []string{"sum", "avg"} {
		mk, err := NewAccumulatorFunc(AggSpec{Fn: fn, ArgTypes: []types.T{types.TNumeric}, T: types.TNumeric, Retractable: true})
		if err != nil {
			t.Fatal(err)
		}
		a := mk()
		for _, v := range []string{"1.5000", "2", "0.25"} {
			if err := a.Add(num(v)); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Retract(num("1.5000")); err != nil {
			t.Fatal(err)
		}
		b := mk()
		if err := SetAccumulatorState(b, AppendAccumulatorState(nil, a)); err != nil {
			t.Fatal(err)
		}
		SetAccumulatorTail(b, AppendAccumulatorTail(nil, a, 1), 1)
		// PostgreSQL: sum(2, 0.25) = 2.25, avg = 1.12500000000000000000.
		want := map[string]string{"sum": "2.25", "avg": "1.12500000000000000000"}[fn]
		for _, acc := range []Accumulator{a, b} {
			if got := acc.Result().D.String(); got != want {
				t.Errorf("%s: got %s, want %s", fn, got, want)
			}
		}
		// State written before the tail existed (its tail reads NULL)
		// keeps the sum's own scale, as the build that wrote it showed.
		old := mk()
		if err := SetAccumulatorState(old, AppendAccumulatorState(nil, a)); err != nil {
			t.Fatal(err)
		}
		SetAccumulatorTail(old, types.Row{types.NullDatum}, 1)
		wantOld := map[string]string{"sum": "2.2500", "avg": "1.12500000000000000000"}[fn]
		if got := old.Result().D.String(); got != wantOld {
			t.Errorf("%s from a tail-less state: got %s, want %s", fn, got, wantOld)
		}
	}
}

func dec(s string) types.Datum {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return types.DDecimal(d)
}
