package executor

import (
	"context"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/weirdb/weir/functions"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/types"
)

// TableFunc runs a set-returning function in FROM. Its arguments have no
// column references and are evaluated once, at the first Next; the rows
// are then generated lazily, a chunk at a time, so generate_series over a
// large range needs no memory. Supported (Postgres docs §9.25, §9.19):
//
//   - generate_series(start, stop [, step]) over integer and bigint (step
//     default 1), numeric (step default 1), and timestamp / timestamptz
//     with an interval step; a zero step is 22023 "step size cannot equal
//     zero"; a NULL argument gives no rows.
//   - unnest(text[]): one row per element.
//   - json[b]_array_elements[_text] and json[b]_object_keys
//     (functions.JSONSetElems), and json[b]_each[_text], of two columns
//     (functions.JSONEach).
type TableFunc struct {
	endState
	plan *planner.TableFunc
	ec   *ExecCtx
	gen  func() (types.Row, bool) // next row, false at the end
	ts   []types.T
	ord  int64 // rows generated, for WITH ORDINALITY
}

var _ Operator = (*TableFunc)(nil)

// NewTableFunc returns a TableFunc for p.
func NewTableFunc(p *planner.TableFunc, ec *ExecCtx) *TableFunc {
	return &TableFunc{plan: p, ec: ec, ts: p.Out.Types()}
}

// Next implements Operator.
func (f *TableFunc) Next(ctx context.Context) (*types.Chunk, error) {
	if f.done {
		return nil, f.err
	}
	return f.finish(f.next(ctx))
}

func (f *TableFunc) next(ctx context.Context) (*types.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.gen == nil {
		args := make([]types.Datum, len(f.plan.Args))
		for i, a := range f.plan.Args {
			d, err := evalConst(a, f.ec)
			if err != nil {
				return nil, err
			}
			args[i] = d
		}
		loc := time.UTC
		if f.ec.Eval.Location != nil {
			loc = f.ec.Eval.Location
		}
		gen, err := startRows(f.plan.Fn, args, exprTypes(f.plan.Args), loc, f.ec.Eval.Now)
		if err != nil {
			return nil, err
		}
		f.gen = gen
	}
	n := f.ec.chunkRows()
	c := types.NewChunk(f.ts, n)
	for c.Len() < n {
		row, ok := f.gen()
		if !ok {
			f.gen = func() (types.Row, bool) { return nil, false }
			break
		}
		if f.plan.Ordinality {
			f.ord++
			row = append(row[:len(row):len(row)], types.DInt(f.ord))
		}
		c.AppendRow(types.OpInsert, row)
	}
	if c.Len() == 0 {
		return nil, nil
	}
	return c, nil
}

// startRows starts table function fn over args: the functions of
// several columns (json[b]_each[_text]) here, the others by StartSRF.
func startRows(fn string, args []types.Datum, argTs []types.T, loc *time.Location, now int64) (func() (types.Row, bool), error) {
	if _, ok := functions.JSONEachFuncs[fn]; ok && len(args) == 1 {
		var rows []types.Row
		if !args[0].Null {
			var err error
			if rows, err = functions.JSONEach(fn, args[0].S); err != nil {
				return nil, err
			}
		}
		return func() (types.Row, bool) {
			if len(rows) == 0 {
				return nil, false
			}
			r := rows[0]
			rows = rows[1:]
			return r, true
		}, nil
	}
	gen, err := StartSRF(fn, args, argTs, loc, now)
	if err != nil {
		return nil, err
	}
	row := make(types.Row, 1)
	return func() (types.Row, bool) {
		d, ok := gen()
		row[0] = d
		return row, ok
	}, nil
}

var errZeroStep = pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")

func noRows() (types.Datum, bool) { return types.NullDatum, false }

// datumsOf returns a set-returning function's iterator over elems.
func datumsOf(elems []types.Datum) func() (types.Datum, bool) {
	i := 0
	return func() (types.Datum, bool) {
		if i >= len(elems) {
			return types.NullDatum, false
		}
		i++
		return elems[i-1], true
	}
}

