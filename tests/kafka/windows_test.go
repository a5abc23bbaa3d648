package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestTimeWindowsOverSource runs TUMBLE and HOP over a Kafka source: a
// materialized view of hopping-window counts and an UPSERT sink of
// tumbling-window counts, both fed by JSON events produced with kcat, and
// compares them with the windows computed here (events before 1970
// included; events without a time count in no hopping window and in the
// NULL tumbling window, which the sink leaves out by filtering).
func TestTimeWindowsOverSource(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "clicks", 2)

	// 300 events 7 seconds apart from 1969-12-31 23:50:00; every 25th
	// has no time.
	base := time.Date(1969, 12, 31, 23, 50, 0, 0, time.UTC)
	var vals []string
	hop := map[string]int64{}    // window_start of a 1-minute-slide, 3-minute window → events
	tumble := map[string]int64{} // window_start of a 2-minute window → events
	for i := 0; i < 300; i++ {
		if i%25 == 0 {
			vals = append(vals, fmt.Sprintf(`{"id": %d, "ts": null}`, i))
			continue
		}
		ts := base.Add(time.Duration(i) * 7 * time.Second)
		vals = append(vals, fmt.Sprintf(`{"id": %d, "ts": "%s"}`, i, ts.Format("2006-01-02 15:04:05")))
		last := floorTime(ts, time.Minute)
		for k := 0; k < 3; k++ {
			hop[last.Add(-time.Duration(k)*time.Minute).Format("2006-01-02 15:04:05")]++
		}
		tumble[floorTime(ts, 2*time.Minute).Format("2006-01-02 15:04:05")]++
	}
	kafkatest.Produce(t, w.KafkaAddr, "clicks", vals...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, w.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, stmt := range []string{
		fmt.Sprintf(`CREATE SOURCE clicks (id bigint, ts timestamp)
			WITH (connector = 'kafka', topic = 'clicks', properties.bootstrap.server = '%s', scan.startup.mode = 'earliest')
			FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		`CREATE MATERIALIZED VIEW hop_counts AS
			SELECT window_start, count(*) AS n FROM HOP(clicks, ts, INTERVAL '1 minute', INTERVAL '3 minutes') GROUP BY window_start`,
		fmt.Sprintf(`CREATE SINK tumble_out AS
			SELECT window_start, window_end, count(*) AS n FROM TUMBLE(clicks, ts, INTERVAL '2 minutes')
			WHERE ts IS NOT NULL GROUP BY window_start, window_end
			WITH (connector = 'kafka', topic = 'tumble_out', properties.bootstrap.server = '%s', primary_key = 'window_start')
			FORMAT UPSERT ENCODE JSON`, w.KafkaAddr),
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	// The source is read asynchronously: wait until the view has seen
	// every event, then compare it window by window.
	var total int64
	for total != 3*(300-12) {
		if err := ctx.Err(); err != nil {
			t.Fatalf("hop_counts saw %d window rows, want %d", total, 3*(300-12))
		}
		time.Sleep(50 * time.Millisecond)
		if err := conn.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::bigint FROM hop_counts").Scan(&total); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int64{}
	rows, err := conn.Query(ctx, "SELECT window_start::text, n FROM hop_counts")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ws string
		var n int64
		if err := rows.Scan(&ws, &n); err != nil {
			t.Fatal(err)
		}
		got[ws] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, hop) {
		t.Fatalf("hop_counts: %d windows %v\nwant %d windows %v", len(got), got, len(hop), hop)
	}

	// The sink delivers its epochs once they are checkpointed (creating
	// its topic with the first): wait until the latest record of every
	// window holds its full count.
	for {
		latest := map[string]int64{}
		var recs []kafkatest.Record
		if kafkatest.TopicExists(t, w.KafkaAddr, "tumble_out") {
			recs = kafkatest.Consume(t, w.KafkaAddr, "tumble_out")
		}
		for _, r := range recs {
			var v struct {
				WindowStart string `json:"window_start"`
				N           int64  `json:"n"`
			}
			if err := json.Unmarshal([]byte(r.Value), &v); err != nil {
				t.Fatalf("sink record %v: %v", r, err)
			}
			latest[v.WindowStart] = v.N
		}
		if maps.Equal(latest, tumble) {
			break
		}
		if err := ctx.Err(); err != nil {
			t.Fatalf("tumble_out: %v\nwant %v", latest, tumble)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// floorTime returns the start of the window of size d holding t, counted
// from 1970-01-01 00:00:00 UTC (floor division, also before 1970).
func floorTime(t time.Time, d time.Duration) time.Time {
	us := t.UnixMicro()
	size := d.Microseconds()
	r := us % size
	if r < 0 {
		r += size
	}
	return time.UnixMicro(us - r).UTC()
}
