package durability

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weirdb/weir/tests/testenv"
)

// mviews are the materialized views of TestKillDuringDMLStream with their
// queries; after every restart each view must equal its query run as a
// batch query over the tables.
var mviews = []struct{ name, query string }{
	{"by_group", "SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM a GROUP BY g"},
	{"joined", "SELECT a.g, count(*) AS n, sum(a.v + b.w) AS s FROM a JOIN b ON a.g = b.g GROUP BY a.g"},
	{"top3", "SELECT id, v FROM a ORDER BY v DESC, id LIMIT 3"},
	{"on_view", "SELECT count(*) AS groups, sum(s) AS total FROM by_group"},
}

// writer owns the ids [base, base+span) of table a and keeps the model of
// what its acknowledged statements left there. The statement in flight
// when the server died may or may not have committed.
type writer struct {
	base, span int
	// simple sends the statements with the simple query protocol (as
	// psql does), the others with the extended one (as drivers do).
	simple bool
	acked  map[int]int // id → v of acknowledged rows
	// inflight is the statement not acknowledged when the server died:
	// id and the value it would leave (-1: deleted).
	inflightID, inflightV int
	inflight              bool
}

// step runs one random statement and updates the model when it is
// acknowledged. It returns the error of a statement that failed.
func (w *writer) step(ctx context.Context, conn *pgx.Conn, rng *rand.Rand) error {
	id := w.base + rng.IntN(w.span)
	_, exists := w.acked[id]
	var sql string
	var args []any
	newV := rng.IntN(1000)
	switch {
	case !exists:
		sql, args = "INSERT INTO a VALUES ($1, $2, $3)", []any{id, id % 7, newV}
	case rng.IntN(3) == 0:
		sql, args, newV = "DELETE FROM a WHERE id = $1", []any{id}, -1
	default:
		sql, args = "UPDATE a SET v = $2 WHERE id = $1", []any{id, newV}
	}
	w.inflight, w.inflightID, w.inflightV = true, id, newV
	if w.simple {
		args = append([]any{pgx.QueryExecModeSimpleProtocol}, args...)
	}
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return err
	}
	w.inflight = false
	if newV < 0 {
		delete(w.acked, id)
	} else {
		w.acked[id] = newV
	}
	return nil
}

// check compares the table's rows in the writer's range with the model.
func (w *writer) check(t *testing.T, got map[int]int) {
	t.Helper()
	for id := w.base; id < w.base+w.span; id++ {
		v, ok := got[id]
		want, wantOK := w.acked[id]
		if ok == wantOK && v == want {
			continue
		}
		if w.inflight && id == w.inflightID && ((w.inflightV < 0 && !ok) || (ok && v == w.inflightV)) {
			// The statement in flight at the kill committed.
			if ok {
				w.acked[id] = v
			} else {
				delete(w.acked, id)
			}
			continue
		}
		t.Fatalf("row %d after SIGKILL: present=%v v=%d, acknowledged state present=%v v=%d", id, ok, v, wantOK, want)
	}
	w.inflight = false
}

// TestKillDuringDMLStream SIGKILLs the server while writers run DML
// against tables read by materialized views (aggregates, a join, top-N,
// a view on a view): after each restart no acknowledged write is lost,
// none is applied twice, and every view equals its query over the
// tables.
func TestKillDuringDMLStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	target := testenv.Start(t, testenv.Options{})
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	conn := connect(t, ctx, target)
	exec1(t, ctx, conn, "CREATE TABLE a (id int PRIMARY KEY, g int, v int)")
	exec1(t, ctx, conn, "CREATE TABLE b (id int PRIMARY KEY, g int, w int)")
	exec1(t, ctx, conn, "INSERT INTO b SELECT i, i % 5, i * 3 FROM generate_series(1, 20) i")
	exec1(t, ctx, conn, "INSERT INTO a SELECT i, i % 7, i - 100000 FROM generate_series(100000, 100050) i")
	for _, mv := range mviews {
		exec1(t, ctx, conn, "CREATE MATERIALIZED VIEW "+mv.name+" AS "+mv.query)
	}
	conn.Close(ctx)
	writers := []*writer{{base: 0, span: 40}, {base: 1000, span: 40, simple: true}}
	for _, w := range writers {
		w.acked = map[int]int{}
	}
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		for i, w := range writers {
			wg.Add(1)
			wrng := rand.New(rand.NewPCG(seed, uint64(round*10+i+2)))
			c, err := pgx.Connect(ctx, target.ConnString())
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				defer wg.Done()
				defer c.Close(context.Background())
				for ctx.Err() == nil {
					if err := w.step(ctx, c, wrng); err != nil {
						// The server is gone (or the statement failed before
						// commit); the model keeps it in flight.
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		target.Kill()
		wg.Wait()
		target.Restart()
		got := tableA(t, ctx, target)
		for _, w := range writers {
			w.check(t, got)
		}
		checkViews(t, ctx, target)
	}
}

func tableA(t *testing.T, ctx context.Context, target testenv.Target) map[int]int {
	t.Helper()
	conn := connect(t, ctx, target)
	rs, err := conn.Query(ctx, "SELECT id, v FROM a WHERE id < 100000")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]int{}
	for rs.Next() {
		var id, v int
		if err := rs.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		got[id] = v
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkViews compares every view with its query run as a batch query.
func checkViews(t *testing.T, ctx context.Context, target testenv.Target) {
	t.Helper()
	conn := connect(t, ctx, target)
	for _, mv := range mviews {
		got, err := testenv.TextRows(ctx, conn, "SELECT * FROM "+mv.name)
		if err != nil {
			t.Fatalf("%s: %v", mv.name, err)
		}
		want, err := testenv.TextRows(ctx, conn, mv.query)
		if err != nil {
			t.Fatalf("%s query: %v", mv.name, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("view %s differs from its query after SIGKILL:\nview:  %v\nquery: %v", mv.name, got, want)
		}
	}
}
