package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weirdb/weir/checkpoint"
	"github.com/weirdb/weir/internal/pgerr"
	"github.com/weirdb/weir/planner"
	"github.com/weirdb/weir/storage"
	"github.com/weirdb/weir/types"
)

// streamErrors records the errors streaming jobs turned into NULLs (an
// expression failing on one row never stops a job): counted per job and
// operator, the latest kept with its message, logged, and shown in
// weir.stream_errors.
type streamErrors struct {
	log *slog.Logger
	mu  sync.Mutex
	// byKey holds one entry per (job, operator, SQLSTATE).
	byKey map[streamErrorKey]*streamErrorEntry
}

type streamErrorKey struct {
	job      types.JobID
	operator string
	code     string
}

type streamErrorEntry struct {
	count   int64
	last    string
	lastAt  time.Time
	firstAt time.Time
}

func newStreamErrors(log *slog.Logger) *streamErrors {
	return &streamErrors{log: log, byKey: map[streamErrorKey]*streamErrorEntry{}}
}

// Record implements stream.ErrorRecorder. The first error of a kind is
// logged at warning level, later ones at debug level, so a bad row per
// chunk does not flood the log.
func (r *streamErrors) Record(job types.JobID, operator string, err error) {
	pe := pgerr.As(err)
	k := streamErrorKey{job: job, operator: operator, code: string(pe.Code)}
	now := time.Now()
	r.mu.Lock()
	e := r.byKey[k]
	first := e == nil
	if first {
		e = &streamErrorEntry{firstAt: now}
		r.byKey[k] = e
	}
	e.count++
	e.last, e.lastAt = pe.Message, now
	r.mu.Unlock()
	level := slog.LevelDebug
	if first {
		level = slog.LevelWarn
	}
	msg := "streaming expression error, the value is NULL"
	if strings.HasPrefix(string(pe.Code), "08") {
		// A connector that cannot reach its broker (it retries).
		msg = "streaming connection error, retrying"
	}
	r.log.Log(context.Background(), level, msg, "job", job, "operator", operator, "sqlstate", pe.Code, "err", pe.Message)
}

// forget drops the entries of a job (its view was dropped).
func (r *streamErrors) forget(job types.JobID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.byKey {
		if k.job == job {
			delete(r.byKey, k)
		}
	}
}

// streamErrorRow is one row of weir.stream_errors.
type streamErrorRow struct {
	key streamErrorKey
	streamErrorEntry
}

func (r *streamErrors) rows() []streamErrorRow {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]streamErrorRow, 0, len(r.byKey))
	for k, e := range r.byKey {
		out = append(out, streamErrorRow{key: k, streamErrorEntry: *e})
	}
	return out
}

// weir's own system views (schema weir), served like the pg_catalog ones:
//
//	weir.stream_errors    expression errors turned into NULLs, per view,
//	                      operator and SQLSTATE
//	weir.jobs             the streaming jobs: one per materialized view,
//	                      sink or connector table, with its status
//	                      (running, restarting, failed) and restarts
//	weir.checkpoint       the committed epoch and the barrier interval
//	weir.state_tables     every state table of every job, with its rows
//	                      at the last committed checkpoint
func init() {
	addSys("weir", "stream_errors", "view:text operator:text sqlstate:text error_count:int8 last_error:text first_seen:timestamptz last_seen:timestamptz", func(e *Engine, s *Session) []types.Row {
		rows := e.st.errs.rows()
		slices.SortFunc(rows, func(a, b streamErrorRow) int {
			return cmp.Or(cmp.Compare(a.key.job, b.key.job), cmp.Compare(a.key.operator, b.key.operator), cmp.Compare(a.key.code, b.key.code))
		})
		out := make([]types.Row, 0, len(rows))
		for _, r := range rows {
			name := fmt.Sprintf("#%d", r.key.job)
			if rel, ok := e.cat.ByID(uint32(r.key.job)); ok {
				name = rel.Name
			}
			out = append(out, types.Row{vStr(name), vStr(r.key.operator), vStr(r.key.code), types.DInt(r.count), vStr(r.last),
				types.DInt(r.firstAt.UnixMicro()), types.DInt(r.lastAt.UnixMicro())})
		}
		return out
	})
	addSys("weir", "jobs", "id:int8 name:text actors:int8 backfill_rows:int8 backfill_done:bool kind:text status:text parallelism:int4 restarts:int8 last_error:text last_error_at:timestamptz backfill_progress:float8 restart_strategy:text",
		func(e *Engine, s *Session) []types.Row { return e.jobRows() })
	addSys("weir", "state_tables", "job:text job_id:int8 table_id:int8 name:text operator:text rows:int8", func(e *Engine, s *Session) []types.Row {
		jobs := e.runningJobs()
		// Rows are counted in one snapshot, so every table is read at
		// the same committed checkpoint; a state table holds exactly the
		// entries committed (the open epoch's writes are in memory).
		snap := e.db.NewSnapshot()
		defer snap.Close()
		var out []types.Row
		for _, j := range jobs {
			for _, t := range planner.StateTables(j.root) {
				n := int64(0)
				count := func(_, _ []byte) error { n++; return nil }
				var rows types.Datum
				if err := snap.ScanPrefix(storage.TablePrefix(t.Table.ID), count); err != nil {
					rows = null
				} else {
					rows = types.DInt(n)
				}
				out = append(out, types.Row{vStr(j.rel.Name), types.DInt(int64(j.id)), types.DInt(int64(t.Table.ID)),
					vStr(t.Table.Name), vStr(t.Operator), rows})
			}
		}
		return out
	})
	addSys("weir", "checkpoint", "committed_epoch:int8 committed_at:timestamptz barrier_interval_ms:int8", func(e *Engine, s *Session) []types.Row {
		ep := e.st.committed.Load()
		at := null
		if ep > 0 {
			at = types.DInt(checkpoint.EpochTime(ep).UnixMicro())
		}
		return []types.Row{{types.DInt(int64(ep)), at, types.DInt(e.st.interval.Load())}}
	})
}
