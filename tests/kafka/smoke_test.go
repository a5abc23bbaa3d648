package kafka

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestSourceFanOutAndShowSinks runs several materialized views on one
// source (one of them created after half of the input was produced, so it
// starts from the earliest offsets on its own) and checks that each sees
// every record exactly once; an exactly-once PLAIN sink and an
// at-least-once UPSERT sink deliver the input and the aggregate; and SHOW
// SINKS and weir.sinks show each sink's delivery guarantee and last
// committed epoch, which survive a restart.
func TestSourceFanOutAndShowSinks(t *testing.T) {
	kafkatest.Kcat(t)
	const half, total = 1500, 3000
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	addr := w.KafkaAddr
	for _, topic := range []string{inTopic, "eo", "alo"} {
		kafkatest.CreateTopic(t, addr, topic, 3)
	}
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE src (k int, v bigint) WITH (connector = 'kafka', topic = '%s',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, inTopic, addr),
		"CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k",
		"CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(v) AS s FROM src",
		"CREATE MATERIALIZED VIEW evens AS SELECT k, v FROM src WHERE v % 2 = 0",
		fmt.Sprintf(`CREATE SINK eo AS SELECT k, v FROM src WITH (connector = 'kafka', topic = 'eo',
			properties.bootstrap.server = '%s', sink.delivery.guarantee = 'exactly-once') FORMAT PLAIN ENCODE JSON`, addr),
		fmt.Sprintf(`CREATE SINK alo FROM agg WITH (connector = 'kafka', topic = 'alo',
			properties.bootstrap.server = '%s', primary_key = 'k', sink.delivery.guarantee = 'at-least-once')
			FORMAT UPSERT ENCODE JSON`, addr),
	)
	kafkatest.Produce(t, addr, inTopic, inputLines(0, half)...)
	kafkatest.Exec(t, w.ConnString(), "CREATE MATERIALIZED VIEW late AS SELECT count(*) AS n, sum(v) AS s FROM src")
	kafkatest.Produce(t, addr, inTopic, inputLines(half, total)...)

	// Every view has seen every record once.
	var sum, evenN, evenSum int64
	for i := range total {
		v := int64(i + 1)
		sum += v
		if v%2 == 0 {
			evenN++
			evenSum += v
		}
	}
	views := []struct{ name, query, want string }{
		{"agg", "SELECT sum(n), sum(s) FROM agg", fmt.Sprintf("%d %d", total, sum)},
		{"totals", "SELECT n, s FROM totals", fmt.Sprintf("%d %d", total, sum)},
		{"late", "SELECT n, s FROM late", fmt.Sprintf("%d %d", total, sum)},
		{"evens", "SELECT count(*), count(DISTINCT v), sum(v) FROM evens", fmt.Sprintf("%d %d %d", evenN, evenN, evenSum)},
	}
	for _, v := range views {
		kafkatest.Eventually(t, time.Minute, "view "+v.name+" = "+v.want, func() (bool, string) {
			rows := kafkatest.Query(t, w.ConnString(), v.query)
			got := ""
			if len(rows) == 1 {
				got = fmt.Sprint(rows[0][0])
				for _, c := range rows[0][1:] {
					got += " " + c
				}
			}
			return got == v.want, got
		})
	}
	want := expectedAgg(total)
	mv := map[int64]aggRow{}
	for _, r := range kafkatest.Query(t, w.ConnString(), "SELECT k, n, s FROM agg") {
		k, _ := strconv.ParseInt(r[0], 10, 64)
		n, _ := strconv.ParseInt(r[1], 10, 64)
		s, _ := strconv.ParseInt(r[2], 10, 64)
		mv[k] = aggRow{n, s}
	}
	if !maps.Equal(mv, want) {
		t.Fatalf("agg: %s", diffAgg(mv, want))
	}

	kafkatest.Exec(t, w.ConnString(), "FLUSH")
	checkPlain(t, addr, "eo", total)
	checkUpsert(t, addr, "alo", want)

	show := checkShowSinks(t, w)
	if g := show["eo"]["guarantee"]; g != "exactly-once" {
		t.Errorf("SHOW SINKS: eo's guarantee is %q, want exactly-once", g)
	}
	if g := show["alo"]["guarantee"]; g != "at-least-once" {
		t.Errorf("SHOW SINKS: alo's guarantee is %q, want at-least-once", g)
	}
	for name, topic := range map[string]string{"eo": "eo", "alo": "alo"} {
		if got := show[name]["topic"]; got != topic {
			t.Errorf("SHOW SINKS: %s's topic is %q, want %q", name, got, topic)
		}
	}
	epoch, _ := strconv.ParseInt(show["eo"]["last_committed_epoch"], 10, 64)
	if epoch <= 0 {
		t.Fatalf("SHOW SINKS: eo's last committed epoch is %q after its records were committed", show["eo"]["last_committed_epoch"])
	}

	// After a clean restart the epoch is still known, and does not go back.
	w.Restart()
	again := checkShowSinks(t, w)
	if e, _ := strconv.ParseInt(again["eo"]["last_committed_epoch"], 10, 64); e < epoch {
		t.Errorf("after a restart eo's last committed epoch is %d, it was %d", e, epoch)
	}
}