// StartSRF starts the set-returning function fn over args (of types
// argTs): the returned function yields its values in order, then false.
// A NULL argument gives no rows (every SRF weir has is strict); loc is
// the session's time zone, for timestamptz series, and now the
// transaction's start time (functions.Context.Now), the date whose zone
// offset jsonb_path_query_tz gives a time of day.
func StartSRF(fn string, args []types.Datum, argTs []types.T, loc *time.Location, now int64) (func() (types.Datum, bool), error) {
	for _, a := range args {
		if a.Null {
			return noRows, nil
		}
	}
	switch fn {
	case "pg_partition_ancestors":
		return noRows, nil
	case "generate_series":
		if len(args) < 2 || len(args) > 3 {
			break
		}
		switch argTs[0].Family() {
		case types.FamInt:
			if argTs[0].ID == types.Timestamp || argTs[0].ID == types.Timestamptz {
				if len(args) != 3 {
					break
				}
				return seriesTime(args, argTs[0].ID == types.Timestamptz, loc)
			}
			return seriesInt(args)
		case types.FamDecimal:
			return seriesNumeric(args)
		}
	case "regexp_split_to_table":
		if len(args) == 2 || len(args) == 3 {
			flags := ""
			if len(args) == 3 {
				flags = args[2].S
			}
			parts, err := functions.RegexpSplit(args[0].S, args[1].S, flags, "regexp_split_to_table")
			if err != nil {
				return nil, err
			}
			i := 0
			return func() (types.Datum, bool) {
				if i >= len(parts) {
					return types.NullDatum, false
				}
				i++
				return types.DString(parts[i-1]), true
			}, nil
		}
	case "regexp_matches":
		if len(args) == 2 || len(args) == 3 {
			flags := ""
			if len(args) == 3 {
				flags = args[2].S
			}
			rows, err := functions.RegexpMatches(args[0].S, args[1].S, flags)
			if err != nil {
				return nil, err
			}
			return datumsOf(rows), nil
		}
	case "json_array_elements", "json_array_elements_text", "json_object_keys",
		"jsonb_array_elements", "jsonb_array_elements_text", "jsonb_object_keys":
		if len(args) == 1 {
			elems, err := functions.JSONSetElems(fn, args[0].S)
			if err != nil {
				return nil, err
			}
			return datumsOf(elems), nil
		}
	case "jsonb_path_query", "jsonb_path_query_tz":
		if len(args) >= 2 && len(args) <= 4 {
			// The time of day a time takes the session zone's offset at
			// (jsonb_path_query_tz comparing a time with a timetz).
			rows, err := functions.JSONPathQuery(args, fn == "jsonb_path_query_tz", loc, now)
			if err != nil {
				return nil, err
			}
			return datumsOf(rows), nil
		}
	case "unnest":
		if len(args) == 1 && argTs[0].IsArray() {
			elems, err := types.ArrayElems(args[0].S, argTs[0], nil)
			if err != nil {
				return nil, err
			}
			return datumsOf(elems), nil
		}
	}
	names := make([]string, len(argTs))
	for i, t := range argTs {
		names[i] = t.String()
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", fn, strings.Join(names, ", "))
}

func seriesInt(args []types.Datum) (func() (types.Datum, bool), error) {
	cur, stop, step := args[0].I, args[1].I, int64(1)
	if len(args) == 3 {
		step = args[2].I
	}
	if step == 0 {
		return nil, errZeroStep
	}
	done := false
	return func() (types.Datum, bool) {
		if done || (step > 0 && cur > stop) || (step < 0 && cur < stop) {
			return types.NullDatum, false
		}
		v := cur
		next, ok := functions.AddInt64(cur, step)
		// Stop rather than wrap around when the next value overflows.
		done = !ok
		cur = next
		return types.DInt(v), true
	}, nil
}

func seriesNumeric(args []types.Datum) (func() (types.Datum, bool), error) {
	cur := new(apd.Decimal).Set(args[0].D)
	stop := args[1].D
	step := apd.New(1, 0)
	if len(args) == 3 {
		step = args[2].D
	}
	if step.IsZero() {
		return nil, errZeroStep
	}
	if cur.Form != apd.Finite || stop.Form != apd.Finite || step.Form != apd.Finite {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "start, stop and step values cannot be NaN")
	}
	neg := step.Negative
	return func() (types.Datum, bool) {
		c := cur.Cmp(stop)
		if (!neg && c > 0) || (neg && c < 0) {
			return types.NullDatum, false
		}
		v := new(apd.Decimal).Set(cur)
		apd.BaseContext.Add(cur, cur, step)
		return types.DDecimal(v), true
	}, nil
}

