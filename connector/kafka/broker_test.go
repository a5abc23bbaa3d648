package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrokerKcat checks the embedded broker with a real librdkafka client:
// metadata, plain produce with auto-created topics, and read_committed
// consumption hiding an aborted transaction.
func TestBrokerKcat(t *testing.T) {
	b := startBroker(t, BrokerOptions{Listen: "127.0.0.1:0", Topics: []string{"seeded"}})

	meta := kcat(t, "", "-L", "-b", b.Addr())
	if !strings.Contains(meta, "1 brokers:") || !strings.Contains(meta, `topic "seeded" with 1 partitions`) {
		t.Fatalf("kcat -L:\n%s", meta)
	}
	if !strings.Contains(meta, b.Addr()) {
		t.Fatalf("kcat -L does not show the advertised address %s:\n%s", b.Addr(), meta)
	}

	kcat(t, "k1:hello\nk2:world\n", "-P", "-b", b.Addr(), "-t", "plain", "-K:")
	if got, want := consumeCommitted(t, b.Addr(), "plain"), []string{"hello", "world"}; !slices.Equal(got, want) {
		t.Fatalf("plain topic: got %q, want %q", got, want)
	}

	ctx := context.Background()
	cl := newClient(t, kgo.SeedBrokers(b.Addr()), kgo.TransactionalID("broker-test"),
		kgo.DefaultProduceTopic("txn"), kgo.AllowAutoTopicCreation())
	txn := func(prefix string, end kgo.TransactionEndTry) {
		t.Helper()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "%s-%d", prefix, i)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatal(err)
		}
	}
	txn("committed", kgo.TryCommit)
	txn("aborted", kgo.TryAbort)
	if got, want := consumeCommitted(t, b.Addr(), "txn"), seq("committed", 0, 3); !slices.Equal(got, want) {
		t.Fatalf("read_committed: got %q, want %q", got, want)
	}
	all := consume(t, b.Addr(), "txn", "read_uncommitted")
	if want := append(seq("aborted", 0, 3), seq("committed", 0, 3)...); !slices.Equal(all, want) {
		t.Fatalf("read_uncommitted: got %q, want %q", all, want)
	}
}

// TestBrokerPersistence restarts a broker on the same DataDir and port and
// reads back what was produced before the restart.
func TestBrokerPersistence(t *testing.T) {
	dir := t.TempDir()
	b, err := StartBroker(BrokerOptions{DataDir: dir, SyncWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	addr := b.Addr()
	kcat(t, "a\nb\nc\n", "-P", "-b", addr, "-t", "durable")
	b.Close()

	// The port was just released; take it again so that the advertised
	// address stays the same, as a restarted server's would.
	var b2 *Broker
	for i := 0; ; i++ {
		b2, err = StartBroker(BrokerOptions{Listen: addr, DataDir: dir, SyncWrites: true})
		if err == nil {
			break
		}
		if i == 50 {
			t.Fatalf("restart on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer b2.Close()
	if got, want := consumeCommitted(t, addr, "durable"), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("after restart: got %q, want %q", got, want)
	}
	kcat(t, "d\n", "-P", "-b", addr, "-t", "durable")
	if got, want := consumeCommitted(t, addr, "durable"), []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("after restart and produce: got %q, want %q", got, want)
	}
}
