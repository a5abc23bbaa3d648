package stream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weirdb/weir/executor/sinktxn"
	"github.com/weirdb/weir/internal/fault"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// This file is the decoupled sink (DESIGN.md §5a): the log store the Sink
// operator appends each epoch's rows to, and the driver that runs the
// delivery state machine of package sinktxn over it.
//
// The log store lives in the sink's state table beside the transaction
// records, in rows of the same layout (SinkStateTypes):
//
//	record:    (index, transactional id)        → (…, epoch, connector's record)
//	log entry: (-1-index, "<epoch %016x>/<seq %08x>") → (…, epoch, encoded rows)
//
// Negative actor columns keep the log entries out of every scan of
// records (which read index >= 0). A log entry's rows are encoded as a
// uvarint row count, then per row its op byte and its row value encoding
// (types.AppendRow) in the sink's column types. Log entries are written in
// the checkpoint's write set; records and truncations are written by the
// delivery loop directly, each in one fsynced batch, and only ever about
// epochs already committed.
//
// A change of parallelism (ALTER ... SET PARALLELISM, or a restore that
// sets another) moves nothing: what an index's actor left stays under
// that index. An index the new count still has is delivered on by its
// new actor; one it no longer has is delivered by an orphan deliverer on
// the actor (index modulo parallelism), under the old index, so with the
// old actor's transactional ids (whose producers it fences) and progress
// rows. Since a key may now belong to another actor, every actor holds
// back the epochs appended since its start until all the sink's
// deliverers have settled what the log store held then (sinkGate).

// OptSinkDecouple is the sink option that, set to 'false', keeps a sink
// coupled: its transactions are pre-committed on the checkpoint's path
// (DESIGN.md §5). Decoupled is the default.
const OptSinkDecouple = "sink.decouple"

// OptSinkLogMaxBytes is the sink option bounding its log store in bytes;
// when full, the sink's upstream sources pause.
const OptSinkLogMaxBytes = "sink.log_store.max_bytes"

// DefaultSinkLogMaxBytes is the log store bound when neither the sink
// nor the system sets one.
const DefaultSinkLogMaxBytes = 256 << 20

// sinkLogEntryBytes is the size at which a log entry is closed and the
// next one begun, so an epoch is read back in pieces.
const sinkLogEntryBytes = 256 << 10

// ErrSinkTxnAborted is wrapped by RecoverSinkTxnFunc and by a
// SinkWriter's Commit when the broker aborted the transaction on its
// own: it can never commit, and a decoupled sink delivers its epoch
// again.
var ErrSinkTxnAborted = errors.New("the broker aborted the transaction")

// RecoverSinkTxnFunc commits txn, a transaction recorded by sink node n
// of actor actx, without starting a producer (the record's producer id and
// epoch suffice); committing one already committed succeeds. Errors:
// ErrSinkTxnAborted (wrapped) when the broker aborted it; anything else
// means the outcome is unknown.
type RecoverSinkTxnFunc func(ctx context.Context, actx *ActorContext, n *planner.StreamSink, txn SinkTxn) error

// SinkObserver learns how decoupled sinks' deliveries go, for the log and
// the system views. Calls come from the delivery goroutines.
type SinkObserver interface {
	// SinkLag reports actor index's lag of sink rel after each step, and
	// whether the sink holds its upstream (full log store).
	SinkLag(rel uint32, index int, lag sinktxn.Lag, held bool)
	// SinkRetry reports that a delivery step failed and is retried after
	// delay: one call per retry.
	SinkRetry(job types.JobID, rel uint32, index int, r sinktxn.Retry)
	// SinkAborted reports that the broker aborted the transaction of
	// epoch on its own; the epoch is delivered again.
	SinkAborted(job types.JobID, rel uint32, index int, epoch uint64, err error)
	// SinkLost reports a recorded transaction the broker aborted whose
	// rows are no longer in the log store.
	SinkLost(job types.JobID, rel uint32, index int, l sinktxn.Lost)
}

