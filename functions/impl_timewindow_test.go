package functions

import (
	"math"
	"testing"
)

// TestWindowStart checks the floor alignment of WindowStart: boundaries,
// times before the alignment point, offsets of either sign and beyond
// the size, and the errors at the ends of the range.
func TestWindowStart(t *testing.T) {
	for _, c := range []struct {
		t, size, offset, want int64
		err                   bool
	}{
		{t: 0, size: 10, want: 0},
		{t: 9, size: 10, want: 0},
		{t: 10, size: 10, want: 10},
		{t: -1, size: 10, want: -10},
		{t: -10, size: 10, want: -10},
		{t: -11, size: 10, want: -20},
		{t: 5, size: 10, offset: 3, want: 3},
		{t: 2, size: 10, offset: 3, want: -7},
		{t: 2, size: 10, offset: -3, want: -3},
		{t: 2, size: 10, offset: 23, want: -7},
		{t: -2, size: 10, offset: -23, want: -3},
		{t: math.MaxInt64 - 5, size: 10, offset: math.MinInt64 + 1, want: 9223372036854775793}, // t - offset overflows int64
		{t: math.MaxInt64, size: 10, err: true},
		{t: math.MinInt64, size: 10, err: true},
		{t: minTS, size: 10, offset: 1, err: true},
	} {
		got, err := WindowStart(c.t, c.size, c.offset)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("WindowStart(%d, %d, %d) = %d, %v; want %d (error %v)", c.t, c.size, c.offset, got, err, c.want, c.err)
		}
	}
}

func TestHopFirst(t *testing.T) {
	h, err := NewHop(10, 30, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, want int64 }{{4, -16}, {13, -16}, {14, -6}, {-7, -36}} {
		got, err := h.First(c.t)
		if err != nil || got != c.want {
			t.Errorf("First(%d) = %d, %v; want %d", c.t, got, err, c.want)
		}
		// Every window First + k*Slide (k < N) holds t, the ones next to
		// them do not.
		for k := -1; k <= h.N; k++ {
			s := got + int64(k)*h.Slide
			in := s <= c.t && c.t < s+h.Size
			if in != (k >= 0 && k < h.N) {
				t.Errorf("t %d, window %d [%d, %d): holds %v", c.t, k, s, s+h.Size, in)
			}
		}
	}
	if _, err := h.First(math.MaxInt64 - 20); err == nil {
		t.Errorf("First near the end of the range: no error")
	}
	for _, p := range [][2]int64{{0, 10}, {10, 0}, {3, 10}, {-5, 10}} {
		if _, err := NewHop(p[0], p[1], 0); err == nil {
			t.Errorf("NewHop(%d, %d): no error", p[0], p[1])
		}
	}
}
