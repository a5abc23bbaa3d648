// Package stream is weir's streaming runtime: incremental operators over
// changelog chunks, actors (one goroutine each) joined by bounded
// channels, exchanges, barrier alignment, and the builder that turns a
// stream plan (planner.StreamNode) into running actors. See DESIGN.md §2-5.
//
// A materialized view is kept up to date by a job: a dataflow of
// incremental operators over changelogs (rows with ops +, -, U-, U+),
// built from a stream plan by Build.
//
// # Fragments and actors
//
// Build cuts the plan into fragments at every StreamExchange, at every
// StreamShare and at every input of a multi-input operator (Union,
// HashJoin), and runs each
// fragment as Parallelism actors (one for a single distribution). An
// actor is one goroutine that pulls messages from the root of its chain
// of fused operators (Operator.Next) and pushes them to its dispatcher.
// Actors meet only through bounded channels (ChannelCap messages), so a
// slow consumer blocks its producers: backpressure reaches the engine's
// Push of a table's changes.
//
//	  engine: PushDML / Inject
//	      │            │
//	      ▼            ▼ (barriers to every source actor)
//	┌─ fragment 1 ────────────────────┐   ┌─ fragment 1 ─ actor 1 ─┐
//	│ actor 0:                        │   │  (same chain)          │
//	│ TableSource → Backfill → Filter │   │                        │
//	│   → Project → hash dispatcher   │   │                        │
//	└───────────┬─────────────┬───────┘   └────┬──────────────┬────┘
//	            │ chan 0→0    └─chan 0→1─┐     │ chan 1→0     │ chan 1→1
//	            ▼                        ▼     ▼              ▼
//	┌─ fragment 0, actor 0 ─────────────┐   ┌─ fragment 0, actor 1 ──┐
//	│ Merge(2 channels) → Materialize   │   │ Merge → Materialize    │
//	└───────────────────────────────────┘   └────────────────────────┘
//
// A shared subplan (planner.StreamShare: one subtree read by several
// nodes of the plan) is one fragment, built once, whose actors hold a
// dispatcher per consumer: actor i sends each chunk to actor i of every
// consumer's fragment (they run with one parallelism, the least of
// theirs) and every barrier and watermark to all of their actors. Each
// consumer reads it through a Merge of its own and aligns its barriers as
// for any input, so a join whose two sides read one shared aggregation
// aligns them as it would two.
//
// Every upstream actor of an exchange has a channel to every downstream
// actor: chunks go where the dispatcher's distribution sends them (hash of
// key columns, one target, or all), while barriers and watermarks go to
// every channel. A hash dispatcher sends row r to the actor whose Index
// is hash(r.keys) mod N; an update pair whose key moves between actors is
// split into a delete and an insert. Table inputs partition a table's
// changes by primary key with the same hash, and each backfill actor scans
// the same partition of the table's snapshot (no-shuffle backfill).
//
// # Barriers and alignment
//
// The coordinator's barriers enter at the source actors (Job.Inject) and
// flow with the data. A Merge (the receiving end of an exchange) and a
// multi-input operator align them: after one channel delivered barrier
// e, it is not read again until every channel delivered e, and only then
// does e go on. So every message before the barrier on any channel
// belongs to epoch e, every message after it to the next. An operator
// whose output for one row is unbounded (ProjectSet) does not hold a
// barrier behind it: it polls its input between output chunks (poller)
// and lets a barrier pass mid-expansion, keeping the rest of the
// expansion in its state table. Watermarks are
// combined the same way: the minimum over the channels, forwarded when it
// rises, once every channel has one on that column.
//
// # Watermarks
//
// A Source with a WATERMARK FOR clause generates watermarks (the minimum
// over its partitions, an idle partition left out) and drops the rows
// behind them; the engine generates a table's and sends them into its
// TableInputs before barriers. Project maps them to its columns and
// derives watermarks of monotone expressions (planner.WatermarkSource),
// Filter, exchanges and HopWindow forward them (DynamicFilter drops
// them: the rows it holds back or retracts are behind them), Merge and Union take the
// minimum, HashAgg and TopN keep those on group keys, OverWindow those
// on partition keys. SessionWindow turns one on the time column into one
// on session_start (the least start of a session still open), deleting
// the state of the sessions it closed; in EMIT ON WINDOW CLOSE mode it
// emits those sessions' rows then, and the watermark goes on on their
// session_end. HashAgg closes the groups a watermark passed: it
// deletes their state, and in EMIT ON WINDOW CLOSE mode emits their rows
// then, once. EOWCOverWindow emits each row once the watermark on its
// first ORDER BY column has passed it (and the rows its window reaches
// ahead), and forwards that watermark when no call looks ahead. HashJoin
// evaluates an interval join's bounds (every match has s.x >= f(o.y)) at
// the other side's watermark: stored rows below the bound can match
// nothing later and are deleted at the barrier, through the side's index
// table when its state is not ordered by x (hash_join_clean.go), and the
// output gets the watermark min(W(x), f(W(y))) on the sides never padded
// with NULLs, so aggregations over the join can close their windows.
//
// # Write sets and acknowledgements
//
// Each actor owns the write set of the epoch in progress
// (ActorContext.WriteSet, a storage.Batch). When a barrier reaches a
// stateful operator, the operator emits its pending output, moves its
// state tables' dirty entries into the write set (StateTable.Commit),
// emits watermarks and forwards the barrier. When the barrier leaves the
// actor's root, the actor dispatches it, acknowledges it to the
// BarrierSink with the write set, and starts a new one; a write set
// still empty is kept for the next epoch and the acknowledgement
// carries none. The coordinator
// commits an epoch once every actor acknowledged it: all write sets,
// merged (storage.Batch.Apply), with committed_epoch in one batch. A
// barrier carrying MutationStopJob for the actor's job is acknowledged,
// then the actor ends. An operator error fails the actor, which reports
// it to the sink; the coordinator then recovers every job from the last
// committed epoch: Build again, first barrier Initial.
//
// # Time
//
// Operators read no clock. The processing time of an epoch is the time
// its barrier was injected, encoded in the epoch (types.EpochMillis):
// HashAgg and HashJoin expire state by it (state TTL), and DynamicFilter
// (a temporal filter, `ts > now() - INTERVAL '1 hour'`) evaluates now()
// as it, emitting at each barrier the retractions (or late insertions)
// the barrier's time brings, read by one range scan of its state ordered
// by ts. A Project computing proctime() (processing time) gives it the
// time of the last barrier it passed. Tests set the time through the
// epochs of their barriers.
//
// # Backfill
//
// A new view over a table that already holds rows reads a snapshot of it
// while the table keeps changing (see Backfill): snapshot rows up to a
// position (a primary key) are emitted, changes are buffered to their
// epoch's barrier and emitted once the position covers their key, and the
// position is persisted at every barrier so a recovery resumes the scan.
// The engine waits for every backfill actor to report Done before CREATE
// MATERIALIZED VIEW returns.
//
// # External sources and sinks
//
// A job may also read an external source (Source, over a connector's
// SourceReader) and end in a sink (Sink, over a SinkWriter); the engine
// supplies both through Env.OpenSource and Env.OpenSink (external.go is
// the contract). Exactly-once is the checkpoint's: a source writes into
// epoch e's write set the positions after the rows it emitted before
// barrier e, so a recovery from e resumes right after them; a sink
// pre-commits one transaction per epoch at the barrier and records it in
// the same checkpoint, and commits it once the engine reports the
// checkpoint committed (Job.Committed). A recovery commits the recorded
// transactions again (commits are idempotent) before writing anything.
// That is a coupled sink. A decoupled sink (Env.Decoupling, the engine's
// default; sink_log.go) only appends each epoch's rows to its log store
// at the barrier, and a goroutine of its own delivers the committed
// epochs, one transaction each, by the state machine of package sinktxn;
// a full log store holds the job's sources (JobHold).
//
// A keyed sink receives the changes of one key in order only when they
// all have one stream key: changes of different stream keys come from
// different upstream actors. When the sink's key does not hold the stream
// key (a sink FROM a join view keyed by one side's id, say), the sink
// keeps the epoch's changes in memory and writes, at the barrier and
// before the pre-commit, the row each key ends the epoch with or its
// delete (sink_compact.go).
package stream
