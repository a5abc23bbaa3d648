package syscat

import (
	"fmt"
	"strconv"
	"time"

	"github.com/weirdb/weir/types"
)

// This file defines the weir schema's views of the running system:
//
//	weir.checkpoint         the committed epoch and the barrier interval
//	weir.checkpoints        the last checkpoints: epoch, start, duration,
//	                        bytes written, status and failure reason
//	weir.jobs               the streaming jobs: one per materialized view,
//	                        sink or connector table, with status, restarts,
//	                        last error and backfill progress
//	weir.operators          per job and operator: rows in and out, state
//	                        size, cache use and backpressure
//	weir.state_tables       every state table of every job, with its rows
//	                        at the last committed checkpoint
//	weir.sources            sources and tables fed by a connector: topic,
//	                        format, malformed and late rows, lag
//	weir.source_partitions  per source, job and partition: positions,
//	                        high watermark, lag, records and bytes read
//	weir.source_errors      the latest malformed records per source
//	weir.sinks              sinks: delivery guarantee, transactions, log
//	                        store lag, state and last error
//	weir.stream_errors      expression errors turned into NULLs and
//	                        connectors' errors, per job, operator and
//	                        SQLSTATE
//	weir.watermarks         the watermarks of sources and tables
//
// and SHOW JOBS, as RisingWave has it. The engine hands the facts over as
// the plain records below (System); this file decides how they read.

// System is the running system as the weir schema shows it. Each call
// reads the current state.
type System interface {
	// Committed is the last committed checkpoint.
	Committed() Committed
	// Checkpoints are the last CheckpointHistory checkpoints, newest
	// first.
	Checkpoints() []Checkpoint
	// Jobs are the streaming jobs by id.
	Jobs() []Job
	// Operators are the running jobs' operators, by job and in EXPLAIN's
	// order.
	Operators() []Operator
	// StateTables are the running jobs' state tables.
	StateTables() []StateTable
	// Sources are the sources and tables with a connector, by name.
	Sources() []Source
	// SourcePartitions are the partitions of every source as each job
	// reading it reads them.
	SourcePartitions() []SourcePartition
	// SourceErrors are the latest malformed records per source.
	SourceErrors() []SourceError
	// Sinks are the sinks by name.
	Sinks() []Sink
	// StreamErrors are the streaming jobs' errors.
	StreamErrors() []StreamError
	// Watermarks are the watermarks of sources and tables with a
	// WATERMARK FOR clause, by name.
	Watermarks() []Watermark
}

// CheckpointHistory is how many checkpoints weir.checkpoints shows.
const CheckpointHistory = 100

// Null is a value that may be NULL (Valid false). In the records below
// a zero time.Time is NULL as well.
type Null[T any] struct {
	V     T
	Valid bool
}

// Committed is weir.checkpoint's one row.
type Committed struct {
	Epoch uint64
	// At is when the committed checkpoint began (zero before the first).
	At              time.Time
	BarrierInterval int64 // milliseconds
}

// Checkpoint is one row of weir.checkpoints.
type Checkpoint struct {
	Epoch    uint64
	Started  time.Time
	Duration time.Duration
	// Bytes is what a succeeded checkpoint wrote.
	Bytes int64
	// Status is succeeded, failed or timed_out; "" while in flight.
	Status string
	Reason string
}

// Job is one row of weir.jobs.
type Job struct {
	ID           int64
	Name         string
	Actors       int64
	BackfillRows int64
	BackfillDone bool
	Kind         string
	Status       string
	Parallelism  int
	Restarts     int64
	LastError    string
	LastErrorAt  time.Time
	// BackfillProgress is the fraction of the backfill done (1 when
	// finished or when there is none).
	BackfillProgress float64
	RestartStrategy  string
	// BackfillTotal is the rows the backfill reads in all, as far as
	// known (0: unknown).
	BackfillTotal int64
	// Backfilling is set while the job's backfill reports progress and
	// is not done (SHOW JOBS lists it).
	Backfilling bool
	// Statement is the statement that created the job's relation.
	Statement string
}

