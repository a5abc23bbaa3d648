package kafka

import (
	"context"
	"testing"
	"time"

	connkafka "github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/tests/kafka/kafkatest"
)

// TestRecoveryRepeatsAfterProducersStarted is the connector-level form of
// a double crash: a checkpoint recorded a pre-committed transaction; the
// first recovery commits it (RecoverPending) and starts the sink's
// producers (NewSinkWriter, which bumps the producer epochs of the pool);
// then the server dies before any checkpoint records that the transaction
// is done, so the next recovery commits the same record again. DESIGN.md
// §5 promises that this commit is idempotent, and the records must be
// visible exactly once.
func TestRecoveryRepeatsAfterProducersStarted(t *testing.T) {
	kafkatest.Kcat(t)
	b := kafkatest.StartBroker(t, "")
	kafkatest.CreateTopic(t, b.Addr, "out", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := connkafka.SinkConfig{Brokers: []string{b.Addr}, Topic: "out", TxnIDPrefix: "weir", SinkID: "s1"}

	sw, err := connkafka.NewSinkWriter(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.BeginEpoch(1); err != nil {
		t.Fatal(err)
	}
	vals := seqValues("twice", 10)
	for _, v := range vals {
		if err := sw.Write(ctx, connkafka.Record{Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := sw.PreCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sw.Close() // the crash after the checkpoint committed

	// First recovery: commit, then start the producers, then die.
	if err := connkafka.RecoverPending(ctx, cfg.Brokers, []connkafka.TxnRecord{rec}); err != nil {
		t.Fatalf("first recovery: %v", err)
	}
	sw2, err := connkafka.NewSinkWriter(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw2.Close()

	// Second recovery: the record is still pending in the last committed
	// checkpoint.
	if err := connkafka.RecoverPending(ctx, cfg.Brokers, []connkafka.TxnRecord{rec}); err != nil {
		t.Errorf("second recovery of the same committed checkpoint: %v", err)
	}
	checkRecords(t, "after two recoveries", kafkatest.Consume(t, b.Addr, "out"), vals)
}
