package kafka

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestSinkKeyNarrowerThanStreamKey writes a left join through an UPSERT
// and a DEBEZIUM sink created FROM its view with primary_key = 'aid',
// while the view's stream key also holds the hidden row ids of both
// sides. With two actors per fragment, the change of one aid in an epoch
// (the NULL-padded row deleted, the matched row inserted: two stream keys)
// reaches the sink's actor from two actors, in either order; the sink
// must still end every key with the view's row. The test checks, after
// each of several epochs that match, unmatch, remove and add rows, that
// the latest committed record of every key in both topics equals the
// view, and that a key the view no longer has ends with a delete.
func TestSinkKeyNarrowerThanStreamKey(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	addr := w.KafkaAddr
	for _, topic := range []string{"lj_upsert", "lj_debezium"} {
		kafkatest.CreateTopic(t, addr, topic, 3)
	}
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		"SET streaming_parallelism = 2",
		"CREATE TABLE la (id int PRIMARY KEY)",
		"CREATE TABLE lb (id int PRIMARY KEY, aid int)",
		"CREATE MATERIALIZED VIEW lj AS SELECT la.id aid, lb.id bid FROM la LEFT JOIN lb ON lb.aid = la.id",
		fmt.Sprintf(`CREATE SINK lj_upsert FROM lj WITH (connector = 'kafka', topic = 'lj_upsert',
			properties.bootstrap.server = '%s', primary_key = 'aid') FORMAT UPSERT ENCODE JSON`, addr),
		fmt.Sprintf(`CREATE SINK lj_debezium FROM lj WITH (connector = 'kafka', topic = 'lj_debezium',
			properties.bootstrap.server = '%s', primary_key = 'aid') FORMAT DEBEZIUM ENCODE JSON`, addr),
	)
	// Each step is one epoch: a statement, or a transaction block whose
	// changes reach the sinks together.
	steps := []struct {
		what  string
		stmts []string
	}{
		{"1,000 unmatched rows", []string{"INSERT INTO la SELECT g FROM generate_series(1, 1000) g"}},
		{"every row matched", []string{"INSERT INTO lb SELECT g, g FROM generate_series(1, 1000) g"}},
		{"rows 1-300 unmatched again", []string{"DELETE FROM lb WHERE id <= 300"}},
		{"rows 901-1000 removed", []string{"DELETE FROM la WHERE id > 900"}},
		{"rows 1001-1200 added and matched in one epoch", []string{"BEGIN",
			"INSERT INTO la SELECT g FROM generate_series(1001, 1200) g",
			"INSERT INTO lb SELECT g, g FROM generate_series(1001, 1200) g", "COMMIT"}},
		{"rows 1201-1300 added and removed in one epoch", []string{"BEGIN",
			"INSERT INTO la SELECT g FROM generate_series(1201, 1300) g",
			"INSERT INTO lb SELECT g, g FROM generate_series(1201, 1300) g",
			"DELETE FROM la WHERE id > 1200", "COMMIT"}},
	}
	for _, s := range steps {
		kafkatest.Exec(t, w.ConnString(), append(s.stmts, "FLUSH")...)
		view := map[string]string{}
		for _, r := range kafkatest.Query(t, w.ConnString(), "SELECT aid, bid FROM lj") {
			view[r[0]] = ljRow(r[0], r[1])
		}
		waitSinksCommitted(t, w, "lj_upsert", "lj_debezium")
		checkLatest(t, s.what, "lj_upsert", upsertRows(t, kafkatest.Consume(t, addr, "lj_upsert")), view)
		checkLatest(t, s.what, "lj_debezium", debeziumRows(t, kafkatest.Consume(t, addr, "lj_debezium")), view)
		if t.Failed() {
			return
		}
	}
}

// ljRow renders a row of lj as the tests compare it.
func ljRow(aid, bid string) string { return "aid=" + aid + " bid=" + bid }