// Operator is one row of weir.operators.
type Operator struct {
	Job         string
	JobID       int64
	ID          int
	Name        string
	RowsIn      Null[int64] // NULL for a leaf
	RowsOut     int64
	StateTables int
	// The state's sizes and cache counts are NULL for a stateless
	// operator.
	StateRows, StateBytes                  Null[int64]
	CacheHits, CacheMisses, CacheEvictions Null[int64]
	Backpressure                           time.Duration
}

// StateTable is one row of weir.state_tables.
type StateTable struct {
	Job      string
	JobID    int64
	TableID  int64
	Name     string
	Operator string
	Rows     Null[int64]
}

// Source is one row of weir.sources.
type Source struct {
	Name, Kind, Topic, Format, Encode string
	Malformed, LateRows               int64
	Partitions                        int
	Lag                               Null[int64]
}

// SourcePartition is one row of weir.source_partitions.
type SourcePartition struct {
	Source, Job                        string
	Partition                          int32
	Position, Committed, HighWatermark Null[int64]
	Lag                                Null[int64]
	Records, Bytes, Malformed          int64
}

// SourceError is one row of weir.source_errors.
type SourceError struct {
	Source    string
	Partition int32
	Offset    int64
	Reason    string
	At        time.Time
}

// Sink is one row of weir.sinks (and SHOW SINKS).
type Sink struct {
	Name, Topic, Format, Guarantee string
	LastCommittedEpoch             uint64
	Pending                        string // "" for none
	Written, Skipped               int64
	Decoupled                      bool
	LagEpochs, LagRows, LagBytes   int64
	Paused                         bool
	State                          string
	LastCommittedAt                time.Time
	TxCommitted, TxAborted         int64
	TxRecommitted                  int64
	LastError                      string
}

// StreamError is one row of weir.stream_errors.
type StreamError struct {
	View, Operator, SQLState string
	Count                    int64
	Last                     string
	First, LastAt            time.Time
}

// Watermark is one row of weir.watermarks.
type Watermark struct {
	Name, Kind, Column, Expr string
	Value                    Null[string]
	LateRows                 int64
}

// rowsOf makes a row of each record.
func rowsOf[T any](recs []T, row func(T) types.Row) []types.Row {
	out := make([]types.Row, 0, len(recs))
	for _, r := range recs {
		out = append(out, row(r))
	}
	return out
}

func vNull(n Null[int64]) types.Datum {
	if !n.Valid {
		return null
	}
	return types.DInt(n.V)
}

func vStrOrNull(s string) types.Datum {
	if s == "" {
		return null
	}
	return vStr(s)
}

func vTime(t time.Time) types.Datum {
	if t.IsZero() {
		return null
	}
	return types.DInt(t.UnixMicro())
}

func vI64(i int64) types.Datum { return types.DInt(i) }

// sinkSpec is the columns of weir.sinks.
const sinkSpec = "name:text topic:text format:text guarantee:text last_committed_epoch:int8 pending_transactions:text records_written:int8 records_skipped:int8 " +
	"decoupled:bool lag_epochs:int8 lag_rows:int8 lag_bytes:int8 paused:bool" +
	" state:text last_committed_at:timestamptz transactions_committed:int8 transactions_aborted:int8 transactions_recommitted:int8 last_error:text"

