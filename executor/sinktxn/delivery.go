package sinktxn

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Txn is a transaction of the sink as its record stores it: ID is the
// transactional id, Epoch the log store epoch whose rows it holds, Data
// the connector's encoding of what committing it needs (producer id and
// epoch for Kafka).
type Txn struct {
	ID    string
	Epoch uint64
	Data  []byte
}

func (t Txn) String() string { return fmt.Sprintf("%s@%d", t.ID, t.Epoch) }

// Entry is one epoch of the log store: how many rows it holds and their
// encoded size in bytes.
type Entry struct {
	Epoch       uint64
	Rows, Bytes int64
}

// Defaults of Config.
const (
	DefaultRetryInitial = 100 * time.Millisecond
	DefaultRetryMax     = 30 * time.Second
)

// Config is where a Delivery starts: what storage held when the sink's
// actor started, and its limits.
type Config struct {
	// Committed is the committed checkpoint epoch at start.
	Committed uint64
	// Log is the log store's epochs at start (all of committed
	// checkpoints), in any order.
	Log []Entry
	// Recorded are the transaction records found at start: transactions
	// pre-committed by an earlier run and not known to be committed.
	Recorded []Txn
	// MaxBytes bounds the log store: Full reports when its rows reach
	// it (0: unbounded).
	MaxBytes int64
	// RetryInitial and RetryMax bound the backoff between attempts of a
	// failed step (defaults DefaultRetryInitial, DefaultRetryMax).
	RetryInitial, RetryMax time.Duration
}

// Event is an input to Delivery.Step.
type Event interface{ isEvent() }

// Tick tells the machine the time; a backoff ends on the first Tick at
// or after its deadline.
type Tick struct{ Now time.Time }

// Appended reports that the sink operator appended an epoch to the log
// store, in the write set of that epoch's checkpoint (not yet
// committed). Epochs arrive in increasing order; an epoch without rows
// is not appended.
type Appended struct{ Entry Entry }

// CheckpointCommitted reports that the checkpoint of Epoch committed:
// log store epochs up to it are durable and may be delivered.
type CheckpointCommitted struct{ Epoch uint64 }

// Connected is the outcome of Connect: the producers run, and every
// transaction left open on the sink's transactional ids is aborted.
type Connected struct{}

// Flushed is the outcome of Deliver: the epoch's rows are on the broker
// inside Txn, invisible to read_committed readers. Empty is set when
// nothing was written (every row was skipped), so no transaction exists.
type Flushed struct {
	Epoch uint64
	Txn   Txn
	Empty bool
}

// Recorded is the outcome of Record: the transaction's record is durable.
type Recorded struct{ Epoch uint64 }

// Committed is the outcome of Commit or Resolve: the transaction of
// Epoch is committed (or had been already).
type Committed struct{ Epoch uint64 }

// Aborted is the outcome of Commit or Resolve when the broker aborted
// the transaction of Epoch on its own (a transaction timeout, a broker
// that lost it): it can never commit.
type Aborted struct {
	Epoch uint64
	Err   error
}

// Truncated is the outcome of Truncate: the epoch's rows and the
// records left the log store durably.
type Truncated struct{ Epoch uint64 }

// Failed is the outcome of any IO action that could not finish (broker
// down, timeout, storage error). The step is retried after a backoff.
type Failed struct{ Err error }

func (Tick) isEvent()                {}
func (Appended) isEvent()            {}
func (CheckpointCommitted) isEvent() {}
func (Connected) isEvent()           {}
func (Flushed) isEvent()             {}
func (Recorded) isEvent()            {}
func (Committed) isEvent()           {}
func (Aborted) isEvent()             {}
func (Truncated) isEvent()           {}
func (Failed) isEvent()              {}

// Action is an output of Delivery.Ready for the driver to carry out.
// Every action but Retry and Lost is IO whose outcome the driver must
// Step back in before the machine asks for more.
type Action interface{ isAction() }

// Connect (re)starts the sink's producers. Starting a producer on a
// transactional id fences its older producers and aborts whatever
// transaction they left open, so Connect comes only when no recorded
// transaction is unresolved. Outcome: Connected or Failed.
type Connect struct{}

