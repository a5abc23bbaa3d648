package kafka

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestShowCreateSinkRunsAgain creates a sink in a session whose TimeZone
// is Asia/Tokyo over a query whose result depends on it, and checks that
// SHOW CREATE SINK, read from a UTC session, names the time zone the sink
// runs in, and that dropping the sink and running that text again from
// the UTC session writes the same record as the first sink did.
func TestShowCreateSinkRunsAgain(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	addr := w.KafkaAddr
	kafkatest.CreateTopic(t, addr, "days", 1)
	kafkatest.Exec(t, w.ConnString(),
		"CREATE TABLE stamps (ts timestamptz) APPEND ONLY",
		"INSERT INTO stamps VALUES ('2024-01-01 20:00:00+00')",
		"SET TimeZone = 'Asia/Tokyo'",
		fmt.Sprintf(`CREATE SINK "Day Sink" AS SELECT date_trunc('day', ts)::text AS d FROM stamps
			WITH (connector = 'kafka', topic = 'days', properties.bootstrap.server = '%s')
			FORMAT PLAIN ENCODE JSON (force_append_only = 'true')`, addr),
	)
	rows := kafkatest.Query(t, w.ConnString(), `SHOW CREATE SINK "Day Sink"`)
	if len(rows) != 1 || len(rows[0]) != 2 {
		t.Fatalf("SHOW CREATE SINK: %v", rows)
	}
	def := rows[0][1]
	for _, want := range []string{`CREATE SINK "Day Sink" AS SELECT`, "timezone = 'Asia/Tokyo'", "force_append_only = 'true'", "FORMAT PLAIN ENCODE JSON"} {
		if !strings.Contains(def, want) {
			t.Errorf("SHOW CREATE SINK gives %q, which lacks %q", def, want)
		}
	}
	want := `{"d":"2024-01-02 00:00:00+09"}`
	kafkatest.Eventually(t, time.Minute, "the first sink's record", func() (bool, string) {
		v := kafkatest.Values(kafkatest.ConsumeIsolation(t, addr, "days", "read_committed"))
		return len(v) == 1, strings.Join(v, " ")
	})
	kafkatest.Exec(t, w.ConnString(), `DROP SINK "Day Sink"`, def)
	kafkatest.Eventually(t, time.Minute, "both sinks' records", func() (bool, string) {
		v := kafkatest.Values(kafkatest.ConsumeIsolation(t, addr, "days", "read_committed"))
		return len(v) == 2 && v[0] == want && v[1] == want, strings.Join(v, " ")
	})
}
