package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Guarantee is a sink's delivery guarantee (DESIGN.md §5, "Modes").
type Guarantee uint8

const (
	// ExactlyOnce writes each checkpoint epoch in one Kafka transaction
	// that is committed only after the checkpoint is (two-phase commit).
	ExactlyOnce Guarantee = iota
	// AtLeastOnce writes with an idempotent producer and flushes at each
	// barrier; after a crash, the replayed epoch is written again.
	AtLeastOnce
)

// String returns "exactly_once" or "at_least_once", the option values.
func (g Guarantee) String() string {
	if g == AtLeastOnce {
		return "at_least_once"
	}
	return "exactly_once"
}

// Defaults of SinkConfig.
const (
	DefaultTxnIDPrefix        = "weir"
	DefaultTxnPoolSize        = 4
	DefaultTransactionTimeout = 15 * time.Minute
	// DefaultDeliveryTimeout bounds a sink's waits on the broker, as
	// Kafka's producer delivery.timeout.ms does (its default, 2 min,
	// shortened: a checkpoint waits on it, and so does every write).
	DefaultDeliveryTimeout = time.Minute
)

// SinkConfig configures one sink actor's writer.
type SinkConfig struct {
	Brokers []string // bootstrap host:port list
	Topic   string
	// Guarantee selects transactions (ExactlyOnce, the default) or an
	// idempotent non-transactional producer (AtLeastOnce).
	Guarantee Guarantee
	// TxnIDPrefix, SinkID and Actor name the transactional ids
	// "<TxnIDPrefix>-<SinkID>-<Actor>-<n>" for n in [0, PoolSize). They
	// must be stable across restarts: recovery finds the open transactions
	// by these names.
	TxnIDPrefix string
	SinkID      string
	Actor       int
	// PoolSize is the number of transactional ids (default
	// DefaultTxnPoolSize, at least 3; see doc.go for why three suffice
	// with one checkpoint in flight).
	PoolSize int
	// TransactionTimeout is the producer's transaction.timeout.ms (default
	// 15 min, Kafka's transaction.max.timeout.ms default). A transaction
	// open longer is aborted by the broker, so it must cover a checkpoint
	// interval plus the time until the checkpoint commits.
	TransactionTimeout time.Duration
	// DeliveryTimeout bounds each wait on the broker (default
	// DefaultDeliveryTimeout): initialising a producer and flushing an
	// epoch's records at PreCommit. A broker that does not answer in time
	// fails the call, so the checkpoint fails instead of waiting forever.
	DeliveryTimeout time.Duration
	// Logger receives the writer's events (default slog.Default()).
	Logger *slog.Logger
	// ClientOpts are extra franz-go options (SASL, TLS, linger...).
	ClientOpts []kgo.Opt
}

// Record is one Kafka record to write: a nil Value is a tombstone.
type Record struct {
	Key   []byte
	Value []byte
}

// TxnRecord identifies a pre-committed Kafka transaction. It is stored in
// the checkpoint's batch at the barrier and is all that recovery needs to
// commit the transaction: EndTxn(commit) with this producer id and epoch.
type TxnRecord struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	// Epoch is the checkpoint epoch whose records the transaction holds.
	Epoch uint64
	// Empty is set when the epoch wrote nothing: no transaction was
	// started on the broker, so there is nothing to commit.
	Empty bool
	// FirstOffsets maps each partition of the sink's topic the
	// transaction wrote to the offset of its first record there.
	// SettleTxn reads the transaction's end from these offsets on. A
	// record of the first version has none.
	FirstOffsets map[int32]int64
}

// String describes r for logs and weir.sinks.
func (r TxnRecord) String() string {
	return fmt.Sprintf("txn %s producer_id=%d producer_epoch=%d (checkpoint epoch %d, empty=%v)",
		r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Epoch, r.Empty)
}

const txnRecordVersion = 2

