// Package sqlsink writes a sink's changelog into a table of PostgreSQL
// or MySQL/MariaDB, one database transaction per checkpoint epoch. It
// knows nothing of plans or operators: the decoupled sink of the
// executor (DESIGN.md §5a) reads each committed epoch back from its log
// store in Pebble and hands it to a Writer.
//
// # Exactly-once through a progress row
//
// The target database itself remembers which epochs it holds. Every
// epoch is written in one transaction that also sets the sink's row of
// the progress table (ProgressTable) to the epoch:
//
//	log store (Pebble)         Writer                           target database
//	epoch e committed ──▶ BeginEpoch(e), Write...     BEGIN
//	                      first statement:            SELECT epoch FROM weir_sink_progress
//	                                                    WHERE sink = s AND actor = a FOR UPDATE
//	                        epoch >= e: skip the epoch (it is there already)
//	                      INSERT / upsert / DELETE    (batched by rows and bytes)
//	                      PreCommit:                  upsert weir_sink_progress (s, a, e); COMMIT
//	epoch e leaves the log store (Pebble, fsync)
//
// A crash before COMMIT leaves nothing in the target (the transaction
// dies with the connection) and the epoch is still in the log store, so
// it is delivered again. A crash after COMMIT and before the log store
// forgets the epoch delivers it again too, but the progress row then
// says the epoch is there and the whole epoch is skipped. Epochs of one
// sink actor are delivered in order, so "epoch >= e" is enough; the
// row lock of FOR UPDATE keeps a second, stale writer of the same sink
// from applying an epoch twice at the same time.
//
// With Config.TwoPhase the transaction is prepared instead of committed
// (PREPARE TRANSACTION, or XA START ... XA PREPARE in MySQL) under an id
// naming the sink actor and epoch (Config.GID); the caller records the id
// and commits it with CommitPrepared, which counts a transaction gone as
// committed when the progress row holds its epoch and as rolled back
// (ErrPreparedGone) otherwise. Open rolls back every transaction an
// earlier writer of the actor prepared: a recorded one is then found
// gone and its epoch delivered again.
//
// At-least-once writes each epoch in one transaction as well, without
// the progress row: a replay writes the epoch again, which UPSERT
// absorbs and PLAIN may duplicate.
//
// # Statements
//
// FORMAT PLAIN writes INSERT ... VALUES (...), (...). FORMAT UPSERT
// writes inserts and updates as INSERT ... ON CONFLICT (pk) DO UPDATE
// (PostgreSQL) or INSERT ... ON DUPLICATE KEY UPDATE (MySQL), and
// deletes as DELETE ... WHERE pk IN (...); an update's retraction (U-)
// directly followed by its new row (U+) of the same key is not written.
// Consecutive rows of one kind share a statement until it reaches the
// batch's row or byte bound, or a key repeats (PostgreSQL refuses to
// touch a row twice in one upsert). Values are sent as SQL literals in
// the target's own text forms (Literal), so one statement carries any
// number of rows without the protocol's parameter limits.
//
// CheckTable compares the sink's columns with the target table before
// the sink is created and refuses a missing table, a missing column or
// an incompatible type with the SQLSTATE a PostgreSQL user expects.
package sqlsink
