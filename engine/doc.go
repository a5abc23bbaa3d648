// Package engine is the database: it owns the storage and the catalog,
// serves the sessions that the wire server hands it (engine.Engine
// implements wire.Handler), and runs the streaming jobs that keep
// materialized views, connector-fed tables and sinks up to date.
//
// # A statement's way through
//
// A session (session.go) parses each statement (package sql) and
// prepares it: queries are bound and planned (package planner) and run
// as batch executors over a storage snapshot (query.go, catalogview.go);
// DML computes its changes under the engine's write lock against the
// committed state plus the pending epochs, appends them to the open
// epoch and pushes them into every job reading the table, then waits for
// the fsync of its record in the redo log or, for a statement the log
// cannot replay alone, for the checkpoint holding them (data.go,
// txn.go, copy.go, redo.go: reads wait for the acknowledged statements'
// checkpoint, and a recovery applies the records again); before they
// join the epoch, the foreign keys act on them through the same writer
// (fkey_dml.go), so a cascade is part of the statement (a deferred
// constraint's check waits for the block's COMMIT: fkey_defer.go); the
// table locks of LOCK TABLE, which other sessions' statements wait for,
// are in locks.go; DDL records
// relations in the catalog and starts or stops their jobs (mview.go,
// connector_ddl.go); SHOW, SET, EXPLAIN and the rest are utility
// statements (utility.go, settings.go). Statements of 64 kB and more
// parse through a gate that bounds the memory parsing holds at once
// (parse.go), except a multi-row INSERT ... VALUES of literals, which is
// prepared from its first row and binds its later rows a piece at a time
// as it runs (bulkinsert.go).
//
//	psql ──wire──▶ Session.Prepare ─┬─ SELECT ─▶ planner ─▶ executor over a snapshot
//	                                ├─ INSERT ─▶ open epoch ─▶ jobs' table inputs ─▶ wait for the checkpoint
//	                                └─ CREATE MATERIALIZED VIEW ─▶ catalog + stream plan ─▶ job (AddJob barrier)
//
// # Streams and checkpoints
//
// stream.go runs the checkpoint driver (package checkpoint) with the
// engine as its IO: Inject seals the open epoch and sends the barrier
// into every job, Commit writes all actors' write sets, the epoch's table
// writes and the committed epoch in one synced Pebble batch, Committed
// tells the sinks to commit their Kafka transactions, and Recover
// rebuilds every job from the catalog at the committed epoch. A job's
// output is relayed into the jobs that read its view. connector.go opens
// Kafka sources and sinks for the jobs' Source and Sink operators;
// watermark.go keeps the tables' watermarks and what sources report of
// theirs.
//
// # Seeing it work
//
// Package syscat builds the system catalog: the parts of pg_catalog and
// information_schema that psql and drivers read, and the weir schema's
// views of the running system. The engine hands it the facts through
// syscat.Provider (system.go, with connector_system.go and watermark.go
// for theirs); show.go serves SHOW JOBS, SHOW COLUMNS, SHOW PARAMETERS
// and EXPLAIN of a running job. observe.go measures checkpoints, jobs,
// operators, sources and sinks for those views, for EXPLAIN
// MATERIALIZED VIEW and for the Prometheus metrics that metrics.go
// registers (served on /metrics by cmd/weir; docs/metrics.md lists
// them). backends.go shows the sessions as PostgreSQL's backends
// (pg_stat_activity and pg_stat_ssl, under the wire server's pids) and signals them
// (pg_cancel_backend, pg_terminate_backend); autoconf.go keeps the
// session settings' defaults of ALTER SYSTEM for pg_reload_conf().
package engine
