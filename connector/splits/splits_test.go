package splits

import (
	"slices"
	"strings"
	"testing"
)

func TestResume(t *testing.T) {
	next, err := Resume(3, map[int32]int64{1: 7}, "row")
	if err != nil || !slices.Equal(next, []int64{0, 7, 2}) {
		t.Fatalf("Resume: %v, %v", next, err)
	}
	for _, c := range []struct {
		pos  map[int32]int64
		want string
	}{
		{map[int32]int64{1: 6}, "split 1 of 3 cannot resume at row 6"},
		{map[int32]int64{1: -2}, "cannot resume at row -2"},
		{map[int32]int64{5: 5}, "position for split 5, but the source has 3 splits"},
	} {
		if _, err := Resume(3, c.pos, "row"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resume(%v): %v, want %q", c.pos, err, c.want)
		}
	}
}
