package splits

import "fmt"

// Resume returns the next number of each of n splits: split s starts at
// s, or at its committed position in positions (keyed by split). unit
// names what is numbered ("event", "row") in errors. Errors: a position
// that does not belong to its split, or a position for a split beyond n
// (the source's split count changed).
func Resume(n int, positions map[int32]int64, unit string) ([]int64, error) {
	next := make([]int64, n)
	for s := range next {
		next[s] = int64(s)
		if p, ok := positions[int32(s)]; ok {
			if p < 0 || p%int64(n) != int64(s) {
				return nil, fmt.Errorf("split %d of %d cannot resume at %s %d", s, n, unit, p)
			}
			next[s] = p
		}
	}
	for p := range positions {
		if p < 0 || int(p) >= n {
			return nil, fmt.Errorf("a checkpoint has a position for split %d, but the source has %d splits", p, n)
		}
	}
	return next, nil
}