// SinkDecoupling is what Build needs to make sinks decoupled; without
// Recover, every sink is coupled.
type SinkDecoupling struct {
	Recover RecoverSinkTxnFunc
	// Observer may be nil.
	Observer SinkObserver
	// MaxBytes is the default log store bound (DefaultSinkLogMaxBytes
	// when 0); a sink's OptSinkLogMaxBytes overrides it.
	MaxBytes int64
	// RetryInitial and RetryMax bound the delivery's backoff (sinktxn's
	// defaults when 0).
	RetryInitial, RetryMax time.Duration
}

// JobHold pauses a job's sources while any of its sinks holds it (a full
// log store): sources take no batch and go on forwarding barriers, so
// the job keeps checkpointing and nothing else waits. The zero value
// holds nothing; a nil *JobHold too.
type JobHold struct{ n atomic.Int32 }

// Held reports whether some sink holds the job.
func (h *JobHold) Held() bool { return h != nil && h.n.Load() > 0 }

// SinkDecoupled reports whether a sink's options leave it decoupled (a
// blackhole sink never is).
func SinkDecoupled(with map[string]string) bool {
	if strings.EqualFold(with["connector"], "blackhole") {
		// Nothing outside waits to be delivered to: a log store would
		// only hold rows to throw away.
		return false
	}
	switch strings.ToLower(strings.TrimSpace(with[OptSinkDecouple])) {
	case "false", "off", "0", "no":
		return false
	}
	return true
}

// sinkLog is the operator's side of a decoupled sink: the open epoch's
// encoded entries, and the delivery running beside the actor.
type sinkLog struct {
	ts    []types.T // the sink's column types
	index int
	// entries are the open epoch's encoded entries; rows counts them.
	entries [][]byte
	rows    int64
	buf     []byte // the entry being filled; nrows its row count
	nrows   int64
	row     []byte // scratch

	d *deliverer
}

// sinkLogEntryKey is the state table key of a log entry.
func sinkLogEntryKey(index int, epoch uint64, seq int) types.Row {
	return types.Row{types.DInt(int64(-1 - index)), types.DString(fmt.Sprintf("%016x/%08x", epoch, seq))}
}

func encodeStateKey(key types.Row) []byte {
	b := types.AppendKey(nil, key[0], SinkStateTypes[0], false)
	if len(key) > 1 {
		b = types.AppendKey(b, key[1], SinkStateTypes[1], false)
	}
	return b
}

// add encodes c's visible rows into the open epoch.
func (l *sinkLog) add(c *types.Chunk) {
	for i := 0; i < c.Len(); i++ {
		if !c.Visible(i) {
			continue
		}
		l.row = types.AppendRow(l.row[:0], c.Row(i), l.ts)
		l.buf = append(l.buf, byte(c.Op(i)))
		l.buf = binary.AppendUvarint(l.buf, uint64(len(l.row)))
		l.buf = append(l.buf, l.row...)
		l.nrows++
		if len(l.buf) >= sinkLogEntryBytes {
			l.closeEntry()
		}
	}
}

func (l *sinkLog) closeEntry() {
	if l.nrows == 0 {
		return
	}
	e := binary.AppendUvarint(make([]byte, 0, len(l.buf)+10), uint64(l.nrows))
	l.entries = append(l.entries, append(e, l.buf...))
	l.rows += l.nrows
	l.buf, l.nrows = l.buf[:0], 0
}

// appendEpoch writes the open epoch's entries into ws as epoch and tells
// the delivery; an epoch without rows writes nothing.
func (l *sinkLog) appendEpoch(ws *storage.Batch, stateID uint32, epoch uint64) error {
	l.closeEntry()
	if len(l.entries) == 0 {
		return nil
	}
	var bytes int64
	for seq, e := range l.entries {
		k := sinkLogEntryKey(l.index, epoch, seq)
		row := types.Row{k[0], k[1], types.DInt(int64(epoch)), types.DString(string(e))}
		if err := ws.Put(stateID, encodeStateKey(k), row, SinkStateTypes); err != nil {
			return err
		}
		bytes += int64(len(e))
	}
	fault.Hit(fault.SinkLogAppend)
	err := l.d.step(sinktxn.Appended{Entry: sinktxn.Entry{Epoch: epoch, Rows: l.rows, Bytes: bytes}})
	l.entries, l.rows = l.entries[:0], 0
	return err
}

