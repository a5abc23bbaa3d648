package kafka

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestMalformedRecordsSkipped feeds a source records that cannot become
// rows: bad JSON, a string in an integer column, a fraction in a bigint
// column, a missing NOT NULL column, and a record over the source's
// max.record.bytes. Each is skipped, counted in
// weir.sources.malformed_count and listed in weir.source_errors with its
// partition, offset and a reason; the good records around them, and those
// produced afterwards, reach the view.
func TestMalformedRecordsSkipped(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "mixed", 1)
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE mixed (k int NOT NULL, v bigint) WITH (connector = 'kafka', topic = 'mixed',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest', max.record.bytes = '200')
			FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW mixed_totals AS SELECT count(*) AS n, sum(v) AS s, sum(k) AS ks FROM mixed",
		// A second reader of the source skips the same records: they are
		// still counted and listed once.
		"CREATE MATERIALIZED VIEW mixed_seen AS SELECT count(*) AS n FROM mixed",
	)

	// One partition, so the offsets are the positions in this list.
	records := []struct {
		value string
		bad   string // what is wrong with it; empty for a good record
		k, v  int64  // a good record's columns (v NULL counts as 0 in the sums)
	}{
		{value: `{"k":1,"v":10}`, k: 1, v: 10},
		{value: `{"k":2,"v":`, bad: "bad JSON"},
		{value: `{"k":"two","v":20}`, bad: "a string in an integer column"},
		{value: `{"k":3,"v":1.5}`, bad: "a fraction in a bigint column"},
		{value: `{"v":40}`, bad: "the NOT NULL column k missing"},
		{value: `{"k":5,"v":50,"pad":"` + strings.Repeat("x", 300) + `"}`, bad: "over max.record.bytes"},
		{value: `{"k":6,"v":60}`, k: 6, v: 60},
		{value: `{"k":7,"v":null}`, k: 7},
		{value: `not json at all`, bad: "not JSON"},
		{value: `{"k":8,"v":80,"extra":"ignored"}`, k: 8, v: 80},
	}
	var lines []string
	wantBad := map[int64]string{}
	var wantN, wantS, wantK int64
	for i, r := range records {
		lines = append(lines, r.value)
		if r.bad != "" {
			wantBad[int64(i)] = r.bad
			continue
		}
		wantN++
		wantS += r.v
		wantK += r.k
	}
	kafkatest.Produce(t, w.KafkaAddr, "mixed", lines...)
	waitTotals(t, w, wantN, wantS, wantK)

	// weir.sources counts them.
	var count int64 = -1
	for _, r := range kafkatest.Query(t, w.ConnString(), "SELECT name, topic, malformed_count FROM weir.sources") {
		if r[0] == "mixed" {
			if r[1] != "mixed" {
				t.Errorf("weir.sources: source mixed has topic %q", r[1])
			}
			count, _ = strconv.ParseInt(r[2], 10, 64)
		}
	}
	if count != int64(len(wantBad)) {
		t.Errorf("weir.sources.malformed_count of mixed = %d, want %d", count, len(wantBad))
	}
	// weir.source_partitions counts them per reader and partition, and
	// places each reader at the end of the topic.
	want := fmt.Sprintf("%d %d", len(wantBad), len(records))
	parts := kafkatest.Query(t, w.ConnString(), `SELECT job, "partition", malformed, position, high_watermark FROM weir.source_partitions WHERE source = 'mixed' ORDER BY job`)
	if len(parts) != 2 || parts[0][0] != "mixed_seen" || parts[1][0] != "mixed_totals" {
		t.Errorf("weir.source_partitions of mixed: %q, want one row for each view's reader", parts)
	}
	for _, r := range parts {
		if got := r[2] + " " + r[3]; r[1] != "0" || got != want || r[4] != r[3] {
			t.Errorf("weir.source_partitions row %q: want partition 0 with malformed and position %s, at the high watermark", r, want)
		}
	}

	// weir.source_errors lists each with its position and a reason.
	errs := kafkatest.Query(t, w.ConnString(), `SELECT source, "partition", "offset", reason FROM weir.source_errors`)
	got := map[int64]string{}
	for _, r := range errs {
		off, err := strconv.ParseInt(r[2], 10, 64)
		if r[0] != "mixed" || r[1] != "0" || err != nil {
			t.Errorf("weir.source_errors row %q: want source mixed, partition 0 and an offset", r)
			continue
		}
		if _, dup := got[off]; dup {
			t.Errorf("weir.source_errors lists offset %d twice", off)
		}
		got[off] = r[3]
	}
	for off, why := range wantBad {
		reason, ok := got[off]
		switch {
		case !ok:
			t.Errorf("weir.source_errors misses offset %d (%s: %s)", off, why, records[off].value[:min(len(records[off].value), 40)])
		case strings.TrimSpace(reason) == "" || reason == kafkatest.Null:
			t.Errorf("weir.source_errors gives no reason for offset %d (%s)", off, why)
		default:
			t.Logf("offset %d (%s): %s", off, why, reason)
		}
		delete(got, off)
	}
	for off, reason := range got {
		t.Errorf("weir.source_errors lists offset %d (%q), which is a good record", off, reason)
	}
	if reason := reasonAt(errs, 5); reason != "" && !strings.Contains(reason, "200") {
		t.Errorf("the reason for the oversized record does not name the limit of 200 bytes: %q", reason)
	}

	// The job keeps going: later records arrive, good and bad.
	kafkatest.Produce(t, w.KafkaAddr, "mixed", `{"k":9,"v":90}`, `{"k":}`, `{"k":10,"v":100}`)
	waitTotals(t, w, wantN+2, wantS+190, wantK+19)
	rows := kafkatest.Query(t, w.ConnString(), "SELECT malformed_count FROM weir.sources WHERE name = 'mixed'")
	if len(rows) != 1 || rows[0][0] != strconv.Itoa(len(wantBad)+1) {
		t.Errorf("malformed_count after one more bad record: %v, want %d", rows, len(wantBad)+1)
	}
	errs = kafkatest.Query(t, w.ConnString(), `SELECT "offset" FROM weir.source_errors WHERE source = 'mixed'`)
	if !slices.ContainsFunc(errs, func(r []string) bool { return r[0] == strconv.Itoa(len(records)+1) }) {
		t.Errorf("weir.source_errors misses the bad record at offset %d: %v", len(records)+1, errs)
	}

	// The count is checkpointed with the source's positions: after a
	// SIGKILL and a restart it is what it was, the records read again
	// after the checkpoint not counted twice, and it goes on from there.
	kafkatest.Exec(t, w.ConnString(), "FLUSH")
	w.Kill()
	w.Restart()
	waitTotals(t, w, wantN+2, wantS+190, wantK+19)
	waitMalformed(t, w, len(wantBad)+1)
	kafkatest.Produce(t, w.KafkaAddr, "mixed", `{"k":11,"v":110}`, `[1,2]`)
	waitTotals(t, w, wantN+3, wantS+300, wantK+30)
	waitMalformed(t, w, len(wantBad)+2)
}

