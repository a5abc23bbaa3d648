package sinktxn

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestRandomDeliveryExactlyOnce drives Delivery with random outcomes
// (failures, broker aborts, refused repeats of a commit that did land,
// restarts from the durable state) against a
// model of storage and the broker, and checks the protocol's invariants:
// epochs are delivered in order and only once committed; producers never
// restart while a recorded transaction is unresolved; and once failures
// stop, every committed epoch's rows are committed on the broker exactly
// once and the log store is empty.
func TestRandomDeliveryExactlyOnce(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRun(t, seed) })
	}
}

// model is the durable world a Delivery acts on.
type model struct {
	log       map[uint64]bool   // epochs in the log store (committed checkpoints)
	pending   []uint64          // appended, checkpoint not yet committed
	records   map[string]Txn    // stored transaction records
	txns      map[string]string // broker: txn id → open | committed | aborted
	delivered map[uint64]int    // epoch → transactions committed with its rows
	logged    map[uint64]bool   // epochs ever in the log store
	committed uint64
	next      int // txn id counter
	// r decides whether a repeated commit of a committed transaction is
	// confirmed or refused (as a broker restarted after a crash refuses
	// it).
	r *rand.Rand
}

func randomRun(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	m := &model{log: map[uint64]bool{}, records: map[string]Txn{}, txns: map[string]string{},
		delivered: map[uint64]int{}, logged: map[uint64]bool{}, r: r}
	now := time.UnixMilli(0)
	d := New(Config{})
	var busy Action
	epoch := uint64(0)
	lastDeliver := uint64(0)
	fail := func() bool { return r.IntN(6) == 0 }
	take := func() {
		for _, a := range d.Ready() {
			switch a := a.(type) {
			case Retry, Lost:
			case Connect:
				for id, tx := range m.records {
					if m.txns[id] == "open" {
						t.Fatalf("Connect while the recorded %v is unresolved", tx)
					}
				}
				busy = a
			case Deliver:
				if !m.log[a.Epoch] || a.Epoch > m.committed {
					t.Fatalf("Deliver %d: not a committed epoch of the log store", a.Epoch)
				}
				if a.Epoch < lastDeliver {
					t.Fatalf("Deliver %d after %d", a.Epoch, lastDeliver)
				}
				lastDeliver = a.Epoch
				busy = a
			default:
				if busy != nil {
					t.Fatalf("%T emitted while %T is outstanding", a, busy)
				}
				busy = a
			}
		}
	}
	take()
	for i := 0; i < 400; i++ {
		calm := i >= 300 // no more failures, appends or restarts
		now = now.Add(time.Duration(r.IntN(300)) * time.Millisecond)
		if err := d.Step(Tick{Now: now}); err != nil {
			t.Fatal(err)
		}
		take()
		if !calm && r.IntN(5) == 0 {
			epoch++
			m.pending = append(m.pending, epoch)
			if err := d.Step(Appended{Entry{Epoch: epoch, Rows: 1, Bytes: 10}}); err != nil {
				t.Fatal(err)
			}
			take()
		}
		if len(m.pending) > 0 && r.IntN(3) == 0 {
			for _, e := range m.pending {
				m.log[e], m.logged[e] = true, true
			}
			m.committed = epoch
			m.pending = nil
			d.Step(CheckpointCommitted{Epoch: epoch})
			take()
		}
		if !calm && r.IntN(40) == 0 {
			// A crash: uncommitted appends are gone; open transactions
			// stay open on the broker until producers restart.
			m.pending = nil
			var cfg Config
			cfg.Committed = m.committed
			for e := range m.log {
				cfg.Log = append(cfg.Log, Entry{Epoch: e, Rows: 1, Bytes: 10})
			}
			for _, tx := range m.records {
				cfg.Recorded = append(cfg.Recorded, tx)
			}
			d, busy, lastDeliver = New(cfg), nil, 0
			if err := d.Step(Tick{Now: now}); err != nil {
				t.Fatal(err)
			}
			take()
			continue
		}
		if !calm && r.IntN(30) == 0 {
			// The broker times out open transactions.
			for id, s := range m.txns {
				if s == "open" {
					m.txns[id] = "aborted"
				}
			}
		}
		if busy == nil {
			continue
		}
		a := busy
		busy = nil
		var ev Event
		if !calm && fail() {
			ev = Failed{Err: errors.New("down")}
		} else {
			ev = m.outcome(a)
		}
		if err := d.Step(ev); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		take()
	}
	// Calm: drain what is left.
	for i := 0; busy != nil || len(m.log) > 0; i++ {
		if i > 10000 {
			t.Fatalf("not drained: %s", d)
		}
		now = now.Add(time.Minute)
		d.Step(Tick{Now: now})
		take()
		if busy == nil {
			continue
		}
		a := busy
		busy = nil
		ev := m.outcome(a)
		if err := d.Step(ev); err != nil {
			t.Fatal(err)
		}
		take()
	}
	// Every epoch of a committed checkpoint was delivered exactly once;
	// epochs lost with an uncommitted checkpoint never were.
	for e := uint64(1); e <= epoch; e++ {
		if n := m.delivered[e]; (m.logged[e] && n != 1) || (!m.logged[e] && n != 0) {
			t.Fatalf("epoch %d (in the log store: %v) committed %d times", e, m.logged[e], n)
		}
	}
	if len(m.records) != 0 {
		t.Fatalf("records left: %v", m.records)
	}
}