// Deliver opens a transaction, writes the rows of the log store's epoch
// Epoch into it and flushes them. Outcome: Flushed or Failed.
type Deliver struct{ Epoch uint64 }

// Record stores Txn's record durably and, in the same write, deletes the
// records in Replaces (transactions of the same epoch that the broker
// aborted). Outcome: Recorded or Failed.
type Record struct {
	Txn      Txn
	Replaces []Txn
}

// Commit commits Txn with the running producer. Outcome: Committed,
// Aborted, or Failed (the outcome is unknown; Resolve follows).
type Commit struct{ Txn Txn }

// Resolve commits the recorded Txn without starting a producer (EndTxn
// with the recorded producer id and epoch), which is idempotent: used at
// start for the records found, and after a commit of unknown outcome.
// Outcome: Committed, Aborted or Failed.
type Resolve struct{ Txn Txn }

// Truncate deletes durably, in one write, the log store's epoch Epoch
// (when it holds it) and the records in Records. Outcome: Truncated or
// Failed.
type Truncate struct {
	Epoch   uint64
	Records []Txn
}

// Retry announces that Step failed with Err for the Attempt-th time in a
// row and is tried again after Delay. It is not IO: the driver logs it,
// once per retry.
type Retry struct {
	Step    string
	Attempt int
	Delay   time.Duration
	Err     error
}

// Lost reports a recorded transaction that the broker aborted and whose
// epoch is no longer in the log store (a record of a coupled sink): its
// rows cannot be delivered again. Not IO: the driver reports it.
type Lost struct {
	Txn Txn
	Err error
}

func (Connect) isAction()  {}
func (Deliver) isAction()  {}
func (Record) isAction()   {}
func (Commit) isAction()   {}
func (Resolve) isAction()  {}
func (Truncate) isAction() {}
func (Retry) isAction()    {}
func (Lost) isAction()     {}

// ErrUnexpected is returned (wrapped) by Step for an outcome that does
// not answer the outstanding action, or an append out of order; the
// machine is unchanged then.
var ErrUnexpected = errors.New("sinktxn: unexpected event")

// phase is where the epoch in progress is in the protocol.
type phase uint8

const (
	// phaseIdle: no epoch in progress; the next committed epoch of the
	// log store is delivered once the producers run.
	phaseIdle phase = iota
	// phaseOpen: the epoch's transaction is being written (Deliver).
	phaseOpen
	// phaseFlushed: its records are on the broker; the record is being
	// stored (Record).
	phaseFlushed
	// phasePreCommitted: the record is durable; the transaction is being
	// committed (Commit, or Resolve when the outcome is unknown).
	phasePreCommitted
	// phaseCommitted: the transaction is committed; the epoch and its
	// record are leaving the log store (Truncate). Then: done, idle.
	phaseCommitted
)

var phaseNames = [...]string{"idle", "open", "flushed", "pre-committed", "committed"}

func (p phase) String() string { return phaseNames[p] }

// Delivery is one sink actor's delivery of its log store, as a state
// machine: Step feeds it an event, Ready returns the actions it decided
// on. It does no IO, reads no clock and uses no randomness, so the same
// events always give the same actions. It is not safe for concurrent use.
type Delivery struct {
	cfg Config
	now time.Time

	committed uint64  // newest committed checkpoint epoch
	log       []Entry // the log store, by epoch
	rows      int64   // sum of log's Rows
	bytes     int64   // sum of log's Bytes
	appended  uint64  // newest epoch appended or found
	delivered uint64  // newest epoch whose transaction committed

	// recorded are the records found at start and not yet resolved, by
	// epoch; the first is the epoch in progress while any is left.
	recorded []Txn
	// connected: the producers run and may open transactions.
	connected bool

	phase phase
	epoch uint64 // the epoch in progress (not idle)
	txn   Txn    // its transaction, from phaseFlushed on
	// empty: the epoch's delivery wrote nothing (no record, no commit).
	empty bool
	// resolve: the commit's outcome is unknown (or it is a record found
	// at start): resolve it with the record instead of Commit.
	resolve bool
	// stale are records to delete with the next Record or Truncate:
	// transactions of the epoch in progress that the broker aborted.
	stale []Txn

	// busy is the IO action whose outcome is awaited, nil when none is.
	busy Action
	// attempt counts the consecutive failures; retryAt ends the backoff
	// after the last one (waiting while set).
	attempt int
	waiting bool
	retryAt time.Time

	actions []Action
}

