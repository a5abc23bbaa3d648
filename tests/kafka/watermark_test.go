package kafka

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestWatermarkOverSource runs a source with WATERMARK FOR through an
// EMIT ON WINDOW CLOSE view of TUMBLE counts and a PLAIN sink of that
// view: each minute appears once, when the watermark passes it, with the
// rows that came in time (out of order within the bound included); a row
// behind the watermark is dropped and counted in weir.watermarks.
func TestWatermarkOverSource(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "events", 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf(`CREATE SOURCE events (id bigint, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '5 seconds')
			WITH (connector = 'kafka', topic = 'events', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		`CREATE MATERIALIZED VIEW per_minute AS
			SELECT window_start, count(*) AS n FROM TUMBLE(events, ts, INTERVAL '1 minute') GROUP BY window_start
			EMIT ON WINDOW CLOSE`,
		fmt.Sprintf(`CREATE SINK closed_out FROM per_minute
			WITH (connector = 'kafka', topic = 'closed_out', properties.bootstrap.server = '%s')
			FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		// A second reader of the source: a late record is still one late
		// row of the source.
		`CREATE MATERIALIZED VIEW events_seen AS SELECT count(*) AS n FROM events`,
	)
	event := func(id int, ts string) string { return fmt.Sprintf(`{"id": %d, "ts": "2024-01-01 %s"}`, id, ts) }
	waitMinutes := func(want string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "per_minute", func() (bool, string) {
			s := strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT window_start::text, n FROM per_minute ORDER BY 1")))
			return s == want, s
		})
	}

	// The watermark reaches 10:01:25 (10:00:47 is out of order, but
	// within the 5 seconds): minute 10:00 closes.
	kafkatest.Produce(t, w.KafkaAddr, "events", event(1, "10:00:10"), event(2, "10:00:50"), event(3, "10:00:47"),
		event(4, "10:01:05"), event(5, "10:01:30"))
	waitMinutes("2024-01-01 10:00:00 | 3")

	// The watermark is at least 10:01:00 now: 10:00:40 is late. 10:02:10
	// closes minute 10:01.
	kafkatest.Produce(t, w.KafkaAddr, "events", event(6, "10:00:40"), event(7, "10:02:10"))
	waitMinutes("2024-01-01 10:00:00 | 3\n2024-01-01 10:01:00 | 2")
	if got := strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT name, kind, late_rows FROM weir.watermarks"))); got != "events | source | 1" {
		t.Errorf("weir.watermarks: %q", got)
	}

	// The sink writes each closed minute once.
	kafkatest.Eventually(t, time.Minute, "closed_out", func() (bool, string) {
		vals := kafkatest.Values(kafkatest.Consume(t, w.KafkaAddr, "closed_out"))
		slices.Sort(vals)
		s := strings.Join(vals, "\n")
		return s == `{"window_start":"2024-01-01 10:00:00","n":3}`+"\n"+`{"window_start":"2024-01-01 10:01:00","n":2}`, s
	})

	// The late count is checkpointed with the source's positions: after a
	// SIGKILL and a restart it is still 1, and a late record after the
	// restart makes it 2.
	kafkatest.Exec(t, conn, "FLUSH")
	w.Kill()
	w.Restart()
	lateRows := func(want string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "late_rows "+want, func() (bool, string) {
			s := strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT late_rows FROM weir.watermarks")))
			return s == want, s
		})
	}
	lateRows("1")
	kafkatest.Produce(t, w.KafkaAddr, "events", event(8, "10:00:55"), event(9, "10:03:10"))
	waitMinutes("2024-01-01 10:00:00 | 3\n2024-01-01 10:01:00 | 2\n2024-01-01 10:02:00 | 1")
	lateRows("2")
}

