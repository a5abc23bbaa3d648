package cluster

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

// cpuSeconds returns a process's user + system CPU time from /proc.
func cpuSeconds(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

// benchRecords is the backlog of the cluster benchmarks:
// WEIR_CLUSTER_BENCH=<records>, 1,000,000 when unset.
func benchRecords() int {
	if n, _ := strconv.Atoi(os.Getenv("WEIR_CLUSTER_BENCH")); n > 0 {
		return n
	}
	return 1_000_000
}

// BenchmarkClusterThroughput measures how fast 1, 2 and 3 nodes aggregate
// a backlog (docs/scale-out.md §8):
//
//	go test ./tests/cluster -run '^$' -bench ClusterThroughput -benchtime 1x
func BenchmarkClusterThroughput(b *testing.B) {
	n := benchRecords()
	for _, nodes := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.B) {
			c := startBroker(t)
			if err := produce(t, c.broker.Addr, 0, n); err != nil {
				t.Fatal(err)
			}
			var servers []*testenv.Server
			for i := 1; i <= nodes; i++ {
				servers = append(servers, c.start(i))
			}
			cpu0 := 0.0
			for _, s := range servers {
				cpu0 += cpuSeconds(s.Pid())
			}
			b0 := cpuSeconds(c.broker.Pid())
			start := time.Now()
			kafkatest.Exec(t, servers[0].ConnString(), fmt.Sprintf(`CREATE SOURCE events (k int, x bigint) WITH (connector = 'kafka', topic = '%s',
				properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, sourceTopic, c.broker.Addr),
				`CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, sum(x) AS s FROM events GROUP BY k`,
				fmt.Sprintf(`CREATE SINK totals FROM v WITH (connector = 'kafka', topic = '%s',
				properties.bootstrap.server = '%s') FORMAT DEBEZIUM ENCODE JSON`, sinkTopic, c.broker.Addr))
			kafkatest.Eventually(t, 5*time.Minute, "the backlog aggregated", func() (bool, string) {
				got, _, err := readView(servers[0].ConnString())
				if err != nil {
					return false, err.Error()
				}
				return total(got) == int64(n), fmt.Sprint(total(got))
			})
			elapsed := time.Since(start)
			cpu := 0.0
			for _, s := range servers {
				cpu += cpuSeconds(s.Pid())
			}
			cpu -= cpu0
			bcpu := cpuSeconds(c.broker.Pid()) - b0
			t.Logf("RESULT nodes=%d records=%d elapsed=%.2fs rate=%.0f/s node_cpu=%.2fs (%.1f µs/event) broker_cpu=%.2fs (%.1f µs/event)",
				nodes, n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), cpu, cpu/float64(n)*1e6, bcpu, bcpu/float64(n)*1e6)
		})
	}
}

// BenchmarkClusterRestore measures how fast a node restores key groups
// from their changelog (docs/scale-out.md §8): one node aggregates
// WEIR_CLUSTER_BENCH (default 1,000,000) distinct keys, is SIGKILLed, and
// a second node restores all the key groups:
//
//	go test ./tests/cluster -run '^$' -bench ClusterRestore -benchtime 1x
func BenchmarkClusterRestore(t *testing.B) {
	n := benchRecords()
	c := startBroker(t)
	if err := produceKeys(c.broker.Addr, 0, n, n); err != nil {
		t.Fatal(err)
	}
	n1 := c.start(1)
	kafkatest.Exec(t, n1.ConnString(), fmt.Sprintf(`CREATE SOURCE events (k int, x bigint) WITH (connector = 'kafka', topic = '%s',
		properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, sourceTopic, c.broker.Addr),
		`CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, sum(x) AS s FROM events GROUP BY k`)
	kafkatest.Eventually(t, 5*time.Minute, "the backlog aggregated", func() (bool, string) {
		got, _, err := readView(n1.ConnString())
		if err != nil {
			return false, err.Error()
		}
		return total(got) == int64(n), fmt.Sprint(total(got))
	})
	n1.Kill()
	killed := time.Now()
	n2 := c.start(2)
	kafkatest.Eventually(t, 5*time.Minute, "the view readable on node 2", func() (bool, string) {
		got, _, err := readView(n2.ConnString())
		if err != nil {
			return false, err.Error()
		}
		return total(got) == int64(n), fmt.Sprint(total(got))
	})
	readable := time.Since(killed)
	data, _ := os.ReadFile(n2.LogPath)
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `msg="restore done"`) {
			t.Logf("RESULT restore of %d groups: %s; view readable again %.2fs after the kill", n, l[strings.Index(l, "key_groups"):], readable.Seconds())
		}
	}
}
