package functions

import (
	"math"
	"testing"

	"github.com/weirdb/weir/types"
)

// TestSampleKeep: over 10,000 keys a sample keeps a share near its
// percentage (eight standard deviations at most), the same keys for the
// same seed, none at 0 and all at 100.
func TestSampleKeep(t *testing.T) {
	keys := make([][]byte, 10000)
	for i := range keys {
		keys[i] = types.AppendKey(nil, types.DInt(int64(i)), types.TInt4, false)
	}
	count := func(pct float32, seed uint64) (int, []bool) {
		n, kept := 0, make([]bool, len(keys))
		var buf []byte
		for i, k := range keys {
			kept[i], buf = SampleKeep(SampleLimit(pct), seed, k, buf)
			if kept[i] {
				n++
			}
		}
		return n, kept
	}
	for _, c := range []struct {
		pct  float32
		want int
	}{{1, 100}, {10, 1000}, {50, 5000}, {99.5, 9950}} {
		for _, seed := range []uint64{0, SampleSeed(1), SampleSeed(-2.5)} {
			if n, _ := count(c.pct, seed); n < c.want-400 || n > c.want+400 {
				t.Errorf("%v%% seed %x: %d of 10000", c.pct, seed, n)
			}
		}
	}
	if n, _ := count(0, 7); n != 0 {
		t.Errorf("0%%: %d", n)
	}
	if n, _ := count(100, 7); n != len(keys) {
		t.Errorf("100%%: %d", n)
	}
	_, a := count(30, SampleSeed(42))
	_, b := count(30, SampleSeed(42))
	_, c := count(30, SampleSeed(43))
	sameAB, sameAC := true, true
	for i := range a {
		sameAB = sameAB && a[i] == b[i]
		sameAC = sameAC && a[i] == c[i]
	}
	if !sameAB || sameAC {
		t.Errorf("seed 42 twice the same: %v; seeds 42 and 43 the same: %v", sameAB, sameAC)
	}
	if SampleSeed(0) != SampleSeed(math.Copysign(0, -1)) {
		t.Error("0 and -0 are different seeds")
	}
}