// decodeSinkLogEntry decodes an entry's rows into a chunk of types ts.
func decodeSinkLogEntry(b []byte, ts []types.T) (*types.Chunk, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, pgerr.New(pgerr.DataCorrupted, "sink log store: bad entry header")
	}
	b = b[k:]
	c := types.NewChunk(ts, int(n))
	for range n {
		if len(b) == 0 {
			return nil, pgerr.New(pgerr.DataCorrupted, "sink log store: truncated entry")
		}
		op := types.Op(b[0])
		m, k := binary.Uvarint(b[1:])
		if k <= 0 || uint64(len(b)-1-k) < m {
			return nil, pgerr.New(pgerr.DataCorrupted, "sink log store: truncated row")
		}
		b = b[1+k:]
		r, err := types.DecodeRow(b[:m], ts)
		if err != nil {
			return nil, err
		}
		c.AppendRow(op, r)
		b = b[m:]
	}
	return c, nil
}

// entryRows returns the row count of an encoded entry.
func entryRows(b []byte) int64 {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return 0
	}
	return int64(n)
}

// deliverer runs one sink actor's sinktxn.Delivery: a goroutine carries
// out its IO actions against the SinkWriter and storage and steps their
// outcomes back in. The operator steps it too (appends, committed
// checkpoints), under mu.
//
// An actor's own deliverer works under the actor's index. An orphan
// deliverer works under the index of an actor that a larger parallelism
// had and this one has not (actx is then a copy of the actor's context
// with that index): it delivers what that actor left in the log store, as
// that actor would have (its transactional ids, its progress rows), and
// ends once it has settled it.
type deliverer struct {
	s    *Sink
	actx *ActorContext
	env  SinkDecoupling
	hold *JobHold
	// orphan: the deliverer ends once settled; it gets no appends.
	orphan bool
	// gate and start: see sinkGate. settled is set once the machine has
	// settled the epochs up to start and the gate was told.
	gate    *sinkGate
	start   uint64
	settled bool

	mu   sync.Mutex
	m    *sinktxn.Delivery
	held bool
	// gated: the gate is closed, and checkpoint commits wait in
	// heldCommitted instead of reaching the machine, so it delivers no
	// epoch after start.
	gated         bool
	heldCommitted uint64

	wake chan struct{}
	// w is the writer, opened by Connect; only the goroutine touches it.
	w SinkWriter

	cancel context.CancelFunc
	done   chan struct{}
}

// sinkGate keeps the actors of a decoupled sink from delivering the
// epochs appended since their start until every actor has settled what
// the log store held at start, under every index. Within one index the
// log store is delivered in epoch order; across a change of parallelism a
// key moves to another actor, whose new epochs must not reach the target
// before the key's older ones still pending under its old index. Without
// a rescale the gate costs a start the time to deliver the backlog.
type sinkGate struct {
	mu sync.Mutex
	// actors is how many actors have not yet joined; pending how many
	// joined deliverers have not yet settled.
	actors, pending int
	open            chan struct{}
}

func newSinkGate(actors int) *sinkGate {
	return &sinkGate{actors: max(actors, 1), open: make(chan struct{})}
}

// join registers an actor and its n deliverers.
func (g *sinkGate) join(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.actors--
	g.pending += n
	g.maybeOpenLocked()
}

// settle reports that one deliverer settled.
func (g *sinkGate) settle() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
	g.maybeOpenLocked()
}

func (g *sinkGate) maybeOpenLocked() {
	if g.actors <= 0 && g.pending <= 0 {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
	}
}

// sinkGates are a job's sink gates, by sink relation.
type sinkGates struct {
	mu sync.Mutex
	m  map[uint32]*sinkGate
}

// get returns the gate of sink rel, run by actors actors.
func (gs *sinkGates) get(rel uint32, actors int) *sinkGate {
	if gs == nil {
		return newSinkGate(1)
	}
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.m == nil {
		gs.m = map[uint32]*sinkGate{}
	}
	g := gs.m[rel]
	if g == nil {
		g = newSinkGate(actors)
		gs.m[rel] = g
	}
	return g
}

