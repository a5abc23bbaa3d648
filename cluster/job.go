package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirdb/weir/connector/kafka"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/types"
)

// job runs one view on this node: it is a member of the view's consumer
// group, keys the source partitions it is assigned into the repartition
// topic, aggregates the repartition partitions (key groups) it is
// assigned, and writes each epoch's repartition, changelog and sink
// records with the consumed offsets in one Kafka transaction.
//
// One goroutine (run) does all of it; the group's callbacks only queue
// assignment events for it, and queries read committed state under mu.
type job struct {
	n      *Node
	view   *View
	src    *Source
	topics viewTopics
	log    *slog.Logger

	sess  *kgo.GroupTransactSession
	plain *kgo.Client // fences (non-transactional)
	dec   *kafka.JSONDecoder

	evMu   sync.Mutex
	events []groupEvent

	// mu guards kg for readers (queries); only run writes it.
	mu    sync.RWMutex
	kg    *keyGroups
	epoch uint64

	sinkMu sync.Mutex
	sinks  []*Sink

	encoders  map[string]*kafka.Encoder
	sinkParts map[string]int32

	produceErr atomic.Pointer[error]
	cancel     context.CancelFunc
	done       chan struct{}

	// Stats, for logs and tests.
	processed atomic.Int64
	malformed atomic.Int64
}

type groupEvent struct {
	assign bool
	part   int32
}

// viewTopics names a view's internal topics and group.
type viewTopics struct {
	group, repartition, changelog, txnID string
}

func (n *Node) topicsOf(v *View) viewTopics {
	base := fmt.Sprintf("%s.%s-%s", n.prefix, v.Name, v.Ident)
	return viewTopics{
		group:       base,
		repartition: base + ".repartition",
		changelog:   base + ".changelog",
		txnID:       fmt.Sprintf("%s.node-%d", base, n.cfg.NodeID),
	}
}

