package kafka

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// dashboardPath is the Grafana dashboard shipped with weir.
var dashboardPath = filepath.Join("..", "..", "grafana", "weir.json")

// dashboard is the part of Grafana's dashboard JSON model the test reads.
type dashboard struct {
	Title         string           `json:"title"`
	UID           string           `json:"uid"`
	SchemaVersion int              `json:"schemaVersion"`
	Panels        []dashboardPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type dashboardPanel struct {
	ID         int              `json:"id"`
	Type       string           `json:"type"`
	Title      string           `json:"title"`
	Datasource *json.RawMessage `json:"datasource"`
	Targets    []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row's
}

// TestGrafanaDashboard checks grafana/weir.json against a running weir:
// every metric name its PromQL queries (and its variables) is one that
// weir's /metrics exports while a Kafka source, a materialized view and
// a sink run; it covers checkpoints, source lag, sinks, jobs,
// backpressure and memory; and it is well formed (a schema version,
// unique panel ids, a data source on every query panel).
func TestGrafanaDashboard(t *testing.T) {
	kafkatest.Kcat(t)
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	if d.SchemaVersion < 36 || d.Title == "" || d.UID == "" {
		t.Errorf("dashboard title %q, uid %q, schemaVersion %d: want a title, a uid and a current schema (36 or later)", d.Title, d.UID, d.SchemaVersion)
	}
	queries := map[string]string{} // expression → where
	ids := map[int]bool{}
	var walk func([]dashboardPanel)
	walk = func(ps []dashboardPanel) {
		for _, p := range ps {
			if ids[p.ID] {
				t.Errorf("panel id %d is used twice", p.ID)
			}
			ids[p.ID] = true
			if p.Type != "row" && (p.Datasource == nil || len(p.Targets) == 0) {
				t.Errorf("panel %q has no data source or no query", p.Title)
			}
			for _, q := range p.Targets {
				queries[q.Expr] = "panel " + strconv.Quote(p.Title)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			queries[v.Definition] = "variable " + v.Name
		}
	}

	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	maddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	w := kafkatest.StartWeir(t, kafkatest.Options{Args: []string{"--metrics-listen", maddr}})
	kafkatest.CreateTopic(t, w.KafkaAddr, "d_in", 1)
	kafkatest.CreateTopic(t, w.KafkaAddr, "d_out", 1)
	conn := w.ConnString()
	kafkatest.Exec(t, conn,
		fmt.Sprintf(`CREATE SOURCE d_in (id int) WITH (connector = 'kafka', topic = 'd_in',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW d_count AS SELECT id % 3 AS g, count(*) AS n FROM d_in GROUP BY id % 3",
		fmt.Sprintf(`CREATE SINK d_out AS SELECT id FROM d_in WITH (connector = 'kafka', topic = 'd_out',
			properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"CREATE TABLE d_t (id int PRIMARY KEY)",
		"INSERT INTO d_t VALUES (1)",
	)
	kafkatest.Produce(t, w.KafkaAddr, "d_in", `{"id":1}`, `{"id":2}`, `{"id":3}`)
	var m testenv.Metrics
	kafkatest.Eventually(t, time.Minute, "the sink's records and the source's lag exported", func() (bool, string) {
		m = testenv.Scrape(t, maddr)
		recs, _ := m.Value("weir_sink_records_total", "sink", "d_out")
		_, lag := m.Value("weir_source_lag_records", "job", "d_count")
		return recs == 3 && lag, m.Series("weir_sink_records_total")
	})
	exported := map[string]bool{}
	for _, n := range m.Names() {
		exported[n] = true
	}

	used := map[string]bool{}
	for q, where := range queries {
		names := promQLMetrics(q)
		if len(names) == 0 {
			t.Errorf("%s: no metric name found in %q", where, q)
		}
		for _, n := range names {
			used[n] = true
			if !exported[n] {
				t.Errorf("%s queries %s, which weir does not export", where, n)
			}
		}
	}
	for _, n := range []string{
		"weir_checkpoints_total", "weir_checkpoint_duration_seconds_bucket", // checkpoints
		"weir_source_lag_records",                         // lag
		"weir_sink_transactions_total", "weir_sink_state", // sinks
		"weir_job_state", "weir_job_restarts_total", // jobs
		"weir_operator_backpressure_seconds_total",                // backpressure
		"weir_state_cache_bytes", "weir_state_cache_budget_bytes", // memory
	} {
		if !used[n] {
			t.Errorf("the dashboard does not show %s", n)
		}
	}
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promBraces   = regexp.MustCompile(`\{[^}]*\}`)
	promRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
		"group_right": true, "bool": true, "and": true, "or": true, "unless": true, "offset": true, "inf": true, "nan": true}
)

// promQLMetrics returns the metric names a PromQL expression (or a
// Grafana label_values(metric, label) query) reads: the identifiers that
// are not functions, keywords, label names or literals.
func promQLMetrics(q string) []string {
	q = promString.ReplaceAllString(q, `""`)
	q = promBraces.ReplaceAllString(q, "")
	q = promRange.ReplaceAllString(q, "")
	q = promGrouping.ReplaceAllString(q, "")
	if strings.HasPrefix(q, "label_values(") {
		q = strings.TrimPrefix(q, "label_values(")
		q, _, _ = strings.Cut(q, ",")
	}
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(q, -1) {
		id := q[loc[0]:loc[1]]
		rest := strings.TrimLeft(q[loc[1]:], " ")
		if strings.HasPrefix(rest, "(") || promKeywords[strings.ToLower(id)] || strings.HasPrefix(id, "$") {
			continue
		}
		if loc[0] > 0 && (q[loc[0]-1] == '$' || q[loc[0]-1] == '.' || q[loc[0]-1] >= '0' && q[loc[0]-1] <= '9') {
			continue // a variable or part of a number
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// TestPromQLMetrics checks the metric name extraction the dashboard test
// relies on.
func TestPromQLMetrics(t *testing.T) {
	for q, want := range map[string]string{
		`sum by (outcome) (rate(weir_checkpoints_total[$__rate_interval]))`:                                                        "weir_checkpoints_total",
		`histogram_quantile(0.99, sum by (le) (rate(weir_checkpoint_duration_seconds_bucket[5m])))`:                                "weir_checkpoint_duration_seconds_bucket",
		`weir_source_lag_records{job=~"$job", source!="x y"}`:                                                                      "weir_source_lag_records",
		`rate(a_sum[1m]) / rate(a_count[1m])`:                                                                                      "a_sum a_count",
		`label_values(weir_job_state, job)`:                                                                                        "weir_job_state",
		`sum(rate(x_total[1m])) / (sum(rate(x_total[1m])) + sum without (instance) (rate(y_total[1m]))) > bool 0.5 and on (job) z`: "x_total y_total z",
	} {
		if got := strings.Join(promQLMetrics(q), " "); got != want {
			t.Errorf("promQLMetrics(%q) = %q, want %q", q, got, want)
		}
	}
}
