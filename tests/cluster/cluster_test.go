// Package cluster tests weir's cluster mode end to end: several
// `weir serve --cluster` processes over one `weir kafka` broker.
package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

const (
	keys        = 1000
	sourceTopic = "events"
	sinkTopic   = "totals"
	partitions  = 8
)

// cluster is a broker and the nodes started over it.
type cluster struct {
	t      testing.TB
	broker *kafkatest.Broker
	nodes  map[int]*testenv.Server
	// txnTimeout is the nodes' --cluster-txn-timeout.
	txnTimeout string
}

// startBroker starts `weir kafka` without fsync (--sync-writes=false: a
// transaction then costs about a millisecond instead of tens, research
// note §6) and lowers the group session floor to 1 s at runtime, so that
// a killed node's partitions move after 2 s instead of 6.
func startBroker(t testing.TB) *cluster {
	b := kafkatest.StartBroker(t, "", "--sync-writes=false")
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v := "1000"
	if _, err := kadm.NewClient(cl).AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "group.min.session.timeout.ms", Value: &v}}); err != nil {
		t.Fatalf("lowering group.min.session.timeout.ms: %v", err)
	}
	kafkatest.CreateTopic(t, b.Addr, sourceTopic, partitions)
	return &cluster{t: t, broker: b, nodes: map[int]*testenv.Server{}, txnTimeout: "4s"}
}

func (c *cluster) start(id int, env ...string) *testenv.Server {
	s := testenv.Start(c.t, testenv.Options{Env: env, Args: []string{
		"--cluster", c.broker.Addr, "--node-id", strconv.Itoa(id),
		"--cluster-session-timeout", "2s", "--cluster-txn-timeout", c.txnTimeout,
	}})
	c.nodes[id] = s
	return s
}

// produce writes records n in [from, to) as {"k": n % keys, "x": n}.
func produce(t testing.TB, addr string, from, to int) error {
	return produceKeys(addr, from, to, keys)
}

// produceKeys writes records n in [from, to) as {"k": n % nkeys, "x": n}.
func produceKeys(addr string, from, to, nkeys int) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(sourceTopic))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const batch = 2000
	for lo := from; lo < to; lo += batch {
		var recs []*kgo.Record
		for n := lo; n < min(lo+batch, to); n++ {
			recs = append(recs, &kgo.Record{Value: []byte(fmt.Sprintf(`{"k": %d, "x": %d}`, n%nkeys, n))})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			return err
		}
	}
	return nil
}

// expected is the view's exact contents for records [0, total): k → (n, s).
func expected(total int) map[int][2]int64 {
	m := map[int][2]int64{}
	for n := 0; n < total; n++ {
		e := m[n%keys]
		e[0]++
		e[1] += int64(n)
		m[n%keys] = e
	}
	return m
}

// readView reads the whole view through a node and the NOTICE it sent.
func readView(connString string) (map[int][2]int64, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var notice string
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, "", err
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notice = n.Message }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT k, n, s FROM v ORDER BY k", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, "", err
	}
	out := map[int][2]int64{}
	for rows.Next() {
		var k int
		var n int64
		var s string
		if err := rows.Scan(&k, &n, &s); err != nil {
			return nil, "", err
		}
		sv, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, "", err
		}
		if _, dup := out[k]; dup {
			return nil, "", fmt.Errorf("key %d twice in the view", k)
		}
		out[k] = [2]int64{n, sv}
	}
	return out, notice, rows.Err()
}

func total(m map[int][2]int64) int64 {
	var n int64
	for _, e := range m {
		n += e[0]
	}
	return n
}

func diff(got, want map[int][2]int64) string {
	var d []string
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			d = append(d, fmt.Sprintf("k=%d got %v want %v", k, got[k], w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("k=%d unexpected %v", k, got[k]))
		}
	}
	if len(d) > 5 {
		d = append(d[:5], fmt.Sprintf("... %d differences", len(d)))
	}
	return strings.Join(d, "; ")
}

