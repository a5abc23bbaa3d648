package dbsink

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// target is a database a sink writes into, seen by the test through
// database/sql: one database per test of a shared server.
type target struct {
	kind string // "postgres" or "mysql"
	db   *sql.DB
	// with is the sink's connection options, as WITH (...) text.
	with string
}

// server is a database server started by a test: PostgreSQL or
// MariaDB.
type server interface {
	Exec(t testing.TB, stmts ...string)
	Addr() string
	Port() int
}

// startServer starts a server of kind for the test (and its subtests).
func startServer(t *testing.T, kind string) server {
	t.Helper()
	if kind == "mysql" {
		return testenv.StartMariaDB(t)
	}
	return testenv.StartPostgres(t)
}

var dbCount struct {
	sync.Mutex
	n int
}

// newTarget returns a fresh database on srv, a server of kind.
func newTarget(t testing.TB, kind string, srv server) *target {
	t.Helper()
	dbCount.Lock()
	dbCount.n++
	name := fmt.Sprintf("sink%d", dbCount.n)
	dbCount.Unlock()
	srv.Exec(t, "CREATE DATABASE "+name)
	var tg *target
	switch kind {
	case "postgres":
		db, err := sql.Open("pgx", fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", srv.Addr(), name))
		if err != nil {
			t.Fatal(err)
		}
		tg = &target{kind: kind, db: db, with: fmt.Sprintf("connector = 'postgres', host = '127.0.0.1', port = '%d', user = 'postgres', password = 'secret-pw', database = '%s'", srv.Port(), name)}
	case "mysql":
		db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s", srv.Addr(), name))
		if err != nil {
			t.Fatal(err)
		}
		tg = &target{kind: kind, db: db, with: fmt.Sprintf("connector = 'mysql', url = 'mysql://root:secret-pw@%s/%s'", srv.Addr(), name)}
	}
	t.Cleanup(func() { tg.db.Close() })
	return tg
}

// exec runs statements on the target.
func (tg *target) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := tg.db.Exec(s); err != nil {
			t.Fatalf("%s: %s: %v", tg.kind, s, err)
		}
	}
}

// rows returns q's rows on the target, each as its values joined by
// "|", sorted.
func (tg *target) rows(q string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := tg.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			parts[i] = v.String
			if !v.Valid {
				parts[i] = kafkatest.Null
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	slices.Sort(out)
	return out, rs.Err()
}

// weirRows returns q's rows on weir like target.rows.
func weirRows(conn, q string) ([]string, error) {
	rows, err := kafkatest.QueryErr(conn, q)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	slices.Sort(out)
	return out, nil
}

// duplicates returns the values that occur more than once in sorted.
func duplicates(sorted []string) []string {
	var d []string
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] && (len(d) == 0 || d[len(d)-1] != sorted[i]) {
			d = append(d, sorted[i])
		}
	}
	return d
}

// waitEqual waits until the target's rows of tq equal weir's of wq, and
// fails at once when the target holds a row twice (noDup) or more rows
// than weir.
func waitEqual(t *testing.T, tg *target, tq, conn, wq string, noDup bool) {
	t.Helper()
	kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("%s: %s equal to weir's %s", tg.kind, tq, wq), func() (bool, string) {
		got, err := tg.rows(tq)
		if err != nil {
			return false, err.Error()
		}
		if noDup {
			if d := duplicates(got); len(d) > 0 {
				t.Fatalf("%s: %s holds %d rows, some twice: %v", tg.kind, tq, len(got), d[:min(len(d), 5)])
			}
		}
		want, err := weirRows(conn, wq)
		if err != nil {
			return false, err.Error()
		}
		if noDup && len(got) > len(want) {
			t.Fatalf("%s: %s holds %d rows, weir's %s %d", tg.kind, tq, len(got), wq, len(want))
		}
		return slices.Equal(got, want), fmt.Sprintf("%d rows in the target, %d in weir", len(got), len(want))
	})
}

// waitFault waits for the running weir to die at the armed point.
func waitFault(t *testing.T, w *testenv.Server, point string, before int) {
	t.Helper()
	exit, err := w.WaitExit(2 * time.Minute)
	if err != nil {
		t.Fatalf("weir did not die at fault point %s: %v\nlog:\n%s", point, err, w.Tail(3000))
	}
	if !exit.Killed() || kafkatest.CountInLog(w.LogPath, kafkatest.FaultLine(point)) <= before {
		t.Fatalf("weir ended (%v) without reaching fault point %s\nlog:\n%s", exit, point, w.Tail(3000))
	}
}

// armed is the WEIR_FAULT entry of point's n-th hit.
func armed(point string, n int) string { return fmt.Sprintf("%s=%s:%d", fault.EnvVar, point, n) }
