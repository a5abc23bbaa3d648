// Package kafka holds weir's Kafka end-to-end tests: the embedded broker
// of `weir serve --embedded-kafka` and `weir kafka`, driven with kcat, and
// (as the engine gains Kafka sources and sinks) exactly-once crash tests
// on the harness in package kafkatest.
package kafka

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	connkafka "github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
	"github.com/weirdb/weir/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// seqValues returns "<prefix>-0" ... "<prefix>-(n-1)".
func seqValues(prefix string, n int) []string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return vals
}

// checkRecords fails the test unless recs hold exactly the values want
// (in any order), each once.
func checkRecords(t *testing.T, what string, recs []kafkatest.Record, want []string) {
	t.Helper()
	if d := kafkatest.Duplicates(recs); len(d) > 0 {
		t.Fatalf("%s: %d records, %d duplicated: %v", what, len(recs), len(d), d)
	}
	want = slices.Sorted(slices.Values(want))
	if got := kafkatest.Values(recs); !slices.Equal(got, want) {
		t.Fatalf("%s: %d records, want %d; first records %v", what, len(got), len(want), recs[:min(len(recs), 5)])
	}
}

// TestEmbeddedKafkaSmoke runs weir with --embedded-kafka, writes 1,000
// keyed records with kcat into a topic of three partitions, reads them
// back at read_committed, SIGKILLs weir and reads the same 1,000 records
// from the restarted server.
func TestEmbeddedKafkaSmoke(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})

	meta := kafkatest.Metadata(t, w.KafkaAddr)
	if !strings.Contains(meta, "1 brokers:") || !strings.Contains(meta, w.KafkaAddr) {
		t.Fatalf("kcat -L against %s:\n%s", w.KafkaAddr, meta)
	}
	kafkatest.CreateTopic(t, w.KafkaAddr, "smoke", 3)
	vals := seqValues("v", 1000)
	recs := make([]kafkatest.Record, len(vals))
	for i, v := range vals {
		recs[i] = kafkatest.Record{Key: fmt.Sprintf("k%d", i%37), Value: v}
	}
	kafkatest.ProduceKeyed(t, w.KafkaAddr, "smoke", recs...)

	got := kafkatest.Consume(t, w.KafkaAddr, "smoke")
	checkRecords(t, "before the crash", got, vals)
	parts := map[int32]bool{}
	for _, r := range got {
		parts[r.Partition] = true
		if want := fmt.Sprintf("k%d", slices.Index(vals, r.Value)%37); r.Key != want {
			t.Fatalf("record %v: key %q, want %q", r, r.Key, want)
		}
	}
	if len(parts) != 3 {
		t.Fatalf("records spread over partitions %v, want all three", parts)
	}

	w.Kill()
	w.Restart()
	again := kafkatest.Consume(t, w.KafkaAddr, "smoke")
	checkRecords(t, "after SIGKILL and restart", again, vals)
	if !slices.Equal(again, got) {
		t.Fatal("after SIGKILL and restart the records moved to other partitions or offsets")
	}
}

// TestEmbeddedKafkaAutoCreatedTopicSurvives produces to a topic that does
// not exist yet (kcat -P creates it through metadata), kills weir with
// SIGKILL and reads the topic from the restarted server: the topic and
// its records are there. kfake alone loses such a topic on a crash; weir
// persists it when it is created. A clean restart keeps it too.
func TestEmbeddedKafkaAutoCreatedTopicSurvives(t *testing.T) {
	kafkatest.Kcat(t)
	w := kafkatest.StartWeir(t, kafkatest.Options{})
	vals := seqValues("auto", 100)
	kafkatest.Produce(t, w.KafkaAddr, "auto", vals...)
	checkRecords(t, "before the crash", kafkatest.Consume(t, w.KafkaAddr, "auto"), vals)

	w.Kill()
	w.Restart()
	if !kafkatest.TopicExists(t, w.KafkaAddr, "auto") {
		t.Fatal("the automatically created topic is gone after SIGKILL and restart")
	}
	checkRecords(t, "after SIGKILL and restart", kafkatest.Consume(t, w.KafkaAddr, "auto"), vals)

	more := seqValues("more", 10)
	kafkatest.Produce(t, w.KafkaAddr, "auto", more...)
	w.Restart() // SIGTERM, clean
	checkRecords(t, "after a clean restart", kafkatest.Consume(t, w.KafkaAddr, "auto"), append(vals, more...))
}