// New returns a Delivery starting from what cfg says storage held. Its
// first actions resolve the records found (Resolve) or start the
// producers (Connect).
func New(cfg Config) *Delivery {
	if cfg.RetryInitial <= 0 {
		cfg.RetryInitial = DefaultRetryInitial
	}
	if cfg.RetryMax < cfg.RetryInitial {
		cfg.RetryMax = max(DefaultRetryMax, cfg.RetryInitial)
	}
	d := &Delivery{cfg: cfg, now: time.UnixMilli(0), committed: cfg.Committed}
	d.log = slices.Clone(cfg.Log)
	slices.SortFunc(d.log, func(a, b Entry) int { return cmpU64(a.Epoch, b.Epoch) })
	for _, e := range d.log {
		d.rows += e.Rows
		d.bytes += e.Bytes
		d.appended = max(d.appended, e.Epoch)
	}
	d.recorded = slices.Clone(cfg.Recorded)
	slices.SortStableFunc(d.recorded, func(a, b Txn) int { return cmpU64(a.Epoch, b.Epoch) })
	d.advance()
	return d
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Ready returns the actions decided since the last call, in order, and
// forgets them.
func (d *Delivery) Ready() []Action {
	a := d.actions
	d.actions = nil
	return a
}

// NextDeadline returns when a Tick will end the current backoff, and
// false when only an event can move the machine on.
func (d *Delivery) NextDeadline() (time.Time, bool) {
	return d.retryAt, d.waiting
}

// Lag is how far a sink's delivery is behind its input.
type Lag struct {
	// Epochs, Rows and Bytes are what the log store holds: epochs not yet
	// delivered (committed or not).
	Epochs, Rows, Bytes int64
	// Delivered is the newest epoch whose transaction committed since
	// start, 0 before the first.
	Delivered uint64
	// Phase names the step of the epoch in progress; Retrying is set
	// during a backoff.
	Phase    string
	Retrying bool
}

// Lag returns the delivery's lag.
func (d *Delivery) Lag() Lag {
	return Lag{Epochs: int64(len(d.log)), Rows: d.rows, Bytes: d.bytes, Delivered: d.delivered,
		Phase: d.phase.String(), Retrying: d.waiting}
}

// Settled reports whether the machine is done with every epoch up to
// epoch: the records found at start are resolved, the log store holds
// no epoch up to it, none is in progress, and the producers run (so
// every transaction left open on the sink's transactional ids is
// aborted). A rescaled sink delivers nothing newer until all its
// deliveries have settled the epochs their log stores held at start.
func (d *Delivery) Settled(epoch uint64) bool {
	return d.connected && d.busy == nil && d.phase == phaseIdle && len(d.recorded) == 0 &&
		(len(d.log) == 0 || d.log[0].Epoch > epoch)
}

// Full reports whether the log store holds Config.MaxBytes or more: the
// sink's upstream should pause until delivery truncates it.
func (d *Delivery) Full() bool { return d.cfg.MaxBytes > 0 && d.bytes >= d.cfg.MaxBytes }

// String describes the machine on one line, for traces and logs.
func (d *Delivery) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "phase=%s", d.phase)
	if d.phase != phaseIdle {
		fmt.Fprintf(&b, "(%d)", d.epoch)
	}
	fmt.Fprintf(&b, " connected=%v committed=%d delivered=%d log=[", d.connected, d.committed, d.delivered)
	for i, e := range d.log {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:%d", e.Epoch, e.Rows, e.Bytes)
	}
	fmt.Fprintf(&b, "] rows=%d bytes=%d", d.rows, d.bytes)
	if len(d.recorded) > 0 {
		fmt.Fprintf(&b, " recorded=%v", d.recorded)
	}
	if d.Full() {
		b.WriteString(" full")
	}
	if d.waiting {
		fmt.Fprintf(&b, " retry=%d at=%d", d.attempt, d.retryAt.UnixMilli())
	}
	return b.String()
}

