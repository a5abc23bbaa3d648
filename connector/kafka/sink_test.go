package kafka

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func sinkConfig(b *Broker, topic string) SinkConfig {
	return SinkConfig{Brokers: []string{b.Addr()}, Topic: topic, SinkID: topic, PoolSize: 3, Logger: quiet}
}

func newSink(t *testing.T, cfg SinkConfig) *SinkWriter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := NewSinkWriter(ctx, cfg)
	if err != nil {
		t.Fatalf("NewSinkWriter: %v", err)
	}
	t.Cleanup(w.Close)
	return w
}

// writeEpoch begins epoch e and writes n records "<prefix>-i" with keys.
func writeEpoch(t *testing.T, w *SinkWriter, e uint64, prefix string, n int) {
	t.Helper()
	if err := w.BeginEpoch(e); err != nil {
		t.Fatalf("BeginEpoch(%d): %v", e, err)
	}
	for i := range n {
		r := Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "%s-%d", prefix, i)}
		if err := w.Write(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func preCommit(t *testing.T, w *SinkWriter) TxnRecord {
	t.Helper()
	rec, err := w.PreCommit(context.Background())
	if err != nil {
		t.Fatalf("PreCommit: %v", err)
	}
	return rec
}

func expectCommitted(t *testing.T, b *Broker, topic string, want []string) {
	t.Helper()
	slices.Sort(want)
	if got := consumeCommitted(t, b.Addr(), topic); !slices.Equal(got, want) {
		t.Fatalf("read_committed %s:\n got %q\nwant %q", topic, got, want)
	}
}

func cat(parts ...[]string) []string { return slices.Concat(parts...) }

// (a) Records of an epoch become visible to read_committed readers only
// once Commit runs, i.e. after the checkpoint; a later open epoch does not
// hide an earlier committed one.
func TestSinkEpochsVisibleAfterCommit(t *testing.T) {
	b := startBroker(t, BrokerOptions{DefaultPartitions: 2})
	const topic = "eo-normal"
	createTopic(t, b, topic, 2)
	w := newSink(t, sinkConfig(b, topic))
	ctx := context.Background()

	writeEpoch(t, w, 1, "e1", 5)
	r1 := preCommit(t, w)
	if r1.Empty || r1.Epoch != 1 || r1.TransactionalID != "weir-eo-normal-0-0" {
		t.Fatalf("pre-commit record %v", r1)
	}
	if len(r1.FirstOffsets) == 0 {
		t.Fatalf("pre-commit record %v has no first offsets", r1)
	}
	expectCommitted(t, b, topic, nil)
	if got := consume(t, b.Addr(), topic, "read_uncommitted"); len(got) != 5 {
		t.Fatalf("pre-committed records are not on the broker: %q", got)
	}

	writeEpoch(t, w, 2, "e2", 3)
	if done := w.TakeDone(); len(done) != 0 {
		t.Fatalf("done marks before any commit: %v", done)
	}
	if err := w.Commit(ctx, r1); err != nil {
		t.Fatal(err)
	}
	expectCommitted(t, b, topic, seq("e1", 0, 5))

	r2 := preCommit(t, w)
	if done := w.TakeDone(); len(done) != 1 || !reflect.DeepEqual(done[0], r1) {
		t.Fatalf("TakeDone = %v, want [%v]", done, r1)
	}
	expectCommitted(t, b, topic, seq("e1", 0, 5))
	if err := w.Commit(ctx, r2); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, r2); err != nil {
		t.Fatalf("second Commit of the same record: %v", err)
	}
	expectCommitted(t, b, topic, cat(seq("e1", 0, 5), seq("e2", 0, 3)))

	// (d) Recovery re-committing transactions already committed is a
	// no-op: KIP-890 retry detection accepts the same (pid, epoch).
	if err := RecoverPending(ctx, []string{b.Addr()}, []TxnRecord{r1, r2}); err != nil {
		t.Fatalf("RecoverPending of committed transactions: %v", err)
	}
	expectCommitted(t, b, topic, cat(seq("e1", 0, 5), seq("e2", 0, 3)))

	// An epoch that writes nothing needs no Kafka transaction.
	if err := w.BeginEpoch(3); err != nil {
		t.Fatal(err)
	}
	r3 := preCommit(t, w)
	if !r3.Empty {
		t.Fatalf("empty epoch record %v", r3)
	}
	if err := w.Commit(ctx, r3); err != nil {
		t.Fatal(err)
	}
}

