package engine

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/weirdb/weir/internal/pgerr"
)

// TestDropMViewDuringRecovery drops a view while the recovery at start
// has rebuilt its job but not yet reported it to the checkpoint
// coordinator (the hold point before the Initial barrier). The job is
// running, yet the coordinator does not know it: the DROP must wait for
// it to be registered, honouring statement_timeout meanwhile, and then
// work; it must never fail with the coordinator's "no such job".
func TestDropMViewDuringRecovery(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	s := session(t, e)
	mustRun(t, s, "CREATE TABLE t (a int PRIMARY KEY, b int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 1), (2, 1)")
	mustRun(t, s, "CREATE MATERIALIZED VIEW v AS SELECT b, count(*) AS c FROM t GROUP BY b")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	release := make(chan struct{})
	reached := make(chan struct{}, 1)
	prev := holdBeforeInitialBarrier
	holdBeforeInitialBarrier = func(ctx context.Context) error {
		select {
		case reached <- struct{}{}:
		default:
		}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { holdBeforeInitialBarrier = prev }()
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()

	e = openTest(t, fs)
	defer e.Close()
	<-reached
	s = session(t, e)
	// Held: the DROP waits for the job's registration until its timeout.
	mustRun(t, s, "SET statement_timeout = 100")
	wantCode(t, s, "DROP MATERIALIZED VIEW v", pgerr.QueryCanceled, "canceling statement due to statement timeout")
	mustRun(t, s, "RESET statement_timeout")
	wantRows(t, s, "SELECT count(*) FROM pg_matviews WHERE matviewname = 'v'", "1")

	// A DROP waiting without a timeout goes through once released.
	done := make(chan error, 1)
	s2 := session(t, e)
	go func() {
		_, err := run(t, s2, "DROP MATERIALIZED VIEW v")
		done <- err
	}()
	close(release)
	released = true
	if err := <-done; err != nil {
		t.Fatalf("DROP MATERIALIZED VIEW v: %v", err)
	}
	wantRows(t, s, "SELECT count(*) FROM pg_matviews WHERE matviewname = 'v'", "0")
	mustRun(t, s, "INSERT INTO t VALUES (3, 2)")
	wantRows(t, s, "SELECT count(*) FROM t", "3")
}
