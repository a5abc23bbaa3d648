package wire

import "testing"

// TestRuneCounter: counting on from the last offset gives the same
// character offsets as counting from the start of the string, for
// increasing offsets, a repeated one and one that goes back.
func TestRuneCounter(t *testing.T) {
	q := "SELECT 'é'; SELECT '日本'; SELECT 1;"
	var r runeCounter
	for _, off := range []int{0, 7, 13, 13, 20, 30, len(q), len(q) + 5, 4} {
		if got, want := r.at(q, off), runeOffset(q, off); got != want {
			t.Errorf("at(%d) = %d, want %d", off, got, want)
		}
	}
}
