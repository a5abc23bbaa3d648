package fault

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// EnvVar is the environment variable that names the armed point.
const EnvVar = "WEIR_FAULT"

// The crash points of the sink and checkpoint protocol, in the order an
// epoch passes them.
const (
	// SinkBeforePrecommit is hit by a sink on a checkpoint barrier before
	// it flushes the epoch's Kafka transaction: the records may have been
	// produced but nothing is pre-committed and no checkpoint refers to
	// them. Recovery must abort the transaction and replay the epoch.
	SinkBeforePrecommit = "sink.before_precommit"
	// SinkAfterPrecommit is hit after the sink's Kafka flush succeeded
	// (the transaction is pre-committed) and before the checkpoint's
	// Pebble commit. The checkpoint never commits, so recovery must abort
	// the transaction and replay the epoch.
	SinkAfterPrecommit = "sink.after_precommit"
	// CheckpointAfterCommit is hit after the checkpoint's Pebble batch is
	// committed (fsynced) and before any sink commits its Kafka
	// transaction. Recovery must commit the recorded transactions.
	CheckpointAfterCommit = "checkpoint.after_commit"
	// SinkDuringCommit is hit in phase two, between the commits of two
	// pending transactions and right after EndTxn is sent, so that some
	// transactions of a committed checkpoint are committed and others are
	// not (or the broker committed one but the sink never saw the answer).
	// Recovery must commit the rest and treat the committed ones as done.
	SinkDuringCommit = "sink.during_commit"
	// RecoveryBeforeSinkCommit is hit during recovery, before pending
	// sink transactions are committed again: a crash while recovering
	// must leave a state the next recovery handles the same way.
	RecoveryBeforeSinkCommit = "recovery.before_sink_commit"

	// The points of a decoupled sink (DESIGN.md §5a), in the order an
	// epoch passes them.

	// SinkLogAppend is hit when a decoupled sink has put an epoch's rows
	// into the checkpoint's write set (its log store append), before the
	// checkpoint commits. Recovery must replay the epoch from the sources.
	SinkLogAppend = "sink.log_append"
	// SinkLogAfterRecord is hit when a decoupled sink's delivery has
	// flushed an epoch's transaction and stored its record, before the
	// Kafka commit. Recovery must commit the recorded transaction, or
	// deliver the epoch again if the broker aborted it.
	SinkLogAfterRecord = "sink.after_record"
	// SinkLogAfterTruncate is hit after a decoupled sink's delivery
	// committed an epoch's transaction and deleted the epoch from its log
	// store. Recovery must go on with the next epoch.
	SinkLogAfterTruncate = "sink.after_truncate"
)

// The points of a database sink (connector/sqlsink), in the order an
// epoch passes them after its log store append (SinkLogAppend). Recovery
// of a database sink hits RecoveryBeforeSinkCommit when it finds, in the
// target's progress table, an epoch its log store still holds.
const (
	// SinkDBBeforeCommit is hit when a database sink has sent an epoch's
	// rows in the target's transaction and not yet committed it: the
	// transaction dies with the process, and recovery must deliver the
	// epoch again.
	SinkDBBeforeCommit = "sink.db_before_commit"
	// SinkDBAfterCommit is hit after the target committed an epoch's
	// transaction (with its progress row) and before the epoch leaves
	// the log store: recovery must find the epoch in the progress table
	// and skip it.
	SinkDBAfterCommit = "sink.db_after_commit"
	// SinkDBAfterPrepare is hit, with two-phase commit, after the target
	// prepared an epoch's transaction and before weir recorded it: the
	// next writer rolls it back and delivers the epoch again.
	SinkDBAfterPrepare = "sink.db_after_prepare"
)

// DBPoints lists the crash points of database sinks, for the crash
// matrices of those sinks.
var DBPoints = []string{SinkDBBeforeCommit, SinkDBAfterPrepare, SinkDBAfterCommit}

// BackfillChunk is hit by a backfill for each chunk of existing rows it
// reads: a crash there interrupts CREATE MATERIALIZED VIEW halfway
// through its backfill. It is not swept with Points: it concerns views,
// not sinks.
const BackfillChunk = "stream.backfill_chunk"

// ClusterBeforeCommit is hit by a cluster node's job after an epoch's
// records reached the broker and before its transaction ends: a crash
// there leaves an open transaction on the repartition, changelog and sink
// partitions the epoch wrote (docs/scale-out.md).
const ClusterBeforeCommit = "cluster.before_commit"

// AlterRewritten is hit by ALTER TABLE ... ALTER COLUMN ... TYPE once
// the table's rows are rewritten into a spill area, before the batch
// committing them with the catalog: a crash there leaves the table as it
// was.
const AlterRewritten = "alter.rewritten"

// AlterIndexesDropped is hit by ALTER TABLE ... ALTER COLUMN ... TYPE
// once the indexes on the converted columns are dropped (their
// definitions recorded in the table's entry), before the rows are
// rewritten: a crash there leaves the table as it was, and Open builds
// the indexes again.
const AlterIndexesDropped = "alter.indexes_dropped"