func (n *Node) startJob(v *View, src *Source, sinks []*Sink) (*job, error) {
	j := &job{
		n: n, view: v, src: src, topics: n.topicsOf(v),
		log:      n.log.With("view", v.Name),
		dec:      kafka.NewJSONDecoder(src.Schema, nil),
		kg:       newKeyGroups(v),
		sinks:    sinks,
		encoders: map[string]*kafka.Encoder{}, sinkParts: map[string]int32{},
		done: make(chan struct{}),
	}
	var err error
	j.sess, err = j.newSession()
	if err != nil {
		return nil, err
	}
	j.plain, err = kgo.NewClient(kgo.SeedBrokers(n.cfg.Bootstrap), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		j.sess.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	go j.run(ctx)
	return j, nil
}

// newSession makes the job's member of the view's group, with its
// transactional producer.
func (j *job) newSession() (*kgo.GroupTransactSession, error) {
	n := j.n
	return kgo.NewGroupTransactSession(
		kgo.SeedBrokers(n.cfg.Bootstrap),
		kgo.ClientID(fmt.Sprintf("weir-node-%d@%s", n.cfg.NodeID, n.cfg.Addr)),
		kgo.ConsumerGroup(j.topics.group),
		kgo.ConsumeTopics(j.src.Topic, j.topics.repartition),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.TransactionalID(j.topics.txnID),
		kgo.TransactionTimeout(n.cfg.TxnTimeout),
		kgo.SessionTimeout(n.cfg.SessionTimeout),
		kgo.HeartbeatInterval(n.cfg.SessionTimeout/4),
		kgo.RebalanceTimeout(n.cfg.TxnTimeout+n.cfg.SessionTimeout),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { j.queue(true, m) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { j.queue(false, m) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { j.queue(false, m) }),
	)
}

// resetSession replaces a session whose producer failed for good (kgo's
// End errors are not retryable): the job leaves the group, forgets its key
// groups and joins again, restoring whatever it is assigned.
func (j *job) resetSession() error {
	j.sess.Close()
	j.evMu.Lock()
	j.events = nil
	j.evMu.Unlock()
	j.mu.Lock()
	j.kg = newKeyGroups(j.view)
	j.mu.Unlock()
	sess, err := j.newSession()
	if err != nil {
		return err
	}
	j.sess = sess
	return nil
}

// stop leaves the group and waits for the loop to end.
func (j *job) stop() {
	j.cancel()
	<-j.done
}

func (j *job) queue(assign bool, m map[string][]int32) {
	j.evMu.Lock()
	defer j.evMu.Unlock()
	for _, p := range m[j.topics.repartition] {
		j.events = append(j.events, groupEvent{assign: assign, part: p})
	}
}

func (j *job) setSinks(sinks []*Sink) {
	j.sinkMu.Lock()
	j.sinks = sinks
	j.sinkMu.Unlock()
}

func (j *job) run(ctx context.Context) {
	defer close(j.done)
	defer j.plain.Close()
	defer func() { j.sess.Close() }()
	failures := 0
	for ctx.Err() == nil {
		if err := j.epochOnce(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			delay := time.Duration(min(failures, 20)) * 100 * time.Millisecond
			j.log.Warn("cluster epoch failed; retrying", "err", err, "delay", delay)
			if failures%3 == 0 {
				j.log.Warn("recreating the group session after repeated failures")
				if err := j.resetSession(); err != nil {
					j.log.Error("recreating the group session", "err", err)
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
			continue
		}
		failures = 0
	}
}

// epochOnce polls once and, when there is work, runs one epoch as one
// transaction.
func (j *job) epochOnce(ctx context.Context) error {
	revoked, err := j.handleEvents(ctx)
	if err != nil {
		return err
	}
	if revoked {
		// kgo marks the session failed at a revocation until the next
		// End; ending now (nothing is polled or open) keeps the next
		// epoch from aborting for a revocation that preceded it.
		if err := j.rewind(ctx, nil); err != nil {
			return err
		}
	}
	pctx, cancel := context.WithTimeout(ctx, j.n.cfg.PollWait)
	fs := j.sess.PollRecords(pctx, j.n.cfg.EpochRecords)
	cancel()
	if fs.IsClientClosed() {
		return ctx.Err()
	}
	var fetchErr error
	fs.EachError(func(t string, p int32, err error) {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			fetchErr = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
		}
	})
	if fetchErr != nil {
		j.log.Warn("fetch error", "err", fetchErr)
	}
	// Assignments that arrived during the poll come before the records
	// of their partitions: kgo runs the callback before it fetches them.
	revoked, err = j.handleEvents(ctx)
	if err != nil {
		return j.rewind(ctx, err)
	}
	if revoked {
		// The epoch would abort: rewind and poll again instead.
		return j.rewind(ctx, nil)
	}
	recs := fs.Records()
	j.sinkMu.Lock()
	sinks := j.sinks
	j.sinkMu.Unlock()
	var sinkNames []string
	for _, s := range sinks {
		sinkNames = append(sinkNames, s.Name)
	}
	if len(recs) == 0 && !j.snapshotDue(sinkNames) {
		return nil
	}
	for _, s := range sinks {
		if err := j.prepareSink(ctx, s); err != nil {
			return j.rewind(ctx, err)
		}
	}

	if err := j.sess.Begin(); err != nil {
		return j.rewind(ctx, fmt.Errorf("begin transaction: %w", err))
	}
	j.produceErr.Store(nil)
	j.kg.begin()
	perr := j.process(ctx, recs, sinks)
	if perr != nil {
		j.log.Warn("epoch aborted", "err", perr)
	}
	if perr == nil {
		// End flushes too; flushing first puts the epoch's records on
		// the broker before the crash point, as an open transaction.
		if err := j.sess.Client().Flush(ctx); err != nil {
			perr = err
		}
		fault.Hit(fault.ClusterBeforeCommit)
	}
	try := kgo.TryCommit
	if perr != nil || j.produceErr.Load() != nil {
		try = kgo.TryAbort
	}
	committed, endErr := j.sess.End(ctx, try)
	j.drainRevocations()
	j.mu.Lock()
	if committed {
		j.epoch++
	}
	acts := j.kg.end(committed, j.epoch)
	j.mu.Unlock()
	for _, a := range acts {
		j.log.Info("key group dropped", "part", a.part)
	}
	if committed {
		j.processed.Add(int64(len(recs)))
	}
	if endErr != nil {
		return fmt.Errorf("end transaction: %w", endErr)
	}
	return nil
}

// rewind puts the consumer back at the committed offsets after records
// were polled but no epoch ran over them: without it the next epoch would
// commit offsets past records nobody processed. An abort-End outside a
// transaction does exactly that (kgo resets to the committed offsets).
func (j *job) rewind(ctx context.Context, cause error) error {
	if _, err := j.sess.End(ctx, kgo.TryAbort); err != nil {
		if cause == nil {
			return fmt.Errorf("rewinding: %w", err)
		}
		return fmt.Errorf("%v; rewinding: %w", cause, err)
	}
	return cause
}

func (j *job) snapshotDue(sinks []string) bool {
	if len(sinks) == 0 {
		return false
	}
	for _, kg := range j.kg.parts {
		if kg.phase != phaseActive {
			continue
		}
		for _, s := range sinks {
			if !kg.sinks[s] {
				return true
			}
		}
	}
	return false
}

// drainRevocations applies queued revocations inside the epoch (they wait
// for its end) and keeps assignments queued for handleEvents.
func (j *job) drainRevocations() {
	j.evMu.Lock()
	evs := j.events
	j.events = nil
	j.evMu.Unlock()
	var keep []groupEvent
	for i, ev := range evs {
		if ev.assign {
			keep = evs[i:]
			break
		}
		j.mu.Lock()
		j.kg.revoke(ev.part)
		j.mu.Unlock()
	}
	if len(keep) > 0 {
		j.evMu.Lock()
		j.events = append(keep, j.events...)
		j.evMu.Unlock()
	}
}

// handleEvents applies queued assignments and revocations in order, and
// fences and restores the key groups assigned; it reports whether any
// key group was revoked.
func (j *job) handleEvents(ctx context.Context) (revoked bool, err error) {
	j.evMu.Lock()
	evs := j.events
	j.events = nil
	j.evMu.Unlock()
	if len(evs) == 0 {
		return false, nil
	}
	var fence []action
	j.mu.Lock()
	for _, ev := range evs {
		if ev.assign {
			fence = append(fence, j.kg.assign(ev.part, newNonce())...)
		} else {
			revoked = true
			for _, a := range j.kg.revoke(ev.part) {
				j.log.Info("key group revoked", "part", a.part)
			}
			fence = dropAction(fence, ev.part)
		}
	}
	j.mu.Unlock()
	if len(fence) == 0 {
		return revoked, nil
	}
	return revoked, j.restore(ctx, fence)
}

func dropAction(as []action, p int32) []action {
	out := as[:0]
	for _, a := range as {
		if a.part != p {
			out = append(out, a)
		}
	}
	return out
}

// restore fences the assigned key groups' changelog partitions and reads
// each up to its fence.
func (j *job) restore(ctx context.Context, fences []action) error {
	start := time.Now()
	offsets := map[int32]kgo.Offset{}
	for _, a := range fences {
		rec := &kgo.Record{Topic: j.topics.changelog, Partition: a.part, Key: []byte("\x00fence"), Value: []byte(a.nonce)}
		if err := j.plain.ProduceSync(ctx, rec).FirstErr(); err != nil {
			return fmt.Errorf("fence key group %d: %w", a.part, err)
		}
		j.mu.Lock()
		j.kg.fenced(a.part)
		j.mu.Unlock()
		offsets[a.part] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(j.n.cfg.Bootstrap),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{j.topics.changelog: offsets}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return err
	}
	defer cl.Close()
	remaining := len(offsets)
	var bytes int64
	for remaining > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("restore %s[%d]: %w", t, p, err) })
		if ferr != nil {
			return ferr
		}
		var rerr error
		j.mu.Lock()
		fs.EachRecord(func(r *kgo.Record) {
			if rerr != nil {
				return
			}
			if kg := j.kg.parts[r.Partition]; kg == nil || kg.phase != phaseRestoring {
				return // revoked meanwhile, or already done
			}
			bytes += int64(len(r.Key) + len(r.Value))
			done, err := j.kg.restoreRecord(r.Partition, r.Key, r.Value)
			if err != nil {
				rerr = err
			}
			if done {
				remaining--
				j.log.Info("key group restored", "part", r.Partition, "records", j.kg.parts[r.Partition].restored,
					"groups", len(j.kg.parts[r.Partition].groups), "elapsed", time.Since(start).Round(time.Millisecond))
			}
		})
		j.mu.Unlock()
		if rerr != nil {
			return rerr
		}
	}
	j.log.Info("restore done", "key_groups", len(offsets), "bytes", bytes, "elapsed_ms", time.Since(start).Milliseconds())
	return nil
}

