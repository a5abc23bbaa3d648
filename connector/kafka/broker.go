package kafka

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// DefaultTransactionMaxTimeout is the embedded broker's
// transaction.max.timeout.ms. Kafka's default (15 min) is raised so that a
// sink transaction can stay open for a whole checkpoint interval plus the
// time a recovery takes.
const DefaultTransactionMaxTimeout = time.Hour

// BrokerOptions configures the embedded development broker.
type BrokerOptions struct {
	// Listen is the host:port the broker listens on; port 0 picks a free
	// port (read it back with Broker.Addr). Empty means 127.0.0.1:0.
	Listen string
	// Advertise is the host:port put into metadata responses, which clients
	// then connect to. Empty means the listening address; set it when
	// Listen is a wildcard address such as 0.0.0.0:9092.
	Advertise string
	// DataDir, when set, persists topics, offsets, groups and transaction
	// state there; a broker started again on the same directory reloads
	// them. Empty keeps everything in memory.
	DataDir string
	// SyncWrites fsyncs every produced batch (only with DataDir). Without
	// it, writes reach the page cache and are synced on segment roll and
	// on Close, which is Kafka's own default.
	SyncWrites bool
	// DefaultPartitions is the partition count of auto-created topics
	// (default 1).
	DefaultPartitions int
	// DisableAutoCreate turns off automatic topic creation on produce and
	// metadata requests (on by default, as kcat -P expects).
	DisableAutoCreate bool
	// TransactionMaxTimeout is transaction.max.timeout.ms (default
	// DefaultTransactionMaxTimeout).
	TransactionMaxTimeout time.Duration
	// Topics are created at start with DefaultPartitions partitions each
	// (ignored for topics already persisted in DataDir).
	Topics []string
}

// Broker is franz-go's in-process fake Kafka cluster (kfake, one broker)
// served on a real TCP port, so that kcat, librdkafka and franz-go clients
// talk to it as to a Kafka broker. It speaks the real protocol, including
// idempotent and transactional produce with KIP-890 EndTxn v5.
type Broker struct {
	c    *kfake.Cluster
	addr string
	// repaired is how many abort markers the start wrote; restored how
	// many open transactions it kept.
	repaired, restored int

	closeOnce sync.Once
}

// advertisedListener reports a chosen address instead of the socket's own,
// because kfake advertises whatever Addr returns in metadata responses.
type advertisedListener struct {
	net.Listener
	addr net.Addr
}

func (l advertisedListener) Addr() net.Addr { return l.addr }

// StartBroker starts the embedded broker and returns once it accepts
// connections. Errors: the address cannot be listened on, or the persisted
// state in DataDir cannot be loaded.
func StartBroker(opts BrokerOptions) (*Broker, error) {
	listen := opts.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("kafka broker: listen on %s: %w", listen, err)
	}
	var adv net.Addr = ln.Addr()
	if opts.Advertise != "" {
		a, err := net.ResolveTCPAddr("tcp", opts.Advertise)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("kafka broker: advertised address %q: %w", opts.Advertise, err)
		}
		adv = a
	}
	used := false
	// kfake asks for 127.0.0.1:<port>; we hand it the listener opened above
	// on the address the caller chose.
	listenFn := func(network, address string) (net.Listener, error) {
		if used {
			return nil, fmt.Errorf("kafka broker: only one listener")
		}
		used = true
		return advertisedListener{ln, adv}, nil
	}

	parts := opts.DefaultPartitions
	if parts <= 0 {
		parts = 1
	}
	maxTxn := opts.TransactionMaxTimeout
	if maxTxn <= 0 {
		maxTxn = DefaultTransactionMaxTimeout
	}
	kopts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ListenFn(listenFn),
		kfake.DefaultNumPartitions(parts),
		kfake.BrokerConfigs(map[string]string{
			"transaction.max.timeout.ms": strconv.FormatInt(maxTxn.Milliseconds(), 10),
		}),
	}
	if !opts.DisableAutoCreate {
		kopts = append(kopts, kfake.AllowAutoTopicCreation())
	}
	if len(opts.Topics) > 0 {
		kopts = append(kopts, kfake.SeedTopics(int32(parts), opts.Topics...))
	}
	var (
		kept  map[keptTxn]bool
		flips []indexFlip
	)
	if opts.DataDir != "" {
		var err error
		if kept, flips, err = restoreOpenTxns(opts.DataDir); err != nil {
			ln.Close()
			return nil, fmt.Errorf("kafka broker: keeping the transactions a crash left open: %w", err)
		}
		kopts = append(kopts, kfake.DataDir(opts.DataDir))
		if opts.SyncWrites {
			kopts = append(kopts, kfake.SyncWrites())
		}
	}
	c, err := kfake.NewCluster(kopts...)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("kafka broker: %w", err)
	}
	if err := restoreFlags(flips); err != nil {
		c.Close()
		return nil, fmt.Errorf("kafka broker: keeping the transactions a crash left open: %w", err)
	}
	repaired := 0
	if opts.DataDir != "" {
		ctx, cancel := context.WithTimeout(context.Background(), repairTimeout)
		repaired, err = abortDanglingTxns(ctx, ln.Addr().String(), kept)
		cancel()
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("kafka broker: writing the abort markers of transactions a crash left open: %w", err)
		}
	}
	return &Broker{c: c, addr: adv.String(), repaired: repaired, restored: keptCount(kept)}, nil
}

// RestoredTxns returns how many open transactions the broker kept at
// start that a crash had left open (0 after a clean stop, whose open
// transactions kfake keeps itself).
func (b *Broker) RestoredTxns() int { return b.restored }

// RepairedTxns returns how many abort markers the broker wrote at start
// for transactions a crash had left open (0 after a clean stop).
func (b *Broker) RepairedTxns() int { return b.repaired }

// Addr returns the broker's advertised host:port, the bootstrap address
// for clients.
func (b *Broker) Addr() string { return b.addr }

// Cluster returns the underlying kfake cluster, for tests that inject
// faults or inspect partitions.
func (b *Broker) Cluster() *kfake.Cluster { return b.c }

// Close stops the broker, closes client connections and, with a DataDir,
// syncs the persisted state. Close is safe to call more than once.
func (b *Broker) Close() {
	b.closeOnce.Do(b.c.Close)
}