// AlterCommitted is hit by ALTER TABLE ... ALTER COLUMN ... TYPE once
// the rewritten rows are committed with the catalog's new entry, before
// the dropped indexes are built again: a crash there leaves the table
// converted, and Open builds the indexes over the new rows.
const AlterCommitted = "alter.committed"

// AlterIndexRebuilt is hit by ALTER TABLE ... ALTER COLUMN ... TYPE
// once the first of the dropped indexes is built again, before the
// others: a crash there leaves one index back, and Open builds the rest.
const AlterIndexRebuilt = "alter.index_rebuilt"

// CreateTableAsFilled is hit by CREATE TABLE AS (and SELECT INTO) once
// the new table's rows are committed, before its catalog entry is
// marked built: a crash there leaves a table Open drops, so the
// statement did not happen.
const CreateTableAsFilled = "create_table_as.filled"

// SpillMove is hit by the move of a committed spill area into its table
// after each part of the move is written: a crash there leaves the area
// and its mark, which Open's recovery moves again.
const SpillMove = "storage.spill_move"

// Points lists the documented crash points, for tests that sweep them.
var Points = []string{
	SinkBeforePrecommit,
	SinkAfterPrecommit,
	CheckpointAfterCommit,
	SinkDuringCommit,
	RecoveryBeforeSinkCommit,
	SinkLogAppend,
	SinkLogAfterRecord,
	SinkLogAfterTruncate,
}

// armed is the point selected by the environment; nil when none is, which
// is the case Hit checks first.
var armed *spec

// spec is an armed point: the process dies at the n-th hit of name.
type spec struct {
	name string
	n    int64
	hits atomic.Int64
}

func init() {
	v, ok := os.LookupEnv(EnvVar)
	if !ok || v == "" {
		return
	}
	if h, err := parseHold(v); h != nil || err != nil {
		if err != nil {
			fmt.Fprintf(os.Stderr, "weir: ignoring %s: %v\n", EnvVar, err)
			return
		}
		holding = h
		return
	}
	if ferr, err := parseFailure(v); ferr != nil || err != nil {
		// An error point (Fail) rather than a crash point.
		if err != nil {
			fmt.Fprintf(os.Stderr, "weir: ignoring %s: %v\n", EnvVar, err)
			return
		}
		failing = ferr
		return
	}
	name, n, err := Parse(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "weir: ignoring %s: %v\n", EnvVar, err)
		return
	}
	if !known(name) {
		fmt.Fprintf(os.Stderr, "weir: %s names %q, which is not a documented fault point; arming it anyway\n", EnvVar, name)
	}
	armed = &spec{name: name, n: int64(n)}
}

func known(name string) bool {
	switch name {
	case BackfillChunk, ClusterBeforeCommit, AlterRewritten, AlterIndexesDropped, AlterCommitted, AlterIndexRebuilt, CreateTableAsFilled, SpillMove:
		return true
	}
	for _, p := range DBPoints {
		if p == name {
			return true
		}
	}
	for _, p := range Points {
		if p == name {
			return true
		}
	}
	return false
}

// Parse reads a WEIR_FAULT value, "point" or "point:N", into the point's
// name and the 1-based hit at which the process dies (1 when N is
// omitted). Errors: an empty point name, or N that is not a positive
// decimal integer.
func Parse(v string) (name string, n int, err error) {
	name, count, hasCount := strings.Cut(strings.TrimSpace(v), ":")
	if name == "" {
		return "", 0, fmt.Errorf("%q: empty fault point name", v)
	}
	n = 1
	if hasCount {
		n, err = strconv.Atoi(count)
		if err != nil || n < 1 {
			return "", 0, fmt.Errorf("%q: the hit count after ':' must be a positive integer", v)
		}
	}
	return name, n, nil
}

// Armed returns the point named by WEIR_FAULT and its hit count, or ok
// false when no point is armed.
func Armed() (name string, n int, ok bool) {
	if armed == nil {
		return "", 0, false
	}
	return armed.name, int(armed.n), true
}

// Hit marks that execution reached the point name. When WEIR_FAULT arms
// this point and this is its N-th hit (counted across goroutines), Hit
// writes a line to stderr and kills the process with SIGKILL; it does not
// return. A goroutine hitting the point after the N-th hit blocks until the
// process is gone, so nothing passes the point once the fault fired. In
// every other case Hit returns at once; with WEIR_FAULT unset it is one
// nil check.
func Hit(name string) {
	if armed != nil {
		armed.hit(name)
	}
}

func (s *spec) hit(name string) {
	if name != s.name {
		return
	}
	k := s.hits.Add(1)
	if k < s.n {
		return
	}
	if k == s.n {
		// os.Stderr is unbuffered: the line is written before the kill.
		fmt.Fprintf(os.Stderr, "weir: fault point %s reached (hit %d): killing the process with SIGKILL\n", name, k)
		kill()
	}
	select {} // wait for the signal; never pass the point
}
