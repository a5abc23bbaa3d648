package kafka

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestSinkSkipsOversizedRecords writes rows through a PLAIN sink whose
// max.record.bytes is small: a row whose record would be larger is
// skipped and counted (weir.sinks.records_skipped) instead of failing
// every retry of its epoch, and the rows around it reach the topic.
func TestSinkSkipsOversizedRecords(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "small", 1)
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"CREATE TABLE notes (id int PRIMARY KEY, body text) APPEND ONLY",
		fmt.Sprintf(`CREATE SINK notes_out FROM notes WITH (connector = 'kafka', topic = 'small',
			properties.bootstrap.server = '%s', max.record.bytes = '200') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"INSERT INTO notes VALUES (1, 'short')",
		"INSERT INTO notes VALUES (2, '"+strings.Repeat("x", 500)+"')",
		"INSERT INTO notes VALUES (3, 'also short')",
		"FLUSH",
	)
	want := []string{`{"id":1,"body":"short"}`, `{"id":3,"body":"also short"}`}
	kafkatest.Eventually(t, 30*time.Second, "the sink topic holds the two short rows", func() (bool, string) {
		got := kafkatest.Values(kafkatest.Consume(t, w.KafkaAddr, "small"))
		slices.Sort(got)
		return slices.Equal(got, want), strings.Join(got, "\n")
	})
	rows := kafkatest.Query(t, w.ConnString(), "SELECT records_written, records_skipped FROM weir.sinks WHERE name = 'notes_out'")
	if len(rows) != 1 || rows[0][0] != "2" || rows[0][1] != "1" {
		t.Fatalf("weir.sinks records_written, records_skipped = %v, want [[2 1]]", rows)
	}
}
