// Package sinktxn is the transaction protocol of a decoupled sink
// (DESIGN.md §5a) as a deterministic state machine: how the epochs of a
// sink's log store reach the external system exactly once, one
// transaction per epoch, however the process, the broker or the network
// fails in between.
//
// # The log store and the delivery
//
// A decoupled sink does not write to its broker on the checkpoint's path.
// Its operator appends each epoch's rows to a log store of its own (rows
// of its state table, written in the checkpoint batch like any state), so
// the checkpoint commits without waiting for the broker. Delivery then
// runs beside the dataflow, one epoch at a time, in epoch order, and only
// for epochs whose checkpoint committed:
//
//	log store              Delivery (this package)            broker
//	epoch e committed ──▶  Deliver e: begin txn, write rows ──▶ open
//	                       ◀── Flushed e (records on the broker, invisible)
//	                       Record: txn record → Pebble (fsync)  pre-committed(e)
//	                       Commit ─────────────────────────────▶ committed
//	                       Truncate: epoch e and its record
//	                       leave the log store (fsync)          done
//
// The durable transaction record is what makes a crash harmless: before
// it exists, a restart aborts the open transaction (starting the
// producers fences it) and delivers the epoch again; once it exists, a
// restart commits the transaction with the recorded producer id and epoch
// (Resolve, idempotent) and then truncates. The epoch leaves the log
// store only after its transaction is committed, so a transaction the
// broker aborted on its own (a transaction timeout during a long outage,
// a broker that lost it in a crash) is not a loss: the epoch is delivered
// again in a new transaction whose record replaces the old one.
//
// Only a known abort may deliver an epoch again. A broker that refuses a
// commit (Refused: Kafka's INVALID_TXN_STATE) says only that the
// transaction is no longer open; a broker restarted after a crash
// refuses the repeat of a commit that did reach its log, because it
// forgot that the transaction's last end was a commit. So a refusal is
// settled first (Settle: the transaction's end is read from the broker's
// log, for Kafka the control record after its first offsets): a COMMIT
// there finishes the epoch like a commit, an ABORT delivers it again.
//
// # Failures
//
// Every IO step reports Failed when it cannot finish (the broker is down,
// a timeout). The machine then waits a backoff (doubling from
// Config.RetryInitial up to Config.RetryMax, reset by any success),
// announces the retry once with a Retry action (the driver logs it: one
// line per retry, never a storm), and tries again from a safe point: a
// commit whose outcome is unknown is resolved with the recorded producer
// id and epoch (never by restarting producers, which would abort it);
// anything before the record restarts the producers (Connect) and
// delivers the epoch again.
//
// # Shape
//
// Like checkpoint.Coordinator: Step feeds an event, Ready returns the
// actions to carry out, NextDeadline says when a Tick is due. At most
// one IO action is outstanding at a time; its outcome is the next event
// (Connected, Flushed, Recorded, Committed, Aborted, Refused, Truncated
// or Failed). The machine does no IO, reads no clock and uses no
// randomness; the sink operator's driver (executor/stream) runs it. The
// traces in testdata/ show every path.
package sinktxn