// Marshal encodes r for the checkpoint batch: a version byte, then the
// transactional id (uvarint length + bytes), producer id (varint),
// producer epoch (varint), checkpoint epoch (uvarint), a flags byte, and
// (since version 2) the first offsets: a uvarint count, then partition
// and offset (varints) in partition order.
func (r TxnRecord) Marshal() []byte {
	b := make([]byte, 0, 32+len(r.TransactionalID))
	b = append(b, txnRecordVersion)
	b = binary.AppendUvarint(b, uint64(len(r.TransactionalID)))
	b = append(b, r.TransactionalID...)
	b = binary.AppendVarint(b, r.ProducerID)
	b = binary.AppendVarint(b, int64(r.ProducerEpoch))
	b = binary.AppendUvarint(b, r.Epoch)
	var flags byte
	if r.Empty {
		flags |= 1
	}
	b = append(b, flags)
	parts := slices.Sorted(maps.Keys(r.FirstOffsets))
	b = binary.AppendUvarint(b, uint64(len(parts)))
	for _, p := range parts {
		b = binary.AppendVarint(b, int64(p))
		b = binary.AppendVarint(b, r.FirstOffsets[p])
	}
	return b
}

// UnmarshalTxnRecord decodes what Marshal produced. Errors: truncated or
// trailing bytes, or an unknown version.
func UnmarshalTxnRecord(b []byte) (TxnRecord, error) {
	var r TxnRecord
	bad := func(what string) (TxnRecord, error) {
		return TxnRecord{}, fmt.Errorf("kafka sink: bad transaction record: %s", what)
	}
	if len(b) == 0 || b[0] < 1 || b[0] > txnRecordVersion {
		return bad("unknown version")
	}
	version := b[0]
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return bad("transactional id")
	}
	r.TransactionalID = string(b[k : k+int(n)])
	b = b[k+int(n):]
	pid, k := binary.Varint(b)
	if k <= 0 {
		return bad("producer id")
	}
	b = b[k:]
	ep, k := binary.Varint(b)
	if k <= 0 || ep < -1<<15 || ep >= 1<<15 {
		return bad("producer epoch")
	}
	b = b[k:]
	e, k := binary.Uvarint(b)
	if k <= 0 {
		return bad("epoch")
	}
	b = b[k:]
	if len(b) < 1 || (version == 1 && len(b) != 1) {
		return bad("flags")
	}
	r.ProducerID, r.ProducerEpoch, r.Epoch, r.Empty = pid, int16(ep), e, b[0]&1 != 0
	b = b[1:]
	if version == 1 {
		return r, nil
	}
	n, k = binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return bad("first offsets")
	}
	b = b[k:]
	for range n {
		p, k := binary.Varint(b)
		if k <= 0 || p < -1<<31 || p >= 1<<31 {
			return bad("first offset partition")
		}
		b = b[k:]
		o, k := binary.Varint(b)
		if k <= 0 {
			return bad("first offset")
		}
		b = b[k:]
		if r.FirstOffsets == nil {
			r.FirstOffsets = map[int32]int64{}
		}
		r.FirstOffsets[int32(p)] = o
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	return r, nil
}

// slotState is where a transactional id of the pool is in the two-phase
// commit. An id is reused only from slotFree, i.e. once its last
// transaction is committed in Kafka and that fact is itself in a committed
// checkpoint; otherwise recovery could send EndTxn with a stale epoch to an
// id that carries a newer transaction.
type slotState uint8

const (
	slotFree         slotState = iota
	slotWriting                // a transaction of the current epoch is open
	slotPreCommitted           // flushed; its TxnRecord is in a checkpoint not yet committed
	slotCommitted              // committed in Kafka; the done mark is not yet in a checkpoint
	slotDoneMarked             // the done mark is in checkpoint doneEpoch, not yet committed
)

type slot struct {
	id        string
	cl        *kgo.Client
	state     slotState
	rec       TxnRecord
	doneEpoch uint64
}

// SinkWriter is one sink actor's Kafka writer. With ExactlyOnce it runs one
// transaction per checkpoint epoch over a pool of transactional ids:
//
//	BeginEpoch(e) → Write... → barrier: PreCommit + TakeDone → checkpoint e
//	commits → Commit(rec_e)
//
// A SinkWriter is used by one goroutine (its actor); only Write's delivery
// callbacks run elsewhere.
type SinkWriter struct {
	cfg   SinkConfig
	log   *slog.Logger
	slots []*slot
	next  int   // where the search for a free slot starts: ids rotate
	cur   *slot // slot of the open epoch (ExactlyOnce)
	plain *kgo.Client
	epoch uint64
	open  bool
	wrote bool

	mu         sync.Mutex
	produceErr error
	// first is the open epoch's first offset per partition, as the
	// delivery callbacks learn them.
	first map[int32]int64
}

