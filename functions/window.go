package functions

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// WindowRows is one partition of a window function call, its rows in
// the call's window order, positioned at the row whose value a
// window-only function computes (the current row): what the function
// reads. The rows themselves may be on disk (a partition larger than
// work_mem), so reading one can fail.
type WindowRows interface {
	// Len is the number of rows in the partition, Row the current row's
	// place in it (from 0).
	Len() int
	Row() int
	// Args returns row j's argument values. The function reads the
	// current row's and, for lag, lead and the frame values, one other
	// row's per current row.
	Args(j int) ([]types.Datum, error)
	// PeerStart and PeerEnd bound the current row's peer group (the
	// rows equal to it on the ORDER BY keys; every row without ORDER
	// BY), and Group numbers it from 0.
	PeerStart() int
	PeerEnd() int
	Group() int
	// Frame appends to buf the rows of the current row's frame that the
	// frame exclusion keeps, as ascending runs [a, b], and returns it. Only
	// functions that read their frame (Overload.ReadsFrame) call it.
	Frame(buf [][2]int) ([][2]int, error)
}

// WindowFunc is the implementation of a window-only function: it
// returns the current row's value. It fails with SQL errors (22014 for
// ntile, 22016 for nth_value arguments below one) and with those of
// reading p.
type WindowFunc func(p WindowRows) (types.Datum, error)

// winOv returns a window-only overload implemented by impl.
func winOv(name string, ret types.TypeID, impl WindowFunc, args ...types.TypeID) *Overload {
	return &Overload{Name: name, Args: args, Ret: ret, Kind: WindowOnly, Window: impl}
}

// windowOverloads lists the window functions of docs §9.22 with their
// implementations. lag, lead, first_value, last_value and nth_value
// return their first argument's type; lag/lead's default (third
// argument) must have it too.
func windowOverloads() []*Overload {
	same := func(name string, impl WindowFunc, frame bool, args ...types.TypeID) *Overload {
		return &Overload{Name: name, Args: args, RetFn: sameAsArg(0), Kind: WindowOnly, NonStrict: true, Window: impl, ReadsFrame: frame}
	}
	lag, lead := offsetWindow(-1), offsetWindow(1)
	return []*Overload{
		winOv("row_number", tI8, rowNumber), winOv("rank", tI8, rank), winOv("dense_rank", tI8, denseRank),
		winOv("percent_rank", tF8, percentRank), winOv("cume_dist", tF8, cumeDist), winOv("ntile", tI4, ntile, tI4),
		same("lag", lag, false, tAny), same("lag", lag, false, tAny, tI4), same("lag", lag, false, tAny, tI4, tAny),
		same("lead", lead, false, tAny), same("lead", lead, false, tAny, tI4), same("lead", lead, false, tAny, tI4, tAny),
		same("first_value", frameValue(firstValue), true, tAny), same("last_value", frameValue(lastValue), true, tAny),
		same("nth_value", frameValue(nthValue), true, tAny, tI4),
	}
}

// WindowFunction returns the window-only function name (its overloads
// share one implementation), or nil when name is not one (an aggregate
// used OVER a window, say).
func WindowFunction(name string) *Overload {
	for _, o := range Overloads(name) {
		if o.Kind == WindowOnly && o.Window != nil {
			return o
		}
	}
	return nil
}

func rowNumber(p WindowRows) (types.Datum, error) { return types.DInt(int64(p.Row() + 1)), nil }

func rank(p WindowRows) (types.Datum, error) { return types.DInt(int64(p.PeerStart() + 1)), nil }

func denseRank(p WindowRows) (types.Datum, error) { return types.DInt(int64(p.Group() + 1)), nil }

func percentRank(p WindowRows) (types.Datum, error) {
	v := 0.0
	if n := p.Len(); n > 1 {
		v = float64(p.PeerStart()) / float64(n-1)
	}
	return types.DFloat(v), nil
}

func cumeDist(p WindowRows) (types.Datum, error) {
	return types.DFloat(float64(p.PeerEnd()+1) / float64(p.Len())), nil
}