func (d *Delivery) emit(a Action) { d.actions = append(d.actions, a) }

// Step feeds one event to the machine. An outcome that does not answer
// the outstanding action, or an append out of order, is rejected with
// ErrUnexpected and changes nothing.
func (d *Delivery) Step(ev Event) error {
	var err error
	switch ev := ev.(type) {
	case Tick:
		if ev.Now.After(d.now) {
			d.now = ev.Now
		}
		if d.waiting && !d.now.Before(d.retryAt) {
			d.waiting = false
		}
	case Appended:
		err = d.append(ev.Entry)
	case CheckpointCommitted:
		d.committed = max(d.committed, ev.Epoch)
	case Connected:
		if _, ok := d.busy.(Connect); !ok {
			return d.unexpected(ev)
		}
		// The backoff goes on: a connection is not yet progress, and a
		// delivery the target keeps refusing reconnects before each
		// attempt. Only a step past the delivery resets it.
		d.busy, d.connected = nil, true
	case Flushed:
		if a, ok := d.busy.(Deliver); !ok || a.Epoch != ev.Epoch {
			return d.unexpected(ev)
		}
		d.busy, d.attempt = nil, 0
		if ev.Empty {
			d.phase, d.empty = phaseCommitted, true
		} else {
			d.phase, d.txn = phaseFlushed, ev.Txn
			d.txn.Epoch = ev.Epoch
		}
	case Recorded:
		if a, ok := d.busy.(Record); !ok || a.Txn.Epoch != ev.Epoch {
			return d.unexpected(ev)
		}
		d.busy, d.attempt = nil, 0
		d.phase, d.stale = phasePreCommitted, nil
	case Committed:
		if !d.awaitsCommit(ev.Epoch) {
			return d.unexpected(ev)
		}
		d.busy, d.attempt = nil, 0
		d.phase = phaseCommitted
	case Aborted:
		if !d.awaitsCommit(ev.Epoch) {
			return d.unexpected(ev)
		}
		d.busy, d.attempt = nil, 0
		d.aborted(ev.Err)
	case Truncated:
		if a, ok := d.busy.(Truncate); !ok || a.Epoch != ev.Epoch {
			return d.unexpected(ev)
		}
		d.busy, d.attempt = nil, 0
		d.truncated()
	case Failed:
		if d.busy == nil {
			return d.unexpected(ev)
		}
		d.failed(ev.Err)
	default:
		err = fmt.Errorf("%w: %T", ErrUnexpected, ev)
	}
	d.advance()
	return err
}

func (d *Delivery) unexpected(ev Event) error {
	busy := "nothing"
	if d.busy != nil {
		busy = fmt.Sprintf("%T", d.busy)
	}
	return fmt.Errorf("%w: %T %+v while awaiting %s", ErrUnexpected, ev, ev, busy)
}

// awaitsCommit reports whether a Commit or Resolve of epoch is
// outstanding.
func (d *Delivery) awaitsCommit(epoch uint64) bool {
	switch a := d.busy.(type) {
	case Commit:
		return a.Txn.Epoch == epoch
	case Resolve:
		return a.Txn.Epoch == epoch
	}
	return false
}

func (d *Delivery) append(e Entry) error {
	if e.Epoch <= d.appended {
		return fmt.Errorf("%w: append of epoch %d after epoch %d", ErrUnexpected, e.Epoch, d.appended)
	}
	d.appended = e.Epoch
	d.log = append(d.log, e)
	d.rows += e.Rows
	d.bytes += e.Bytes
	return nil
}

// inLog reports whether the log store holds epoch.
func (d *Delivery) inLog(epoch uint64) bool {
	_, ok := slices.BinarySearchFunc(d.log, epoch, func(e Entry, t uint64) int { return cmpU64(e.Epoch, t) })
	return ok
}