func weirTables() []*table {
	return []*table{
		weirView("checkpoint", "committed_epoch:int8 committed_at:timestamptz barrier_interval_ms:int8",
			"The last committed checkpoint.",
			func(p Provider) []types.Row {
				c := p.Committed()
				at := null
				if c.Epoch > 0 {
					at = vTime(c.At)
				}
				return []types.Row{{vI64(int64(c.Epoch)), at, vI64(c.BarrierInterval)}}
			},
			"committed_epoch: Its epoch.", "committed_at: When it began.", "barrier_interval_ms: The checkpoint interval (ALTER SYSTEM SET barrier_interval_ms)."),

		weirView("checkpoints", "epoch:int8 started_at:timestamptz duration_ms:float8 bytes:int8 status:text failure_reason:text",
			fmt.Sprintf("The last %d checkpoints since the server started, newest first.", CheckpointHistory),
			func(p Provider) []types.Row {
				return rowsOf(p.Checkpoints(), func(c Checkpoint) types.Row {
					dur, bytes, status := null, null, vStr(c.Status)
					if c.Status == "" {
						status = vStr("in_progress")
					} else {
						dur = vFloat(float64(c.Duration.Microseconds()) / 1000)
					}
					if c.Status == "succeeded" {
						bytes = vI64(c.Bytes)
					}
					return types.Row{vI64(int64(c.Epoch)), vI64(c.Started.UnixMicro()), dur, bytes, status, vStrOrNull(c.Reason)}
				})
			},
			"epoch: The checkpoint's epoch.",
			"started_at: When its barrier was injected.",
			"duration_ms: Milliseconds from the barrier's injection to the commit (or the failure).",
			"bytes: Bytes the committed checkpoint wrote to storage.",
			"status: succeeded, failed, timed_out or in_progress.",
			"failure_reason: Why it failed."),

		weirView("jobs", "id:int8 name:text actors:int8 backfill_rows:int8 backfill_done:bool kind:text status:text parallelism:int4 restarts:int8 last_error:text last_error_at:timestamptz backfill_progress:float8 restart_strategy:text",
			"The streaming jobs: one per materialized view, sink and table fed by a connector.",
			func(p Provider) []types.Row {
				return rowsOf(p.Jobs(), func(j Job) types.Row {
					return types.Row{vI64(j.ID), vStr(j.Name), vI64(j.Actors), vI64(j.BackfillRows), vBool(j.BackfillDone),
						vStr(j.Kind), vStr(j.Status), vInt(j.Parallelism), vI64(j.Restarts), vStrOrNull(j.LastError), vTime(j.LastErrorAt),
						vFloat(j.BackfillProgress), vStr(j.RestartStrategy)}
				})
			},
			"id: The job's id (its relation's).",
			"name: The relation the job maintains.",
			"actors: Actors (parallel instances of its operator chains).",
			"backfill_rows: Rows of existing data its backfill has read.",
			"backfill_done: Whether its backfill has finished.",
			"kind: materialized view, sink, index or table.",
			"status: running, backfilling, recovering, restarting, rebuilding or failed (out of restart attempts or its rebuild failed; see last_error; ALTER ... RESUME brings it back).",
			"parallelism: Actors per fragment: the streaming_parallelism recorded when the job was created (its WITH option, else the session's setting, else the server's default) or set since by ALTER ... SET PARALLELISM.",
			"restarts: Times it was restarted (by its restart strategy or a recovery of every job).",
			"last_error: The error of its last restart or failure.",
			"last_error_at: When that error happened.",
			"backfill_progress: Fraction of its backfill done (1 when finished).",
			"restart_strategy: The restart strategy it fails over by (WITH (restart_strategy ...) or the system's)."),

		weirView("operators", "job:text job_id:int8 operator_id:int4 operator:text rows_in:int8 rows_out:int8 state_tables:int4 state_rows:int8 state_bytes:int8 cache_hits:int8 cache_misses:int8 cache_evictions:int8 backpressure_ms:float8",
			"The operators of every running job, in EXPLAIN's order, with what they did since the job started.",
			func(p Provider) []types.Row {
				return rowsOf(p.Operators(), func(op Operator) types.Row {
					return types.Row{vStr(op.Job), vI64(op.JobID), vInt(op.ID), vStr(op.Name), vNull(op.RowsIn), vI64(op.RowsOut),
						vInt(op.StateTables), vNull(op.StateRows), vNull(op.StateBytes), vNull(op.CacheHits), vNull(op.CacheMisses), vNull(op.CacheEvictions),
						vFloat(float64(op.Backpressure.Microseconds()) / 1000)}
				})
			},
			"job: The materialized view, sink, index or table the job maintains.",
			"job_id: The job's id.",
			"operator_id: The operator's number in EXPLAIN's order (depth first).",
			"operator: The operator, as EXPLAIN names it.",
			"rows_in: Rows into the operator from its inputs.",
			"rows_out: Rows out of the operator.",
			"state_tables: Its state tables.",
			"state_rows: Committed rows of its state tables.",
			"state_bytes: Committed key and value bytes of its state tables.",
			"cache_hits: State lookups answered from the state cache.",
			"cache_misses: State lookups that read storage.",
			"cache_evictions: State cache entries evicted to stay within the memory budget.",
			"backpressure_ms: Milliseconds its actors waited on a full output channel (the next operator is slower)."),

		weirView("state_tables", "job:text job_id:int8 table_id:int8 name:text operator:text rows:int8",
			"Every state table of every running job.",
			func(p Provider) []types.Row {
				return rowsOf(p.StateTables(), func(t StateTable) types.Row {
					return types.Row{vStr(t.Job), vI64(t.JobID), vI64(t.TableID), vStr(t.Name), vStr(t.Operator), vNull(t.Rows)}
				})
			},
			"job: The job's relation.", "job_id: The job's id.", "table_id: The state table's id.", "name: Its name in EXPLAIN.",
			"operator: The operator keeping it.", "rows: Its rows at the last committed checkpoint."),

		weirView("sources", "name:text kind:text topic:text format:text encode:text malformed_count:int8 late_rows:int8 partitions:int4 lag:int8",
			"Sources and tables fed by a connector.",
			func(p Provider) []types.Row {
				return rowsOf(p.Sources(), func(s Source) types.Row {
					return types.Row{vStr(s.Name), vStr(s.Kind), vStr(s.Topic), vStr(s.Format), vStr(s.Encode), vI64(s.Malformed),
						vI64(s.LateRows), vInt(s.Partitions), vNull(s.Lag)}
				})
			},
			"name: The source.", "kind: source or table.", "topic: The Kafka topic.", "format: PLAIN or UPSERT.", "encode: JSON or CSV.",
			"malformed_count: Records skipped as malformed (committed with the checkpoints).",
			"late_rows: Rows dropped for arriving behind the watermark (committed with the checkpoints).",
			"partitions: Partitions of the topic read.",
			"lag: Records not yet covered by a committed checkpoint, for the job furthest behind (see weir.source_partitions)."),

		weirView("source_partitions", "source:text job:text partition:int4 position:int8 committed_position:int8 high_watermark:int8 lag:int8 records:int8 bytes:int8 malformed:int8",
			"The partitions of every source as each job reading it reads them.",
			func(p Provider) []types.Row {
				return rowsOf(p.SourcePartitions(), func(sp SourcePartition) types.Row {
					return types.Row{vStr(sp.Source), vStr(sp.Job), vInt(int(sp.Partition)), vNull(sp.Position), vNull(sp.Committed),
						vNull(sp.HighWatermark), vNull(sp.Lag), vI64(sp.Records), vI64(sp.Bytes), vI64(sp.Malformed)}
				})
			},
			"source: The source (or table with a connector).",
			"job: The materialized view, sink or table whose job reads it (each has a reader of its own).",
			"partition: The Kafka partition (a generator's split).",
			"position: The offset of the next record the reader will read (a generator's: the index of the split's next event or row).",
			"committed_position: The offset (a generator's index) reading resumes from after a recovery (the last committed checkpoint's).",
			"high_watermark: The partition's high watermark: the offset the next record produced will get (NULL for a generator, which makes its rows as they are read).",
			"lag: Records not covered by a committed checkpoint: high_watermark - committed_position.",
			"records: Records read since the reader started (a generator's rows generated).",
			"bytes: Key and value bytes read since the reader started (Kafka sources only; 0 for a generator).",
			"malformed: Records skipped as malformed since the reader started (weir.sources counts them across restarts)."),

		weirView("source_errors", "source:text partition:int4 offset:int8 reason:text seen_at:timestamptz",
			"The latest records skipped as malformed, per source.",
			func(p Provider) []types.Row {
				return rowsOf(p.SourceErrors(), func(m SourceError) types.Row {
					return types.Row{vStr(m.Source), vI64(int64(m.Partition)), vI64(m.Offset), vStr(m.Reason), vI64(m.At.UnixMicro())}
				})
			},
			"source: The source.", "partition: The record's partition.", "offset: Its offset.", "reason: Why it was skipped.", "seen_at: When."),

		weirView("sinks", sinkSpec, "Sinks and their Kafka transactions.", SinkRows,
			"name: The sink.", "topic: The Kafka topic.", "format: PLAIN, UPSERT or DEBEZIUM.", "guarantee: exactly-once or at-least-once.",
			"last_committed_epoch: The last checkpoint epoch whose transaction committed.",
			"pending_transactions: Transactions pre-committed and not yet committed in Kafka.",
			"records_written: Records written since the server started.",
			"records_skipped: Records over max.record.bytes, not written.",
			"decoupled: Whether the sink delivers from a log store of its own (sink.decouple).",
			"lag_epochs: Committed epochs in its log store not yet delivered.",
			"lag_rows: Rows in its log store not yet delivered.",
			"lag_bytes: Bytes in its log store not yet delivered.",
			"paused: Whether its log store is full, pausing its job's sources.",
			"state: running, paused (its log store is full), restarting or failed.",
			"last_committed_at: When the checkpoint of last_committed_epoch began.",
			"transactions_committed: Transactions committed since the server started.",
			"transactions_aborted: Transactions aborted since the server started.",
			"transactions_recommitted: Transactions of a committed checkpoint committed again by a recovery.",
			"last_error: The sink's last error (see weir.stream_errors)."),

		weirView("stream_errors", "view:text operator:text sqlstate:text error_count:int8 last_error:text first_seen:timestamptz last_seen:timestamptz",
			"Errors of streaming jobs: expressions turned into NULLs, sources' connection errors, sinks' failures.",
			func(p Provider) []types.Row {
				return rowsOf(p.StreamErrors(), func(r StreamError) types.Row {
					return types.Row{vStr(r.View), vStr(r.Operator), vStr(r.SQLState), vI64(r.Count), vStr(r.Last),
						vI64(r.First.UnixMicro()), vI64(r.LastAt.UnixMicro())}
				})
			},
			"view: The job's relation.", "operator: Where the error happened.", "sqlstate: Its SQLSTATE.", "error_count: How often it happened.",
			"last_error: The last message.", "first_seen: When it first happened.", "last_seen: When it last happened."),

		weirView("watermarks", "name:text kind:text watermark_column:text watermark_expr:text watermark:text late_rows:int8",
			"The watermarks of sources and tables with a WATERMARK FOR clause.",
			func(p Provider) []types.Row {
				return rowsOf(p.Watermarks(), func(w Watermark) types.Row {
					wm := null
					if w.Value.Valid {
						wm = vStr(w.Value.V)
					}
					return types.Row{vStr(w.Name), vStr(w.Kind), vStr(w.Column), vStr(w.Expr), wm, vI64(w.LateRows)}
				})
			},
			"name: The source or table.", "kind: source or table.", "watermark_column: The watermark's column.",
			"watermark_expr: Its expression.", "watermark: The current watermark.", "late_rows: Rows dropped for arriving behind it."),
	}
}

