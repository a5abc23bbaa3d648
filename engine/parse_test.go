package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// A large statement whose parse is abandoned (its statement timed out,
// was cancelled or its client left) keeps its share of the parse gate
// until the parse ends, so abandoned parses cannot pile up; a statement
// waiting for the gate gives up when its own context ends.
func TestParseGateHoldsAbandonedParses(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT cardinality(ARRAY[")
	for i := range 400000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('1')
	}
	b.WriteString("])")
	big := b.String()
	g := &parseGate{capacity: int64(len(big)) * parseBytesPerTextByte}
	g.sem = semaphore.NewWeighted(g.capacity)

	ctx1, cancel1 := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := g.parse(ctx1, big)
		errc <- err
	}()
	// Wait until the parse holds the gate.
	for g.sem.TryAcquire(1) {
		g.sem.Release(1)
		time.Sleep(time.Millisecond)
	}
	cancel1()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled parse returned no error")
	}
	if g.sem.TryAcquire(1) {
		t.Fatal("the abandoned parse gave the gate back before it ended")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		_, err := g.parse(ctx2, big)
		errc <- err
	}()
	cancel2()
	if err := <-errc; err == nil {
		t.Fatal("a statement waiting for the gate did not give up with its context")
	}
	// Once the abandoned parse ends the whole gate is free again, and a
	// parse runs to its result.
	for !g.sem.TryAcquire(g.capacity) {
		time.Sleep(10 * time.Millisecond)
	}
	g.sem.Release(g.capacity)
	if _, err := g.parse(context.Background(), big); err != nil {
		t.Fatal(err)
	}
	if _, err := g.parse(context.Background(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
}
