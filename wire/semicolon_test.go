package wire

import (
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestAtSemicolon checks that a statement cut short by its semicolon
// reports the semicolon, as Postgres does, and that other errors pass
// through unchanged.
func TestAtSemicolon(t *testing.T) {
	eoi := pgerr.New(pgerr.SyntaxError, "syntax error at end of input").WithPosition(11)
	q := "SELECT 1; SELECT 1 + ;"
	pc := Piece{Text: "SELECT 1 +", Offset: 10}
	got := pgerr.As(atSemicolon(eoi, q, pc))
	if got.Message != `syntax error at or near ";"` || got.Position != 12 {
		t.Errorf("got %q at %d, want at or near \";\" at 12", got.Message, got.Position)
	}
	if got := pgerr.As(atSemicolon(eoi, "SELECT 1 +", Piece{Text: "SELECT 1 +"})); got.Message != "syntax error at end of input" || got.Position != 11 {
		t.Errorf("without a semicolon: got %q at %d", got.Message, got.Position)
	}
	other := pgerr.New(pgerr.SyntaxError, `syntax error at or near "FROM"`).WithPosition(3)
	if got := atSemicolon(other, q, pc); got != error(other) {
		t.Errorf("other errors must pass through, got %v", got)
	}
}
