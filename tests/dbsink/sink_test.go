// Package dbsink holds the end-to-end tests of the sinks into PostgreSQL
// and MySQL/MariaDB (connector/sqlsink): real weir processes writing to
// real database servers started by the tests, SIGKILLed at the fault
// points of the exactly-once protocol and at random.
package dbsink

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// kinds are the target kinds every test runs against.
var kinds = []string{"postgres", "mysql"}

// targetDDL creates the two target tables of a pipeline: rows_out (the
// PLAIN sink of the table, no key, so a row written twice shows) and
// agg_out (the UPSERT sink of the view).
func targetDDL(kind string) []string {
	if kind == "mysql" {
		return []string{
			"CREATE TABLE rows_out (id BIGINT NOT NULL, k INT, v BIGINT)",
			"CREATE TABLE agg_out (k INT PRIMARY KEY, n BIGINT, s DECIMAL(38, 0))",
		}
	}
	return []string{
		"CREATE TABLE rows_out (id bigint NOT NULL, k integer, v bigint)",
		"CREATE TABLE agg_out (k integer PRIMARY KEY, n bigint, s numeric)",
	}
}

// pipeline is weir with a table rows_in (id, k, v), a view agg over it
// and two sinks into tg: rows_out (PLAIN, the table) and agg_out
// (UPSERT, the view).
type pipeline struct {
	t    *testing.T
	w    *testenv.Server
	tg   *target
	conn string
	next int // the next id to insert
}

// newPipeline starts weir and creates the pipeline into tg; extra are
// more sink options.
func newPipeline(t *testing.T, tg *target, extra ...string) *pipeline {
	t.Helper()
	tg.exec(t, targetDDL(tg.kind)...)
	w := testenv.Start(t, testenv.Options{})
	p := &pipeline{t: t, w: w, tg: tg, conn: w.ConnString()}
	opts := tg.with
	if len(extra) > 0 {
		opts += ", " + strings.Join(extra, ", ")
	}
	kafkatest.Exec(t, p.conn,
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		"CREATE TABLE rows_in (id bigint, k int, v bigint) APPEND ONLY",
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM rows_in GROUP BY k",
		fmt.Sprintf("CREATE SINK rows_sink FROM rows_in WITH (%s, table = 'rows_out') FORMAT PLAIN", opts),
		fmt.Sprintf("CREATE SINK agg_sink FROM agg WITH (%s, table = 'agg_out', primary_key = 'k') FORMAT UPSERT", opts),
	)
	return p
}

// batch is the INSERT of ids [from, to): k = id % 17, v = id * 3.
func batch(from, to int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO rows_in VALUES ")
	for i := from; i < to; i++ {
		if i > from {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %d)", i, i%17, i*3)
	}
	return b.String()
}

// insert inserts ids [p.next, to) in batches of size.
func (p *pipeline) insert(to, size int) {
	p.t.Helper()
	for p.next < to {
		end := min(p.next+size, to)
		kafkatest.Exec(p.t, p.conn, batch(p.next, end))
		p.next = end
	}
}

// insertUntilDown inserts batches of size from p.next until an INSERT
// fails (weir died) or to is reached. A failed batch may or may not have
// committed: resync tells after the restart.
func (p *pipeline) insertUntilDown(to, size int) {
	for p.next < to {
		end := min(p.next+size, to)
		if _, err := kafkatest.QueryErr(p.conn, batch(p.next, end)); err != nil {
			return
		}
		p.next = end
	}
}

// resync sets p.next after the last id weir holds, once it runs again:
// a batch whose INSERT failed with the crash either committed whole or
// not at all.
func (p *pipeline) resync() {
	p.t.Helper()
	r := kafkatest.Query(p.t, p.conn, "SELECT coalesce(max(id) + 1, 0), count(*), count(DISTINCT id) FROM rows_in")
	if r[0][1] != r[0][2] {
		p.t.Fatalf("rows_in holds %s rows but %s ids", r[0][1], r[0][2])
	}
	fmt.Sscan(r[0][0], &p.next)
}

// check waits until both target tables equal what weir holds: rows_out
// the table's rows, each once, and agg_out the view.
func (p *pipeline) check() {
	p.t.Helper()
	waitEqual(p.t, p.tg, "SELECT id, k, v FROM rows_out", p.conn, "SELECT id, k, v FROM rows_in", true)
	waitEqual(p.t, p.tg, "SELECT k, n, s FROM agg_out", p.conn, "SELECT k, n, s FROM agg", true)
	r := kafkatest.Query(p.t, p.conn, "SELECT count(*) FROM rows_in")
	p.t.Logf("%s: both target tables equal weir's (%s rows)", p.tg.kind, r[0][0])
}

// TestSinkDelivers streams inserts through both sinks of each kind and
// checks the target tables, then that SHOW CREATE SINK and weir's
// views never show the password.
func TestSinkDelivers(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, kind)
			tg := newTarget(t, kind, srv)
			p := newPipeline(t, tg)
			p.insert(3000, 500)
			p.check()
			for _, q := range []string{"SHOW CREATE SINK rows_sink", "SELECT * FROM weir.sinks", "SELECT * FROM weir.jobs"} {
				rows := kafkatest.Query(t, p.conn, q)
				if s := fmt.Sprint(rows); strings.Contains(s, "secret-pw") {
					t.Fatalf("%s shows the password: %s", q, s)
				}
			}
			def := kafkatest.Query(t, p.conn, "SHOW CREATE SINK agg_sink")
			if s := fmt.Sprint(def); !strings.Contains(s, "********") {
				t.Fatalf("SHOW CREATE SINK agg_sink: no redacted password in %s", s)
			}
			if n := kafkatest.CountInLog(p.w.LogPath, "secret-pw"); n > 0 {
				t.Fatalf("the log shows the password %d times", n)
			}
			// The progress table holds one row per sink actor.
			got, err := tg.rows("SELECT count(*) FROM weir_sink_progress")
			if err != nil || len(got) != 1 || got[0] == "0" {
				t.Fatalf("weir_sink_progress: %v %v", got, err)
			}
		})
	}
}
