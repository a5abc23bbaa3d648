package kafka

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// crashImage copies the data directory of a running broker, which is what
// a broker SIGKILLed at that moment leaves behind (with SyncWrites every
// write is on disk), and starts a broker on the copy.
func crashImage(t *testing.T, dir string) (*Broker, string) {
	t.Helper()
	img := t.TempDir()
	if err := os.CopyFS(img, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	// A lock or pid file of the running broker is not part of its state.
	os.Remove(filepath.Join(img, "lock"))
	b, err := StartBroker(BrokerOptions{DataDir: img, SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b, img
}

// TestSettleAfterBrokerCrash is bug (a) of the broker kill loop in
// miniature: a broker that crashed after committing a sink transaction
// refuses the repeat of that commit (its restart forgets that the
// transaction's last end was a commit), exactly as it refuses the commit
// of a transaction it aborted (here: its transaction timeout passed).
// The refusal cannot tell them apart; SettleTxn, reading the log, does.
func TestSettleAfterBrokerCrash(t *testing.T) {
	dir := t.TempDir()
	b, err := StartBroker(BrokerOptions{DataDir: dir, SyncWrites: true, DefaultPartitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const topic = "settle"
	createTopic(t, b, topic, 3)
	ctx := context.Background()
	cfg := sinkConfig(b, topic)
	w := newSink(t, cfg)

	writeEpoch(t, w, 1, "e1", 9)
	committed := preCommit(t, w)
	if err := w.Commit(ctx, committed); err != nil {
		t.Fatal(err)
	}
	short := sinkConfig(b, topic)
	short.SinkID, short.TransactionTimeout = "short", 100*time.Millisecond
	w2 := newSink(t, short)
	writeEpoch(t, w2, 2, "e2", 9)
	open := preCommit(t, w2) // pre-committed, never committed: it times out
	time.Sleep(300 * time.Millisecond)
	if len(committed.FirstOffsets) == 0 || len(open.FirstOffsets) == 0 {
		t.Fatalf("records without first offsets: %v %v", committed.FirstOffsets, open.FirstOffsets)
	}

	b2, _ := crashImage(t, dir)
	brokers := []string{b2.Addr()}
	for _, c := range []struct {
		rec  TxnRecord
		want bool
	}{{committed, true}, {open, false}} {
		err := RecoverPending(ctx, brokers, []TxnRecord{c.rec})
		if !errors.Is(err, ErrCommitRefused) {
			t.Fatalf("commit of %v after the crash: %v, want a refusal", c.rec, err)
		}
		got, err := SettleTxn(ctx, brokers, topic, c.rec)
		if err != nil {
			t.Fatalf("SettleTxn(%v): %v", c.rec, err)
		}
		if got != c.want {
			t.Errorf("SettleTxn(%v) = committed %v, want %v", c.rec, got, c.want)
		}
	}
	if got := consumeCommitted(t, b2.Addr(), topic); len(got) != 9 {
		t.Errorf("read_committed after the crash: %d records, want the 9 of epoch 1", len(got))
	}

	// A record without first offsets (the first version) cannot be
	// settled.
	old := committed
	old.FirstOffsets = nil
	if _, err := SettleTxn(ctx, brokers, topic, old); !errors.Is(err, ErrTxnNotSettled) {
		t.Errorf("SettleTxn of a record without first offsets: %v", err)
	}
}

// TestBrokerKeepsOpenTxnsAcrossCrash is bug (b) of the broker kill tests
// in miniature: a transaction pre-committed before the broker crashed is
// still open after its restart, as on Kafka, so the record of a coupled
// sink's checkpoint commits it, and its records appear once. A
// transaction of a producer fenced before the crash is not kept.
func TestBrokerKeepsOpenTxnsAcrossCrash(t *testing.T) {
	dir := t.TempDir()
	b, err := StartBroker(BrokerOptions{DataDir: dir, SyncWrites: true, DefaultPartitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const topic = "keep"
	createTopic(t, b, topic, 3)
	ctx := context.Background()
	w := newSink(t, sinkConfig(b, topic))
	writeEpoch(t, w, 1, "e1", 6)
	r1 := preCommit(t, w)
	if err := w.Commit(ctx, r1); err != nil {
		t.Fatal(err)
	}
	writeEpoch(t, w, 2, "e2", 9)
	r2 := preCommit(t, w) // recorded by a checkpoint, open at the crash
	writeEpoch(t, w, 3, "e3", 4)
	w.PreCommit(ctx) // open at the crash, recorded nowhere

	before := openProducers(t, b, topic)
	b2, dir2 := crashImage(t, dir)
	// The open transactions' producers are as they were, idempotence
	// windows included: a batch sent again after the restart is known
	// for a duplicate.
	if after := openProducers(t, b2, topic); !reflect.DeepEqual(after, before) || len(after) == 0 {
		t.Errorf("open transactions' producers after the crash:\n%v\nbefore:\n%v", after, before)
	}
	if n := b2.RestoredTxns(); n != 2 {
		t.Errorf("kept %d open transactions, want 2", n)
	}
	if n := b2.RepairedTxns(); n != 0 {
		t.Errorf("wrote %d abort markers, want none", n)
	}
	// Open transactions hold the read_committed readers back.
	if got := consumeCommitted(t, b2.Addr(), topic); len(got) != 6 {
		t.Fatalf("read_committed after the crash: %q, want the 6 records of epoch 1", got)
	}
	brokers := []string{b2.Addr()}
	if err := RecoverPending(ctx, brokers, []TxnRecord{r2}); err != nil {
		t.Fatalf("commit of the recorded transaction after the crash: %v", err)
	}
	// A new writer aborts what no record names.
	cfg := sinkConfig(b2, topic)
	newSink(t, cfg)
	got := consumeCommitted(t, b2.Addr(), topic)
	slices.Sort(got)
	want := cat(seq("e1", 0, 6), seq("e2", 0, 9))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read_committed: %q, want %q", got, want)
	}

	// A second crash keeps what the first one did: nothing is open now.
	b3, _ := crashImage(t, dir2)
	got = consumeCommitted(t, b3.Addr(), topic)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("read_committed after a second crash: %q, want %q", got, want)
	}
}

// openProducers describes the producers with a transaction open on
// topic: per partition and producer id, epoch, last sequence and the
// transaction's first offset.
func openProducers(t *testing.T, b *Broker, topic string) map[string]string {
	t.Helper()
	adm := kadm.NewClient(newClient(t, kgo.SeedBrokers(b.Addr())))
	ps, err := adm.DescribeProducers(context.Background(), kadm.TopicsSet{topic: {0: {}, 1: {}, 2: {}}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ps.EachProducer(func(p kadm.DescribedProducer) {
		out[fmt.Sprintf("%s/%d pid %d", p.Topic, p.Partition, p.ProducerID)] =
			fmt.Sprintf("epoch %d last_sequence %d first_offset %d", p.ProducerEpoch, p.LastSequence, p.CurrentTxnStartOffset)
	})
	return out
}