// prepareSink makes the encoder of a sink and learns its topic's
// partition count.
func (j *job) prepareSink(ctx context.Context, s *Sink) error {
	if _, ok := j.encoders[s.Name]; ok {
		return nil
	}
	var key []int
	for i, oc := range j.view.Out {
		if oc.Key >= 0 {
			key = append(key, i)
		}
	}
	format := kafka.FormatDebezium
	if s.Format == "upsert" {
		format = kafka.FormatUpsert
	}
	enc, err := kafka.NewEncoder(format, j.view.Schema, key, nil, nil)
	if err != nil {
		return err
	}
	parts, err := j.n.partitionCount(ctx, s.Topic)
	if err != nil {
		return err
	}
	j.encoders[s.Name], j.sinkParts[s.Name] = enc, parts
	return nil
}

// process runs one epoch's records: source records are keyed into the
// repartition topic, repartition records update their key group; then the
// epoch's changes go to the changelog and the sinks.
func (j *job) process(ctx context.Context, recs []*kgo.Record, sinks []*Sink) error {
	ts := j.src.Schema.Types()
	var buf []byte
	for _, r := range recs {
		switch r.Topic {
		case j.src.Topic:
			row, err := j.dec.Decode(r.Value)
			if err != nil {
				if j.malformed.Add(1) <= 10 {
					j.log.Warn("malformed source record skipped", "partition", r.Partition, "offset", r.Offset, "err", err)
				}
				continue
			}
			gk := j.view.groupKey(row)
			buf = types.AppendRow(buf[:0], row, ts)
			j.produce(ctx, &kgo.Record{Topic: j.topics.repartition, Partition: partitionOf(gk, j.view.Partitions),
				Key: gk, Value: append([]byte(nil), buf...)})
		case j.topics.repartition:
			row, err := types.DecodeRow(r.Value, ts)
			if err != nil {
				return fmt.Errorf("repartition record %d/%d: %w", r.Partition, r.Offset, err)
			}
			if err := j.kg.update(r.Partition, r.Key, row); err != nil {
				return err
			}
		}
	}
	var names []string
	for _, s := range sinks {
		names = append(names, s.Name)
	}
	byName := map[string]*Sink{}
	for _, s := range sinks {
		byName[s.Name] = s
	}
	snaps := j.kg.needSnapshot(names)
	var out []kafka.Record
	for p, ss := range snaps {
		rows := j.kg.committedRows(p)
		for _, sn := range ss {
			out = out[:0]
			for _, row := range rows {
				out = j.encoders[sn].Append(out, types.OpInsert, row)
			}
			j.produceSink(ctx, byName[sn], out)
			j.produce(ctx, &kgo.Record{Topic: j.topics.changelog, Partition: p, Key: []byte("\x00sink:" + sn), Value: []byte("1")})
		}
	}
	for _, ch := range j.kg.changes() {
		j.produce(ctx, &kgo.Record{Topic: j.topics.changelog, Partition: ch.part,
			Key: append([]byte{changelogGroup}, ch.key...), Value: encodeAccs(ch.accs)})
		for _, s := range sinks {
			enc := j.encoders[s.Name]
			out = out[:0]
			if ch.old != nil {
				out = enc.Append(out, types.OpUpdateDelete, ch.old)
				out = enc.Append(out, types.OpUpdateInsert, ch.new)
			} else {
				out = enc.Append(out, types.OpInsert, ch.new)
			}
			j.produceSink(ctx, s, out)
		}
	}
	return nil
}

