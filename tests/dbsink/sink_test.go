// Package dbsink holds the end-to-end tests of the sinks into PostgreSQL
// and MySQL/MariaDB (connector/sqlsink): real weir processes writing to
// real database servers started by the tests, SIGKILLed at the fault
// points of the exactly-once protocol and at random.
package dbsink

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
			for _, q := range []string{"SHOW CREATE SINK rows_sink", "SELECT * FROM weir.sinks", "SELECT * FROM weir.jobs",
				"SHOW JOBS", "SHOW SINKS", "EXPLAIN SINK agg_sink", "SELECT * FROM weir.stream_errors"} {
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

// allTypes is a weir table with a column of every type a sink maps.
const allTypes = `CREATE TABLE allt (id int PRIMARY KEY, b boolean, i2 smallint, i4 int, i8 bigint, f4 real,
	f8 double precision, n numeric, s varchar, tx text, by bytea, d date, tm time, ts timestamp,
	tz timestamptz, iv interval, j jsonb, u uuid)`

// allTypesTarget is allt's target table in each kind, with the types
// docs/sinks.md maps weir's to.
var allTypesTarget = map[string]string{
	"postgres": `CREATE TABLE allt (id integer PRIMARY KEY, b boolean, i2 smallint, i4 integer, i8 bigint, f4 real,
		f8 double precision, n numeric, s character varying, tx text, "by" bytea, d date, tm time, ts timestamp,
		tz timestamptz, iv interval, j jsonb, u uuid)`,
	"mysql": "CREATE TABLE allt (id INT PRIMARY KEY, b BOOLEAN, i2 SMALLINT, i4 INT, i8 BIGINT, f4 FLOAT, " +
		"f8 DOUBLE, n DECIMAL(30, 6), s VARCHAR(200), tx LONGTEXT, `by` BLOB, d DATE, tm TIME(6), ts DATETIME(6), " +
		"tz TIMESTAMP(6) NULL, iv VARCHAR(100), j JSON, u CHAR(36))",
}

// The columns compared: all of them as text in PostgreSQL (whose text
// forms weir prints alike), those printed alike in MySQL.
var allTypesCols = map[string]string{
	"postgres": `id::text, b::text, i2::text, i4::text, i8::text, f4::text, f8::text, n::text, s, tx, "by"::text,
		d::text, tm::text, ts::text, tz::text, iv::text, j::text, u::text`,
	"mysql": "id, i2, i4, i8, s, tx, d, u",
}

// TestUpsertTypesAndDeletes sinks a keyed table with a column of every
// type through FORMAT UPSERT, then updates and deletes rows: the target
// table follows, values and all.
func TestUpsertTypesAndDeletes(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, kind, startServer(t, kind))
			tg.exec(t, allTypesTarget[kind])
			w := testenv.Start(t, testenv.Options{})
			conn := w.ConnString()
			kafkatest.Exec(t, conn,
				"SET timezone = 'Europe/Paris'",
				allTypes,
				`INSERT INTO allt VALUES
				(1, true, -7, 2147483647, -9223372036854775808, 1.5, 1e-07, 123.4500, 'it''s \ é', 'x', '\x00ff',
				 '2024-02-29', '13:14:15.5', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15+02', '1 day 02:00:00', '{"a": [1, "x"]}',
				 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'),
				(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
				(3, false, 1, 2, 3, -0.25, 3.14159, -0.000001, '', '', '', '1999-12-31', '00:00:00', '1999-12-31 23:59:59',
				 '1999-12-31 23:59:59.999999+00', '-3 mons', '[]', '{00000000-0000-0000-0000-0000000000ff}')`,
				// batch.size = 2: statements of two rows at most.
				fmt.Sprintf("CREATE SINK allt_sink FROM allt WITH (%s, table = 'allt', primary_key = 'id', batch.size = '2') FORMAT UPSERT", tg.with),
			)
			q := "SELECT " + allTypesCols[kind] + " FROM allt"
			waitEqual(t, tg, q, conn, q, true)
			kafkatest.Exec(t, conn,
				"UPDATE allt SET s = 'changed', i8 = 42, u = gen_random_uuid() WHERE id = 1",
				"DELETE FROM allt WHERE id = 3",
				"INSERT INTO allt (id, s) VALUES (4, 'four')",
				// One epoch changing a key twice, then deleting and
				// inserting another: a repeated key splits the statement.
				"BEGIN",
				"UPDATE allt SET i4 = 1 WHERE id = 1",
				"UPDATE allt SET i4 = 2 WHERE id = 1",
				"DELETE FROM allt WHERE id = 4",
				"INSERT INTO allt (id, s) VALUES (4, 'four again')",
				"COMMIT",
			)
			waitEqual(t, tg, q, conn, q, true)
			got, _ := tg.rows("SELECT id FROM allt")
			if fmt.Sprint(got) != "[1 2 4]" {
				t.Fatalf("target ids %v, want [1 2 4]", got)
			}
			// A 9 MB text with quotes and backslashes: written as it is,
			// it fits MariaDB's default 16 MB packet (in hexadecimal it
			// would not).
			kafkatest.Exec(t, conn, `INSERT INTO allt (id, tx) SELECT 5, repeat('it''s \ é ', 900000)`)
			lq := "SELECT length(tx), md5(tx) FROM allt WHERE id = 5"
			if kind == "mysql" {
				lq = "SELECT char_length(tx), md5(tx) FROM allt WHERE id = 5"
			}
			waitEqual(t, tg, lq, conn, "SELECT length(tx), md5(tx) FROM allt WHERE id = 5", true)
		})
	}
}

