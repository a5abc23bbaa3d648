package kafka

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// crashImage copies the data directory of a running broker, which is what
// a broker SIGKILLed at that moment leaves behind (with SyncWrites every
// write is on disk), and starts a broker on the copy.
func crashImage(t *testing.T, dir string) *Broker {
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
	return b
}

// TestSettleAfterBrokerCrash is bug (a) of the broker kill loop in
// miniature: a broker that crashed after committing a sink transaction
// refuses the repeat of that commit (its restart forgets that the
// transaction's last end was a commit), exactly as it refuses the commit
// of a transaction the crash aborted. The refusal cannot tell them apart;
// SettleTxn, reading the log, does.
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
	writeEpoch(t, w, 2, "e2", 9)
	open := preCommit(t, w) // pre-committed, never committed: open at the crash
	if len(committed.FirstOffsets) == 0 || len(open.FirstOffsets) == 0 {
		t.Fatalf("records without first offsets: %v %v", committed.FirstOffsets, open.FirstOffsets)
	}

	b2 := crashImage(t, dir)
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