// startDelivery reads the actor's log store and records from the
// committed state and starts the delivery goroutine, and one orphan
// deliverer for each index at or above the parallelism that holds log
// entries or records and falls to this actor (index modulo parallelism).
// All of them deliver only what the log store held at start until the
// sink's gate opens.
func (s *Sink) startDelivery(ctx context.Context, committed uint64) error {
	env := *s.decouple
	cfg := sinktxn.Config{Committed: committed, MaxBytes: env.MaxBytes,
		RetryInitial: env.RetryInitial, RetryMax: env.RetryMax}
	if v := s.n.Rel.With[OptSinkLogMaxBytes]; v != "" {
		var n int64
		if _, err := fmt.Sscan(v, &n); err != nil || n <= 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for %s: \"%s\"", OptSinkLogMaxBytes, v)
		}
		cfg.MaxBytes = n
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultSinkLogMaxBytes
	}
	snap := s.actx.DB.NewSnapshot()
	defer snap.Close()
	idx, par := s.actx.Index, s.actx.Parallelism
	own, err := s.readDelivery(snap, cfg, idx)
	if err != nil {
		return err
	}
	var orphans []int
	if par > 0 {
		if orphans, err = s.orphanIndexes(snap, par); err != nil {
			return err
		}
	}
	gate := s.actx.sinkGates.get(s.n.Rel.ID, par)
	dctx := context.WithoutCancel(ctx)
	d := s.newDeliverer(s.actx, own, gate, committed, false)
	ds := []*deliverer{d}
	for _, i := range orphans {
		if i%par != idx {
			continue
		}
		ocfg, err := s.readDelivery(snap, cfg, i)
		if err != nil {
			return err
		}
		oactx := *s.actx
		oactx.Index = i
		ds = append(ds, s.newDeliverer(&oactx, ocfg, gate, committed, true))
	}
	gate.join(len(ds))
	s.log.d = d
	s.dlv.Store(d)
	s.orphans = ds[1:]
	for _, d := range ds {
		c, cancel := context.WithCancel(dctx)
		d.cancel = cancel
		go d.run(c)
	}
	return nil
}

func (s *Sink) newDeliverer(actx *ActorContext, cfg sinktxn.Config, gate *sinkGate, start uint64, orphan bool) *deliverer {
	d := &deliverer{s: s, actx: actx, env: *s.decouple, hold: s.actx.Hold, orphan: orphan,
		gate: gate, start: start, gated: true, heldCommitted: start,
		m: sinktxn.New(cfg), wake: make(chan struct{}, 1), done: make(chan struct{})}
	if orphan {
		// It appends nothing: what it holds only shrinks.
		d.hold = nil
	}
	return d
}

// readDelivery fills cfg with the records and the log store's epochs
// kept under actor index idx.
func (s *Sink) readDelivery(snap *storage.Snapshot, cfg sinktxn.Config, idx int) (sinktxn.Config, error) {
	key := func(i int) []byte { return encodeStateKey(types.Row{types.DInt(int64(i))}) }
	it := snap.ScanRange(s.n.State.ID, key(idx), key(idx+1), SinkStateTypes)
	for {
		r, err := it.Next()
		if err != nil {
			it.Close()
			return cfg, err
		}
		if r == nil {
			break
		}
		cfg.Recorded = append(cfg.Recorded, sinktxn.Txn{ID: r[1].S, Epoch: uint64(r[2].I), Data: []byte(r[3].S)})
	}
	it.Close()
	it = snap.ScanRange(s.n.State.ID, key(-1-idx), key(-idx), SinkStateTypes)
	defer it.Close()
	for {
		r, err := it.Next()
		if err != nil {
			return cfg, err
		}
		if r == nil {
			return cfg, nil
		}
		e := uint64(r[2].I)
		if n := len(cfg.Log); n == 0 || cfg.Log[n-1].Epoch != e {
			cfg.Log = append(cfg.Log, sinktxn.Entry{Epoch: e})
		}
		last := &cfg.Log[len(cfg.Log)-1]
		last.Rows += entryRows([]byte(r[3].S))
		last.Bytes += int64(len(r[3].S))
	}
}