// outcome carries out a on the model and returns its success.
func (m *model) outcome(a Action) Event {
	switch a := a.(type) {
	case Connect:
		// Starting producers aborts every transaction left open.
		for id, s := range m.txns {
			if s == "open" {
				m.txns[id] = "aborted"
			}
		}
		return Connected{}
	case Deliver:
		m.next++
		id := fmt.Sprintf("t%d", m.next)
		m.txns[id] = "open"
		return Flushed{Epoch: a.Epoch, Txn: Txn{ID: id, Epoch: a.Epoch}}
	case Record:
		for _, old := range a.Replaces {
			delete(m.records, old.ID)
		}
		m.records[a.Txn.ID] = a.Txn
		return Recorded{Epoch: a.Txn.Epoch}
	case Commit, Resolve:
		var tx Txn
		if c, ok := a.(Commit); ok {
			tx = c.Txn
		} else {
			tx = a.(Resolve).Txn
		}
		switch m.txns[tx.ID] {
		case "open":
			m.txns[tx.ID] = "committed"
			m.delivered[tx.Epoch]++
			return Committed{Epoch: tx.Epoch}
		case "committed":
			if m.r.IntN(2) == 0 {
				return Refused{Epoch: tx.Epoch, Err: errors.New("INVALID_TXN_STATE")}
			}
			return Committed{Epoch: tx.Epoch}
		}
		if m.r.IntN(2) == 0 {
			return Refused{Epoch: tx.Epoch, Err: errors.New("INVALID_TXN_STATE")}
		}
		return Aborted{Epoch: tx.Epoch, Err: errors.New("INVALID_TXN_STATE")}
	case Settle:
		// The log tells: a committed transaction has its COMMIT, an
		// aborted one its ABORT, an open one no end yet.
		switch m.txns[a.Txn.ID] {
		case "committed":
			return Committed{Epoch: a.Txn.Epoch}
		case "aborted":
			return Aborted{Epoch: a.Txn.Epoch, Err: errors.New("ABORT marker")}
		}
		return Failed{Err: errors.New("no end of the transaction in the log yet")}
	case Truncate:
		delete(m.log, a.Epoch)
		for _, tx := range a.Records {
			delete(m.records, tx.ID)
		}
		return Truncated{Epoch: a.Epoch}
	}
	panic(fmt.Sprintf("unknown action %T", a))
}