func (cfg *SinkConfig) withDefaults() {
	if cfg.TxnIDPrefix == "" {
		cfg.TxnIDPrefix = DefaultTxnIDPrefix
	}
	if cfg.PoolSize <= 0 {
		cfg.PoolSize = DefaultTxnPoolSize
	}
	if cfg.PoolSize < 3 {
		cfg.PoolSize = 3
	}
	if cfg.TransactionTimeout <= 0 {
		cfg.TransactionTimeout = DefaultTransactionTimeout
	}
	if cfg.DeliveryTimeout <= 0 {
		cfg.DeliveryTimeout = DefaultDeliveryTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
}

// TransactionalIDs returns the pool of transactional ids cfg names, in
// rotation order.
func (cfg SinkConfig) TransactionalIDs() []string {
	cfg.withDefaults()
	ids := make([]string, cfg.PoolSize)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%s-%d-%d", cfg.TxnIDPrefix, cfg.SinkID, cfg.Actor, i)
	}
	return ids
}

// NewSinkWriter connects the writer. With ExactlyOnce it initialises a
// producer on every transactional id of the pool, which fences older
// producers and aborts whatever transaction they left open: call
// RecoverPending first for the transactions a committed checkpoint
// recorded, or they are lost. Errors: bad configuration, or the broker
// refusing InitProducerID (for example a TransactionTimeout above the
// broker's transaction.max.timeout.ms).
func NewSinkWriter(ctx context.Context, cfg SinkConfig) (*SinkWriter, error) {
	cfg.withDefaults()
	if len(cfg.Brokers) == 0 || cfg.Topic == "" {
		return nil, errors.New("kafka sink: brokers and topic are required")
	}
	w := &SinkWriter{cfg: cfg, log: cfg.Logger.With("topic", cfg.Topic, "sink", cfg.SinkID, "actor", cfg.Actor)}
	base := append([]kgo.Opt{
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.DefaultProduceTopic(cfg.Topic),
		kgo.AllowAutoTopicCreation(),
	}, cfg.ClientOpts...)
	if cfg.Guarantee == AtLeastOnce {
		cl, err := kgo.NewClient(base...)
		if err != nil {
			return nil, fmt.Errorf("kafka sink: %w", err)
		}
		w.plain = cl
		return w, nil
	}
	for _, id := range cfg.TransactionalIDs() {
		s := &slot{id: id}
		w.slots = append(w.slots, s)
		if err := w.connect(ctx, s, base); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// connect creates s's transactional client and initialises its producer
// id, aborting any transaction left open on s.id.
func (w *SinkWriter) connect(ctx context.Context, s *slot, base []kgo.Opt) error {
	opts := append(base[:len(base):len(base)],
		kgo.TransactionalID(s.id), kgo.TransactionTimeout(w.cfg.TransactionTimeout))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("kafka sink: %w", err)
	}
	ictx, cancel := context.WithTimeout(ctx, w.cfg.DeliveryTimeout)
	pid, ep, err := cl.ProducerID(ictx)
	cancel()
	if err != nil {
		cl.Close()
		return fmt.Errorf("kafka sink: init producer for transactional id %s: %w", s.id, err)
	}
	w.log.Debug("kafka sink producer initialised", "transactional_id", s.id, "producer_id", pid, "producer_epoch", ep)
	s.cl = cl
	return nil
}

// BeginEpoch starts writing checkpoint epoch e. With ExactlyOnce it opens a
// transaction on the next free transactional id. Errors: an epoch is
// already open, or every id of the pool holds a transaction that is not yet
// resolved (more checkpoints in flight than the pool allows).
func (w *SinkWriter) BeginEpoch(e uint64) error {
	if w.open {
		return fmt.Errorf("kafka sink: epoch %d is still open", w.epoch)
	}
	w.epoch, w.wrote = e, false
	w.mu.Lock()
	w.first = nil
	w.mu.Unlock()
	if w.plain != nil {
		w.open = true
		return nil
	}
	for i := range w.slots {
		s := w.slots[(w.next+i)%len(w.slots)]
		if s.state != slotFree {
			continue
		}
		if err := s.cl.BeginTransaction(); err != nil {
			return fmt.Errorf("kafka sink: begin transaction on %s: %w", s.id, err)
		}
		w.next = (w.next + i + 1) % len(w.slots)
		s.state, s.rec = slotWriting, TxnRecord{TransactionalID: s.id, Epoch: e}
		w.cur, w.open = s, true
		return nil
	}
	return fmt.Errorf("kafka sink: all %d transactional ids hold unresolved transactions", len(w.slots))
}

// Write hands records to the producer; they are sent in the background and
// delivery errors surface at PreCommit. Write blocks only when the
// producer's buffer is full (until ctx ends). Errors: no open epoch, ctx
// done.
func (w *SinkWriter) Write(ctx context.Context, recs ...Record) error {
	if !w.open {
		return errors.New("kafka sink: Write outside an epoch")
	}
	cl := w.plain
	if cl == nil {
		cl = w.cur.cl
	}
	for _, r := range recs {
		kr := &kgo.Record{Key: r.Key, Value: r.Value}
		cl.Produce(ctx, kr, w.promise)
	}
	if len(recs) > 0 {
		w.wrote = true
	}
	return ctx.Err()
}

func (w *SinkWriter) promise(r *kgo.Record, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.produceErr == nil {
			w.produceErr = err
		}
		return
	}
	if w.first == nil {
		w.first = map[int32]int64{}
	}
	if o, ok := w.first[r.Partition]; !ok || r.Offset < o {
		w.first[r.Partition] = r.Offset
	}
}

