package kafka

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// TestFailingJobRestartsAlone makes the Materialize of one view fail on
// chosen chunks (the error point stream.operator_error@failing, hits 2
// to 4) and checks per-job failure isolation end to end: the view's job
// is restarted alone by its restart strategy (fixed-delay, 2 attempts)
// while a view over a table and the INSERTs into that table keep
// committing, with no recovery of every job; the third failure exhausts
// the strategy, which leaves the job FAILED with its reason in weir.jobs
// while everything else goes on; ALTER MATERIALIZED VIEW ... RESUME
// brings it back, and the view ends equal to its query over every
// record of the topic, each counted once.
func TestFailingJobRestartsAlone(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{Env: []string{"WEIR_FAULT=stream.operator_error@failing:2-4"}})
	addr := w.KafkaAddr
	conn := w.ConnString()
	kafkatest.CreateTopic(t, addr, inTopic, 1)
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, addr),
		`CREATE MATERIALIZED VIEW failing WITH (restart_strategy = 'fixed-delay', restart_attempts = 2, restart_delay_ms = 300)
			AS SELECT count(*) AS n, sum(v) AS s FROM src`,
		"CREATE TABLE t (id int PRIMARY KEY)",
		"CREATE MATERIALIZED VIEW t_count AS SELECT count(*) AS n FROM t",
	)
	inserted := 0
	insert := func() {
		t.Helper()
		inserted++
		kafkatest.Exec(t, conn, fmt.Sprintf("INSERT INTO t VALUES (%d)", inserted))
		if got := kafkatest.Query(t, conn, "SELECT n FROM t_count"); len(got) != 1 || got[0][0] != fmt.Sprint(inserted) {
			t.Fatalf("t_count = %v right after INSERT %d", got, inserted)
		}
	}
	status := func() string {
		rows := kafkatest.Query(t, conn, "SELECT status, restarts, coalesce(last_error, '') FROM weir.jobs WHERE name = 'failing'")
		if len(rows) != 1 {
			return fmt.Sprint(rows)
		}
		return strings.Join(rows[0], " | ")
	}

	// The records reach the view's Materialize as one chunk per epoch
	// they are read in: the first passes, the next three fail, each
	// after a restart that replays the epoch from the committed offsets.
	total := 0
	var sum int64
	produce := func(n int) {
		kafkatest.Produce(t, addr, inTopic, inputLines(total, total+n)...)
		for i := total; i < total+n; i++ {
			sum += int64(i + 1)
		}
		total += n
	}
	produce(10)
	for range 3 {
		insert()
	}
	produce(10)
	kafkatest.Eventually(t, time.Minute, "the job FAILED after two restarts", func() (bool, string) {
		insert()
		s := status()
		return strings.HasPrefix(s, "failed | 2 | restart strategy fixed-delay exhausted its 2 attempts"), s
	})
	if s := status(); !strings.Contains(s, "injected fault") {
		t.Errorf("weir.jobs does not say why the job failed: %s", s)
	}
	// FAILED: the view keeps its last committed rows while everything
	// else goes on.
	before := kafkatest.Query(t, conn, "SELECT n FROM failing")
	produce(5)
	for range 3 {
		insert()
	}
	if after := kafkatest.Query(t, conn, "SELECT n FROM failing"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the failed view changed from %v to %v", before, after)
	}
	// Only the failed job restarted: no recovery of every job.
	if n := kafkatest.CountInLog(w.LogPath, "recovering streaming jobs"); n != 0 {
		t.Errorf("%d recoveries of every job; want the failing job restarted alone", n)
	}
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it alone"); n != 2 {
		t.Errorf("%d restarts logged, want 2 (one line per retry)", n)
	}

	kafkatest.Exec(t, conn, "ALTER MATERIALIZED VIEW failing RESUME")
	want := fmt.Sprintf("%d %d", total, sum)
	kafkatest.Eventually(t, time.Minute, "the resumed view equal to its query over every record", func() (bool, string) {
		got := kafkatest.Query(t, conn, "SELECT n, s FROM failing")
		return len(got) == 1 && strings.Join(got[0], " ") == want, fmt.Sprintf("%v, want %s", got, want)
	})
	if s := status(); !strings.HasPrefix(s, "running | 2 |") {
		t.Errorf("weir.jobs after RESUME: %s", s)
	}
	insert()
	if _, err := kafkatest.QueryErr(conn, "ALTER MATERIALIZED VIEW failing RESUME"); err == nil || !strings.Contains(err.Error(), "55000") {
		t.Errorf("RESUME of a running job: %v, want SQLSTATE 55000", err)
	}
	if _, err := kafkatest.QueryErr(conn, "ALTER SINK failing RESUME"); err == nil || !strings.Contains(err.Error(), "42809") {
		t.Errorf("ALTER SINK on a view: %v, want SQLSTATE 42809", err)
	}
}

