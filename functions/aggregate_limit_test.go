package functions

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// An aggregate whose result would reach 1 GB fails with 54000 when the
// input that would take it there arrives, as PostgreSQL's buffers do,
// and takes inputs up to the limit.
func TestAggregateResultLimit(t *testing.T) {
	val := types.DString(strings.Repeat("x", 10))
	delim := types.DString(",")
	for _, c := range []struct {
		name string
		acc  func(have int64) Accumulator
		args []types.Datum
		msg  string
	}{
		{"string_agg", func(h int64) Accumulator { return &stringAggBuf{bytes: h} }, []types.Datum{val, delim}, "out of memory"},
		{"string_agg retractable", func(h int64) Accumulator { return &stringAggAcc{bytes: h} }, []types.Datum{val, delim}, "out of memory"},
		{"array_agg", func(h int64) Accumulator { return &arrayAggAcc{t: types.TText, bytes: h} }, []types.Datum{val}, "array size exceeds the maximum allowed (1073741823)"},
		{"json_agg", func(h int64) Accumulator { return &jsonbAggAcc{t: types.TText, json: true, bytes: h} }, []types.Datum{val}, "out of memory"},
	} {
		if err := c.acc(maxValueBytes - 20).Add(c.args); err != nil {
			t.Errorf("%s below the limit: %v", c.name, err)
		}
		err := c.acc(maxValueBytes - 10).Add(c.args)
		pe := pgerr.As(err)
		if err == nil || pe.Code != pgerr.ProgramLimitExceeded || pe.Message != c.msg {
			t.Errorf("%s at the limit: %v, want 54000 %q", c.name, err, c.msg)
		}
	}
	// Retracting gives the room back.
	a := &stringAggAcc{bytes: maxValueBytes - 20}
	if err := a.Add([]types.Datum{val, delim}); err != nil {
		t.Fatal(err)
	}
	if err := a.Retract([]types.Datum{val, delim}); err != nil || a.bytes != maxValueBytes-20 {
		t.Fatalf("retract: %v, %d bytes", err, a.bytes)
	}
}
