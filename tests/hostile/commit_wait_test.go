package hostile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/testenv"
)

// TestCancelDuringCheckpointWait: a statement whose writes are applied
// and wait for their checkpoint (held here by the recovery hold point)
// has passed its commit point, and its writes are not durable before the
// checkpoint commits. pg_cancel_backend then does not end the wait: the
// statement completes, with its rows counted and no WARNING, once the
// checkpoint has committed (a reply before would acknowledge writes a
// crash could lose). pg_terminate_backend sends a WARNING with 57P01 and
// closes the connection without a completion. Once the checkpoint
// commits, every row is there exactly once: a client that retried after
// a 57014 used to duplicate them.
func TestCancelDuringCheckpointWait(t *testing.T) {
	release := filepath.Join(t.TempDir(), "release")
	srv := testenv.Start(t, testenv.Options{ReadyTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin := connectHold(t, ctx, srv)
	if _, err := admin.Exec(ctx, "CREATE TABLE big (g bigint, p text)"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	srv.SetEnv("WEIR_FAULT=" + fault.RecoveryBeforeInitialBarrier + "@" + release)
	srv.Restart()
	admin = connectHold(t, ctx, srv)
	defer func() { admin.Close(ctx) }()

	// connectWarnings connects, collecting the WARNINGs the server sends.
	connectWarnings := func() (*pgx.Conn, func() []*pgconn.Notice) {
		cfg, err := pgx.ParseConfig(srv.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var got []*pgconn.Notice
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			mu.Lock()
			got = append(got, n)
			mu.Unlock()
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c, func() []*pgconn.Notice {
			mu.Lock()
			defer mu.Unlock()
			return append([]*pgconn.Notice(nil), got...)
		}
	}
	// waiting returns once pid waits for its checkpoint.
	waiting := func(pid uint32) {
		for {
			var ev string
			if err := admin.QueryRow(ctx, "SELECT coalesce(wait_event, '') FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&ev); err != nil {
				t.Fatal(err)
			}
			if ev == "CheckpointDone" {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// A cancel: the statement waits on.
	c1, warnings1 := connectWarnings()
	defer c1.Close(ctx)
	type outcome struct {
		tag pgconn.CommandTag
		err error
	}
	done1 := make(chan outcome, 1)
	go func() {
		tag, err := c1.Exec(ctx, "INSERT INTO big SELECT g, 'pad' FROM generate_series(1, 30000) g")
		done1 <- outcome{tag, err}
	}()
	waiting(c1.PgConn().PID())
	var ok bool
	if err := admin.QueryRow(ctx, "SELECT pg_cancel_backend($1)", int32(c1.PgConn().PID())).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend: %v, %v", ok, err)
	}
	select {
	case got := <-done1:
		t.Fatalf("INSERT cancelled while its checkpoint is held returned %q, %v; want it to wait for the checkpoint", got.tag, got.err)
	case <-time.After(500 * time.Millisecond):
	}
	waiting(c1.PgConn().PID())

	// A terminate: the WARNING with 57P01, then the connection closes.
	c2, warnings2 := connectWarnings()
	pid2 := c2.PgConn().PID()
	done2 := make(chan outcome, 1)
	go func() {
		tag, err := c2.Exec(ctx, "INSERT INTO big VALUES (0, 'terminated')")
		done2 <- outcome{tag, err}
	}()
	waiting(pid2)
	if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int32(pid2)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v, %v", ok, err)
	}
	got := <-done2
	var pe *pgconn.PgError
	if got.err == nil || errors.As(got.err, &pe) {
		t.Fatalf("INSERT terminated while waiting: %q, %v; want the connection closed with no reply", got.tag, got.err)
	}
	w := warnings2()
	if len(w) != 1 || w[0].Code != "57P01" || !strings.Contains(w[0].Message, "terminating connection") {
		t.Fatalf("notices %+v, want the WARNING 57P01", w)
	}
	c2.Close(ctx)

	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The cancelled INSERT completes once its checkpoint has committed.
	got = <-done1
	if got.err != nil || got.tag.String() != "INSERT 0 30000" {
		t.Fatalf("INSERT cancelled while waiting for its checkpoint: %q, %v; want INSERT 0 30000 once it committed", got.tag, got.err)
	}
	if w := warnings1(); len(w) != 0 {
		t.Fatalf("notices %+v, want none", w)
	}
	// A statement of the epoch after theirs returns once theirs has
	// committed.
	if _, err := admin.Exec(ctx, "INSERT INTO big VALUES (-1, 'after')"); err != nil {
		t.Fatal(err)
	}
	var n, distinct int64
	if err := admin.QueryRow(ctx, "SELECT count(*), count(DISTINCT g) FROM big").Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 30002 || distinct != 30002 {
		t.Fatalf("big holds %d rows (%d distinct), want 30002 once each", n, distinct)
	}
}
