// Package kafka is weir's Kafka connector: a source reader, a
// two-phase-commit sink writer and an embedded development broker, on
// franz-go (kgo, kmsg, kadm) and its kfake cluster. It knows nothing of
// plans or operators; the executor drives it at barriers (DESIGN.md §5,
// §7).
//
// # Source
//
// A SourceReader assigns the topic's partitions explicitly (no consumer
// group: the offsets live in weir's checkpoints) and reads at
// read_committed, so aborted sink transactions upstream are never seen.
// At a barrier the source actor puts Positions (next offset per
// partition) into the checkpoint; after recovery a new reader starts from
// them. Start offsets of scan.startup.mode are resolved to numbers when
// partitions are first listed, so the first checkpoint is exact. The
// topic is listed again every DiscoveryInterval; partitions found later
// are read from their earliest offset. A record that cannot be decoded
// (bad JSON or CSV, a wrong type, a NULL for a NOT NULL column, too
// large) is skipped, counted and kept with partition, offset and reason
// (Malformed), and logged; it never stops the source.
//
// # Sink: one transaction per checkpoint epoch
//
// Flink's two-phase commit (TwoPhaseCommitSinkFunction), with weir's
// checkpoint as the coordinator:
//
//	sink actor                 checkpoint (Pebble)            Kafka
//	BeginEpoch(e)  ───────────────────────────────────────▶ txn on id n (open)
//	Write...       ───────────────────────────────────────▶ records, invisible
//	barrier e: PreCommit ─ flush ─────────────────────────▶ all records on the broker
//	           rec_e, TakeDone() ─▶ write set of e
//	BeginEpoch(e+1) on id n+1 (rotation)
//	                           commit e (fsync)
//	epoch e committed: Commit(rec_e) ─────────────────────▶ EndTxn(commit): visible
//	barrier e+1: done mark of rec_e ─▶ write set of e+1
//
// Failures, as in DESIGN.md §5:
//
//   - Crash before checkpoint e commits: recovery finds no rec_e. The new
//     writer initialises a producer on every id of its pool
//     (InitProducerID), which bumps the epoch and aborts the open
//     transaction; epoch e is replayed from the sources.
//   - Crash after checkpoint e commits but before (or during) Commit:
//     recovery reads rec_e (not marked done) and RecoverPending sends
//     EndTxn(commit) with rec_e's producer id and epoch. A commit that had
//     in fact happened is recognised as a retry (KIP-890: kfake implements
//     EndTxn v5, which bumps the epoch on commit and accepts a retry with
//     the old one) and succeeds. Only then does NewSinkWriter initialise
//     producers; doing it first would abort the transaction.
//   - The retry is refused (INVALID_TXN_STATE, ErrCommitRefused): the
//     broker no longer holds the transaction open. That happens when it
//     aborted it (a timeout), and also when a broker that crashed after
//     the commit forgot how the transaction ended (kfake does). SettleTxn
//     reads the answer from the log: rec_e keeps the transaction's first
//     offset per partition, and the first control record of its producer
//     id from there on is its COMMIT or ABORT.
//
// Hence the pool of transactional ids "<prefix>-<sink>-<actor>-<n>": the
// next epoch begins while the previous transaction waits for its
// checkpoint, and an id may be reused only once its transaction is
// resolved, i.e. committed in Kafka and marked done in a committed
// checkpoint. Otherwise recovery could send a stale (pid, epoch) to an id
// carrying a newer transaction. With one checkpoint in flight three ids
// suffice (writing e+1; e pre-committed; e-1 awaiting its done mark); the
// default is four. RecoverPending and Commit are idempotent, so recovery
// may itself crash and run again.
//
// Keep each client on one EndTxn version: after a v5 commit bumps the
// epoch, a v4 retry with the old epoch is fenced (PRODUCER_FENCED). All
// clients here negotiate the broker's highest version, so they agree. The
// producer's transaction timeout (default 15 min) must cover a checkpoint
// interval plus the wait for the checkpoint to commit; the embedded
// broker raises transaction.max.timeout.ms to an hour.
//
// The at-least-once writer uses one idempotent producer and flushes at the
// barrier; a replayed epoch is written again.
//
// # Encoding
//
// Encoder writes FORMAT PLAIN | UPSERT | DEBEZIUM ENCODE JSON: rows as
// JSON objects by column name, UPSERT keyed by the primary key with
// tombstones for deletes, DEBEZIUM as {"before","after","op","ts_ms"}.
//
// # Embedded broker
//
// StartBroker serves kfake on a real TCP port, optionally persisted to a
// directory, so `weir kafka` gives kcat and any Kafka client a broker
// without a JVM. kfake keeps all data in memory as well; it is for
// development and tests, not production. After a crash, StartBroker
// keeps the transactions left open, as Kafka does (broker_restore.go),
// and writes the ABORT markers kfake leaves out for those it aborted
// (broker_repair.go).
package kafka