// TestClusterFailover is the scale-out proof: three nodes, a 200k-record
// stream, one node SIGKILLed mid-stream inside an open transaction, a
// fourth started later; then the
// view read through every live node equals the exact aggregate, and the
// sink topic read by kcat with read_committed holds each key's change
// chain exactly once (every event's before is the previous event's after,
// so a duplicate or a lost event breaks it) ending at the exact aggregate.
func TestClusterFailover(t *testing.T) {
	const records = 200000
	c := startBroker(t)
	// Node 2 is SIGKILLed by a crash point in its 5th epoch with data,
	// with the epoch's records on the broker and its transaction open.
	// Each node owns about a third of the 16 source and repartition
	// partitions, so it reads about 100,000 of the 300,000 records that
	// cross them before the pause below, and an epoch takes at most
	// 10,000: the 5th comes before the pause.
	n1, n2, n3 := c.start(1), c.start(2, "WEIR_FAULT=cluster.before_commit:5"), c.start(3)

	// DDL on any node applies everywhere.
	kafkatest.Exec(t, n1.ConnString(), fmt.Sprintf(`CREATE SOURCE events (k int, x bigint) WITH (connector = 'kafka', topic = '%s',
		properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, sourceTopic, c.broker.Addr))
	kafkatest.Exec(t, n2.ConnString(), `CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, sum(x) AS s FROM events GROUP BY k`)
	kafkatest.Exec(t, n3.ConnString(), fmt.Sprintf(`CREATE SINK totals FROM v WITH (connector = 'kafka', topic = '%s',
		properties.bootstrap.server = '%s') FORMAT DEBEZIUM ENCODE JSON`, sinkTopic, c.broker.Addr))
	if _, err := kafkatest.QueryErr(n3.ConnString(), `CREATE MATERIALIZED VIEW v AS SELECT k, count(*) FROM events GROUP BY k`); err == nil || !strings.Contains(err.Error(), "42P07") {
		t.Fatalf("a second v through another node: got %v, want 42P07", err)
	}
	for _, q := range []string{"CREATE TABLE t (a int)", "SELECT k + 1 FROM v", "CREATE MATERIALIZED VIEW w AS SELECT k FROM events"} {
		if _, err := kafkatest.QueryErr(n1.ConnString(), q); err == nil || !strings.Contains(err.Error(), "0A000") {
			t.Fatalf("%s in cluster mode: got %v, want 0A000", q, err)
		}
	}

	// The stream: 150,000 records, then (once node 2 is dead) the last
	// 50,000, so the crash is mid-stream whatever the machine's speed.
	var produced atomic.Int64
	prodErr := make(chan error, 1)
	n2dead := make(chan struct{})
	go func() {
		for lo := 0; lo < records; lo += 10000 {
			if lo == 150000 {
				<-n2dead
			}
			if err := produce(t, c.broker.Addr, lo, lo+10000); err != nil {
				prodErr <- err
				return
			}
			produced.Store(int64(lo + 10000))
			time.Sleep(100 * time.Millisecond)
		}
		prodErr <- nil
	}()

	progress := func(s *testenv.Server, atLeast int64) {
		kafkatest.Eventually(t, 2*time.Minute, fmt.Sprintf("the view to count %d records", atLeast), func() (bool, string) {
			got, _, err := readView(s.ConnString())
			if err != nil {
				return false, err.Error()
			}
			return total(got) >= atLeast, fmt.Sprintf("%d counted, %d produced", total(got), produced.Load())
		})
	}
	exit, err := n2.WaitExit(2 * time.Minute)
	if err != nil {
		t.Fatalf("node 2 did not reach its crash point: %v", err)
	}
	killedAt := time.Now()
	if !exit.Killed() || kafkatest.CountInLog(n2.LogPath, kafkatest.FaultLine("cluster.before_commit")) != 1 {
		t.Fatalf("node 2 ended otherwise than at its crash point: %v", exit)
	}
	t.Logf("node 2 killed at %s, %d records produced", killedAt.Format("15:04:05.000"), produced.Load())
	close(n2dead)
	progress(n3, 100000)
	n4 := c.start(4)
	t.Logf("node 4 started at %s", time.Now().Format("15:04:05.000"))
	if err := <-prodErr; err != nil {
		t.Fatalf("producing: %v", err)
	}
	want := expected(records)
	progress(n4, records)
	for _, s := range []*testenv.Server{n1, n3, n4} {
		got, notice, err := readView(s.ConnString())
		if err != nil {
			t.Fatalf("reading v through %s: %v", s.Addr(), err)
		}
		if d := diff(got, want); d != "" {
			t.Fatalf("v through %s differs from the exact aggregate: %s", s.Addr(), d)
		}
		if !regexp.MustCompile(`key groups? [0-9,]+ from weir-node-\d+ at epoch \d+`).MatchString(notice) {
			t.Fatalf("the read's NOTICE does not name the epochs read: %q", notice)
		}
		t.Logf("through %s: %s", s.Addr(), notice)
	}

	// The sink, as an independent client sees it.
	recs := kafkatest.Consume(t, c.broker.Addr, sinkTopic)
	type row struct {
		K int   `json:"k"`
		N int64 `json:"n"`
		S int64 `json:"s"`
	}
	type event struct {
		Before *row   `json:"before"`
		After  *row   `json:"after"`
		Op     string `json:"op"`
	}
	last := map[int]*row{}
	for _, r := range recs {
		var e event
		if err := json.Unmarshal([]byte(r.Value), &e); err != nil {
			t.Fatalf("sink record %d@%d: %v", r.Partition, r.Offset, err)
		}
		if e.After == nil {
			t.Fatalf("sink record %d@%d has no after: %s", r.Partition, r.Offset, r.Value)
		}
		prev := last[e.After.K]
		if (prev == nil) != (e.Before == nil) || prev != nil && *prev != *e.Before {
			t.Fatalf("sink record %d@%d breaks key %d's chain (duplicate or lost event): before %v, previous after %v", r.Partition, r.Offset, e.After.K, e.Before, prev)
		}
		last[e.After.K] = e.After
	}
	sinkView := map[int][2]int64{}
	for k, r := range last {
		sinkView[k] = [2]int64{r.N, r.S}
	}
	if d := diff(sinkView, want); d != "" {
		t.Fatalf("the sink's last events differ from the exact aggregate: %s", d)
	}
	t.Logf("sink: %d events, %d keys, chains intact", len(recs), len(last))

	// A sink created once the view holds every row gets each key group's
	// rows from its owner, once: with no input since, one record per key.
	kafkatest.Exec(t, n1.ConnString(), fmt.Sprintf(`CREATE SINK late FROM v WITH (connector = 'kafka', topic = 'late',
		properties.bootstrap.server = '%s') FORMAT UPSERT ENCODE JSON`, c.broker.Addr))
	kafkatest.Eventually(t, time.Minute, "the late sink's snapshot", func() (bool, string) {
		recs := kafkatest.Consume(t, c.broker.Addr, "late")
		return len(recs) >= keys, fmt.Sprintf("%d records", len(recs))
	})
	lateView := map[int][2]int64{}
	late := kafkatest.Consume(t, c.broker.Addr, "late")
	for _, r := range late {
		var e struct {
			K int   `json:"k"`
			N int64 `json:"n"`
			S int64 `json:"s"`
		}
		if err := json.Unmarshal([]byte(r.Value), &e); err != nil {
			t.Fatalf("late sink record %d@%d: %v", r.Partition, r.Offset, err)
		}
		if _, dup := lateView[e.K]; dup {
			t.Fatalf("late sink: key %d delivered twice", e.K)
		}
		lateView[e.K] = [2]int64{e.N, e.S}
	}
	if d := diff(lateView, want); d != "" {
		t.Fatalf("the late sink's snapshot differs from the exact aggregate: %s", d)
	}

	// DDL through one node is seen at once by the others.
	kafkatest.Exec(t, n4.ConnString(), "DROP SINK totals", "DROP SINK late")
	if _, err := kafkatest.QueryErr(n1.ConnString(), "DROP MATERIALIZED VIEW v, nosuch"); err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Fatalf("DROP of a missing view: got %v, want 42P01", err)
	}
	kafkatest.Exec(t, n3.ConnString(), "DROP MATERIALIZED VIEW v")
	if _, err := kafkatest.QueryErr(n1.ConnString(), "SELECT * FROM v"); err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Fatalf("SELECT of the dropped view through another node: got %v, want 42P01", err)
	}

	// No node panicked or (in a -race build, WEIR_BIN) raced.
	for id, s := range c.nodes {
		for _, bad := range []string{"DATA RACE", "panic:"} {
			if kafkatest.CountInLog(s.LogPath, bad) > 0 {
				t.Errorf("node %d's log holds %q:\n%s", id, bad, s.Tail(4000))
			}
		}
	}

	// How long the killed node's key groups took to move: the survivors
	// log each restore.
	re := regexp.MustCompile(`time=(\S+) .*msg="restore done".*key_groups=(\d+) bytes=(\d+) elapsed_ms=(\d+)`)
	for _, id := range []int{1, 3, 4} {
		data, _ := os.ReadFile(c.nodes[id].LogPath)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			at, _ := time.Parse(time.RFC3339Nano, m[1])
			t.Logf("node %d restored %s key groups (%s bytes) in %s ms, %.2f s after the kill", id, m[2], m[3], m[4], at.Sub(killedAt).Seconds())
		}
	}
}

// TestClusterRestartFences checks that a node restarted with its id takes
// over at once from its previous incarnation, which died inside a
// transaction: the new producer's InitProducerID aborts the open
// transaction, so the restore does not wait for the transaction timeout
// (set to 2 minutes here, beyond the 60 s the test waits).
func TestClusterRestartFences(t *testing.T) {
	const records = 50000
	c := startBroker(t)
	c.txnTimeout = "120s"
	n1 := c.start(1, "WEIR_FAULT=cluster.before_commit:3")
	if err := produce(t, c.broker.Addr, 0, records); err != nil {
		t.Fatal(err)
	}
	kafkatest.Exec(t, n1.ConnString(), fmt.Sprintf(`CREATE SOURCE events (k int, x bigint) WITH (connector = 'kafka', topic = '%s',
		properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON`, sourceTopic, c.broker.Addr),
		`CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, sum(x) AS s FROM events GROUP BY k`)
	exit, err := n1.WaitExit(time.Minute)
	if err != nil || !exit.Killed() {
		t.Fatalf("node 1 did not die at its crash point: %v %v", exit, err)
	}
	n1.SetEnv()
	n1.Spawn()
	if err := n1.WaitReady(); err != nil {
		t.Fatalf("restarting node 1: %v", err)
	}
	want := expected(records)
	kafkatest.Eventually(t, time.Minute, "the view complete after the restart", func() (bool, string) {
		got, _, err := readView(n1.ConnString())
		if err != nil {
			return false, err.Error()
		}
		return diff(got, want) == "", diff(got, want)
	})
}
