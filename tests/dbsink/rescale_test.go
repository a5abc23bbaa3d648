package dbsink

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestSinkRescale changes the parallelism of both decoupled sinks of a
// pipeline, down and up, while their target tables are locked, so that
// every change meets a backlog in every actor's log store and a
// transaction waiting on the lock. When the lock goes, the actors the
// sink no longer has are delivered for under their own progress rows,
// before anything newer: both target tables end equal to weir's, with no
// row written twice, and the progress table still holds one row per actor
// index that ever ran.
func TestSinkRescale(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, kind, startServer(t, kind))
			p := newPipeline(t, tg, "streaming_parallelism = 3")
			p.insert(500, 100)
			p.check()
			// Three actors' first deliveries into one progress table: no
			// deadlock (InnoDB's gap locks) nor any other error.
			if r := kafkatest.Query(t, p.conn, "SELECT operator, sqlstate, last_error FROM weir.stream_errors"); len(r) != 0 {
				t.Fatalf("weir.stream_errors after the first deliveries: %v", r)
			}
			for _, n := range []string{"1", "2"} {
				unlock := lockTargets(t, tg)
				p.insert(p.next+1000, 100)
				kafkatest.Eventually(t, time.Minute, "a backlog in the sinks' log stores", func() (bool, string) {
					r := kafkatest.Query(t, p.conn, "SELECT sum(lag_rows) FROM weir.sinks")
					return len(r) == 1 && r[0][0] != "0" && r[0][0] != kafkatest.Null, fmt.Sprint(r)
				})
				kafkatest.Exec(t, p.conn,
					"ALTER SINK rows_sink SET PARALLELISM = "+n,
					"ALTER SINK agg_sink SET PARALLELISM = "+n)
				p.insert(p.next+500, 100)
				unlock()
				p.insert(p.next+500, 100)
				p.check()
			}
			r := kafkatest.Query(t, p.conn, "SELECT name, parallelism FROM weir.jobs WHERE name LIKE '%sink' ORDER BY name")
			if got := fmt.Sprint(r); got != "[[agg_sink 2] [rows_sink 2]]" {
				t.Fatalf("weir.jobs: %s", got)
			}
			// A rescale stops actors on purpose: their cancelled writes
			// are not errors of the sink.
			if r := kafkatest.Query(t, p.conn, "SELECT operator, sqlstate, last_error FROM weir.stream_errors WHERE sqlstate = 'XX000'"); len(r) != 0 {
				t.Fatalf("weir.stream_errors after the rescales: %v", r)
			}
			if got, err := tg.rows("SELECT count(*) FROM weir_sink_progress"); err != nil || fmt.Sprint(got) != "[6]" {
				t.Fatalf("weir_sink_progress holds %v rows (%v), want one per sink and actor index (6)", got, err)
			}
		})
	}
}

// lockTargets locks both target tables of a pipeline against writes
// until the returned function is called.
func lockTargets(t *testing.T, tg *target) (unlock func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := tg.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lock, release := []string{"BEGIN", "LOCK TABLE rows_out, agg_out IN EXCLUSIVE MODE"}, "COMMIT"
	if tg.kind == "mysql" {
		lock, release = []string{"LOCK TABLES rows_out WRITE, agg_out WRITE"}, "UNLOCK TABLES"
	}
	for _, s := range lock {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %s: %v", tg.kind, s, err)
		}
	}
	done := false
	unlock = func() {
		if done {
			return
		}
		done = true
		if _, err := conn.ExecContext(ctx, release); err != nil {
			t.Errorf("%s: %s: %v", tg.kind, release, err)
		}
		conn.Close()
	}
	t.Cleanup(unlock)
	return unlock
}
