package kafka

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestDomainRecordsMalformed: a record whose value violates the domain
// of a source's or a Kafka table's column is a malformed record, listed
// in weir.source_errors with PostgreSQL's message as its reason; the
// records around it, and those after it, reach the view and the table,
// and the jobs keep running.
func TestDomainRecordsMalformed(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "dom", 1)
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"CREATE DOMAIN posint AS int NOT NULL CHECK (VALUE > 0)",
		fmt.Sprintf(`CREATE SOURCE dsrc (k int, v posint) WITH (connector = 'kafka', topic = 'dom',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW dsum AS SELECT count(*) AS n, sum(v) AS s FROM dsrc",
		fmt.Sprintf(`CREATE TABLE dtab (k int PRIMARY KEY, v posint) WITH (connector = 'kafka', topic = 'dom',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
	)
	kafkatest.Produce(t, w.KafkaAddr, "dom", `{"k":1,"v":5}`, `{"k":2,"v":-5}`, `{"k":3}`, `{"k":4,"v":7}`)
	wait := func(wantSum, wantTab string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "dsum = "+wantSum+", dtab = "+wantTab, func() (bool, string) {
			sum, err := kafkatest.QueryErr(w.ConnString(), "SELECT n, s FROM dsum")
			if err != nil {
				return false, err.Error()
			}
			tab, err := kafkatest.QueryErr(w.ConnString(), "SELECT k, v FROM dtab ORDER BY k")
			if err != nil {
				return false, err.Error()
			}
			return fmt.Sprint(sum) == wantSum && fmt.Sprint(tab) == wantTab, fmt.Sprint(sum, tab)
		})
	}
	wait("[[2 12]]", "[[1 5] [4 7]]")
	reasons := map[string]string{}
	for _, r := range kafkatest.Query(t, w.ConnString(), `SELECT source, "offset", reason FROM weir.source_errors ORDER BY 1, 2`) {
		reasons[r[0]+"@"+r[1]] = r[2]
	}
	for _, src := range []string{"dsrc", "dtab"} {
		if r := reasons[src+"@1"]; !strings.Contains(r, `value for domain posint violates check constraint "posint_check"`) {
			t.Errorf("%s offset 1: reason %q", src, r)
		}
		if r := reasons[src+"@2"]; !strings.Contains(r, "domain posint does not allow null values") {
			t.Errorf("%s offset 2: reason %q", src, r)
		}
	}
	kafkatest.Produce(t, w.KafkaAddr, "dom", `{"k":5,"v":0}`, `{"k":6,"v":1}`)
	wait("[[3 13]]", "[[1 5] [4 7] [6 1]]")
}