// TestFailingViewOverTableRebuildsAlone fails the Materialize of a view
// over another view of a table once (stream.operator_error@agg, hit 3)
// while INSERTs, UPDATEs and DELETEs run one statement at a time: every
// statement commits, a third view over the same table shows each one
// right after it (no recovery of every job stops them), the failed view
// is rebuilt alone from the current contents of the view it reads, and it
// ends equal to its query.
func TestFailingViewOverTableRebuildsAlone(t *testing.T) {
	w := testenv.Start(t, testenv.Options{Env: []string{"WEIR_FAULT=stream.operator_error@agg:3"}})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		"CREATE MATERIALIZED VIEW base AS SELECT k, v FROM t WHERE v > 0",
		`CREATE MATERIALIZED VIEW agg WITH (restart_strategy = 'fixed-delay', restart_attempts = 3, restart_delay_ms = 100)
			AS SELECT k % 5 AS g, count(*) AS n, sum(v) AS s FROM base GROUP BY k % 5`,
		"CREATE MATERIALIZED VIEW other AS SELECT count(*) AS n FROM t",
	)
	for i := 1; i <= 40; i++ {
		stmt := fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i*10)
		switch {
		case i%7 == 0:
			stmt = fmt.Sprintf("UPDATE t SET v = v + 1 WHERE k = %d", i-3)
		case i%11 == 0:
			stmt = fmt.Sprintf("DELETE FROM t WHERE k = %d", i-5)
		}
		kafkatest.Exec(t, conn, stmt)
		want := kafkatest.Query(t, conn, "SELECT count(*) FROM t")
		if got := kafkatest.Query(t, conn, "SELECT n FROM other"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after %q the other view shows %v, the table %v rows", stmt, got, want)
		}
	}
	want := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT k % 5, count(*), sum(v) FROM t WHERE v > 0 GROUP BY k % 5 ORDER BY 1"))
	kafkatest.Eventually(t, time.Minute, "the rebuilt view equal to its query", func() (bool, string) {
		got, err := kafkatest.QueryErr(conn, "SELECT g, n, s FROM agg ORDER BY g")
		if err != nil {
			// 55000 while it is rebuilt.
			return false, err.Error()
		}
		return kafkatest.Lines(got) == want, kafkatest.Lines(got) + "\nwant\n" + want
	})
	st := kafkatest.Query(t, conn, "SELECT status, restarts FROM weir.jobs WHERE name = 'agg'")
	if kafkatest.Lines(st) != "running | 1\n" {
		t.Errorf("weir.jobs shows agg as %q, want running after 1 restart", kafkatest.Lines(st))
	}
	if n := kafkatest.CountInLog(w.LogPath, "recovering streaming jobs"); n != 0 {
		t.Errorf("%d recoveries of every job; want the failing view rebuilt alone", n)
	}
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it alone"); n != 1 {
		t.Errorf("%d restarts logged, want 1", n)
	}
}

