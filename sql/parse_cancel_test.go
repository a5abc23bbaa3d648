package sql

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weirdb/weir/internal/pgerr"
)

// endAfter is a context that ends once its Err has been asked more than
// n times: a statement_timeout that comes while the parse is under way.
type endAfter struct {
	context.Context
	n     int64
	asked atomic.Int64
}

func (c *endAfter) Err() error {
	if c.asked.Add(1) > c.n {
		return context.Canceled
	}
	return nil
}

// inList is SELECT 1 IN (1, 1, ...) with n items.
func inList(n int) string {
	return "SELECT 1 IN (" + strings.Repeat("1, ", n-1) + "1)"
}

// TestParseContextCancelsMidLex checks that a parse whose context ends
// while the lexer is under way stops there with 57014, both on the
// streamed nesting pass of a large statement and on a small one's Lex,
// and that the same statements parse whole while the context lasts.
func TestParseContextCancelsMidLex(t *testing.T) {
	for _, text := range []string{inList(200_000), inList(5_000)} {
		if _, err := ParseContext(context.Background(), text); err != nil {
			t.Fatalf("%d bytes: %v", len(text), err)
		}
		for _, n := range []int64{0, 1} {
			ctx := &endAfter{Context: context.Background(), n: n}
			_, err := ParseContext(ctx, text)
			if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.QueryCanceled {
				t.Fatalf("%d bytes, ends after %d looks: got %v, want 57014", len(text), n, err)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%d bytes: %v does not wrap the context's cause", len(text), err)
			}
		}
	}
}

// TestParseContextCancelsBeforeBridge checks that a context ending
// after the lexer is done stops the parse before the bridge hands the
// statement to the TiDB parser.
func TestParseContextCancelsBeforeBridge(t *testing.T) {
	text := inList(5_000) // ~15 KB: one look during Lex
	probe := &endAfter{Context: context.Background(), n: 1 << 40}
	if _, err := ParseContext(probe, text); err != nil {
		t.Fatal(err)
	}
	looks := probe.asked.Load()
	// Let every look the lexer takes pass, fail the ones after.
	lexLooks := int64(len(text)/4/cancelEvery) + 1
	if looks <= lexLooks {
		t.Fatalf("a whole parse looked at its context %d times, the lexer alone may take %d", looks, lexLooks)
	}
	for n := lexLooks; n < looks; n++ {
		ctx := &endAfter{Context: context.Background(), n: n}
		_, err := ParseContext(ctx, text)
		if pe := pgerr.As(err); pe == nil || pe.Code != pgerr.QueryCanceled {
			t.Fatalf("ends after %d of %d looks: got %v, want 57014", n, looks, err)
		}
	}
}
