package engine

import (
	"context"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/weirdb/weir/sql"

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
	// The first parse is held in the parser until the test lets it go,
	// as a parse of many megabytes is held there for seconds: the gate
	// must stay taken all that time, though its statement gave up.
	started, release := make(chan struct{}), make(chan struct{})
	g.parseText = func(ctx context.Context, text string) (sql.Stmt, error) {
		close(started)
		<-release
		return sql.ParseContext(ctx, text)
	}

	ctx1, cancel1 := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := g.parse(ctx1, big, nil)
		errc <- err
	}()
	<-started
	cancel1()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled parse returned no error")
	}
	if g.sem.TryAcquire(1) {
		t.Fatal("the abandoned parse gave the gate back before it ended")
	}
	g.parseText = nil // the parses below run as they do in the server
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		_, err := g.parse(ctx2, big, nil)
		errc <- err
	}()
	cancel2()
	if err := <-errc; err == nil {
		t.Fatal("a statement waiting for the gate did not give up with its context")
	}
	close(release)
	// Once the abandoned parse ends the whole gate is free again, and a
	// parse runs to its result.
	for !g.sem.TryAcquire(g.capacity) {
		time.Sleep(10 * time.Millisecond)
	}
	g.sem.Release(g.capacity)
	if _, err := g.parse(context.Background(), big, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := g.parse(context.Background(), "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
}

// A statement of megabytes borrows its parse estimate above the Go
// runtime's soft memory limit while it is parsed, bound and planned,
// and gives it back after: under a limit set from the memory budget, a
// parse live above the limit kept the collector running back to back
// (a million-element IN list took 39 s of CPU instead of 7).
func TestLargeStatementBorrowsAboveMemoryLimit(t *testing.T) {
	const base = 512 << 20
	old := debug.SetMemoryLimit(base)
	defer debug.SetMemoryLimit(old)
	var b strings.Builder
	b.WriteString("SELECT count(*) FROM generate_series(1, 10) g WHERE g IN (")
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(")")
	text := b.String()

	e := openTest(t, vfs.NewMem())
	s := session(t, e)
	var highest atomic.Int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			highest.Store(max(highest.Load(), debug.SetMemoryLimit(-1)))
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	wantRows(t, s, text, "10")
	close(stop)
	<-polled
	if got, want := highest.Load(), int64(base)+parseEstimate(text); got < want {
		t.Errorf("highest soft memory limit during the statement: %d, want at least %d (the base plus the parse estimate)", got, want)
	}
	if got := debug.SetMemoryLimit(-1); got != base {
		t.Errorf("soft memory limit after the statement: %d, want %d again", got, base)
	}
}