// TestFailingViewRestartsWithItsReaders fails the Materialize of a view
// over a Kafka source that another view and an exactly-once UPSERT sink
// read (stream.operator_error@agg, hits 2 and 3): the view and its two
// readers leave the checkpoints together and restart together from
// their committed state, by the view's restart strategy, while a view
// over a table and the INSERTs into that table keep committing with no
// recovery of every job. The source replays from the committed offsets,
// so the view, the view over it and the sink's topic (read at
// read_committed) end equal to the aggregate of every record, each
// counted once.
func TestFailingViewRestartsWithItsReaders(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{Env: []string{"WEIR_FAULT=stream.operator_error@agg:2-3"}})
	addr := w.KafkaAddr
	conn := w.ConnString()
	kafkatest.CreateTopic(t, addr, inTopic, 1)
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, addr),
		`CREATE MATERIALIZED VIEW agg WITH (restart_strategy = 'fixed-delay', restart_attempts = 3, restart_delay_ms = 300)
			AS SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k`,
		"CREATE MATERIALIZED VIEW agg_total AS SELECT count(*) AS keys, sum(n) AS n, sum(s) AS s FROM agg",
		fmt.Sprintf(`CREATE SINK out_upsert FROM agg WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', primary_key = 'k') FORMAT UPSERT ENCODE JSON`, upsertTopic, addr),
		"CREATE TABLE t (id int PRIMARY KEY)",
		"CREATE MATERIALIZED VIEW t_count AS SELECT count(*) AS n FROM t",
	)
	inserted := 0
	insert := func() {
		t.Helper()
		inserted++
		kafkatest.Exec(t, conn, fmt.Sprintf("INSERT INTO t VALUES (%d)", inserted))
		if got := kafkatest.Query(t, conn, "SELECT n FROM t_count"); len(got) != 1 || got[0][0] != fmt.Sprint(inserted) {
			t.Fatalf("t_count = %v right after INSERT %d", got, inserted)
		}
	}
	total := 0
	for round := 0; round < 6; round++ {
		kafkatest.Produce(t, addr, inTopic, inputLines(total, total+20)...)
		total += 20
		for range 3 {
			insert()
		}
	}
	kafkatest.Eventually(t, time.Minute, "agg restarted twice and running", func() (bool, string) {
		insert()
		rows := kafkatest.Query(t, conn, "SELECT status, restarts FROM weir.jobs WHERE name = 'agg'")
		return kafkatest.Lines(rows) == "running | 2\n", kafkatest.Lines(rows)
	})
	want := expectedAgg(total)
	var wantN, wantS int64
	for _, r := range want {
		wantN += r.n
		wantS += r.s
	}
	wantTotal := fmt.Sprintf("%d | %d | %d\n", len(want), wantN, wantS)
	kafkatest.Eventually(t, time.Minute, "agg_total equal to the aggregate of every record", func() (bool, string) {
		got := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT keys, n, s FROM agg_total"))
		return got == wantTotal, got + " want " + wantTotal
	})
	got := map[int64]aggRow{}
	for _, r := range kafkatest.Query(t, conn, "SELECT k, n, s FROM agg") {
		var k, n, s int64
		fmt.Sscan(r[0], &k)
		fmt.Sscan(r[1], &n)
		fmt.Sscan(r[2], &s)
		got[k] = aggRow{n, s}
	}
	if !maps.Equal(got, want) {
		d := diffAgg(got, want)
		t.Errorf("agg differs from the aggregate of the input:\n%s", d)
	}
	checkUpsert(t, addr, upsertTopic, want)
	for _, name := range []string{"agg_total", "out_upsert"} {
		if s := kafkatest.Lines(kafkatest.Query(t, conn, fmt.Sprintf("SELECT status FROM weir.jobs WHERE name = '%s'", name))); s != "running\n" {
			t.Errorf("%s: weir.jobs shows %q, want running", name, s)
		}
	}
	if n := kafkatest.CountInLog(w.LogPath, "recovering streaming jobs"); n != 0 {
		t.Errorf("%d recoveries of every job; want the view restarted with its readers only", n)
	}
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it with the jobs reading its output"); n != 2 {
		t.Errorf("%d region restarts logged, want 2", n)
	}
}