// TestBrokerCommand runs `weir kafka` on its own: kcat sees it, records
// survive SIGKILL and a clean restart on the same data directory, and a
// second broker on that directory is refused while the first runs.
func TestBrokerCommand(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	if meta := kafkatest.Metadata(t, b.Addr); !strings.Contains(meta, "broker 0 at "+b.Addr) {
		t.Fatalf("kcat -L against %s:\n%s", b.Addr, meta)
	}
	kafkatest.CreateTopic(t, b.Addr, "two", 2)
	first := seqValues("a", 500)
	kafkatest.Produce(t, b.Addr, "two", first...)
	checkRecords(t, "before the crash", kafkatest.Consume(t, b.Addr, "two"), first)

	// A second broker on the same data directory must not start: it would
	// load and rewrite the running broker's files.
	out, err := exec.Command(testenv.Binary(t), "kafka", "--listen", "127.0.0.1:0", "--data-dir", b.DataDir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by another process") {
		t.Fatalf("second broker on %s: err %v, output:\n%s", b.DataDir, err, out)
	}

	b.Kill()
	b.Restart()
	checkRecords(t, "after SIGKILL and restart", kafkatest.Consume(t, b.Addr, "two"), first)
	second := seqValues("b", 500)
	kafkatest.Produce(t, b.Addr, "two", second...)
	b.Restart() // SIGTERM, clean
	checkRecords(t, "after a clean restart", kafkatest.Consume(t, b.Addr, "two"), append(first, second...))
	if _, err := os.Stat(filepath.Join(b.DataDir, "LOCK")); err != nil {
		t.Fatalf("lock file: %v", err)
	}
}

// TestCrashedBrokerKeepsOpenTransactions pins down a property of the
// embedded broker that exactly-once crash tests rely on: a transaction
// flushed (pre-committed) but not committed survives a restart of the
// broker, clean or by SIGKILL, as on Kafka, and recovery then commits it
// from its record. kfake alone keeps it across a clean restart only;
// `weir kafka` hands it back to kfake after a crash.
func TestCrashedBrokerKeepsOpenTransactions(t *testing.T) {
	kafkatest.Kcat(t)
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "clean-restart", true: "sigkill"}[crash]
		t.Run(name, func(t *testing.T) {
			b := kafkatest.StartBroker(t, "")
			kafkatest.CreateTopic(t, b.Addr, "out", 1)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			sw, err := connkafka.NewSinkWriter(ctx, connkafka.SinkConfig{
				Brokers: []string{b.Addr}, Topic: "out", TxnIDPrefix: "weir", SinkID: "s1",
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := sw.BeginEpoch(1); err != nil {
				t.Fatal(err)
			}
			vals := seqValues("txn", 20)
			for _, v := range vals {
				if err := sw.Write(ctx, connkafka.Record{Value: []byte(v)}); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := sw.PreCommit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := kafkatest.ConsumeIsolation(t, b.Addr, "out", "read_uncommitted"); len(got) != len(vals) {
				t.Fatalf("pre-committed records on the broker: %d, want %d", len(got), len(vals))
			}
			if got := kafkatest.Consume(t, b.Addr, "out"); len(got) != 0 {
				t.Fatalf("read_committed sees %d records of an open transaction", len(got))
			}
			// The process that wrote the transaction is gone, as after a
			// crash of weir; only its record remains.
			sw.Close()

			if crash {
				b.Kill()
				b.Restart()
			} else {
				b.Restart()
			}
			if err := connkafka.RecoverPending(ctx, []string{b.Addr}, []connkafka.TxnRecord{rec}); err != nil {
				t.Fatalf("committing the pre-committed transaction after a %s of the broker: %v", name, err)
			}
			checkRecords(t, "after recovery", kafkatest.Consume(t, b.Addr, "out"), vals)
		})
	}
}
