package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/sql"
)

// Config configures a cluster node.
type Config struct {
	// Bootstrap is the Kafka cluster's bootstrap address (host:port).
	Bootstrap string
	// NodeID identifies the node; each live node needs its own (it names
	// the node's transactional ids, so a restarted node fences its
	// previous incarnation).
	NodeID int
	// Name is the cluster's name; internal topics start with
	// "_weir.<Name>." (default "weir").
	Name string
	// Addr is the node's Postgres address, which other nodes use to read
	// the key groups it owns.
	Addr string
	// SessionTimeout is the group session timeout: how long a dead node
	// keeps its partitions (default 10 s; the broker's
	// group.min.session.timeout.ms bounds it from below).
	SessionTimeout time.Duration
	// TxnTimeout is the Kafka transaction timeout: how long a dead node's
	// open transaction holds back readers (default 10 s).
	TxnTimeout time.Duration
	// EpochRecords bounds the records of one epoch (default 10,000).
	EpochRecords int
	// PollWait bounds how long an epoch waits for records (default 100 ms).
	PollWait time.Duration
	// ReadTimeout bounds how long a query waits for every key group of a
	// view to have an active owner (default 30 s); after it, 40001.
	ReadTimeout time.Duration
	// Logger receives the node's structured log (nil: slog.Default()).
	Logger *slog.Logger
}

func (c *Config) withDefaults() {
	if c.Name == "" {
		c.Name = "weir"
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 10 * time.Second
	}
	if c.TxnTimeout == 0 {
		c.TxnTimeout = 10 * time.Second
	}
	if c.EpochRecords == 0 {
		c.EpochRecords = 10000
	}
	if c.PollWait == 0 {
		c.PollWait = 100 * time.Millisecond
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Node is one weir node of a cluster: it replays the catalog topic, runs
// a job per view, and answers DDL and queries (Handler).
type Node struct {
	cfg    Config
	prefix string
	log    *slog.Logger

	cl  *kgo.Client // catalog producer and consumer
	adm *kadm.Client

	mu      sync.Mutex
	cat     *Catalog
	waiters map[string]chan applied
	jobs    map[string]*job

	cancel context.CancelFunc
	done   chan struct{}
}

type applied struct {
	ch  Change
	err error
}

// Open starts a node: it creates the catalog topic if needed, replays it
// to its end, starts the jobs of the views in it, and keeps following it.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	cfg.withDefaults()
	n := &Node{cfg: cfg, prefix: "_weir." + cfg.Name, log: cfg.Logger.With("node", cfg.NodeID),
		cat: NewCatalog(), waiters: map[string]chan applied{}, jobs: map[string]*job{}, done: make(chan struct{})}
	catTopic := n.prefix + ".catalog"
	// The catalog topic is created before any client consumes it: the
	// development broker creates a topic it is asked about with its
	// default partition count.
	admCl, err := kgo.NewClient(kgo.SeedBrokers(cfg.Bootstrap))
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(admCl)
	if err := n.createTopicWith(ctx, adm, catTopic, 1, nil); err != nil {
		admCl.Close()
		return nil, fmt.Errorf("catalog topic: %w", err)
	}
	admCl.Close()
	n.cl, err = kgo.NewClient(kgo.SeedBrokers(cfg.Bootstrap),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{catTopic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0))
	if err != nil {
		return nil, err
	}
	n.adm = kadm.NewClient(n.cl)
	ends, err := n.adm.ListEndOffsets(ctx, catTopic)
	if err != nil {
		n.cl.Close()
		return nil, fmt.Errorf("catalog topic: %w", err)
	}
	end := int64(0)
	if o, ok := ends.Lookup(catTopic, 0); ok {
		end = o.Offset
	}
	// Catch up before serving: a new node holds the whole catalog first.
	for n.cat.Applied+1 < end {
		if err := n.replayOnce(ctx); err != nil {
			n.cl.Close()
			return nil, err
		}
	}
	n.log.Info("cluster catalog replayed", "records", end, "sources", len(n.cat.Sources), "views", len(n.cat.Views), "sinks", len(n.cat.Sinks))
	rctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go n.follow(rctx)
	return n, nil
}

// Close stops the jobs (leaving their groups) and the catalog follower.
func (n *Node) Close() {
	n.cancel()
	<-n.done
	n.mu.Lock()
	jobs := n.jobs
	n.jobs = map[string]*job{}
	n.mu.Unlock()
	for _, j := range jobs {
		j.stop()
	}
	n.cl.Close()
}

func (n *Node) follow(ctx context.Context) {
	defer close(n.done)
	for ctx.Err() == nil {
		if err := n.replayOnce(ctx); err != nil && ctx.Err() == nil {
			n.log.Warn("catalog replay", "err", err)
			time.Sleep(time.Second)
		}
	}
}

// replayOnce applies the catalog records of one fetch, then brings the
// jobs in line with the catalog.
func (n *Node) replayOnce(ctx context.Context) error {
	fs := n.cl.PollFetches(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ferr error
	fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("catalog %s[%d]: %w", t, p, err) })
	if ferr != nil {
		return ferr
	}
	n.mu.Lock()
	fs.EachRecord(func(r *kgo.Record) {
		e, err := UnmarshalEntry(r.Value)
		if err != nil {
			n.log.Error("unreadable catalog record skipped", "offset", r.Offset, "err", err)
			n.cat.Applied = r.Offset
			return
		}
		ch, err := n.cat.Apply(r.Offset, e)
		n.log.Info("catalog record applied", "offset", r.Offset, "sql", e.SQL, "err", err)
		if w := n.waiters[e.ID]; w != nil {
			w <- applied{ch, err}
			delete(n.waiters, e.ID)
		}
	})
	n.mu.Unlock()
	n.reconcile()
	return nil
}