func (w *SinkWriter) takeProduceErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.produceErr
	w.produceErr = nil
	return err
}

// PreCommit is phase one, at the barrier of the open epoch: it flushes the
// producer so that every record is on the broker (inside the open
// transaction, invisible to read_committed readers) and returns the record
// to put into the checkpoint's batch. The epoch is closed; the next
// BeginEpoch may follow at once. Errors: a record failed to deliver or the
// flush did not finish before ctx ended; the checkpoint must then fail and
// the caller Abort.
func (w *SinkWriter) PreCommit(ctx context.Context) (TxnRecord, error) {
	if !w.open {
		return TxnRecord{}, errors.New("kafka sink: PreCommit outside an epoch")
	}
	cl := w.plain
	if cl == nil {
		cl = w.cur.cl
	}
	fctx, cancel := context.WithTimeout(ctx, w.cfg.DeliveryTimeout)
	defer cancel()
	if err := cl.Flush(fctx); err != nil {
		if ctx.Err() == nil && fctx.Err() != nil {
			return TxnRecord{}, fmt.Errorf("kafka sink: flush epoch %d: the broker did not take the records within %s", w.epoch, w.cfg.DeliveryTimeout)
		}
		return TxnRecord{}, fmt.Errorf("kafka sink: flush epoch %d: %w", w.epoch, err)
	}
	if err := w.takeProduceErr(); err != nil {
		return TxnRecord{}, fmt.Errorf("kafka sink: deliver epoch %d: %w", w.epoch, err)
	}
	if w.plain != nil {
		w.open = false
		return TxnRecord{Epoch: w.epoch, Empty: true}, nil
	}
	s := w.cur
	s.rec.Empty = !w.wrote
	if w.wrote {
		pid, ep, err := s.cl.ProducerID(fctx)
		if err != nil {
			return TxnRecord{}, fmt.Errorf("kafka sink: producer id of %s: %w", s.id, err)
		}
		s.rec.ProducerID, s.rec.ProducerEpoch = pid, ep
		w.mu.Lock()
		s.rec.FirstOffsets = maps.Clone(w.first)
		w.mu.Unlock()
	}
	s.state = slotPreCommitted
	w.cur, w.open = nil, false
	w.log.Debug("kafka sink pre-committed", "txn", s.rec.String())
	return s.rec, nil
}