// waitSinksCommitted waits until none of the sinks has a pre-committed
// transaction left uncommitted or an epoch left in its log store: after
// a FLUSH, every record of the flushed epochs is then visible at
// read_committed.
func waitSinksCommitted(t *testing.T, w *kafkatest.Weir, sinks ...string) {
	t.Helper()
	q := "SELECT name, pending_transactions, lag_epochs FROM weir.sinks WHERE (pending_transactions IS NOT NULL OR lag_epochs > 0) AND name IN ('" +
		strings.Join(sinks, "', '") + "')"
	kafkatest.Eventually(t, time.Minute, "the sinks' transactions committed", func() (bool, string) {
		rows := kafkatest.Query(t, w.ConnString(), q)
		return len(rows) == 0, kafkatest.Lines(rows)
	})
}

// checkLatest marks the test failed unless latest, the last record per key of
// a sink of lj (a missing key or "" for a delete), equals view, the rows
// of lj by aid.
func checkLatest(t *testing.T, step, topic string, latest, view map[string]string) {
	t.Helper()
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(view)) {
		if latest[k] != view[k] {
			got := latest[k]
			if got == "" {
				got = "deleted or missing"
			}
			bad = append(bad, fmt.Sprintf("aid %s: %s, the view has %s", k, got, view[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		if _, ok := view[k]; !ok && latest[k] != "" {
			bad = append(bad, fmt.Sprintf("aid %s: %s, the view has no such row", k, latest[k]))
		}
	}
	if len(bad) > 0 {
		t.Errorf("after %s, %s: %d of %d keys wrong, the first:\n%s", step, topic, len(bad), len(view),
			strings.Join(bad[:min(len(bad), 10)], "\n"))
	}
}

// upsertRows folds an UPSERT topic of lj into its last row per key, ""
// for a key whose last record is a tombstone.
func upsertRows(t *testing.T, recs []kafkatest.Record) map[string]string {
	t.Helper()
	latest := map[string]string{}
	for _, r := range recs {
		k := ljKey(t, r)
		latest[k] = ""
		if r.Value != "" {
			latest[k] = ljValue(t, r, json.RawMessage(r.Value))
		}
	}
	return latest
}

// debeziumRows folds a DEBEZIUM topic of lj into its last "after" row
// per key, "" for a key whose last event is a delete.
func debeziumRows(t *testing.T, recs []kafkatest.Record) map[string]string {
	t.Helper()
	latest := map[string]string{}
	for _, r := range recs {
		k := ljKey(t, r)
		var ev struct {
			Before, After json.RawMessage
			Op            string
		}
		if err := json.Unmarshal([]byte(r.Value), &ev); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		switch ev.Op {
		case "c", "u":
			latest[k] = ljValue(t, r, ev.After)
		case "d":
			latest[k] = ""
		default:
			t.Fatalf("%v: op %q", r, ev.Op)
		}
	}
	return latest
}

// ljKey decodes a record's key {"aid":n}.
func ljKey(t *testing.T, r kafkatest.Record) string {
	t.Helper()
	var key map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.Key), &key); err != nil || len(key) != 1 || key["aid"] == nil {
		t.Fatalf("%v: the key is not {\"aid\": …} (%v)", r, err)
	}
	return string(key["aid"])
}

// ljValue decodes a row {"aid":…,"bid":…} of lj whose aid must be the
// record's key.
func ljValue(t *testing.T, r kafkatest.Record, v json.RawMessage) string {
	t.Helper()
	var row map[string]json.RawMessage
	if err := json.Unmarshal(v, &row); err != nil || len(row) != 2 || row["aid"] == nil || row["bid"] == nil {
		t.Fatalf("%v: the row is not {\"aid\": …, \"bid\": …} (%v)", r, err)
	}
	if string(row["aid"]) != ljKey(t, r) {
		t.Fatalf("%v: the row's aid is not the key's", r)
	}
	bid := string(row["bid"])
	if bid == "null" {
		bid = kafkatest.Null
	}
	return ljRow(string(row["aid"]), bid)
}