// waitMalformed waits until weir.sources counts n malformed records of
// mixed; more fails at once.
func waitMalformed(t *testing.T, w *kafkatest.Weir, n int) {
	t.Helper()
	kafkatest.Eventually(t, time.Minute, fmt.Sprintf("malformed_count = %d", n), func() (bool, string) {
		rows, err := kafkatest.QueryErr(w.ConnString(), "SELECT malformed_count FROM weir.sources WHERE name = 'mixed'")
		if err != nil || len(rows) != 1 {
			return false, fmt.Sprintf("%v %v", rows, err)
		}
		if got, _ := strconv.Atoi(rows[0][0]); got > n {
			t.Fatalf("malformed_count = %d, want %d: a record counted twice?", got, n)
		}
		return rows[0][0] == strconv.Itoa(n), rows[0][0]
	})
}

// waitTotals waits until mixed_totals shows n rows with sum(v) = s and
// sum(k) = ks; more rows than n fails at once.
func waitTotals(t *testing.T, w *kafkatest.Weir, n, s, ks int64) {
	t.Helper()
	want := []string{strconv.FormatInt(n, 10), strconv.FormatInt(s, 10), strconv.FormatInt(ks, 10)}
	kafkatest.Eventually(t, time.Minute, fmt.Sprintf("mixed_totals = %v", want), func() (bool, string) {
		rows, err := kafkatest.QueryErr(w.ConnString(), "SELECT n, s, ks FROM mixed_totals")
		if err != nil || len(rows) != 1 {
			return false, fmt.Sprintf("%v %v", rows, err)
		}
		if got, _ := strconv.ParseInt(rows[0][0], 10, 64); got > n {
			t.Fatalf("mixed_totals counts %d rows, want %d: a malformed record became a row? %v", got, n, rows[0])
		}
		return slices.Equal(rows[0], want), fmt.Sprint(rows[0])
	})
}

// reasonAt returns the reason of weir.source_errors rows (source,
// partition, offset, reason) for offset off, or "".
func reasonAt(rows [][]string, off int) string {
	for _, r := range rows {
		if r[2] == strconv.Itoa(off) {
			return r[3]
		}
	}
	return ""
}