// TestFailingViewReadByAnotherRebuildsWithIt fails a view over a table
// that another view reads (stream.operator_error@base, hits 2 to 4): the
// two leave the checkpoints together and are rebuilt from the table, the
// reader once the view is complete again, by the view's restart strategy
// (fixed-delay, 2 attempts, each retry logged once; a failure while base
// is rebuilt and top waits restarts base alone), while every write
// commits and a third view follows the table with no recovery of every
// job. The third failure leaves base FAILED and the view reading it
// FAILED too (it cannot run without it), also after a restart of the
// server. RESUME brings both back, rebuilt from the table, equal to
// their queries.
func TestFailingViewReadByAnotherRebuildsWithIt(t *testing.T) {
	w := testenv.Start(t, testenv.Options{Env: []string{"WEIR_FAULT=stream.operator_error@base:2-4"}})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		// One actor, so that each hit of the fault point is one failure
		// (two actors of a failing job may both reach it).
		"SET streaming_parallelism = 1",
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		`CREATE MATERIALIZED VIEW base WITH (restart_strategy = 'fixed-delay', restart_attempts = 2, restart_delay_ms = 100)
			AS SELECT k, v FROM t WHERE v % 3 <> 0`,
		"CREATE MATERIALIZED VIEW top AS SELECT count(*) AS n, sum(v) AS s FROM base",
		"CREATE MATERIALIZED VIEW other AS SELECT count(*) AS n FROM t",
	)
	status := func(name string) string {
		return kafkatest.Lines(kafkatest.Query(t, conn, fmt.Sprintf(
			"SELECT status, restarts, coalesce(last_error, '') FROM weir.jobs WHERE name = '%s'", name)))
	}
	for i := 1; ; i++ {
		if i > 400 {
			t.Fatalf("base never FAILED: %s", status("base"))
		}
		// Every write commits, and the view over the table follows it.
		kafkatest.Exec(t, conn, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i))
		if got := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT n FROM other")); got != fmt.Sprintf("%d\n", i) {
			t.Fatalf("after INSERT %d the other view shows %q", i, got)
		}
		if strings.HasPrefix(status("base"), "failed | 2 | restart strategy fixed-delay exhausted") {
			break
		}
	}
	kafkatest.Eventually(t, time.Minute, "top FAILED with base", func() (bool, string) {
		s := status("top")
		return strings.HasPrefix(s, `failed | 0 | cannot be restarted: the materialized view "base" it reads is failed`), s
	})
	// The first retry restarts the region; the second failure comes
	// while base is rebuilt and top waits for it, so base restarts alone.
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it"); n != 2 {
		t.Errorf("%d retries logged, want 2", n)
	}
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it with the jobs reading its output"); n < 1 {
		t.Errorf("no region restart logged")
	}
	if n := kafkatest.CountInLog(w.LogPath, "recovering streaming jobs"); n != 0 {
		t.Errorf("%d recoveries of every job; want the region rebuilt alone", n)
	}
	// FAILED survives a restart of the server.
	w.SetEnv()
	w.Restart()
	if s := status("base"); !strings.HasPrefix(s, "failed | 0 | restart strategy fixed-delay exhausted") {
		t.Errorf("base after a restart: %s", s)
	}
	if s := status("top"); !strings.HasPrefix(s, "failed | 0 | cannot be restarted") {
		t.Errorf("top after a restart: %s", s)
	}
	// A FAILED view over a table stays unreadable after the restart,
	// rather than answer with rows the table has moved past (or none).
	for _, v := range []string{"base", "top"} {
		if _, err := kafkatest.QueryErr(conn, "SELECT * FROM "+v); err == nil || !strings.Contains(err.Error(), "55000") {
			t.Errorf("reading the FAILED view %s after a restart: %v, want 55000", v, err)
		}
	}
	kafkatest.Exec(t, conn, "ALTER MATERIALIZED VIEW base RESUME", "ALTER MATERIALIZED VIEW top RESUME")
	kafkatest.Exec(t, conn, "INSERT INTO t VALUES (2000, 2000)")
	want := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT count(*), sum(v) FROM t WHERE v % 3 <> 0"))
	if got := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT n, s FROM top")); got != want {
		t.Errorf("top after RESUME = %s, want %s", got, want)
	}
	for _, v := range []string{"base", "top"} {
		if s := status(v); !strings.HasPrefix(s, "running") {
			t.Errorf("%s after RESUME: %s", v, s)
		}
	}
}

