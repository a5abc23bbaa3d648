package kafka

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestEOWCExactlyOnceAcrossKills streams events over advancing event
// time from a source with a watermark through an EMIT ON WINDOW CLOSE
// view of TUMBLE counts into a PLAIN sink, and SIGKILLs weir several
// times while the events arrive. At the end a read_committed consumer of
// the sink's topic sees every closed window exactly once, with the count
// of all its events (they arrive in order, so none is late), and the view
// holds the same rows.
func TestEOWCExactlyOnceAcrossKills(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	kafkatest.CreateTopic(t, b.Addr, "ticks", 1)
	kafkatest.CreateTopic(t, b.Addr, "closed", 1)
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE ticks (id bigint, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')
			WITH (connector = 'kafka', topic = 'ticks', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
		`CREATE MATERIALIZED VIEW per_minute AS
			SELECT window_start, count(*) AS n, sum(id) AS s FROM TUMBLE(ticks, ts, INTERVAL '1 minute') GROUP BY window_start
			EMIT ON WINDOW CLOSE`,
		fmt.Sprintf(`CREATE SINK closed_out FROM per_minute
			WITH (connector = 'kafka', topic = 'closed', properties.bootstrap.server = '%s')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
	)
	// Event i happens at 00:00:00 + 7i seconds: minute m holds the events
	// with 7i in [60m, 60m+60).
	const events, batch, kills = 6000, 500, 5
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(i int) string {
		return fmt.Sprintf(`{"id": %d, "ts": "%s"}`, i, start.Add(time.Duration(7*i)*time.Second).Format("2006-01-02 15:04:05"))
	}
	for from := 0; from < events; from += batch {
		var lines []string
		for i := from; i < min(from+batch, events); i++ {
			lines = append(lines, line(i))
		}
		if err := kafkatest.ProduceLines(b.Addr, "ticks", lines); err != nil {
			t.Fatal(err)
		}
		if k := from / batch; k%2 == 1 && k/2 < kills {
			time.Sleep(time.Duration(100+37*k) * time.Millisecond)
			closed := len(kafkatest.Consume(t, b.Addr, "closed"))
			w.Kill()
			t.Logf("SIGKILL %d after %d events, %d windows committed in the sink", k/2+1, from+batch, closed)
			w.Restart()
		}
	}
	// The last event's minute never closes (no later event); every
	// earlier minute does.
	type win struct{ n, s int64 }
	want := map[string]win{}
	last := start.Add(time.Duration(7*(events-1)) * time.Second).Truncate(time.Minute)
	for i := 0; i < events; i++ {
		m := start.Add(time.Duration(7*i) * time.Second).Truncate(time.Minute)
		if !m.Before(last) {
			continue
		}
		k := m.Format("2006-01-02 15:04:05")
		x := want[k]
		x.n++
		x.s += int64(i)
		want[k] = x
	}
	var wantLines []string
	for k, x := range want {
		wantLines = append(wantLines, fmt.Sprintf(`{"window_start":"%s","n":%d,"s":%d}`, k, x.n, x.s))
	}
	slices.Sort(wantLines)
	kafkatest.Eventually(t, 2*time.Minute, "every closed minute in the sink exactly once", func() (bool, string) {
		got := kafkatest.Values(kafkatest.Consume(t, b.Addr, "closed"))
		slices.Sort(got)
		if len(got) > len(wantLines) {
			return false, fmt.Sprintf("%d records for %d windows (duplicates)", len(got), len(wantLines))
		}
		return slices.Equal(got, wantLines), fmt.Sprintf("%d of %d windows", len(got), len(wantLines))
	})
	got := kafkatest.Values(kafkatest.Consume(t, b.Addr, "closed"))
	if dups := kafkatest.Duplicates(kafkatest.Consume(t, b.Addr, "closed")); len(dups) > 0 {
		t.Fatalf("duplicates in the sink: %v", dups)
	}
	rows := kafkatest.Query(t, conn, "SELECT count(*), sum(n) FROM per_minute")
	if len(rows) != 1 || rows[0][0] != fmt.Sprint(len(wantLines)) {
		t.Fatalf("per_minute: %v, want %d windows; sink holds %d", rows, len(wantLines), len(got))
	}
}

// TestEOWCOverWindowExactlyOnceAcrossKills streams events of three
// symbols from a source with a watermark through an EMIT ON WINDOW CLOSE
// view of window functions (row_number and lag per symbol, in event-time
// order) into a PLAIN sink, and SIGKILLs weir several times while the
// events arrive. At the end a read_committed consumer of the sink's
// topic sees every event the watermark has passed exactly once, with its
// rank and previous event in its symbol, and the view holds the same.
func TestEOWCOverWindowExactlyOnceAcrossKills(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	kafkatest.CreateTopic(t, b.Addr, "ticks", 1)
	kafkatest.CreateTopic(t, b.Addr, "ranked", 1)
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE ticks (id bigint, sym int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')
			WITH (connector = 'kafka', topic = 'ticks', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
		`CREATE MATERIALIZED VIEW ranked AS
			SELECT id, sym, row_number() OVER (PARTITION BY sym ORDER BY ts) AS rn, lag(id) OVER (PARTITION BY sym ORDER BY ts) AS prev
			FROM ticks EMIT ON WINDOW CLOSE`,
		fmt.Sprintf(`CREATE SINK ranked_out FROM ranked
			WITH (connector = 'kafka', topic = 'ranked', properties.bootstrap.server = '%s')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
	)
	// Event i, of symbol i mod 3, happens at 00:00:00 + 2i seconds: it is
	// the (i div 3 + 1)th of its symbol, after event i-3.
	const events, batch, kills = 3000, 250, 5
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for from := 0; from < events; from += batch {
		var lines []string
		for i := from; i < min(from+batch, events); i++ {
			lines = append(lines, fmt.Sprintf(`{"id": %d, "sym": %d, "ts": "%s"}`, i, i%3, start.Add(time.Duration(2*i)*time.Second).Format("2006-01-02 15:04:05")))
		}
		if err := kafkatest.ProduceLines(b.Addr, "ticks", lines); err != nil {
			t.Fatal(err)
		}
		if k := from / batch; k%2 == 1 && k/2 < kills {
			// Killed while the batch is still being read and emitted.
			time.Sleep(time.Duration(13*k%50) * time.Millisecond)
			n := len(kafkatest.Consume(t, b.Addr, "ranked"))
			w.Kill()
			t.Logf("SIGKILL %d after %d events, %d rows committed in the sink", k/2+1, from+batch, n)
			w.Restart()
		}
	}
	// The watermark ends 1 s behind the last event: every event but the
	// last is final.
	var want []string
	for i := 0; i < events-1; i++ {
		prev := "null"
		if i >= 3 {
			prev = fmt.Sprint(i - 3)
		}
		want = append(want, fmt.Sprintf(`{"id":%d,"sym":%d,"rn":%d,"prev":%s}`, i, i%3, i/3+1, prev))
	}
	slices.Sort(want)
	kafkatest.Eventually(t, 2*time.Minute, "every final event in the sink exactly once", func() (bool, string) {
		got := kafkatest.Values(kafkatest.Consume(t, b.Addr, "ranked"))
		slices.Sort(got)
		if len(got) > len(want) {
			return false, fmt.Sprintf("%d records for %d events (duplicates)", len(got), len(want))
		}
		return slices.Equal(got, want), fmt.Sprintf("%d of %d events", len(got), len(want))
	})
	if dups := kafkatest.Duplicates(kafkatest.Consume(t, b.Addr, "ranked")); len(dups) > 0 {
		t.Fatalf("duplicates in the sink: %v", dups)
	}
	rows := kafkatest.Query(t, conn, "SELECT count(*), sum(rn), count(prev) FROM ranked")
	wantRow := []string{fmt.Sprint(events - 1), fmt.Sprint(sumRanks(events - 1)), fmt.Sprint(events - 1 - 3)}
	if len(rows) != 1 || !slices.Equal(rows[0], wantRow) {
		t.Fatalf("ranked: %v, want %v", rows, wantRow)
	}
}

// sumRanks is the sum of the ranks of events 0..n-1 in the over window
// test: event i ranks i/3 + 1.
func sumRanks(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i/3 + 1
	}
	return s
}