// TestWatermarkSameRowsForEveryReader runs two EMIT ON WINDOW CLOSE views
// over one single-partition source, the second created after the first
// has read a record that is late: each job has its own reader, read
// with its own epochs, yet both drop the same record, because a record's
// lateness is judged against the watermark of the records before it in
// its partition, not against the watermark of the last barrier.
func TestWatermarkSameRowsForEveryReader(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.KeepLogs(t, w.LogPath)
	kafkatest.CreateTopic(t, w.KafkaAddr, "lt2", 1)
	conn := w.ConnString()
	kafkatest.Produce(t, w.KafkaAddr, "lt2", `{"id": 0}`)
	view := func(name string) string {
		return `CREATE MATERIALIZED VIEW ` + name + ` AS
			SELECT window_start, count(*) AS n FROM TUMBLE(lt2, ts, INTERVAL '1 minute') GROUP BY window_start
			EMIT ON WINDOW CLOSE`
	}
	kafkatest.Exec(t, conn,
		fmt.Sprintf(`CREATE SOURCE lt2 (id int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')
			WITH (connector = 'kafka', topic = 'lt2', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		view("lt2_a"))
	watermarks := func(want string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "weir.watermarks", func() (bool, string) {
			s := strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT watermark, late_rows FROM weir.watermarks WHERE name = 'lt2'")))
			return s == want, s
		})
	}
	// lt2_a's reader has emitted the watermark of record 1 at a barrier,
	// so it reads record 2 in a later epoch; 10:00:00 is behind 10:00:09.
	kafkatest.Produce(t, w.KafkaAddr, "lt2", `{"id": 1, "ts": "2024-01-01 10:00:10"}`)
	watermarks("2024-01-01 10:00:09 | 0")
	kafkatest.Produce(t, w.KafkaAddr, "lt2", `{"id": 2, "ts": "2024-01-01 10:00:00"}`)
	watermarks("2024-01-01 10:00:09 | 1")

	// lt2_b's reader finds the three records in the topic at once.
	kafkatest.Exec(t, conn, view("lt2_b"))
	kafkatest.Produce(t, w.KafkaAddr, "lt2", `{"id": 3, "ts": "2024-01-01 10:02:00"}`)
	rows := func(v string) string {
		return strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT window_start::text, n FROM "+v+" ORDER BY 1")))
	}
	kafkatest.Eventually(t, time.Minute, "minute 10:00 closed in both views", func() (bool, string) {
		a, b := rows("lt2_a"), rows("lt2_b")
		return a != "" && b != "", "lt2_a: " + a + "; lt2_b: " + b
	})
	const want = "2024-01-01 10:00:00 | 1"
	if a, b := rows("lt2_a"), rows("lt2_b"); a != want || b != want {
		t.Errorf("lt2_a holds %q, lt2_b %q; want %q in both", a, b, want)
	}
	watermarks("2024-01-01 10:01:59 | 1")
}

// TestWatermarkAfterRestartNeedsNoNewRecordsEverywhere runs a source over
// three partitions whose partitions never go idle (idle timeout 0)
// through a 10-second EMIT ON WINDOW CLOSE TUMBLE, SIGKILLs weir after
// the watermark has reached 10:00:14, and then writes to one partition
// only. Each partition's watermark was checkpointed with its position,
// so the recovered reader still knows the other two are at 10:00:59 and
// the watermark moves on to 10:00:39, closing window 10:00:10; a reader
// that forgot them would wait for records of every partition forever.
func TestWatermarkAfterRestartNeedsNoNewRecordsEverywhere(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	kafkatest.CreateTopic(t, b.Addr, "st", 3)
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf(`CREATE SOURCE st (id int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')
			WITH (connector = 'kafka', topic = 'st', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest',
				watermark.idle_timeout_ms = '0')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
		`CREATE MATERIALIZED VIEW st_closed AS
			SELECT window_start, count(*) AS n FROM TUMBLE(st, ts, INTERVAL '10 seconds') GROUP BY window_start
			EMIT ON WINDOW CLOSE`)
	produce := func(p int, id int, ts string) {
		t.Helper()
		kafkatest.RunKcat(t, fmt.Sprintf(`{"id": %d, "ts": "2024-01-01 %s"}`+"\n", id, ts), "-P", "-b", b.Addr, "-t", "st", "-p", strconv.Itoa(p))
	}
	waitRows := func(want string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "st_closed", func() (bool, string) {
			s := strings.TrimSpace(kafkatest.Lines(kafkatest.Query(t, conn, "SELECT window_start::text, n FROM st_closed ORDER BY 1")))
			return s == want, s
		})
	}
	produce(0, 1, "10:00:00")
	produce(1, 2, "10:00:01")
	produce(2, 3, "10:00:02")
	produce(0, 4, "10:00:15")
	produce(1, 5, "10:01:00")
	produce(2, 6, "10:01:00")
	// Window 10:00:00 closes only once every record is read (the
	// watermark is then 10:00:14), and its epoch is committed when the
	// view shows it.
	waitRows("2024-01-01 10:00:00 | 3")
	w.Kill()
	w.Restart()
	produce(0, 7, "10:00:40")
	waitRows("2024-01-01 10:00:00 | 3\n2024-01-01 10:00:10 | 1")
}
