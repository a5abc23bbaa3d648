package kafka

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestSinkBrokerDownFailsWrites stops the broker of a coupled
// (sink.decouple = 'false') exactly-once sink (a broker in a process of
// its own, killed with SIGKILL) and checks that
// a write then fails with an error within the sink's delivery timeout
// instead of waiting for the broker forever (every write waits for its
// checkpoint, which waits for the sink's pre-commit); that writes succeed
// again once the broker is back; and that the sink topic, read at
// read_committed, then holds each row of the table exactly once.
func TestSinkBrokerDownFailsWrites(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{Broker: b})
	kafkatest.CreateTopic(t, b.Addr, "rows_out", 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		"CREATE TABLE rows_in (id int) APPEND ONLY",
		fmt.Sprintf(`CREATE SINK rows_out FROM rows_in WITH (connector = 'kafka', topic = 'rows_out',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000', sink.decouple = 'false')
			FORMAT PLAIN ENCODE JSON`, b.Addr),
		"INSERT INTO rows_in VALUES (1)",
	)
	sinkRows := func() []string {
		vals := kafkatest.Values(kafkatest.ConsumeIsolation(t, b.Addr, "rows_out", "read_committed"))
		slices.Sort(vals)
		return vals
	}
	kafkatest.Eventually(t, time.Minute, "row 1 in the sink", func() (bool, string) {
		v := sinkRows()
		return slices.Equal(v, []string{`{"id":1}`}), strings.Join(v, " ")
	})

	b.Kill()
	start := time.Now()
	_, err := kafkatest.QueryErr(conn, "INSERT INTO rows_in VALUES (2)")
	if err == nil {
		t.Fatalf("INSERT with the sink's broker down succeeded")
	}
	t.Logf("INSERT with the broker down failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	if !strings.Contains(err.Error(), "SQLSTATE 08000") || !strings.Contains(err.Error(), "rows_out") {
		t.Errorf("the error does not name the sink with SQLSTATE 08000: %v", err)
	}

	b.Restart()
	kafkatest.Eventually(t, 2*time.Minute, "an INSERT succeeding with the broker back", func() (bool, string) {
		_, err := kafkatest.QueryErr(conn, "INSERT INTO rows_in VALUES (3)")
		return err == nil, fmt.Sprint(err)
	})
	var want []string
	for _, r := range kafkatest.Query(t, conn, "SELECT id FROM rows_in") {
		want = append(want, fmt.Sprintf(`{"id":%s}`, r[0]))
	}
	slices.Sort(want)
	if !slices.Contains(want, `{"id":1}`) || !slices.Contains(want, `{"id":3}`) {
		t.Fatalf("rows_in holds %v, want rows 1 and 3", want)
	}
	kafkatest.Eventually(t, time.Minute, "the sink equal to the table", func() (bool, string) {
		v := sinkRows()
		return slices.Equal(v, want), fmt.Sprintf("sink %v, table %v", v, want)
	})
}