// orphanIndexes returns the actor indexes at or above par that hold
// records or log entries, left by a larger parallelism, in order.
func (s *Sink) orphanIndexes(snap *storage.Snapshot, par int) ([]int, error) {
	key := func(i int) []byte { return encodeStateKey(types.Row{types.DInt(int64(i))}) }
	seen := map[int]bool{}
	scan := func(lo, hi []byte, index func(int64) int) error {
		it := snap.ScanRange(s.n.State.ID, lo, hi, SinkStateTypes)
		defer it.Close()
		for {
			r, err := it.Next()
			if err != nil || r == nil {
				return err
			}
			seen[index(r[0].I)] = true
		}
	}
	if err := scan(key(par), nil, func(i int64) int { return int(i) }); err != nil {
		return nil, err
	}
	if err := scan(nil, key(-par), func(i int64) int { return int(-1 - i) }); err != nil {
		return nil, err
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	slices.Sort(out)
	return out, nil
}

// step feeds the machine an event from the operator and wakes the loop.
func (d *deliverer) step(ev sinktxn.Event) error {
	d.mu.Lock()
	if c, ok := ev.(sinktxn.CheckpointCommitted); ok && d.gated {
		d.heldCommitted = max(d.heldCommitted, c.Epoch)
		d.mu.Unlock()
		return nil
	}
	err := d.m.Step(ev)
	d.updateHoldLocked()
	lag, held := d.m.Lag(), d.held
	d.mu.Unlock()
	// Reported here too, so that an epoch appended at a barrier shows in
	// the lag before its checkpoint commits.
	if obs := d.env.Observer; obs != nil {
		obs.SinkLag(d.s.n.Rel.ID, d.actx.Index, lag, held)
	}
	d.signal()
	return err
}

func (d *deliverer) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// updateHoldLocked holds or releases the job as the log store is full or
// not.
func (d *deliverer) updateHoldLocked() {
	full := d.m.Full()
	if full == d.held || d.hold == nil {
		return
	}
	d.held = full
	if full {
		d.hold.n.Add(1)
	} else {
		d.hold.n.Add(-1)
	}
}

// stop ends the loop, releases the hold and closes the writer (without
// ending its transactions: the next run resolves what is recorded and
// aborts the rest).
func (d *deliverer) stop() {
	d.cancel()
	<-d.done
	d.mu.Lock()
	if d.held && d.hold != nil {
		d.hold.n.Add(-1)
		d.held = false
	}
	d.mu.Unlock()
	if d.w != nil {
		d.w.Close()
		d.w = nil
	}
}

// run is the delivery goroutine.
func (d *deliverer) run(ctx context.Context) {
	defer close(d.done)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	gateOpen := d.gate.open
	for {
		if gateOpen != nil {
			select {
			case <-gateOpen:
				gateOpen = nil
				d.mu.Lock()
				d.gated = false
				d.m.Step(sinktxn.CheckpointCommitted{Epoch: d.heldCommitted})
				d.mu.Unlock()
			default:
			}
		}
		d.mu.Lock()
		d.m.Step(sinktxn.Tick{Now: time.Now()})
		acts := d.m.Ready()
		settled := !d.settled && d.m.Settled(d.start)
		d.settled = d.settled || settled
		deadline, waiting := d.m.NextDeadline()
		lag := d.m.Lag()
		d.updateHoldLocked()
		held := d.held
		d.mu.Unlock()
		if obs := d.env.Observer; obs != nil {
			obs.SinkLag(d.s.n.Rel.ID, d.actx.Index, lag, held)
		}
		var io sinktxn.Action
		for _, a := range acts {
			switch a := a.(type) {
			case sinktxn.Retry:
				if obs := d.env.Observer; obs != nil {
					obs.SinkRetry(d.actx.Job, d.s.n.Rel.ID, d.actx.Index, a)
				}
			case sinktxn.Lost:
				if obs := d.env.Observer; obs != nil {
					obs.SinkLost(d.actx.Job, d.s.n.Rel.ID, d.actx.Index, a)
				}
			default:
				io = a
			}
		}
		if settled && io == nil {
			d.gate.settle()
			if d.orphan {
				// What the old actor left is delivered and its
				// transactional ids fenced: nothing is left for it.
				if d.w != nil {
					d.w.Close()
					d.w = nil
				}
				return
			}
		}
		if io != nil {
			ev := d.do(ctx, io)
			if ctx.Err() != nil {
				return
			}
			if ab, ok := ev.(sinktxn.Aborted); ok && d.env.Observer != nil {
				d.env.Observer.SinkAborted(d.actx.Job, d.s.n.Rel.ID, d.actx.Index, ab.Epoch, ab.Err)
			}
			d.mu.Lock()
			d.m.Step(sinktxn.Tick{Now: time.Now()})
			err := d.m.Step(ev)
			d.mu.Unlock()
			if err != nil {
				// A bug in the driver: say so once and stop delivering;
				// the log store keeps the epochs for the next run.
				if obs := d.env.Observer; obs != nil {
					obs.SinkRetry(d.actx.Job, d.s.n.Rel.ID, d.actx.Index, sinktxn.Retry{Step: "protocol", Err: err})
				}
				return
			}
			continue
		}
		var tc <-chan time.Time
		if waiting {
			if timer == nil {
				timer = time.NewTimer(time.Until(deadline))
			} else {
				timer.Reset(time.Until(deadline))
			}
			tc = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-tc:
		case <-gateOpen:
		}
		if timer != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// do carries out one IO action and returns its outcome.
func (d *deliverer) do(ctx context.Context, a sinktxn.Action) sinktxn.Event {
	failed := func(err error) sinktxn.Event { return sinktxn.Failed{Err: err} }
	s := d.s
	switch a := a.(type) {
	case sinktxn.Connect:
		if d.w != nil {
			d.w.Close()
			d.w = nil
		}
		w, err := s.open(ctx, d.actx, s.n, nil)
		if err != nil {
			return failed(err)
		}
		d.w = w
		return sinktxn.Connected{}
	case sinktxn.Deliver:
		txn, ok, err := d.deliver(ctx, a.Epoch)
		if err != nil {
			return failed(err)
		}
		if !ok {
			return sinktxn.Flushed{Epoch: a.Epoch, Empty: true}
		}
		return sinktxn.Flushed{Epoch: a.Epoch, Txn: sinktxn.Txn{ID: txn.ID, Epoch: a.Epoch, Data: txn.Data}}
	case sinktxn.Record:
		b := d.actx.DB.NewWriteBatch()
		defer b.Close()
		for _, r := range a.Replaces {
			if r.ID != a.Txn.ID {
				if err := b.Delete(s.n.State.ID, encodeStateKey(d.stateKey(r.ID))); err != nil {
					return failed(err)
				}
			}
		}
		k := d.stateKey(a.Txn.ID)
		row := types.Row{k[0], k[1], types.DInt(int64(a.Txn.Epoch)), types.DString(string(a.Txn.Data))}
		if err := b.Put(s.n.State.ID, encodeStateKey(k), row, SinkStateTypes); err != nil {
			return failed(err)
		}
		if err := b.Commit(); err != nil {
			return failed(err)
		}
		fault.Hit(fault.SinkLogAfterRecord)
		return sinktxn.Recorded{Epoch: a.Txn.Epoch}
	case sinktxn.Commit:
		err := d.w.Commit(ctx, SinkTxn{ID: a.Txn.ID, Epoch: a.Txn.Epoch, Data: a.Txn.Data})
		return commitOutcome(a.Txn.Epoch, err)
	case sinktxn.Resolve:
		err := d.env.Recover(ctx, d.actx, s.n, SinkTxn{ID: a.Txn.ID, Epoch: a.Txn.Epoch, Data: a.Txn.Data})
		return commitOutcome(a.Txn.Epoch, err)
	case sinktxn.Truncate:
		if err := d.truncate(a); err != nil {
			return failed(err)
		}
		fault.Hit(fault.SinkLogAfterTruncate)
		if d.w != nil {
			d.w.TakeDone() // the records are gone: their ids may be reused
		}
		return sinktxn.Truncated{Epoch: a.Epoch}
	}
	return failed(fmt.Errorf("sink %s: unknown delivery action %T", s.n.Rel.Name, a))
}

func commitOutcome(epoch uint64, err error) sinktxn.Event {
	switch {
	case err == nil:
		return sinktxn.Committed{Epoch: epoch}
	case errors.Is(err, ErrSinkTxnAborted):
		return sinktxn.Aborted{Epoch: epoch, Err: err}
	}
	return sinktxn.Failed{Err: err}
}

// logRange returns the key range of the deliverer's log entries of
// epoch.
func (d *deliverer) logRange(epoch uint64) (lo, hi []byte) {
	lo = encodeStateKey(types.Row{types.DInt(int64(-1 - d.actx.Index)), types.DString(fmt.Sprintf("%016x/", epoch))})
	hi = encodeStateKey(types.Row{types.DInt(int64(-1 - d.actx.Index)), types.DString(fmt.Sprintf("%016x/", epoch+1))})
	return lo, hi
}

// stateKey is the state table key of the deliverer's record of id.
func (d *deliverer) stateKey(id string) types.Row {
	return types.Row{types.DInt(int64(d.actx.Index)), types.DString(id)}
}

// deliver writes the log store's epoch into a new transaction and
// pre-commits it.
func (d *deliverer) deliver(ctx context.Context, epoch uint64) (SinkTxn, bool, error) {
	s := d.s
	if err := d.w.BeginEpoch(epoch); err != nil {
		return SinkTxn{}, false, err
	}
	snap := d.actx.DB.NewSnapshot()
	lo, hi := d.logRange(epoch)
	it := snap.ScanRange(s.n.State.ID, lo, hi, SinkStateTypes)
	err := func() error {
		for {
			r, err := it.Next()
			if err != nil || r == nil {
				return err
			}
			c, err := decodeSinkLogEntry([]byte(r[3].S), s.log.ts)
			if err != nil {
				return err
			}
			if err := d.w.Write(ctx, c); err != nil {
				return err
			}
		}
	}()
	it.Close()
	snap.Close()
	if err != nil {
		return SinkTxn{}, false, err
	}
	return d.w.PreCommit(ctx)
}

// truncate deletes the log store's epoch and the records, in one batch.
func (d *deliverer) truncate(a sinktxn.Truncate) error {
	s := d.s
	b := d.actx.DB.NewWriteBatch()
	defer b.Close()
	if a.Epoch != 0 {
		snap := d.actx.DB.NewSnapshot()
		lo, hi := d.logRange(a.Epoch)
		it := snap.ScanRange(s.n.State.ID, lo, hi, SinkStateTypes)
		var err error
		for {
			var r types.Row
			if r, err = it.Next(); err != nil || r == nil {
				break
			}
			if err = b.Delete(s.n.State.ID, it.Key()); err != nil {
				break
			}
		}
		it.Close()
		snap.Close()
		if err != nil {
			return err
		}
	}
	for _, r := range a.Records {
		if err := b.Delete(s.n.State.ID, encodeStateKey(d.stateKey(r.ID))); err != nil {
			return err
		}
	}
	return b.Commit()
}

// setDecoupling makes the sink decoupled when dec can recover its
// transactions and its options do not say sink.decouple = 'false'.
func (s *Sink) setDecoupling(dec SinkDecoupling) {
	if dec.Recover == nil || s.n.Input == nil || !SinkDecoupled(s.n.Rel.With) {
		return
	}
	in := s.n.Input.Base()
	ts := make([]types.T, len(s.n.Cols))
	for i, c := range s.n.Cols {
		ts[i] = in.Out[c].T
	}
	s.decouple = &dec
	s.log = &sinkLog{ts: ts, index: s.actx.Index}
}

// logBarrier is a decoupled sink's barrier: the first starts the
// delivery from the committed state; every later one appends the epoch's
// rows (after those the compactor folded) to the log store, in the
// epoch's write set. Nothing waits for the broker.
func (s *Sink) logBarrier(ctx context.Context, b types.Barrier) error {
	if !s.started {
		s.started = true
		return s.startDelivery(ctx, max(b.Epoch.Prev, s.committed.Load()))
	}
	if s.compact != nil && !s.compact.empty() {
		for _, c := range s.compact.flush() {
			s.log.add(c)
		}
	}
	return s.log.appendEpoch(s.actx.WriteSet, s.n.State.ID, b.Epoch.Curr)
}