// TestCreateSinkChecksTarget refuses a sink whose target table is
// missing or does not match, with the SQLSTATE of the mismatch.
func TestCreateSinkChecksTarget(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, kind, startServer(t, kind))
			tg.exec(t, "CREATE TABLE narrow (k int, v int)")
			w := testenv.Start(t, testenv.Options{})
			conn := w.ConnString()
			kafkatest.Exec(t, conn, "CREATE TABLE src (k int, v text, extra int) APPEND ONLY")
			for _, c := range []struct{ q, code string }{
				{"SELECT k, v FROM src", "42804"},
				{"SELECT k, extra AS w FROM src", "42703"},
				{"SELECT k, extra AS v FROM src", ""},
			} {
				for _, table := range []string{"missing", "narrow"} {
					_, err := kafkatest.QueryErr(conn, fmt.Sprintf("CREATE SINK s AS %s WITH (%s, table = '%s') FORMAT PLAIN", c.q, tg.with, table))
					want := c.code
					if table == "missing" {
						want = "42P01"
					}
					if want == "" {
						if err != nil {
							t.Fatalf("%s into %s: %v", c.q, table, err)
						}
						kafkatest.Exec(t, conn, "DROP SINK s")
						continue
					}
					if err == nil || !strings.Contains(err.Error(), "SQLSTATE "+want) {
						t.Fatalf("%s into %s: %v, want SQLSTATE %s", c.q, table, err, want)
					}
				}
			}
			// UPSERT needs the target's key on primary_key's columns.
			tg.exec(t, "CREATE TABLE keyed (k int PRIMARY KEY, v int)")
			upsert := "CREATE SINK u AS SELECT k, extra AS v FROM src WITH (%s, table = '%s', primary_key = 'k') FORMAT UPSERT"
			if _, err := kafkatest.QueryErr(conn, fmt.Sprintf(upsert, tg.with, "narrow")); err == nil || !strings.Contains(err.Error(), "SQLSTATE 42P10") {
				t.Fatalf("UPSERT into a table without a key: %v, want SQLSTATE 42P10", err)
			}
			// A unique index on a nullable column admits many NULL keys,
			// which no upsert or delete could ever find again.
			tg.exec(t, "CREATE TABLE nullkey (k int, v int)")
			tg.exec(t, "CREATE UNIQUE INDEX nullkey_k ON nullkey (k)")
			if _, err := kafkatest.QueryErr(conn, fmt.Sprintf(upsert, tg.with, "nullkey")); err == nil ||
				!strings.Contains(err.Error(), "SQLSTATE 42P10") || !strings.Contains(err.Error(), "nullable") {
				t.Fatalf("UPSERT into a table whose unique key is nullable: %v, want SQLSTATE 42P10 naming the nullable column", err)
			}
			kafkatest.Exec(t, conn, fmt.Sprintf(upsert, tg.with, "keyed"))
		})
	}
}