// (b) A crash after pre-commit and after the checkpoint committed, but
// before the Kafka commit: recovery commits the transaction from the
// record stored in the checkpoint, and its records appear exactly once.
func TestSinkRecoverPreCommitted(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "eo-crash-after"
	cfg := sinkConfig(b, topic)
	ctx := context.Background()

	w1, err := NewSinkWriter(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeEpoch(t, w1, 7, "e7", 4)
	stored := preCommit(t, w1).Marshal() // into the checkpoint's batch
	w1.Close()                           // the crash: no EndTxn is sent
	expectCommitted(t, b, topic, nil)

	rec, err := UnmarshalTxnRecord(stored)
	if err != nil {
		t.Fatal(err)
	}
	if err := RecoverPending(ctx, []string{b.Addr()}, []TxnRecord{rec}); err != nil {
		t.Fatalf("RecoverPending: %v", err)
	}
	expectCommitted(t, b, topic, seq("e7", 0, 4))

	// The restarted writer initialises every id, which must not disturb
	// the recovered transaction, and carries on.
	w2 := newSink(t, cfg)
	expectCommitted(t, b, topic, seq("e7", 0, 4))
	writeEpoch(t, w2, 8, "e8", 2)
	r8 := preCommit(t, w2)
	if err := w2.Commit(ctx, r8); err != nil {
		t.Fatal(err)
	}
	expectCommitted(t, b, topic, cat(seq("e7", 0, 4), seq("e8", 0, 2)))
}

// (c) A crash before pre-commit: the records reached the broker inside an
// open transaction, and the restarted writer's producer initialisation
// aborts it; nothing of that epoch ever becomes visible.
func TestSinkCrashBeforePreCommit(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "eo-crash-before"
	cfg := sinkConfig(b, topic)
	ctx := context.Background()

	w1, err := NewSinkWriter(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeEpoch(t, w1, 1, "lost", 3)
	if err := w1.cur.cl.Flush(ctx); err != nil { // on the broker, uncommitted
		t.Fatal(err)
	}
	w1.Close()

	w2 := newSink(t, cfg)
	if got := consume(t, b.Addr(), topic, "read_uncommitted"); !slices.Equal(got, seq("lost", 0, 3)) {
		t.Fatalf("read_uncommitted = %q", got)
	}
	// The aborted transaction no longer holds back the last stable offset:
	// a later epoch is visible while the lost one stays hidden.
	writeEpoch(t, w2, 1, "replayed", 3)
	r := preCommit(t, w2)
	if err := w2.Commit(ctx, r); err != nil {
		t.Fatal(err)
	}
	expectCommitted(t, b, topic, seq("replayed", 0, 3))
}

// (e) The pool rotates, and an id is not reused while its transaction is
// unresolved: pre-committed, or committed in Kafka with the done mark not
// yet in a committed checkpoint.
func TestSinkPoolRotation(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "eo-pool"
	w := newSink(t, sinkConfig(b, topic))
	ctx := context.Background()
	ids := sinkConfig(b, topic).TransactionalIDs()

	// The real order: epoch e+1 begins at barrier e, before checkpoint e
	// commits and Commit(rec_e) runs.
	var used []string
	var pending *TxnRecord
	var all []string
	for e := uint64(1); e <= 7; e++ {
		writeEpoch(t, w, e, fmt.Sprintf("e%d", e), 1)
		all = append(all, fmt.Sprintf("e%d-0", e))
		if pending != nil {
			if err := w.Commit(ctx, *pending); err != nil {
				t.Fatal(err)
			}
		}
		r := preCommit(t, w)
		for _, d := range w.TakeDone() {
			if d.TransactionalID == r.TransactionalID {
				t.Fatalf("epoch %d reuses %s while its done mark is pending", e, d.TransactionalID)
			}
		}
		used = append(used, r.TransactionalID)
		pending = &r
	}
	if err := w.Commit(ctx, *pending); err != nil {
		t.Fatal(err)
	}
	want := []string{ids[0], ids[1], ids[2], ids[0], ids[1], ids[2], ids[0]}
	if !slices.Equal(used, want) {
		t.Fatalf("ids used %q, want %q", used, want)
	}
	expectCommitted(t, b, topic, all)

	// Without commits, the pool runs out instead of reusing an id.
	w2 := newSink(t, SinkConfig{Brokers: []string{b.Addr()}, Topic: topic, SinkID: "stuck", PoolSize: 3, Logger: quiet})
	for e := uint64(1); e <= 3; e++ {
		writeEpoch(t, w2, e, "stuck", 1)
		preCommit(t, w2)
	}
	err := w2.BeginEpoch(4)
	if err == nil || !strings.Contains(err.Error(), "unresolved") {
		t.Fatalf("BeginEpoch with every id pending: %v", err)
	}
}

func TestTxnRecordMarshal(t *testing.T) {
	for _, r := range []TxnRecord{
		{TransactionalID: "weir-s-0-1", ProducerID: 5393761587282840458, ProducerEpoch: 3, Epoch: 1 << 40},
		{TransactionalID: "", ProducerID: -1, ProducerEpoch: -1, Epoch: 0, Empty: true},
		{TransactionalID: "weir-s-0-2", ProducerID: 9, ProducerEpoch: 1, Epoch: 12, FirstOffsets: map[int32]int64{0: 17, 2: 1 << 35}},
	} {
		got, err := UnmarshalTxnRecord(r.Marshal())
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip of %v: %v, %v", r, got, err)
		}
		b := r.Marshal()
		if _, err := UnmarshalTxnRecord(b[:len(b)-1]); err == nil {
			t.Fatalf("truncated record accepted")
		}
		if _, err := UnmarshalTxnRecord(append(b, 0)); err == nil {
			t.Fatalf("trailing byte accepted")
		}
	}
	// A record of the first version, stored before first offsets were,
	// still decodes.
	v1 := []byte{1, 3, 'a', '-', '1', 14, 6, 24, 0}
	want := TxnRecord{TransactionalID: "a-1", ProducerID: 7, ProducerEpoch: 3, Epoch: 24}
	if got, err := UnmarshalTxnRecord(v1); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("version 1 record: %v, %v; want %v", got, err, want)
	}
}

// The at-least-once writer flushes at the barrier and has nothing to
// commit: records are visible right after PreCommit.
func TestSinkAtLeastOnce(t *testing.T) {
	b := startBroker(t, BrokerOptions{})
	const topic = "alo"
	cfg := sinkConfig(b, topic)
	cfg.Guarantee = AtLeastOnce
	w := newSink(t, cfg)
	writeEpoch(t, w, 1, "a", 4)
	r := preCommit(t, w)
	if !r.Empty {
		t.Fatalf("at-least-once record %v", r)
	}
	expectCommitted(t, b, topic, seq("a", 0, 4))
	if err := w.Commit(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// TestTxnRecordString checks that a transaction record names its
// producer epoch apart from its checkpoint epoch (weir.sinks shows it).
func TestTxnRecordString(t *testing.T) {
	r := TxnRecord{TransactionalID: "weir-1-0-2", ProducerID: 7, ProducerEpoch: 3, Epoch: 900}
	if got, want := r.String(), "txn weir-1-0-2 producer_id=7 producer_epoch=3 (checkpoint epoch 900, empty=false)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