// SinkRows are weir.sinks' rows, which SHOW SINKS shows too.
func SinkRows(p Provider) []types.Row {
	return rowsOf(p.Sinks(), func(s Sink) types.Row {
		return types.Row{vStr(s.Name), vStr(s.Topic), vStr(s.Format), vStr(s.Guarantee), vI64(int64(s.LastCommittedEpoch)),
			vStrOrNull(s.Pending), vI64(s.Written), vI64(s.Skipped), vBool(s.Decoupled), vI64(s.LagEpochs), vI64(s.LagRows), vI64(s.LagBytes),
			vBool(s.Paused), vStr(s.State), vTime(s.LastCommittedAt), vI64(s.TxCommitted), vI64(s.TxAborted), vI64(s.TxRecommitted),
			vStrOrNull(s.LastError)}
	})
}

// ShowJobs is SHOW JOBS, as RisingWave has it: the jobs still being
// created (backfilling) as rows of Id, Statement and Progress.
func ShowJobs(p Provider) [][]string {
	var rows [][]string
	for _, j := range p.Jobs() {
		if !j.Backfilling {
			continue
		}
		read := 0.0
		if j.BackfillTotal > 0 {
			read = min(1, float64(j.BackfillRows)/float64(j.BackfillTotal))
		}
		rows = append(rows, []string{strconv.FormatInt(j.ID, 10), j.Statement, fmt.Sprintf("%.2f%%", 100*read)})
	}
	return rows
}