func seriesTime(args []types.Datum, tz bool, loc *time.Location) (func() (types.Datum, bool), error) {
	cur, stop, step := args[0].I, args[1].I, args[2].Iv
	if !tz || loc == nil {
		loc = time.UTC
	}
	// Postgres orders intervals by their span with 30-day months.
	span := (int64(step.Months)*30+int64(step.Days))*86400_000_000 + step.Micros
	if span == 0 {
		return nil, errZeroStep
	}
	done := false
	return func() (types.Datum, bool) {
		if done || (span > 0 && cur > stop) || (span < 0 && cur < stop) {
			return types.NullDatum, false
		}
		v := cur
		next, ok := addIntervalToTimestamp(cur, step, loc)
		done = !ok
		cur = next
		return types.DInt(v), true
	}, nil
}

// addIntervalToTimestamp adds iv to ts (microseconds since the epoch) the
// way Postgres's timestamptz_pl_interval does in zone loc (UTC for a
// timestamp). It reports false for out-of-range results.
func addIntervalToTimestamp(ts int64, iv types.IntervalVal, loc *time.Location) (int64, bool) {
	us, err := functions.TstzPlusInterval(ts, iv, loc)
	return us, err == nil
}

// parseTextArrayDatums parses a one-dimensional text[] in Postgres's array text
// form, such as {a,"b c",NULL}, into its elements.
func parseTextArrayDatums(s string) ([]types.Datum, error) {
	bad := pgerr.New(pgerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", s)
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, bad
	}
	body := s[1 : len(s)-1]
	var out []types.Datum
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	i := 0
	for {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		var b strings.Builder
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return nil, bad
			}
			i++
		} else {
			for i < len(body) && body[i] != ',' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				b.WriteByte(body[i])
				i++
			}
		}
		v := b.String()
		if !quoted {
			v = strings.TrimRight(v, " ")
		}
		if !quoted && strings.EqualFold(v, "NULL") {
			out = append(out, types.NullDatum)
		} else {
			out = append(out, types.DString(v))
		}
		for i < len(body) && body[i] == ' ' {
			i++
		}
		if i == len(body) {
			return out, nil
		}
		if body[i] != ',' {
			return nil, bad
		}
		i++
	}
}

// Close implements Operator.
func (f *TableFunc) Close() {
	f.done = true
	f.gen = nil
}

// StartSRFAt is StartSRF with the first skip values already taken: a
// streaming ProjectSet resumes a call there after a restart, from the
// ordinal it committed. An integer generate_series starts at its
// skip-th value at once; other functions are run through their first
// skip values. A function that yields fewer than skip values yields
// none.
func StartSRFAt(fn string, args []types.Datum, argTs []types.T, loc *time.Location, now int64, skip int64) (func() (types.Datum, bool), error) {
	if skip > 0 && fn == "generate_series" && (len(args) == 2 || len(args) == 3) &&
		argTs[0].Family() == types.FamInt && argTs[0].ID != types.Timestamp && argTs[0].ID != types.Timestamptz &&
		!args[0].Null && !args[1].Null && (len(args) == 2 || !args[2].Null) {
		step := int64(1)
		if len(args) == 3 {
			step = args[2].I
		}
		if step == 0 {
			return nil, errZeroStep
		}
		// start + skip*step, unless that leaves the int64 range: then
		// the series ended before it (it stops rather than wraps).
		hi, lo := bits.Mul64(uint64(skip), uint64(abs64(step)))
		if hi != 0 || lo > math.MaxInt64 {
			return noRows, nil
		}
		off := int64(lo)
		if step < 0 {
			off = -off
		}
		start, ok := functions.AddInt64(args[0].I, off)
		if !ok {
			return noRows, nil
		}
		moved := append([]types.Datum{types.DInt(start)}, args[1:]...)
		return seriesInt(moved)
	}
	g, err := StartSRF(fn, args, argTs, loc, now)
	if err != nil {
		return nil, err
	}
	for range skip {
		if _, ok := g(); !ok {
			return noRows, nil
		}
	}
	return g, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