// TestTargetDownIsolated kills the MariaDB server of one sink while a
// PostgreSQL sink of the same weir goes on: every INSERT commits, the
// PostgreSQL target keeps up, the dead target's sink shows its lag; when
// MariaDB returns, its table catches up from the log store exactly once.
func TestTargetDownIsolated(t *testing.T) {
	my := testenv.StartMariaDB(t)
	pg := startServer(t, "postgres")
	tgMy, tgPg := newTarget(t, "mysql", my), newTarget(t, "postgres", pg)
	for _, tg := range []*target{tgMy, tgPg} {
		tg.exec(t, targetDDL(tg.kind)...)
	}
	w := testenv.Start(t, testenv.Options{})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		"CREATE TABLE rows_in (id bigint, k int, v bigint) APPEND ONLY",
		fmt.Sprintf("CREATE SINK to_my FROM rows_in WITH (%s, table = 'rows_out') FORMAT PLAIN", tgMy.with),
		fmt.Sprintf("CREATE SINK to_pg FROM rows_in WITH (%s, table = 'rows_out') FORMAT PLAIN", tgPg.with),
		batch(0, 100),
	)
	q := "SELECT id, k, v FROM rows_out"
	waitEqual(t, tgMy, q, conn, "SELECT id, k, v FROM rows_in", true)
	t0 := time.Now()
	my.Kill()
	kafkatest.Exec(t, conn, batch(100, 500))
	kafkatest.Eventually(t, time.Minute, "to_my failing, with its lag", func() (bool, string) {
		r := kafkatest.Query(t, conn, "SELECT lag_rows, last_error IS NOT NULL FROM weir.sinks WHERE name = 'to_my'")
		return len(r) == 1 && r[0][0] != "0" && r[0][1] == "t", fmt.Sprint(r)
	})
	// DML goes on, and so does the other sink.
	for i := 500; i < 1000; i += 100 {
		kafkatest.Exec(t, conn, batch(i, i+100))
	}
	waitEqual(t, tgPg, q, conn, "SELECT id, k, v FROM rows_in", true)
	t.Logf("MariaDB down for %v", time.Since(t0).Round(time.Millisecond))
	my.Restart()
	t1 := time.Now()
	waitEqual(t, tgMy, q, conn, "SELECT id, k, v FROM rows_in", true)
	t.Logf("caught up %v after MariaDB restarted", time.Since(t1).Round(time.Millisecond))
}

// TestTwoPhaseNeedsPreparedTransactions: sink.two_phase_commit into a
// PostgreSQL whose max_prepared_transactions is 0 (its default) is
// refused at CREATE SINK with 55000, instead of a sink whose every epoch
// fails.
func TestTwoPhaseNeedsPreparedTransactions(t *testing.T) {
	pg := testenv.StartPostgres(t)
	pg.Settings = []string{"max_prepared_transactions=0"}
	pg.Restart()
	tg := newTarget(t, "postgres", pg)
	tg.exec(t, "CREATE TABLE tp (k int PRIMARY KEY, v int)")
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	conn := w.ConnString()
	kafkatest.Exec(t, conn, "CREATE TABLE src (k int, v int) APPEND ONLY")
	q := "CREATE SINK s2 AS SELECT k, v FROM src WITH (%s, table = 'tp', sink.two_phase_commit = '%s') FORMAT PLAIN"
	_, err := kafkatest.QueryErr(conn, fmt.Sprintf(q, tg.with, "true"))
	if err == nil || !strings.Contains(err.Error(), "SQLSTATE 55000") || !strings.Contains(err.Error(), "max_prepared_transactions") {
		t.Fatalf("two-phase sink into a PostgreSQL without prepared transactions: %v, want SQLSTATE 55000 naming max_prepared_transactions", err)
	}
	kafkatest.Exec(t, conn, fmt.Sprintf(q, tg.with, "false"))
}