// reconcile starts a job for every view without one, stops those of
// dropped views, and hands each job its sinks.
func (n *Node) reconcile() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for name, j := range n.jobs {
		if v := n.cat.Views[name]; v == nil || v.Ident != j.view.Ident {
			go j.stop()
			delete(n.jobs, name)
		}
	}
	names := make([]string, 0, len(n.cat.Views))
	for name := range n.cat.Views {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := n.cat.Views[name]
		j := n.jobs[name]
		if j == nil {
			var err error
			j, err = n.startJob(v, n.cat.Sources[v.Source], n.cat.SinksOf(name))
			if err != nil {
				n.log.Error("start view job", "view", name, "err", err)
				continue
			}
			n.jobs[name] = j
			continue
		}
		j.setSinks(n.cat.SinksOf(name))
	}
}

// syncCatalog waits until this node has applied every catalog record
// appended before the call: a statement on any node then sees all DDL
// that was acknowledged anywhere before it began.
func (n *Node) syncCatalog(ctx context.Context) error {
	topic := n.prefix + ".catalog"
	ends, err := n.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return pgerr.Wrap(pgerr.ConnectionException, err, "cannot read the cluster catalog's end")
	}
	o, ok := ends.Lookup(topic, 0)
	if !ok || o.Err != nil {
		return pgerr.New(pgerr.ConnectionException, "cannot read the cluster catalog's end")
	}
	for {
		n.mu.Lock()
		applied := n.cat.Applied
		n.mu.Unlock()
		if applied+1 >= o.Offset {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Submit checks a DDL statement, appends it to the catalog topic and
// waits until this node's replay applied it; the result is the replay's.
func (n *Node) Submit(ctx context.Context, st sql.Stmt, text string) (Change, error) {
	if err := n.syncCatalog(ctx); err != nil {
		return Change{}, err
	}
	e := Entry{ID: newNonce()[:12], SQL: text}
	n.mu.Lock()
	cat := n.cat
	var err error
	var pre func() error
	switch s := st.(type) {
	case *sql.CreateView:
		// The key group count is decided here, once: the source topic's
		// partition count.
		if v, perr := cat.planView(s.Query); perr == nil {
			src := cat.Sources[v.Source]
			n.mu.Unlock()
			e.Partitions, err = n.partitionCount(ctx, src.Topic)
			n.mu.Lock()
			if err != nil {
				n.mu.Unlock()
				var pe *pgerr.Error
				if errors.As(err, &pe) {
					return Change{}, err
				}
				return Change{}, pgerr.Wrap(pgerr.ConnectionException, err, "cannot read the partitions of the source topic")
			}
		}
		if err = cat.Check(st, max(e.Partitions, 1)); err == nil {
			name := s.Name.Name
			pre = func() error {
				t := n.topicsOf(&View{Name: name, Ident: e.ID})
				if err := n.createTopic(ctx, t.repartition, e.Partitions, nil); err != nil {
					return err
				}
				compact := "compact"
				return n.createTopic(ctx, t.changelog, e.Partitions, map[string]*string{"cleanup.policy": &compact})
			}
		}
	case *sql.CreateSink:
		if err = cat.Check(st, 0); err == nil && cat.Views[s.From.Name] != nil {
			if s.With["properties.bootstrap.server"] != n.cfg.Bootstrap {
				err = pgerr.New(pgerr.FeatureNotSupported, "a cluster sink writes to the cluster's own Kafka (%s)", n.cfg.Bootstrap)
			}
			parts := cat.Views[s.From.Name].Partitions
			topic := s.With["topic"]
			pre = func() error { return n.createTopic(ctx, topic, parts, nil) }
		}
	case *sql.CreateSource:
		if err = cat.Check(st, 0); err == nil && s.With["properties.bootstrap.server"] != n.cfg.Bootstrap {
			err = pgerr.New(pgerr.FeatureNotSupported, "a cluster source reads from the cluster's own Kafka (%s)", n.cfg.Bootstrap).
				WithHint("Use properties.bootstrap.server = '%s'.", n.cfg.Bootstrap)
		}
	default:
		err = cat.Check(st, 0)
	}
	if err != nil {
		n.mu.Unlock()
		return Change{}, err
	}
	w := make(chan applied, 1)
	n.waiters[e.ID] = w
	n.mu.Unlock()
	fail := func(err error) (Change, error) {
		n.mu.Lock()
		delete(n.waiters, e.ID)
		n.mu.Unlock()
		return Change{}, err
	}
	if pre != nil {
		if err := pre(); err != nil {
			return fail(pgerr.Wrap(pgerr.ConnectionException, err, "cannot create the internal topics"))
		}
	}
	rec := &kgo.Record{Topic: n.prefix + ".catalog", Partition: 0, Key: []byte(e.ID), Value: e.Marshal()}
	if err := n.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return fail(pgerr.Wrap(pgerr.ConnectionException, err, "cannot append to the cluster catalog"))
	}
	select {
	case a := <-w:
		return a.ch, a.err
	case <-ctx.Done():
		return fail(ctx.Err())
	}
}

// createTopic creates a topic unless it exists.
func (n *Node) createTopic(ctx context.Context, topic string, parts int32, configs map[string]*string) error {
	return n.createTopicWith(ctx, n.adm, topic, parts, configs)
}

func (n *Node) createTopicWith(ctx context.Context, adm *kadm.Client, topic string, parts int32, configs map[string]*string) error {
	resp, err := adm.CreateTopic(ctx, parts, 1, configs, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return err
	}
	if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		return resp.Err
	}
	return nil
}

// partitionCount returns a topic's partition count, creating the topic
// (with the broker's default count) if it does not exist.
func (n *Node) partitionCount(ctx context.Context, topic string) (int32, error) {
	td, err := n.adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, err
	}
	d, ok := td[topic]
	if !ok || d.Err != nil {
		if ok && !errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return 0, d.Err
		}
		return 0, pgerr.New(pgerr.InvalidParameterValue, "Kafka topic %q does not exist", topic).
			WithHint("Create the topic first: its partition count becomes the view's key group count.")
	}
	return int32(len(d.Partitions)), nil
}

// catalogView returns a view and its job.
func (n *Node) catalogView(name string) (*View, *job) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cat.Views[name], n.jobs[name]
}

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
