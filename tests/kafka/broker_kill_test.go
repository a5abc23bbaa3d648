package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestBrokerKillLeavesNoHalfEndedTransaction SIGKILLs `weir kafka` while a
// transaction is open, then has the same transactional id commit more
// records, then kills the broker again. kfake alone aborts the open
// transaction on restart without writing its ABORT marker; unrepaired,
// read_committed readers from the start then miss the later committed
// records, and after the second kill the aborted record comes back as
// committed. The broker keeps the transaction open instead, as Kafka
// does, so the new producer's InitProducerID aborts it with a marker (and
// it writes the markers of those it cannot keep), so read_committed sees
// exactly what was committed after every kill.
func TestBrokerKillLeavesNoHalfEndedTransaction(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	kafkatest.CreateTopic(t, b.Addr, "tx", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// produce runs one transaction of vals with transactional id x and
	// commits it, or leaves it open (flushed to the broker) when commit
	// is false.
	produce := func(commit bool, vals ...string) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.TransactionalID("x"),
			kgo.DefaultProduceTopic("tx"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if commit {
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				t.Fatal(err)
			}
		}
	}
	committed := []string{"c1"}
	produce(true, "c1")
	for round := range 2 {
		produce(false, "open")
		b.Kill()
		b.Restart()
		checkRecords(t, "after the kill", kafkatest.Consume(t, b.Addr, "tx"), committed)
		c := []string{"c2", "c3"}
		if round == 1 {
			c = []string{"c4"}
		}
		produce(true, c...)
		committed = append(committed, c...)
		checkRecords(t, "after the same transactional id committed again", kafkatest.Consume(t, b.Addr, "tx"), committed)
	}
	b.Kill()
	b.Restart()
	checkRecords(t, "after a last kill", kafkatest.Consume(t, b.Addr, "tx"), committed)
}
