package storage

import "sync/atomic"

// Pebble starts with a small memtable and doubles the size of each new
// one up to Options.MemTableSize, and it flushes the full ones only once
// together they hold half a full memtable. While the sizes ramp up,
// after a start, every read therefore searches a queue of up to seven
// memtables, each a skiplist whose seek is a chain of cache misses: a
// table's primary-key check on an INSERT of a random key cost 17 µs in
// its first 32 MiB written, against 3-5 µs with one memtable.
//
// rampMemTables keeps the queue short while the ramp lasts: after a
// commit, when more than maxQueuedMemTables are queued it asks Pebble to
// flush them (a few small level-0 files, which compactions merge). Once
// twice the full memtable size has been committed the sizes have
// reached it, a full memtable alone passes Pebble's flush threshold,
// and the check stops.
type rampMemTables struct {
	// committed counts the bytes committed since the DB opened, up to
	// until; done is set once it has reached it.
	committed atomic.Int64
	until     int64
	done      atomic.Bool
}

// maxQueuedMemTables is the most memtables (the one written and those
// waiting for their flush) a read searches before rampMemTables flushes
// them.
const maxQueuedMemTables = 2

// afterCommit notes a commit of n bytes and flushes the memtables when
// the ramp has queued too many of them.
func (db *DB) afterCommit(n int) {
	r := &db.ramp
	if r.done.Load() {
		return
	}
	if r.committed.Add(int64(n)) >= r.until {
		r.done.Store(true)
	}
	if db.pdb.Metrics().MemTable.Count > maxQueuedMemTables {
		// A flush that cannot start now (one is running) is taken up
		// when the running one ends.
		_, _ = db.pdb.AsyncFlush()
	}
}