// TakeDone returns the transactions committed in Kafka since the last call
// and hands their done marks to the checkpoint of the epoch just
// pre-committed: call it right after PreCommit and put the marks into the
// same batch. Recovery then knows not to commit them again, and their ids
// become reusable once that checkpoint commits.
func (w *SinkWriter) TakeDone() []TxnRecord {
	var done []TxnRecord
	for _, s := range w.slots {
		if s.state == slotCommitted {
			s.state, s.doneEpoch = slotDoneMarked, w.epoch
			done = append(done, s.rec)
		}
	}
	return done
}

// ErrCommitRefused is wrapped by Commit and RecoverPending when the
// broker refuses to commit a transaction because it no longer holds it
// open (INVALID_TXN_STATE). That is no proof of an abort: the broker may
// have aborted it (its timeout passed, it lost it in a crash) or
// committed it, the refusal answering a repeated EndTxn whose first
// attempt committed and whose memory a broker crash erased. SettleTxn
// reads which from the log.
var ErrCommitRefused = errors.New("the broker refused to commit the transaction, which it no longer holds open")

// Commit is phase two: called once the checkpoint holding rec is committed,
// it commits rec's Kafka transaction, making its records visible to
// read_committed readers. It also frees the ids whose done marks rode in
// that checkpoint or an earlier one. Commit is idempotent: committing an
// already committed record returns nil. Errors: ErrCommitRefused
// (wrapped) when the broker no longer holds the transaction open (settle
// it with SettleTxn); any other error leaves the outcome unknown.
func (w *SinkWriter) Commit(ctx context.Context, rec TxnRecord) error {
	if w.plain != nil {
		return nil
	}
	for _, s := range w.slots {
		if s.state == slotDoneMarked && s.doneEpoch <= rec.Epoch {
			s.state = slotFree
		}
	}
	var s *slot
	for _, c := range w.slots {
		if c.id == rec.TransactionalID {
			s = c
		}
	}
	if s == nil {
		return fmt.Errorf("kafka sink: %s is not in this writer's pool", rec.TransactionalID)
	}
	if s.state != slotPreCommitted || s.rec.Epoch != rec.Epoch {
		// Already committed (a retry), or a transaction of an older
		// writer: commit it the way recovery does, which is idempotent.
		if rec.Empty || (s.rec.Epoch == rec.Epoch && s.state != slotWriting) {
			return nil
		}
		return endTxnCommit(ctx, s.cl, rec)
	}
	err := s.cl.EndTransaction(ctx, kgo.TryCommit)
	if err != nil && !rec.Empty {
		// The outcome is unknown to the client. A raw EndTxn with the
		// stored producer id and epoch either commits or confirms the
		// earlier commit; the client is then replaced, since its own view
		// of the transaction is stale.
		w.log.Warn("kafka sink commit failed, retrying with EndTxn", "txn", rec.String(), "err", err)
		if rerr := endTxnCommit(ctx, s.cl, rec); rerr != nil {
			if errors.Is(rerr, ErrCommitRefused) {
				// The broker no longer holds the transaction open: it
				// ended it, one way or the other (SettleTxn tells).
				s.state = slotFree
				return rerr
			}
			return fmt.Errorf("kafka sink: commit %s: %w (retry: %v)", rec, err, rerr)
		}
		s.cl.Close()
		base := append([]kgo.Opt{kgo.SeedBrokers(w.cfg.Brokers...), kgo.DefaultProduceTopic(w.cfg.Topic),
			kgo.AllowAutoTopicCreation()}, w.cfg.ClientOpts...)
		if cerr := w.connect(ctx, s, base); cerr != nil {
			return cerr
		}
	} else if err != nil {
		return fmt.Errorf("kafka sink: commit %s: %w", rec, err)
	}
	if rec.Empty {
		// Nothing reached Kafka, so there is nothing for recovery to redo.
		s.state = slotFree
	} else {
		s.state = slotCommitted
	}
	w.log.Debug("kafka sink committed", "txn", rec.String())
	return nil
}

