package functions

import (
	"math"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// This file holds the arithmetic of the time window functions TUMBLE and
// HOP (planner/bind_timewindow.go) and the scalar function
// tumble_start(time, size [, offset]) that TUMBLE binds to.
//
// Windows are aligned to 1970-01-01 00:00:00 (UTC for timestamptz) plus
// an offset: the window of size s holding time t starts at offset + k*s
// for the integer k with start <= t < start + s, found by floor division,
// so times before the alignment point fall into the window before it, not
// after. Sizes and offsets are microseconds; intervals count a day as 24
// hours and may not hold months.

var errWindowRange = pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")

// WindowStart returns the start of the window of size micros (> 0),
// aligned to offset micros after 1970-01-01 00:00:00, that contains t
// (micros since then). It fails with 22008 when t is infinite or the
// start lies outside the timestamp range.
func WindowStart(t, size, offset int64) (int64, error) {
	if IsInfinite(t) {
		return 0, errWindowRange
	}
	// (t - offset) mod size, without computing t - offset, which may
	// overflow.
	r := (t%size - offset%size) % size
	if r < 0 {
		r += size
	}
	if t-r > t || t-r < minTS {
		return 0, errWindowRange
	}
	return t - r, nil
}

// WindowTime returns a time column's value d (not NULL) of type t as
// microseconds since 1970-01-01 00:00:00: a timestamp or timestamptz as
// it is, a date as its midnight. Infinite values fail with 22008.
func WindowTime(d types.Datum, t types.T) (int64, error) {
	if IsInfinite(d.I) {
		return 0, errWindowRange
	}
	if t.ID == types.Date {
		ts, err := DateToTSChecked(d.I)
		if err != nil {
			return 0, errWindowRange
		}
		return ts, nil
	}
	return d.I, nil
}

// Hop computes the windows of HOP: windows Size long starting every
// Slide, aligned to Offset (all microseconds; Size is a positive multiple
// of Slide), so each time lies in N = Size/Slide windows.
type Hop struct {
	Slide, Size, Offset int64
	N                   int
}

// NewHop returns the Hop for the given parameters. It fails with 22023
// when they are not a positive slide and a positive multiple of it as
// size (the binder never produces such plans).
func NewHop(slide, size, offset int64) (Hop, error) {
	if slide <= 0 || size <= 0 || size%slide != 0 {
		return Hop{}, pgerr.New(pgerr.InvalidParameterValue, "window size of HOP must be a positive multiple of its slide")
	}
	return Hop{Slide: slide, Size: size, Offset: offset, N: int(size / slide)}, nil
}

// First returns the start of the earliest window holding time t; window
// k (0 <= k < N) starts at First + k*Slide and ends Size later. It fails
// with 22008 when a window boundary lies outside the timestamp range.
func (h Hop) First(t int64) (int64, error) {
	last, err := WindowStart(t, h.Slide, h.Offset)
	if err != nil {
		return 0, err
	}
	if last > math.MaxInt64-1-h.Size {
		return 0, errWindowRange
	}
	first := last - (h.Size - h.Slide)
	if first > last || first < minTS {
		return 0, errWindowRange
	}
	return first, nil
}

// Watermarks derives the watermarks of window_start and window_end from a
// watermark wm on the time column (micros): no later row has a time below
// wm, so none lands in a window starting before First(wm) or ending
// before First(wm) + Size. ok is false when the
// windows of wm are out of range.
func (h Hop) Watermarks(wm int64) (start, end int64, ok bool) {
	first, err := h.First(wm)
	if err != nil {
		return 0, 0, false
	}
	return first, first + h.Size, true
}

// windowInterval checks a tumble_start size or offset argument and returns
// it in microseconds (a day counting as 24 hours).
func windowInterval(iv types.IntervalVal, what string) (int64, error) {
	if iv.Months != 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "window %s must not contain months or years", what)
	}
	d := int64(iv.Days)
	if d > 100_000_000 || d < -100_000_000 {
		// More days than any timestamp spans; the product would overflow.
		return 0, pgerr.New(pgerr.InvalidParameterValue, "window %s is out of range", what)
	}
	v := d*MicrosPerDay + iv.Micros
	if (iv.Micros > 0 && v < d*MicrosPerDay) || (iv.Micros < 0 && v > d*MicrosPerDay) {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "window %s is out of range", what)
	}
	return v, nil
}

// timeWindowOverloads lists tumble_start(time, size [, offset]), the
// window start that TUMBLE in FROM computes for each row.
func timeWindowOverloads() []*Overload {
	var os []*Overload
	// tumble_start(time, size [, offset]): the start of the tumbling
	// window holding time; a date is taken at midnight and yields a
	// timestamp.
	tumbleStartImpl := func(args []types.T, _ types.T) (Impl, bool) {
		tt := args[0]
		return Impl{Row: func(_ *Context, d []types.Datum) (types.Datum, error) {
			size, err := windowInterval(d[1].Iv, "size")
			if err != nil {
				return types.NullDatum, err
			}
			if size <= 0 {
				return types.NullDatum, pgerr.New(pgerr.InvalidParameterValue, "window size must be greater than zero")
			}
			var offset int64
			if len(d) > 2 {
				if offset, err = windowInterval(d[2].Iv, "offset"); err != nil {
					return types.NullDatum, err
				}
			}
			t, err := WindowTime(d[0], tt)
			if err != nil {
				return types.NullDatum, err
			}
			return resultInt(WindowStart(t, size, offset))
		}}, true
	}
	os = append(os, fn("tumble_start", tumbleStartImpl, tTS, tTS, tIv),
		fn("tumble_start", tumbleStartImpl, tTS, tTS, tIv, tIv),
		fn("tumble_start", tumbleStartImpl, tTSTZ, tTSTZ, tIv),
		fn("tumble_start", tumbleStartImpl, tTSTZ, tTSTZ, tIv, tIv),
		fn("tumble_start", tumbleStartImpl, tTS, tDate, tIv),
		fn("tumble_start", tumbleStartImpl, tTS, tDate, tIv, tIv))
	return os
}

func resultInt(v int64, err error) (types.Datum, error) {
	if err != nil {
		return types.NullDatum, err
	}
	return types.DInt(v), nil
}
