package kafka

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestUUIDSourceAndSink reads uuid columns from a JSON and a CSV source:
// every form uuid_in accepts becomes the value, anything else is a
// malformed record, counted and listed with its reason. A view grouped by
// the uuid is sunk as JSON, whose records carry the uuid's text.
func TestUUIDSourceAndSink(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	kafkatest.CreateTopic(t, w.KafkaAddr, "uj", 1)
	kafkatest.CreateTopic(t, w.KafkaAddr, "uc", 1)
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	kafkatest.Exec(t, w.ConnString(),
		fmt.Sprintf("ALTER SYSTEM SET barrier_interval_ms = %d", barrierMs),
		fmt.Sprintf(`CREATE SOURCE uj (k int NOT NULL, u uuid) WITH (connector = 'kafka', topic = 'uj',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON`, w.KafkaAddr),
		fmt.Sprintf(`CREATE SOURCE uc (k int NOT NULL, u uuid) WITH (connector = 'kafka', topic = 'uc',
			properties.bootstrap.server = '%s', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE CSV`, w.KafkaAddr),
		"CREATE MATERIALIZED VIEW uj_by_u AS SELECT u, count(*) AS n, sum(k) AS ks FROM uj GROUP BY u",
		"CREATE MATERIALIZED VIEW uc_by_u AS SELECT u, count(*) AS n, sum(k) AS ks FROM uc GROUP BY u",
		fmt.Sprintf(`CREATE SINK uj_out FROM uj_by_u WITH (connector = 'kafka', topic = 'uj_out',
			properties.bootstrap.server = '%s', primary_key = 'u') FORMAT UPSERT ENCODE JSON`, w.KafkaAddr),
	)
	kafkatest.Produce(t, w.KafkaAddr, "uj",
		`{"k":1,"u":"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}`,
		`{"k":2,"u":"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"}`,
		`{"k":4,"u":"a0eebc99 9c0b 4ef8 bb6d 6bb9bd380a11"}`, // bad: spaces
		`{"k":8,"u":12}`, // bad: a number
		`{"k":16,"u":null}`,
		`{"k":32,"u":"00000000000000000000000000000001"}`,
	)
	kafkatest.Produce(t, w.KafkaAddr, "uc",
		"1,A0EEBC999C0B4EF8BB6D6BB9BD380A11",
		"2,{"+u+"}",
		"4,"+u+"-", // bad: a trailing hyphen
		"8,",
		"16,00000000-0000-0000-0000-000000000001",
	)
	want := map[string][]string{
		"uj_by_u": {"00000000-0000-0000-0000-000000000001 1 32", u + " 2 3", kafkatest.Null + " 1 16"},
		"uc_by_u": {"00000000-0000-0000-0000-000000000001 1 16", u + " 2 3", kafkatest.Null + " 1 8"},
	}
	for view, rows := range want {
		kafkatest.Eventually(t, time.Minute, view, func() (bool, string) {
			got, err := kafkatest.QueryErr(w.ConnString(), "SELECT u, n, ks FROM "+view+" ORDER BY u")
			if err != nil {
				return false, err.Error()
			}
			var lines []string
			for _, r := range got {
				lines = append(lines, strings.Join(r, " "))
			}
			return slices.Equal(lines, rows), fmt.Sprint(lines)
		})
	}
	kafkatest.Eventually(t, time.Minute, "malformed counts", func() (bool, string) {
		got, err := kafkatest.QueryErr(w.ConnString(), "SELECT name, malformed_count FROM weir.sources ORDER BY name")
		return err == nil && fmt.Sprint(got) == "[[uc 1] [uj 2]]", fmt.Sprint(got, err)
	})
	errs := kafkatest.Query(t, w.ConnString(), `SELECT source, "offset", reason FROM weir.source_errors ORDER BY source, "offset"`)
	if len(errs) != 3 {
		t.Fatalf("weir.source_errors: %q, want the three bad records", errs)
	}
	for i, want := range [][2]string{{"uc", "2"}, {"uj", "2"}, {"uj", "3"}} {
		if errs[i][0] != want[0] || errs[i][1] != want[1] || !strings.Contains(errs[i][2], "invalid input syntax for type uuid") {
			t.Errorf("weir.source_errors row %q, want source %s offset %s with uuid's input error", errs[i], want[0], want[1])
		}
	}
	// The sink's records name the group by the uuid's text.
	wantRecs := []string{
		`{"u":"00000000-0000-0000-0000-000000000001"} => {"u":"00000000-0000-0000-0000-000000000001","n":1,"ks":32}`,
		`{"u":"` + u + `"} => {"u":"` + u + `","n":2,"ks":3}`,
		`{"u":null} => {"u":null,"n":1,"ks":16}`,
	}
	kafkatest.Eventually(t, time.Minute, "uj_out records", func() (bool, string) {
		// A key's last record is its group's state (records of one key
		// share a partition, so they come in order).
		last := map[string]string{}
		for _, r := range kafkatest.Consume(t, w.KafkaAddr, "uj_out") {
			last[r.Key] = r.Value
		}
		var got []string
		for k, v := range last {
			got = append(got, k+" => "+v)
		}
		slices.Sort(got)
		return slices.Equal(got, wantRecs), strings.Join(got, "\n")
	})
}
