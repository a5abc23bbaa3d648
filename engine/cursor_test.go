package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestFetchCancelledStopsQuery: a FETCH whose context ends while the
// cursor's query runs (a cancel request, a timeout, a client gone) stops
// the query with it instead of leaving it running, and the cursor's
// block can still be rolled back and the session used.
func TestFetchCancelledStopsQuery(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE pb (k int PRIMARY KEY, v text)")
	mustRun(t, s, "INSERT INTO pb SELECT g, 'v' || g FROM generate_series(1, 10) g")
	mustRun(t, s, "BEGIN")
	// Ten rows times a billion: the join's first rows come only after
	// it has read the whole series, which no test waits for.
	mustRun(t, s, "DECLARE e CURSOR FOR SELECT k FROM pb, generate_series(1, 1000000000) g WHERE g = 0")
	ctx, cancel := context.WithCancelCause(context.Background())
	p, err := s.Prepare(ctx, "FETCH 2 e", nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel(pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request"))
	}()
	done := make(chan error, 1)
	go func() {
		r, err := p.Execute(ctx, nil, &testIO{})
		if err == nil {
			_, err = r.Next(ctx)
			r.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.QueryCanceled {
			t.Fatalf("cancelled FETCH: got %v, want 57014", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the cancelled FETCH still runs")
	}
	mustRun(t, s, "ROLLBACK")
	wantRows(t, s, "SELECT count(*) FROM pb", "10")
}
