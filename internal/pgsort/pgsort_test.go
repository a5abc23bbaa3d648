package pgsort

import (
	"strconv"
	"strings"
	"testing"
)

// TestSortTies checks that rows with equal keys come out in the order
// PostgreSQL 15 gives them: the expected orders are the output of
// `SELECT i FROM generate_series(1, n) i ORDER BY key(i)` on a real
// server.
func TestSortTies(t *testing.T) {
	cases := []struct {
		n    int
		key  func(i int) int
		want string
	}{
		{9, func(i int) int { return i % 2 }, "6,4,8,2,1,9,3,5,7"},
		{50, func(i int) int { return i % 3 }, "18,39,45,21,36,9,24,15,48,27,42,3,30,6,12,33,31,1,13,37,40,43,16,46,7,49,34,19,4,22,25,10,28,50,2,5,8,11,14,17,20,23,26,29,32,35,38,41,44,47"},
		{200, func(i int) int { return i * 7919 % 10 }, "100,90,10,190,180,20,170,30,160,40,150,200,50,140,130,60,120,70,110,80,9,169,149,179,99,129,59,119,49,79,109,139,69,159,199,189,89,19,39,29,8,178,198,28,68,168,158,38,78,118,148,48,138,108,58,98,128,88,188,18,117,147,27,97,17,157,87,177,37,127,77,197,67,137,187,7,57,167,47,107,76,6,16,26,36,46,56,66,86,96,106,116,126,136,146,156,166,176,186,196,35,155,145,195,45,85,185,115,15,65,175,125,105,95,25,55,5,165,135,75,54,174,74,144,104,124,34,44,84,154,94,14,134,114,24,184,164,4,194,64,113,103,73,123,193,63,133,53,143,43,153,33,163,173,23,183,3,13,93,83,132,182,172,192,162,102,112,122,12,32,82,152,52,42,142,2,22,62,72,92,181,131,31,61,171,1,121,71,191,21,161,11,101,81,111,151,91,41,141,51"},
	}
	for _, c := range cases {
		xs := make([]int, c.n)
		for i := range xs {
			xs[i] = i + 1
		}
		Sort(len(xs), func(a, b int) int { return c.key(xs[a]) - c.key(xs[b]) },
			func(a, b int) { xs[a], xs[b] = xs[b], xs[a] })
		got := make([]string, len(xs))
		for i, x := range xs {
			got[i] = strconv.Itoa(x)
		}
		if g := strings.Join(got, ","); g != c.want {
			t.Errorf("n=%d:\n got %s\nwant %s", c.n, g, c.want)
		}
	}
}