// ntile implements ntile(n): the partition's rows split into n buckets
// whose sizes differ by at most one, larger buckets first. As in
// PostgreSQL, n is read once per partition, at its first row: rows
// before the first whose n is not NULL get NULL, and that row's n
// splits the whole partition's row count, counting from that row.
// (Finding that row reads the earlier rows' arguments again, which
// costs only where n is NULL.)
func ntile(p WindowRows) (types.Datum, error) {
	var a types.Datum
	first := 0
	for ; first <= p.Row(); first++ {
		args, err := p.Args(first)
		if err != nil {
			return types.NullDatum, err
		}
		if a = args[0]; !a.Null {
			break
		}
	}
	if a.Null {
		return types.NullDatum, nil
	}
	if a.I <= 0 {
		return types.NullDatum, pgerr.New("22014", "argument of ntile must be greater than zero")
	}
	total := int64(p.Len())
	per, rem := total/a.I, total%a.I
	pos := int64(p.Row() - first)
	var bucket int64
	if big := rem * (per + 1); pos < big {
		bucket = pos/(per+1) + 1
	} else {
		bucket = rem + (pos-big)/max(per, 1) + 1
	}
	return types.DInt(bucket), nil
}

// offsetWindow is lag (dir -1) and lead (dir 1): the value offset rows
// away (1 by default), else the default (third argument) or NULL.
func offsetWindow(dir int64) WindowFunc {
	return func(p WindowRows) (types.Datum, error) {
		args, err := p.Args(p.Row())
		if err != nil {
			return types.NullDatum, err
		}
		off := int64(1)
		if len(args) > 1 {
			if args[1].Null {
				return types.NullDatum, nil
			}
			off = args[1].I
		}
		// The offset may be any int4: j cannot overflow an int64.
		j := int64(p.Row()) + dir*off
		switch {
		case j >= 0 && j < int64(p.Len()):
			if j == int64(p.Row()) {
				return args[0], nil
			}
			other, err := p.Args(int(j))
			if err != nil {
				return types.NullDatum, err
			}
			return other[0], nil
		case len(args) > 2:
			return args[2], nil
		}
		return types.NullDatum, nil
	}
}

// frameValue is first_value, last_value or nth_value: pick returns the
// wanted row of the current row's frame (its kept runs), -1 for none.
func frameValue(pick func(p WindowRows, runs [][2]int) (int, error)) WindowFunc {
	return func(p WindowRows) (types.Datum, error) {
		// A frame is at most three runs (keptRuns).
		var buf [3][2]int
		runs, err := p.Frame(buf[:0])
		if err != nil {
			return types.NullDatum, err
		}
		k, err := pick(p, runs)
		if err != nil || k < 0 {
			return types.NullDatum, err
		}
		args, err := p.Args(k)
		if err != nil {
			return types.NullDatum, err
		}
		return args[0], nil
	}
}

func firstValue(_ WindowRows, runs [][2]int) (int, error) { return nthKept(runs, 0), nil }

func lastValue(_ WindowRows, runs [][2]int) (int, error) {
	if len(runs) == 0 {
		return -1, nil
	}
	return runs[len(runs)-1][1], nil
}

func nthValue(p WindowRows, runs [][2]int) (int, error) {
	args, err := p.Args(p.Row())
	if err != nil {
		return -1, err
	}
	nth := args[1]
	if nth.Null {
		return -1, nil
	}
	if nth.I <= 0 {
		return -1, pgerr.New("22016", "argument of nth_value must be greater than zero")
	}
	return nthKept(runs, nth.I-1), nil
}

// nthKept returns the row n places (from 0) after the first of runs, or
// -1 when the runs hold no more than n rows.
func nthKept(runs [][2]int, n int64) int {
	for _, r := range runs {
		if size := int64(r[1] - r[0] + 1); n >= size {
			n -= size
			continue
		}
		return r[0] + int(n)
	}
	return -1
}
