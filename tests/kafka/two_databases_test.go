package kafka

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestTwoDatabasesOneBroker runs two fresh weir databases against one
// broker, each with a sink of the same relation id: their transactional
// ids must differ (the default prefix carries a per-database id), or the
// second fences the first and neither sink makes progress.
func TestTwoDatabasesOneBroker(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	for _, db := range []string{"a", "b"} {
		kafkatest.CreateTopic(t, b.Addr, "out_"+db, 1)
	}
	var servers []*kafkatest.Weir
	for _, db := range []string{"a", "b"} {
		w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
		servers = append(servers, w)
		kafkatest.Exec(t, w.ConnString(),
			fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
			"CREATE TABLE t (id int PRIMARY KEY) APPEND ONLY",
			fmt.Sprintf(`CREATE SINK s FROM t WITH (connector = 'kafka', topic = 'out_%s',
				properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, db, b.Addr),
		)
	}
	for round := 1; round <= 3; round++ {
		for _, w := range servers {
			kafkatest.Exec(t, w.ConnString(), fmt.Sprintf("INSERT INTO t VALUES (%d)", round), "FLUSH")
		}
	}
	want := []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}
	for _, db := range []string{"a", "b"} {
		kafkatest.Eventually(t, 30*time.Second, "out_"+db+" holds the three rows", func() (bool, string) {
			got := kafkatest.Values(kafkatest.Consume(t, b.Addr, "out_"+db))
			slices.Sort(got)
			return slices.Equal(got, want), strings.Join(got, " ")
		})
	}
}
