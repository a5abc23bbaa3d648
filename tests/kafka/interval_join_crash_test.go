package kafka

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestIntervalJoinExactlyOnceAcrossKills streams orders and payments
// from two sources with watermarks through an interval join (a payment
// counts for an order when it comes within 30 seconds after it) into a
// PLAIN sink, and SIGKILLs weir several times while the events arrive.
// The join cleans its state as the watermarks pass, so a recovery must
// restore both the rows still held and the cleaning already done. At the
// end a read_committed consumer of the sink's topic sees every matching
// (order, payment) pair exactly once, and no other, and the view over
// the same join holds the same pairs.
func TestIntervalJoinExactlyOnceAcrossKills(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	for _, topic := range []string{"orders", "payments", "paid"} {
		kafkatest.CreateTopic(t, b.Addr, topic, 1)
	}
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.KeepLogs(t, w.LogPath, b.LogPath)
	conn := w.ConnString()
	source := func(name string) string {
		return fmt.Sprintf(`CREATE SOURCE %s (id bigint, oid bigint, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second')
			WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, name, name, b.Addr)
	}
	const join = `SELECT o.id AS oid, p.id AS pid FROM orders o JOIN payments p
		ON p.oid = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '30 seconds'`
	kafkatest.Exec(t, conn,
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		source("orders"),
		source("payments"),
		"CREATE MATERIALIZED VIEW paid AS "+join,
		fmt.Sprintf(`CREATE SINK paid_out AS %s
			WITH (connector = 'kafka', topic = 'paid', properties.bootstrap.server = '%s')
			FORMAT PLAIN ENCODE JSON`, join, b.Addr),
	)

	// Order i is placed at start + 5i s. It has two payments, after a
	// delay of (7i mod 45) s and ((11i+3) mod 45) s, and every fifth
	// order a third one second before it was placed: a payment matches
	// when its delay is in [0 s, 30 s].
	const orders, batches, kills = 3000, 10, 5
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	type event struct {
		id, oid int
		ts      time.Time
	}
	var ords, ps []event
	var want []string
	pay := func(oid int, delay time.Duration) {
		id := len(ps)
		ps = append(ps, event{id, oid, ords[oid].ts.Add(delay)})
		if delay >= 0 && delay <= 30*time.Second {
			want = append(want, fmt.Sprintf(`{"oid":%d,"pid":%d}`, oid, id))
		}
	}
	for i := 0; i < orders; i++ {
		ords = append(ords, event{i, i, start.Add(time.Duration(5*i) * time.Second)})
		pay(i, time.Duration(7*i%45)*time.Second)
		pay(i, time.Duration((11*i+3)%45)*time.Second)
		if i%5 == 0 {
			pay(i, -time.Second)
		}
	}
	// Each topic is produced in event-time order, so no row is late.
	slices.SortStableFunc(ps, func(a, b event) int { return a.ts.Compare(b.ts) })
	slices.Sort(want)
	lines := func(evs []event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, fmt.Sprintf(`{"id": %d, "oid": %d, "ts": "%s"}`, e.id, e.oid, e.ts.Format("2006-01-02 15:04:05")))
		}
		return out
	}
	ol, pl := lines(ords), lines(ps)
	for k := 0; k < batches; k++ {
		from, to := k*len(ol)/batches, (k+1)*len(ol)/batches
		if err := kafkatest.ProduceLines(b.Addr, "orders", ol[from:to]); err != nil {
			t.Fatal(err)
		}
		from, to = k*len(pl)/batches, (k+1)*len(pl)/batches
		if err := kafkatest.ProduceLines(b.Addr, "payments", pl[from:to]); err != nil {
			t.Fatal(err)
		}
		if k%2 == 1 && k/2 < kills {
			time.Sleep(time.Duration(150+41*k) * time.Millisecond)
			n := len(kafkatest.Consume(t, b.Addr, "paid"))
			w.Kill()
			t.Logf("SIGKILL %d after batch %d, %d pairs committed in the sink", k/2+1, k+1, n)
			w.Restart()
		}
	}
	kafkatest.Eventually(t, 2*time.Minute, "every matching pair in the sink exactly once", func() (bool, string) {
		got := kafkatest.Values(kafkatest.ConsumeIsolation(t, b.Addr, "paid", "read_committed"))
		slices.Sort(got)
		if len(got) > len(want) {
			return false, fmt.Sprintf("%d records for %d pairs", len(got), len(want))
		}
		return slices.Equal(got, want), fmt.Sprintf("%d of %d pairs", len(got), len(want))
	})
	if dups := kafkatest.Duplicates(kafkatest.ConsumeIsolation(t, b.Addr, "paid", "read_committed")); len(dups) > 0 {
		t.Fatalf("duplicates in the sink: %v", dups)
	}
	rows := kafkatest.Query(t, conn, "SELECT oid, pid FROM paid ORDER BY oid, pid")
	var view []string
	for _, r := range rows {
		view = append(view, fmt.Sprintf(`{"oid":%s,"pid":%s}`, r[0], r[1]))
	}
	slices.SortFunc(view, cmp.Compare)
	if !slices.Equal(view, want) {
		t.Fatalf("view paid holds %d pairs, want %d", len(view), len(want))
	}
}