// aborted handles a transaction of the epoch in progress that the broker
// aborted: its epoch is delivered again when the log store still holds
// it (the record is replaced then), and reported lost otherwise.
func (d *Delivery) aborted(err error) {
	d.connected = false // the producers' view of the transaction is stale
	if d.inLog(d.epoch) {
		d.stale = append(d.stale, d.txn)
		if len(d.recorded) > 0 && d.recorded[0].Epoch == d.epoch {
			d.recorded = d.recorded[1:]
		}
		d.phase, d.txn, d.resolve = phaseIdle, Txn{}, false
		return
	}
	d.emit(Lost{Txn: d.txn, Err: err})
	d.phase = phaseCommitted
	d.empty = false
}

// truncated finishes the epoch in progress: it left the log store with
// its records.
func (d *Delivery) truncated() {
	if i, ok := slices.BinarySearchFunc(d.log, d.epoch, func(e Entry, t uint64) int { return cmpU64(e.Epoch, t) }); ok {
		d.rows -= d.log[i].Rows
		d.bytes -= d.log[i].Bytes
		d.log = slices.Delete(d.log, i, i+1)
	}
	if len(d.recorded) > 0 && d.recorded[0].Epoch == d.epoch {
		d.recorded = d.recorded[1:]
	}
	d.delivered = max(d.delivered, d.epoch)
	d.phase, d.txn, d.empty, d.resolve, d.stale = phaseIdle, Txn{}, false, false, nil
}

// failed starts the backoff after a failed action and decides where the
// retry resumes.
func (d *Delivery) failed(err error) {
	step := actionName(d.busy)
	switch d.busy.(type) {
	case Connect:
	case Deliver:
		// The open transaction is abandoned: restarting the producers
		// aborts it, and the epoch is delivered again.
		d.connected, d.phase = false, phaseIdle
	case Commit, Resolve:
		// The outcome is unknown: only the record may settle it.
		d.resolve = true
	}
	d.busy = nil
	d.attempt++
	delay := d.cfg.RetryInitial
	for i := 1; i < d.attempt && delay < d.cfg.RetryMax; i++ {
		delay *= 2
	}
	delay = min(delay, d.cfg.RetryMax)
	d.waiting, d.retryAt = true, d.now.Add(delay)
	d.emit(Retry{Step: step, Attempt: d.attempt, Delay: delay, Err: err})
}

func actionName(a Action) string {
	switch a.(type) {
	case Connect:
		return "connect"
	case Deliver:
		return "deliver"
	case Record:
		return "record"
	case Commit:
		return "commit"
	case Resolve:
		return "resolve"
	case Truncate:
		return "truncate"
	}
	return fmt.Sprintf("%T", a)
}

// advance emits the next IO action when none is outstanding and no
// backoff runs.
func (d *Delivery) advance() {
	if d.busy != nil || d.waiting {
		return
	}
	var a Action
	switch d.phase {
	case phaseIdle:
		switch {
		case len(d.recorded) > 0:
			// A record found at start is an epoch pre-committed by the
			// last run: settle it before any producer starts.
			d.phase, d.txn, d.epoch, d.resolve = phasePreCommitted, d.recorded[0], d.recorded[0].Epoch, true
			a = Resolve{Txn: d.txn}
		case !d.connected:
			a = Connect{}
		case len(d.log) > 0 && d.log[0].Epoch <= d.committed:
			d.phase, d.epoch = phaseOpen, d.log[0].Epoch
			a = Deliver{Epoch: d.epoch}
		}
	case phaseOpen:
		if !d.connected {
			d.phase = phaseIdle
			a = Connect{}
		} else {
			a = Deliver{Epoch: d.epoch}
		}
	case phaseFlushed:
		a = Record{Txn: d.txn, Replaces: slices.Clone(d.stale)}
	case phasePreCommitted:
		if d.resolve {
			a = Resolve{Txn: d.txn}
		} else {
			a = Commit{Txn: d.txn}
		}
	case phaseCommitted:
		recs := slices.Clone(d.stale)
		if !d.empty {
			recs = append(recs, d.txn)
		}
		a = Truncate{Epoch: d.epoch, Records: recs}
	}
	if a != nil {
		d.busy = a
		d.emit(a)
	}
}
