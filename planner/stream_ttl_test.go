package planner

import (
	"strings"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql/catalog"
)

// TestStateTTLBounds checks state_ttl's parsing: an interval of fixed
// length (a bare number is seconds) in milliseconds, and 22023 with a
// hint naming the least TTL for one under a millisecond.
func TestStateTTLBounds(t *testing.T) {
	ttl := func(v string) (int64, error) {
		return StateTTL(&catalog.Relation{With: map[string]string{WithStateTTL: v}})
	}
	for v, want := range map[string]int64{"1 hour": 3_600_000, "3600": 3_600_000, "1 millisecond": 1} {
		if got, err := ttl(v); err != nil || got != want {
			t.Errorf("state_ttl %q: %d, %v; want %d", v, got, err, want)
		}
	}
	_, err := ttl("1 microsecond")
	if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.InvalidParameterValue || !strings.Contains(pe.Hint, "at least 1 millisecond") {
		t.Errorf("state_ttl '1 microsecond': %v, want 22023 with a hint naming 1 millisecond", pe)
	}
}