// TestViewReadByAnotherRebuiltEqual fails a view over a table that a
// second view reads, once (stream.operator_error@base, hit 3), while
// INSERTs, UPDATEs and DELETEs go on: the region is rebuilt, and both
// views end equal to their queries over the table.
func TestViewReadByAnotherRebuiltEqual(t *testing.T) {
	w := testenv.Start(t, testenv.Options{Env: []string{"WEIR_FAULT=stream.operator_error@base:3"}})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		`CREATE MATERIALIZED VIEW base WITH (restart_strategy = 'fixed-delay', restart_delay_ms = 100)
			AS SELECT k, v FROM t WHERE v % 3 <> 0`,
		"CREATE MATERIALIZED VIEW top AS SELECT k % 4 AS g, count(*) AS n, sum(v) AS s FROM base GROUP BY k % 4",
	)
	for i := 1; i <= 60; i++ {
		stmt := fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i*7)
		switch {
		case i%7 == 0:
			stmt = fmt.Sprintf("UPDATE t SET v = v + 1 WHERE k = %d", i-3)
		case i%11 == 0:
			stmt = fmt.Sprintf("DELETE FROM t WHERE k = %d", i-5)
		}
		kafkatest.Exec(t, conn, stmt)
		if i%10 == 0 {
			// A checkpoint every ten statements: their changes reach the
			// view in a chunk each time (the statements' changes are
			// batched within an epoch), so hit 3 comes amid the writes.
			kafkatest.Exec(t, conn, "FLUSH")
		}
	}
	want := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT k % 4, count(*), sum(v) FROM t WHERE v % 3 <> 0 GROUP BY k % 4 ORDER BY 1"))
	kafkatest.Eventually(t, time.Minute, "top rebuilt equal to its query", func() (bool, string) {
		got, err := kafkatest.QueryErr(conn, "SELECT g, n, s FROM top ORDER BY g")
		if err != nil {
			return false, err.Error()
		}
		return kafkatest.Lines(got) == want, kafkatest.Lines(got) + "\nwant\n" + want
	})
	wantBase := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT k, v FROM t WHERE v % 3 <> 0 ORDER BY k"))
	if got := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT k, v FROM base ORDER BY k")); got != wantBase {
		t.Errorf("base after its rebuild:\n%s\nwant\n%s", got, wantBase)
	}
	if n := kafkatest.CountInLog(w.LogPath, "streaming job failed, restarting it with the jobs reading its output"); n != 1 {
		t.Errorf("%d region restarts logged, want 1", n)
	}
	if n := kafkatest.CountInLog(w.LogPath, "recovering streaming jobs"); n != 0 {
		t.Errorf("%d recoveries of every job; want the region rebuilt alone", n)
	}
}

// TestCrashWhileViewAwaitsRebuild kills weir (SIGKILL) while a failed
// view over a table waits out a long restart delay and writes to the
// table go on committing. The view's state was dropped in the first
// checkpoint that left it out, so the restarted server rebuilds it from
// the table instead of resuming it from a state that missed those
// writes: it ends equal to its query. Meanwhile, reading it fails with
// 55000 instead of returning a partial answer.
func TestCrashWhileViewAwaitsRebuild(t *testing.T) {
	w := testenv.Start(t, testenv.Options{Env: []string{"WEIR_FAULT=stream.operator_error@agg:2"}})
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		`CREATE MATERIALIZED VIEW agg WITH (restart_strategy = 'fixed-delay', restart_delay_ms = 600000)
			AS SELECT k % 3 AS g, count(*) AS n, sum(v) AS s FROM t GROUP BY k % 3`,
	)
	for i := 1; i <= 20; i++ {
		kafkatest.Exec(t, conn, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i*i))
	}
	kafkatest.Eventually(t, time.Minute, "agg restarting", func() (bool, string) {
		s := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT status FROM weir.jobs WHERE name = 'agg'"))
		return s == "restarting\n", s
	})
	if _, err := kafkatest.QueryErr(conn, "SELECT * FROM agg"); err == nil || !strings.Contains(err.Error(), "55000") {
		t.Errorf("reading the view awaiting its rebuild: %v, want SQLSTATE 55000", err)
	}
	w.Kill()
	w.SetEnv()
	w.Restart()
	want := kafkatest.Lines(kafkatest.Query(t, conn, "SELECT k % 3, count(*), sum(v) FROM t GROUP BY k % 3 ORDER BY 1"))
	kafkatest.Eventually(t, time.Minute, "the view rebuilt after the crash", func() (bool, string) {
		got, err := kafkatest.QueryErr(conn, "SELECT g, n, s FROM agg ORDER BY g")
		if err != nil {
			return false, err.Error()
		}
		return kafkatest.Lines(got) == want, kafkatest.Lines(got) + "\nwant\n" + want
	})
}