// checkShowSinks reads SHOW SINKS, checks that it equals SELECT * FROM
// weir.sinks, that it has the columns name, topic, format, guarantee and
// last_committed_epoch, and that no sink's last committed epoch is
// beyond the committed checkpoint; it returns the rows by sink name.
func checkShowSinks(t *testing.T, w *kafkatest.Weir) map[string]map[string]string {
	t.Helper()
	show := kafkatest.QueryMaps(t, w.ConnString(), "SHOW SINKS")
	sys := kafkatest.QueryMaps(t, w.ConnString(), "SELECT * FROM weir.sinks")
	byName := map[string]map[string]string{}
	for _, r := range show {
		for _, c := range []string{"name", "topic", "format", "guarantee", "last_committed_epoch"} {
			if _, ok := r[c]; !ok {
				t.Fatalf("SHOW SINKS has no column %s: %v", c, r)
			}
		}
		byName[r["name"]] = r
	}
	sysNames := make([]string, 0, len(sys))
	for _, r := range sys {
		sysNames = append(sysNames, r["name"])
		if s := byName[r["name"]]; s != nil && (s["guarantee"] != r["guarantee"] || s["topic"] != r["topic"]) {
			t.Errorf("SHOW SINKS row %v differs from weir.sinks row %v", s, r)
		}
	}
	if names := slices.Sorted(maps.Keys(byName)); !slices.Equal(names, slices.Sorted(slices.Values(sysNames))) {
		t.Errorf("SHOW SINKS lists %v, weir.sinks %v", names, sysNames)
	}
	cp := kafkatest.Query(t, w.ConnString(), "SELECT committed_epoch FROM weir.checkpoint")
	if len(cp) != 1 {
		t.Fatalf("weir.checkpoint: %v", cp)
	}
	committed, _ := strconv.ParseInt(cp[0][0], 10, 64)
	for name, r := range byName {
		if e, err := strconv.ParseInt(r["last_committed_epoch"], 10, 64); err == nil && e > committed {
			t.Errorf("sink %s's last committed epoch %d is beyond the committed checkpoint %d", name, e, committed)
		}
	}
	return byName
}

// TestUpsertTable reads a keyed topic into a table with FORMAT UPSERT:
// keys as JSON objects or bare values, a later value replaces the row, a
// tombstone (null value, kcat -Z) deletes it, and the table keeps its
// rows and its position across a SIGKILL of weir.
func TestUpsertTable(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "kin", 2)
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE TABLE kt (k int PRIMARY KEY, v bigint) WITH (connector = 'kafka', topic = 'kin',
			properties.bootstrap.server = '%s') FORMAT UPSERT ENCODE JSON`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW kt_sum AS SELECT count(*) AS n, sum(v) AS s FROM kt",
	)
	produce := func(lines ...string) {
		t.Helper()
		var in string
		for _, l := range lines {
			in += l + "\n"
		}
		kafkatest.RunKcat(t, in, "-P", "-b", w.KafkaAddr, "-t", "kin", "-K|", "-Z")
	}
	wait := func(want string) {
		t.Helper()
		kafkatest.Eventually(t, time.Minute, "kt = "+want, func() (bool, string) {
			rows, err := kafkatest.QueryErr(w.ConnString(), "SELECT k, v FROM kt ORDER BY k")
			if err != nil {
				return false, err.Error()
			}
			got := fmt.Sprint(rows)
			return got == want, got
		})
	}
	produce(`{"k":1}|{"k":1,"v":10}`, `2|{"k":2,"v":20}`, `{"k":3}|{"k":3,"v":30}`,
		`{"k":1}|{"k":1,"v":11}`, `2|`, `{"k":4}|{"k":4,"v":40}`)
	wait("[[1 11] [3 30] [4 40]]")
	kafkatest.Exec(t, w.ConnString(), "FLUSH")
	w.Kill()
	w.Restart()
	wait("[[1 11] [3 30] [4 40]]")
	produce(`{"k":3}|{"k":3,"v":33}`, `{"k":4}|`, `5|{"k":5,"v":50}`)
	wait("[[1 11] [3 33] [5 50]]")
	kafkatest.Eventually(t, time.Minute, "kt_sum = 3 rows, 94", func() (bool, string) {
		rows := kafkatest.Query(t, w.ConnString(), "SELECT n, s FROM kt_sum")
		return fmt.Sprint(rows) == "[[3 94]]", fmt.Sprint(rows)
	})
}