func (j *job) produceSink(ctx context.Context, s *Sink, recs []kafka.Record) {
	for _, r := range recs {
		j.produce(ctx, &kgo.Record{Topic: s.Topic, Partition: partitionOf(r.Key, j.sinkParts[s.Name]), Key: r.Key, Value: r.Value})
	}
}

func (j *job) produce(ctx context.Context, r *kgo.Record) {
	j.sess.Produce(ctx, r, func(_ *kgo.Record, err error) {
		if err != nil {
			j.produceErr.CompareAndSwap(nil, &err)
		}
	})
}

// partRead is one key group's committed rows as read by a query.
type partRead struct {
	part  int32
	epoch uint64
	rows  []types.Row
}

// read returns the committed rows of the given key groups; each must be
// active on this node.
func (j *job) read(parts []int32) ([]partRead, error) {
	j.mu.RLock()
	defer j.mu.RUnlock()
	out := make([]partRead, 0, len(parts))
	for _, p := range parts {
		kg := j.kg.parts[p]
		if kg == nil || kg.revoked {
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "key group %d of %q is not owned by node %d", p, j.view.Name, j.n.cfg.NodeID)
		}
		if kg.phase != phaseActive {
			return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "key group %d of %q is %s on node %d", p, j.view.Name, kg.phase, j.n.cfg.NodeID)
		}
		out = append(out, partRead{part: p, epoch: kg.epoch, rows: j.kg.committedRows(p)})
	}
	return out, nil
}
