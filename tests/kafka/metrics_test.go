package kafka

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// TestMetricsWhileStreaming scrapes /metrics while a Kafka pipeline
// streams: a source on weir's embedded broker read by a materialized view
// and by an exactly-once sink whose own broker (a process of its own) is
// killed and restarted. It checks that the series move as they should:
// checkpoints succeed and are timed; the source's records are counted
// and its lag falls to 0 once everything is committed; with the sink's
// broker down, checkpoints fail (their counter rises) and the sink job's
// lag grows with every record produced, since no checkpoint can commit
// its position; once the broker is back the lag falls to 0 again and the
// sink commits transactions, some of them again after the recovery.
func TestMetricsWhileStreaming(t *testing.T) {
	kafkatest.Kcat(t)
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	maddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	sb := kafkatest.StartBroker(t, "")
	w := kafkatest.StartWeir(t, kafkatest.Options{Args: []string{"--metrics-listen", maddr}})
	kafkatest.CreateTopic(t, w.KafkaAddr, "m_in", 2)
	kafkatest.CreateTopic(t, sb.Addr, "m_out", 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf(`CREATE SOURCE m_in (id int) WITH (connector = 'kafka', topic = 'm_in',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW m_count AS SELECT count(*) AS n FROM m_in",
		fmt.Sprintf(`CREATE SINK m_out AS SELECT id FROM m_in WITH (connector = 'kafka', topic = 'm_out',
			properties.bootstrap.server = '%s', properties.delivery.timeout.ms = '2000', sink.decouple = 'false') FORMAT PLAIN ENCODE JSON`, sb.Addr),
	)
	produce := func(from, n int) {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf(`{"id":%d}`, from+i)
		}
		kafkatest.Produce(t, w.KafkaAddr, "m_in", vals...)
	}
	scrape := func() testenv.Metrics { return testenv.Scrape(t, maddr) }
	// lag sums the lag of job's partitions of m_in; false while some
	// partition has no lag series yet.
	lag := func(m testenv.Metrics, job string) (float64, bool) {
		n := 0
		var sum float64
		for _, s := range m["weir_source_lag_records"] {
			if s.Labels["source"] == "m_in" && s.Labels["job"] == job {
				n++
				sum += s.Value
			}
		}
		return sum, n == 2
	}
	value := func(m testenv.Metrics, name string, match ...string) float64 {
		v, _ := m.Value(name, match...)
		return v
	}

	produce(0, 100)
	kafkatest.Eventually(t, time.Minute, "the view counting 100 records and both jobs' lag at 0", func() (bool, string) {
		rows := kafkatest.Query(t, conn, "SELECT n FROM m_count")
		m := scrape()
		lv, lok := lag(m, "m_count")
		ls, sok := lag(m, "m_out")
		return len(rows) == 1 && rows[0][0] == "100" && lok && sok && lv == 0 && ls == 0,
			fmt.Sprintf("rows %v\n%s", rows, m.Series("weir_source_lag_records"))
	})
	m := scrape()
	if v := value(m, "weir_checkpoints_total", "outcome", "succeeded"); v < 1 {
		t.Errorf("weir_checkpoints_total{outcome=succeeded} = %g, want > 0", v)
	}
	if v := value(m, "weir_checkpoint_duration_seconds_count"); v < 1 {
		t.Errorf("weir_checkpoint_duration_seconds_count = %g, want > 0", v)
	}
	if v := value(m, "weir_checkpoint_committed_epoch"); v <= 0 {
		t.Errorf("weir_checkpoint_committed_epoch = %g, want > 0", v)
	}
	if v := value(m, "weir_source_records_total", "source", "m_in", "job", "m_count"); v != 100 {
		t.Errorf("weir_source_records_total{job=m_count} = %g, want 100\n%s", v, m.Series("weir_source_records_total"))
	}
	if v := value(m, "weir_operator_rows_out_total", "job", "m_count", "operator", "StreamSource"); v != 100 {
		t.Errorf("StreamSource of m_count emitted %g rows, want 100\n%s", v, m.Series("weir_operator_rows_out_total", "job", "m_count"))
	}
	kafkatest.Eventually(t, time.Minute, "the sink's 100 records committed", func() (bool, string) {
		m := scrape()
		return value(m, "weir_sink_records_total", "sink", "m_out") == 100 &&
				value(m, "weir_sink_transactions_total", "sink", "m_out", "outcome", "committed") >= 1,
			m.Series("weir_sink_records_total") + "\n" + m.Series("weir_sink_transactions_total")
	})
	if v := value(m, "weir_job_state", "job", "m_out", "state", "running"); v != 1 {
		t.Errorf("weir_job_state{job=m_out,state=running} = %g, want 1\n%s", v, m.Series("weir_job_state", "job", "m_out"))
	}
	restartsBefore := value(m, "weir_job_restarts_total", "job", "m_out")

	// The sink's broker goes away: the coupled sink's job cannot
	// pre-commit, fails and restarts alone by its strategy from its
	// committed positions, which stay while the topic grows.
	sb.Kill()
	produce(100, 50)
	var lagDown float64
	kafkatest.Eventually(t, 2*time.Minute, "a restart of the sink job and its lag at 50 or more", func() (bool, string) {
		m := scrape()
		l, ok := lag(m, "m_out")
		lagDown = l
		restarts := value(m, "weir_job_restarts_total", "job", "m_out")
		return ok && l >= 50 && restarts > restartsBefore,
			fmt.Sprintf("restarts %g (before %g)\n%s", restarts, restartsBefore, m.Series("weir_source_lag_records"))
	})
	produce(150, 30)
	kafkatest.Eventually(t, 2*time.Minute, "the sink job's lag growing by the 30 new records", func() (bool, string) {
		m := scrape()
		l, ok := lag(m, "m_out")
		return ok && l >= lagDown+30, fmt.Sprintf("lag %g, was %g\n%s", l, lagDown, m.Series("weir_source_lag_records"))
	})
	// The catalog tells the same story: the job's error naming the sink,
	// the sink's error, and its lag per partition.
	if rows := kafkatest.Query(t, conn, "SELECT count(*) FROM weir.jobs WHERE name = 'm_out' AND last_error LIKE '%sink%'"); rows[0][0] == "0" {
		t.Errorf("weir.jobs shows no error of the sink m_out")
	}
	if rows := kafkatest.Query(t, conn, "SELECT sqlstate FROM weir.stream_errors WHERE view = 'm_out' AND operator = 'sink m_out'"); len(rows) != 1 || rows[0][0] != "08000" {
		t.Errorf("weir.stream_errors of the sink m_out: %v, want one row of SQLSTATE 08000", rows)
	}
	kafkatest.Eventually(t, time.Minute, "weir.source_partitions showing the sink job's lag", func() (bool, string) {
		rows, err := kafkatest.QueryErr(conn, "SELECT sum(lag) FROM weir.source_partitions WHERE job = 'm_out'")
		if err != nil {
			return false, err.Error()
		}
		n, err := strconv.Atoi(rows[0][0])
		return err == nil && n >= 80, fmt.Sprint(rows)
	})
	m = scrape()
	if v := value(m, "weir_job_restarts_total", "job", "m_out"); v < 1 {
		t.Errorf("weir_job_restarts_total{job=m_out} = %g after failed checkpoints, want > 0", v)
	}
	if v := value(m, "weir_checkpoint_seconds_since_last_success"); v < 0 {
		t.Errorf("weir_checkpoint_seconds_since_last_success = %g, want >= 0", v)
	}

	// The broker is back: the backlog commits and the lag falls to 0.
	sb.Restart()
	kafkatest.Eventually(t, 3*time.Minute, "every job's lag back at 0 and 180 records counted", func() (bool, string) {
		rows, err := kafkatest.QueryErr(conn, "SELECT n FROM m_count")
		m := scrape()
		lv, lok := lag(m, "m_count")
		ls, sok := lag(m, "m_out")
		return err == nil && len(rows) == 1 && rows[0][0] == "180" && lok && sok && lv == 0 && ls == 0,
			fmt.Sprintf("rows %v %v\n%s", rows, err, m.Series("weir_source_lag_records"))
	})
	kafkatest.Eventually(t, time.Minute, "the sink committing again", func() (bool, string) {
		m := scrape()
		c := value(m, "weir_sink_transactions_total", "sink", "m_out", "outcome", "committed")
		hwm := value(m, "weir_source_high_watermark", "source", "m_in")
		return c >= 2 && hwm == 180, fmt.Sprintf("committed %g, high watermark %g\n%s", c, hwm,
			strings.Join([]string{m.Series("weir_sink_transactions_total"), m.Series("weir_sink_state")}, "\n"))
	})
}