// Abort gives up the open epoch and every pre-committed transaction whose
// checkpoint will not commit (the checkpoint failed): their records are
// discarded and will be replayed from the sources. Done marks handed to
// the failed checkpoint are handed out again by the next TakeDone.
// At-least-once writers have nothing to abort. Errors: the broker refused
// an abort; recovery (a new writer) aborts the transaction anyway.
func (w *SinkWriter) Abort(ctx context.Context) error {
	w.open, w.cur = false, nil
	w.takeProduceErr()
	if w.plain != nil {
		return nil
	}
	var errs []error
	for _, s := range w.slots {
		switch s.state {
		case slotWriting, slotPreCommitted:
			if err := s.cl.AbortBufferedRecords(ctx); err != nil {
				errs = append(errs, err)
			}
			if err := s.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
				errs = append(errs, fmt.Errorf("abort %s: %w", s.id, err))
			}
			s.state = slotFree
		case slotDoneMarked:
			s.state = slotCommitted
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kafka sink: %w", err)
	}
	return nil
}

// Close closes the producers without ending any transaction: a
// pre-committed transaction stays open on the broker for recovery to
// commit, as after a crash.
func (w *SinkWriter) Close() {
	if w.plain != nil {
		w.plain.Close()
	}
	for _, s := range w.slots {
		if s.cl != nil {
			s.cl.Close()
		}
	}
}

// RecoverPending commits, before any producer of the sink starts, every
// transaction that a committed checkpoint recorded and did not mark done.
// It sends EndTxn(commit) with each record's producer id and epoch from a
// plain client (franz-go routes EndTxn to the transaction coordinator). A
// transaction that is already committed commits again successfully (KIP-890
// retry detection in EndTxn v5, and the same in v4), so this is safe to
// repeat. Only afterwards may NewSinkWriter initialise the producers,
// which aborts everything else left open. Errors: a transaction could not
// be committed, ErrCommitRefused (wrapped) when the broker no longer holds
// it open (SettleTxn tells whether it committed or aborted it); every
// record is still tried. A record whose producer epoch is fenced counts as
// committed: nothing but a recovery that committed it starts a producer
// on the id (NewSinkWriter comes after RecoverPending), so a recovery
// repeated after producers started finds the epoch bumped.
func RecoverPending(ctx context.Context, brokers []string, recs []TxnRecord, opts ...kgo.Opt) error {
	var todo []TxnRecord
	for _, r := range recs {
		if !r.Empty {
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, opts...)...)
	if err != nil {
		return fmt.Errorf("kafka sink recovery: %w", err)
	}
	defer cl.Close()
	var errs []error
	for _, r := range todo {
		err := endTxnCommit(ctx, cl, r)
		if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
			// A newer producer epoch exists on the id. The sink's ids are
			// its own, and its producers start (bumping the epoch) only
			// after every recorded transaction was committed here: this
			// one was committed by an earlier recovery that stopped
			// before a checkpoint dropped the record.
			continue
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// endTxnCommit sends EndTxn(commit) for r, retrying retriable errors
// (coordinator moving or loading, concurrent transactions) until ctx ends.
func endTxnCommit(ctx context.Context, cl *kgo.Client, r TxnRecord) error {
	backoff := 50 * time.Millisecond
	for {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = r.TransactionalID, r.ProducerID, r.ProducerEpoch, true
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err == nil {
			return nil
		}
		if errors.Is(err, kerr.InvalidTxnState) {
			return fmt.Errorf("kafka sink: commit %s: %w: %w", r, ErrCommitRefused, err)
		}
		if !kerr.IsRetriable(err) && !errors.Is(err, kerr.ConcurrentTransactions) {
			return fmt.Errorf("kafka sink: commit %s: %w", r, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafka sink: commit %s: %w (last error: %v)", r, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Ping reports whether one of brokers answers a Kafka request (a
// Metadata request, kgo's Client.Ping) before ctx ends. A sink checks it
// at creation: a broker that does not answer would fail the sink's
// actors as they start. Errors: no broker answered, or ctx ended.
func Ping(ctx context.Context, brokers []string, opts ...kgo.Opt) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.Ping(ctx)
}
