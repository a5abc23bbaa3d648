package functions

import (
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// WindowPartition is one partition of a window function call, its rows
// in the call's window order: what a window-only function reads.
type WindowPartition struct {
	// Args[i] are row i's argument values.
	Args [][]types.Datum
	// PeerStart[i] and PeerEnd[i] bound row i's peer group (the rows
	// equal to it on the ORDER BY keys; every row without ORDER BY), and
	// Group[i] numbers it from 0.
	PeerStart, PeerEnd, Group []int
	// Frame appends to buf the rows of row i's frame that the frame
	// exclusion keeps, as ascending runs [a, b], and returns it. It is
	// set only for functions that read their frame (Overload.ReadsFrame).
	Frame func(i int, buf [][2]int) [][2]int
}

// WindowFunc is the implementation of a window-only function: it stores
// row i's value at out[i] (len(out) is the number of rows). It fails only
// with SQL errors (22014 for ntile, 22016 for nth_value arguments below
// one).
type WindowFunc func(p *WindowPartition, out []types.Datum) error

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

func rowNumber(p *WindowPartition, out []types.Datum) error {
	for i := range out {
		out[i] = types.DInt(int64(i + 1))
	}
	return nil
}

func rank(p *WindowPartition, out []types.Datum) error {
	for i := range out {
		out[i] = types.DInt(int64(p.PeerStart[i] + 1))
	}
	return nil
}

func denseRank(p *WindowPartition, out []types.Datum) error {
	for i := range out {
		out[i] = types.DInt(int64(p.Group[i] + 1))
	}
	return nil
}

func percentRank(p *WindowPartition, out []types.Datum) error {
	n := len(out)
	for i := range out {
		v := 0.0
		if n > 1 {
			v = float64(p.PeerStart[i]) / float64(n-1)
		}
		out[i] = types.DFloat(v)
	}
	return nil
}

func cumeDist(p *WindowPartition, out []types.Datum) error {
	for i := range out {
		out[i] = types.DFloat(float64(p.PeerEnd[i]+1) / float64(len(out)))
	}
	return nil
}

// ntile implements ntile(n): the partition's rows split into n buckets
// whose sizes differ by at most one, larger buckets first.
func ntile(p *WindowPartition, out []types.Datum) error {
	total := int64(len(out))
	for i := range out {
		a := p.Args[i][0]
		if a.Null {
			out[i] = types.NullDatum
			continue
		}
		if a.I <= 0 {
			return pgerr.New("22014", "argument of ntile must be greater than zero")
		}
		per, rem := total/a.I, total%a.I
		pos := int64(i)
		var bucket int64
		if big := rem * (per + 1); pos < big {
			bucket = pos/(per+1) + 1
		} else {
			bucket = rem + (pos-big)/max(per, 1) + 1
		}
		out[i] = types.DInt(bucket)
	}
	return nil
}

// offsetWindow is lag (dir -1) and lead (dir 1): the value offset rows
// away (1 by default), else the default (third argument) or NULL.
func offsetWindow(dir int64) WindowFunc {
	return func(p *WindowPartition, out []types.Datum) error {
		n := int64(len(out))
		for i := range out {
			args := p.Args[i]
			off := int64(1)
			if len(args) > 1 {
				if args[1].Null {
					out[i] = types.NullDatum
					continue
				}
				off = args[1].I
			}
			j := int64(i) + dir*off
			switch {
			case j >= 0 && j < n:
				out[i] = p.Args[j][0]
			case len(args) > 2:
				out[i] = args[2]
			default:
				out[i] = types.NullDatum
			}
		}
		return nil
	}
}

// frameValue is first_value, last_value or nth_value: pick returns the
// wanted row of row i's frame (its kept runs), -1 for none.
func frameValue(pick func(p *WindowPartition, i int, runs [][2]int) (int, error)) WindowFunc {
	return func(p *WindowPartition, out []types.Datum) error {
		var runs [][2]int
		for i := range out {
			runs = p.Frame(i, runs[:0])
			k, err := pick(p, i, runs)
			if err != nil {
				return err
			}
			if k < 0 {
				out[i] = types.NullDatum
			} else {
				out[i] = p.Args[k][0]
			}
		}
		return nil
	}
}

func firstValue(_ *WindowPartition, _ int, runs [][2]int) (int, error) { return nthKept(runs, 0), nil }

func lastValue(_ *WindowPartition, _ int, runs [][2]int) (int, error) {
	if len(runs) == 0 {
		return -1, nil
	}
	return runs[len(runs)-1][1], nil
}

func nthValue(p *WindowPartition, i int, runs [][2]int) (int, error) {
	nth := p.Args[i][1]
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
