package stream

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/weirdb/weir/executor"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TestSourceWatermarkDirect checks which watermark expressions the
// source computes without the evaluator (sourceWatermarker.direct), and
// that those give every row the same fate (kept or late), the same
// watermarks and the same errors as the evaluator: rows of random times
// around the ends of the timestamp range (where the expression fails),
// infinities and NULLs, in random chunks of two partitions.
func TestSourceWatermarkDirect(t *testing.T) {
	iv := func(months, days int32, micros int64) *planner.Const {
		return &planner.Const{V: types.DInterval(types.IntervalVal{Months: months, Days: days, Micros: micros}), T: types.TInterval}
	}
	ts, tz := types.TTimestamp, types.TTimestamptz
	for _, c := range []struct {
		name   string
		t      types.T
		expr   planner.Expr
		direct bool
	}{
		{"ts", ts, rtCol(1, ts), true},
		{"ts - 4s", ts, call("-", ts, rtCol(1, ts), iv(0, 0, 4e6)), true},
		{"ts + 4s", ts, call("+", ts, rtCol(1, ts), iv(0, 0, 4e6)), true},
		{"4s + ts", ts, call("+", ts, iv(0, 0, 4e6), rtCol(1, ts)), true},
		{"ts - 1 mon 2 days 3s", ts, call("-", ts, rtCol(1, ts), iv(1, 2, 3e6)), true},
		{"tz - 4s", tz, call("-", tz, rtCol(1, tz), iv(0, 0, 4e6)), true},
		// A day in a time zone is not always 24 hours.
		{"tz - 1 day", tz, call("-", tz, rtCol(1, tz), iv(0, 1, 0)), false},
		{"ts - NULL", ts, call("-", ts, rtCol(1, ts), &planner.Const{V: types.NullDatum, T: types.TInterval}), false},
		// Another column than the watermark's.
		{"other - 4s", ts, call("-", ts, rtCol(2, ts), iv(0, 0, 4e6)), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := &planner.StreamSource{Watermark: &planner.SourceWatermark{Col: 1, T: c.t, Expr: c.expr}}
			newWM := func() (*sourceWatermarker, *ActorContext) {
				actx := &ActorContext{Errors: &errList{}, Eval: &executor.EvalCtx{Context: functions.Context{Location: time.UTC}}}
				sw, err := newSourceWatermarker(n, actx.Eval)
				if err != nil {
					t.Fatal(err)
				}
				return sw, actx
			}
			fast, fctx := newWM()
			if (fast.direct != nil) != c.direct {
				t.Fatalf("direct: %v, want %v", fast.direct != nil, c.direct)
			}
			if !c.direct {
				return
			}
			slow, sctx := newWM()
			slow.direct = nil
			lo, err := types.ParseText("4714-11-24 00:00:02 BC", types.TTimestamp, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			// The highest finite timestamp.
			hi := types.DInt(math.MaxInt64 - 1)
			mid := int64(1_700_000_000_000_000)
			rng := rand.New(rand.NewSource(1))
			// The times rise from the low end of the range (the first
			// rounds, before the partitions have a watermark) to the
			// high end (the last ones), where adding to them fails.
			value := func(round int) types.Datum {
				switch rng.Intn(8) {
				case 0:
					return types.NullDatum
				case 1:
					return types.DInt(math.MaxInt64)
				case 2:
					return types.DInt(math.MinInt64)
				}
				switch {
				case round < 50:
					return types.DInt(lo.I + rng.Int63n(8e6))
				case round < 150:
					return types.DInt(mid + rng.Int63n(60e6))
				}
				return types.DInt(hi.I - rng.Int63n(8e6))
			}
			now := time.Unix(1000, 0)
			positions := map[int32]int64{0: 0, 1: 0}
			for round := range 200 {
				n := 1 + rng.Intn(20)
				var cs [2]*types.Chunk
				parts := make([]int32, n)
				for k := range cs {
					cs[k] = types.NewChunk([]types.T{types.TText, c.t, c.t}, n)
				}
				rng2 := rand.New(rand.NewSource(int64(round)))
				for i := range n {
					row := types.Row{types.DString(fmt.Sprint(i)), value(round), value(round)}
					for k := range cs {
						cs[k].AppendRow(types.OpInsert, row)
					}
					parts[i] = int32(rng2.Intn(2))
				}
				fast.observe(fctx, cs[0], parts, positions, now)
				slow.observe(sctx, cs[1], parts, positions, now)
				for i := range n {
					if cs[0].Visible(i) != cs[1].Visible(i) {
						t.Fatalf("round %d row %d (%v): kept %v, want %v", round, i, cs[1].Row(i), cs[0].Visible(i), cs[1].Visible(i))
					}
				}
				if fast.has != slow.has || fast.cur != slow.cur || fast.late != slow.late {
					t.Fatalf("round %d: watermark %v %v (late %d), want %v %v (late %d)", round, fast.has, fast.cur, fast.late, slow.has, slow.cur, slow.late)
				}
				for p, pw := range slow.parts {
					if f := fast.parts[p]; f.has != pw.has || f.max != pw.max {
						t.Fatalf("round %d partition %d: %v %v, want %v %v", round, p, f.has, f.max, pw.has, pw.max)
					}
				}
			}
			fe, se := fctx.Errors.(*errList).errs, sctx.Errors.(*errList).errs
			if fmt.Sprint(fe) != fmt.Sprint(se) {
				t.Errorf("errors %d %.200v, want %d %.200v", len(fe), fe, len(se), se)
			}
			if _, identity := c.expr.(*planner.ColRef); !slow.has || len(se) == 0 && !identity {
				t.Errorf("the rows raise no watermark (%v) or no error (%d)", slow.has, len(se))
			}
		})
	}
}
