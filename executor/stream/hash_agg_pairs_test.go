package stream

import (
	"math/rand/v2"
	"testing"
)

// TestPairIndex checks pairIndex against a map through growth and
// resets, with keys that share either half (windows and the keys in
// them) and negative values.
func TestPairIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var p pairIndex
	for round := range 20 {
		want := map[[2]int64]int{}
		n := rng.IntN(3000)
		if round%4 == 3 {
			n = rng.IntN(10)
		}
		for i := range n {
			k := [2]int64{rng.Int64N(7)*2000000 - 4000000, rng.Int64N(500) - 100}
			if _, ok := want[k]; ok {
				continue
			}
			if _, ok := p.get(k); ok {
				t.Fatalf("round %d: %v found before it was put", round, k)
			}
			want[k] = i
			p.put(k, i)
		}
		for k, pos := range want {
			if got, ok := p.get(k); !ok || got != pos {
				t.Fatalf("round %d: %v at %d, %v; want %d", round, k, got, ok, pos)
			}
		}
		for range 100 {
			k := [2]int64{rng.Int64N(7)*2000000 - 4000000, 500 + rng.Int64N(100)}
			if _, ok := p.get(k); ok {
				t.Fatalf("round %d: %v found, never put", round, k)
			}
		}
		p.reset()
		for k := range want {
			if _, ok := p.get(k); ok {
				t.Fatalf("round %d: %v found after reset", round, k)
			}
		}
	}
}
